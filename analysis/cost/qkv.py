"""Why Q, K, V and several heads: attention as a soft search, and how much heads disagree. (analysis/cost/: one module per section of the cost page; __init__.py lists them.)"""

from __future__ import annotations

import math

import numpy as np
import torch


# -- 5. why Q, K, V and several heads -------------------------------------------------------------
def search_example(attn_record: dict, head: int, query: int) -> dict:
    """The search analogy on one head's real vectors: the query q_i, its scaled dot product with every
    key k_j, the softmax weights, and the output as the weighted mix of the value rows."""
    q, k, v = (attn_record[x][0, head].double() for x in ("q", "k", "v"))
    d_k = q.size(-1)
    scores = (k @ q[query]) / math.sqrt(d_k)
    bias = attn_record.get("bias")
    if bias is not None:
        scores = scores + bias[head, query].double()
    mask = attn_record.get("mask")
    if mask is not None:
        # a padding mask is (B, 1, 1, S): one row for every query, so broadcast before picking one
        mask = mask.expand(*mask.shape[:-2], q.size(0), k.size(0))
        allowed = mask.reshape(-1, *mask.shape[-2:])[0][query].bool()
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores / float(attn_record.get("temperature", 1.0)), -1)
    return {
        "query": q[query].numpy(),
        "keys": k.numpy(),
        "values": v.numpy(),
        "scores": scores.numpy(),
        "weights": weights.numpy(),
        "output": (weights @ v).numpy(),
        "recorded_output": attn_record["head_outputs"][0, head, query].double().numpy(),
    }


def heads_disagreement(layer_weights, mask=None) -> np.ndarray:
    """(h, T, T) one layer's weights -> (T,): for each query row, the mean total-variation distance
    between its heads' rows (0: every head reads the same keys in the same amounts; 1: no two heads
    share a key). A row that sees one or two keys scores 0 (with two, every head can only split ~0.5)."""
    w = np.asarray(layer_weights, dtype=np.float64)
    h, n_q, n_k = w.shape
    seen = np.ones((n_q, n_k), bool) if mask is None else np.broadcast_to(np.asarray(mask, bool), (n_q, n_k))
    pairs = [(a, b) for a in range(h) for b in range(a + 1, h)]
    if not pairs:
        return np.zeros(n_q)
    tv = np.mean([0.5 * np.abs(w[a] - w[b]).sum(-1) for a, b in pairs], axis=0)
    return np.where(seen.sum(-1) >= 3, tv, 0.0)


def distinct_heads_query(layer_weights, mask=None) -> int:
    """The query row whose heads differ most (heads_disagreement): the row that shows what several
    heads are for. Ties go to the earlier row."""
    return int(np.argmax(heads_disagreement(layer_weights, mask)))
