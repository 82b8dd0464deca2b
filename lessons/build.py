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
23-160 on our models and 270 on SmolLM2.

Every sentence a step runs is counted: its own (each tried in turn) and the sentences its
query's arguments name (SENTENCE_ARGS: a translation step's `also` list, a comparison's `other`),
each traced once per sentence tried; issue 45 built 15 translation steps of 12 `also` sentences
for 7.65 s of CPU that were priced at 240 units. And a unit is weighed by the model: a real
pretrained model's forward costs what its parameters say (PARAMS_PER_UNIT, measured below), so
SmolLM2's steps, 50 times our GPT's trace, are no longer priced as our models'.
"""

from __future__ import annotations

import os
from dataclasses import replace

from .pick import NotApplicable
from .queries import QUERIES, run
from .schema import Lesson, LessonError
from .steps import CERTAIN, MARGINS, Step, passes, uncertain_enough

# estimated units a lesson's build may take: one unit ~ one forward of a 32-token sentence, about
# 2 ms of CPU for the translator on the build machine (issue 32's lesson: 12,960 units, 27 s)
MAX_COST = float(os.environ.get("ATTN_LESSON_MAX_COST", "3000"))
# forwards a query takes beyond the default (DEFAULT_FORWARDS: a trace or two and their settings);
# picking a head by importance runs every head off (one batched row each) and then tries heads in turn
# Measured (tests/test_hostile_cost.py counts each built-in step's forwards and checks the estimate
# is never under them): every query but switch_off_changes runs at most 2 forwards on its sentence
DEFAULT_FORWARDS = 2
FORWARDS = {"sharpen_sketch": 2, "cells_compare": 2, "same_output": 2, "translation": 2, "sample_differs": 2}
# a query's arguments that are sentences it runs the model on (each one forward per sentence tried);
# only where the query declares them as text or a list of texts (word_compare's `other` is a word)
SENTENCE_ARGS = ("also", "other")
# A unit's weight by model, measured on the build machine with one torch thread (2026-12-04, load
# 3.6): a trace of a 20-word sentence took our GPT 2.4-3.2 ms (0.79 M parameters), the translator
# 12-15 ms (1.29 M) and SmolLM2-135M 161.5 ms (134.5 M), 50 GPT traces. A query prices its trace as
# DEFAULT_FORWARDS forwards, so SmolLM2 weighs 18 (7.5 M parameters a unit): 36 GPT forwards a trace,
# and its built-in lesson (5 steps, 3 distinct sentences) is priced 270 units for 0.45 s of CPU
# measured. Our own models weigh 1 (the units above were measured on them).
PARAMS_PER_UNIT = 7.5e6
UNKNOWN_WEIGHT = 20.0  # a model that cannot load now: priced as SmolLM2 (18)

STEP_FIELDS = set(Step.__dataclass_fields__)


def build_step(spec: dict, load, step_id: str = "", traces: dict | None = None) -> Step:
    """One step (a validated step dict) on its model; NotApplicable when its query cannot be asked.
    A step with several sentences uses the first whose answer passes the margin rule (else the first)."""
    runner = load(spec["model"])
    q = QUERIES[spec["query"]]
    sentences = spec["sentence"] if isinstance(spec["sentence"], list) else [spec["sentence"]]
    built, why, skipped = [], None, []
    for sentence in sentences:
        try:
            out = run(q.name, runner, sentence, spec.get("view", {}), spec.get("args", {}), spec["question"], traces)
        except NotApplicable as e:
            why = why or e
            skipped.append(("lesson_note_sentence_na", {"sentence": sentence}))
            continue
        step = _step(spec, out, step_id)
        if passes(step):
            return replace(step, notes=[*skipped, *step.notes]) if skipped else step
        built.append(step)
        skipped.append(_skip_note(sentence, step))
    if built:
        return built[0]
    raise why


def _skip_note(sentence: str, step: Step) -> tuple[str, dict]:
    """Why the step does not ask about one of its file's sentences (a later one is asked instead), as
    a note the step shows (issue 46: decoder.5 asked "The cat sat" for the file's "The cat sat on"
    without a word): the model too sure of its answer there, or its answer not clear enough."""
    if not uncertain_enough(step):
        return "lesson_note_sentence_certain", {"sentence": sentence, "p": f"{step.certainty:.2f}", "max": CERTAIN}
    return "lesson_note_sentence_unclear", {
        "sentence": sentence,
        "margin": f"{max(step.margin, 0.0):.2f}",
        "min": f"{MARGINS[step.rule]:g}",
    }


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


def weight(runner) -> float:
    """Units of one forward of this model (PARAMS_PER_UNIT); at least 1."""
    if runner is None:
        return UNKNOWN_WEIGHT
    module = getattr(runner, "module", None)
    try:
        params = sum(p.numel() for p in module.parameters())
    except (AttributeError, TypeError):  # no module to count: priced as a large model
        return UNKNOWN_WEIGHT
    return max(1.0, params / PARAMS_PER_UNIT)


def sentences_run(spec: dict) -> tuple[list[str], list[str]]:
    """(the step's own sentences, tried in turn; the sentences its query's arguments name)."""
    own = spec["sentence"] if isinstance(spec["sentence"], list) else [spec["sentence"]]
    declared = QUERIES[spec["query"]].args if spec["query"] in QUERIES else {}
    extra = []
    for name in SENTENCE_ARGS:
        value = spec.get("args", {}).get(name)
        if declared.get(name) not in (str, list) or value is None:
            continue
        extra += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
    return own, extra


def step_cost(spec: dict, load) -> float:
    """Estimated units of one step: for each sentence tried, forwards x (1 + tokens / 32) on it and
    one forward on each sentence its arguments name, all times the model's weight; tokens estimated
    from the characters (a word piece is about 3 characters; at most the model's window)."""
    try:
        runner = load(spec["model"])
    except Exception:  # noqa: BLE001  (a model that cannot load now: build() says so; price it as a large one)
        runner = None
    window = getattr(getattr(runner, "config", None), "max_seq_len", 512) or 512
    forwards = FORWARDS.get(spec["query"], DEFAULT_FORWARDS)
    if spec["query"] == "switch_off_changes":
        forwards = 2 * _heads(runner) + 4 if spec.get("args", {}).get("pick") else 6
    own, extra = sentences_run(spec)

    def length(s: str) -> float:
        return 1 + min(window, len(s) / 3 + 2) / 32

    per_try = sum(length(e) for e in extra)
    return weight(runner) * sum(forwards * length(s) + per_try for s in own)


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
