"""Attention as an Altair rect chart (the Annotated Transformer's way): for figures saved to
files with vl-convert, offline and without a browser. The app's interactive heatmap is plotly."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd


def long_form(weights_2d, query_tokens, key_tokens) -> pd.DataFrame:
    """(Q, K) weights as one row per cell: query, key (position-tagged so repeats stay apart)."""
    w = np.asarray(weights_2d, dtype=float)
    q, k = np.meshgrid(np.arange(w.shape[0]), np.arange(w.shape[1]), indexing="ij")
    return pd.DataFrame(
        {
            "query": [f"{i:02d} {query_tokens[i]}" for i in q.ravel()],
            "key": [f"{j:02d} {key_tokens[j]}" for j in k.ravel()],
            "weight": w.ravel(),
        }
    )


def heatmap_chart(weights_2d, query_tokens, key_tokens, title: str = "", size: int = 22) -> alt.Chart:
    df = long_form(weights_2d, query_tokens, key_tokens)
    strip = alt.ExprRef("substring(datum.value, 3)")  # show the token, not its position prefix
    return (
        alt.Chart(df, title=title)
        .mark_rect()
        .encode(
            x=alt.X("key:O", sort=None, title="key", axis=alt.Axis(labelExpr=strip.expr, labelAngle=-45)),
            y=alt.Y("query:O", sort=None, title="query", axis=alt.Axis(labelExpr=strip.expr)),
            color=alt.Color("weight:Q", scale=alt.Scale(domain=[0, 1], scheme="blues")),
            tooltip=["query", "key", alt.Tooltip("weight:Q", format=".3f")],
        )
        .properties(width=size * len(key_tokens), height=size * len(query_tokens))
    )
