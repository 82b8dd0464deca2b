"""The temperature page in AppTest: the attention view it sends (the head at T = 1 beside the same
head at T: the trace's weights, and the model re-run at T where the scope says), both ends of the
slider's range, bad links clamped with a notice, the translator's translation, and the sampling
panel (top-k 1, top-p 0.01, greedy)."""

from __future__ import annotations

import json

import apptest
import numpy as np
import pytest
import torch
from apptest import array, notices
from streamlit.testing.v1 import AppTest

from analysis import experiments as ex
from model.gpt import Sampling, sampling_distribution
from ui import cache
from ui.context import DEFAULT_TEXT
from ui.safe import md
from viz.attention_view import at_temperature

PAGE = "pages/temperature.py"
TIMEOUT = 90


def open_page(model_name: str = "gpt", **params) -> AppTest:
    return apptest.open_page(PAGE, model_name, TIMEOUT, **params)


def view(at: AppTest):
    """The attention view the page sends (ui/attention_view): (header, base arrays, hot arrays or
    None). The base is the trace at T = 1; hot, when T != 1, the model re-run at T where the scope
    says (the right-hand panel's source while the slider is at the T the server computed)."""
    header, arrays = apptest.attention_view(at, "temp_view")
    hot = None
    if header.get("sources"):
        hot = apptest.view_source(at, "temp_view", 1)
    return header, arrays, hot


def chart(at: AppTest, key: str) -> dict:
    for c in at.get("plotly_chart"):
        if c.proto.id.endswith("-" + key):
            return json.loads(c.proto.spec)
    raise KeyError(key)


def test_default_gpt_view_is_t_equal_1_on_both_sides():
    at = open_page("gpt")
    header, arrays, hot = view(at)
    att = cache.trace("gpt", "auto", DEFAULT_TEXT).attention["decoder"]
    v = header["view"]
    assert (v["layer"], v["head"], v["q"], v["ltemp"]) == (att.num_layers - 1, 0, 1, 1.0)
    assert (at.session_state["temp_layer"], at.session_state["temp_head"], at.session_state["temp_q"]) == (
        v["layer"],
        0,
        1,
    )
    assert header["k_tokens"] == att.key_tokens and not header["mean"]  # one head: the entropy is a head's
    for la in range(att.num_layers):  # every layer travels: the browser switches layer and head
        np.testing.assert_array_equal(arrays[f"w{la}"], att.weights[la])
    # two panels: T = 1, and the slider's T (computed in the browser from the same weights)
    left, right = header["panels"]
    assert left["temp"] == 1.0 and right["temp"] == "view" and hot is None and "hot" not in right
    assert not notices(at)
    # the entropy curve: rows' mean and the chosen row, both rising with T
    spec = chart(at, "temp_entropy")
    for trace in spec["data"]:
        assert np.all(np.diff(array(trace["y"])) >= -1e-9)


@pytest.mark.parametrize(
    "raw,shown", [("0", 0.05), ("-3", 0.05), ("1e9", 20.0), ("inf", 20.0), ("0.05", 0.05), ("20", 20.0)]
)
def test_both_ends_and_out_of_range_links(raw, shown):
    at = open_page("gpt", temp=raw, tlayer=2, layer=2, head=3, q=3)
    header, arrays, hot = view(at)
    assert header["view"]["ltemp"] == shown == at.session_state["temp_t"]
    if raw not in ("0.05", "20"):
        assert "temp" in notices(at) and f"{shown:g}" in notices(at)
    else:
        assert not notices(at)
    # the right-hand panel: the model re-run with T in layer 2 only, drawn while the slider stays there
    right = header["panels"][1]
    assert (right["hot"], right["hot_t"], right["scope"]) == (1, shown, 1)
    want = cache.trace("gpt", "auto", DEFAULT_TEXT, temperature=shown, temperature_layer=1).attention["decoder"]
    base = cache.trace("gpt", "auto", DEFAULT_TEXT).attention["decoder"]
    for la in range(base.num_layers):
        np.testing.assert_array_equal(hot[f"w{la}"], want.weights[la])
        np.testing.assert_array_equal(arrays[f"w{la}"], base.weights[la])
    # the browser's T in layer 2 (the scope, the layer shown) is the model's: softmax(log w / T)
    w1, wT = base.weights[1, 2, 3], want.weights[1, 2, 3]
    np.testing.assert_allclose(at_temperature(w1, shown), wT, atol=1e-6)
    # higher temperature: a flatter row (the tutorial's 温度越高 → 注意力分布越均匀)
    ent = lambda w: -(w[w > 0] * np.log(w[w > 0])).sum()
    assert (ent(wT) >= ent(w1) - 1e-6) if shown > 1 else (ent(wT) <= ent(w1) + 1e-6)
    assert at.query_params["temp"] == f"{shown:g}" and at.query_params["tlayer"] == "2"


def test_nan_and_garbage_fall_back_to_the_default_with_a_notice():
    at = open_page("gpt", temp="nan", tlayer="x", stemp="nan", topp="abc", head=99, layer=0)
    assert at.session_state["temp_t"] == 1.0
    assert at.selectbox(key="temp_scope").value == "all"
    v = view(at)[0]["view"]
    assert (v["head"], v["layer"]) == (3, 0) == (at.session_state["temp_head"], at.session_state["temp_layer"])
    text = notices(at)
    for name in ("temp", "tlayer", "stemp", "topp", "Head 99"):
        assert name in text


