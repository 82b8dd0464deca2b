"""The compare page's choices: sentence B's default, the temperatures offered, the untrained start."""

from __future__ import annotations

import streamlit as st

from data import corpus
from model.errors import InputError

PAIRS = {  # every pair inside the language the models learned (tests/test_compare.py)
    "狗咬人": "人咬狗",
    "人咬狗": "狗咬人",
    "The dog bites the man": "The man bites the dog",
    "The man bites the dog": "The dog bites the man",
}
SWAPS = {"cat": "dog", "dog": "cat", "猫": "狗", "狗": "猫"}


def second_sentence(text: str) -> str:
    """Sentence B's default: the pair of text, else text with one noun swapped (cat <-> dog), so
    the two runs read the same positions and B - A compares like with like; both inside the
    language the models learned, or B falls back to a pair that is."""
    if text in PAIRS:
        return PAIRS[text]
    for old, new in SWAPS.items():
        if old in text:
            b = text.replace(old, new, 1)
            if corpus.in_language(b, prefix=False):
                return b
    return "The man bites the dog" if text.isascii() else "人咬狗"


def candidates(text: str) -> list[tuple[str, tuple]]:
    """Sentence B's candidates, in the order analysis.contrast.choose tries them: one noun swapped
    (cat <-> dog) inside the language the models learned, the pair of text, the fixed fallback."""
    out = [(text.replace(old, new, 1), ("swap", old, new)) for old, new in SWAPS.items() if old in text]
    out = [(b, how) for b, how in out if corpus.in_language(b, prefix=False)]
    if text in PAIRS:
        out.append((PAIRS[text], ("pair",)))
    fallback = "The man bites the dog" if text.isascii() else "人咬狗"
    return out + [(fallback, ("fallback",))]  # not A's pair: pair_text says so


@st.cache_data(show_spinner=False, max_entries=64)
def opening_pair(name: str, device: str, text: str):
    """The measured default pair for text on the model (analysis.contrast), or None."""
    from analysis import contrast
    from ui import cache

    runner = cache.runner(name, device)
    return contrast.choose(lambda s: runner.trace(s), text, candidates(text))


def pair_text(pair) -> str:
    """What changed from A to the default B, where B - A is largest, and the rule that chose it."""
    from analysis.contrast import VISIBLE
    from ui.i18n import t
    from ui.safe import md

    how = {"old": md(pair.how[1]), "new": md(pair.how[2])} if pair.how[0] == "swap" else {}
    view = (
        t("cmp_pair_mean", layer=pair.layer + 1)
        if pair.head is None
        else t("cmp_pair_head", layer=pair.layer + 1, head=pair.head + 1)
    )
    return t(
        f"cmp_pair_{pair.how[0]}",
        view=view,
        row=md(pair.row),
        col=md(pair.key),  # not key=: t() takes the string key first
        change=f"{pair.change:+.2f}",
        visible=f"{VISIBLE:.2f}",
        **how,
    )


TEMPS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0)


def untrained_of(name: str) -> str | None:
    """ "NAME@0" when the run kept its step-0 snapshot (the training-timeline snapshots), else None."""
    try:
        from ui import timeline
    except ImportError:
        return None
    base = timeline.base_name(name)
    try:
        return f"{base}@0" if any(s["step"] == 0 for s in timeline.snapshots(base)) else None
    except (InputError, OSError, ValueError):
        return None


def one_of_temps(raw: str) -> float:
    v = float(raw)
    if v not in TEMPS:
        raise ValueError(raw)
    return v
