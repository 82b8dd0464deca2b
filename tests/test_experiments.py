"""The claims the temperature, positional-encoding and generation pages make, checked on the
models' own numbers (trained weights when they exist, seed-0 random weights before)."""

from __future__ import annotations

import numpy as np
import pytest

import model
from analysis import experiments as ex
from model import registry
from model.positional import sinusoidal_table

TEXT = "The cat sat on the mat"


@pytest.fixture(scope="module")
def load():
    cache = {}
    random = not all(registry.paths(name)[0].exists() for name in model.NAMES)

    def get(name):
        if name not in cache:
            cache[name] = model.load(name, device="cpu", random_weights=random)
        return cache[name]

    return get


# -- attention temperature ----------------------------------------------------------------------
@pytest.mark.parametrize("name,kind", [("gpt", "decoder"), ("gpt-alibi", "decoder"), ("translator", "encoder")])
def test_scores_give_back_the_models_weights_at_any_temperature(load, name, kind):
    m = load(name)
    scores = ex.attention_scores(m, TEXT)[kind]  # (L, H, Q, K)
    w1 = m.trace(TEXT).attention[kind].weights
    np.testing.assert_allclose(ex.softmax_at(scores, 1.0), w1, atol=1e-5)
    # the temperature in one layer only: that layer's scores are unchanged, divided by T
    layer = scores.shape[0] - 1
    w3 = m.trace(TEXT, temperature=3.0, temperature_layer=layer).attention[kind].weights[layer]
    np.testing.assert_allclose(ex.softmax_at(scores[layer], 3.0), w3, atol=1e-5)


@pytest.mark.parametrize("name", ["translator", "gpt-alibi"])
def test_one_heads_scores_are_that_head_of_every_heads(load, name):
    """head_scores turns one head into float64, not every head: the same numbers as attention_scores."""
    m = load(name)
    every = ex.attention_scores(m, TEXT)
    assert every
    for kind, s in every.items():
        for layer, head in {(0, 0), (s.shape[0] - 1, s.shape[1] - 1)}:
            np.testing.assert_array_equal(ex.head_scores(m, TEXT, kind, layer, head), s[layer, head])


@pytest.mark.parametrize("name,kind", [("gpt", "decoder"), ("gpt-rope", "decoder"), ("translator", "encoder")])
def test_entropy_rises_with_temperature_towards_ln_n(load, name, kind):
    scores = ex.attention_scores(load(name), TEXT)[kind]
    temps = ex.log_temperatures(0.05, 20.0, 41)
    assert 1.0 in temps and np.all(np.diff(temps) > 0)
    n = np.isfinite(scores).sum(-1)  # keys each row may see
    for layer in range(scores.shape[0]):
        for head in range(scores.shape[1]):
            curve = ex.entropy_curve(scores[layer, head], temps)  # (temps, Q)
            assert np.all(np.diff(curve, axis=0) >= -1e-9), (layer, head)
            assert np.all(curve <= np.log(n[layer, head]) + 1e-9)
            far = ex.entropy_curve(scores[layer, head], [1e6])[0]
            np.testing.assert_allclose(far, np.log(n[layer, head]), atol=1e-3)


def test_softmax_at_keeps_masked_cells_at_zero():
    s = np.array([[1.0, -np.inf], [0.5, 2.0]])
    for temp in (0.05, 1.0, 20.0):
        p = ex.softmax_at(s, temp)
        assert p[0, 1] == 0 and p[0, 0] == 1
        np.testing.assert_allclose(p.sum(-1), 1.0)


def test_gpt_next_token_logits_change_with_attention_temperature(load):
    m = load("gpt")
    base = ex.gpt_next_token_logits(m, TEXT)
    assert base.shape == (m.tokenizer.vocab_size,)
    assert not np.allclose(base, ex.gpt_next_token_logits(m, TEXT, temperature=20.0))
    assert ex.gpt_next_token_logits(m, "").shape == base.shape  # empty: from <s> alone


# -- word order ---------------------------------------------------------------------------------
def test_token_permutation():
    assert ex.token_permutation([1, 2, 3], [3, 2, 1]) == [2, 1, 0]
    assert ex.token_permutation([5, 7, 5], [7, 5, 5]) == [1, 0, 2]
    assert ex.token_permutation([1, 2], [1, 3]) is None
    assert ex.token_permutation([1, 2], [1, 2, 2]) is None


@pytest.mark.parametrize("a,b", [("狗咬人", "人咬狗"), ("The dog bites the man", "The man bites the dog")])
def test_without_positions_attention_is_blind_to_word_order(load, a, b):
    r = ex.word_order(load("translator"), a, b)
    assert r["perm"] is not None and r["perm"] != list(range(len(r["perm"])))
    assert r[False]["diff"] < 1e-5  # permuted attention equal: order is invisible
    assert r[True]["diff"] > 1e-3  # with the sinusoidal encoding it is not
    assert r[True]["diffs"].shape == r[True]["a"].shape[:2]


