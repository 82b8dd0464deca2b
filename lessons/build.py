"""A lesson file's steps built on the models: each step's query run on its model and sentence.

    from lessons import build, files
    steps = build.build(files.builtin("attention"), load)   # load: model name -> runner

build() drops a step whose answer fails the margin rule (steps.passes) or whose query does not
apply to its model (pick.NotApplicable): a retrained model skips a question rather than grading on
a coin toss. build_step() is what the editor calls for one step, to show the answer and the margin
or say why the query does not apply.

A lesson is bounded by its compute, not only by its bytes: cost() estimates, before anything is
built, the forwards every step's every sentence may take (a step tries its sentences until one
passes the margin rule), weighted by the sentence's length, and build() refuses a lesson over
MAX_COST with LessonError("too_costly"). A valid 44 KB file of 30 steps (4 sentences of 299
characters, switch_off_changes picking the least important head, alternating with sharpen_sketch on
every layer) had built for 27 s of CPU (issue 32); it is about 13,000 units, the built-in lessons
34-170.
"""

from __future__ import annotations

import os

from .pick import NotApplicable
from .queries import QUERIES, run
from .schema import Lesson, LessonError
from .steps import Step, passes

# estimated units a lesson's build may take: one unit ~ one forward of a 32-token sentence, about
# 2 ms of CPU for the translator on the build machine (issue 32's lesson: 12,960 units, 27 s)
MAX_COST = float(os.environ.get("ATTN_LESSON_MAX_COST", "3000"))
# forwards a query takes beyond the default (DEFAULT_FORWARDS: a trace or two and their settings);
# picking a head by importance runs every head off (one batched row each) and then tries heads in turn
DEFAULT_FORWARDS = 3
FORWARDS = {"sharpen_sketch": 2, "cells_compare": 4, "same_output": 4, "translation": 4, "sample_differs": 4}

STEP_FIELDS = set(Step.__dataclass_fields__)


def build_step(spec: dict, load, step_id: str = "", traces: dict | None = None) -> Step:
    """One step (a validated step dict) on its model; NotApplicable when its query cannot be asked.
    A step with several sentences uses the first whose answer passes the margin rule (else the first)."""
    runner = load(spec["model"])
    q = QUERIES[spec["query"]]
    sentences = spec["sentence"] if isinstance(spec["sentence"], list) else [spec["sentence"]]
    built, why = [], None
    for sentence in sentences:
        try:
            out = run(q.name, runner, sentence, spec.get("view", {}), spec.get("args", {}), spec["question"], traces)
        except NotApplicable as e:
            why = why or e
            continue
        step = _step(spec, out, step_id)
        if passes(step):
            return step
        built.append(step)
    if built:
        return built[0]
    raise why


def _step(spec: dict, out: dict, step_id: str) -> Step:
    show = spec.get("show")
    default = out.pop("default_show", None)
    out.pop("reveal_name", None)
    reveal = out.pop("reveal", [])
    if show is not None:
        reveal = [r for r in reveal if r.name in show]
    elif default is not None:
        reveal = [r for r in reveal if r.name in default]
    text = spec["reveal"]
    if spec["question"] == "yesno":
        text = spec.get("reveal_yes" if out["answer"] == 0 else "reveal_no", text)
    fields = {k: v for k, v in out.items() if k in STEP_FIELDS}
    return Step(
        id=step_id,
        kind=spec["question"],
        ask=dict(spec["ask"]),
        reveal_text=dict(text),
        reveal=reveal,
        model=spec["model"],
        query=spec["query"],
        page=spec.get("view", {}).get("page", ""),
        **fields,
    )


def _heads(runner) -> int:
    """Every head of every attention kind (a model unknown here: 144, BERT-base's)."""
    if runner is None:
        return 144
    config = getattr(runner, "config", None)
    layers, heads = getattr(config, "num_layers", 0) or 0, getattr(config, "num_heads", 0) or 0
    kinds = len(getattr(runner, "kinds", ()) or ()) or 1
    return int(layers) * int(heads) * kinds


def step_cost(spec: dict, load) -> float:
    """Estimated units of one step: forwards x (1 + tokens / 32) summed over its sentences, tokens
    estimated from the characters (a word piece is about 3 characters; at most the model's window)."""
    try:
        runner = load(spec["model"])
    except Exception:  # noqa: BLE001  (a model that cannot load now: build() says so; price it as a large one)
        runner = None
    window = getattr(getattr(runner, "config", None), "max_seq_len", 512) or 512
    forwards = FORWARDS.get(spec["query"], DEFAULT_FORWARDS)
    if spec["query"] == "switch_off_changes":
        forwards = 2 * _heads(runner) + 4 if spec.get("args", {}).get("pick") else 6
    sentences = spec["sentence"] if isinstance(spec["sentence"], list) else [spec["sentence"]]
    return sum(forwards * (1 + min(window, len(s) / 3 + 2) / 32) for s in sentences)


def cost(lesson: Lesson, load) -> float:
    """Estimated units of building every step of the lesson (see MAX_COST)."""
    return sum(step_cost(spec, load) for spec in lesson.steps)


def check_cost(lesson: Lesson, load) -> float:
    """The lesson's cost; LessonError("too_costly") over MAX_COST, before anything is built."""
    units = cost(lesson, load)
    if units > MAX_COST:
        raise LessonError("too_costly", 0, cost=f"{units:,.0f}", limit=f"{MAX_COST:,.0f}")
    return units


def build(lesson: Lesson, load, keep_failing: bool = False) -> list[Step]:
    """The steps of a lesson, computed from the models load(name) returns; steps that fail the
    margin rule or do not apply are left out (kept with keep_failing, except those that do not apply).
    A lesson over MAX_COST is refused (check_cost) before any step is built."""
    check_cost(lesson, load)
    out, traces = [], {}
    for i, spec in enumerate(lesson.steps):
        try:
            step = build_step(spec, load, lesson.step_id(i), traces)
        except NotApplicable:
            continue
        if keep_failing or passes(step):
            out.append(step)
    return out
