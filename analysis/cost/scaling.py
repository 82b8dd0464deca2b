"""O(n²), measured: one attention layer timed and its allocations watched, FLOPs and bytes by formula, the measured curves (data/cost_results.json). (analysis/cost/: one module per section of the cost page; __init__.py lists them.)"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import torch

from model.attention import MultiHeadAttention

# the app reads it at run time, so it lives with the app's code, not in bench/ (which .dockerignore
# keeps out of the image); bench/cost.py writes it here
BENCH_FILE = Path(__file__).resolve().parents[1] / "data" / "cost_results.json"
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
