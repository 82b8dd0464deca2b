"""Figures for the step-by-step page and the architecture page: any matrix of numbers as a heatmap
(token rows, hover with the exact value), the shapes of split_heads / merge_heads as a picture,
and a mask as a matrix of "may look" / "masked" cells. Pure: arrays and labels in, go.Figure out.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.colors import COLORSCALE, HEAD_COLORS, HIGHLIGHT, MASKED, add_hatch
from viz.heatmap import categories, esc, tick_step

# signed numbers (embeddings, Q, scores): blue below 0, white at 0, red above
DIVERGING = [[0.0, "#2166ac"], [0.25, "#92c5de"], [0.5, "#f7f7f7"], [0.75, "#f4a582"], [1.0, "#b2182b"]]
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


def _axis(cats, shown, title):
    step = tick_step(len(cats))
    return dict(
        type="category",
        title=dict(text=esc(title)) if title else None,
        tickmode="array",
        tickvals=cats[::step],
        ticktext=shown[::step],
        automargin=True,
        showgrid=False,
        zeroline=False,
        tickfont=dict(size=12 if len(cats) <= 40 else 9),
    )


def _with_gaps(values: np.ndarray, mask: np.ndarray) -> list[list]:
    """z as nested lists with None where mask is False: plotly draws no cell there (the hatched
    background shows) and its hover gives the fallback text; a NaN in a numeric array would be
    drawn the same but hover as "NaN". Numbers in float32's shortest form."""
    return [[float(np.float32(x)) if ok else None for x, ok in zip(row, keep)] for row, keep in zip(values, mask)]


def matrix_heatmap(
    values,
    row_tokens,
    columns=None,
    title: str = "",
    labels: dict | None = None,
    mask=None,
    masked_text: str | None = None,
    show_values: bool | None = None,
    head_bands: int | None = None,
    chosen_head: int | None = None,
    symmetric: bool = True,
    colorscale=None,
    zmin=None,
    zmax=None,
    height: int | None = None,
    digits: int = 4,
) -> go.Figure:
    """A (rows, cols) matrix of numbers. Rows are tokens; columns are tokens (``columns`` a list of
    strings) or dimensions (``columns`` None: 0, 1, ...). Colour: signed values on a diverging scale
    centred at 0 (``symmetric``), else ``colorscale`` from zmin to zmax. ``mask`` (bool, True =
    shown) leaves cells out (hatched grey, hover ``masked_text``) and out of the colour range.
    ``head_bands`` h splits the columns into h equal bands (the heads), ``chosen_head`` framed."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2:
        raise ValueError(f"a matrix is 2-D, got shape {v.shape}")
    n_rows, n_cols = v.shape
    if len(row_tokens) != n_rows:
        raise ValueError(f"{len(row_tokens)} row labels for {n_rows} rows")
    ycat = categories(row_tokens)
    if columns is None:
        xcat = [str(j) for j in range(n_cols)]
        xshown = xcat
    else:
        if len(columns) != n_cols:
            raise ValueError(f"{len(columns)} column labels for {n_cols} columns")
        xcat, xshown = categories(columns), [esc(c) for c in columns]
    shown_mask = None if mask is None else np.asarray(mask, bool)
    if shown_mask is not None and shown_mask.shape != v.shape:
        raise ValueError(f"mask {shown_mask.shape} does not match values {v.shape}")
    visible = v if shown_mask is None or not shown_mask.any() else v[shown_mask]
    if symmetric:
        m = float(np.max(np.abs(visible))) if visible.size else 1.0
        m = m if np.isfinite(m) and m > 0 else 1.0
        zmin, zmax, scale = -m, m, DIVERGING
    else:
        scale = colorscale or COLORSCALE
        zmin = float(np.min(visible)) if zmin is None else zmin
        zmax = float(np.max(visible)) if zmax is None else zmax
    masked_any = shown_mask is not None and not shown_mask.all()
    z = _with_gaps(v, shown_mask) if masked_any else v.astype(np.float32)
    if show_values is None:
        show_values = n_rows <= 12 and n_cols <= 12
    fmt = f"%{{z:.{digits}f}}"
    heat = go.Heatmap(
        z=z,
        x=xcat,
        y=ycat,
        zmin=zmin,
        zmax=zmax,
        colorscale=scale,
        colorbar=dict(title=dict(text=esc(labels["value"])), thickness=12),
        hoverongaps=True,
        hovertemplate=f"%{{y}} · %{{x}}: {fmt}<extra></extra>",
        hovertemplatefallback=esc(masked_text or labels["masked"]),
    )
    if show_values:
        heat.update(texttemplate="%{z:.2f}", texttemplatefallback=esc(masked_text or ""))
    fig = go.Figure(heat)
    fig.update_layout(
        title=dict(text=esc(title)) if title else None,
        xaxis=_axis(xcat, xshown, labels["x"]),
        yaxis={**_axis(ycat, [esc(t) for t in row_tokens], labels["y"]), "autorange": "reversed"},
        height=height or int(np.clip(140 + 24 * n_rows, 260, 760)),
        margin=dict(l=10, r=10, t=44 if title else 16, b=10),
        plot_bgcolor=MASKED if masked_any else "white",
        hoverlabel=dict(namelength=-1),
    )
    if columns is not None and n_cols > 12:
        fig.update_xaxes(tickangle=-60)
    if masked_any:
        add_hatch(fig)
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
    """A mask as a matrix: blue "may look" cells, hatched grey "masked" ones; rows are queries."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    m = np.asarray(mask, bool)
    q, k = len(query_tokens), len(key_tokens)
    if m.shape != (q, k):
        raise ValueError(f"mask {m.shape} does not match {q} query and {k} key tokens")
    xcat, ycat = categories(key_tokens), categories(query_tokens)
    z = _with_gaps(np.ones(m.shape), m)
    heat = go.Heatmap(
        z=z,
        x=xcat,
        y=ycat,
        zmin=0,
        zmax=1,
        colorscale=[[0, ALLOWED], [1, ALLOWED]],
        showscale=False,
        xgap=1,
        ygap=1,
        hoverongaps=True,
        hovertemplate=f"%{{y}} → %{{x}}: {esc(labels['allowed'])}<extra></extra>",
        hovertemplatefallback=esc(labels["masked"]),
    )
    fig = go.Figure(heat)
    n = max(q, 1)
    fig.update_layout(
        title=dict(text=esc(title)) if title else None,
        xaxis=_axis(xcat, [esc(t) for t in key_tokens], labels["x"]),
        yaxis={**_axis(ycat, [esc(t) for t in query_tokens], labels["y"]), "autorange": "reversed"},
        height=height or int(np.clip(120 + 24 * n, 240, 640)),
        margin=dict(l=10, r=10, t=44 if title else 16, b=10),
        plot_bgcolor=MASKED,
    )
    if k > 10:
        fig.update_xaxes(tickangle=-60)
    if not m.all():
        add_hatch(fig)
    return fig
