"""What attention costs, and the tricks that cut the cost: the tutorials' last chapter, runnable.

    "当序列长度超过1024时，原始自注意力的O(n²)复杂度会成为性能瓶颈。这时可以采用稀疏注意力、局部注意力等优化策略"
    "缩放因子：1/√d_k 防止点积结果过大导致softmax梯度消失"

Everything here computes with the project's own attention code (model/attention.py) and models:
- O(n²): one MultiHeadAttention layer timed, and every tensor it allocates watched (measure_layer);
  FLOPs counted by formula (layer_flops), checked against torch's FlopCounterMode in the tests.
- Sparse and local attention: the masks (sliding window, dilated, global + window, block-sparse),
  the share of pairs they compute, and an attention that only touches those pairs (sparse_attention).
- Why sqrt(d_k): spread of the scores, softmax's largest weight and the gradient reaching Q and K.
- FlashAttention's idea: the same output in key blocks with an online softmax (online_attention).
- The KV cache: generation that keeps each layer's K and V rows (model/gpt.py's KVCache, through the one GPT forward), its FLOPs per new
  token, the attention sink, and StreamingLLM's "sink + window" cache.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from model.attention import MultiHeadAttention, scaled_dot_product_attention

BENCH_FILE = Path(__file__).resolve().parent.parent / "bench" / "cost_results.json"
FLOAT_BYTES = 4
SIZES = {"ours": (128, 4), "base": (768, 12)}  # (d_model, heads): the shipped models, BERT-base / GPT-2


# -- 1. O(n²), measured ---------------------------------------------------------------------------
class AllocationWatch(torch.utils._python_dispatch.TorchDispatchMode):
    """Watches every tensor the code inside allocates: total bytes, the bytes of tensors shaped like
    an attention matrix (..., n, n), and the peak of what was alive at once (storages still referenced)."""

    def __init__(self, n: int | None = None):
        super().__init__()
        self.n, self.total, self.square, self.peak = n, 0, 0, 0
        self._live: list = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        from torch.multiprocessing.reductions import StorageWeakRef

        out = func(*args, **(kwargs or {}))
        inputs = {a.untyped_storage().data_ptr() for a in _tensors(args) + _tensors(kwargs)}
        for t in _tensors(out):
            st = t.untyped_storage()
            if st.data_ptr() in inputs or st.nbytes() == 0:  # a view of something already counted
                continue
            self.total += st.nbytes()
            if self.n and t.dim() >= 2 and t.shape[-1] == t.shape[-2] == self.n:
                self.square += st.nbytes()
            self._live.append((StorageWeakRef(st), st.nbytes()))
        self._live = [(r, b) for r, b in self._live if not r.expired()]
        self.peak = max(self.peak, sum(b for _, b in self._live))
        return out


def _tensors(x) -> list:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for a in x for t in _tensors(a)]
    if isinstance(x, dict):
        return [t for a in x.values() for t in _tensors(a)]
    return []


def attention_layer(d_model: int, heads: int, seed: int = 0) -> MultiHeadAttention:
    torch.manual_seed(seed)
    return MultiHeadAttention(d_model, heads).eval()


def layer_flops(n: int, d_model: int) -> dict:
    """Multiply-adds x 2 of one self-attention layer on n tokens (the matrix products only)."""
    projections = 4 * 2 * n * d_model * d_model  # W_q, W_k, W_v, W_o
    scores = 2 * n * n * d_model  # QK^T, all heads: h * n * n * d_k
    weighted = 2 * n * n * d_model  # weights @ V
    return {
        "projections": projections,
        "scores": scores,
        "weighted_sum": weighted,
        "total": projections + scores + weighted,
    }


def layer_bytes(n: int, d_model: int, heads: int) -> dict:
    """Bytes of one copy of the attention matrix against Q, K, V and the output (float32, batch 1)."""
    return {"attention_matrix": heads * n * n * FLOAT_BYTES, "qkv_output": 4 * n * d_model * FLOAT_BYTES}


def measure_layer(n: int, d_model: int, heads: int, repeats: int = 3, seed: int = 0) -> dict:
    """One forward of our MultiHeadAttention on n random tokens: best wall time of `repeats`, and the
    memory it allocated (watched, see AllocationWatch)."""
    layer = attention_layer(d_model, heads, seed)
    x = torch.randn(1, n, d_model, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        with AllocationWatch(n) as watch:
            layer(x, x, x)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            layer(x, x, x)
            times.append(time.perf_counter() - start)
    return {
        "n": n,
        "d_model": d_model,
        "heads": heads,
        "seconds": min(times),
        "allocated_bytes": watch.total,
        "square_bytes": watch.square,
        "peak_bytes": watch.peak,
        **layer_bytes(n, d_model, heads),
        "flops": layer_flops(n, d_model)["total"],
    }


def memory_limit_n(d_model: int, heads: int, memory_bytes: float, copies: int = 3) -> int:
    """The largest n whose `copies` attention matrices (our code makes three: QK^T, /T, softmax)
    still fit in memory_bytes."""
    return int(math.sqrt(memory_bytes / (copies * heads * FLOAT_BYTES)))


def load_bench(path: Path | None = None) -> dict | None:
    """The stored bench run (bench/cost.py writes it), or None when there is none."""
    p = Path(path) if path else BENCH_FILE
    if not p.exists():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


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


def gpu_name() -> str | None:
    """The CUDA GPU this machine has, or None: the cost page says whether one is here, rather than
    always saying there is none."""
    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


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


# -- 3. why sqrt(d_k) -----------------------------------------------------------------------------
def softmax_gradients(Q, K, V, G, scale: float):
    """out = softmax(Q K^T * scale) V and the loss sum(out * G); returns the scores, the weights and
    the gradients reaching Q and K (autograd). Q, K: (..., n, d_k)."""
    Q, K = Q.detach().clone().requires_grad_(True), K.detach().clone().requires_grad_(True)
    scores = Q @ K.transpose(-2, -1) * scale
    weights = torch.softmax(scores, -1)
    ((weights @ V) * G).sum().backward()
    return scores.detach(), weights.detach(), Q.grad, K.grad


def softmax_jacobian_norm(weights) -> torch.Tensor:
    """Per row, the Frobenius norm of softmax's own gradient dp/ds = diag(p) - p p^T: near 0 when the
    row is (almost) one-hot, so almost no gradient passes back to the scores."""
    p = weights
    jac = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
    return jac.flatten(-2).norm(dim=-1)


def scaling_sweep(d_ks=(4, 16, 64, 256, 1024), n: int = 16, trials: int = 8, seed: int = 0, dead: float = 0.01) -> dict:
    """Random Q, K, V ~ N(0, 1) at each d_k, with and without 1/sqrt(d_k): the scores' standard deviation,
    the mean largest softmax weight per row, the mean norm of softmax's gradient per row, the gradient
    norms reaching Q and K (loss sum(out*G)), and the share of queries whose gradient is below `dead` x
    the median query gradient of the scaled version on the same draw (they have stopped learning)."""
    g = torch.Generator().manual_seed(seed)
    rows = []
    for d_k in d_ks:
        acc = {True: [], False: []}
        for _ in range(trials):
            Q, K, V = (torch.randn(n, d_k, generator=g, dtype=torch.float64) for _ in range(3))
            G = torch.randn(n, d_k, generator=g, dtype=torch.float64)
            ref = None
            for scaled in (True, False):
                s, w, gq, gk = softmax_gradients(Q, K, V, G, 1 / math.sqrt(d_k) if scaled else 1.0)
                per_q = gq.norm(dim=-1)
                ref = per_q.median() if scaled else ref
                acc[scaled].append(
                    (
                        float(s.std()),
                        float(w.max(-1).values.mean()),
                        float(softmax_jacobian_norm(w).mean()),
                        float(gq.norm()),
                        float(gk.norm()),
                        float((per_q < dead * ref).double().mean()),
                    )
                )
        for scaled in (True, False):
            a = np.array(acc[scaled]).mean(0)
            rows.append(
                {
                    "d_k": d_k,
                    "scaled": scaled,
                    "score_std": a[0],
                    "max_weight": a[1],
                    "softmax_grad": a[2],
                    "grad_q": a[3],
                    "grad_k": a[4],
                    "dead_rows": a[5],
                }
            )
    return {"n": n, "trials": trials, "dead": dead, "rows": rows}


def heads_scaling(record: dict, mask=None) -> list[dict]:
    """For each layer and head of a trained model's recorded forward (model(..., record=...)), the same
    three numbers with the scaling it was trained with and without it (scores x sqrt(d_k)). The
    gradient uses a fixed random upstream gradient G (seed 0), the same for both."""
    out = []
    g = torch.Generator().manual_seed(0)
    layers = record.get("decoder") or record.get("encoder")
    for li, rec in enumerate(layers):
        att = rec.get("self_attn", rec)
        q, k, v = (att[x][0].double() for x in ("q", "k", "v"))  # (h, T, d_k)
        d_k = q.size(-1)
        bias = att.get("bias")
        G = torch.randn(v.shape, generator=g, dtype=torch.float64)
        for h in range(q.size(0)):
            res = {}
            for scaled in (True, False):
                scale = 1 / math.sqrt(d_k) if scaled else 1.0
                Qh, Kh = q[h].clone().requires_grad_(True), k[h].clone().requires_grad_(True)
                s = Qh @ Kh.T * scale
                if bias is not None:
                    s = s + bias[h].double()
                if mask is not None:
                    s = s.masked_fill(~torch.as_tensor(mask), float("-inf"))
                w = torch.softmax(s, -1)
                ((w @ v[h]) * G[h]).sum().backward()
                finite = s.detach()[torch.isfinite(s.detach())]
                wd = w.detach()
                rows = torch.isfinite(s.detach()).sum(-1) > 1  # a row that sees one key has no choice
                res[scaled] = (
                    float(finite.std()),
                    float(wd.max(-1).values[rows].mean()),
                    float(Qh.grad.norm()),
                    float(Kh.grad.norm()),
                    float(softmax_jacobian_norm(wd)[rows].mean()),
                )
            out.append(
                {
                    "layer": li,
                    "head": h,
                    "d_k": d_k,
                    **{
                        f"{name}_{'scaled' if sc else 'unscaled'}": res[sc][i]
                        for sc in (True, False)
                        for i, name in enumerate(("score_std", "max_weight", "grad_q", "grad_k", "softmax_grad"))
                    },
                }
            )
    return out


# -- 4. FlashAttention's idea: key blocks and an online softmax -----------------------------------
@dataclass
class OnlineResult:
    output: torch.Tensor
    block: int
    steps: list = field(default_factory=list)  # per key block: running max and sum of one query row
    largest_bytes: int = 0  # the largest score tile held at once


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


def distinct_query_on(runner, text: str, layer: int) -> dict:
    """distinct_heads_query on the text's own self-attention layer, with the score of every row."""
    r = self_attention_record(runner, text)
    w = r["layers"][layer]["weights"][0].float().numpy()
    score = heads_disagreement(w, r["mask"])
    return {"query": int(np.argmax(score)), "disagreement": score, "tokens": r["tokens"]}


