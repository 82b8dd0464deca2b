"""The training-timeline page in AppTest, on the shipped snapshots: the slider lists the snapshots;
a step from the link shows that snapshot's losses, attention and output (checked against the
snapshot loaded here, and its index); the role lines are the role scores; the sentence naming a
head that forms matches its line; play runs to the end; Chinese; a bad step in the link; and the
untrained model in the sidebar of another page."""

from __future__ import annotations

import json
import re

import apptest
import numpy as np
import pytest
from apptest import array, notices
from streamlit.testing.v1 import AppTest

import model
from analysis import timeline as probes
from model import registry
from ui import timeline as ui_timeline
from ui.context import DEFAULT_TEXT
from ui.safe import md
from viz.timeline import FORMED

PAGE = "pages/timeline.py"
TIMEOUT = 300
pytestmark = pytest.mark.skipif(
    not (registry.snapshots_of("translator") and registry.snapshots_of("gpt")),
    reason="needs the shipped snapshots of translator and gpt",
)


def steps(name):
    return [s["step"] for s in model.snapshots_of(name)]


def open_page(model_name="translator", **params) -> AppTest:
    return apptest.open_page(PAGE, model_name, TIMEOUT, **params)


def charts(at: AppTest) -> dict:
    return {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def chart(at: AppTest, key: str) -> dict:
    found = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if key in c.proto.id]
    assert found, f"no chart {key}"
    return found[0]


def texts(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown)


def test_translator_at_step_zero_shows_that_snapshot(tmp_path):
    first = steps("translator")[0]
    at = open_page("translator", step=first, kind="cross", layer=2, head=2)
    slider = at.select_slider(key="tl_step")
    assert list(slider.options) == [f"step {s:,}" for s in steps("translator")[:-1]] + [
        f"step {steps('translator')[-1]:,} (shipped)"
    ]
    assert slider.value == first
    metrics = model.snapshots_of("translator")[0]["metrics"]
    assert (
        f"At step {first:,}: training loss {metrics['train_loss']:.3f}, held-out loss "
        f"{metrics['heldout_loss']:.3f}" in texts(at)
    )
    want = model.load(f"translator@{first}", device="cpu").trace(DEFAULT_TEXT)
    heat = chart(at, "tl_heatmap")["data"][0]
    got = (
        array(heat["z"])
        if not isinstance(heat["z"], list) or not isinstance(heat["z"][0], list)
        else np.array(heat["z"], dtype=float)
    )
    np.testing.assert_allclose(got, want.attention["cross"].weights[1, 1], atol=1e-6)
    assert f"Translation at this step: **{md(want.output_text)}**" in texts(at) or (
        not want.output_text and "nothing: the model ends at once" in texts(at)
    )
    # the marker on the loss chart sits at snapshot 0
    loss = chart(at, "tl_loss")
    assert [s["x0"] for s in loss["layout"]["shapes"]] == [0]
    assert at.query_params["step"] == str(first) and at.query_params["kind"] == "cross"


