"""Head view: query tokens on the left, key tokens on the right, one line per attended pair.

Line width and opacity follow the weight, colour the head. Click a head in the legend to show
only it (shift-click for more); point at a token to see only its lines.
"""

from __future__ import annotations

import copy
import functools

import altair as alt
import numpy as np
import pandas as pd

from viz.colors import HEAD_COLORS, HIGHLIGHT

DEFAULT_LABELS = {"head": "Head", "query": "Query", "key": "Key", "weight": "Weight"}
ROW_PX = 18


def head_view_data(
    layer_weights: np.ndarray,
    query_tokens,
    key_tokens,
    threshold: float = 0.02,
    top_k: int = 5,
    max_lines: int = 4000,
    heads=None,
) -> pd.DataFrame:
    """The lines to draw, as a DataFrame of plain types.

    Columns: head (1-based int), query, key (0-based positions), query_token, key_token, weight.
    Keeps, per head and query, the top_k keys with weight >= threshold; lowers top_k (then keeps
    the heaviest lines) so there are at most max_lines rows, which keeps the browser responsive.
    """
    w = np.asarray(layer_weights, dtype=np.float32)
    if w.ndim != 3:
        raise ValueError(f"expected one layer's weights (heads, queries, keys), got {w.shape}")
    n_heads, q, k = w.shape
    if (q, k) != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"weights {w.shape} do not match {len(query_tokens)} query and {len(key_tokens)} key tokens")
    heads = list(range(n_heads)) if heads is None else [int(h) for h in heads]
    w = w[heads]
    kk = max(1, min(top_k, k, max_lines // max(1, len(heads) * q)))
    top = np.argsort(-w, axis=-1, kind="stable")[..., :kk]  # (H', Q, kk)
    vals = np.take_along_axis(w, top, axis=-1)
    hi, qi, _ = np.indices(top.shape)
    keep = vals >= threshold
    hi, qi, ki, vals = hi[keep], qi[keep], top[keep], vals[keep]
    if len(vals) > max_lines:
        order = np.argsort(-vals, kind="stable")[:max_lines]
        hi, qi, ki, vals = hi[order], qi[order], ki[order], vals[order]
    qt, kt = np.asarray(query_tokens, dtype=object), np.asarray(key_tokens, dtype=object)
    return pd.DataFrame(
        {
            "head": np.asarray(heads, dtype=np.int64)[hi] + 1,
            "query": qi.astype(np.int64),
            "key": ki.astype(np.int64),
            "query_token": [str(t) for t in qt[qi]],
            "key_token": [str(t) for t in kt[ki]],
            "weight": vals.astype(np.float64),
        }
    )


def head_view(layer_weights: np.ndarray, query_tokens, key_tokens, **options) -> alt.LayerChart:
    """An Altair chart of one layer's heads (layer_weights: (heads, queries, keys)). options: labels,
    width (520 px), font_px (13), height (default from the rows: ROW_PX each, denser for long
    inputs) and head_view_data's threshold, top_k, max_lines and heads (which lines to draw).

    Selections (params): "heads" (legend-bound, field head), "hover_query" / "hover_key" (on
    pointerover of a left / right token). Lines below ``threshold`` are not in the data at all.
    """
    lines, queries, keys, shape = _data(layer_weights, query_tokens, key_tokens, **options)
    return _chart(lines, queries, keys, *shape)


def head_view_spec(layer_weights: np.ndarray, query_tokens, key_tokens, **options) -> dict:
    """head_view(...).to_dict() (the same options), fast: the chart's Vega-Lite skeleton (marks, scales, selections,
    legend) depends only on the heads, the number of rows, the labels and the sizes, so it is built
    by Altair once per shape and the sentence's lines and tokens are put in as named datasets.
    (Altair's build and schema check took 70-110 ms per new sentence; this takes a few.)"""
    lines, queries, keys, shape = _data(layer_weights, query_tokens, key_tokens, **options)
    spec = copy.deepcopy(_skeleton(*shape))
    spec["datasets"] = {name: df.to_dict("records") for name, df in zip(DATASETS, (lines, queries, keys))}
    return spec


DATASETS = ("hv_lines_data", "hv_query_data", "hv_key_data")


def _data(layer_weights, query_tokens, key_tokens, labels=None, width=520, font_px=13, height=None, **lines_kw):
    """The three tables the chart draws (lines, left tokens, right tokens) and what its shape
    depends on: (head ids, rows, labels, width, height, font px)."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    lines = head_view_data(layer_weights, query_tokens, key_tokens, **lines_kw)
    heads = lines_kw.get("heads")
    n_heads = np.asarray(layer_weights).shape[0]
    head_ids = tuple(h + 1 for h in (range(n_heads) if heads is None else heads))
    n_rows = max(len(query_tokens), len(key_tokens), 1)
    queries = pd.DataFrame(
        {"query": np.arange(len(query_tokens), dtype=np.int64), "token": [str(t) for t in query_tokens], "x": 0.0}
    )
    keys = pd.DataFrame(
        {"key": np.arange(len(key_tokens), dtype=np.int64), "token": [str(t) for t in key_tokens], "x": 1.0}
    )
    return lines, queries, keys, (head_ids, n_rows, tuple(labels.items()), width, height, font_px)


@functools.lru_cache(maxsize=64)
def _skeleton(head_ids, n_rows, labels, width, height, font_px) -> dict:
    return _chart(
        *(alt.NamedData(name) for name in DATASETS), head_ids, n_rows, labels, width, height, font_px
    ).to_dict()


def _chart(lines, queries, keys, head_ids, n_rows, labels, width, height, font_px) -> alt.LayerChart:
    labels = dict(labels)
    row_px = float(np.clip(3000 / n_rows, 10, ROW_PX))  # long inputs: denser rows, smaller text
    height = height or int(row_px * n_rows)
    y_scale = alt.Scale(domain=[-0.5, n_rows - 0.5], reverse=True, nice=False, zero=False)
    # lines run from x=0 to x=1; the room either side holds the token text (inside the scale's
    # domain rather than in padding, because Streamlit sizes the whole chart with autosize "fit")
    x_scale = alt.Scale(domain=[-0.75, 1.75], nice=False)

    # Each selection listens only to its own marks ("@name:event"): a pointerover on a left token
    # would otherwise also set hover_key, with no "key" in the datum, and hide every line.
    pick_heads = alt.selection_point(
        name="heads", fields=["head"], bind="legend", on="@hv_lines_marks:click", clear="dblclick"
    )
    hover_q = alt.selection_point(
        name="hover_query",
        fields=["query"],
        empty=True,
        on="@hv_query_marks:pointerover",
        clear="@hv_query_marks:pointerout",
    )
    hover_k = alt.selection_point(
        name="hover_key", fields=["key"], empty=True, on="@hv_key_marks:pointerover", clear="@hv_key_marks:pointerout"
    )

    no_axis = alt.Axis(labels=False, ticks=False, domain=False, grid=False, title=None)
    colour = alt.Color(
        "head:N",
        title=labels["head"],
        legend=alt.Legend(symbolType="stroke", symbolStrokeWidth=4, symbolOpacity=1),
        scale=alt.Scale(domain=list(head_ids), range=[HEAD_COLORS[(h - 1) % len(HEAD_COLORS)] for h in head_ids]),
    )
    shown = pick_heads & hover_q & hover_k
    rules = (
        alt.Chart(lines)
        .mark_rule(strokeCap="round")
        .encode(
            x=alt.X("x0:Q", scale=x_scale, axis=no_axis),
            x2="x1:Q",
            y=alt.Y("query:Q", scale=y_scale, axis=no_axis),
            y2="key:Q",
            color=colour,
            strokeWidth=alt.StrokeWidth("weight:Q", scale=alt.Scale(domain=[0, 1], range=[0.5, 6]), legend=None),
            opacity=alt.when(shown)
            .then(alt.Opacity("weight:Q", scale=alt.Scale(domain=[0, 1], range=[0.25, 0.95]), legend=None))
            .otherwise(alt.value(0.0)),
            tooltip=[
                alt.Tooltip("head:N", title=labels["head"]),
                alt.Tooltip("query_token:N", title=labels["query"]),
                alt.Tooltip("key_token:N", title=labels["key"]),
                alt.Tooltip("weight:Q", title=labels["weight"], format=".4f"),
            ],
        )
        .transform_calculate(x0="0", x1="1")
        .add_params(pick_heads)
        .properties(name="hv_lines")
    )

    def token_column(data, field, param, align, dx):
        font = font_px if n_rows <= 24 else int(min(font_px, row_px - 3))
        return (
            alt.Chart(data)
            .mark_text(align=align, dx=dx, fontSize=font, baseline="middle")
            .encode(
                x=alt.X("x:Q", scale=x_scale, axis=no_axis),
                y=alt.Y(f"{field}:Q", scale=y_scale, axis=no_axis),
                text="token:N",
                color=alt.when(param, empty=False).then(alt.value(HIGHLIGHT)).otherwise(alt.value("#222222")),
                tooltip=[alt.Tooltip("token:N", title=labels[field])],
            )
            .add_params(param)
            .properties(name=f"hv_{field}")
        )

    chart = alt.layer(
        rules,
        token_column(queries, "query", hover_q, "right", -6),
        token_column(keys, "key", hover_k, "left", 6),
    ).properties(width=width, height=height)
    chart = chart.configure_view(stroke=None)
    if font_px > 13:  # presentation mode: the legend grows with the tokens
        chart = chart.configure_legend(labelFontSize=font_px, titleFontSize=font_px, labelColor="#000000")
    return chart
