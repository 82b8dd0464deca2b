"""Small line charts for the tutorial pages (temperature, cost, timeline): lines() and the entropy curve."""

from __future__ import annotations

import math
import unicodedata

import numpy as np
import plotly.graph_objects as go

from viz.colors import line_trace_style
from viz.heatmap import esc

DEFAULT_LABELS = {
    "temperature": "Temperature",
    "entropy": "Entropy (nats)",
    "uniform": "uniform: ln {n} = {value:.3f}",
    "uniform_mean": "uniform, mean over rows: {value:.3f}",
    "now": "T now",
}


LEGEND_CHARS = 32  # a legend line's most columns: about 200 px at 12.8 px, inside a phone's plot area (287 px)


def legend_name(name: str, width: int = LEGEND_CHARS) -> str:
    """A legend entry, escaped, broken onto lines of at most ``width`` characters (at spaces; a
    word longer than that stays whole): plotly never wraps one entry, so a long name ran off a
    phone's screen ("one attention matrix, d_model 768, 12 heads (BERT-base, GPT-2)")."""
    out, line = [], ""
    for word in _chunks(str(name).split(" "), width):
        if line and _cols(line) + 1 + _cols(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return "<br>".join(esc(part) for part in out)


def _cols(text: str) -> int:
    """Display width: a Chinese character (East Asian wide or full-width) takes two columns."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _chunks(words, width: int):
    """The words, each cut into pieces of at most ``width`` columns (Chinese has no spaces)."""
    for word in words:
        piece = ""
        for c in word:
            if piece and _cols(piece + c) > width:
                yield piece
                piece = ""
            piece += c
        yield piece


def lines(series, hover: str, name_in_hover: bool = True, first: int = 0, **trace) -> list[go.Scatter]:
    """One "lines+markers" trace per (name, x, y) of series: the name (escaped) in the legend (an
    unnamed line has no entry) and, with name_in_hover, in the hover's box beside ``hover`` (the
    template of the values). Line i looks like viz.colors.line_style(first + i): an Okabe-Ito colour,
    a dash pattern and a marker symbol, so no two lines differ by colour alone. ``trace``: more
    settings for every line."""
    out = []
    for i, (name, x, y) in enumerate(series):
        out.append(
            go.Scatter(
                x=x,
                y=y,
                mode="lines+markers",
                name=legend_name(name),
                showlegend=bool(name),
                hovertemplate=f"{hover}<extra>{esc(name) if name_in_hover else ''}</extra>",
                **{**line_trace_style(first + i), **trace},
            )
        )
    return out


def entropy_vs_temperature(
    temps,
    entropies,
    n_keys: int,
    labels: dict | None = None,
    names=None,
    mean_limit: float | None = None,
    now: float | None = None,
    log_ticks=None,
    y_top: float | None = None,
) -> go.Figure:
    """Entropy of attention rows against temperature, with ln(n_keys), the uniform limit, marked.

    ``entropies`` is one curve (T,) or several (S, T) with ``names`` for the legend (above the
    chart). Options: ``mean_limit`` a dotted line (the rows' mean uniform limit), ``now`` a line
    at the chosen temperature, ``log_ticks`` a log temperature axis over temps with these ticks,
    ``y_top`` the top of the entropy axis.
    """
    labels = {**DEFAULT_LABELS, **(labels or {})}
    temps = np.asarray(temps, dtype=np.float64)
    ent = np.atleast_2d(np.asarray(entropies, dtype=np.float64))
    if ent.shape[-1] != len(temps):
        raise ValueError(f"{ent.shape[-1]} entropies for {len(temps)} temperatures")
    names = list(names) if names is not None else [""] * len(ent)
    series = [(name, temps, curve) for name, curve in zip(names, ent)]
    fig = go.Figure(lines(series, "T = %{x:.3g}: %{y:.4f}", name_in_hover=False))
    limit = math.log(n_keys) if n_keys > 0 else 0.0
    fig.add_hline(
        y=limit,
        line=dict(dash="dash", color="#555555"),
        annotation_text=esc(labels["uniform"].format(n=n_keys, value=limit)),
        annotation_position="bottom right",
    )
    fig.update_layout(
        xaxis_title=esc(labels["temperature"]),
        yaxis_title=esc(labels["entropy"]),
        yaxis_range=[0, limit * 1.08 + 1e-9 if y_top is None else y_top],
        height=360,
        margin=dict(l=10, r=10, t=20, b=10),
    )
    if mean_limit is not None:
        fig.add_hline(
            y=mean_limit,
            line=dict(dash="dot", color="#888888"),
            annotation_text=esc(labels["uniform_mean"].format(value=mean_limit)),
            annotation_position="top left",
        )
    if log_ticks is not None:
        fig.update_xaxes(
            type="log",
            range=[math.log10(temps.min()), math.log10(temps.max())],
            tickmode="array",
            tickvals=list(log_ticks),
            ticktext=[f"{v:g}" for v in log_ticks],
        )
    if now is not None:
        # on a log axis a shape takes T itself but an annotation takes log10(T)
        fig.add_vline(x=now, line=dict(color="#e6550d", width=2))
        fig.add_annotation(
            x=math.log10(now) if log_ticks is not None else now,
            y=1,
            yref="paper",
            text=esc(labels["now"]),
            showarrow=False,
            yanchor="bottom",
            font=dict(color="#e6550d"),
        )
    if any(names):
        fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.02))
    return fig
