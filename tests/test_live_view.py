"""The attention view's in-browser model, the parts that run without a browser: live.js's text
cleaning and knobs against the server's own (model/runner.clean_text, model.trace's settings) in
node; what a report may carry (fit_view: the knobs and a typed sentence, anything else refused);
which models a page hands to the browser (ui.browser_model.available); the page's trace with the
knobs the view reports. tests/browser/test_live_model.py runs the model itself in Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from model.errors import InputError
from model.runner import MAX_CHARS, clean_text
from ui import browser_model
from ui.attention_view import VIEW_FIELDS, bind_view, fit_view, same_view

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")

TEXTS = [
    "The cat sat on the mat",
    "  The   cat\tsat\n\non the mat  ",
    "狗咬人",
    "a\x00b\x07c\x1fd\x7f e",  # control characters: dropped
    "\u200b\ufeff",  # nothing that makes a token
    "\u3000猫\u3000坐\u2028",  # ideographic and line-separator spaces
    "emoji 🙂 and \ud800 a lone surrogate",
    "x" * (MAX_CHARS + 50),
    "\x85next line\xa0nbsp",
    "",
    "   ",
]


def python_clean(text: str) -> str:
    try:
        return clean_text(text)[0]
    except InputError:
        return ""


@pytest.mark.skipif(NODE is None, reason="node is needed (./scripts/test installs it)")
def test_live_js_cleans_text_as_the_server_does_and_turns_knobs_into_the_graphs():
    script = (
        "import { cleanText, liveKnobs } from './ui/attention_view/live.js';\n"
        "const texts = JSON.parse(process.argv[1]);\n"
        "console.log(JSON.stringify({\n"
        f"  clean: texts.map((t) => cleanText(t, {MAX_CHARS})),\n"
        "  all: liveKnobs({t: 2, all: true, layer: 1, off: [], how: 'zero', pos: true}),\n"
        "  one: liveKnobs({t: 0.5, all: false, layer: 1, off: ['cross:2:3'], how: 'mean', pos: false}),\n"
        "}));\n"
    )
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script, json.dumps(TEXTS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        encoding="utf-8",
        errors="surrogatepass",
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # JSON carries the lone surrogate as \ud800 both ways; Python's clean_text drops it
    assert out["clean"] == [python_clean(t) for t in TEXTS]
    assert out["all"] == {
        "temperature": 2,
        "temperatureLayer": None,
        "headsOff": [],
        "ablation": "zero",
        "usePosition": True,
    }
    assert out["one"] == {
        "temperature": 0.5,
        "temperatureLayer": 1,
        "headsOff": [["cross", 1, 2]],
        "ablation": "mean",
        "usePosition": False,
    }


SHAPE = (2, 4, 5, 5)


def test_a_report_carries_the_knobs_and_a_typed_sentence_and_nothing_else():
    v = fit_view(
        {
            "temp": 2.5,
            "off": ["decoder:2:4", "decoder:2:4", "cross:1:1"],
            "how": "mean",
            "nopos": True,
            "text": "狗咬人",
        },
        SHAPE,
    )
    assert set(v) == set(VIEW_FIELDS)
    assert (v["temp"], v["off"], v["how"], v["nopos"], v["text"]) == (
        2.5,
        ["decoder:2:4", "cross:1:1"],
        "mean",
        True,
        "狗咬人",
    )
    hostile = fit_view(
        {"off": ["decoder:3:1", "decoder:1:5", "encoder:0:1", "x", 7, None], "how": "drop", "nopos": "yes", "text": 5},
        SHAPE,
    )
    # heads this model lacks, 0-based names, junk: dropped; an unknown ablation: zero; only True is True
    assert (hostile["off"], hostile["how"], hostile["nopos"], hostile["text"]) == ([], "zero", False, None)
    assert fit_view({"off": "decoder:1:1"}, SHAPE)["off"] == []  # a list or nothing
    assert fit_view({"text": "x" * 5000}, SHAPE)["text"] == "x" * 2000


def test_the_knobs_make_another_view_and_an_absent_sentence_is_left_alone(monkeypatch):
    base = fit_view({}, SHAPE)
    assert same_view(base, dict(base))
    for change in ({"ltemp": 2.0}, {"temp": 2.0}, {"off": ["decoder:1:1"]}, {"how": "mean"}, {"nopos": True}):
        assert not same_view(base, {**base, **change}), change
    for junk in ({"off": 5}, {"off": "decoder:1:1"}, {"nopos": "yes"}, {"temp": "nan"}, {"how": [1]}):
        same_view({**base, **junk}, base)  # a raw report: answered, never an error
    import streamlit as st

    state: dict = {"text": "The cat sat on the mat"}
    monkeypatch.setattr(st, "session_state", state)
    bind_view(q="home_q", text="text")({**base, "q": 2})
    assert state == {"text": "The cat sat on the mat", "home_q": 2}  # no sentence reported: kept
    bind_view(q="home_q", text="text")({**base, "text": "狗咬人"})
    assert state["text"] == "狗咬人"


def test_only_our_published_models_go_to_the_browser(tmp_path, monkeypatch):
    static = tmp_path / "static"
    for f in browser_model.NEEDED:
        (static / f).parent.mkdir(parents=True, exist_ok=True)
        (static / f).write_bytes(b"x")
    graph = static / "models" / "gpt.onnx"
    graph.write_bytes(b"0123456789")
    meta = graph.with_suffix(".json")
    from model import onnx_export

    meta.write_text(json.dumps({"format": onnx_export.FORMAT, "bytes": 10}))
    assert browser_model.available("gpt", static)
    assert not browser_model.available("gpt-rope", static)  # not published
    assert not browser_model.available("gpt@10", static)  # a snapshot: the timeline's, not here
    assert not browser_model.available("hf:sentence-transformers/all-MiniLM-L6-v2", static)
    meta.write_text(json.dumps({"format": onnx_export.FORMAT, "bytes": 11}))  # half copied
    assert not browser_model.available("gpt", static)
    meta.write_text(json.dumps({"format": onnx_export.FORMAT + 1, "bytes": 10}))  # another export format
    assert not browser_model.available("gpt", static)
    meta.write_text(json.dumps({"format": onnx_export.FORMAT, "bytes": 10}))
    (static / "ort" / "ort.wasm.min.mjs").unlink()  # no runtime installed
    assert not browser_model.available("gpt", static)
    (static / "ort" / "ort.wasm.min.mjs").write_bytes(b"x")
    monkeypatch.setenv(browser_model.ENV, "0")
    assert not browser_model.available("gpt", static)
    monkeypatch.delenv(browser_model.ENV)
    assert browser_model.available("gpt", static)
    assert os.environ.get(browser_model.ENV) is None


def test_the_attention_pages_trace_has_the_knobs_the_view_reported():
    import model
    from pages.attention import knobs
    from ui import cache

    view = {"temp": 2.0, "off": ["decoder:2:3"], "how": "uniform", "nopos": True}
    got = cache.trace("gpt", "cpu", "The cat sat on the mat", **knobs(view)).attention["decoder"].weights
    want = (
        model.load("gpt")
        .trace("The cat sat on the mat", temperature=2.0, ablate=[("decoder", 1, 2)], how="uniform", use_position=False)
        .attention["decoder"]
        .weights
    )
    assert abs(got - want).max() == 0.0
    assert knobs({"temp": 1.0, "off": [], "how": "mean", "nopos": False}) == {}
