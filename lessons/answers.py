"""A student's answers in a link (one character per step, "-" for not answered yet) and the score."""

from __future__ import annotations

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def encode_answers(answers: dict[int, int], n_steps: int) -> str:
    return "".join(
        _DIGITS[answers[i]] if i in answers and 0 <= answers[i] < len(_DIGITS) else "-" for i in range(n_steps)
    ).rstrip("-")


def decode_answers(raw: str) -> dict[int, int]:
    """The link's answers; raises ValueError on a character that is neither a digit nor "-"."""
    out = {}
    for i, ch in enumerate(raw or ""):
        if ch == "-":
            continue
        if ch not in _DIGITS:
            raise ValueError(raw)
        out[i] = _DIGITS.index(ch)
    return out


def score(steps, answers: dict[int, int]) -> tuple[int, int]:
    """(right, answered)."""
    answered = [i for i in answers if i < len(steps)]
    return sum(steps[i].is_right(answers[i]) for i in answered), len(answered)
