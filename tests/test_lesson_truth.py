"""Lesson answers that say only what was measured (issue 46): sample_differs's answer and margin are
computed from the next-token distribution (independently here, with the GPT's own logits through
torch), never the constant 0.10 that graded "no, it cannot write another token" right where another
token comes once in about 2,100 draws."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lessons import build as B
from lessons.steps import MARGINS, passes


def rest_by_hand(runner, prompt: str) -> float:
    """1 - the greedy token's probability, from the module's logits (softmax in float64 here)."""
    from model.tokenizer import BOS

    ids = [BOS] + runner.tokenizer.encode(prompt)
    with torch.no_grad():
        logits, _ = runner.module(torch.tensor([ids]))
    z = logits[0, -1].double().numpy()
    p = np.exp(z - z.max())
    p /= p.sum()
    return 1.0 - float(p.max())


def spec(model, sentence):
    return {
        "model": model,
        "sentence": sentence,
        "question": "yesno",
        "query": "sample_differs",
        "view": {},
        "ask": {"en": "?"},
        "reveal": {"en": "{draws}"},
    }


@pytest.mark.parametrize(
    "model, sentence",
    [("gpt-alibi", "The cat sat on"), ("gpt", "The cat sat on"), ("gpt", "The cat sat on the")],
)
def test_sample_differs_answer_and_margin_are_measured(runners, model, sentence):
    r = runners(model)
    rest = rest_by_hand(r, sentence)
    step = B.build_step(spec(model, sentence), runners, "t.1")
    assert step.answer == (0 if rest >= MARGINS["prob"] else 1)
    assert step.margin == pytest.approx(abs(rest - MARGINS["prob"]), abs=1e-4)
    # the reveal's {draws} is 1 / rest
    assert step.params["draws"] == f"1 / {round(1 / rest):,}"


def test_a_rare_other_token_is_not_graded_as_impossible(runners):
    """gpt-alibi after "The cat sat on": the others share about 0.0005 (1 in ~2,100 draws). The step
    must not pass the margin rule with a made-up margin: "not one draw in ten" is as sure as the
    share is from 0.10, under the rule's 0.10, and nothing says "cannot"."""
    r = runners("gpt-alibi")
    rest = rest_by_hand(r, "The cat sat on")
    assert 0 < rest < 0.001
    step = B.build_step(spec("gpt-alibi", "The cat sat on"), runners, "t.1")
    assert step.options[step.answer] == "no" and step.margin < MARGINS["prob"] and not passes(step)


@pytest.mark.parametrize("name", ["gpt-rope", "gpt-alibi"])
def test_rope_and_alibi_record_their_training_settings(name):
    """gpt-rope.json and gpt-alibi.json lacked their learning rate and optimiser (issue 46); they were
    trained by the GPT recipe (model/train.py at 83cb175, unchanged in training/train.py since for
    these keys): the files now record it, and it is the recipe's."""
    import json

    from model import registry
    from training.train import RECIPES

    trained = json.loads(registry.paths(name)[1].read_text())["trained"]
    recipe = RECIPES["gpt"]
    assert (trained["lr"], trained["warmup"], trained["batch_size"], trained["steps"]) == (
        recipe["lr"],
        recipe["warmup"],
        recipe["batch_size"],
        recipe["steps"],
    )
    assert trained["weight_decay"] == recipe.get("weight_decay", 0.01) and trained["betas"] == [0.9, 0.98]
