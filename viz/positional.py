"""Charts for the positional-encoding page: arrays and labels in, a plotly figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.colors import DIVERGING, HEAD_COLORS, NEGATIVE, POSITIVE, SYMBOLS, line_trace_style
from viz.heatmap import esc, heatmap

# an encoding's values (and similarities) are signed, unlike attention weights: the app's one
# diverging scale (viz.colors.DIVERGING, blue below 0, white at 0, red above) and its halves


def signed_scale(values) -> tuple[list, float, float]:
    """(colorscale, zmin, zmax) for signed data, one colour meaning everywhere: white at 0, blue
    below, red above; the range from the data (only the half the data uses, so an all-positive
    matrix does not spend half its colour bar on values that never occur)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    lo, hi = (float(v.min()), float(v.max())) if v.size else (-1.0, 1.0)
    if lo >= 0:
        return POSITIVE, 0.0, hi or 1.0
    if hi <= 0:
        return NEGATIVE, lo or -1.0, 0.0
    m = max(-lo, hi)
    return DIVERGING, -m, m


DEFAULT_LABELS = {
    "position": "Position",
    "dimension": "Dimension",
    "value": "Value",
    "p": "Position p",
    "q": "Position q",
    "offset": "|p − q|",
    "dot": "PE(p)·PE(q)",
    "score": "q·k",
    "similarity": "Cosine similarity",
    "bias": "Bias",
    "head": "Head {h}: m = {m:.4g}",
    "loss": "Loss (nats per token)",
    "bucket": "Positions",
    "start": "q at position {s}",
    "dim": "dim {d}",
}


def _layout(fig, labels_x, labels_y, height):
    fig.update_layout(
        xaxis_title=esc(labels_x), yaxis_title=esc(labels_y), height=height, margin=dict(l=10, r=10, t=30, b=10)
    )
    return fig


def matrix(
    values,
    x_title: str,
    y_title: str,
    value_title: str,
    zmin=None,
    zmax=None,
    colorscale=DIVERGING,
    height: int = 420,
) -> go.Figure:
    """Any real matrix as a heatmap (heatmap(), row 0 at the top, rows and columns numbered); by
    default on signed_scale (white = 0, the range from the data)."""
    v = np.asarray(values, dtype=np.float64)
    if zmin is None or zmax is None:
        colorscale, zmin, zmax = signed_scale(v)
    return heatmap(
        v,
        labels={"x": x_title, "y": y_title, "value": value_title},
        scale=colorscale,
        zmin=zmin,
        zmax=zmax,
        hover=f"{esc(y_title)} %{{y}}, {esc(x_title)} %{{x}}: %{{z:.3f}}",
        height=height,
    )


def pe_heatmap(table, labels: dict | None = None, height: int = 420) -> go.Figure:
    """The sinusoidal table (positions, d_model): position down the side, dimension along."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    return matrix(table, labels["dimension"], labels["position"], labels["value"], -1.0, 1.0, height=height)


def sinusoid(positions, d: int, d_model: int) -> np.ndarray:
    """Dimension d of the sinusoidal encoding at any (also fractional) position: the formula
    sin(pos / 10000^(2i/d_model)) for d = 2i, cos(...) for d = 2i + 1."""
    angle = np.asarray(positions, dtype=np.float64) / 10000.0 ** ((d - d % 2) / d_model)
    return np.sin(angle) if d % 2 == 0 else np.cos(angle)


def pe_curves(table, dims, labels: dict | None = None, height: int = 360, samples: int = 12) -> go.Figure:
    """Chosen dimensions of the table against position: each a smooth curve (the formula at
    ``samples`` points per position, where it reproduces the table) with the table's own values
    at the whole positions as markers. Dimension 0 turns by one radian a position: joined only
    at whole positions it would be drawn as a zigzag."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    table = np.asarray(table, dtype=np.float64)
    n, d_model = table.shape
    pos = np.arange(n)
    fine = np.linspace(0, n - 1, (n - 1) * samples + 1)
    fig = go.Figure()
    for i, d in enumerate(dims):
        name = esc(labels["dim"].format(d=d))
        style = line_trace_style(i, marker_size=6)
        smooth = np.allclose(sinusoid(pos, d, d_model), table[:, d], atol=1e-4)
        if smooth:
            fig.add_trace(
                go.Scatter(
                    x=fine,
                    y=sinusoid(fine, d, d_model),
                    mode="lines",
                    name=name,
                    legendgroup=name,
                    line=style["line"],
                    hoverinfo="skip",
                )
            )
        fig.add_trace(
            go.Scatter(
                x=pos,
                y=table[:, d],
                mode="markers" if smooth else "lines+markers",
                name=name,
                legendgroup=name,
                showlegend=not smooth,
                **style,
                hovertemplate=f"{name}, %{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_yaxes(range=[-1.1, 1.1])
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0))
    return _layout(fig, labels["position"], labels["value"], height)


