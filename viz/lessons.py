"""Bar charts for the lessons: a row of weights (or scores, probabilities), a small sketch, the
class's answers. Pure: arrays and labels in, a plotly figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.bar_values import HEADROOM_UPRIGHT, upright, value_style
from viz.colors import COLORSCALE, HIGHLIGHT
from viz.heatmap import esc

BAR = COLORSCALE[6][1]


def bars(
    labels,
    values,
    title: str = "",
    highlight: int | None = None,
    height: int = 320,
    value_format: str = ".2f",
    font_size: int = 14,
    axis_title: str = "",
    counts: bool = False,
) -> go.Figure:
    """One bar per label, its value written on it; the bar at ``highlight`` in the accent colour.
    counts: the values are counts (how many students chose each option): whole-number ticks from
    0 to at least 1, never plotly's SI prefixes on an empty range ("0.2n") or half counts (0.5)."""
    v = np.asarray(values, dtype=np.float64)
    if len(v) != len(labels):
        raise ValueError(f"{len(v)} values for {len(labels)} labels")
    cats = [f"{esc(t)} ({i})" for i, t in enumerate(labels)]  # two "the" stay two bars
    colors = [HIGHLIGHT if i == highlight else BAR for i in range(len(v))]
    fig = go.Figure(
        go.Bar(
            x=cats,
            y=v,
            marker_color=colors,
            text=[format(x, value_format) for x in v],
            **value_style(font_size, len(v)),
            hovertemplate="%{x}: %{y:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=dict(text=esc(title), font=dict(size=font_size + 2, color="#111")) if title else None,
        height=height,
        margin=dict(l=10, r=10, t=50 if title else 20, b=10),
        font=dict(size=font_size, color="#111"),
        plot_bgcolor="white",
        showlegend=False,
    )
    fig.update_xaxes(
        tickmode="array", tickvals=cats, ticktext=[esc(t) for t in labels], tickfont=dict(size=font_size, color="#111")
    )
    lo = min(0.0, float(v.min()) * 1.15) if len(v) else 0.0
    hi = max(float(v.max()) * (HEADROOM_UPRIGHT if upright(len(v)) else 1.15), 1e-9) if len(v) else 1.0
    if counts:
        lo, hi = 0.0, max(float(v.max()) * 1.15, 1.0) if len(v) else 1.0
        fig.update_yaxes(tickformat="d", tick0=0, dtick=max(1, int(np.ceil(hi / 5))))
        fig.update_traces(text=[f"{int(x)}" for x in v], hovertemplate="%{x}: %{y:d}<extra></extra>")
    fig.update_yaxes(
        range=[lo, hi],
        gridcolor="#ddd",
        tickfont=dict(size=font_size, color="#111"),
        title=dict(text=esc(axis_title)) if axis_title else None,
    )
    return fig


def sketch(values, labels, title: str = "", height: int = 200, font_size: int = 13) -> go.Figure:
    """A small bar chart without numbers: a guess of what a row looks like."""
    fig = bars(labels, values, title=title, height=height, font_size=font_size)
    fig.update_traces(text=None, hoverinfo="skip", hovertemplate=None)
    fig.update_yaxes(range=[0, 1.05], showticklabels=False)
    return fig
