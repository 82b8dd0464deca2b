"""Sparse and local attention: the masks (window, dilated, global + window, block), the pairs they compute, and an attention that touches only those pairs. (analysis/cost/: one module per section of the cost page; __init__.py lists them.)"""

from __future__ import annotations

import math
import time

import numpy as np
import torch
import torch.nn.functional as F

from model.attention import scaled_dot_product_attention


# -- 2. sparse and local attention ----------------------------------------------------------------
def window_mask(n: int, w: int, causal: bool = False) -> np.ndarray:
    """Sliding window: token i sees itself and the w-1 tokens before it (and after it unless causal)."""
    i, j = np.indices((n, n))
    d = i - j
    return (d >= 0) & (d < w) if causal else np.abs(d) < w


def dilated_mask(n: int, w: int, dilation: int, causal: bool = False) -> np.ndarray:
    """Dilated window: w keys on each side, `dilation` apart (distance 0, r, 2r, ... (w-1)r)."""
    i, j = np.indices((n, n))
    d = i - j
    near = (np.abs(d) < w * dilation) & (d % dilation == 0)
    return near & (d >= 0) if causal else near


def global_window_mask(n: int, w: int, global_tokens=(0,), causal: bool = False) -> np.ndarray:
    """Longformer / BigBird: a sliding window, plus global tokens that see every token and are seen
    by every token."""
    m = window_mask(n, w)
    g = [k for k in global_tokens if 0 <= k < n]
    m[g, :] = True
    m[:, g] = True
    return m & np.tri(n, dtype=bool) if causal else m


def block_mask(n: int, block: int, causal: bool = False) -> np.ndarray:
    """Block-sparse (BigBird's blocked layout without its random blocks): the tokens are cut into
    blocks of `block`; each block sees its own block, the blocks either side, and the first block
    (which sees everything)."""
    i, j = np.indices((n, n))
    bi, bj = i // block, j // block
    m = (np.abs(bi - bj) <= 1) | (bj == 0) | (bi == 0)
    return m & (j <= i) if causal else m


PATTERNS = ("full", "window", "dilated", "global", "block")


def pattern_mask(
    pattern: str, n: int, w: int = 3, dilation: int = 2, block: int = 4, global_tokens=(0,), causal: bool = False
) -> np.ndarray:
    if pattern == "full":
        return np.tri(n, dtype=bool) if causal else np.ones((n, n), bool)
    if pattern == "window":
        return window_mask(n, w, causal)
    if pattern == "dilated":
        return dilated_mask(n, w, dilation, causal)
    if pattern == "global":
        return global_window_mask(n, w, global_tokens, causal)
    if pattern == "block":
        return block_mask(n, block, causal)
    raise ValueError(f"unknown pattern {pattern!r}; choose one of {', '.join(PATTERNS)}")


def pairs_computed(mask: np.ndarray, causal: bool = False) -> dict:
    """How many (query, key) pairs a mask computes, against full attention (causal: the lower triangle)."""
    n = mask.shape[0]
    full = n * (n + 1) // 2 if causal else n * n
    k = int(mask.sum())
    return {"pairs": k, "full": full, "share": k / full}


def sparse_plan(mask: np.ndarray, tile: int = 64) -> dict:
    """The pattern's fixed layout, built once (as a block-sparse kernel's is): the n x n grid is cut
    into tiles of tile x tile; each block of queries keeps only the tiles of keys where the mask has
    any pair. Query blocks that need far more tiles than most (global tokens) are computed densely."""
    mask = np.asarray(mask, bool)
    n = mask.shape[0]
    tile = max(1, min(tile, n))
    nb = -(-n // tile)
    padded = np.zeros((nb * tile, nb * tile), bool)
    padded[:n, :n] = mask
    tiles = padded.reshape(nb, tile, nb, tile).any(axis=(1, 3))  # (query blocks, key blocks)
    counts = tiles.sum(1)
    heavy = counts > 2 * max(1, int(np.median(counts)))
    light = np.flatnonzero(~heavy)
    kmax = int(counts[light].max()) if len(light) else 0
    kb = np.argsort(~tiles[light], axis=1, kind="stable")[:, :kmax]  # the key blocks each keeps
    kb_ok = np.take_along_axis(tiles[light], kb, 1)
    keys = (kb[:, :, None] * tile + np.arange(tile)).reshape(len(light), -1)  # (blocks, kmax*tile)
    queries = light[:, None] * tile + np.arange(tile)  # (blocks, tile)
    pair_ok = padded[queries[:, :, None], keys[:, None, :]] & np.repeat(kb_ok, tile, 1)[:, None, :]
    heavy_rows = np.flatnonzero(np.repeat(heavy, tile)[:n])
    return {
        "n": n,
        "tile": tile,
        "nb": nb,
        "light": torch.from_numpy(light),
        "keys": torch.from_numpy(keys),
        "ok": torch.from_numpy(pair_ok),
        "heavy_rows": torch.from_numpy(heavy_rows),
        "heavy_mask": torch.from_numpy(mask[heavy_rows]),
        "tiles": int(tiles.sum()),
        "of_tiles": nb * nb,
    }


def sparse_attention(Q, K, V, mask: np.ndarray | None = None, plan: dict | None = None):
    """softmax(QK^T/sqrt(d_k)) V over the pattern's tiles only: each block of queries meets only the
    blocks of keys it has pairs in (dense tile x tile products, masked inside), so the work grows
    with the tiles kept, not with n x n. Q, K, V: (..., n, d_k)."""
    plan = plan or sparse_plan(mask)
    n, tile, d_k = plan["n"], plan["tile"], Q.size(-1)
    pad = plan["nb"] * tile - n
    Qp, Kp, Vp = (F.pad(x, (0, 0, 0, pad)) for x in (Q, K, V))
    out = torch.zeros_like(Qp)
    light = plan["light"]
    if len(light):
        q = Qp.unflatten(-2, (plan["nb"], tile))[..., light, :, :]  # (..., blocks, tile, d_k)
        k, v = Kp[..., plan["keys"], :], Vp[..., plan["keys"], :]  # (..., blocks, kmax*tile, d_k)
        s = (q @ k.transpose(-2, -1)) / math.sqrt(d_k)
        p = torch.softmax(s.masked_fill(~plan["ok"], float("-inf")), -1).nan_to_num(0.0)  # padding rows: 0
        o = out.unflatten(-2, (plan["nb"], tile))
        o[..., light, :, :] = p @ v
    out = out[..., :n, :]
    rows = plan["heavy_rows"]
    if len(rows):
        o, _ = scaled_dot_product_attention(Q[..., rows, :], K, V, plan["heavy_mask"])
        out[..., rows, :] = o
    return out


def time_call(fn, repeats: int = 3) -> float:
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measure_pattern(
    pattern: str, n: int, heads: int = 4, d_k: int = 32, repeats: int = 3, seed: int = 0, tile: int = 64, **mask_args
) -> dict:
    """Wall time of full attention (dense, our function) or of a sparse pattern (gathered pairs only)."""
    g = torch.Generator().manual_seed(seed)
    Q, K, V = (torch.randn(heads, n, d_k, generator=g) for _ in range(3))
    mask = pattern_mask(pattern, n, **mask_args)
    with torch.no_grad():
        if pattern == "full":
            seconds = time_call(lambda: scaled_dot_product_attention(Q, K, V), repeats)
        else:
            plan = sparse_plan(mask, tile)
            seconds = time_call(lambda: sparse_attention(Q, K, V, plan=plan), repeats)
    return {"pattern": pattern, "n": n, "seconds": seconds, **pairs_computed(mask)}
