"""Small line and bar charts for the tutorial pages (temperature, next-token probabilities)."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from viz.colors import COLORSCALE, MASKED
from viz.heatmap import esc

DEFAULT_LABELS = {"temperature": "Temperature", "entropy": "Entropy (nats)",
                  "uniform": "uniform: ln {n} = {value:.3f}", "token": "Token",
                  "probability": "Probability"}
BAR_COLOUR = COLORSCALE[-3][1]


def entropy_vs_temperature(temps, entropies, n_keys: int, labels: dict | None = None,
                           names=None) -> go.Figure:
    """Entropy of attention rows against temperature, with ln(n_keys), the uniform limit, marked.

    ``entropies`` is one curve (T,) or several (S, T) with ``names`` for the legend.
    """
    labels = {**DEFAULT_LABELS, **(labels or {})}
    temps = np.asarray(temps, dtype=np.float64)
    ent = np.atleast_2d(np.asarray(entropies, dtype=np.float64))
    if ent.shape[-1] != len(temps):
        raise ValueError(f"{ent.shape[-1]} entropies for {len(temps)} temperatures")
    names = list(names) if names is not None else [""] * len(ent)
    fig = go.Figure()
    for curve, name in zip(ent, names):
        fig.add_trace(go.Scatter(x=temps, y=curve, mode="lines+markers", name=esc(name),
                                 showlegend=bool(name),
                                 hovertemplate="T = %{x:.3g}: %{y:.4f}<extra></extra>"))
    limit = math.log(n_keys) if n_keys > 0 else 0.0
    fig.add_hline(y=limit, line=dict(dash="dash", color="#555555"),
                  annotation_text=esc(labels["uniform"].format(n=n_keys, value=limit)),
                  annotation_position="bottom right")
    fig.update_layout(xaxis_title=esc(labels["temperature"]), yaxis_title=esc(labels["entropy"]),
                      yaxis_range=[0, limit * 1.08 + 1e-9], height=360,
                      margin=dict(l=10, r=10, t=20, b=10))
    return fig


def bar_chart(tokens, probs, greyed_mask=None, labels: dict | None = None) -> go.Figure:
    """Next-token probabilities as bars; tokens where greyed_mask is True (cut off by top-k /
    top-p) are grey. Positions are the x coordinates, so two equal labels stay two bars."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    probs = np.asarray(probs, dtype=np.float64)
    grey = (np.zeros(len(probs), bool) if greyed_mask is None
            else np.asarray(greyed_mask, bool))
    shown = [esc(t) for t in tokens]
    fig = go.Figure(go.Bar(
        x=np.arange(len(probs)), y=probs, customdata=shown,
        marker_color=[MASKED if g else BAR_COLOUR for g in grey],
        hovertemplate="%{customdata}: %{y:.4f}<extra></extra>"))
    fig.update_layout(
        xaxis=dict(tickmode="array", tickvals=list(range(len(probs))), ticktext=shown,
                   title=esc(labels["token"])),
        yaxis=dict(title=esc(labels["probability"]), range=[0, max(1e-9, probs.max(initial=0)) * 1.1]),
        height=340, margin=dict(l=10, r=10, t=20, b=10), bargap=0.2)
    return fig
