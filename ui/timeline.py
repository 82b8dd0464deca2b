"""The timeline page's view (what its link carries) and caches: a model's snapshots, each
snapshot's role scores and output.

Snapshots load through cache.runner("NAME@STEP") like any model (once per process); role scores
are computed once per snapshot on analysis/timeline.py's fixed probe sentences.
"""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

import model
from analysis import timeline as probes
from model import registry
from model.errors import InputError

from . import cache, slots
from .state import choice
from .view import Field, count, head, kind, layer

CONTINUATION_TOKENS = 12
# Play's pause between two snapshots: time to read a step (the page sleeps it before moving on);
# here, not in the page, so a test that checks what Play shows need not wait it
PLAY_SECONDS = 1.0


def play_pause() -> None:
    """Play's pause between two snapshots, with this run's slot handed back meanwhile: a page run
    holds one of the server's few run slots (ui/run.py), and two students playing the timeline
    held both, asleep, while the rest of the class waited."""
    with slots.released():
        time.sleep(PLAY_SECONDS)


# the roles a head may be scored on, per attention kind
KIND_ROLES = {
    "encoder": ("previous", "first"),
    "decoder": ("previous", "first", "induction", "pronoun_en", "pronoun_zh"),
    "cross": ("alignment",),
}
ROLES = tuple(dict.fromkeys(r for roles in KIND_ROLES.values() for r in roles))
# the page's view: ?step= (a snapshot's training step), kind, layer and head (1-based), role
VIEW = (
    Field("step", "tl_step", None, count),
    kind("tl_kind"),
    layer("tl_layer"),
    head("tl_head"),
    Field("role", "tl_role", None, choice(ROLES)),
)


def base_name(name: str) -> str:
    """ "translator@300" -> "translator"; any other name as it is."""
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
    with slots.heavy():  # a snapshot's probes: the heavy lane (a cache hit never waits)
        return probes.role_scores(cache.runner(f"{name}@{step}", device))


def role_curves(name: str, steps: list[int], device: str) -> dict:
    """{(kind, role): (snapshots, layers, heads)} for every snapshot of the run."""
    per_step = [role_scores(name, s, device) for s in steps]
    return {
        (kind, role): np.stack([p[kind][role] for p in per_step])
        for kind, roles in per_step[0].items()
        for role in roles
    }


@st.cache_data(show_spinner=False, max_entries=256)
def continuation(name: str, device: str, text: str) -> str:
    """The GPT snapshot's greedy continuation of text (the most likely token each time)."""
    gen = cache.runner(name, device).generate(text, max_new_tokens=CONTINUATION_TOKENS, top_k=1, seed=0)
    return gen.text[len(gen.prompt) :] if gen.text.startswith(gen.prompt) else gen.text


# -- snapshots in the sidebar's model picker: "translator (untrained, step 0)" ----------------------


def snapshot_options(current: str) -> list[str]:
    """ "NAME@0" for every model with snapshots (its untrained start), and the current model when it
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


# -- the charts that only the marker changes: built once per (model, step, language), shared ----------
# A plotly figure costs 0.1-0.2 s to build; the slider redraws them on every move. The figures are
# shared between sessions: callers must not change them (copy first, as the page does for a projector).
METRICS = {
    "loss": ((("train_loss", "tl_train_loss"), ("heldout_loss", "tl_heldout_loss")), "tl_losses"),
    "em": ((("exact_match_en-zh", "tl_em_en_zh"), ("exact_match_zh-en", "tl_em_zh_en")), "tl_exact_match"),
}


@st.cache_resource(show_spinner=False, max_entries=256)
def metric_figure(name: str, which: str, index: int, lang: str):
    """The run's losses ("loss") or exact match ("em") with the marker at snapshot `index`."""
    from viz.timeline import metric_curves

    from .i18n import t

    snaps = snapshots(name)
    lines, title = METRICS[which]
    fig = metric_curves(
        [s["step"] for s in snaps],
        {t(label): [s["metrics"].get(key) for s in snaps] for key, label in lines},
        chosen=index,
        labels={"step": t("tl_step")},
        y_title=t(title),
        height=280,
    )
    if which == "em":
        fig.update_yaxes(range=[-0.02, 1.02])
    return fig


@st.cache_resource(show_spinner=False, max_entries=512)
def role_figure(name: str, device: str, kind: str, role: str, layer: int, head: int, index: int, lang: str):
    """Every head's score for one role at every snapshot, (layer, head) drawn on top, marker at `index`."""
    from viz.timeline import role_lines

    from .i18n import t

    steps = [s["step"] for s in snapshots(name)]
    return role_lines(
        steps,
        role_curves(name, steps, device)[(kind, role)],
        selected=(layer, head),
        chosen=index,
        labels={"step": t("tl_step"), "head": t("tl_head_line")},
        y_title=t("tl_score"),
    )
