"""The tutorial's attention against PyTorch's own, and the properties the app's views rely on."""

import math

import pytest
import torch
import torch.nn.functional as F

from model.attention import MultiHeadAttention, scaled_dot_product_attention

torch.manual_seed(0)


def test_matches_pytorch_sdpa():
    Q, K, V = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 6)
    out, w = scaled_dot_product_attention(Q, K, V)
    assert torch.allclose(out, F.scaled_dot_product_attention(Q, K, V), atol=1e-5)
    assert w.shape == (2, 3, 5, 7)


def test_matches_pytorch_sdpa_with_causal_mask():
    Q, K, V = (torch.randn(1, 2, 6, 8) for _ in range(3))
    mask = torch.tril(torch.ones(6, 6, dtype=torch.bool))
    out, w = scaled_dot_product_attention(Q, K, V, mask)
    ref = F.scaled_dot_product_attention(Q, K, V, is_causal=True)
    assert torch.allclose(out, ref, atol=1e-5)
    assert (w[..., ~mask] == 0).all()  # exactly zero, not merely small


def test_temperature_is_softmax_of_scores_over_t():
    Q, K, V = (torch.randn(1, 4, 8) for _ in range(3))
    _, w = scaled_dot_product_attention(Q, K, V, temperature=2.5)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(8)
    assert torch.allclose(w, torch.softmax(scores / 2.5, -1), atol=1e-6)


def test_rows_sum_to_one_and_padding_gives_exact_zeros():
    Q, K, V = (torch.randn(2, 4, 5, 8) for _ in range(3))
    pad = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool).view(2, 1, 1, 5)
    _, w = scaled_dot_product_attention(Q, K, V, pad)
    assert torch.allclose(w.sum(-1), torch.ones(2, 4, 5), atol=1e-6)
    assert (w[0, :, :, 3:] == 0).all()


def test_entropy_grows_with_temperature():
    Q, K, V = (torch.randn(1, 10, 16) * 3 for _ in range(3))
    ents = []
    for t in (0.05, 0.3, 1.0, 3.0, 20.0):
        _, w = scaled_dot_product_attention(Q, K, V, temperature=t)
        ents.append(-(w * w.clamp_min(1e-30).log()).sum(-1).mean().item())
    assert all(a < b for a, b in zip(ents, ents[1:]))
    assert ents[-1] < math.log(10) + 1e-6 and ents[-1] > 0.9 * math.log(10)


def copy_into_pytorch(mha: MultiHeadAttention) -> torch.nn.MultiheadAttention:
    ref = torch.nn.MultiheadAttention(mha.d_model, mha.num_heads, batch_first=True)
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([mha.W_q.weight, mha.W_k.weight, mha.W_v.weight]))
        ref.in_proj_bias.copy_(torch.cat([mha.W_q.bias, mha.W_k.bias, mha.W_v.bias]))
        ref.out_proj.weight.copy_(mha.W_o.weight)
        ref.out_proj.bias.copy_(mha.W_o.bias)
    return ref


@pytest.mark.parametrize("causal", [False, True])
def test_multi_head_matches_torch_multihead_attention(causal):
    mha = MultiHeadAttention(32, 4).eval()
    ref = copy_into_pytorch(mha).eval()
    q, kv = torch.randn(2, 6, 32), torch.randn(2, 6, 32)
    mask = torch.tril(torch.ones(6, 6, dtype=torch.bool)) if causal else None
    out, w = mha(q, kv, kv, mask)
    ref_out, ref_w = ref(q, kv, kv, attn_mask=None if mask is None else ~mask, need_weights=True)
    assert w.shape == (2, 4, 6, 6)
    assert torch.allclose(out, ref_out, atol=1e-5)
    assert torch.allclose(w.mean(1), ref_w, atol=1e-6)  # PyTorch averages over heads
    _, ref_heads = ref(q, kv, kv, attn_mask=None if mask is None else ~mask, average_attn_weights=False)
    assert torch.allclose(w, ref_heads, atol=1e-6)


def test_split_and_merge_heads_are_inverse():
    mha = MultiHeadAttention(24, 3)
    x = torch.randn(2, 5, 24)
    assert mha.split_heads(x).shape == (2, 3, 5, 8)
    assert torch.equal(mha.merge_heads(mha.split_heads(x)), x)


def test_record_holds_the_computation_and_module_keeps_no_state():
    mha = MultiHeadAttention(16, 2).eval()
    x = torch.randn(1, 4, 16)
    before = set(vars(mha))
    rec = {}
    out, w = mha(x, x, x, record=rec)
    assert set(vars(mha)) == before
    assert torch.equal(rec["weights"], w) and torch.equal(rec["output"], out)
    assert torch.allclose(rec["q"], mha.split_heads(mha.W_q(x)))