# -- 6. the KV cache ------------------------------------------------------------------------------
def gpt_flops_per_token(t: int, config, cached: bool) -> dict:
    """FLOPs (2 x multiply-adds of the matrix products) to get the logits of the next token when t
    tokens have been read. Without the cache the model re-reads all t tokens (our GPT's forward with
    last_only=True: every position through the layers, every pair scored, the logits of the last
    position only, all a next token needs; counting the logits at every position would inflate the
    saving, 128x instead of 102x at t = 128); with it, only the newest token goes through the layers
    and its query meets the t cached keys (at most `window` of them for a sliding-window model)."""
    d, ff, V, L = config.d_model, config.d_ff, config.vocab_size, config.num_layers
    keys = min(t, config.window) if getattr(config, "window", 0) else t
    if cached:
        per_layer = 2 * 4 * d * d + 2 * 2 * d * ff + 2 * 2 * keys * d
        return {"layers": L * per_layer, "logits": 2 * d * V, "total": L * per_layer + 2 * d * V}
    # our forward scores every pair and masks afterwards, so without the cache a window saves nothing
    per_layer = t * (2 * 4 * d * d + 2 * 2 * d * ff) + 2 * 2 * t * t * d
    return {"layers": L * per_layer, "logits": 2 * d * V, "total": L * per_layer + 2 * d * V}