def test_not_a_reordering_has_no_permutation(load):
    r = ex.word_order(load("translator"), "狗咬人", "猫咬人")
    assert r["perm"] is None and r[False]["diff"] is None


# -- sinusoidal table, RoPE, ALiBi --------------------------------------------------------------
@pytest.mark.parametrize("d", [1, 2, 3, 7, 128])
def test_rotation_property_holds_for_any_d_model(d):
    for p, k in ((0, 1), (5, 3), (40, 17)):
        check = ex.rotation_check(d, p, k)
        assert check["max_error"] < 1e-12
        assert check["paired"] == 2 * (d // 2)
        table = sinusoidal_table(d, p + k + 1).double().numpy()
        np.testing.assert_allclose(check["pe_p"], table[p], atol=1e-5)  # the buffer is float32
        np.testing.assert_allclose(check["pe_pk"], table[p + k], atol=1e-5)
    assert ex.pe_table(d, 10).shape == (10, d)


def test_rope_scores_depend_on_the_offset_only():
    scores = ex.rope_scores(32, np.arange(0, 40), starts=(0, 25, 60))
    np.testing.assert_allclose(scores[1], scores[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(scores[2], scores[0], rtol=1e-4, atol=1e-4)


def test_alibi_bias_is_minus_slope_times_distance():
    bias, slopes = ex.alibi(4, 6)
    assert bias.shape == (4, 6, 6)
    np.testing.assert_allclose(slopes, [2 ** (-8 * h / 4) for h in range(1, 5)])
    np.testing.assert_allclose(bias[2, 5, 1], -slopes[2] * 4)


def test_cosine_similarity_and_learned_positions(load):
    table = ex.learned_positions(load("gpt"))
    assert table.shape == (load("gpt").config.max_seq_len, load("gpt").config.d_model)
    sim = ex.cosine_similarity(table)
    np.testing.assert_allclose(np.diag(sim), 1.0, atol=1e-9)
    assert ex.learned_positions(load("gpt-rope")) is None


# -- longer than trained on ---------------------------------------------------------------------
def test_long_sequence_loss_lines_up_with_each_piece_alone(load):
    m = load("gpt-alibi")
    pieces = ex.long_pieces(m.tokenizer, "en", 126, seed=0)
    n_tokens = sum(len(m.tokenizer.encode(p)) for p in pieces)
    assert 100 <= n_tokens <= 126
    r = ex.long_sequence_loss(m, pieces)
    assert len(r["position"]) == len(r["long"]) == len(r["alone"]) == n_tokens
    assert r["first"].sum() == len(pieces)
    first_len = len(m.tokenizer.encode(pieces[0]))
    # the first piece has the same context in both readings
    np.testing.assert_allclose(r["long"][:first_len], r["alone"][:first_len], atol=1e-4)
    # the batched per-token losses add up to the runner's own -log p (which also scores </s>)
    ids = [model.tokenizer.BOS] + m.tokenizer.encode(pieces[0]) + [model.tokenizer.EOS]
    np.testing.assert_allclose(ex.token_losses(m, [ids])[0].sum(), m.nll([pieces[0]])[0], rtol=1e-4)


def test_length_buckets(load):
    r = ex.length_buckets(load("gpt"), "zh", edges=(0, 40, 127), n_texts=2)
    assert r["long"].shape == r["alone"].shape == (2,)
    assert np.all(np.isfinite(r["long"])) and np.all(r["long"] > 0)
    assert r["pieces"]
    np.testing.assert_allclose(ex.bucket_means(np.arange(1, 6), np.arange(5.0), (0, 2, 5, 9)), [0.5, 3.0, np.nan])


# -- generation ---------------------------------------------------------------------------------
def test_generation_is_reproducible_and_steps_extend_it(load):
    m = load("gpt")
    a = m.generate("The cat", max_new_tokens=8, temperature=1.5, top_k=50, top_p=0.95, seed=7)
    b = m.generate("The cat", max_new_tokens=8, temperature=1.5, top_k=50, top_p=0.95, seed=7)
    assert a.ids == b.ids and a.text == b.text
    # the page steps by asking for one more token with the same seed: the text only grows
    short = m.generate("The cat", max_new_tokens=3, temperature=1.5, top_k=50, top_p=0.95, seed=7)
    assert a.ids[: len(short.ids)] == short.ids
    for s1, s2 in zip(short.steps, a.steps):
        np.testing.assert_array_equal(s1.probs, s2.probs)


def test_greedy_and_top_k_1_agree_and_top_p_keeps_the_fewest(load):
    m = load("gpt-rope")
    greedy = m.generate("", max_new_tokens=5, temperature=0.0, seed=1)
    top1 = m.generate("", max_new_tokens=5, temperature=1.0, top_k=1, seed=2)
    assert greedy.ids == top1.ids
    assert all(s.kept.sum() == 1 for s in greedy.steps + top1.steps)
    for s in m.generate("", max_new_tokens=5, temperature=1.0, top_p=0.01, seed=3).steps:
        # the most likely tokens whose mass reaches 0.01, and no more: one when the top one does
        order = np.sort(s.raw_probs)[::-1]
        assert s.kept.sum() == int(np.searchsorted(np.cumsum(order), 0.01 - 1e-7) + 1)


def test_masks_sampling_and_dot_products_the_pages_show():
    """The numbers the architecture, temperature and positional pages draw, computed in model/
    (the pages hold no numerics): against numpy written from the definitions."""
    from model.tokenizer import PAD

    m = ex.masks_of([7, 8, PAD], [2, 9, 10])
    assert m["bidirectional"].tolist() == [[True, True, False]] * 3  # the pad is hidden
    assert (m["causal"] == np.tril(np.ones((3, 3), bool))).all()
    assert m["cross"].tolist() == [[True, True, False]] * 3
    logits = np.array([2.0, 1.0, 0.5, -1.0])
    final, kept, before = ex.sampling_view(logits, 0.5, 2, None)
    want = np.exp(logits / 0.5) / np.exp(logits / 0.5).sum()
    np.testing.assert_allclose(before, want, rtol=1e-6)
    assert kept.tolist() == [True, True, False, False]
    np.testing.assert_allclose(final, np.where(kept, want, 0) / want[:2].sum(), rtol=1e-5)
    pe = ex.pe_table(16, 10)
    np.testing.assert_allclose(ex.dot_products(pe), np.einsum("pd,qd->pq", pe.astype(np.float64), pe), atol=1e-12)


def test_entropy_view_against_numpy():
    """The numbers beside the temperature page's entropy chart, from a causal score matrix."""
    s = np.random.default_rng(1).normal(size=(4, 4))
    s[np.triu_indices(4, 1)] = -np.inf
    temps = ex.log_temperatures(0.05, 20.0, 41)
    ev = ex.entropy_view(s, temps, 2, 3.0)

    def h(row, T):
        p = np.exp(row[np.isfinite(row)] / T)
        p /= p.sum()
        return float(-(p * np.log(p)).sum())

    assert ev["n_q"] == 3 and np.isclose(ev["limit"], np.log(3))
    assert np.isclose(ev["mean_limit"], np.mean(np.log([1, 2, 3, 4])))
    assert np.isclose(ev["h1"], h(s[2], 1.0)) and np.isclose(ev["hT"], h(s[2], 3.0))
    np.testing.assert_allclose(ev["row"], [h(s[2], T) for T in temps], atol=1e-9)


def test_softmax_at_is_the_model_s_own_softmax_at_a_temperature(monkeypatch):
    """One softmax(S / T): analysis reweights recorded scores with model/attention.py's function,
    so the curves the temperature page draws cannot drift from what the model computes."""
    from model import attention

    calls = []
    real = attention.softmax_at
    monkeypatch.setattr(attention, "softmax_at", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    scores = np.array([[0.0, 1.0, -np.inf], [-np.inf, -np.inf, -np.inf]])
    p = ex.softmax_at(scores, 2.0)
    assert calls == [2.0]
    np.testing.assert_allclose(p[0], [1 / (1 + np.exp(0.5)), np.exp(0.5) / (1 + np.exp(0.5)), 0.0])
    assert (p[1] == 0).all()  # a row with no key left: all exactly 0, no NaN


def test_one_check_of_an_attention_temperature():
    from model.config import TEMPERATURE_MAX, TEMPERATURE_MIN, AttentionSettings, checked_temperature, settings_from
    from model.errors import InputError

    for bad in (0, -1, float("nan"), float("inf"), TEMPERATURE_MIN / 2, TEMPERATURE_MAX * 2, "x"):
        with pytest.raises(InputError):
            checked_temperature(bad)
        with pytest.raises(InputError):
            settings_from(bad)
        with pytest.raises(ValueError):  # InputError is a ValueError
            AttentionSettings(bad)
    assert checked_temperature("2") == 2.0


def test_before_cuts_is_the_sampling_transform_at_t_without_cuts():
    """The generation page's bars before top-k / top-p: model.gpt's sampling distribution with no
    cut (its own oracle: softmax(logits / T) in torch), from the probabilities at T = 1."""
    import torch

    from analysis.experiments import before_cuts
    from model.gpt import Sampling, sampling_distribution

    logits = torch.randn(50, generator=torch.Generator().manual_seed(3), dtype=torch.float64) * 3
    p1 = torch.softmax(logits, -1).numpy()
    for T in (0.3, 1.0, 2.5):
        want = sampling_distribution(logits, Sampling(T, None, None))[0].numpy()
        np.testing.assert_allclose(before_cuts(p1, T), want, atol=1e-12)
        np.testing.assert_allclose(before_cuts(p1, T), torch.softmax(logits / T, -1).numpy(), atol=1e-12)
    np.testing.assert_array_equal(before_cuts(p1, 0), p1)  # greedy: the bars show p as it is
    assert before_cuts(np.array([0.5, 0.5, 0.0]), 2.0)[2] == 0.0  # a token of probability 0 stays 0
