"""The lesson cost estimate counts every sentence a step runs, weighed by its model (issue 45, break
10; lessons/build.py). The oracle is the build itself: every forward a step's build runs is
counted by a wrapper around the model's runner, weighted by the same length rule, and the estimate
must never be under it; a real model's weight is checked against its measured CPU time.
"""

from __future__ import annotations

import collections
import time
from pathlib import Path

import pytest

import model
from lessons import build, files, schema
from lessons.pick import NotApplicable

FORWARD_CALLS = ("trace", "trace_ids", "translate", "generate", "next_token_logits", "nll", "run")
EXAMPLES = Path(files.BUILTIN_DIR).parent / "examples"


class _Counting:
    """The runner, with each forward it runs counted (and the text it ran on)."""

    def __init__(self, runner):
        self._runner = runner
        self.calls: list[tuple[str, str]] = []

    def __getattr__(self, name):
        attr = getattr(self._runner, name)
        if name not in FORWARD_CALLS:
            return attr

        def counted(*args, **kwargs):
            text = args[0] if args and isinstance(args[0], str) else ""
            self.calls.append((name, text))
            return attr(*args, **kwargs)

        return counted


@pytest.fixture(scope="module")
def load():
    runners = {}

    def one(name):
        if name not in runners:
            runners[name] = model.load(name, device="cpu")
        return runners[name]

    return one


def _length(spec, load, text: str) -> float:
    window = load(spec["model"]).config.max_seq_len
    return 1 + min(window, len(text) / 3 + 2) / 32


def _measured_units(spec, load) -> tuple[float, int]:
    """(the forwards the step's build ran, each weighted by the length of its text; how many)."""
    counting = _Counting(load(spec["model"]))
    try:
        build.build_step(spec, lambda name: counting)
    except NotApplicable:
        pass
    first = build.sentences_run(spec)[0][0]  # a call on token ids: priced at the step's first sentence
    units = sum(_length(spec, load, text or first) for _, text in counting.calls)
    return units, len(counting.calls)


def _our_steps():
    lessons = [files.builtin(n) for n in files.BUILTIN]
    lessons += [schema.validate(p.read_bytes()) for p in sorted(EXAMPLES.glob("*.toml"))]
    return [
        (f"{lesson.id}.{i + 1}:{s['query']}", s)
        for lesson in lessons
        for i, s in enumerate(lesson.steps)
        if s["model"] in model.NAMES
    ]


STEPS = _our_steps()


def test_the_steps_enumerated_are_many_and_cover_most_queries():
    assert len(STEPS) >= 30
    assert len({s["query"] for _, s in STEPS}) >= 15


@pytest.mark.parametrize("name,spec", STEPS, ids=[n for n, _ in STEPS])
def test_no_built_in_step_is_priced_under_the_forwards_its_build_runs(name, spec, load):
    units, calls = _measured_units(spec, load)
    assert build.step_cost(spec, load) >= units - 1e-9, (
        f"{name}: estimated {build.step_cost(spec, load):.1f}, ran {calls} forwards ({units:.1f} units)"
    )


ALSO = [f"The dog number {i} bites the man in the park" for i in range(8)] + [
    "人咬狗",
    "狗咬人了吗",
    "A man",
    "Two cats",
]


def _translation_step(also):
    step = next(s for _, s in STEPS if s["query"] == "translation")
    return {**step, "args": {**step.get("args", {}), "also": list(also)}}


def test_a_translation_steps_also_sentences_are_counted_and_run(load):
    """Issue 45: 15 translation steps of 12 `also` sentences built for 7.65 s of CPU and were priced
    240 units; each `also` sentence is a forward of its own."""
    bare, full = _translation_step([]), _translation_step(ALSO)
    assert len(full["args"]["also"]) == schema.MAX_LIST
    extra = build.step_cost(full, load) - build.step_cost(bare, load)
    assert extra >= sum(_length(full, load, s) for s in ALSO) - 1e-9
    units, calls = _measured_units(full, load)
    assert calls >= len(ALSO)  # the oracle: the build did run every one
    assert build.step_cost(full, load) >= units


def test_a_comparisons_other_sentence_is_counted_only_where_it_is_a_sentence(load):
    same = next(s for _, s in STEPS if s["query"] == "same_output")
    long_other = {**same, "args": {**same["args"], "other": "人咬狗" * 30}}
    assert build.step_cost(long_other, load) > build.step_cost(same, load)
    words = next(s for _, s in STEPS if s["query"] == "entropy_higher")  # `other` is a word here
    assert build.sentences_run(words)[1] == []


def test_fifteen_translation_steps_of_long_also_sentences_are_refused(load):
    """Each of 4 sentences tried runs the query on all 12 `also` sentences (before: 4 x own only)."""
    steps = []
    for i in range(15):
        step = _translation_step([(f"The cat number {i} sat on the mat {j} " * 9)[:299] for j in range(12)])
        steps.append({**step, "sentence": [(f"A dog {i} {k} ran in the park " * 12)[:299] for k in range(4)]})
    lesson = schema.Lesson("many-also", {"en": "x", "zh": "x"}, {}, steps, "")
    with pytest.raises(schema.LessonError) as e:
        build.check_cost(lesson, load)
    assert e.value.code == "too_costly"


def test_a_model_that_cannot_load_is_priced_as_a_real_one(load):
    spec = next(s for _, s in STEPS if s["query"] == "top_key")

    def broken(name):
        raise OSError("no model")

    assert build.step_cost(spec, broken) >= 10 * build.step_cost(spec, load)
    assert build.weight(load("gpt")) == 1.0 and build.weight(load("translator")) == 1.0


@pytest.mark.slow
def test_smollm2s_weight_is_its_measured_cost_against_the_translator(smollm, load):
    """The weight ratio against the measured CPU of one trace each, same sentence, one thread: our
    GPT's (one forward, as SmolLM2's trace is)."""
    import torch

    text = "The animal didn't cross the street because it was too tired"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cpu = collections.OrderedDict()
        for name, runner in (("gpt", load("gpt")), ("smollm", smollm)):
            runner.trace(text)
            t0 = time.thread_time()
            for _ in range(3):
                runner.trace(text)
            cpu[name] = (time.thread_time() - t0) / 3
    finally:
        torch.set_num_threads(threads)
    measured = cpu["smollm"] / cpu["gpt"]
    weighed = build.weight(smollm) * build.DEFAULT_FORWARDS / build.weight(load("gpt"))  # a query's trace
    assert measured / 2 <= weighed <= measured * 2, (measured, weighed)
    real = files.builtin("real")
    assert 0 < build.cost(real, lambda name: smollm) < build.MAX_COST / 10