@dataclass
class CachePolicy:
    """Which K, V rows a layer keeps: all ("full"), or StreamingLLM's first `sink` rows plus the last
    `window` rows (sink 0: a plain sliding window)."""

    kind: str = "full"
    sink: int = 0
    window: int = 0

    def keep(self, positions: list[int]) -> list[int]:
        """Indices (into the cache) of the rows kept after a new row was appended."""
        if self.kind == "full" or len(positions) <= self.sink + self.window:
            return list(range(len(positions)))
        return list(range(self.sink)) + list(range(len(positions) - self.window, len(positions)))


def new_cache(runner, policy: CachePolicy | None = None):
    """An empty KV cache for runner's GPT (model/gpt.py's KVCache) under policy. A sliding-window
    model never looks further back than its window, so its cache keeps only `window` rows."""
    policy = policy or CachePolicy()
    window = getattr(runner.config, "window", 0)
    if window and policy.kind == "full":
        policy = CachePolicy("window", 0, window)
    return runner.new_cache(policy.keep)


def read_token(runner, cache, token_id: int):
    """Read one more token through the cache: (logits (vocab,), its row's attention per layer (L, h, rows))."""
    logits, weights = runner.read_cached([token_id], cache)
    return logits[-1], weights[:, :, -1]


def kv_cache_bytes(config, rows: int) -> int:
    """K and V, every layer, float32: 2 x layers x rows x d_model x 4 bytes."""
    return 2 * config.num_layers * rows * config.d_model * FLOAT_BYTES


