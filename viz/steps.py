"""Figures for the step-by-step page and the architecture page: any matrix of numbers as a heatmap
(token rows, hover with the exact value), the shapes of split_heads / merge_heads as a picture,
and a mask as a matrix of "may look" / "masked" cells. Pure: arrays and labels in, go.Figure out.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.colors import DIVERGING, HEAD_COLORS, HIGHLIGHT
from viz.heatmap import categories, esc, heatmap

# signed numbers (embeddings, Q, scores): viz.colors.DIVERGING, blue below 0, white at 0, red above
ALLOWED = "#4292c6"
DEFAULT_LABELS = {
    "x": "",
    "y": "",
    "value": "value",
    "masked": "masked",
    "allowed": "may look",
    "head": "head",
    "batch": "batch",
    "seq": "seq_len",
    "heads": "heads",
}


def matrix_heatmap(
    values,
    row_tokens,
    columns=None,
    title: str = "",
    labels: dict | None = None,
    head_bands: int | None = None,
    chosen_head: int | None = None,
    **options,
) -> go.Figure:
    """heatmap() for a (rows, cols) matrix of signed numbers (embeddings, Q, scores): rows are tokens;
    columns are tokens (``columns`` a list of strings) or dimensions (``columns`` None: 0, 1, ...);
    a diverging scale centred at 0. ``head_bands`` h splits the columns into h equal bands (the
    heads), ``chosen_head`` framed. options: heatmap()'s (mask, masked_text, height, ...)."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    n_rows = len(row_tokens)
    options.setdefault("height", int(np.clip(140 + 24 * n_rows, 260, 760)))
    fig = heatmap(
        values,
        row_tokens,
        columns,
        title=title,
        labels=labels,
        scale=DIVERGING,
        zero_centred=True,
        annotate=None,
        hover="%{y} · %{x}: %{z:.4f}",
        **options,
    )
    n_cols = np.shape(values)[1]
    if head_bands and n_cols % head_bands == 0:
        width = n_cols // head_bands
        for h in range(1, head_bands):
            fig.add_vline(x=h * width - 0.5, line=dict(color="#333", width=1.5, dash="dot"))
        if chosen_head is not None:
            fig.add_shape(
                type="rect",
                x0=chosen_head * width - 0.5,
                x1=(chosen_head + 1) * width - 0.5,
                y0=-0.5,
                y1=n_rows - 0.5,
                line=dict(color=HIGHLIGHT, width=3),
            )
        xcat = list(range(n_cols)) if columns is None else categories(columns)
        fig.update_xaxes(
            tickmode="array",
            tickvals=[xcat[h * width + width // 2] for h in range(head_bands)],
            ticktext=[f"{esc(labels['head'])} {h + 1}" for h in range(head_bands)],
            tickangle=0,
        )
    return fig


def shapes_figure(
    seq_len: int,
    d_model: int,
    heads: int,
    chosen: int | None = None,
    merge: bool = False,
    labels: dict | None = None,
    height: int = 300,
) -> go.Figure:
    """split_heads as a picture: (batch, seq_len, d_model) -> view -> (batch, seq_len, heads, d_k)
    -> permute -> (batch, heads, seq_len, d_k); ``merge`` draws merge_heads, the way back.
    Each head's columns have their own colour; the chosen head is framed."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    d_k = d_model // heads
    fig = go.Figure()
    colour = lambda h: HEAD_COLORS[h % len(HEAD_COLORS)]  # noqa: E731

    def box(x0, y0, w, h, fill, text="", width=1, line="#333"):
        fig.add_shape(
            type="rect",
            x0=x0,
            x1=x0 + w,
            y0=y0,
            y1=y0 + h,
            fillcolor=fill,
            opacity=0.85,
            line=dict(color=line, width=width),
        )
        if text:
            fig.add_annotation(x=x0 + w / 2, y=y0 + h / 2, text=text, showarrow=False, font=dict(size=13, color="#111"))

    def caption(x, y, text):
        fig.add_annotation(x=x, y=y, text=text, showarrow=False, font=dict(size=14), yanchor="top")

    H = 3.0  # the sequence's height in the drawing
    band = 4.0 / heads  # width of one head's columns in the left drawing
    # left: (batch, seq_len, d_model), the heads' columns coloured side by side
    for h in range(heads):
        box(
            0 + h * band,
            0,
            band,
            H,
            colour(h),
            f"{labels['head']} {h + 1}" if heads <= 8 else "",
            width=3 if h == chosen else 1,
            line=HIGHLIGHT if h == chosen else "#333",
        )
    caption(2.0, -0.2, f"(1, {seq_len}, {d_model})<br>(batch, {labels['seq']}, d_model)")
    # right: (batch, heads, seq_len, d_k): one slab per head, stacked with an offset
    x0r = 7.0
    for h in reversed(range(heads)):
        off = h * 0.35
        box(
            x0r + off,
            off,
            1.6,
            H,
            colour(h),
            f"{h + 1}",
            width=3 if h == chosen else 1,
            line=HIGHLIGHT if h == chosen else "#333",
        )
    caption(
        x0r + 0.8 + heads * 0.175,
        -0.2,
        f"(1, {heads}, {seq_len}, {d_k})<br>(batch, {labels['heads']}, {labels['seq']}, d_k)",
    )
    arrow = "merge_heads: permute(0, 2, 1, 3) + view" if merge else "split_heads: view + permute(0, 2, 1, 3)"
    tail, tip = (4.3, x0r - 0.3) if not merge else (x0r - 0.3, 4.3)  # x = the arrow's tip
    fig.add_annotation(
        x=tip,
        y=H / 2,
        ax=tail,
        ay=H / 2,
        xref="x",
        yref="y",
        axref="x",
        ayref="y",
        showarrow=True,
        arrowhead=3,
        arrowsize=1.5,
        arrowwidth=2,
        text="",
    )
    name, how = arrow.split(": ")
    fig.add_annotation(
        x=(4.3 + x0r - 0.3) / 2,
        y=H / 2 + 0.15,
        text=f"<b>{name}</b><br>{how}",
        showarrow=False,
        font=dict(size=12),
        yanchor="bottom",
    )
    fig.update_xaxes(visible=False, range=[-0.5, x0r + 2.2 + heads * 0.35])
    fig.update_yaxes(visible=False, range=[-1.3, H + heads * 0.35 + 0.3], scaleanchor=None)
    fig.update_layout(
        height=height, margin=dict(l=5, r=5, t=5, b=5), plot_bgcolor="white", showlegend=False, dragmode=False
    )
    return fig


def mask_figure(
    mask, query_tokens, key_tokens, title: str = "", labels: dict | None = None, height: int | None = None
) -> go.Figure:
    """A mask as a matrix (heatmap()): blue "may look" cells, hatched grey "masked" ones; rows are queries."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    m = np.asarray(mask, bool)
    return heatmap(
        np.ones(m.shape),
        query_tokens,
        key_tokens,
        mask=m,
        title=title,
        labels=labels,
        scale=[[0, ALLOWED], [1, ALLOWED]],
        colorbar=False,
        gaps=1,
        hover=f"%{{y}} → %{{x}}: {esc(labels['allowed'])}",
        tick_angle=-60 if len(key_tokens) > 10 else None,
        height=height or int(np.clip(120 + 24 * max(len(query_tokens), 1), 240, 640)),
    )
