"""A lesson file's steps built on the models: each step's query run on its model and sentence.

    from lessons import build, files
    steps = build.build(files.builtin("attention"), load)   # load: model name -> runner

build() drops a step whose answer fails the margin rule (steps.passes) or whose query does not
apply to its model (pick.NotApplicable): a retrained model skips a question rather than grading on
a coin toss. build_step() is what the editor calls for one step, to show the answer and the margin
or say why the query does not apply.
"""

from __future__ import annotations

from .pick import NotApplicable
from .queries import QUERIES, run
from .schema import Lesson
from .steps import Step, passes

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


def build(lesson: Lesson, load, keep_failing: bool = False) -> list[Step]:
    """The steps of a lesson, computed from the models load(name) returns; steps that fail the
    margin rule or do not apply are left out (kept with keep_failing, except those that do not apply)."""
    out, traces = [], {}
    for i, spec in enumerate(lesson.steps):
        try:
            step = build_step(spec, load, lesson.step_id(i), traces)
        except NotApplicable:
            continue
        if keep_failing or passes(step):
            out.append(step)
    return out