def stream_nll(runner, ids: list[int], policy: CachePolicy) -> np.ndarray:
    """-log p of each token after the first, read one at a time through a KV cache with `policy`."""
    cache = new_cache(runner, policy)
    out = []
    for i, tok in enumerate(ids[:-1]):
        logits, _ = read_token(runner, cache, tok)
        out.append(-float(torch.log_softmax(logits.double(), -1)[ids[i + 1]]))
    return np.array(out)


def stream_greedy(runner, ids: list[int], n_new: int, policy: CachePolicy, eos: int | None = None) -> list[int]:
    """Greedy continuation of ids through a KV cache with `policy`; returns the new ids."""
    cache = new_cache(runner, policy)
    for tok in ids[:-1]:
        read_token(runner, cache, tok)
    new, tok = [], ids[-1]
    for _ in range(n_new):
        if cache.t >= runner.config.max_seq_len:
            break
        logits, _ = read_token(runner, cache, tok)
        tok = int(logits.argmax())
        new.append(tok)
        if eos is not None and tok == eos:
            break
    return new


def generation_timing(runner, ids: list[int], repeats: int = 3) -> dict:
    """Seconds to get the logits of each next token, re-reading everything (no cache; the last
    position's logits only, next_token_logits) and with the cache (one token through the KV cache),
    for t = 1 .. len(ids); the same forward both ways."""
    no_cache = [time_call(lambda: runner.next_token_logits(ids[:t]), repeats) for t in range(1, len(ids) + 1)]
    best = [math.inf] * len(ids)
    for _ in range(repeats):
        cache = new_cache(runner)
        for t, tok in enumerate(ids):
            start = time.perf_counter()
            read_token(runner, cache, tok)
            best[t] = min(best[t], time.perf_counter() - start)
    return {"t": list(range(1, len(ids) + 1)), "no_cache": no_cache, "cache": best}


def sink_share(weights: np.ndarray) -> np.ndarray:
    """(layers, heads, T, T) attention -> (layers, heads): the mean weight rows 1..T-1 put on position 0
    (row 0 can only look at itself)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape[-2] < 2:
        return np.zeros(w.shape[:2])
    return w[..., 1:, 0].mean(-1)


# -- on the user's sentence, with a shipped model (numpy out, for the page's caches) ----------------
def self_attention_record(runner, text: str) -> dict:
    """One recorded forward of text: the self-attention layers' tensors (the GPT's masked
    self-attention, the translator's encoder), its tokens and mask."""
    rec: dict = {}
    tr = runner.trace(text, record=rec)
    kind = "decoder" if runner.kind == "gpt" else "encoder"
    att = tr.attention[kind]
    layers = [r["self_attn"] for r in rec[kind]]
    return {"kind": kind, "tokens": att.query_tokens, "mask": att.mask, "layers": layers}


def heads_scaling_table(runner, text: str) -> list[dict]:
    r = self_attention_record(runner, text)
    return heads_scaling({"decoder": r["layers"]}, r["mask"])


def search_on(runner, text: str, layer: int, head: int, query: int) -> dict:
    """search_example on the text's own vectors, plus every head of that layer and the merged output."""
    r = self_attention_record(runner, text)
    a = r["layers"][layer]
    ex = search_example(a, head, query)
    return {
        **ex,
        "tokens": r["tokens"],
        "mask": r["mask"],
        "kind": r["kind"],
        "layer_weights": a["weights"][0].float().numpy(),  # (h, T, T)
        "head_outputs": a["head_outputs"][0, :, query].double().numpy(),  # (h, d_k): each head's answer
        "concat": a["concat"][0, query].double().numpy(),  # (d_model,)
        "merged": a["output"][0, query].double().numpy(),
    }  # W_O concat


def online_on(runner, text: str, layer: int, head: int, block: int, row: int) -> dict:
    """The blockwise online softmax on one trained head's q, k, v (and its mask), against ours."""
    r = self_attention_record(runner, text)
    a = r["layers"][layer]
    q, k, v = (a[x][0, head] for x in ("q", "k", "v"))
    res = online_attention(q, k, v, block, r["mask"], watch_row=row)
    ref, _ = scaled_dot_product_attention(q, k, v, None if r["mask"] is None else torch.as_tensor(r["mask"]))
    return {
        "tokens": r["tokens"],
        "max_abs_diff": float((ref - res.output).abs().max()),
        "steps": res.steps,
        "matrix_bytes": q.size(0) * k.size(0) * FLOAT_BYTES,
        "tile_bytes": res.largest_bytes,
        "alibi": a.get("bias") is not None,
    }  # ALiBi's bias: both sides here are computed without it


