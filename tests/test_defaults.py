"""A question type opens on defaults its query computes (issue 37, item 2; lessons/defaults.py):
every query, in every question kind it answers, on every shipped model it applies to, builds from
its computed sentence, view and arguments with the editor's default texts into a valid lesson file
whose step passes the margin rule. And the uncertainty rule (item 6; lessons.steps.CERTAIN): no
built-in lesson step asks a question whose right option has probability >= 0.95, recomputed here
from the model's own next-token logits."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import model
from analysis import experiments
from lessons import build, defaults, files, queries, schema
from lessons.steps import CERTAIN, passes
from ui.context import DEFAULT_TEXT
from ui.i18n import TABLE

pytestmark = pytest.mark.slow  # about a minute: every query on five models


@pytest.mark.parametrize("name", model.NAMES)
def test_every_question_type_builds_from_its_defaults_without_a_warning(name, runners):
    r = runners(name)
    failed, traces = {}, {}
    for q in queries.QUERIES.values():
        if queries.applies(r, q.name):
            continue  # the editor says it does not apply (an info, not a warning)
        for question in q.questions:
            sentence, view, args = defaults.default_step(q.name, r, DEFAULT_TEXT, question, traces)
            spec = dict(
                model=name,
                sentence=[sentence],
                question=question,
                query=q.name,
                view=view,
                args=args,
                **{p: {lg: TABLE[f"ed_default_{p}_{q.name}"][lg] for lg in ("en", "zh")} for p in ("ask", "reveal")},
            )
            try:
                checked = schema.validate(files.dumps("d", {"en": "d", "zh": "d"}, [spec])).steps[0]
                step = build.build_step(checked, runners)
                if not passes(step):
                    failed[(q.name, question)] = f"margin {step.margin:.3f} ({step.rule})"
            except (schema.LessonError, queries.NotApplicable) as e:
                failed[(q.name, question)] = repr(e)
    assert not failed, failed


def test_the_built_in_lessons_are_found():
    """The test below has a case a built-in lesson (a contributor's copy runs its new lesson's alone,
    tests/test_new_page_and_lesson.py): one that found none must fail, not pass on none."""
    assert "decoder" in files.BUILTIN, files.BUILTIN


@pytest.mark.parametrize("lesson_name", files.BUILTIN)
def test_no_built_in_step_asks_a_question_the_model_is_sure_of(runners, lesson_name):
    asked = 0
    for step in build.build(files.builtin(lesson_name), runners):
        if step.query != "next_token":
            continue
        r = runners(step.model)
        logits = torch.tensor(experiments.gpt_next_token_logits(r, step.params["prompt"]), dtype=torch.float64)
        p = torch.softmax(logits, -1).numpy()
        top = r.tokenizer.labels([int(np.argmax(p))])[0]
        assert step.options[step.answer] == top
        assert p.max() < CERTAIN, (lesson_name, step.params["prompt"], p.max())
        asked += 1
    if lesson_name == "decoder":
        assert asked >= 1  # the decoder lesson still asks for a next token, on a sentence that is uncertain


def test_the_rule_skips_a_sure_sentence_for_the_next_one(runners):
    r = runners("gpt")
    logits = torch.tensor(experiments.gpt_next_token_logits(r, "The cat sat on"), dtype=torch.float64)
    sure = float(torch.softmax(logits, -1).max())
    spec = files.builtin("decoder").steps[[s["query"] for s in files.builtin("decoder").steps].index("next_token")]
    step = build.build_step(spec, runners)
    if sure >= CERTAIN:  # lesson 3's first sentence: p = 1.00 on the shipped gpt, so the second is asked
        assert step.params["prompt"] != "The cat sat on"
    assert step.certainty < CERTAIN
