"""Caches and link parsing for the intervene and compare pages (analysis/intervene.py does the work).

Heads are written "kind:layer:head", 1-based as the pages show them, in the link and in the
widgets' state; the cached functions take them as tuples of such strings, so they hash.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import streamlit as st

from analysis import intervene
from model import intervention

from . import cache, slots
from .i18n import t

EDIT_FIELDS = 6  # kind:layer:head:query:from:to


def head_label(name: str) -> str:
    kind, layer, head = intervention.parse_head(name)
    return t("iv_head_label", kind=t(f"kind_{kind}"), layer=layer + 1, head=head + 1)


def parse_off(raw: str) -> list[str]:
    """A link's "cross:2:2,decoder:1:3" -> the same heads, each checked; ValueError on a bad one."""
    if not raw.strip():
        return []
    out = []
    for part in raw.split(","):
        name = intervention.head_name(*intervention.parse_head(part))
        if name not in out:
            out.append(name)
    return out


def parse_edit(raw: str) -> tuple:
    """ "decoder:2:3:7:2:5" -> ("decoder:2:3", 7, 2, 5): row 7 of that head, key 2's weight onto key 5."""
    parts = raw.split(":")
    if len(parts) != EDIT_FIELDS:
        raise ValueError(raw)
    name = intervention.head_name(*intervention.parse_head(":".join(parts[:3])))
    q, src, dst = (int(p) for p in parts[3:])
    if min(q, src, dst) < 0:
        raise ValueError(raw)
    return name, q, src, dst


def parse_dhead(raw: str) -> str:
    """?dhead=kind:layer:head (1-based), the head whose difference is shown, as head_name writes it."""
    return intervention.head_name(*intervention.parse_head(raw))


def fitted(heads: list[str], runner) -> tuple[list[str], list[str]]:
    """(the heads this model has, the ones it has not)."""
    known = {intervention.head_name(*h) for h in intervention.all_heads(runner)}
    return [h for h in heads if h in known], [h for h in heads if h not in known]


def edit_of(edit: tuple | None, base_trace) -> tuple | None:
    """The URL's edit as the model API's (kind, layer, head, query, weights), from the untouched
    row with key `from`'s weight moved onto key `to`; None when it does not fit this trace."""
    if edit is None:
        return None
    name, q, src, dst = edit
    kind, layer, head = intervention.parse_head(name)
    att = base_trace.attention.get(kind)
    if att is None or layer >= att.num_layers or head >= att.num_heads or q >= len(att.query_tokens):
        return None
    keys = len(att.key_tokens)
    visible = np.ones(keys, bool) if att.mask is None else att.mask[q]
    if src >= keys or dst >= keys or not visible[dst]:
        return None
    row = intervention.moved(att.weights[layer, head, q], src, dst)
    if row.sum() <= 0:
        return None
    return kind, layer, head, q, tuple(float(x) for x in row)


class Run(NamedTuple):
    """One run of a model on a text, with heads switched off (off, how: model.attention.ABLATIONS)
    and / or one row edited (edit_of's tuple); off and edit empty: the untouched run. The cached
    functions below take it whole, so it hashes: heads as "kind:layer:head" strings."""

    name: str
    device: str
    text: str
    off: tuple = ()
    how: str = "zero"
    edit: tuple | None = None

    def untouched(self) -> Run:
        return self._replace(off=(), edit=None)


@cache.shared("intervene", 200)  # bounded in bytes too (ui/cache.py)
def trace(run: Run, temperature: float = 1.0, use_position: bool = True, target: str | None = None):
    """The run's trace (heads switched off, a row edited, or neither); target: a translator reads
    this translation instead of writing its own (model.runner: teacher forcing)."""
    with cache.lane(run.name):  # a real model's run: the heavy lane (ui/cache.py)
        return cache.runner(run.name, run.device).trace(
            run.text,
            temperature=temperature,
            use_position=use_position,
            ablate=list(run.off) or None,
            how=run.how,
            edit=run.edit,
            target=target,
        )


@st.cache_data(show_spinner=False, max_entries=64)
def importance(name: str, device: str, text: str, how: str = "zero"):
    with slots.heavy():  # every head off in turn: the heavy lane (a cache hit never waits)
        return intervene.importance(cache.runner(name, device), text, how=how)


@st.cache_data(show_spinner=False, max_entries=200)
def outputs(run: Run, target: tuple | None = None) -> dict:
    """What the run writes and its next-token probabilities: a translator teacher-forced on `target`
    (the untouched translation, so both runs' steps line up), a GPT's greedy continuation and its
    distribution after the text."""
    m = cache.runner(run.name, run.device)
    iv = intervention.build(m, list(run.off) or None, run.how, run.edit)
    if m.kind == "translator":
        probs, ids = intervene.step_probs(m, run.text, iv, target=list(target) if target else None)
        return {"probs": probs.astype(np.float32), "ids": list(ids), "labels": m.tokenizer.labels(list(ids))}
    ids, written, first = intervene.continuation(m, run.text, iv)
    if first is None:  # the text fills the model's window: nothing is written; the bars are its last position's
        first = intervene.step_probs(m, run.text, iv)[0][-1]
    return {"probs": first[None].astype(np.float32), "ids": list(ids), "continuation": written}


def top_tokens(runner, a, b, context, k: int = 8) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The k most likely tokens of a, then those of b's top 3 not among them: (labels, a, b); each
    labelled as the token after ``context`` (the ids read before it: a byte piece shows its character)."""
    from viz.generation import top_indices

    idx = top_indices(a, k, *np.argsort(-np.asarray(b))[:3].tolist())
    return runner.next_labels(list(context), idx.tolist()), np.asarray(a)[idx], np.asarray(b)[idx]


def image_config(image_format: str, filename: str) -> dict:
    """plotly's camera button: PNG or SVG, written in the browser (works offline)."""
    from .widgets import PLOTLY_CONFIG

    return {
        **PLOTLY_CONFIG,
        "toImageButtonOptions": {**PLOTLY_CONFIG["toImageButtonOptions"], "format": image_format, "filename": filename},
    }
