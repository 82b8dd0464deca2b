"""The models' traces: shapes, masks, temperature, word order, and the errors users can cause."""

import math

import numpy as np
import pytest
import torch

import model
from model.errors import InputError, ModelFileError


@pytest.mark.parametrize("name", model.NAMES)
def test_trace_has_every_layer_and_head_and_rows_sum_to_one(random_runner, name):
    m = random_runner(name)
    tr = m.trace("The cat sat on the mat")
    expected = ["encoder", "decoder", "cross"] if name == "translator" else ["decoder"]
    assert tr.kinds() == expected
    for kind in expected:
        att = tr.attention[kind]
        assert att.weights.dtype == np.float32
        assert att.weights.shape[:2] == (m.config.num_layers, m.config.num_heads)
        assert np.allclose(att.weights.sum(-1), 1, atol=1e-5)
        if att.mask is not None:
            assert (att.weights[..., ~att.mask] == 0).all()  # exactly zero where masked
    if name != "translator":
        att = tr.attention["decoder"]
        assert att.query_tokens[0] == "<s>" and att.query_tokens[1:] == ["The", "cat", "sat", "on", "the", "mat"]
        band = np.tril(np.ones_like(att.mask))
        if m.config.window:  # gpt-local: only the last `window` positions
            band &= ~np.tril(np.ones_like(att.mask), -m.config.window)
        assert np.array_equal(att.mask, band)


def test_module_keeps_no_attention_state(random_runner):
    m = random_runner("translator")
    before = {k for mod in m.module.modules() for k in vars(mod)}
    m.trace("The cat sat on the mat")
    after = {k for mod in m.module.modules() for k in vars(mod)}
    assert before == after


@pytest.mark.parametrize("name", ["translator", "gpt", "gpt-alibi"])
def test_entropy_grows_with_temperature(random_runner, name):
    m = random_runner(name)
    kind = "encoder" if name == "translator" else "decoder"
    ents = []
    for t in (0.1, 1.0, 10.0):
        w = m.trace("The big dog bites the man", temperature=t).attention[kind].weights
        ents.append(float(-(w * np.log(np.clip(w, 1e-30, None))).sum(-1).mean()))
    assert ents[0] < ents[1] < ents[2]


def test_temperature_in_one_layer_only(random_runner):
    m = random_runner("gpt")
    base = m.trace("The cat sat").attention["decoder"].weights
    hot = m.trace("The cat sat", temperature=5.0, temperature_layer=0).attention["decoder"].weights
    assert not np.allclose(base[0], hot[0])
    # later layers see a different input, but the chosen layer is the only one with T != 1:
    # check it by the weights' entropy rising there
    ent = lambda w: float(-(w * np.log(np.clip(w, 1e-30, None))).sum(-1).mean())
    assert ent(hot[0]) > ent(base[0])


def _encoder(m, text, use_position):
    return m.trace(text, use_position=use_position).attention["encoder"]


def test_without_position_the_encoder_is_permutation_equivariant(random_runner):
    m = random_runner("translator")
    a, b = _encoder(m, "狗咬人", False), _encoder(m, "人咬狗", False)
    assert a.key_tokens == ["狗", "咬", "人"] and b.key_tokens == ["人", "咬", "狗"]
    perm = [2, 1, 0]  # b's position i holds a's token perm[i]
    permuted = a.weights[:, :, perm][:, :, :, perm]
    assert np.allclose(permuted, b.weights, atol=1e-5)
    # with the positional encoding the two orders are told apart
    a, b = _encoder(m, "狗咬人", True), _encoder(m, "人咬狗", True)
    assert not np.allclose(a.weights[:, :, perm][:, :, :, perm], b.weights, atol=1e-3)


def test_gpt_generate_is_reproducible_for_a_seed(random_runner):
    m = random_runner("gpt")
    g1 = m.generate("The cat", max_new_tokens=5, temperature=1.0, top_k=50, seed=7)
    g2 = m.generate("The cat", max_new_tokens=5, temperature=1.0, top_k=50, seed=7)
    assert g1.ids == g2.ids and len(g1.steps) == 5
    step = g1.steps[0]
    assert step.kept.sum() <= 50 and math.isclose(step.probs.sum(), 1, rel_tol=1e-5)
    assert step.attention.shape == (m.config.num_layers, m.config.num_heads, 3)  # <s> The cat


def test_top_p_keeps_the_smallest_nucleus():
    from model.gpt import Sampling, sampling_distribution

    logits = torch.log(torch.tensor([0.5, 0.3, 0.15, 0.05]))
    probs, kept = sampling_distribution(logits, Sampling(1.0, None, 0.7))
    assert kept.tolist() == [True, True, False, False]
    assert torch.allclose(probs, torch.tensor([0.625, 0.375, 0, 0]))
    probs, kept = sampling_distribution(logits, Sampling(1.0, None, 0.01))
    assert kept.tolist() == [True, False, False, False]
    probs, kept = sampling_distribution(logits, Sampling(0.0))
    assert probs.tolist() == [1.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("text", ["", "   ", "\n\t", None])
def test_empty_text_is_a_clear_error(random_runner, text):
    with pytest.raises(InputError, match="empty"):
        random_runner("gpt").trace(text)


@pytest.mark.parametrize("t", [0, -1, float("nan"), float("inf")])
def test_bad_temperature_is_a_clear_error(random_runner, t):
    with pytest.raises(InputError, match="temperature"):
        random_runner("translator").trace("The cat", temperature=t)


def test_long_text_is_truncated_with_a_notice(random_runner):
    m = random_runner("gpt")
    tr = m.trace("The cat sat on the mat. " * 2000)  # 48,000 characters
    att = tr.attention["decoder"]
    assert len(att.query_tokens) == m.config.max_seq_len
    assert any("cut" in n for n in tr.notices)


def test_unknown_characters_and_emoji_still_trace(random_runner):
    tr = random_runner("translator").trace("The 🐈 sat on the zzyzx \u200b mat \x07")
    toks = tr.attention["encoder"].key_tokens
    assert "<unk>" not in toks and any("🐈" in t for t in toks)
    assert any("never saw" in n for n in tr.notices)
    assert any("control" in n for n in tr.notices)


def test_unknown_model_name():
    with pytest.raises(InputError, match="unknown model"):
        model.load("gpt-5")


def test_missing_and_corrupt_weights_name_the_file_and_the_fix(tmp_path):
    import shutil

    from model.tokenizer import DEFAULT_PATH

    shutil.copy(DEFAULT_PATH, tmp_path / "tokenizer.model")
    with pytest.raises(ModelFileError) as e:
        model.load("gpt", directory=tmp_path)
    assert "gpt.safetensors" in str(e.value) and "python -m model train gpt" in str(e.value)
    (tmp_path / "gpt.safetensors").write_bytes(b"\x00garbage")
    with pytest.raises(ModelFileError, match="unreadable"):
        model.load("gpt", directory=tmp_path)
