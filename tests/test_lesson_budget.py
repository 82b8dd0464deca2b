"""Issue 32, item 1: a visitor's input cannot make a computation long inside the run slots.

A lesson file is bounded by its compute (lessons/build.py: cost, check_cost), estimated before
anything is built; its builds and the editor's draft step run in the heavy lane (ui/slots.py),
and each session's CPU seconds there are counted against a budget (slots.CpuBudget)."""

from __future__ import annotations

import threading
import time

import pytest

import model
from bench.attack import heavy_lesson
from lessons import build, files, schema
from tests.conftest import each_lesson
from ui import slots
from ui.i18n import text_in


class _NoForward:
    """A runner whose every forward fails the test: a refusal must come before any is run."""

    def __init__(self, runner):
        self._runner = runner

    def __getattr__(self, name):
        if name in ("trace", "trace_ids", "run", "next_token_logits", "generate", "translate", "nll"):
            raise AssertionError(f"a forward ran ({name}) before the lesson was refused")
        return getattr(self._runner, name)


@pytest.fixture(scope="module")
def load():
    runners = {}

    def one(name):
        if name not in runners:
            runners[name] = model.load(name, device="cpu")
        return runners[name]

    return one


def test_the_30_step_lesson_is_refused_before_anything_is_built(load):
    """Issue 32's file (valid, 47 KB: 30 steps x 4 sentences of 299 characters) built for 27 s of
    CPU; now it is refused in milliseconds, with its estimate and the limit in both languages."""
    lesson = schema.validate(heavy_lesson())
    load("translator")  # loaded before the clock starts
    t0 = time.process_time()
    with pytest.raises(schema.LessonError) as refused:
        build.build(lesson, lambda name: _NoForward(load(name)))
    assert time.process_time() - t0 < 1.0
    e = refused.value
    assert e.code == "too_costly" and float(e.params["cost"].replace(",", "")) > 4 * build.MAX_COST
    en = text_in("en", f"lesson_error_{e.code}", **e.params)
    zh = text_in("zh", f"lesson_error_{e.code}", **e.params)
    assert e.params["cost"] in en and f"{build.MAX_COST:,.0f}" in en and "fewer steps" in en
    assert e.params["cost"] in zh and "计算单位" in zh


LESSON_FILES = [files.BUILTIN_DIR / f"{n}.toml" for n in files.BUILTIN]
LESSON_FILES += sorted((files.BUILTIN_DIR.parent / "examples").glob("*.toml"))


def test_every_built_in_lesson_and_example_is_checked_here():
    assert len(LESSON_FILES) > len(files.BUILTIN) >= 1


@pytest.mark.parametrize("path", each_lesson(LESSON_FILES))
def test_the_built_in_lessons_and_the_examples_are_well_inside_the_bound(path, load):
    lesson = schema.validate(path.read_bytes())
    assert build.check_cost(lesson, load) < build.MAX_COST / 10, lesson.id


def test_the_estimate_grows_with_steps_sentences_and_the_query(load):
    text = heavy_lesson(steps=2, sentences=1)
    one = build.cost(schema.validate(text), load)
    four = build.cost(schema.validate(heavy_lesson(steps=2, sentences=4)), load)
    assert four == pytest.approx(4 * one, rel=0.05)
    pick, sketch = (build.step_cost(s, load) for s in schema.validate(text).steps)
    assert pick > 10 * sketch  # every head off, then heads tried in turn, against two traces


def test_a_lesson_build_runs_in_the_heavy_lane_not_a_run_slot(monkeypatch):
    """The lessons page builds inside a page run (app.py holds a run slot): the build hands the slot
    back and takes the heavy lane, so two tabs building long lessons leave the class its slots."""
    from ui import lessons

    seen = []

    def probe(lesson, load):
        seen.append((slots.RUN_SLOTS.held(), slots.HEAVY_SLOTS.held()))
        return []

    monkeypatch.setattr(lessons, "build", probe)
    text = files.dump_lesson(files.builtin("positions")).replace('id = "positions"', 'id = "positions-lane"')
    with slots.RUN_SLOTS.hold("page-run"):
        assert lessons.steps_of(text, "cpu") == []
        assert slots.RUN_SLOTS.held()  # taken again for the rest of the page
    assert seen == [(False, True)]
    lessons.steps_of.clear()


def test_a_session_over_its_cpu_budget_is_refused_with_the_time_to_wait(monkeypatch):
    budget = slots.CpuBudget(0.2, half_life=30.0)
    monkeypatch.setattr(slots, "HEAVY_BUDGET", budget)
    monkeypatch.setattr(slots, "session_id", lambda: getattr(_who, "s", ""))
    run_slots, heavy_slots = slots.FairSlots(2), slots.FairSlots(1)

    def burn(seconds):
        t0 = time.thread_time()
        while time.thread_time() - t0 < seconds:
            sum(range(1000))

    _who.s = "greedy"
    with slots.heavy(run_slots, heavy_slots):
        burn(0.3)
    assert budget.used("greedy") >= 0.25
    with pytest.raises(slots.OverBudget) as refused:
        with slots.heavy(run_slots, heavy_slots):
            raise AssertionError("a session over its budget entered the heavy lane")
    assert 5 < refused.value.retry_after < 60  # half-life 30 s: from 0.3 to 0.18 CPU-s takes ~22 s
    _who.s = "teacher"  # another session still has all of its budget
    with slots.heavy(run_slots, heavy_slots):
        pass
    en = text_in("en", "heavy_over_budget", seconds=round(refused.value.retry_after))
    assert f"Try again in {round(refused.value.retry_after)} s" in en
    assert "秒后再试" in text_in("zh", "heavy_over_budget", seconds=3)


_who = threading.local()
