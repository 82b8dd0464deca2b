"""Next-token charts for the temperature and generation pages: arrays and labels in, a figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.bar_values import HEADROOM_UPRIGHT, upright, value_style
from viz.colors import COLORSCALE, HIGHLIGHT, MASKED
from viz.heatmap import esc

DEFAULT_LABELS = {
    "token": "Token",
    "probability": "Probability",
    "cut": "cut off",
    "kept": "kept",
    "chosen": "chosen",
    "a": "A",
    "b": "B",
}
BAR = COLORSCALE[-3][1]
BAR_LIGHT = COLORSCALE[3][1]


def top_indices(probs, k: int, *more) -> np.ndarray:
    """The k most likely indices of probs (ties: lower index first), then any index in more
    that is not among them (e.g. the token actually chosen)."""
    probs = np.asarray(probs, dtype=np.float64)
    k = max(0, min(int(k), len(probs)))
    order = np.argsort(-probs, kind="stable")[:k].tolist()
    for extra in more:
        if extra is not None and int(extra) not in order:
            order.append(int(extra))
    return np.array(order, dtype=int)


def next_token_bars(
    tokens, probs, cut=None, chosen: int | None = None, labels: dict | None = None, height: int = 340
) -> go.Figure:
    """Bars of next-token probabilities, in the order given. cut (bool per bar): cut off by
    top-k / top-p, drawn grey; chosen: the bar of the token that was drawn, outlined and orange.
    Bars are placed by position, so two equal labels stay two bars."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    probs = np.asarray(probs, dtype=np.float64)
    n = len(probs)
    if len(tokens) != n:
        raise ValueError(f"{len(tokens)} tokens for {n} probabilities")
    cut = np.zeros(n, bool) if cut is None else np.asarray(cut, bool)
    shown = [esc(t) for t in tokens]
    colours = [HIGHLIGHT if i == chosen else MASKED if cut[i] else BAR for i in range(n)]
    status = [
        esc(labels["chosen"]) if i == chosen else esc(labels["cut"]) if cut[i] else esc(labels["kept"])
        for i in range(n)
    ]
    fig = go.Figure(
        go.Bar(
            x=np.arange(n),
            y=probs,
            customdata=np.array([shown, status], dtype=object).T if n else None,
            marker=dict(
                color=colours,
                line=dict(color=["#000000" if i == chosen else "rgba(0,0,0,0)" for i in range(n)], width=2),
            ),
            text=[f"{p:.2f}" if p >= 0.005 else "" for p in probs],
            **value_style(n_bars=n),
            hovertemplate="%{customdata[0]}: %{y:.4f} (%{customdata[1]})<extra></extra>",
        )
    )
    top = float(probs.max(initial=0.0))
    fig.update_layout(
        xaxis=dict(
            tickmode="array",
            tickvals=list(range(n)),
            ticktext=shown,
            title=esc(labels["token"]),
            tickangle=-45 if n > 10 else 0,
        ),
        yaxis=dict(
            title=esc(labels["probability"]),
            range=[0, max(top, 1e-9) * (HEADROOM_UPRIGHT if upright(n) else 1.18)],
        ),
        height=height,
        margin=dict(l=10, r=10, t=20, b=10),
        bargap=0.2,
        showlegend=False,
    )
    return fig


def compare_bars(tokens, probs_a, probs_b, labels: dict | None = None, height: int = 340) -> go.Figure:
    """Two next-token distributions over the same tokens as grouped bars (labels "a" and "b"
    name them in the legend)."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    a, b = np.asarray(probs_a, dtype=np.float64), np.asarray(probs_b, dtype=np.float64)
    if not len(tokens) == len(a) == len(b):
        raise ValueError("tokens and both distributions must have the same length")
    shown = [esc(t) for t in tokens]
    x = np.arange(len(a))
    fig = go.Figure(
        [
            go.Bar(
                x=x,
                y=y,
                name=esc(labels[side]),
                marker_color=color,
                customdata=shown,
                hovertemplate="%{customdata}: %{y:.4f}<extra>" + esc(labels[side]) + "</extra>",
            )
            for side, y, color in (("a", a, BAR_LIGHT), ("b", b, BAR))
        ]
    )
    top = max(float(a.max(initial=0.0)), float(b.max(initial=0.0)))
    fig.update_layout(
        barmode="group",
        height=height,
        margin=dict(l=10, r=10, t=20, b=10),
        xaxis=dict(
            tickmode="array",
            tickvals=list(x),
            ticktext=shown,
            title=esc(labels["token"]),
            tickangle=-45 if len(a) > 10 else 0,
        ),
        yaxis=dict(title=esc(labels["probability"]), range=[0, max(top, 1e-9) * 1.1]),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
    )
    return fig
