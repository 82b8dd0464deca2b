"""Numbers computed from attention weights: numpy in, numpy (or a small DataFrame) out.

Shapes follow model/trace.py: weights (layers, heads, queries, keys), rows sum to 1, masked
cells exactly 0, mask (queries, keys) with True = may attend. Layer and head indices are 0-based
here; charts add 1 when they show them.
"""

from __future__ import annotations

import numpy as np


def mean_of_heads(w: np.ndarray) -> np.ndarray:
    """(L, H, Q, K) -> (L, Q, K): the average head, still a distribution per row."""
    w = np.asarray(w)
    if w.ndim != 4:
        raise ValueError(f"expected (layers, heads, queries, keys), got shape {w.shape}")
    return w.mean(axis=1, dtype=np.float64).astype(np.float32)


def entropy(rows: np.ndarray) -> np.ndarray:
    """Natural-log entropy of each probability row (last axis), with 0·log 0 = 0."""
    p = np.asarray(rows, dtype=np.float64)
    logp = np.log(np.where(p > 0, p, 1.0))  # log(1) = 0 where p is 0, so those cells add nothing
    return -(p * logp).sum(axis=-1)


def normalised_entropy(rows: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Entropy divided by ln(number of keys the row may attend to): 1 = uniform, 0 = one key.

    ``mask`` broadcasts against ``rows`` (e.g. (Q, K) against (L, H, Q, K)); rows with a single
    allowed key have nothing to choose and score 0.
    """
    p = np.asarray(rows)
    n = p.shape[-1] if mask is None else np.broadcast_to(np.asarray(mask, bool), p.shape).sum(-1)
    n = np.broadcast_to(np.asarray(n, dtype=np.float64), p.shape[:-1])
    h = entropy(p)
    out = np.zeros_like(h)
    ok = n > 1
    np.divide(h, np.log(np.where(ok, n, 2.0)), out=out, where=ok)
    return out


def rollout(w: np.ndarray, residual: float = 0.5) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020) of self-attention weights (L, H, T, T) -> (T, T).

    Per layer: mean over heads, mix in the residual connection (0.5·A + 0.5·I), renormalise rows;
    then R = A_L ··· A_1, so row i tells how much each input token j flows into position i at the
    top. A causal (lower-triangular) pattern stays lower-triangular.
    """
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 4 or w.shape[2] != w.shape[3]:
        raise ValueError(f"rollout needs self-attention weights (L, H, T, T), got {w.shape}")
    t = w.shape[2]
    eye = np.eye(t)
    r = eye
    for layer in w:
        a = (1.0 - residual) * layer.mean(axis=0) + residual * eye
        a /= a.sum(axis=-1, keepdims=True)
        r = a @ r  # the newer layer on the left: R_l = A_l · R_(l-1)
    return r.astype(np.float32)


def _rows_with_choice(mask: np.ndarray | None, q: int, k: int) -> np.ndarray:
    """Queries that could attend to more than one key (the others say nothing about a head)."""
    if mask is None:
        return np.full(q, k > 1)
    return np.asarray(mask, bool).sum(-1) > 1


def induction_scores(w: np.ndarray, period: int, offset: int = 0) -> np.ndarray:
    """Induction score per head for a block of ``period`` tokens repeated twice.

    The sequence is ``offset`` leading tokens (e.g. a BOS) then block, block. For each query q in
    the second copy, an induction head looks at the token right after q's earlier occurrence:
    key q - period + 1. Returns the mean of that weight over the second copy, shape w.shape[:-2].
    """
    w = np.asarray(w)
    if period < 1 or offset + 2 * period > w.shape[-2] or offset + 2 * period > w.shape[-1]:
        raise ValueError(f"period {period} (offset {offset}) does not fit weights {w.shape}")
    q = np.arange(offset + period, offset + 2 * period)
    return w[..., q, q - period + 1].mean(axis=-1, dtype=np.float64)


def head_roles(
    w: np.ndarray,
    mask: np.ndarray | None = None,
    induction: np.ndarray | None = None,
    threshold: float = 0.5,
    cross: bool = False,
    align: np.ndarray | None = None,
):
    """Score every (layer, head) on simple, named behaviours; returns a pandas DataFrame.

    Self-attention columns: layer, head (0-based), previous (mean weight on key i-1 over queries
    i >= 1), current (mean weight on key i; NaN unless queries == keys), first (mean weight on key
    0), broad (mean normalised entropy), each over the rows that had a choice (a causal mask's row
    0 can only look at itself: its weight 1 says nothing about the head), induction (only if
    given, per-head scores e.g. from induction_scores), role (the best-scoring role if its score
    >= threshold, else "mixed") and score (that best score).
    cross=True (queries and keys are two different texts): positions of one say nothing about the
    other, so previous / current / first are not scored; "align" is `align`, per-head word-alignment
    scores (analysis.claims.page_alignment: the weight a row writing a word puts on that word's
    translation), beside broad. A peaked row is not an aligned one (a head can read "The" with 0.9
    while writing 坐), so without `align` the column is NaN and no head is labelled "align".
    """
    import pandas as pd

    w = np.asarray(w)
    n_layers, n_heads, q, k = w.shape
    scores = {}
    choice = _rows_with_choice(mask, q, k)
    nan = np.full((n_layers, n_heads), np.nan)
    if cross:
        scores["align"] = nan.copy() if align is None else np.asarray(align, dtype=np.float64)
    elif q == k and q > 1:
        # mean over i >= 1 of w[i, i-1]: the first sub-diagonal
        scores["previous"] = np.diagonal(w, offset=-1, axis1=2, axis2=3).mean(-1, dtype=np.float64)
        diag = np.diagonal(w, axis1=2, axis2=3)
        scores["current"] = diag[..., choice].mean(-1, dtype=np.float64) if choice.any() else nan
    else:
        scores["previous"], scores["current"] = nan, nan
    if not cross:
        scores["first"] = w[..., choice, 0].mean(-1, dtype=np.float64) if choice.any() else nan
    ent = normalised_entropy(w, mask)
    scores["broad"] = ent[..., choice].mean(-1) if choice.any() else np.zeros((n_layers, n_heads))
    if induction is not None:
        induction = np.asarray(induction, dtype=np.float64)
        if induction.shape != (n_layers, n_heads):
            raise ValueError(f"induction scores must be {(n_layers, n_heads)}, got {induction.shape}")
        scores["induction"] = induction

    names = list(scores)
    stacked = np.stack([scores[n] for n in names], axis=-1)  # (L, H, roles)
    filled = np.where(np.isnan(stacked), -np.inf, stacked)
    best = filled.argmax(-1)
    best_score = np.take_along_axis(filled, best[..., None], -1)[..., 0]
    role = np.where(best_score >= threshold, np.asarray(names, dtype=object)[best], "mixed")

    layer, head = np.meshgrid(np.arange(n_layers), np.arange(n_heads), indexing="ij")
    data = {"layer": layer.ravel(), "head": head.ravel()}
    for n in names:
        data[n] = scores[n].ravel().astype(float)
    data["role"] = role.ravel().astype(str)
    data["score"] = best_score.ravel().astype(float)
    return pd.DataFrame(data)


def word_groups(words) -> np.ndarray:
    """Group index per token: consecutive tokens with the same non-negative word index share a
    group; a negative index (special tokens) is always a group of its own."""
    groups = np.empty(len(words), dtype=np.int64)
    g = -1
    prev = None
    for i, wd in enumerate(words):
        wd = int(wd)
        if wd < 0 or wd != prev:
            g += 1
        groups[i] = g
        prev = wd if wd >= 0 else None
    return groups


def merge_tokens(tokens, words, strip: str = "▁") -> list[str]:
    """Labels for merged words: each group's pieces joined, SentencePiece's word marker removed."""
    groups = word_groups(words)
    out = [""] * (int(groups.max()) + 1 if len(groups) else 0)
    for tok, g in zip(tokens, groups):
        out[g] += tok
    stripped = [s.replace(strip, "") if strip else s for s in out]
    return [s if s else orig for s, orig in zip(stripped, out)]


def _indicator(words, n: int) -> np.ndarray:
    groups = word_groups(words) if words is not None else np.arange(n)
    if len(groups) != n:
        raise ValueError(f"{len(groups)} word indices for {n} tokens")
    m = np.zeros((n, int(groups.max()) + 1 if n else 0), dtype=np.float64)
    m[np.arange(n), groups] = 1.0
    return m  # (tokens, words)


def merge_words(weights: np.ndarray, query_words=None, key_words=None, mask: np.ndarray | None = None):
    """Merge SentencePiece pieces into words on the last two axes (..., Q, K).

    Keys: SUM over a word's pieces (attention to the word is attention to any of its pieces).
    Queries: MEAN over a word's pieces (so each row is still a distribution summing to 1).
    ``None`` for either list leaves that axis as it is. Returns (merged weights, merged mask);
    a merged cell is allowed if any of its cells was (mask is None when none was given).
    """
    w = np.asarray(weights)
    q, k = w.shape[-2:]
    kin = _indicator(key_words, k)  # (K, Wk)
    qin = _indicator(query_words, q)  # (Q, Wq)
    qavg = (qin / qin.sum(0, keepdims=True)).T  # (Wq, Q), each row averages one word's pieces
    merged = (qavg @ w.astype(np.float64) @ kin).astype(np.float32)
    merged_mask = None
    if mask is not None:
        merged_mask = (qin.T @ np.asarray(mask, dtype=np.float64) @ kin) > 0
    return merged, merged_mask
