"""One attention matrix as a plotly heatmap: queries down the side, keys along the bottom."""

from __future__ import annotations

import html
import math

import numpy as np
import plotly.graph_objects as go

from viz.colors import COLORSCALE, MASKED, add_hatch

DEFAULT_LABELS = {"x": "Key", "y": "Query", "weight": "Weight", "masked": "masked"}


def esc(text) -> str:
    """Plotly renders a subset of HTML in labels and hovers; user text must stay literal text.
    (quote=False: plotly decodes &lt; &gt; &amp; but would print &quot; as is.)"""
    return html.escape(str(text), quote=False)


def tick_step(n: int, max_ticks: int = 80, pixels: float | None = None, font: int = 12) -> int:
    """Label every token up to max_ticks, beyond that every n-th (about 40 labels). With the axis'
    length in ``pixels``, also at least (font + 4) px between two labels, so they never overlap."""
    step = 1 if n <= max_ticks else math.ceil(n / 40)
    if pixels and n:
        step = max(step, math.ceil((font + 4) / (pixels / n)))
    return step


AXIS_X_PX = 560  # the width a heatmap gets in the page's narrower column (at 1280 px)


def categories(tokens) -> list[str]:
    """Unique axis categories "token (position)": plotly would merge two equal labels ("the"
    twice) into one row, and the position tells the two apart in the hover too."""
    return [f"{esc(t)} ({i})" for i, t in enumerate(tokens)]


def _z_values(w: np.ndarray, mask: np.ndarray):
    """z for a matrix with masked cells.

    Plotly shows a hover's fallback text ("masked") only for a cell that has no value at all, and
    a NaN in a binary float32 array is a value (its hover reads "NaN"). So where every row's
    masked cells are at its end (causal, right padding: the masks our models make) each row is
    cut to its allowed cells, as plain numbers written in float32's shortest exact form. Any
    other mask falls back to float32 with NaN: drawn masked, but the hover says NaN.
    """
    allowed = mask.sum(axis=1)
    prefix = np.cumprod(mask, axis=1).sum(axis=1)
    if not np.array_equal(allowed, prefix):
        return np.where(mask, w, np.float32(np.nan)).astype(np.float32)
    return [list(map(float, w[r, :n].astype(str))) for r, n in enumerate(allowed)]


def heatmap_weights(fig: go.Figure) -> np.ndarray:
    """The (Q, K) weights a heatmap from attention_heatmap holds, NaN where masked."""
    z = fig.data[0].z
    if isinstance(z, np.ndarray):
        return z.astype(np.float32)
    out = np.full((len(fig.data[0].y), len(fig.data[0].x)), np.nan, dtype=np.float32)
    for r, row in enumerate(z):
        out[r, : len(row)] = row
    return out


def attention_heatmap(
    weights_2d,
    query_tokens,
    key_tokens,
    mask=None,
    title: str = "",
    zmax: float | None = None,
    labels: dict | None = None,
    max_ticks: int = 80,
    height: int | None = None,
    show_values: bool | None = None,
) -> go.Figure:
    """A (Q, K) attention matrix as a go.Figure.

    Colour scale fixed to 0..zmax (default 1) so two heatmaps compare; masked cells (mask False)
    have no value (see _z_values; heatmap_weights reads them back as NaN), show the hatched grey
    background through, and their hover says labels["masked"].
    Every label is HTML-escaped. ``show_values`` writes the weight in each cell (default: only
    when both sides have at most 12 tokens).
    """
    labels = {**DEFAULT_LABELS, **(labels or {})}
    w = np.asarray(weights_2d, dtype=np.float32)
    q, k = len(query_tokens), len(key_tokens)
    if w.shape != (q, k):
        raise ValueError(f"weights {w.shape} do not match {q} query and {k} key tokens")
    masked_any = False
    if mask is not None:
        mask = np.asarray(mask, bool)
        if mask.shape != w.shape:
            raise ValueError(f"mask {mask.shape} does not match weights {w.shape}")
        masked_any = not mask.all()
    z = _z_values(w, mask) if masked_any else w
    if show_values is None:
        show_values = max(q, k) <= 12

    xcat, ycat = categories(key_tokens), categories(query_tokens)
    heat = go.Heatmap(
        z=z,
        x=xcat,
        y=ycat,
        zmin=0.0,
        zmax=1.0 if zmax is None else float(zmax),
        colorscale=COLORSCALE,
        xgap=0,
        ygap=0,
        colorbar=dict(title=dict(text=esc(labels["weight"])), thickness=14),
        hoverongaps=True,
        hovertemplate="%{y} → %{x}: %{z:.4f}<extra></extra>",
        hovertemplatefallback=esc(labels["masked"]),
    )
    if show_values:
        heat.update(texttemplate="%{z:.2f}", texttemplatefallback="")
    fig = go.Figure(heat)

    n = max(q, 1)
    fig_height = height or int(np.clip(160 + 26 * n, 320, 900))

    def axis(cats, tokens, title_text, pixels):
        # long texts: every n-th label (at least font + 4 px apart), at a size that stays readable
        font = 12 if len(tokens) <= 40 else 11
        step = tick_step(len(tokens), max_ticks, pixels, font)
        return dict(
            type="category",
            title=dict(text=esc(title_text)),
            tickmode="array",
            tickvals=cats[::step],
            ticktext=[esc(t) for t in tokens[::step]],
            tickfont=dict(size=font, color="#222222"),
            automargin=True,
            showgrid=False,
            zeroline=False,
        )

    fig.update_layout(
        title=dict(text=esc(title)) if title else None,
        xaxis=axis(xcat, list(key_tokens), labels["x"], AXIS_X_PX),
        yaxis={**axis(ycat, list(query_tokens), labels["y"], fig_height - 120), "autorange": "reversed"},
        height=fig_height,
        margin=dict(l=10, r=10, t=50 if title else 20, b=10),
        plot_bgcolor=MASKED if masked_any else "white",
        hoverlabel=dict(namelength=-1),
    )
    if k > 12:
        fig.update_xaxes(tickangle=-60)
    if masked_any:
        add_hatch(fig)
    return fig
