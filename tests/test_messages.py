"""Errors and notices reach a Chinese reader in Chinese: every InputError code and every Notice our
models raise, triggered through the model API, rendered by ui/messages.py with the language
switched to 中文, holds no English sentence (three English words in a row)."""

from __future__ import annotations

import re

import pytest

from model.errors import InputError, Notice
from model.runner import MAX_CHARS
from model.walkthrough import walk
from ui import i18n
from ui.messages import error_text, notice_text

ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[ ,;:'’]+[A-Za-z]{2,}){2,}")


def english(text: str):
    """Three English words in a row outside “quoted examples” (the hint quotes an English sentence)."""
    return ENGLISH.search(re.sub(r"“[^”]*”", "", text))


@pytest.fixture
def chinese(monkeypatch):
    monkeypatch.setattr(i18n, "lang", lambda: "zh")


def raised(call) -> InputError:
    with pytest.raises(InputError) as e:
        call()
    return e.value


def errors(random_runner) -> dict[str, InputError]:
    gpt, tr = random_runner("gpt"), random_runner("translator")
    return {
        "empty": raised(lambda: gpt.trace("   ")),
        "temperature": raised(lambda: gpt.trace("The cat", temperature=-1)),
        "sampling": raised(lambda: gpt.generate("The cat", temperature=-1)),
        "direction": raised(lambda: tr.trace("The cat", direction="fr-de")),
        "kind": raised(lambda: walk(gpt, "The cat", kind="cross")),
        "layer": raised(lambda: walk(gpt, "The cat", kind="decoder", layer=99)),
        "head": raised(lambda: walk(gpt, "The cat", kind="decoder", head=99)),
        "ablate": raised(lambda: gpt.trace("The cat", ablate=[("cross", 0, 0)])),
        "edit": raised(lambda: gpt.trace("The cat", edit=[("decoder", 0, 0, 99, [1.0])])),
        "model": raised(lambda: tr.generate("The cat")),
    }


def notices(random_runner) -> dict[str, Notice]:
    gpt = random_runner("gpt")
    found = {}
    for text in ("x" * (MAX_CHARS + 5), "The cat\x07 sat", "the cat " * 200, "The zyxqv sat"):
        for n in gpt.trace(text).notices:
            found.setdefault(n.code, n)
    gen = gpt.generate("the cat " * 60, max_new_tokens=gpt.config.max_seq_len, stop_at_eos=False)
    for n in gen.notices:
        found.setdefault(n.code, n)
    # a GPU running out of memory cannot be triggered on a CPU machine: the runner's own Notice
    found["oom_cpu"] = Notice("oom_cpu", "CUDA ran out of memory; this run used the CPU", device="CUDA")
    return found


def test_every_error_code_in_chinese(random_runner, chinese):
    found = errors(random_runner)
    assert {c: e.code for c, e in found.items()} == {c: c for c in found}  # each call raised its code
    for code, e in found.items():
        text = error_text(e)
        assert text and not english(text), (code, text)


def test_every_notice_in_chinese(random_runner, chinese):
    found = notices(random_runner)
    assert set(found) >= {"cut_chars", "control_removed", "cut_tokens", "unseen_words", "stopped_max", "oom_cpu"}
    for code, n in found.items():
        text = notice_text(n)
        assert text and not english(text), (code, text)


def test_the_check_finds_english(random_runner, monkeypatch):
    monkeypatch.setattr(i18n, "lang", lambda: "en")
    assert english(error_text(errors(random_runner)["layer"]))  # the checks above can fail
