import math

import numpy as np
import pytest

from analysis.measures import (
    entropy,
    head_roles,
    induction_scores,
    mean_of_heads,
    merge_tokens,
    merge_words,
    normalised_entropy,
    rollout,
)


def random_attention(shape, causal=False, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.random(shape)
    t = shape[-1]
    mask = np.tril(np.ones((shape[-2], t), bool)) if causal else np.ones(shape[-2:], bool)
    w = w * mask
    return (w / w.sum(-1, keepdims=True)).astype(np.float32), mask


def test_mean_of_heads():
    w, _ = random_attention((3, 4, 5, 5))
    m = mean_of_heads(w)
    assert m.shape == (3, 5, 5)
    np.testing.assert_allclose(m[1], w[1].mean(0), rtol=1e-6)
    np.testing.assert_allclose(m.sum(-1), 1.0, rtol=1e-5)


def test_entropy_uniform_is_ln_n_and_one_hot_is_zero():
    for n in (1, 2, 7, 512):
        assert entropy(np.full(n, 1.0 / n)) == pytest.approx(math.log(n))
    assert entropy(np.eye(4)).tolist() == [0.0] * 4
    np.testing.assert_allclose(entropy(np.ones((2, 3, 4)) / 4), math.log(4))


def test_normalised_entropy_uses_allowed_keys():
    _, mask = random_attention((4, 4), causal=True)
    uniform = mask / mask.sum(-1, keepdims=True)
    ne = normalised_entropy(uniform, mask)
    assert ne[0] == 0.0  # one allowed key: nothing to choose
    np.testing.assert_allclose(ne[1:], 1.0)
    np.testing.assert_allclose(normalised_entropy(np.full((2, 5), 0.2)), 1.0)


def loop_rollout(w):
    """The definition written out with plain loops, to check the vectorised one against."""
    n_layers, n_heads, t, _ = w.shape
    result = np.eye(t)
    for layer in range(n_layers):
        a = np.zeros((t, t))
        for h in range(n_heads):
            a += w[layer, h]
        a /= n_heads
        a = 0.5 * a + 0.5 * np.eye(t)
        for i in range(t):
            a[i] /= a[i].sum()
        new = np.zeros((t, t))
        for i in range(t):
            for j in range(t):
                new[i, j] = sum(a[i, m] * result[m, j] for m in range(t))
        result = new
    return result


def test_rollout_matches_loop_on_hand_made_matrices():
    a1 = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    a2 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    w = np.stack([np.stack([a1, a1]), np.stack([a2, np.eye(3)])]).astype(np.float32)
    r = rollout(w)
    np.testing.assert_allclose(r, loop_rollout(w.astype(np.float64)), atol=1e-6)
    # by hand: layer 2's mean head is 0.5*a2 + 0.5*I, mixed with I again: 0.75 I + 0.25 a2
    l1 = 0.5 * a1 + 0.5 * np.eye(3)
    l2 = 0.75 * np.eye(3) + 0.25 * a2
    np.testing.assert_allclose(r, l2 @ l1, atol=1e-6)


def test_rollout_random_rows_sum_to_one_and_causal_stays_lower_triangular():
    w, _ = random_attention((4, 3, 9, 9), causal=True)
    r = rollout(w)
    np.testing.assert_allclose(r, loop_rollout(w.astype(np.float64)), atol=1e-5)
    np.testing.assert_allclose(r.sum(-1), 1.0, atol=1e-5)
    assert np.all(np.triu(r, k=1) == 0)
    w, _ = random_attention((2, 2, 6, 6))
    np.testing.assert_allclose(rollout(w).sum(-1), 1.0, atol=1e-5)


def test_rollout_rejects_cross_attention():
    with pytest.raises(ValueError):
        rollout(np.ones((1, 1, 3, 4)) / 4)


def shifted_identity(t):
    w = np.zeros((t, t))
    w[0, 0] = 1.0
    w[np.arange(1, t), np.arange(t - 1)] = 1.0
    return w


def test_head_roles_on_synthetic_heads():
    t = 10
    _, mask = random_attention((t, t), causal=True)
    previous = shifted_identity(t)
    uniform = mask / mask.sum(-1, keepdims=True)
    first = np.zeros((t, t))
    first[:, 0] = 1.0
    current = np.eye(t)
    w = np.stack([np.stack([previous, uniform, first, current])]).astype(np.float32)  # (1,4,t,t)
    df = head_roles(w, mask=mask)
    assert list(df.columns) == ["layer", "head", "previous", "current", "first", "broad", "role", "score"]
    assert df["role"].tolist() == ["previous", "broad", "first", "current"]
    assert df.loc[0, "previous"] == pytest.approx(1.0)
    assert df.loc[1, "broad"] == pytest.approx(1.0)
    assert df.loc[2, "first"] == pytest.approx(1.0)
    assert df.loc[3, "current"] == pytest.approx(1.0)
    assert df.loc[0, "score"] == pytest.approx(1.0)
    assert df[["layer", "head"]].values.tolist() == [[0, 0], [0, 1], [0, 2], [0, 3]]


def test_head_roles_mixed_below_threshold_and_induction_column():
    t = 8
    half = 0.5 * shifted_identity(t) + 0.5 * np.eye(t)
    w = half[None, None].astype(np.float32)
    df = head_roles(w, threshold=0.6)
    assert df.loc[0, "role"] == "mixed"
    df = head_roles(w, induction=np.array([[0.9]]), threshold=0.6)
    assert df.loc[0, "induction"] == pytest.approx(0.9)
    assert df.loc[0, "role"] == "induction"


def test_induction_score_on_synthetic_induction_pattern_is_one():
    period, offset = 5, 1
    t = offset + 2 * period
    w = np.zeros((2, 3, t, t))
    w[..., :, 0] = 1.0  # every other head: all on the first token
    ind = np.zeros((t, t))
    ind[:, 0] = 1.0
    for q in range(offset + period, t):
        ind[q] = 0.0
        ind[q, q - period + 1] = 1.0  # the token after q's earlier occurrence
    w[1, 2] = ind
    scores = induction_scores(w, period, offset=offset)
    assert scores.shape == (2, 3)
    assert scores[1, 2] == pytest.approx(1.0)
    assert scores[0, 0] == pytest.approx(0.0)
    assert np.all(np.tril(ind) == ind)  # the pattern is causal: it only looks back
    with pytest.raises(ValueError):
        induction_scores(w, period=6)


def test_merge_words_hand_example():
    # tokens: ▁The ▁c at ▁sat -> words The, cat, sat
    words = [0, 1, 1, 2]
    w = np.array(
        [
            [1.0, 0.0, 0.0, 0.0],
            [0.2, 0.4, 0.4, 0.0],
            [0.1, 0.3, 0.6, 0.0],
            [0.1, 0.2, 0.3, 0.4],
        ],
        dtype=np.float32,
    )
    merged, mask = merge_words(w, words, words)
    assert mask is None
    expected = np.array(
        [
            [1.0, 0.0, 0.0],
            [(0.2 + 0.1) / 2, (0.8 + 0.9) / 2, 0.0],  # query "cat": mean of its two pieces' rows
            [0.1, 0.2 + 0.3, 0.4],  # key "cat": sum of its two pieces
        ]
    )
    np.testing.assert_allclose(merged, expected, atol=1e-6)
    np.testing.assert_allclose(merged.sum(-1), 1.0, atol=1e-6)
    assert merge_tokens(["▁The", "▁c", "at", "▁sat"], words) == ["The", "cat", "sat"]


def test_merge_words_batched_with_mask_and_special_tokens():
    w, mask = random_attention((2, 3, 6, 6), causal=True)
    words = [-1, 0, 0, 1, 1, -1]  # specials never merge, even with each other
    merged, mmask = merge_words(w, words, words, mask=mask)
    assert merged.shape == (2, 3, 4, 4)
    np.testing.assert_allclose(merged.sum(-1), 1.0, atol=1e-5)
    expected_mask = np.tril(np.ones((4, 4), bool))
    assert (mmask == expected_mask).all()
    assert np.all(merged[..., ~mmask] == 0)
    # only keys merged (e.g. a decoder's queries stay as pieces)
    keys_only, _ = merge_words(w, None, words)
    assert keys_only.shape == (2, 3, 6, 4)
    np.testing.assert_allclose(keys_only.sum(-1), 1.0, atol=1e-5)
