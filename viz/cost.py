"""Charts for the cost page and the KV-cache section: arrays and labels in, plotly figures out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.colors import COLORSCALE, DIVERGING, HIGHLIGHT, MASKED, line_trace_style
from viz.curves import lines
from viz.heatmap import categories, esc, heatmap

COMPUTED = COLORSCALE[-3][1]
SIGNED = DIVERGING  # blue below 0, white at 0, red above, as on every page


def _loglog(fig, x_title, y_title, height=380):
    # one labelled tick per power of ten: plotly draws a log axis's "2" and "5" labels at 3/4 of the
    # tick size (12 px on a 16 px projector axis, 8 px on a phone)
    fig.update_xaxes(type="log", title=esc(x_title), dtick=1)
    fig.update_yaxes(type="log", title=esc(y_title), dtick=1)
    fig.update_layout(
        height=height, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", yanchor="bottom", y=1.02)
    )
    return fig


def guide_lines(fig, ns, anchor_n, anchor_y, names=("n²", "n")):
    """Dotted c·n² and c·n lines through one measured point: a curve parallel to n² grows quadratically."""
    ns = np.asarray(ns, dtype=np.float64)
    for power, name, dash in ((2, names[0], "dot"), (1, names[1], "dash")):
        fig.add_trace(
            go.Scatter(
                x=ns,
                y=anchor_y * (ns / anchor_n) ** power,
                mode="lines",
                name=esc(name),
                line=dict(dash=dash, color="#888888", width=1),
                hoverinfo="skip",
            )
        )
    return fig


def scaling_curves(series: dict, labels: dict, y: str = "seconds") -> go.Figure:
    """series: name -> (ns, values). Log-log, with n² and n guide lines through the first series' last point."""
    fig = go.Figure(lines([(name, ns, values) for name, (ns, values) in series.items()], "n = %{x}: %{y:.4g}"))
    first = next(iter(series.values()))
    all_ns = sorted({n for ns, _ in series.values() for n in ns})
    guide_lines(fig, all_ns, first[0][-1], first[1][-1], (labels["n2"], labels["n1"]))
    return _loglog(fig, labels["x"], labels["y"])


def mask_figure(mask, tokens, labels: dict, height=None) -> go.Figure:
    """A sparsity pattern on the sentence's tokens (heatmap(), z 1 or 0): computed pairs blue,
    skipped pairs grey; the axes number the tokens, since the patterns are about positions."""
    mask = np.asarray(mask, bool)
    n = len(tokens)
    return heatmap(
        mask,
        tokens,
        tokens,
        labels=labels,
        scale=[[0, MASKED], [1, COMPUTED]],
        colorbar=False,
        gaps=1,
        positions="ticks",
        hover=esc(labels["y"]) + " %{y}<br>" + esc(labels["x"]) + " %{x}<br>%{customdata}",
        hover_text=np.where(mask, labels["computed"], labels["skipped"]),
        tick_angle=-45,
        height=height or min(220 + 18 * n, 620),
    )


def sweep_panels(d_ks, panels: dict, names: tuple, labels: dict) -> go.Figure:
    """One panel per quantity (title -> (scaled values, unscaled values)) against d_k, log x."""
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[esc(k) for k in panels])
    for c, (title, (a, b)) in enumerate(panels.items(), start=1):
        for i, (vals, name) in enumerate(((a, names[0]), (b, names[1]))):
            fig.add_trace(
                go.Scatter(
                    x=list(d_ks),
                    y=vals,
                    mode="lines+markers",
                    name=esc(name),
                    **line_trace_style(i),
                    showlegend=c == 1,
                    legendgroup=esc(name),
                    hovertemplate="d_k = %{x}: %{y:.4g}<extra>" + esc(name) + "</extra>",
                ),
                row=1,
                col=c,
            )
        fig.update_xaxes(type="log", title=esc(labels["x"]), dtick=1, row=1, col=c)
        if title in labels.get("log_y", ()):
            fig.update_yaxes(type="log", dtick=1, row=1, col=c)
    fig.update_layout(
        height=340, margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", yanchor="bottom", y=1.12)
    )
    return fig


