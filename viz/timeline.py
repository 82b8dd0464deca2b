"""The training timeline: when a head forms, found from its role scores, and the charts of the
losses, exact match and role scores against the training step (a marker at the chosen step).

Snapshots are log-spaced (model/snapshots.py), so the charts place them evenly, one tick per
snapshot labelled with its step: the early steps, where heads form, are not crushed to the left.
No Streamlit, no torch.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.colors import HIGHLIGHT, line_trace_style
from viz.curves import lines
from viz.heatmap import esc

FORMED = 0.5  # a head "has" a role once its score stays at or above this to the end of training
DEFAULT_LABELS = {"step": "Training step", "score": "Score", "value": "Value", "head": "L{layer} H{head}"}


def formation(scores) -> int | None:
    """Index of the first snapshot from which the score stays >= FORMED until the end, or None
    when it never does or already did at the first snapshot (nothing formed during training)."""
    s = np.asarray(scores, dtype=np.float64)
    above = np.nan_to_num(s, nan=-np.inf) >= FORMED
    if not above[-1] or above.all():
        return None
    i = len(s) - 1
    while above[i - 1]:
        i -= 1
    return i


def formed_heads(steps, curves: dict) -> list[dict]:
    """Every head that forms during training, largest jump first.

    curves: {(kind, role): (snapshots, layers, heads) scores}. Each result: kind, role, layer,
    head (0-based), index (first snapshot at or above FORMED), before / after (the steps either
    side of the jump), score_before / score_after, final score and jump (score_after - score_before).
    """
    out = []
    for (kind, role), c in curves.items():
        c = np.asarray(c, dtype=np.float64)
        for layer in range(c.shape[1]):
            for head in range(c.shape[2]):
                i = formation(c[:, layer, head])
                if i is None:
                    continue
                out.append(
                    {
                        "kind": kind,
                        "role": role,
                        "layer": layer,
                        "head": head,
                        "index": i,
                        "before": int(steps[i - 1]),
                        "after": int(steps[i]),
                        "score_before": float(c[i - 1, layer, head]),
                        "score_after": float(c[i, layer, head]),
                        "final": float(c[-1, layer, head]),
                        "jump": float(c[i, layer, head] - c[i - 1, layer, head]),
                    }
                )
    return sorted(out, key=lambda r: (-r["jump"], r["kind"], r["role"], r["layer"], r["head"]))


def largest_rise(steps, curves: dict) -> dict | None:
    """The largest rise of any head's score between two neighbouring snapshots (same fields as
    formed_heads), for when no head crosses FORMED and stays there; None if no score rises."""
    best = None
    for (kind, role), c in curves.items():
        c = np.nan_to_num(np.asarray(c, dtype=np.float64), nan=0.0)
        d = np.diff(c, axis=0)  # (snapshots - 1, layers, heads)
        i, layer, head = np.unravel_index(int(np.argmax(d)), d.shape)
        if d[i, layer, head] > 0 and (best is None or d[i, layer, head] > best["jump"]):
            best = {
                "kind": kind,
                "role": role,
                "layer": int(layer),
                "head": int(head),
                "index": int(i) + 1,
                "before": int(steps[i]),
                "after": int(steps[i + 1]),
                "score_before": float(c[i, layer, head]),
                "score_after": float(c[i + 1, layer, head]),
                "final": float(c[-1, layer, head]),
                "jump": float(d[i, layer, head]),
            }
    return best


def _axis(fig: go.Figure, steps, chosen: int | None, title: str, y_title: str, height: int) -> go.Figure:
    fig.update_layout(
        xaxis=dict(
            tickmode="array",
            tickvals=list(range(len(steps))),
            ticktext=[f"{s:,}" for s in steps],
            title=esc(title),
            range=[-0.3, len(steps) - 0.7],
        ),
        yaxis=dict(title=esc(y_title)),
        height=height,
        margin=dict(l=10, r=10, t=30, b=10),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
        hovermode="x unified",
    )
    if chosen is not None:
        fig.add_vline(x=chosen, line=dict(color=HIGHLIGHT, width=2, dash="dot"))
    return fig


def metric_curves(
    steps, series: dict, chosen: int | None = None, labels: dict | None = None, y_title: str = "", height: int = 300
) -> go.Figure:
    """Lines of per-snapshot values ({name: values}, e.g. held-out loss) against the snapshots,
    with a dotted marker at snapshot index ``chosen``. A None value is a gap."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    x = list(range(len(steps)))
    series = [(name, x, [np.nan if v is None else float(v) for v in values]) for name, values in series.items()]
    fig = go.Figure(lines(series, "%{y:.3f}", customdata=list(steps)))
    return _axis(fig, steps, chosen, labels["step"], y_title or labels["value"], height)


def role_lines(
    steps,
    curve,
    selected: tuple[int, int] | None = None,
    chosen: int | None = None,
    labels: dict | None = None,
    y_title: str = "",
    height: int = 320,
) -> go.Figure:
    """One line per head of a (snapshots, layers, heads) role-score curve, each with its own legend
    entry, colour and dash (viz.colors.line_style); the selected (layer, head) drawn thick with
    markers on top, the others thin and paler; FORMED as a dashed grey line."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    c = np.asarray(curve, dtype=np.float64)
    fig = go.Figure()
    x = list(range(len(steps)))
    order = [(lay, h) for lay in range(c.shape[1]) for h in range(c.shape[2]) if (lay, h) != selected]
    order += [selected] if selected is not None else []
    for layer, head in order:
        name = labels["head"].format(layer=layer + 1, head=head + 1)
        sel = (layer, head) == selected
        style = line_trace_style(layer * c.shape[2] + head, width=4 if sel else 1.5, marker_size=9 if sel else 6)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=c[:, layer, head],
                mode="lines+markers" if sel else "lines",
                name=esc(name),
                opacity=1.0 if sel or selected is None else 0.55,
                legendrank=1 + layer * c.shape[2] + head,
                hovertemplate="%{y:.3f}<extra>" + esc(name) + "</extra>",
                **style,
            )
        )
    fig.add_hline(y=FORMED, line=dict(dash="dash", color="#555555", width=1))
    fig.update_yaxes(range=[0, 1.02])
    return _axis(fig, steps, chosen, labels["step"], y_title or labels["score"], height)
