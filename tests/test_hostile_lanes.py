"""Heavy pages in the heavy lane (issue 45, break 4): the generation page's writing and its KV-cache
timing, and every uncached computation on a real pretrained model, run with the page's run slot
handed back, one heavy computation at a time, charged to the session's CPU budget (ui/slots.py);
a session past its budget reads a notice on the page, never an error box.

The probes record, from inside each computation, whether this thread held a run slot and the
heavy lane while it ran.
"""

from __future__ import annotations

import threading

import pytest

from pages import generation
from pages.generation_parts import kv_cache
from ui import cache, slots
from ui import intervene as ui_iv
from ui.i18n import text_in

REAL = "smollm2-135m"  # model/registry.PACKAGED: a real pretrained model


def _where() -> tuple[bool, bool]:
    return slots.RUN_SLOTS.held(), slots.HEAVY_SLOTS.held()


class _Probe:
    """Stands for a model's runner: records where each computation ran."""

    def __init__(self):
        self.seen: list[tuple[str, tuple[bool, bool]]] = []

    def generate(self, *a, **kw):
        self.seen.append(("generate", _where()))
        return "written"

    def trace(self, *a, **kw):
        self.seen.append(("trace", _where()))
        return "traced"


@pytest.fixture
def probe(monkeypatch):
    p = _Probe()
    monkeypatch.setattr(cache, "runner", lambda name, device="auto": p)
    yield p
    generation.generate.clear()
    cache.trace.clear()
    ui_iv.trace.clear()


def _in_a_page_run(fn):
    """fn() as a page run calls it: inside a run slot; the run slot held again after."""
    with slots.RUN_SLOTS.hold("page-run"):
        out = fn()
        assert slots.RUN_SLOTS.held()
    return out


HEAVY = {
    "generation": lambda: generation.generate("gpt", "cpu", "a prompt", 100, 1.0, 0, 1.0, 7),
    "a real model's trace": lambda: cache.trace(REAL, "cpu", "The animal was tired"),
    "a real model's intervened run": lambda: ui_iv.trace(
        ui_iv.Run(REAL, "cpu", "The animal was tired", ("decoder:1:1",))
    ),
}


@pytest.mark.parametrize("name", list(HEAVY))
def test_heavy_computations_hand_the_run_slot_back_and_run_in_the_heavy_lane(name, probe):
    _in_a_page_run(HEAVY[name])
    assert len(probe.seen) == 1
    assert probe.seen[0][1] == (False, True), f"{name} ran with (run slot, heavy lane) = {probe.seen[0][1]}"


def test_our_small_models_traces_stay_in_the_run_slot(probe):
    _in_a_page_run(lambda: cache.trace("translator", "cpu", "The cat sat"))
    assert probe.seen == [("trace", (True, False))]
    assert cache.real(REAL) and cache.real("hf:sentence-transformers/all-MiniLM-L6-v2")
    assert not any(cache.real(n) for n in ("translator", "gpt", "encoder"))


def test_the_kv_cache_timing_runs_in_the_heavy_lane(monkeypatch):
    seen = []

    def timing(runner, ids):
        seen.append(_where())
        return {"t": [1], "no_cache": [0.0], "cache": [0.0]}

    monkeypatch.setattr(kv_cache.cost, "generation_timing", timing)
    monkeypatch.setattr(kv_cache.cost, "gpt_flops_per_token", lambda *a: {"total": 0})
    try:
        _in_a_page_run(lambda: kv_cache._timing("gpt", "cpu", (1, 2, 3)))
    finally:
        kv_cache._timing.clear()
    assert seen == [(False, True)]


_who = threading.local()


def test_a_session_looping_generation_is_refused_past_its_budget_and_others_are_not(monkeypatch):
    """Real generation on our GPT, 100 tokens a call, until the session's budget is spent."""
    budget = slots.CpuBudget(0.05, half_life=60.0)
    monkeypatch.setattr(slots, "HEAVY_BUDGET", budget)
    monkeypatch.setattr(slots, "session_id", lambda: getattr(_who, "s", ""))
    _who.s = "looping"
    refused = None
    try:
        for seed in range(50):
            try:
                _in_a_page_run(lambda seed=seed: generation.generate("gpt", "cpu", "Once", 100, 1.0, 0, 1.0, seed))
            except slots.OverBudget as e:
                refused = e
                break
        assert refused is not None, "fifty generations of 100 tokens and the session was never refused"
        assert budget.used("looping") >= 0.05
        _who.s = "student"
        out = _in_a_page_run(lambda: generation.generate("gpt", "cpu", "Once", 5, 1.0, 0, 1.0, 1))
        assert out is not None
    finally:
        generation.generate.clear()
        _who.s = ""
    assert "秒后再试" in text_in("zh", "heavy_over_budget", seconds=round(refused.retry_after))


def _page_with_a_partial():
    from ui import slots as s
    from ui.context import partial

    @partial
    def interactive():
        raise s.OverBudget(12.0)  # a real model's uncached trace in the page's interactive part

    interactive()


def test_a_refusal_inside_a_pages_interactive_part_is_a_notice_not_an_error_box():
    """Real models' traces are heavy now, so a fragment (ui.context.partial) can be refused too:
    it says when to come back, as app.py does for a full run."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_with_a_partial)
    at.run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    assert [w.value for w in at.warning] == [text_in("en", "heavy_over_budget", seconds=12)]
