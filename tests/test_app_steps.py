"""The step-by-step page (and the architecture page), run with streamlit.testing's AppTest.

Every step of the translator's three attentions and of a GPT is walked with the Next button; the
numbers each step shows are compared with a recomputation from the model's weights (the helpers
in tests/conftest.py, which never use our model code). Then bad links (layer, head, step,
kind and query out of range or not numbers), old links (?step=N before ?stage=NAME), a one-token
sentence, a sentence past the maximum length, presentation mode, and the copy-link box.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

import apptest
import numpy as np
import pytest
from apptest import ok, open_alone, open_page
from streamlit.testing.v1 import AppTest

from analysis.walkthrough import STEPS, walk
from tests.conftest import first_input, recompute, recompute_post
from ui import cache

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/steps.py"
TIMEOUT = 90
TEXT = "The cat sat on the mat"


pytestmark = pytest.mark.usefixtures("random_where_untrained")  # tests/conftest.py


def step_of(at: AppTest) -> int:
    return int(at.subheader[0].value.split(".")[0])


def tables(at: AppTest) -> list:
    return [d.value for d in at.dataframe]


def same(df, expected, what):
    got = df.to_numpy(dtype=np.float64)
    expected = np.asarray(expected, np.float64)
    assert got.shape == expected.shape, f"{what}: {got.shape} != {expected.shape}"
    assert np.allclose(got, expected, atol=3e-4, rtol=1e-4), f"{what}: off by {np.abs(got - expected).max():g}"


def check_numbers(at: AppTest, runner, w, step: int) -> None:
    """What the page shows on this step equals the recomputation from the weights."""
    r = recompute(runner, w)
    dfs = tables(at)
    key = STEPS[step - 1]
    if key == "tokens":
        assert list(dfs[0]["Token"]) == w.query_tokens and list(dfs[0]["Token id"]) == w.query_ids
        if w.kind == "cross":
            assert list(dfs[1]["Token"]) == w.key_tokens and list(dfs[1]["Token id"]) == w.key_ids
    elif key == "embed":
        same(dfs[0], first_input(runner, w.query_ids), "X^(0)")
        if w.kind == "cross":
            same(dfs[1], first_input(runner, w.key_ids), "encoder X^(0)")
    elif key == "qkv":
        for df, name in zip(dfs, "qkv"):
            same(df, r[name], name)
    elif key in ("scores", "scale"):
        same(dfs[0], r["scores" if key == "scores" else "scaled"], key)
        assert list(dfs[0].columns) == [f"{j} {tok}" for j, tok in enumerate(w.key_tokens)]
    elif key == "mask":
        assert np.array_equal(dfs[0].to_numpy() == "✓", r["mask"])
        same(dfs[1], r["masked"], "masked scores")
    elif key == "softmax":
        same(dfs[0], r["weights"], "weights")  # the full table, 4 decimals
        assert len(dfs) == 1, "the row's table is the attention view's own"
        check_weights_view(at, w, r["weights"], r["mask"])
    elif key == "weighted":
        same(dfs[0], r["head_output"], "head output")
    elif key == "concat":
        same(dfs[0], r["output"], "MultiHead output")
    else:
        post = recompute_post(runner, w, r["output"])
        shown = dict(zip([p.key for p in w.post], dfs))
        for name, value in post.items():
            same(shown[name], value, f"step 10 {name}")


def check_weights_view(at: AppTest, w, weights, mask) -> None:
    """The softmax step's weight matrix is the in-browser attention view (no Plotly chart left on
    the step): what the browser receives equals the recomputed weights to float32 precision, with
    the heatmap's rows and keys, the causal mask where there is one, the page's row (steps_q), and
    the layer and head the reader counts (from 1, for its exports and text alternative)."""
    assert not at.get("plotly_chart"), [c.proto.id for c in at.get("plotly_chart")]
    got = apptest.attention_view(at, "steps_view")
    assert got is not None, "the softmax step draws its weights with the attention view"
    header, arrays = got
    assert header["shape"] == [1, 1, len(w.query_tokens), len(w.key_tokens)]
    np.testing.assert_allclose(arrays["w0"][0], weights, atol=2e-6, rtol=0)
    assert header["q_tokens"] == w.query_tokens and header["k_tokens"] == w.key_tokens
    if mask.all():
        assert "mask" not in arrays  # nothing is masked (encoder, cross): no cell marked
    else:
        assert np.array_equal(arrays["mask"], mask)
    q = at.session_state["steps_q"]
    assert header["view"]["q"] == q and header["compact"] and not header["temperature"]
    assert (header["first_layer"], header["head_as"]) == (w.layer, w.head + 1)
    # the tutorial's table beside the heatmap: the row the browser shows first
    keys, row = apptest.view_row(at, "steps_view")
    assert keys == w.key_tokens
    np.testing.assert_allclose(row, weights[q], atol=2e-6, rtol=0)


WALKS = [("translator", "encoder"), ("translator", "decoder"), ("translator", "cross"), ("gpt-rope", "decoder")]


@pytest.mark.parametrize("name,kind", WALKS)
def test_every_step_shows_the_models_numbers(name, kind):
    runner = cache.runner(name, "auto")
    layer, head = runner.config.num_layers, 2  # 1-based in the link: the last layer, head 2
    params = {"stage": "tokens", "layer": layer, "head": head} | ({"kind": kind} if name == "translator" else {})
    at = open_page(PAGE, name, **params)
    w = walk(runner, TEXT, kind, layer - 1, head - 1)
    assert at.selectbox(key="steps_layer").value == layer - 1 and at.selectbox(key="steps_head").value == head - 1
    for step in range(1, len(STEPS) + 1):
        assert step_of(at) == step and at.query_params["stage"] == STEPS[step - 1]
        assert len(at.latex) >= 2  # the page's formula and this step's
        assert at.code, "the step shows the code that computes it"
        check_numbers(at, runner, w, step)
        if step < len(STEPS):
            at.button(key="steps_next").click().run()
            ok(at)
    assert at.button(key="steps_next").disabled
    at.button(key="steps_prev").click().run()
    ok(at)
    assert step_of(at) == len(STEPS) - 1


def warnings(at: AppTest) -> str:
    return " ".join(w.value for w in at.warning) + " " + " ".join(i.value for i in at.info)


@pytest.mark.parametrize(
    "params,expect",
    [
        ({"layer": 99}, "Layer 99"),
        ({"head": 0}, "Head 0"),
        ({"head": "abc"}, "abc"),
        ({"stage": "nope"}, "nope"),
        ({"step": 42}, "42"),  # an old link's number past the tenth step
        ({"step": "x"}, "x"),
        ({"kind": "cross"}, "Cross-attention"),
    ],
)
def test_bad_links_show_a_notice(params, expect):
    at = open_page(PAGE, "gpt", **params)
    assert expect in warnings(at), warnings(at)
    assert 0 <= at.session_state["steps_layer"] < 3 and 0 <= at.session_state["steps_head"] < 4
    assert 1 <= step_of(at) <= len(STEPS)


def test_every_step_renders_after_a_bad_link():
    at = open_page(PAGE, "gpt-alibi", layer=-3, head=77, stage="tokens")
    assert "Head 77" in warnings(at) and "Layer -3" in warnings(at)
    assert (at.session_state["steps_layer"], at.session_state["steps_head"]) == (0, 3)
    for _ in range(len(STEPS) - 1):
        at.button(key="steps_next").click().run()
        ok(at)
    assert step_of(at) == len(STEPS)
    assert at.query_params["layer"] == "1" and at.query_params["head"] == "4"  # the link now says what is shown


def test_query_out_of_range_in_the_link():
    at = open_page(PAGE, "gpt", stage="softmax", q=999)
    assert "999" in warnings(at)
    assert at.session_state["steps_q"] == 1


def test_one_token_sentence():
    """ "猫" is one token: 1 x 1 (encoder), 1 key per query (cross), <s> + 猫 (GPT)."""
    for name, kind in (("gpt", "decoder"), ("translator", "cross")):
        at = open_page(PAGE, name, text="猫", **({"kind": kind} if name == "translator" else {}))
        for _ in range(len(STEPS) - 1):
            at.button(key="steps_next").click().run()
            ok(at)
        assert step_of(at) == len(STEPS)
    for kind in ("encoder", "decoder"):  # the translator's other two, at their core steps
        at.radio(key="steps_kind").set_value(kind)
        for step in (3, 6, 7, 9):
            at.selectbox(key="steps_step").set_value(STEPS[step - 1]).run()
            ok(at)
            assert step_of(at) == step


def test_sentence_past_the_maximum_length():
    runner = cache.runner("gpt", "auto")
    long = " ".join(["the cat sat on the mat"] * 40)
    at = open_page(PAGE, "gpt", text=long, stage="softmax")
    assert any("cut" in c.value for c in at.caption), "the page says the text was cut"
    w = walk(runner, long, "decoder", 0, 0)
    assert len(w.query_tokens) == runner.config.max_seq_len
    check_numbers(at, runner, w, 7)
    for _ in range(3):
        at.button(key="steps_next").click().run()
        ok(at)


def test_presentation_mode_can_be_left():
    at = open_alone(PAGE, model="gpt", present=1, stage="qkv")
    assert at.toggle(key="present").value is True  # the sidebar's toggle (the sidebar is hidden)
    css = [m.value for m in at.markdown if "stSidebar" in m.value]
    assert css and "display: none" in css[0] and "font-size" in css[0]
    exit_toggle = at.toggle(key="_present_exit")  # the way back, on the page itself
    assert exit_toggle.value is True
    exit_toggle.set_value(False).run()
    ok(at)
    assert "present" not in at.query_params
    assert not any("stSidebar" in m.value for m in at.markdown)
    assert at.toggle(key="present").value is False  # the sidebar's toggle agrees
    assert step_of(at) == 3  # same view, just not enlarged
    at.toggle(key="present").set_value(True).run()  # and back in again
    ok(at)
    assert at.query_params["present"] == "1" and at.toggle(key="_present_exit").value is True


def test_copy_link_reproduces_the_view():
    at = open_page(PAGE, "translator", stage="mask", kind="cross", layer=2, head=3)
    link = at.code[-1].value
    query = dict(parse_qsl(link.split("?", 1)[1]))
    assert query["stage"] == "mask" and query["kind"] == "cross" and query["layer"] == "2" and query["head"] == "3"
    assert query["model"] == "translator" and query["text"] == TEXT
    # opening that link shows the same view
    again = open_page(PAGE, query.pop("model"), text=query.pop("text"), lang=query.pop("lang"), **query)
    assert step_of(again) == 6 and again.radio(key="steps_kind").value == "cross"
    assert again.selectbox(key="steps_layer").value == 1 and again.selectbox(key="steps_head").value == 2


@pytest.mark.parametrize("old,name", [(1, "tokens"), (7, "softmax"), (10, "ffn")])
def test_an_old_link_with_a_step_number_opens_that_step_and_is_written_anew(old, name):
    """Links copied before ?stage= said ?step=N (1 to 10): they open step N, the address then says
    ?stage=NAME and no ?step= (which other pages read as a training or decoding step)."""
    at = open_page(PAGE, "translator", step=old, kind="cross", layer=2, head=3)
    assert step_of(at) == old == STEPS.index(name) + 1
    assert at.query_params["stage"] == name and "step" not in at.query_params
    assert not at.warning  # a good old link is no mistake
    query = dict(parse_qsl(at.code[-1].value.split("?", 1)[1]))  # the copy-link box
    assert query["stage"] == name and "step" not in query and query["kind"] == "cross"


def test_a_link_with_both_names_follows_the_new_one():
    at = open_page(PAGE, "gpt", step=2, stage="scale")
    assert step_of(at) == STEPS.index("scale") + 1 and "step" not in at.query_params


def test_a_head_link_of_mean_shows_the_first_head_and_says_so():
    """?head=mean (the attention page's mean of the heads) has no step-by-step: one head is
    walked through, so the first, with a notice naming what the link asked."""
    at = open_page(PAGE, "gpt", head="mean", stage="softmax")
    assert "mean" in warnings(at) and "Head 1" in warnings(at)
    assert at.session_state["steps_head"] == 0 and at.query_params["head"] == "1"


def in_order(node, out: list) -> list:
    """The page's elements as a reader meets them, top to bottom: (type, key, value)."""
    children = getattr(node, "children", None)
    if isinstance(children, dict) and children:
        for k in sorted(children):
            in_order(children[k], out)
    else:
        out.append((type(node).__name__, getattr(node, "key", None), getattr(node, "value", None)))
    return out


@pytest.mark.parametrize("stage", ["tokens", "softmax"])
def test_on_a_projector_the_steps_numbers_come_right_under_its_title(stage):
    """Presentation mode (issue 37): under the step's title come its numbers, the tokens' table or
    the step's first chart, before the page's formula and the kind, layer and head pickers (at
    1280 x 800 with a room open the tokens' table was at y 1191, below the first screen)."""
    at = open_page(PAGE, "translator", present=1, stage=stage)
    assert at.toggle(key="_present_exit").value is True  # presentation mode's own way out
    seen = in_order(at.main, [])
    title = next(
        i for i, (kind, _, v) in enumerate(seen) if kind == "Subheader" and str(v).startswith(f"{step_of(at)}.")
    )
    # the next thing seen (a chart's text alternative, read and not seen, and CSS aside)
    kind, key, value = next(e for e in seen[title + 1 :] if e[0] != "Html")
    if stage == "tokens":
        w = walk(cache.runner("translator", "auto"), TEXT, "encoder", 0, 0)
        assert kind == "Dataframe" and list(value["Token"]) == w.query_tokens, seen[title : title + 3]
    else:
        # the weights' heatmap: the in-browser attention view (its table beside it)
        assert key == "steps_view" and apptest.attention_view(at, "steps_view"), seen[title : title + 3]
    formula = next(i for i, (kind, _, v) in enumerate(seen) if "mathrm{Attention}" in str(v))
    picker = next(i for i, (_, key, _) in enumerate(seen) if key == "steps_layer")
    assert title < formula and title < picker
    # not on a projector: the pickers first, as the tutorial reads
    at = open_page(PAGE, "translator", stage=stage)
    seen = in_order(at.main, [])
    title = next(
        i for i, (kind, _, v) in enumerate(seen) if kind == "Subheader" and str(v).startswith(f"{step_of(at)}.")
    )
    assert next(i for i, (_, key, _) in enumerate(seen) if key == "steps_layer") < title
