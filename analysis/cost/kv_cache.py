"""The KV cache: FLOPs per new token, cache policies (a window, StreamingLLM's sink + window) through the one GPT forward, the attention sink. (analysis/cost/: one module per section of the cost page; __init__.py lists them.)"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from .scaling import FLOAT_BYTES
from .sparse import time_call


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