def test_moving_the_slider_changes_the_step_and_the_link():
    at = open_page("translator")
    last = steps("translator")[-1]
    assert at.select_slider(key="tl_step").value == last
    mid = steps("translator")[len(steps("translator")) // 2]
    at.select_slider(key="tl_step").set_value(mid).run()
    assert not at.exception
    assert at.query_params["step"] == str(mid)
    assert f"At step {mid:,}:" in texts(at)


def test_role_lines_are_the_role_scores_and_the_sentence_matches_its_line():
    name = "translator"
    at = open_page(name, kind="cross", layer=2, head=2, role="alignment")
    lines = chart(at, "tl_role_lines")["data"]
    selected = [d for d in lines if d.get("mode") == "lines+markers"]
    assert len(selected) == 1 and selected[0]["name"] == "L2 H2"
    got = array(selected[0]["y"])
    ss = steps(name)
    for i in (0, len(ss) - 1):
        want = probes.role_scores(model.load(f"{name}@{ss[i]}", device="cpu"))["cross"]["alignment"][1, 1]
        assert got[i] == pytest.approx(want, abs=1e-6)
    # the sentence naming the head that forms: its numbers are those of its line
    sentence = [m.value for m in at.markdown if "becomes" in m.value]
    assert sentence, texts(at)
    m = re.search(
        r"\*\*(.+?) L(\d) H(\d) becomes an? ([\w-]+) head between steps ([\d,]+) and ([\d,]+)\*\* "
        r"\(its score goes from ([\d.]+) to ([\d.]+)\)",
        sentence[0],
    )
    assert m, sentence[0]
    before, after = int(m.group(5).replace(",", "")), int(m.group(6).replace(",", ""))
    assert ss.index(after) == ss.index(before) + 1
    assert float(m.group(7)) < FORMED <= float(m.group(8))


def test_play_steps_through_to_the_end(monkeypatch):
    monkeypatch.setattr(ui_timeline, "PLAY_SECONDS", 0.0)  # what Play shows, not its pace
    first, last = steps("gpt")[0], steps("gpt")[-1]
    at = open_page("gpt", step=first)
    at.button(key="tl_play").click().run(timeout=TIMEOUT)
    assert not at.exception
    # after Play the slider is the one keyed by the step it was drawn with (issue 22 item 5b: the
    # slider the server moved showed the step before; tests/browser/test_timeline_play.py)
    assert at.select_slider(key=f"_tl_step_at_{last}").value == last
    assert at.session_state["tl_step"] == last
    assert at.query_params["step"] == str(last)
    assert at.button(key="tl_play").label == "Play"
    at.select_slider(key=f"_tl_step_at_{last}").set_value(first).run(timeout=TIMEOUT)  # the reader moves it
    assert at.select_slider(key="tl_step").value == first and at.query_params["step"] == str(first)


def test_gpt_shows_its_greedy_continuation_at_the_step():
    step = steps("gpt")[-1]
    at = open_page("gpt", step=step, text="The cat")
    gen = model.load(f"gpt@{step}", device="cpu").generate("The cat", max_new_tokens=12, top_k=1)
    more = gen.text[len(gen.prompt) :].strip()
    assert any(m.value.startswith("Continuation at this step") and more.split()[0] in m.value for m in at.markdown)


def test_gpt_in_presentation_mode_shows_the_loss_alone_and_the_numbers_below():
    """On a projector a decoder's loss chart takes the full width (no exact-match chart beside it)
    and the losses at the step follow in the page: the page drew nothing past the slider there
    (`with st:` on the module, a TypeError) until render was called with presentation on."""
    from tests.render import render_page
    from ui.context import Context

    at = render_page(PAGE, Context("en", "gpt", "The cat sat on the mat", "cpu", True), TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    last = model.snapshots_of("gpt")[-1]["metrics"]
    assert (
        f"At step {steps('gpt')[-1]:,}: training loss {last['train_loss']:.3f}, held-out loss "
        f"{last['heldout_loss']:.3f}" in texts(at)
    )
    assert any(m.value.startswith("Continuation at this step") for m in at.markdown)
    assert chart(at, "tl_loss") and chart(at, "tl_heatmap")
    assert not [c for c in at.get("plotly_chart") if "tl_em" in c.proto.id]


def test_a_bad_step_in_the_link_then_chinese():
    at = open_page("translator", step=7)
    assert "The link's step 7 is not a snapshot of this model" in notices(at)
    assert at.select_slider(key="tl_step").value == steps("translator")[-1]
    at.sidebar.radio(key="lang").set_value("zh").run()
    assert not at.exception
    assert at.title[0].value == "训练时间线"
    assert any(m.value.startswith(f"第 {steps('translator')[-1]:,} 步：训练损失") for m in at.markdown)
    from ui.i18n import MISSING

    assert not {k for k in MISSING if k.startswith("tl_")}


def test_a_model_without_snapshots_says_so():
    at = open_page("gpt-rope") if not registry.snapshots_of("gpt-rope") else pytest.skip("gpt-rope has snapshots")
    assert any("has no training snapshots" in i.value for i in at.info)


def test_the_untrained_model_in_the_sidebar_of_the_attention_page():
    at = apptest.open_page("pages/attention.py", "translator@0", TIMEOUT)
    box = at.sidebar.selectbox(key="model")
    assert box.value == "translator@0"
    assert box.format_func("translator@0") == "Translator (encoder–decoder) (untrained, step 0)"
    assert "translator@0" in box.options or "Translator (encoder–decoder) (untrained, step 0)" in box.options


def test_play_pauses_with_its_run_slot_handed_back(monkeypatch):
    """A page run holds one of the server's few run slots (ui/run.py, two by default): Play's pause
    between snapshots must not hold one, or two students playing the timeline stop the class."""
    import time

    from ui import slots

    seen = []
    real = time.sleep

    def sleep(seconds):
        if seconds == ui_timeline.PLAY_SECONDS:  # Play's pause, in the page's own thread
            seen.append(slots.RUN_SLOTS.held())
        real(seconds)

    monkeypatch.setattr(ui_timeline, "PLAY_SECONDS", 0.000123)  # a value nothing else sleeps
    monkeypatch.setattr(time, "sleep", sleep)
    first, last = steps("gpt")[0], steps("gpt")[-1]
    at = open_page("gpt", step=first)
    at.button(key="tl_play").click().run(timeout=TIMEOUT)
    assert at.session_state["tl_step"] == last
    assert len(seen) == len(steps("gpt")) - 1, seen  # one pause between each two snapshots
    assert not any(seen), "Play slept holding a run slot"