def kv_cache_state(runner, ids: list[int], policy: CachePolicy | None = None) -> dict:
    """Read ids one at a time through a KV cache: each layer's K and V rows at the end (numpy,
    (layers, rows, d_model) with heads side by side), the rows' positions, and the last row's attention."""
    cache = new_cache(runner, policy)
    attention = None
    for tok in ids:
        _, attention = read_token(runner, cache, tok)

    def side_by_side(x):  # (1, h, rows, d_k) -> (rows, h * d_k)
        return x[0].permute(1, 0, 2).reshape(x.size(2), -1).float().cpu().numpy()

    return {
        "k": np.stack([side_by_side(x) for x in cache.k]),
        "v": np.stack([side_by_side(x) for x in cache.v]),
        "positions": list(cache.positions),
        "attention": attention,
        "bytes": kv_cache_bytes(runner.config, cache.rows()),
    }


def streaming_compare(runner, ids: list[int], prompt_len: int, n_new: int, policies: dict, eos=None) -> dict:
    """For each named CachePolicy: the mean -log p per token of ids (read one at a time) and the greedy
    continuation of ids[:prompt_len]."""
    out = {}
    for name, policy in policies.items():
        nll = stream_nll(runner, ids, policy)
        out[name] = {
            "nll": float(nll.mean()),
            "nll_tokens": nll,
            "continuation": stream_greedy(runner, ids[:prompt_len], n_new, policy, eos),
        }
    return out


def bench_summary(bench: dict, n: int = 1024, key: str = "base") -> dict | None:
    """What the stored run says at n tokens for one layer size: time, peak, bytes, the n² share of
    the FLOPs, and how time and peak grew from n to 2n."""
    rows = {r["n"]: r for r in bench["layers"]["rows"].get(key, [])}
    if n not in rows:
        return None
    r, r2 = rows[n], rows.get(2 * n)
    d, h = r["d_model"], r["heads"]
    f = layer_flops(n, d)
    return {
        "ms": r["seconds"] * 1e3,
        "peak_mb": r["peak_bytes"] / 1e6,
        "matrix_mb": r["attention_matrix"] / 1e6,
        "qkv_mb": r["qkv_output"] / 1e6,
        "layers_mb": 12 * r["attention_matrix"] / 1e6,
        "square_gflop": (f["scores"] + f["weighted_sum"]) / 1e9,
        "square_share": (f["scores"] + f["weighted_sum"]) / f["total"],
        "ratio_t": r2["seconds"] / r["seconds"] if r2 else float("nan"),
        "ratio_m": r2["peak_bytes"] / r["peak_bytes"] if r2 else float("nan"),
        "copies": r["square_bytes"] / r["attention_matrix"],
        "heads": h,
        "d_model": d,
    }


def blockwise_timing(n: int, heads: int = 12, d_k: int = 64, block: int = 128, seed: int = 0) -> dict:
    """Our attention against the blockwise online softmax on random Q, K, V: the largest difference,
    the bytes of the n x n scores against the largest tile, and both wall times (best of 2)."""
    g = torch.Generator().manual_seed(seed)
    Q, K, V = (torch.randn(heads, n, d_k, generator=g) for _ in range(3))
    with torch.no_grad():
        c = online_check(Q, K, V, block)
        ours = time_call(lambda: scaled_dot_product_attention(Q, K, V), 2)
        online = time_call(lambda: online_attention(Q, K, V, block), 2)
    return {
        "n": n,
        "block": block,
        "max_abs_diff": c["max_abs_diff"],
        "matrix_bytes": c["matrix_bytes"],
        "tile_bytes": c["tile_bytes"],
        "ours_s": ours,
        "online_s": online,
    }


def nll_by_length(runner, n: int = 300, seed: int = 1234) -> dict:
    """Mean -log p per held-out item (evaluate's items), split into one-sentence items and two-sentence
    stories, whose pronoun refers back further than a short window reaches."""
    from data import corpus

    pairs = corpus.heldout_pairs(n, seed)
    items = [p.en if i % 2 == 0 else p.zh for i, p in enumerate(pairs)]
    two = [t for t in items if ". " in t or t.count("。") > 1]
    one = [t for t in items if t not in two]
    return {
        "one": float(runner.nll(one).mean()),
        "two": float(runner.nll(two).mean()),
        "n_one": len(one),
        "n_two": len(two),
    }
