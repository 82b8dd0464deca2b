"""Charts for the intervene and compare pages: a difference heatmap on one diverging scale, and the
model view with switched-off heads crossed out and each head's importance written on its tile."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from viz.colors import DIVERGING, HIGHLIGHT
from viz.heatmap import attention_heatmap, esc
from viz.model_view import model_view, model_view_array, tile_box

# blue = less weight than the reference run, red = more, white = same (viz.colors.DIVERGING)
OFF = "#d62728"


def difference_heatmap(diff, query_tokens, key_tokens, zmax: float = 1.0, **options) -> go.Figure:
    """B - A of two (Q, K) attention matrices: attention_heatmap on one diverging scale from -zmax to
    +zmax, signed numbers (masked cells drawn as masked, as in every heatmap). options: those of
    attention_heatmap (mask, title, labels, height, ...)."""
    return attention_heatmap(
        diff,
        query_tokens,
        key_tokens,
        zmin=-float(zmax),
        zmax=float(zmax),
        scale=DIVERGING,
        hover="%{y} → %{x}: %{z:+.4f}",
        cell_format="+.2f",
        **options,
    )


def marked_model_view(
    weights,
    mask=None,
    off=(),
    scores=None,
    selected=None,
    labels: dict | None = None,
    tile: int = 64,
    zmax: float = 1.0,
    score_format: str = "{:.2f}",
) -> go.Figure:
    """The model view (viz.model_view) with each switched-off (layer, head) crossed out in red and,
    when scores (layers, heads) are given, each head's score written on its tile (the three largest
    in bold and outlined): "these heads matter for this sentence"."""
    fig = model_view(weights, mask, selected=selected, labels=labels, tile=tile, zmax=zmax)
    _, g = model_view_array(np.asarray(weights)[:1, :1], mask, tile, zmax)  # the same tile geometry
    th, tw, gap = g["th"], g["tw"], g["gap"]
    for layer, head in off:
        x0, y0, x1, y1 = tile_box(layer, head, th, tw, gap)
        for xa, xb in ((x0, x1), (x1, x0)):
            fig.add_shape(
                type="line", x0=xa - 0.5, x1=xb - 0.5, y0=y0 - 0.5, y1=y1 - 0.5, line=dict(color=OFF, width=4)
            )
    if scores is not None:
        s = np.asarray(scores, dtype=np.float64)
        finite = np.where(np.isfinite(s), s, -np.inf)
        top = set(np.argsort(-finite, axis=None)[:3].tolist())
        for layer in range(s.shape[0]):
            for head in range(s.shape[1]):
                if not np.isfinite(s[layer, head]):
                    continue
                x0, y0, x1, y1 = tile_box(layer, head, th, tw, gap)
                strong = layer * s.shape[1] + head in top
                text = score_format.format(s[layer, head])
                fig.add_annotation(
                    x=(x0 + x1) / 2 - 0.5,
                    y=(y0 + y1) / 2 - 0.5,
                    showarrow=False,
                    text=f"<b>{esc(text)}</b>" if strong else esc(text),
                    font=dict(size=15 if strong else 12, color="#000000"),
                    bgcolor="rgba(255,255,255,0.8)",
                )
                if strong:
                    fig.add_shape(
                        type="rect",
                        x0=x0 - 0.5,
                        x1=x1 - 0.5,
                        y0=y0 - 0.5,
                        y1=y1 - 0.5,
                        line=dict(color=HIGHLIGHT, width=3),
                        fillcolor="rgba(0,0,0,0)",
                    )
    return fig


def difference_table(diff, query_tokens, key_tokens, a=None, b=None, mask=None) -> pd.DataFrame:
    """One row per visible cell: query, key, A, B, B - A (for the CSV export)."""
    d = np.asarray(diff, dtype=np.float64)
    q, k = np.meshgrid(np.arange(d.shape[0]), np.arange(d.shape[1]), indexing="ij")
    keep = np.ones(d.shape, bool) if mask is None else np.asarray(mask, bool)
    df = pd.DataFrame(
        {
            "query_position": q[keep],
            "query": [query_tokens[i] for i in q[keep]],
            "key_position": k[keep],
            "key": [key_tokens[j] for j in k[keep]],
        }
    )
    if a is not None:
        df["a"] = np.asarray(a, dtype=np.float64)[keep]
    if b is not None:
        df["b"] = np.asarray(b, dtype=np.float64)[keep]
    df["b_minus_a"] = d[keep]
    return df
