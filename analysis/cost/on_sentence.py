"""The sections on the user's sentence with a shipped model (numpy out, for the page's caches), and the measured summaries. (analysis/cost/: one module per section of the cost page; __init__.py lists them.)"""

from __future__ import annotations

import numpy as np
import torch

from model.attention import scaled_dot_product_attention

from ..timeline import pronoun_and_noun
from .kv_cache import CachePolicy, kv_cache_bytes, new_cache, read_token, stream_greedy, stream_nll
from .online import online_attention, online_check
from .qkv import heads_disagreement, search_example
from .scaling import FLOAT_BYTES, layer_flops
from .sparse import time_call
from .sqrt_dk import heads_scaling


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
    back = []  # per story: tokens from its pronoun's row back to the last token of the noun it means
    for text in two:
        found = pronoun_and_noun(runner.tokenizer, text, "zh" if "。" in text else "en")
        back.append(None if found is None else found[1] - max(found[2]))
    return {
        "one": float(runner.nll(one).mean()),
        "two": float(runner.nll(two).mean()),
        "n_one": len(one),
        "n_two": len(two),
        "back": back,
    }


def distinct_query_on(runner, text: str, layer: int) -> dict:
    """distinct_heads_query on the text's own self-attention layer, with the score of every row."""
    r = self_attention_record(runner, text)
    w = r["layers"][layer]["weights"][0].float().numpy()
    score = heads_disagreement(w, r["mask"])
    return {"query": int(np.argmax(score)), "disagreement": score, "tokens": r["tokens"]}
