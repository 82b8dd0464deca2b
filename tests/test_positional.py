"""The tutorial's claims about positional encodings, checked numerically."""

import math

import numpy as np
import pytest
import torch

from model.positional import PositionalEncoding, RotaryEmbedding, alibi_bias, alibi_slopes, sinusoidal_table


def test_table_shape_and_formula():
    pe = PositionalEncoding(16, 50).pe
    assert pe.shape == (1, 50, 16)
    for pos in (0, 1, 7, 49):
        for i in range(8):
            angle = pos / 10000 ** (2 * i / 16)
            assert pe[0, pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-5)
            assert pe[0, pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-5)


def test_odd_d_model_works():
    assert sinusoidal_table(7, 10).shape == (10, 7)


def test_pe_of_pos_plus_k_is_one_fixed_rotation_of_pe_of_pos():
    d, k = 16, 5
    pe = sinusoidal_table(d, 100).double()
    # M(k): a 2x2 rotation per frequency, independent of pos
    M = torch.zeros(d, d, dtype=torch.double)
    for i in range(d // 2):
        w = 1 / 10000 ** (2 * i / d)
        c, s = math.cos(w * k), math.sin(w * k)
        M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor([[c, s], [-s, c]], dtype=torch.double)
    for pos in range(0, 100 - k):
        assert torch.allclose(pe[pos + k], M @ pe[pos], atol=1e-5)  # the table is float32
    # and the same matrix, found by least squares from the data alone, fits every pos
    fitted = torch.linalg.lstsq(pe[:-k], pe[k:]).solution.T
    assert torch.allclose(fitted @ pe[:-k].T, pe[k:].T, atol=1e-6)


def test_dot_product_depends_on_offset_only():
    pe = sinusoidal_table(32, 64).double()
    for k in (1, 3, 10):
        dots = (pe[:-k] * pe[k:]).sum(-1)
        assert torch.allclose(dots, dots[0].expand_as(dots), atol=1e-5)


def test_rope_scores_depend_only_on_offset():
    rope = RotaryEmbedding(8, 64)
    q, k = torch.randn(8), torch.randn(8)
    seq = torch.stack([q] * 64).unsqueeze(0)
    keys = torch.stack([k] * 64).unsqueeze(0)
    rq, rk = rope(seq)[0], rope(keys)[0]
    scores = rq @ rk.T  # scores[i, j] for q at i and k at j
    for offset in (0, 1, 5):
        diag = torch.diagonal(scores, offset=offset)
        assert torch.allclose(diag, diag[0].expand_as(diag), atol=1e-4)
    assert not torch.allclose(torch.diagonal(scores, 0)[0], torch.diagonal(scores, 5)[0])


def test_rope_keeps_lengths():
    rope = RotaryEmbedding(16, 32)
    x = torch.randn(2, 3, 32, 16)
    assert torch.allclose(rope(x).norm(dim=-1), x.norm(dim=-1), atol=1e-5)


def test_alibi_slopes_and_bias():
    assert np.allclose(alibi_slopes(8).numpy(), [2**-(h) for h in range(1, 9)])
    assert np.allclose(alibi_slopes(4).numpy(), [2 ** (-8 * h / 4) for h in range(1, 5)])
    b = alibi_bias(4, 5, 5)
    assert b.shape == (4, 5, 5)
    assert b[0, 4, 1].item() == pytest.approx(-alibi_slopes(4)[0].item() * 3)
    assert (torch.diagonal(b, dim1=1, dim2=2) == 0).all()