def test_a_released_slider_reruns_the_model_in_every_layer_and_updates_the_link():
    """The view reports T when the slider is let go (take_view: session temp_t); the page then
    re-runs the model at T in every layer, sends it beside the T = 1 weights, and the link holds T.
    The browser half (a drag, its report) is tests/browser/test_attention_view.py's."""
    at = open_page("gpt")
    at.session_state["temp_t"] = 5.0
    at.run()
    assert not at.exception
    assert at.query_params["temp"] == "5"
    header, arrays, hot = view(at)
    right = header["panels"][1]
    assert (right["hot_t"], right["scope"]) == (5.0, "all") and header["view"]["ltemp"] == 5.0
    want = cache.trace("gpt", "auto", DEFAULT_TEXT, temperature=5.0).attention["decoder"]
    last = want.num_layers - 1
    np.testing.assert_array_equal(hot[f"w{last}"], want.weights[last])
    # T in every layer is not T in the last layer alone: the note says which one the chart shows
    alone = at_temperature(arrays[f"w{last}"][0], 5.0)
    assert np.abs(alone - want.weights[last, 0]).max() > 1e-3
    assert "every layer" in right["notes"]["server"] and "let go" in right["notes"]["pending"]
    # back at T = 1: nothing to re-run, and the link drops T
    at.session_state["temp_t"] = 1.0
    at.run()
    assert "temp" not in at.query_params and view(at)[2] is None


def test_translator_shows_the_translation_at_both_temperatures():
    at = open_page("translator", temp=20, kind="encoder")
    base = cache.trace("translator", "auto", DEFAULT_TEXT)
    hot = cache.trace("translator", "auto", DEFAULT_TEXT, temperature=20.0)
    quotes = [m.value for m in at.markdown if m.value.startswith("> ")]
    assert quotes == ["> " + (md(base.output_text) or "(empty)"), "> " + (md(hot.output_text) or "(empty)")]
    assert at.radio(key="temp_kind").value == "encoder"
    assert len(at.radio(key="temp_kind").options) == 3


@pytest.mark.parametrize(
    "params,sampling",
    [
        ({"topk": 1}, Sampling(1.0, 1)),
        ({"topp": 0.01}, Sampling(1.0, None, 0.01)),
        ({"stemp": 0}, Sampling(0.0)),
        ({"topk": 5, "stemp": 5}, Sampling(5.0, 5)),
    ],
)
def test_sampling_panel_cuts_tokens(params, sampling):
    at = open_page("gpt", **params)
    logits = ex.gpt_next_token_logits(cache.runner("gpt", "auto"), DEFAULT_TEXT)
    probs, kept = sampling_distribution(torch.from_numpy(logits), sampling)
    n = int(kept.sum())
    assert n == 1 or "topp" in params or "topk" in params and n == params["topk"]
    spec = chart(at, "temp_sampling")
    colours = spec["data"][0]["marker"]["color"]
    assert sum(c != "#b4b4b4" for c in colours) == min(n, len(colours))  # grey = cut off
    assert f"{n} tokens kept" in " ".join(c.value for c in at.caption)
    shown = array(spec["data"][0]["y"])
    assert shown.max() == pytest.approx(float(probs.max()), abs=1e-6)


def test_sampling_with_the_translator_uses_the_gpt_and_says_so():
    at = open_page("translator", topk=3)
    assert any("uses the GPT" in c.value for c in at.caption)
    chart(at, "temp_sampling")


def test_chinese_interface_has_every_string(page_language):
    missing = page_language("zh")
    at = open_page("gpt", lang="zh", temp=3)
    assert at.title[0].value == "温度"
    assert not [k for k in missing if k.startswith("temp_")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_translators_notes_name_the_attention_t_acts_on(lang):
    """The translator's layer n holds three attentions (encoder self, decoder self, cross): the browser's
    "T in layer n only" acts on the one shown, the server's on all three (issue 46: the notes said
    "layer n" for both, while cross-attention differs between them by up to 0.15 at T = 3)."""
    from ui.i18n import text_in

    at = open_page("translator", kind="cross", temp="3", tlayer=2, layer=2, lang=lang)
    header, _, _ = view(at)
    cross, enc, dec = (text_in(lang, f"av_attention_{k}") for k in ("cross", "encoder", "decoder"))
    assert header["attention"] == cross
    notes = header["panels"][1]["notes"]
    shown = notes["browser"].replace("{attention}", header["attention"]).replace("{layer}", "2")
    assert cross in shown and enc not in shown
    for key in ("server", "pending"):  # the server's T: every attention of layer 2, each named
        assert all(name in notes[key] for name in (enc, dec, cross)), notes[key]
    gpt = view(open_page("gpt", temp="3", tlayer=2, layer=2, lang=lang))[0]
    assert gpt["attention"] == dec and cross not in gpt["panels"][1]["notes"]["server"]
