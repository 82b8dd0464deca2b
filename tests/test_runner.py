"""The Runner contract (model/runner.py): every runner keeps it, capabilities tell the truth, and
nothing outside model/ reaches for a private name of another module."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model import KINDS
from model.errors import InputError
from model.registry import NAMES as NAMES_SHIPPED
from model.runner import Runner
from model.tokenizer import BOS, SPECIALS

ROOT = Path(__file__).resolve().parents[1]
NAMES = tuple(NAMES_SHIPPED)


@pytest.mark.parametrize("name", NAMES)
def test_our_runners_keep_the_contract(random_runner, name):
    r = random_runner(name)
    assert isinstance(r, Runner)
    tr = r.trace("The cat sat on the mat")
    assert tuple(tr.kinds()) == r.kinds and set(r.kinds) <= set(KINDS)
    assert r.can_continue_text == (name != "translator") and r.can_translate == (name == "translator")
    assert r.has_tutorial_code
    text, ids, notices = r.ids("  The cat   sat on the mat  ")
    assert text == "The cat sat on the mat" and ids == r.tokenizer.encode(text) and notices == []
    _, pids, _ = r.prompt_ids(text)
    assert pids == ([BOS] + ids if r.can_continue_text else ids)


def test_what_a_runner_cannot_do_is_an_input_error(random_runner):
    tr, gpt = random_runner("translator"), random_runner("gpt")
    for call in (
        lambda: tr.generate("The cat"),
        lambda: tr.next_token_logits([BOS]),
        lambda: tr.nll(["x"]),
        lambda: tr.trace_ids([BOS, 7]),
        lambda: gpt.translate(["The cat"]),
    ):
        with pytest.raises(InputError) as e:
            call()
        assert e.value.code == "model"


def test_prompt_ids_of_an_empty_text_is_the_start_alone(random_runner):
    assert random_runner("gpt").prompt_ids("   ")[1] == [BOS]


def test_run_passes_module_and_device(random_runner):
    r = random_runner("gpt")
    assert r.run(lambda m, dev: (m is r.module, dev)) == (True, r.device)
    assert r.has_tutorial_code  # run(fn)'s convention is our modules'; HFRunner.run says so


def test_ordinary_tokens_are_what_sentencepiece_calls_neither_byte_nor_control(random_runner):
    r = random_runner("gpt")
    sp = r.tokenizer.sp
    oracle = [i for i in range(sp.get_piece_size()) if not (sp.is_byte(i) or sp.is_control(i) or sp.is_unknown(i))]
    ours = [i for i in range(r.tokenizer.vocab_size) if r.is_ordinary(i)]
    assert ours == oracle
    assert not any(r.is_ordinary(i) for i in SPECIALS)
    assert len(ours) > 1000


def test_the_trace_cache_passes_the_direction_to_every_runner(random_runner):
    """ui.cache.trace calls runner.trace(text, direction=...) without asking what the runner is."""
    assert random_runner("gpt").trace("The cat", direction=None).kinds() == ["decoder"]
    w = random_runner("translator").trace("The cat", direction="en-zh").attention["encoder"].weights
    assert np.allclose(w.sum(-1), 1, atol=1e-5)
