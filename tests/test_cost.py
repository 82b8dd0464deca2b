"""analysis/cost/ against independent oracles: masks by their definitions (loops), attention by PyTorch's
own F.scaled_dot_product_attention, FLOPs by torch's FlopCounterMode, gradients by the softmax Jacobian
in numpy, the KV cache by the model's full forward. Small sizes only; timings live in bench/cost.py."""

import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

import model
from analysis import cost
from model.config import ModelConfig
from model.tokenizer import BOS, EOS


def loop_mask(n, allowed):
    return np.array([[bool(allowed(i, j)) for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("n,w,r,b", [(1, 1, 1, 1), (7, 3, 2, 2), (13, 2, 3, 4), (20, 5, 1, 3)])
@pytest.mark.parametrize("causal", [False, True])
def test_masks_match_their_definitions(n, w, r, b, causal):
    c = (lambda i, j: j <= i) if causal else (lambda i, j: True)
    g = {0, n // 2}
    assert np.array_equal(cost.window_mask(n, w, causal), loop_mask(n, lambda i, j: abs(i - j) < w and c(i, j)))
    assert np.array_equal(
        cost.dilated_mask(n, w, r, causal),
        loop_mask(n, lambda i, j: abs(i - j) < w * r and (i - j) % r == 0 and c(i, j)),
    )
    assert np.array_equal(
        cost.global_window_mask(n, w, sorted(g), causal),
        loop_mask(n, lambda i, j: (abs(i - j) < w or i in g or j in g) and c(i, j)),
    )
    assert np.array_equal(
        cost.block_mask(n, b, causal),
        loop_mask(n, lambda i, j: (abs(i // b - j // b) <= 1 or i < b or j < b) and c(i, j)),
    )


def test_window_mask_is_the_models_sliding_window():
    from model.blocks import sliding_window_mask

    for n, w in ((9, 4), (5, 1), (12, 12)):
        assert np.array_equal(sliding_window_mask(n, w)[0, 0].numpy(), cost.window_mask(n, w, causal=True))


def test_share_of_pairs_counts_the_mask():
    m = cost.window_mask(10, 3)
    assert cost.pairs_computed(m) == {"pairs": 10 + 2 * 9 + 2 * 8, "full": 100, "share": 0.44}
    m = cost.window_mask(10, 3, causal=True)
    assert cost.pairs_computed(m, causal=True)["share"] == pytest.approx((10 + 9 + 8) / 55)


@pytest.mark.parametrize("pattern", cost.PATTERNS)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("tile", [1, 4, 7, 64])
def test_sparse_attention_equals_pytorch_with_the_mask(pattern, causal, tile):
    g = torch.Generator().manual_seed(1)
    Q, K, V = (torch.randn(3, 37, 16, generator=g) for _ in range(3))
    mask = cost.pattern_mask(pattern, 37, w=3, dilation=2, block=5, global_tokens=(0, 20), causal=causal)
    ref = F.scaled_dot_product_attention(Q, K, V, attn_mask=torch.from_numpy(mask))
    out = cost.sparse_attention(Q, K, V, plan=cost.sparse_plan(mask, tile))
    assert (out - ref).abs().max() <= 1e-6


def test_sparse_plan_keeps_fewer_tiles_than_full():
    plan = cost.sparse_plan(cost.window_mask(512, 8), tile=64)
    assert plan["of_tiles"] == 64 and plan["tiles"] == 8 + 2 * 7  # the diagonal and its two neighbours


@pytest.mark.parametrize("block", [1, 3, 8, 50])
@pytest.mark.parametrize("causal", [False, True])
def test_online_softmax_equals_pytorch_and_never_holds_the_matrix(block, causal):
    g = torch.Generator().manual_seed(2)
    Q, K, V = (torch.randn(4, 50, 32, generator=g) for _ in range(3))
    mask = np.tri(50, dtype=bool) if causal else None
    ref = F.scaled_dot_product_attention(Q, K, V, is_causal=causal)
    res = cost.online_attention(Q, K, V, block, mask)
    assert (res.output - ref).abs().max() <= 1e-6
    assert res.largest_bytes == 4 * 50 * min(block, 50) * 4  # one (heads, n_q, block) tile
    # the running max and sum of row 0 after the last block are the row's max score and softmax denominator
    s = (Q[0, 0] @ K[0].T / math.sqrt(32)).double()
    if causal:
        s = s[:1]
    assert res.steps[-1]["max"] == pytest.approx(float(s.max()), rel=1e-6)
    assert res.steps[-1]["sum"] == pytest.approx(float(torch.exp(s - s.max()).sum()), rel=1e-5)


def test_online_check_reports_the_bytes_not_needed():
    g = torch.Generator().manual_seed(3)
    Q, K, V = (torch.randn(2, 64, 8, generator=g) for _ in range(3))
    c = cost.online_check(Q, K, V, 16)
    assert c["matrix_bytes"] == 2 * 64 * 64 * 4 and c["tile_bytes"] == 2 * 64 * 16 * 4 and c["max_abs_diff"] < 1e-6


@pytest.mark.parametrize("n,d,h", [(10, 32, 4), (33, 64, 8)])
def test_layer_flops_match_torch_flop_counter(n, d, h):
    layer = cost.attention_layer(d, h)
    x = torch.randn(1, n, d)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        layer(x, x, x)
    assert cost.layer_flops(n, d)["total"] == counter.get_total_flops()


def test_layer_bytes_and_memory_limit():
    b = cost.layer_bytes(1024, 768, 12)
    assert b["attention_matrix"] == 12 * 1024 * 1024 * 4 and b["qkv_output"] == 4 * 1024 * 768 * 4
    n = cost.memory_limit_n(768, 12, 24 * 2**30, copies=4)
    assert 4 * 12 * n * n * 4 <= 24 * 2**30 < 4 * 12 * (n + 1) ** 2 * 4


def test_allocation_watch_counts_total_square_and_peak():
    n = 32
    with cost.AllocationWatch(n) as w:
        a = torch.ones(n, n)
        b = a * 2
        del a
        c = b + 1
        v = torch.ones(3, n)
    assert w.total == (3 * n * n + 3 * n) * 4
    assert w.square == 3 * n * n * 4
    assert w.peak == (2 * n * n + 3 * n) * 4  # a was freed before c was made
    del b, c, v


def test_measure_layer_sees_the_attention_matrices():
    r = cost.measure_layer(64, 32, 4, repeats=1)
    assert r["square_bytes"] % r["attention_matrix"] == 0 and r["square_bytes"] >= 2 * r["attention_matrix"]
    assert r["peak_bytes"] >= r["attention_matrix"] and r["seconds"] > 0


def test_softmax_gradients_match_the_jacobian_in_numpy():
    g = torch.Generator().manual_seed(4)
    Q, K, V, G = (torch.randn(6, 8, generator=g, dtype=torch.float64) for _ in range(4))
    scale = 1 / math.sqrt(8)
    s, w, gq, gk = cost.softmax_gradients(Q, K, V, G, scale)
    q, k, v, gg = (x.numpy() for x in (Q, K, V, G))
    S = q @ k.T * scale
    P = np.exp(S - S.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    dP = gg @ v.T
    dS = np.stack([(np.diag(p) - np.outer(p, p)) @ d for p, d in zip(P, dP)])  # softmax's Jacobian, row by row
    assert np.allclose(gq.numpy(), dS @ k * scale) and np.allclose(gk.numpy(), dS.T @ q * scale)
    jac = [np.linalg.norm(np.diag(p) - np.outer(p, p)) for p in P]
    assert np.allclose(cost.softmax_jacobian_norm(w).numpy(), jac)


def test_scaling_sweep_numbers_recomputed():
    sw = cost.scaling_sweep(d_ks=(4, 256), n=8, trials=2, seed=5)
    rows = {(r["d_k"], r["scaled"]): r for r in sw["rows"]}
    # the same draws, recomputed in numpy: unscaled spread ~ sqrt(d_k), scaled ~ 1; vanished queries
    g = torch.Generator().manual_seed(5)
    for d_k in (4, 256):
        stds, dead = {True: [], False: []}, []
        for _ in range(2):
            Q, K, V, G = (torch.randn(8, d_k, generator=g, dtype=torch.float64).numpy() for _ in range(4))
            per_q = {}
            for scaled in (True, False):
                S = Q @ K.T / (math.sqrt(d_k) if scaled else 1.0)
                P = np.exp(S - S.max(1, keepdims=True))
                P /= P.sum(1, keepdims=True)
                dS = P * (G @ V.T - (P * (G @ V.T)).sum(1, keepdims=True))
                per_q[scaled] = np.linalg.norm(dS @ K / (math.sqrt(d_k) if scaled else 1.0), axis=1)
                stds[scaled].append(S.std(ddof=1))
            dead.append(np.mean(per_q[False] < 0.01 * np.median(per_q[True])))
        for scaled in (True, False):
            assert rows[(d_k, scaled)]["score_std"] == pytest.approx(np.mean(stds[scaled]), rel=1e-9)
        assert rows[(d_k, False)]["dead_rows"] == pytest.approx(np.mean(dead))
    assert rows[(256, False)]["max_weight"] > 0.8 > 0.5 > rows[(256, True)]["max_weight"]
    assert rows[(256, False)]["softmax_grad"] < rows[(256, True)]["softmax_grad"]


def test_trained_heads_scaling_removes_exactly_sqrt_dk(random_runner):
    m = random_runner("gpt")
    rows = cost.heads_scaling_table(m, "The cat sat on the mat")
    assert len(rows) == m.config.num_layers * m.config.num_heads
    for r in rows:
        assert r["score_std_unscaled"] == pytest.approx(r["score_std_scaled"] * math.sqrt(r["d_k"]), rel=1e-9)


@pytest.mark.parametrize("name", ["gpt", "gpt-rope", "gpt-alibi", "gpt-local"])
def test_kv_cache_gives_the_full_forwards_logits_and_attention(random_runner, name):
    m = random_runner(name)
    ids = [BOS] + m.tokenizer.encode("The bed was near the chair. It was new.")
    with torch.no_grad():
        full, w = m.module(torch.tensor([ids]))
    cache = cost.new_cache(m)
    for i, tok in enumerate(ids):
        logits, rows = cost.read_token(m, cache, tok)
        assert (logits - full[0, i]).abs().max() < 1e-4
        keep = cache.positions
        assert np.allclose(rows, w["decoder"][:, 0, :, i, keep].numpy(), atol=1e-5)
    assert cache.rows() == (min(len(ids), m.config.window) if m.config.window else len(ids))


@pytest.mark.parametrize("name", ["gpt", "gpt-rope", "gpt-alibi", "gpt-local"])
def test_reading_a_text_in_chunks_through_the_cache_gives_the_full_forward(random_runner, name):
    """The one GPT forward with a cache: three tokens, then the rest in one call, equals one call."""
    m = random_runner(name)
    ids = [BOS] + m.tokenizer.encode("The dog saw the cat in the garden.")
    with torch.no_grad():
        full, w = m.module(torch.tensor([ids]))
    cache = m.new_cache()
    m.read_cached(ids[:3], cache)
    logits, rows = m.read_cached(ids[3:], cache)
    assert (logits - full[0, 3:]).abs().max() < 1e-4
    assert np.allclose(rows, w["decoder"][:, 0, :, 3:].numpy(), atol=1e-5)


def test_stream_nll_with_a_full_cache_is_the_models_nll(random_runner):
    m = random_runner("gpt")
    text = "The cat sat on the mat. It was happy."
    ids = [BOS] + m.tokenizer.encode(text) + [EOS]
    assert cost.stream_nll(m, ids, cost.CachePolicy()).sum() == pytest.approx(float(m.nll([text])[0]), rel=1e-4)


def test_cache_policies_keep_sink_and_window():
    p = cost.CachePolicy("sink", 2, 3)
    assert p.keep(list(range(4))) == [0, 1, 2, 3]
    assert p.keep(list(range(9))) == [0, 1, 6, 7, 8]
    assert cost.CachePolicy("window", 0, 3).keep(list(range(9))) == [6, 7, 8]
    gpt = model.load("gpt", device="cpu", random_weights=True)
    cache = cost.new_cache(gpt, cost.CachePolicy("sink", 1, 2))
    for tok in [BOS, 5, 6, 7, 8, 9]:
        cost.read_token(gpt, cache, tok)
    assert cache.positions == [0, 4, 5]


@pytest.mark.parametrize("name", ["gpt", "gpt-local"])
@pytest.mark.parametrize("t", [1, 5, 12])
def test_flops_per_token_match_torch_flop_counter(random_runner, name, t):
    m = random_runner(name)
    ids = list(range(10, 10 + t))
    with torch.no_grad(), FlopCounterMode(display=False) as full:
        m.module(torch.tensor([ids]), last_only=True)  # re-read everything, the last position's logits only
    assert cost.gpt_flops_per_token(t, m.config, cached=False)["total"] == full.get_total_flops()
    cache = cost.new_cache(m)
    for tok in ids[:-1]:
        cost.read_token(m, cache, tok)
    with FlopCounterMode(display=False) as one:
        cost.read_token(m, cache, ids[-1])
    assert cost.gpt_flops_per_token(t, m.config, cached=True)["total"] == one.get_total_flops()


def test_kv_saving_counts_the_last_positions_logits_only(random_runner):
    """Without the cache a next token needs the last position's logits only: at t = 128 the saving is
    about 102x, not the 128x that counting logits at every position gave (issue 23)."""
    c = random_runner("gpt").config
    no, yes = (cost.gpt_flops_per_token(128, c, cached)["total"] for cached in (False, True))
    assert 100 < no / yes < 104
    m = random_runner("gpt").module
    ids = torch.tensor([list(range(10, 30))])
    with torch.no_grad():
        full, _ = m(ids)
        last, _ = m(ids, last_only=True)
    assert last.shape[1] == 1 and torch.allclose(last[0, 0], full[0, -1], atol=1e-5)


def test_kv_cache_bytes_are_the_tensors_bytes(random_runner):
    m = random_runner("gpt")
    ids = [BOS] + m.tokenizer.encode("The cat sat on the mat")
    s = cost.kv_cache_state(m, ids)
    assert s["k"].shape == (m.config.num_layers, len(ids), m.config.d_model)
    assert s["bytes"] == s["k"].astype(np.float32).nbytes + s["v"].astype(np.float32).nbytes


def test_sink_share_is_the_mean_weight_on_the_first_token():
    rng = np.random.default_rng(0)
    w = rng.random((2, 3, 5, 5))
    w /= w.sum(-1, keepdims=True)
    shares = cost.sink_share(w)
    for la in range(2):
        for h in range(3):
            assert shares[la, h] == pytest.approx(sum(w[la, h, i, 0] for i in range(1, 5)) / 4)


def test_bench_summary_reads_the_stored_run(tmp_path):
    rows = [
        {
            "n": n,
            "d_model": 768,
            "heads": 12,
            "seconds": 0.001 * n,
            "peak_bytes": 10 * n * n,
            "square_bytes": 4 * 12 * n * n * 4,
            **cost.layer_bytes(n, 768, 12),
            "flops": 0,
        }
        for n in (1024, 2048)
    ]
    p = tmp_path / "b.json"
    p.write_text(json.dumps({"layers": {"rows": {"base": rows}}}))
    s = cost.bench_summary(cost.load_bench(p))
    assert s["matrix_mb"] == pytest.approx(12 * 1024**2 * 4 / 1e6) and s["copies"] == 4
    assert s["ratio_t"] == pytest.approx(2.0) and s["ratio_m"] == pytest.approx(4.0)
    assert s["square_share"] == pytest.approx(4 * 1024 * 768 / (4 * 1024 * 768 + 8 * 768**2))


def test_stored_bench_run_is_complete_and_dated():
    b = cost.load_bench()
    assert b is not None and b["date"] and b["machine"] and b["load_before"]
    for key, (d, h) in cost.SIZES.items():
        rows = b["layers"]["rows"][key]
        assert rows[0]["n"] == 16 and (rows[-1]["n"] == 4096 or key in b["layers"]["stopped"])
        for r in rows:
            assert r["attention_matrix"] == h * r["n"] ** 2 * 4 and r["flops"] == cost.layer_flops(r["n"], d)["total"]
    assert {r["pattern"] for r in b["patterns"]} == set(cost.PATTERNS)


def test_gpt_local_preset_is_gpt_with_a_window():
    gpt, local = model.PRESETS["gpt"], model.PRESETS["gpt-local"]
    assert local.window == 4 and gpt.window == 0
    same = {k: v for k, v in gpt.to_dict().items() if k not in ("window", "vocab_size")}  # vocab: from the tokenizer
    assert {k: v for k, v in local.to_dict().items() if k not in ("window", "vocab_size")} == same
    assert ModelConfig.from_dict({"window": 3}).window == 3 and ModelConfig.from_dict({}).window == 0


def test_trained_gpt_local_never_looks_past_its_window():
    m = model.load("gpt-local", device="cpu")
    att = m.trace("The cat sat on the mat. It was happy.").attention["decoder"]
    i, j = att.query_tokens.index("It"), att.key_tokens.index("cat")
    assert i - j >= m.config.window and (att.weights[:, :, i, j] == 0).all()  # "It" cannot see "cat"
    band = np.tril(np.ones_like(att.mask)) & ~np.tril(np.ones_like(att.mask), -m.config.window)
    assert (att.weights[..., ~band] == 0).all() and np.allclose(att.weights.sum(-1), 1, atol=1e-5)


def test_nll_by_length_splits_evaluates_items(random_runner):
    m = random_runner("gpt")
    r = cost.nll_by_length(m, n=20)
    from data import corpus

    pairs = corpus.heldout_pairs(20, 1234)
    items = [p.en if i % 2 == 0 else p.zh for i, p in enumerate(pairs)]
    two = [t for t in items if t.count(".") + t.count("。") >= 2]
    assert r["n_two"] == len(two) and r["n_one"] == 20 - len(two)
    assert r["two"] == pytest.approx(float(np.mean([m.nll([t])[0] for t in two])), rel=1e-6)


@pytest.mark.parametrize("name", ["translator", "gpt", "gpt-local"])
def test_search_example_every_query_matches_the_recorded_head_output(name):
    """The Q/K/V search on the model's own vectors, for every query of every head of layer 1:
    softmax(q·k/√d_k) over the keys the mask allows, times V, is the head's recorded output (the
    translator's encoder mask is a padding mask, one row for all queries: every query but the
    first used to fail)."""
    runner = model.load(name)
    text = "The cat sat on the mat"
    n_heads = runner.config.num_heads
    n = len(cost.self_attention_record(runner, text)["tokens"])
    for head in range(n_heads):
        for q in range(n):
            r = cost.search_on(runner, text, 0, head, q)
            assert np.isclose(r["weights"].sum(), 1.0)
            np.testing.assert_allclose(r["output"], r["recorded_output"], atol=1e-5)


@pytest.mark.parametrize("name", ["gpt", "gpt-rope", "gpt-alibi", "gpt-local"])
def test_generation_through_the_cache_matches_rereading_the_whole_text(random_runner, name):
    """generate() reads each new token through the KV cache; every step's distribution and attention
    row equal what the full forward over the text so far gives (next_token_logits, no cache)."""
    m = random_runner(name)
    g = m.generate("The cat", max_new_tokens=6, temperature=1.0, seed=3, stop_at_eos=False)
    prompt_len = len(g.ids) - len(g.steps)
    for i, step in enumerate(g.steps):
        logits, attn = m.next_token_logits(g.ids[: prompt_len + i])
        np.testing.assert_allclose(step.raw_probs, torch.softmax(logits, -1).numpy(), atol=1e-5)
        np.testing.assert_allclose(step.attention, attn, atol=1e-5)
