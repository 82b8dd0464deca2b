"""Caches for the timeline page: a model's snapshots, each snapshot's role scores and output.

Snapshots load through cache.runner("NAME@STEP") like any model (once per process); role scores
are computed once per snapshot on model/timeline.py's fixed probe sentences.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

import model
from model import registry
from model import timeline as probes
from model.errors import InputError

from . import cache

CONTINUATION_TOKENS = 12


def base_name(name: str) -> str:
    """"translator@300" -> "translator"; any other name as it is."""
    try:
        return registry.split_snapshot(name)[0]
    except InputError:
        return name


@st.cache_data(show_spinner=False, ttl=60)
def snapshots(name: str) -> list[dict]:
    """The run's snapshots (step, metrics, shipped), [] for a model without any (or not ours)."""
    if name not in model.NAMES:
        return []
    return model.snapshots_of(name)


@st.cache_data(show_spinner=False, max_entries=64)
def role_scores(name: str, step: int, device: str) -> dict:
    return probes.role_scores(cache.runner(f"{name}@{step}", device))


def role_curves(name: str, steps: list[int], device: str) -> dict:
    """{(kind, role): (snapshots, layers, heads)} for every snapshot of the run."""
    per_step = [role_scores(name, s, device) for s in steps]
    return {(kind, role): np.stack([p[kind][role] for p in per_step])
            for kind, roles in per_step[0].items() for role in roles}


@st.cache_data(show_spinner=False, max_entries=256)
def continuation(name: str, device: str, text: str) -> str:
    """The GPT snapshot's greedy continuation of text (the most likely token each time)."""
    gen = cache.runner(name, device).generate(text, max_new_tokens=CONTINUATION_TOKENS, top_k=1, seed=0)
    return gen.text[len(gen.prompt):] if gen.text.startswith(gen.prompt) else gen.text


# -- snapshots in the sidebar's model picker: "translator (untrained, step 0)" ----------------------


def snapshot_options(current: str) -> list[str]:
    """"NAME@0" for every model with snapshots (its untrained start), and the current model when it
    is another snapshot (a link to "gpt@300")."""
    out = [f"{n}@0" for n in model.NAMES if any(s["step"] == 0 for s in snapshots(n))]
    return out + ([current] if "@" in current and current not in out else [])


def parse_snapshot(raw: str) -> str:
    """A link's "NAME@STEP" when that snapshot exists; ValueError otherwise."""
    name, step = registry.split_snapshot(raw)
    if step is None or step not in [s["step"] for s in snapshots(name)]:
        raise ValueError(raw)
    return f"{name}@{step}"


def snapshot_label(name: str, label_of) -> str:
    from .i18n import t
    base, step = registry.split_snapshot(name)
    return t("model_untrained" if step == 0 else "model_snapshot", model=label_of(base), step=f"{step:,}")