def online_steps(steps: list[dict], labels: dict) -> go.Figure:
    """The running max m and running sum l of one query row, block after block of keys."""
    x = [f"{s['keys'][0]}–{s['keys'][1] - 1}" for s in steps]
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Scatter(
            x=x, y=[s["max"] for s in steps], mode="lines+markers", name=esc(labels["max"]), **line_trace_style(0)
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=x, y=[s["sum"] for s in steps], mode="lines+markers", name=esc(labels["sum"]), **line_trace_style(1)
        ),
        secondary_y=True,
    )
    fig.update_xaxes(title=esc(labels["x"]))
    fig.update_yaxes(title=esc(labels["max"]), secondary_y=False)
    fig.update_yaxes(title=esc(labels["sum"]), secondary_y=True)
    fig.update_layout(
        height=320, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", yanchor="bottom", y=1.02)
    )
    return fig


def search_bars(tokens, scores, weights, labels: dict, chosen: int | None = None) -> go.Figure:
    """One query against every key: the scaled dot products (left) and the softmax weights (right)."""
    cats = categories(tokens)
    fig = make_subplots(rows=1, cols=2, subplot_titles=[esc(labels["scores"]), esc(labels["weights"])])
    scores = np.asarray(scores, dtype=np.float64)
    shown = np.where(np.isfinite(scores), scores, np.nan)
    colours = [HIGHLIGHT if i == chosen else COMPUTED for i in range(len(tokens))]
    fig.add_trace(
        go.Bar(x=cats, y=shown, marker_color=colours, showlegend=False, hovertemplate="%{x}: %{y:.3f}<extra></extra>"),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=cats, y=weights, marker_color=colours, showlegend=False, hovertemplate="%{x}: %{y:.3f}<extra></extra>"
        ),
        row=1,
        col=2,
    )
    fig.update_xaxes(tickangle=-45)
    fig.update_yaxes(range=[0, 1], row=1, col=2)
    fig.update_layout(height=330, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def heads_grid(weights, tokens, labels: dict, mask=None) -> go.Figure:
    """Every head of one layer side by side (heads, T, T): heatmap()'s panels, one colour scale."""
    weights = np.asarray(weights, dtype=np.float64)
    return heatmap(
        weights,
        tokens,
        tokens,
        mask=mask,
        hover="%{y} → %{x}: %{z:.3f}",
        height=330,
        panel_titles=[labels["head"].format(h=h + 1) for h in range(weights.shape[0])],
    )


def matrix_figure(
    values, row_labels, col_title: str, row_title: str, height=None, highlight_row=None, boundaries=()
) -> go.Figure:
    """A real-valued matrix (a K or V cache, head outputs; heatmap()) on a diverging scale centred at 0;
    optional lines between column groups (heads) and a marked row (the newest)."""
    fig = heatmap(
        values,
        row_labels,
        labels={"x": col_title, "y": row_title},
        scale=SIGNED,
        zero_centred=True,
        hover="%{y}, %{x}: %{z:.3f}",
        height=height or min(160 + 16 * len(row_labels), 560),
    )
    for b in boundaries:
        fig.add_vline(x=b - 0.5, line=dict(color="#333333", width=1))
    if highlight_row is not None:
        fig.add_hrect(y0=highlight_row - 0.5, y1=highlight_row + 0.5, line=dict(color=HIGHLIGHT, width=2))
    return fig


def per_token_cost(t, a, b, names: tuple, labels: dict, log_y: bool = True) -> go.Figure:
    """Cost of each new token against the tokens read so far, without (a) and with (b) the cache."""
    fig = go.Figure()
    for i, (values, name) in enumerate(((a, names[0]), (b, names[1]))):
        fig.add_trace(go.Scatter(x=list(t), y=list(values), mode="lines", name=esc(name), **line_trace_style(i)))
    fig.update_xaxes(title=esc(labels["x"]))
    fig.update_yaxes(title=esc(labels["y"]), type="log" if log_y else "linear", dtick=1 if log_y else None)
    fig.update_layout(
        height=320, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", yanchor="bottom", y=1.02)
    )
    return fig


def sink_heatmap(shares, labels: dict) -> go.Figure:
    """(layers, heads): the share of each row's attention that goes to the first token (heatmap())."""
    shares = np.asarray(shares, dtype=np.float64)
    L, H = shares.shape
    return heatmap(
        shares,
        [labels["layer"].format(layer=la + 1) for la in range(L)],
        [labels["head"].format(h=h + 1) for h in range(H)],
        positions="none",
        annotate=True,
        hover="%{y} %{x}: %{z:.3f}",
        height=90 + 45 * L,
    )
