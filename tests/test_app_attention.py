"""The attention explorer page, run with streamlit.testing's AppTest: every model and attention
kind at the default sentence, a link carrying every setting, and links with bad values.

What is asserted is what a user sees: the tokens, the table's weights (equal to the trace's for
the chosen layer, head and query), the notices, and no exception.
"""

from __future__ import annotations

import apptest
import numpy as np
import pytest
from apptest import notices
from streamlit.testing.v1 import AppTest

import model
from analysis.measures import merge_tokens, merge_words
from tests.conftest import MODEL_KINDS
from tests.render import module_of, render_page
from ui import cache
from ui.context import DEFAULT_TEXT, Context
from ui.i18n import TABLE
from ui.rows import row_labels

PAGE = "pages/attention.py"
TIMEOUT = 90  # an untrained translator decodes to its full length once; later runs are cached


def open_page(model_name: str, **params) -> AppTest:
    return apptest.open_page(PAGE, model_name, TIMEOUT, **params)


def trace(model_name: str, text: str = DEFAULT_TEXT, **settings):
    return cache.trace(model_name, "auto", text, **settings)


def table(at: AppTest):
    """The tutorial's table: (tokens, weights) of the row the attention view shows (what its
    browser code draws from the payload it receives)."""
    return apptest.view_row(at, "att_view")


def view(at: AppTest):
    """(kind, layer 0-based, head 0-based or "mean", query position): the kind's radio and the
    view the attention view is sent."""
    v = apptest.attention_view(at, "att_view")[0]["view"]
    return (at.radio(key="att_kind").value, v["layer"], v["head"], v["q"])


def expected_row(att, layer, head, q):
    w = att.weights[layer]
    return (w.mean(axis=0) if head == "mean" else w[head])[q]


@pytest.mark.parametrize("model_name,kind", MODEL_KINDS)
def test_every_model_and_kind_at_the_default_sentence(model_name, kind):
    at = open_page(model_name, kind=kind)
    shown_kind, layer, head, q = view(at)
    assert shown_kind == kind and head == "mean"
    att = trace(model_name).attention[kind]
    assert layer == att.num_layers - 1  # the default: last layer, mean of heads
    # the rows are labelled "reads -> writes"; the table lists every key token with its weight
    header, arrays = apptest.attention_view(at, "att_view")
    assert header["q_labels"] == row_labels(att)
    tokens, weights = table(at)
    assert tokens == att.key_tokens
    np.testing.assert_allclose(weights, expected_row(att, layer, head, q), atol=1e-6)
    assert not notices(at)
    # every layer travels once (the browser switches layer, head and view), float32 as the trace
    # holds it; the first page tab alone is drawn, and no Plotly chart is in it
    assert header["layers"] == list(range(att.num_layers))
    for la in range(att.num_layers):
        np.testing.assert_array_equal(arrays[f"w{la}"], att.weights[la])
    assert not at.get("plotly_chart")
    # a model-view link opens the view's model tab
    at.session_state["att_tab_id"] = "model"
    at.run()
    assert apptest.attention_view(at, "att_view")[0]["view"]["tab"] == "model"
    # the URL now holds the view, so a copied link reopens it
    assert qp(at, "layer") == str(layer + 1) and qp(at, "head") == "mean"


def open_tab(at: AppTest, key: str) -> None:
    """Click a tab of the page (tabs rerun the page and draw only the open one)."""
    at.session_state["att_tab"] = TABLE[key]["en"]
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def qp(at: AppTest, name: str) -> str:
    value = at.query_params[name]
    return value[0] if isinstance(value, list) else value


def test_a_link_with_every_setting_reopens_that_view():
    at = open_page("gpt", layer=2, head=3, q=4, temp=2, kind="decoder")
    assert view(at) == ("decoder", 1, 2, 4)
    att = trace("gpt", temperature=2.0).attention["decoder"]
    tokens, weights = table(at)
    assert tokens == att.key_tokens
    np.testing.assert_allclose(weights, att.weights[1, 2, 4], atol=1e-6)
    assert any("2" in c.value for c in at.caption if "🌡️" in c.value)  # the temperature is said
    assert not notices(at)
    assert (qp(at, "layer"), qp(at, "head"), qp(at, "q"), qp(at, "temp")) == ("2", "3", "4", "2")


def test_word_view_merges_pieces_into_words():
    text = "The cat sat on the mat."  # "mat" and "." are two pieces of one word
    at = open_page("gpt", text=text, words=1, layer=1, head=1, q=6)
    att = trace("gpt", text).attention["decoder"]
    words = merge_tokens(att.query_tokens, att.query_words)
    assert len(words) < len(att.query_tokens)
    merged, _ = merge_words(att.weights, att.query_words, att.key_words, att.mask)
    tokens, weights = table(at)
    assert tokens == merge_tokens(att.key_tokens, att.key_words)
    np.testing.assert_allclose(weights, merged[0, 0, 6], atol=1e-6)
    # switching back to tokens keeps the same query word (its first piece)
    at.toggle(key="att_words").set_value(False).run()
    assert not at.exception
    tokens, _ = table(at)
    assert tokens == att.key_tokens
    assert att.query_tokens[at.session_state["att_q"]].startswith(words[6][:1])


def test_a_translator_link_picks_kind_layer_head_and_query():
    at = open_page("translator", kind="cross", layer=1, head=2, q=1)
    assert view(at) == ("cross", 0, 1, 1)
    att = trace("translator").attention["cross"]
    tokens, weights = table(at)
    assert tokens == att.key_tokens
    np.testing.assert_allclose(weights, att.weights[0, 1, 1], atol=1e-6)
    # another row chosen in the view (its report sets the page's att_q) changes the table to that row
    other = next(i for i, tok in enumerate(att.query_tokens) if att.query_tokens.count(tok) == 1 and i != 1)
    at.session_state["att_q"] = other
    at.run()
    assert view(at)[3] == other
    np.testing.assert_allclose(table(at)[1], att.weights[0, 1, other], atol=1e-6)


