"""FlashAttention's idea: the same output in key blocks with an online softmax, checked against the full softmax. (analysis/cost/: one module per section of the cost page; __init__.py lists them.)"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from model.attention import scaled_dot_product_attention


# -- 4. FlashAttention's idea: key blocks and an online softmax -----------------------------------
@dataclass
class OnlineResult:
    output: torch.Tensor
    block: int
    steps: list = field(default_factory=list)  # per key block: running max and sum of one query row
    largest_bytes: int = 0  # the largest score tile held at once


def gpu_name() -> str | None:
    """The CUDA GPU this machine has, or None: the cost page says whether one is here, rather than
    always saying there is none (its blockwise times are measured on the CPU either way)."""
    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


def online_attention(Q, K, V, block: int = 4, mask=None, watch_row: int = 0) -> OnlineResult:
    """softmax(QK^T/sqrt(d_k)) V computed one block of keys at a time, never building the n x n matrix:
    for each block, scores S (n_q x block); m' = max(m, rowmax S); l' = l e^(m - m') + sum e^(S - m');
    acc' = acc e^(m - m') + e^(S - m') V_block; at the end, output = acc / l.
    mask: (n_q, n_k) bool, False where a query may not look."""
    n_k, d_k = K.size(-2), Q.size(-1)
    m = torch.full(Q.shape[:-1] + (1,), float("-inf"), dtype=Q.dtype)
    l = torch.zeros(Q.shape[:-1] + (1,), dtype=Q.dtype)
    acc = torch.zeros(Q.shape[:-1] + (V.size(-1),), dtype=Q.dtype)
    res = OnlineResult(acc, block)
    for start in range(0, n_k, block):
        Kb, Vb = K[..., start : start + block, :], V[..., start : start + block, :]
        S = Q @ Kb.transpose(-2, -1) / math.sqrt(d_k)
        if mask is not None:
            S = S.masked_fill(~torch.as_tensor(mask)[:, start : start + block], float("-inf"))
        res.largest_bytes = max(res.largest_bytes, S.numel() * S.element_size())
        m_new = torch.maximum(m, S.amax(-1, keepdim=True))
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)  # a row with nothing yet
        P = torch.exp(S - safe)
        rescale = torch.exp(m - safe)
        l = l * rescale + P.sum(-1, keepdim=True)
        acc = acc * rescale + P @ Vb
        m = m_new
        first = (0,) * (Q.dim() - 2)
        res.steps.append(
            {
                "keys": (start, min(start + block, n_k)),
                "max": float(m[first + (watch_row, 0)]),
                "sum": float(l[first + (watch_row, 0)]),
            }
        )
    res.output = acc / l
    return res


def online_check(Q, K, V, block: int, mask=None) -> dict:
    """Our scaled_dot_product_attention against the blockwise one: the largest difference and the bytes."""
    ref, _ = scaled_dot_product_attention(Q, K, V, None if mask is None else torch.as_tensor(mask))
    res = online_attention(Q, K, V, block, mask)
    n_q, n_k = Q.size(-2), K.size(-2)
    lead = int(np.prod(Q.shape[:-2])) if Q.dim() > 2 else 1
    return {
        "max_abs_diff": float((ref - res.output).abs().max()),
        "block": block,
        "n": n_k,
        "matrix_bytes": lead * n_q * n_k * Q.element_size(),
        "tile_bytes": res.largest_bytes,
        "steps": res.steps,
    }
