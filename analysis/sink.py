"""The attention sink, measured: the first token's share of a head's weight against uniform.
Its own module so that analysis/intervene.py (the sink button) and analysis/claims.py (the page's
sentences) share it without importing each other."""

from __future__ import annotations

import numpy as np

SINK_FACTOR = 2.0  # a sink head gives the first token at least twice the uniform share


def first_token_share(weights, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """(share, uniform), each (layers, heads): the mean weight on key 0 over the rows that can see
    more than one key, and what uniform weights over each row's visible keys would give it there."""
    w = np.asarray(weights, dtype=np.float64)
    q, k = w.shape[-2:]
    visible = np.ones((q, k), bool) if mask is None else np.asarray(mask, bool).reshape(q, k)
    n = visible.sum(-1)
    rows = (n > 1) & visible[:, 0]
    if not rows.any():
        nan = np.full(w.shape[:2], np.nan)
        return nan, nan
    share = w[:, :, rows, 0].mean(-1)
    uniform = np.full(w.shape[:2], float(np.mean(1.0 / n[rows])))
    return share, uniform