@pytest.mark.parametrize(
    ("link", "tab"),
    [(None, "heatmap"), ("heatmap", "heatmap"), ("model", "model"), ("head", "head"), ("lines", "head")],
)
def test_the_links_tab_opens_the_view_named_for_what_it_draws(link, tab):
    """The view's tabs are named for what they draw (heatmap, model view, head view); a link
    written when the head view was "lines" still opens it, and the link is rewritten to the new
    name, which a copy then carries."""
    at = open_page("gpt", **({} if link is None else {"tab": link}))
    assert apptest.attention_view(at, "att_view")[0]["view"]["tab"] == tab
    assert not notices(at)
    written = at.query_params.get("tab")
    assert (written[0] if isinstance(written, list) else written) == (None if tab == "heatmap" else tab)


def test_bad_link_values_fall_back_with_a_notice():
    at = open_page("gpt", layer=99, head="abc", kind="nope", q=-1, temp="nan")
    said = notices(at)
    for name in ("kind", "head", "temp"):  # unreadable: the default
        assert f"“{name}”" in said
    assert "Layer 99" in said and "query position -1" in said  # out of range: clamped
    att = trace("gpt").attention["decoder"]
    assert view(at) == ("decoder", att.num_layers - 1, "mean", 0)
    np.testing.assert_allclose(table(at)[1], att.weights[-1].mean(axis=0)[0], atol=1e-6)


def test_a_kind_the_model_lacks_and_a_head_out_of_range_say_so():
    at = open_page("gpt", kind="cross", head=99)
    said = notices(at)
    assert "Cross-attention" in said and "Head 99" in said
    assert view(at)[0] == "decoder" and view(at)[2] == model.PRESETS["gpt"].num_heads - 1


def test_chinese_interface_and_empty_text(page_language):
    missing = page_language("zh")
    at = open_page("gpt", lang="zh")
    assert at.radio(key="att_kind").label == "注意力类型"
    assert not [k for k in missing if k.startswith(("att_", "av_"))]
    assert view(at)[2] == "mean"
    assert apptest.attention_view(at, "att_view")[0]["strings"]["layer"] == "层"
    page_language("en")
    at = open_page("gpt", text="")
    assert at.info and apptest.attention_view(at, "att_view") is None  # the hint, and nothing else to show


def test_a_link_with_the_shown_layers_temperature():
    """ltemp: the shown layer's own temperature, applied in the browser; the view is sent at it and
    its first row is softmax(log w / T) of the trace's (untempered) weights, the link keeps it."""
    at = open_page("gpt", layer=3, head=1, q=3, ltemp=0.5)
    header, arrays = apptest.attention_view(at, "att_view")
    assert header["view"]["ltemp"] == 0.5 and header["temperature"]
    att = trace("gpt").attention["decoder"]
    np.testing.assert_array_equal(arrays["w2"], att.weights[2])
    s = np.log(att.weights[2, 0, 3, :4].astype(np.float64)) / 0.5
    expected = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    np.testing.assert_allclose(table(at)[1][:4], expected, atol=1e-6)
    assert qp(at, "ltemp") == "0.5"
    # merged words are sums of weights, not one softmax: no temperature slider there
    at.toggle(key="att_words").set_value(True).run()
    assert not apptest.attention_view(at, "att_view")[0]["temperature"]


def test_a_temperature_link_is_read_as_on_the_temperature_page():
    """?temp= has one parser on every page (ui/view.py): any T in 0.05..20 as it is (the table is
    the trace at that T), past the range its end with a notice (it used to be refused here and
    clamped there)."""
    at = open_page("gpt", layer=2, head=3, q=4, temp=2.5)
    assert not notices(at)
    att = trace("gpt", temperature=2.5).attention["decoder"]
    np.testing.assert_allclose(table(at)[1], att.weights[1, 2, 4], atol=1e-6)
    assert qp(at, "temp") == "2.5"
    at = open_page("gpt", layer=2, head=3, q=4, temp=100)
    assert "“temp”" in notices(at) and "100" in notices(at) and qp(at, "temp") == "20"
    att = trace("gpt", temperature=20.0).attention["decoder"]
    np.testing.assert_allclose(table(at)[1], att.weights[1, 2, 4], atol=1e-6)


def test_the_export_tab_offers_the_head_view_only_where_the_server_can_draw_it(monkeypatch):
    """The head view's SVG and PNG are drawn on the server by vl_convert, an optional package: the
    export tab offers them beside the trace's JSON when it is there, and says why they are missing
    when not. Drawn from render(ctx, view) (tests/render.py), so the page's lookup can be replaced."""
    ctx = Context("en", "gpt", DEFAULT_TEXT, "cpu", False)

    def shown():
        at = render_page(PAGE, ctx, tab="export")
        assert not at.exception, [e.value for e in at.exception]
        return [b.proto.label for b in at.get("download_button")], [c.value for c in at.caption]

    labels, captions = shown()
    assert labels == [TABLE[k]["en"] for k in ("att_download_json", "att_download_svg", "att_download_png")]
    assert TABLE["att_no_svg"]["en"] not in captions
    monkeypatch.setattr(module_of(PAGE), "vega_converter", lambda: None)
    labels, captions = shown()
    assert labels == [TABLE["att_download_json"]["en"]]
    assert TABLE["att_no_svg"]["en"] in captions
