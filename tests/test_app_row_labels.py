"""What a class sees on the rows of attention: decoder and cross-attention rows named
by the token the step writes, and a repeated word's second occurrence selectable as the query.

Run with AppTest; the expected numbers are the trace's own (its weights are checked against an
independent numpy recomputation in tests/test_walkthrough.py and tests/test_attention.py)."""

from __future__ import annotations

import json

import apptest
import numpy as np
import pytest

from tests.conftest import trained
from ui import cache

pytestmark = pytest.mark.skipif(not trained("translator") or not trained("gpt"), reason="needs trained weights")
ATT, HOME = "pages/attention.py", "pages/home.py"


def trace(name, text="The cat sat on the mat", **kw):
    return cache.trace(name, "auto", text, **kw)


def heatmap_rows(at, index=0) -> list[str]:
    spec = json.loads(at.get("plotly_chart")[index].proto.spec)
    return spec["layout"]["yaxis"]["ticktext"]


def table(at):
    df = at.dataframe[0].value
    return list(df["Token"]), df["Attention weight"].to_numpy()


def headings(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_cross_attention_rows_are_named_by_the_token_written():
    at = apptest.open_page(ATT, "translator", kind="cross", layer=2, head=2, q=0)
    cross = trace("translator").attention["cross"]
    assert cross.query_tokens[:2] == ["<2zh>", "猫"]
    rows = heatmap_rows(at)
    assert rows[0] == "&lt;2zh&gt; → 猫" and rows[1] == "猫 → 坐" and rows[-1].endswith("→ &lt;/s&gt;")
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert layout["yaxis"]["title"]["text"] == "Query row: reads → writes"
    # the table says which token is being written, and shows that row's weights
    assert "When the model writes **猫** (reading **&lt;2zh&gt;**)" in headings(at)
    tokens, weights = table(at)
    assert tokens == cross.key_tokens
    np.testing.assert_allclose(weights, cross.weights[1, 1, 0], atol=1e-6)
    pills = [o.content for o in at.button_group(key="att_q").proto.options]
    assert pills[0] == "&lt;2zh&gt; → 猫"


def test_encoder_rows_are_the_tokens_read():
    at = apptest.open_page(ATT, "translator", kind="encoder", q=1)
    assert heatmap_rows(at) == ["The", "cat", "sat", "on", "the", "mat"]
    assert "When the model processes **cat**" in headings(at)


def test_home_gpt_rows_write_the_next_token():
    at = apptest.open_page(HOME, "gpt", q=2)
    att = trace("gpt").attention["decoder"]
    rows = heatmap_rows(at)
    assert rows == [
        f"{r} → {w}".replace("<", "&lt;").replace(">", "&gt;") for r, w in zip(att.query_tokens, att.query_written)
    ]
    assert f"When the model writes **{att.query_written[2]}** (reading **cat**)" in headings(at)


TEXT = "The dog saw the dog"


def test_the_second_of_a_repeated_word_can_be_the_query():
    at = apptest.open_page(ATT, "gpt", text=TEXT, layer=1, head=1)
    att = trace("gpt", TEXT).attention["decoder"]
    assert att.query_tokens == ["<s>", "The", "dog", "saw", "the", "dog"]
    pills = [o.content for o in at.button_group(key="att_q").proto.options]
    assert len(set(pills)) == len(pills)  # every row has its own pill
    at.button_group(key="att_q").set_value(5).run()
    assert not at.exception
    assert at.session_state["att_q"] == 5
    np.testing.assert_allclose(table(at)[1], att.weights[0, 0, 5], atol=1e-6)
    assert not np.allclose(att.weights[0, 0, 5], att.weights[0, 0, 2])  # really another row
    assert at.query_params["q"] in ("5", ["5"])
    # and a link with q=5 opens that row, with the pill of the second "dog" selected
    at = apptest.open_page(ATT, "gpt", text=TEXT, layer=1, head=1, q=5)
    assert at.session_state["att_q"] == 5 and at.button_group(key="att_q").value == 5
    np.testing.assert_allclose(table(at)[1], att.weights[0, 0, 5], atol=1e-6)


def test_home_second_repeated_word():
    at = apptest.open_page(HOME, "gpt", text=TEXT)
    at.button_group(key="home_q").set_value(5).run()
    att = trace("gpt", TEXT).attention["decoder"]
    assert at.session_state["home_q"] == 5
    np.testing.assert_allclose(table(at)[1], att.weights[-1].mean(0)[5], atol=1e-6)


def test_step_page_and_temperature_page_name_the_written_token():
    at = apptest.open_page("pages/steps.py", "translator", kind="cross", layer=2, head=2, step=7, q=0)
    assert heatmap_rows(at)[0] == "&lt;2zh&gt; → 猫"
    assert "When the model writes **猫**" in headings(at)
    at = apptest.open_page("pages/temperature.py", "translator", kind="cross", layer=2, head=2, q=0)
    assert heatmap_rows(at)[0] == "&lt;2zh&gt; → 猫"
    assert "When the model writes **猫**" in headings(at)


def test_generation_names_the_token_the_newest_row_writes():
    at = apptest.open_page("pages/generation.py", "gpt", done=1)
    assert any(m.value.startswith("**Reading “") and "” and writing “" in m.value for m in at.markdown)
