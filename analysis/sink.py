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


def sink_summary(weights, mask=None) -> dict | None:
    """The first-token pile-up of a sentence's attention, for a sentence about it (the home page on a
    real model, issue 50.10): n of the total (layer, head) pairs give the first token at least
    SINK_FACTOR times the uniform share; its mean share over every head against uniform's; the head
    that gives it the most (1-based). None where no row sees more than one key."""
    share, uniform = first_token_share(weights, mask)
    if not np.isfinite(share).any():
        return None
    layer, head = np.unravel_index(int(np.nanargmax(share)), share.shape)
    return {
        "n": int(np.sum(share / uniform >= SINK_FACTOR)),
        "total": int(share.size),
        "share": float(np.nanmean(share)),
        "uniform": float(np.nanmean(uniform)),
        "layer": int(layer) + 1,
        "head": int(head) + 1,
        "best": float(share[layer, head]),
    }
