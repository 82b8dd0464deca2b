"""Chinese on the page as a reader sees it (issue 50.6), in a real browser, both languages.

- The attention view's key labels (狗 / 咬 / 人 above the columns) are drawn upright wherever they
  fit their cell: the canvas's fillText is watched, and the transform in force when a key label is
  drawn must not turn it (they were all turned 90 degrees, whatever their width).
- A Chinese sentence outside the models' language has its unknown words struck out (<del>) as an
  English one has: 鲸 in 鲸鱼咬人 (only space-separated words were ever struck out).
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from data import corpus

from .helpers import drawn_text, exceptions, open_view


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_chinese_key_labels_are_upright(app_server, new_page, lang):
    page = open_view(
        new_page, f"{app_server.url}/?model=translator&lang={lang}&text={quote('狗咬人')}", "home_view", True
    )
    keys = page.evaluate("() => window.__attentionViews.home_view.labels.k")
    chinese = [k for k in keys if any("\u4e00" <= c <= "\u9fff" for c in k)]
    assert len(chinese) >= 3, keys  # 狗, 咬, 人: nothing to check without them
    drawn = drawn_text(page)
    for k in chinese:
        seen = [d["turned"] for d in drawn if d["text"] == k]
        assert seen, (k, "never drawn", [d["text"] for d in drawn][:60])
        assert not any(seen), f"{k!r} drawn turned 90 degrees: {seen}"
    assert not exceptions(page)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_unknown_chinese_words_are_struck_out(app_server, new_page, lang):
    text = "鲸鱼咬人"
    unknown = corpus.unknown_words(text)
    assert unknown, "every word of the sentence is known now: pick one the corpus lacks"
    page = open_view(new_page, f"{app_server.url}/?model=translator&lang={lang}&text={quote(text)}")
    struck = page.locator("[data-testid='stMain'] del").all_inner_texts()
    assert struck == unknown, (struck, unknown)
    assert "~~" not in page.locator("[data-testid='stMain']").inner_text()
    assert not exceptions(page)