def dot_vs_offset(dots, labels: dict | None = None, height: int = 360) -> go.Figure:
    """Every PE(p)·PE(q) of a (n, n) matrix plotted against |p − q|: one value per offset
    (the points of one offset fall on each other) means the product sees the offset only."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    d = np.asarray(dots, dtype=np.float64)
    n = d.shape[0]
    p, q = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    offset = np.abs(p - q).ravel()
    fig = go.Figure(
        go.Scattergl(
            x=offset,
            y=d.ravel(),
            mode="markers",
            marker=dict(size=4, opacity=0.35, color=HEAD_COLORS[0]),
            customdata=np.stack([p.ravel(), q.ravel()], axis=-1),
            hovertemplate="p=%{customdata[0]}, q=%{customdata[1]}: %{y:.3f}<extra></extra>",
        )
    )
    return _layout(fig, labels["offset"], labels["dot"], height)


def rope_curves(offsets, scores, starts, labels: dict | None = None, height: int = 340) -> go.Figure:
    """q·k after RoPE against the offset, one curve per absolute start position of q."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    fig = go.Figure()
    for i, (s, row) in enumerate(zip(starts, np.atleast_2d(scores))):
        name = esc(labels["start"].format(s=s))
        fig.add_trace(
            go.Scatter(
                x=np.asarray(offsets),
                y=row,
                mode="lines",
                name=name,
                line=line_trace_style(i, width=3 - i % 2)["line"],
                hovertemplate=f"{name}, %{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0))
    return _layout(fig, labels["offset"], labels["score"], height)


def alibi_grid(bias, slopes, mask=None, labels: dict | None = None, height: int = 300) -> go.Figure:
    """Each head's ALiBi bias matrix (heads, n, n) side by side (heatmap()'s panels); cells the causal
    mask hides (mask False) drawn as masked. The bias is never positive: blue, white at 0, each head
    on its own range from 0 to its most negative value (on one shared range the shallow heads are
    all white), which its title gives."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    b = np.asarray(bias, dtype=np.float64)
    shown = b if mask is None else np.where(np.asarray(mask, bool), b, np.nan)
    lows = [float(np.nanmin(x)) if np.isfinite(x).any() else -1.0 for x in shown]
    titles = [labels["head"].format(h=i + 1, m=float(m)) + f"\n0 … {lows[i]:.3g}" for i, m in enumerate(slopes)]
    return heatmap(
        b,
        mask=mask,
        labels={"value": labels["bias"]},
        scale=NEGATIVE,
        zmin=[min(lo, -1e-9) for lo in lows],
        zmax=0.0,
        colorbar=False,
        hover="%{y} → %{x}: %{z:.3f}",
        height=height,
        panel_titles=titles,
    )


def loss_by_bucket(
    bucket_names, losses: dict, labels: dict | None = None, height: int = 360, dashed: dict | None = None
) -> go.Figure:
    """Grouped bars: one group per position bucket, one bar per model; dashed: optional
    {name: values} drawn as dashed lines across the groups (e.g. the same tokens read alone):
    one in dark grey, several each in its bar's colour."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    x = [esc(b) for b in bucket_names]
    fig = go.Figure()
    for i, (name, values) in enumerate(losses.items()):
        fig.add_trace(
            go.Bar(
                x=x,
                y=np.asarray(values, dtype=np.float64),
                name=esc(name),
                marker_color=HEAD_COLORS[i % len(HEAD_COLORS)],
                hovertemplate=f"{esc(name)}, %{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    for i, (name, values) in enumerate((dashed or {}).items()):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.asarray(values, dtype=np.float64),
                name=esc(name),
                mode="lines+markers",
                line=dict(dash="dash", color="#333333" if len(dashed) == 1 else HEAD_COLORS[i % len(HEAD_COLORS)]),
                marker=dict(symbol=SYMBOLS[i % len(SYMBOLS)], size=8),
                hovertemplate=f"{esc(name)}, %{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_layout(barmode="group", legend=dict(orientation="h", yanchor="bottom", y=1.0))
    return _layout(fig, labels["bucket"], labels["loss"], height)
