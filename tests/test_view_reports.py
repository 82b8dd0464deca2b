"""What the attention view reports back comes from the visitor's browser: anything may arrive
(issue 45, item 7: forged reports showed Streamlit's error box on home, attention, temperature and
compare, and NaN temperatures reached the link). fit_view reads every field with the parser the
link declares for it (ui/view.py) and falls back with a notice."""

import json
import math

import pytest

from ui import attention_view, view

HOSTILE_VALUES = [
    "abc", [1], {}, None, "x" * 100_000, float("nan"), float("inf"), float("-inf"), 1e400, -3, 0, 1e308,
    True, "1e400", "nan", "  2 ", "2.5", -1e-320, 2**70, "<b>1</b>", "\u200b1",
]  # fmt: skip
SHAPES = [(3, 4, 6, 6), (2, 4, 1, 1), (30, 9, 40, 40)]


# what a view holds when nothing was moved in the browser: the in-browser model's knobs (live.js)
LIVE_DEFAULTS = {"temp": 1.0, "off": [], "how": "zero", "nopos": False, "text": None}


@pytest.mark.parametrize("field", ["layer", "head", "q", "ltemp", "tab", *LIVE_DEFAULTS])
def test_every_hostile_value_of_every_field_gives_a_view_the_page_can_show(field, monkeypatch):
    told = []
    monkeypatch.setattr(attention_view.state, "notice", told.append)
    assert HOSTILE_VALUES
    for shape in SHAPES:
        n_layers, n_heads, q, _ = shape
        for value in HOSTILE_VALUES:
            got = attention_view.fit_view({field: value}, shape)
            assert got["tab"] in attention_view.TABS
            assert type(got["layer"]) is int and 0 <= got["layer"] < n_layers
            assert got["head"] == "mean" or (type(got["head"]) is int and 0 <= got["head"] < n_heads)
            assert type(got["q"]) is int and 0 <= got["q"] < q
            assert type(got["ltemp"]) is float and math.isfinite(got["ltemp"])
            assert view.T_MIN <= got["ltemp"] <= view.T_MAX
            assert type(got["temp"]) is float and view.T_MIN <= got["temp"] <= view.T_MAX
            assert type(got["off"]) is list and all(type(h) is str for h in got["off"])
            assert got["how"] in attention_view.ABLATIONS and type(got["nopos"]) is bool
            assert got["text"] is None or (type(got["text"]) is str and len(got["text"]) <= 100_000)
            json.dumps(got, allow_nan=False)  # what the link and the room carry
    if field in ("layer", "head", "q", "ltemp", "temp"):
        assert told, "a refused value must be told"


@pytest.mark.parametrize("report", [None, "view", 3, [], ["layer"], {"view": {}}])
def test_a_report_that_is_no_view_at_all_gives_the_default_view(report, monkeypatch):
    monkeypatch.setattr(attention_view.state, "notice", lambda m: None)
    got = attention_view.fit_view(report, (3, 4, 6, 6))
    assert got == {"tab": "heatmap", "layer": 2, "head": "mean", "q": 0, "ltemp": 1.0, **LIVE_DEFAULTS}


def test_a_good_report_is_kept_as_sent(monkeypatch):
    told = []
    monkeypatch.setattr(attention_view.state, "notice", told.append)
    sent = {"tab": "model", "layer": 1, "head": 3, "q": 4, "ltemp": 2.5, **LIVE_DEFAULTS}
    assert attention_view.fit_view(sent, (3, 4, 6, 6)) == sent
    assert attention_view.fit_view({**sent, "layer": 1.0}, (3, 4, 6, 6)) == sent  # JSON's one number type
    assert told == []


@pytest.mark.parametrize("temp", [float("nan"), "abc", None, [], float("inf")])
def test_same_view_is_false_never_an_error_for_a_raw_report(temp):
    ok = {"tab": "heatmap", "layer": 0, "head": 0, "q": 0, "ltemp": 1.0, "temp": 1.0}
    for name in ("ltemp", "temp"):
        assert attention_view.same_view({**ok, name: temp}, ok) is False
    assert attention_view.same_view("not a view", ok) is False


def test_the_browsers_knobs_are_kept_as_sent(monkeypatch):
    told = []
    monkeypatch.setattr(attention_view.state, "notice", told.append)
    sent = {"tab": "heatmap", "layer": 0, "head": 1, "q": 2, "ltemp": 1.0, "temp": 2.0}
    sent |= {"off": ["decoder:1:2", "decoder:3:4"], "how": "mean", "nopos": True, "text": "狗咬人"}
    assert attention_view.fit_view(sent, (3, 4, 6, 6)) == sent
    # a head this model does not have is dropped, not kept for a later model
    assert attention_view.fit_view({**sent, "off": ["decoder:4:1", "decoder:1:5"]}, (3, 4, 6, 6))["off"] == []
    assert told == []
