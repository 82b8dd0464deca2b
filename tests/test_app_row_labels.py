"""What a class sees on the rows of attention: decoder and cross-attention rows named
by the token the step writes, and a repeated word's second occurrence selectable as the query.

Run with AppTest; the expected numbers are the trace's own (its weights are checked against an
independent numpy recomputation in tests/test_walkthrough.py and tests/test_attention.py)."""

from __future__ import annotations

import apptest
import numpy as np
import pytest

from tests.conftest import trained
from ui import cache

pytestmark = pytest.mark.skipif(not trained("translator") or not trained("gpt"), reason="needs trained weights")
ATT, HOME = "pages/attention.py", "pages/home.py"


def trace(name, text="The cat sat on the mat", **kw):
    return cache.trace(name, "auto", text, **kw)


def view_rows(at, key: str) -> list[str]:
    """The rows of the attention view (ui/attention_view): the labels its canvas draws, raw text
    (a canvas prints text, it does not parse HTML)."""
    return apptest.attention_view(at, key)[0]["q_labels"]


def view_caption(at, key: str) -> str:
    """The heading the view writes above its table for the row it shows (its template, filled as
    the browser fills it)."""
    h = apptest.attention_view(at, key)[0]
    q = h["view"]["q"]
    s = h["strings"]
    if h["q_written"] is None:
        return s["caption"].format(token=h["q_tokens"][q])
    return s["caption_written"].format(token=h["q_tokens"][q], written=h["q_written"][q])


def table(at, key: str = "att_view"):
    return apptest.view_row(at, key)


def test_cross_attention_rows_are_named_by_the_token_written():
    at = apptest.open_page(ATT, "translator", kind="cross", layer=2, head=2, q=0)
    cross = trace("translator").attention["cross"]
    assert cross.query_tokens[:2] == ["<2zh>", "猫"]
    rows = view_rows(at, "att_view")
    assert rows[0] == "<2zh> → 猫" and rows[1] == "猫 → 坐" and rows[-1].endswith("→ </s>")
    assert apptest.attention_view(at, "att_view")[0]["strings"]["axis_y"] == "Query row: reads → writes"
    # the table says which token is being written, and shows that row's weights
    assert view_caption(at, "att_view") == "When the model writes 猫 (reading <2zh>):"
    tokens, weights = table(at)
    assert tokens == cross.key_tokens
    np.testing.assert_allclose(weights, cross.weights[1, 1, 0], atol=1e-6)


def test_encoder_rows_are_the_tokens_read():
    at = apptest.open_page(ATT, "translator", kind="encoder", q=1)
    assert view_rows(at, "att_view") == ["The", "cat", "sat", "on", "the", "mat"]
    assert view_caption(at, "att_view") == "When the model processes cat:"


def test_home_gpt_rows_write_the_next_token():
    at = apptest.open_page(HOME, "gpt", q=2)
    att = trace("gpt").attention["decoder"]
    assert view_rows(at, "home_view") == [f"{r} → {w}" for r, w in zip(att.query_tokens, att.query_written)]
    assert view_caption(at, "home_view") == f"When the model writes {att.query_written[2]} (reading cat):"


TEXT = "The dog saw the dog"


def test_the_second_of_a_repeated_word_can_be_the_query():
    at = apptest.open_page(ATT, "gpt", text=TEXT, layer=1, head=1)
    att = trace("gpt", TEXT).attention["decoder"]
    assert att.query_tokens == ["<s>", "The", "dog", "saw", "the", "dog"]
    # every row is its own row of the view (chosen by position, so the second "dog" is row 5)
    assert len(view_rows(at, "att_view")) == len(att.query_tokens)
    at.session_state["att_q"] = 5  # what the view's report does when the reader picks row 5
    at.run()
    assert not at.exception
    assert apptest.attention_view(at, "att_view")[0]["view"]["q"] == 5
    np.testing.assert_allclose(table(at)[1], att.weights[0, 0, 5], atol=1e-6)
    assert not np.allclose(att.weights[0, 0, 5], att.weights[0, 0, 2])  # really another row
    assert at.query_params["q"] in ("5", ["5"])
    # and a link with q=5 opens that row
    at = apptest.open_page(ATT, "gpt", text=TEXT, layer=1, head=1, q=5)
    assert apptest.attention_view(at, "att_view")[0]["view"]["q"] == 5
    np.testing.assert_allclose(table(at)[1], att.weights[0, 0, 5], atol=1e-6)


def test_home_second_repeated_word():
    at = apptest.open_page(HOME, "gpt", text=TEXT)
    at.session_state["home_q"] = 5  # the view's report of row 5
    at.run()
    att = trace("gpt", TEXT).attention["decoder"]
    assert apptest.attention_view(at, "home_view")[0]["view"]["q"] == 5
    np.testing.assert_allclose(table(at, "home_view")[1], att.weights[-1].mean(0)[5], atol=1e-6)


def test_step_page_and_temperature_page_name_the_written_token():
    at = apptest.open_page("pages/steps.py", "translator", kind="cross", layer=2, head=2, step=7, q=0)
    assert view_rows(at, "steps_view")[0] == "<2zh> → 猫"  # canvas text, raw
    assert view_caption(at, "steps_view") == "When the model writes 猫 (reading <2zh>):"
    at = apptest.open_page("pages/temperature.py", "translator", kind="cross", layer=2, head=2, q=0)
    assert view_rows(at, "temp_view")[0] == "<2zh> → 猫"  # canvas text, raw
    assert view_caption(at, "temp_view") == "When the model writes 猫 (reading <2zh>):"


def test_generation_names_the_token_the_newest_row_writes():
    at = apptest.open_page("pages/generation.py", "gpt", done=1)
    assert any(m.value.startswith("**Reading “") and "” and writing “" in m.value for m in at.markdown)
