"""The temperature page in AppTest: the head at T = 1 beside the same head at T (the tables are
the traces' numbers), both ends of the slider, bad links clamped with a notice, the translator's
translation, and the sampling panel (top-k 1, top-p 0.01, greedy)."""

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

PAGE = "pages/temperature.py"
TIMEOUT = 90


def open_page(model_name: str = "gpt", **params) -> AppTest:
    return apptest.open_page(PAGE, model_name, TIMEOUT, **params)


def tables(at: AppTest):
    """(tokens, weights) of the two tutorial tables: T = 1, then T."""
    out = []
    for df in (at.dataframe[0].value, at.dataframe[1].value):
        out.append((list(df["Token"]), df["Attention weight"].to_numpy()))
    return out


def chart(at: AppTest, key: str) -> dict:
    for c in at.get("plotly_chart"):
        if c.proto.id.endswith("-" + key):
            return json.loads(c.proto.spec)
    raise KeyError(key)


def test_default_gpt_view_is_t_equal_1_on_both_sides():
    at = open_page("gpt")
    assert at.select_slider(key="temp_t").value == 1.0
    (tok1, w1), (tokT, wT) = tables(at)
    att = cache.trace("gpt", "auto", DEFAULT_TEXT).attention["decoder"]
    layer, head, q = at.session_state["temp_layer"], at.session_state["temp_head"], at.session_state["temp_q"]
    assert (layer, head, q) == (att.num_layers - 1, 0, 1)
    assert tok1 == tokT == att.key_tokens
    np.testing.assert_allclose(w1, att.weights[layer, head, q], atol=1e-6)
    np.testing.assert_allclose(wT, w1)
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
    assert at.select_slider(key="temp_t").value == shown
    if raw not in ("0.05", "20"):
        assert "temp" in notices(at) and f"{shown:g}" in notices(at)
    else:
        assert not notices(at)
    (_, w1), (_, wT) = tables(at)
    hot = cache.trace("gpt", "auto", DEFAULT_TEXT, temperature=shown, temperature_layer=1).attention["decoder"]
    base = cache.trace("gpt", "auto", DEFAULT_TEXT).attention["decoder"]
    np.testing.assert_allclose(wT, hot.weights[1, 2, 3], atol=1e-6)
    np.testing.assert_allclose(w1, base.weights[1, 2, 3], atol=1e-6)
    # higher temperature: a flatter row (the tutorial's 温度越高 → 注意力分布越均匀)
    ent = lambda w: -(w[w > 0] * np.log(w[w > 0])).sum()
    assert (ent(wT) >= ent(w1) - 1e-6) if shown > 1 else (ent(wT) <= ent(w1) + 1e-6)
    assert at.query_params["temp"] == f"{shown:g}"


def test_nan_and_garbage_fall_back_to_the_default_with_a_notice():
    at = open_page("gpt", temp="nan", tlayer="x", stemp="nan", topp="abc", head=99, layer=0)
    assert at.select_slider(key="temp_t").value == 1.0
    assert at.selectbox(key="temp_scope").value == "all"
    assert at.selectbox(key="temp_head").value == 3 and at.selectbox(key="temp_layer").value == 0
    text = notices(at)
    for name in ("temp", "tlayer", "stemp", "topp", "Head 99"):
        assert name in text


def test_moving_the_slider_reruns_the_model_and_updates_the_link():
    at = open_page("gpt")
    at.select_slider(key="temp_t").set_value(5.0).run()
    assert not at.exception
    assert at.query_params["temp"] == "5"
    (_, w1), (_, wT) = tables(at)
    hot = cache.trace("gpt", "auto", DEFAULT_TEXT, temperature=5.0).attention["decoder"]
    np.testing.assert_allclose(wT, hot.weights[-1, 0, 1], atol=1e-6)
    at.button(key="temp_reset").click().run()
    assert at.select_slider(key="temp_t").value == 1.0 and "temp" not in at.query_params


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
