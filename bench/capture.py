"""Cost of capturing attention: our models compute attention in the open (the tutorial's
softmax(QK^T / sqrt(d_k)) V, weights returned); the same forward through PyTorch's fused
torch.nn.functional.scaled_dot_product_attention returns none. Same weights, same input, same
process, A and B interleaved; the ratio of medians is the price of showing the attention.
"""

from __future__ import annotations

import math
import statistics
import time
from contextlib import contextmanager

import torch
import torch.nn.functional as F

from model import attention as attention_module
from model.config import ModelConfig
from model.gpt import GPT


def fused(Q, K, V, mask=None, temperature=1.0, bias=None):
    """The fused kernel in the tutorial function's place: same output, no weights."""
    d_k = Q.size(-1)
    attn_mask = mask
    if bias is not None:
        attn_mask = bias if mask is None else bias.masked_fill(~mask, float("-inf"))
    out = F.scaled_dot_product_attention(Q, K, V, attn_mask=attn_mask, scale=1.0 / (math.sqrt(d_k) * temperature))
    return out, Q.new_empty(0)


@contextmanager
def fused_attention():
    original = attention_module.scaled_dot_product_attention
    attention_module.scaled_dot_product_attention = fused
    try:
        yield
    finally:
        attention_module.scaled_dot_product_attention = original


CASES = {
    # the shipped GPT preset at its full length
    "gpt preset (3 layers x 4 heads, d 128), 128 tokens": (
        ModelConfig(
            arch="gpt",
            d_model=128,
            num_heads=4,
            num_layers=3,
            d_ff=512,
            max_seq_len=128,
            vocab_size=4000,
            positional="learned",
        ),
        128,
    ),
    # the views' synthetic size
    "6 layers x 12 heads, d 768, 512 tokens": (
        ModelConfig(
            arch="gpt",
            d_model=768,
            num_heads=12,
            num_layers=6,
            d_ff=3072,
            max_seq_len=512,
            vocab_size=4000,
            positional="learned",
        ),
        512,
    ),
}


def _time(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def run(reps=15, threads=1, log=print) -> list[dict]:
    """reps forwards of each kind for the small case; a fifth as many (at least 2) for the large."""
    torch.manual_seed(0)
    old_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    rows = []
    try:
        for name, (config, n) in CASES.items():
            m = GPT(config).eval()
            ids = torch.randint(0, config.vocab_size, (1, n))
            with torch.no_grad():
                logits_a, w = m(ids)
                with fused_attention():
                    logits_b, _ = m(ids)
            assert w["decoder"].shape == (config.num_layers, 1, config.num_heads, n, n)
            diff = (logits_a - logits_b).abs().max().item()
            a, b = [], []
            with torch.no_grad():
                for _ in range(
                    reps if n <= 128 else max(2, reps // 5)
                ):  # interleaved, so drift on a shared machine hits both
                    a += _time(lambda: m(ids), 1)
                    with fused_attention():
                        b += _time(lambda: m(ids), 1)
            ra, rb = statistics.median(a), statistics.median(b)
            rows.append(
                {
                    "case": name,
                    "with_weights_ms": ra * 1e3,
                    "fused_ms": rb * 1e3,
                    "ratio": ra / rb,
                    "max_logit_diff": diff,
                    "reps": len(a),
                    "threads": threads,
                }
            )
            log(
                f"  capture {name}: {ra * 1e3:.1f} ms vs fused {rb * 1e3:.1f} ms = {ra / rb:.2f}x "
                f"(logits differ by at most {diff:.1e})"
            )
    finally:
        torch.set_num_threads(old_threads)
    return rows
