"""The positional-encoding page in AppTest: every section, tiny and odd d_model, bad links clamped
with a notice, and the word-order claim as the page states it (without positional encoding the
attention of 人咬狗 is that of 狗咬人 permuted, within 1e-5; with it, not)."""

from __future__ import annotations

import json

import apptest
import numpy as np
import pytest
from apptest import array, notices
from streamlit.testing.v1 import AppTest

import model
from analysis import experiments as ex
from model import registry
from tests.render import render_page
from ui import cache
from ui.context import Context

PAGE = "pages/positional.py"
TIMEOUT = 120


def open_page(model_name: str = "gpt", **params) -> AppTest:
    return apptest.open_page(PAGE, model_name, TIMEOUT, **params)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


@pytest.mark.parametrize("d,n", [(128, 100), (1, 1), (2, 5), (7, 40)])
def test_sinusoidal_table_for_any_d_model(d, n):
    at = open_page(d=d, len=n)
    assert at.number_input(key="pos_d").value == d and at.number_input(key="pos_len").value == n
    assert any("PE" in lx.value for lx in at.get("latex")) or len(at.get("latex")) == 2
    heat = charts(at)[0]["data"][0]
    np.testing.assert_allclose(array(heat["z"]), ex.pe_table(d, n), atol=1e-6)
    assert all(x < d for x in at.multiselect(key="pos_dims").value)
    assert not notices(at)
    assert ("odd" in " ".join(c.value for c in at.caption)) == (d % 2 == 1)


@pytest.mark.parametrize("d", [1, 7, 128])
def test_relative_positions_and_rotation(d):
    at = open_page(sec="rel", d=d, len=30, p=4, k=9)
    if d == 1:
        assert any("no (sin, cos) pair" in i.value for i in at.info)
    else:
        df = at.dataframe[0].value
        np.testing.assert_allclose(
            df["M(k)·PE(p)"][: 2 * (min(d, 8) // 2)], df["PE(p + k)"][: 2 * (min(d, 8) // 2)], atol=1e-9
        )
        assert any("Largest difference" in m.value for m in at.markdown)


def test_learned_rope_and_alibi_sections():
    at = open_page(sec="learned", npos=30)
    sims = [array(c["data"][0]["z"]) for c in charts(at)]
    assert [s.shape for s in sims] == [(30, 30), (30, 30)]
    np.testing.assert_allclose(np.diag(sims[0]), 1.0, atol=1e-6)

    at = open_page(sec="rope")
    rope, alibi = charts(at)
    ys = [array(tr["y"]) for tr in rope["data"]]
    np.testing.assert_allclose(ys[0], ys[1], atol=1e-3)  # the offset alone decides the score
    assert len([tr for tr in alibi["data"] if tr["type"] == "heatmap"]) == registry.PRESETS["gpt-alibi"].num_heads


def test_word_order_permutation_claim_on_the_models_numbers():
    at = open_page("translator", sec="order")
    r = ex.word_order(cache.runner("translator", "auto"), "狗咬人", "人咬狗")
    assert r[False]["diff"] < 1e-5 and r[True]["diff"] > 1e-3
    lines = [m.value for m in at.markdown if "max |W_B" in m.value]
    assert len(lines) == 2
    assert f"{r[False]['diff']:.2e}" in lines[0] and "the same up to the reordering" in lines[0]
    assert f"{r[True]['diff']:.2e}" in lines[1] and "changes with the order" in lines[1]
    # the view starts at the head where the order matters most
    best = np.unravel_index(np.argmax(r[True]["diffs"]), r[True]["diffs"].shape)
    assert (at.selectbox(key="pos_olayer").value, at.selectbox(key="pos_ohead").value) == tuple(map(int, best))
    table = at.dataframe[0].value
    assert list(table["Sentence"]) == ["狗咬人", "人咬狗"]
    with_pe = cache.runner("translator", "auto").translate(["狗咬人", "人咬狗"])
    assert list(table["With positional encoding"]) == with_pe


def test_the_order_section_drawn_from_a_context_shows_the_layer_and_head_given():
    """render(ctx, view) without app.py (tests/render.py): a layer and a head given from 0 are drawn
    and linked from 1, in Chinese, on the translator whatever the sidebar's model; each heatmap is
    that head's encoder attention as the model computes it on its own."""
    ctx = Context("zh", "gpt", "The cat sat on the mat", "cpu", False)
    at = render_page(PAGE, ctx, sec="order", olayer=1, ohead=0)
    assert not at.exception, [e.value for e in at.exception]
    layer, head = at.selectbox(key="pos_olayer"), at.selectbox(key="pos_ohead")
    assert (layer.value, head.value) == (1, 0)
    assert (layer.format_func(layer.value), head.format_func(head.value)) == ("第 2 层", "第 1 个头")
    assert {k: at.query_params[k] for k in ("sec", "olayer", "ohead")} in (
        {"sec": "order", "olayer": "2", "ohead": "1"},
        {"sec": ["order"], "olayer": ["2"], "ohead": ["1"]},
    )
    m = model.load("translator", device="cpu")
    for key, sentence in (("pos_order_a_True", "狗咬人"), ("pos_order_b_True", "人咬狗")):
        drawn = array(apptest.chart(at, key)["data"][0]["z"])
        np.testing.assert_allclose(drawn, m.trace(sentence).attention["encoder"].weights[1, 0], atol=1e-5)


def test_word_order_with_sentences_that_are_not_reorderings():
    at = open_page("gpt", sec="order", a="狗咬人", b="猫咬人")
    assert any("not a reordering" in i.value for i in at.info)
    at = open_page("gpt", sec="order", a=" ", b="人咬狗")
    assert any("Type a sentence" in i.value for i in at.info)


def test_three_gpts_and_longer_texts():
    at = open_page("gpt", sec="long", glayer=9)
    assert "Layer 9" in notices(at)  # clamped to the last layer
    assert at.selectbox(key="pos_glayer").value == registry.PRESETS["gpt"].num_layers - 1
    table = at.dataframe[0].value
    assert len(table) == 3
    values = table.iloc[:, 1:].to_numpy(dtype=float)
    assert np.all(np.isfinite(values)) and np.all(values > 0)


@pytest.mark.parametrize(
    "params,expect",
    [
        ({"d": 0}, ("d", 1)),
        ({"d": 100000}, ("d", 512)),
        ({"len": -5}, ("len", 1)),
        ({"d": "nan"}, ("d", 128)),
        ({"sec": "bogus"}, ("sec", "sin")),
    ],
)
def test_bad_links_are_clamped_with_a_notice(params, expect):
    at = open_page(**params)
    name, value = expect
    assert name in notices(at)
    key = {"d": "pos_d", "len": "pos_len", "sec": "pos_sec"}[name]
    assert at.session_state[key] == value


def test_chinese_interface_has_every_string(page_language):
    missing = page_language("zh")
    for sec in ("sin", "rel", "rope"):
        at = open_page(lang="zh", sec=sec)
        assert at.title[0].value == "位置编码"
    assert not [k for k in missing if k.startswith("pos_")]
