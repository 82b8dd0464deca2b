"""The intervene and compare pages in the real app: a click on a model-view tile switches that head
off and the translation on the page becomes the model's translation without it; the compare page
draws A, B and B - A for 狗咬人 / 人咬狗 and says the tokens were aligned by position."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlparse

import model

from .helpers import (
    arm,
    exceptions,
    goto,
    plot_summaries,
    screenshot,
    settle,
    tile_xy,
    view_summaries,
    wait_for_run_start,
)

TEXT = "The cat sat on the mat"


def main_text(page) -> str:
    return page.locator("[data-testid='stMain']").inner_text()


def test_clicking_the_alignment_head_off_breaks_the_translation(app_server, new_page):
    page = new_page()
    goto(page, f"{app_server.url}/intervene?model=translator&lang=en&text={quote(TEXT)}&ikind=cross")
    assert not exceptions(page), exceptions(page)
    m = model.load("translator", device="cpu")
    untouched, broken = m.trace(TEXT).output_text, m.trace(TEXT, ablate=[("cross", 1, 1)]).output_text
    assert f"Untouched: {untouched}" in main_text(page)
    screenshot(page, "intervene-en")
    xy = tile_xy(page, 1, 1)
    since = arm(page)
    page.mouse.click(xy["x"], xy["y"])
    assert wait_for_run_start(page, 5, since=since), "clicking a model-view tile did not rerun the page"
    settle(page)
    assert not exceptions(page), exceptions(page)
    assert parse_qs(urlparse(page.url).query).get("off") == ["cross:2:2"], page.url
    assert f"With the intervention: {broken}" in main_text(page)
    drawn = [p for p in plot_summaries(page) if p["visible"]]
    assert len(drawn) >= 4 and all(p["drawn"] for p in drawn)
    screenshot(page, "intervene-cross-2-2-off")


def test_compare_two_sentences_in_chinese(app_server, new_page):
    page = new_page()
    goto(page, f"{app_server.url}/compare?model=translator&lang=zh&text={quote('狗咬人')}&text2={quote('人咬狗')}")
    assert not exceptions(page), exceptions(page)
    text = main_text(page)
    assert (
        "对比" in text and "按位置对齐" not in text
    )  # as many tokens: compared position by position, no warning (issue 50.8)
    # A, B and B - A: the attention view's three panels (ui/attention_view), drawn on its canvas
    page.wait_for_function("() => window.__attentionViews && window.__attentionViews.cmp_view", timeout=30_000)
    assert [v for v in view_summaries(page) if v["visible"] and v["drawn"]]
    assert page.evaluate("() => window.__attentionViews.cmp_view.geo.panels") == 3
    assert re.search(r"B − A", text)
    screenshot(page, "compare-zh")
