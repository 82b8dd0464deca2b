"""Gemma 3 270M, the real pretrained model that reads Chinese (model/hf/pretrained.py), against
independent oracles: transformers' own eager attention on the converted folder, a numpy recomputation
of its grouped-query attention, the full forward for the KV cache; its file's checksum enforced.
Loaded once per session (tests/conftest.py's gemma fixture); skipped only where its packages are
not installed (scripts/test installs them, requirements-real.txt)."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest
import torch

from tests.conftest import GEMMA, packaged_missing

pytestmark = pytest.mark.slow  # Gemma: 6 s to load from the cache, minutes to convert on a fresh machine

TEXT = "猫坐在垫子上。它很开心。"


@pytest.fixture(scope="module")
def reference(gemma):
    """transformers' own model over the same converted folder, eager attention, none of ours."""
    from transformers import AutoModelForCausalLM

    from model.hf import pretrained

    return AutoModelForCausalLM.from_pretrained(
        str(pretrained.folder(GEMMA)), attn_implementation="eager", dtype=torch.float32
    ).eval()


def test_what_it_is(gemma):
    c = gemma.config
    assert (gemma.name, gemma.kind, c.num_layers, c.num_heads, c.num_kv_heads) == (GEMMA, "gpt", 18, 4, 1)
    assert c.positional == "rope" and 260_000_000 < c.num_parameters < 275_000_000
    assert gemma.can_continue_text and gemma.has_kv_cache and not gemma.has_tutorial_code


@pytest.mark.parametrize("text", [TEXT, "The cat sat on the mat. 猫坐在垫子上。"])
def test_chinese_traces_offline_with_attention_equal_to_transformers_own(gemma, reference, text):
    tr = gemma.trace(text)
    att = tr.attention["decoder"]
    ids = gemma.ids(text)[1]
    with torch.no_grad():
        out = reference(input_ids=torch.tensor([ids]), output_attentions=True)
    w = torch.stack([a[0] for a in out.attentions]).numpy()
    assert att.weights.shape == w.shape == (18, 4, len(ids), len(ids))
    assert np.abs(att.weights - w).max() <= 1e-6
    assert np.allclose(att.weights.sum(-1), 1, atol=1e-5) and not att.weights[:, :, ~att.mask].any()
    # it reads Chinese: fewer tokens than characters (SmolLM2 takes 1.7 a character)
    chars = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    assert len(ids) < len(text) and chars > 0


@pytest.mark.parametrize("layer", [0, 5])  # a sliding-window layer and a global one
def test_one_key_value_head_serves_its_four_query_heads(gemma, layer):
    """Recomputed in numpy from the q, k its attention function was given: softmax(q_h k^T * scale
    + causal mask), every query head of the layer reading the one key/value head."""
    c = gemma.config
    assert [c.kv_head(h) for h in range(4)] == [0, 0, 0, 0] and c.sharing(2) == [0, 1, 2, 3]
    ids = gemma.ids(TEXT)[1]
    got = gemma.attention_inputs(ids, layer=layer)
    n = len(ids)
    assert got["q"].shape[:2] == (4, n) and got["k"].shape[:2] == got["v"].shape[:2] == (1, n)
    causal = np.tril(np.ones((n, n), bool))
    for h in range(4):
        s = got["q"][h].astype(np.float64) @ got["k"][0].T.astype(np.float64) * got["scaling"]
        s = np.where(causal, s, -np.inf)
        w = np.exp(s - s.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        assert np.abs(w - got["weights"][h]).max() < 1e-5, h
    assert np.abs(got["weights"] - gemma.trace(TEXT).attention["decoder"].weights[layer]).max() <= 1e-6


def test_the_kv_cache_reads_the_same_as_the_full_forward(gemma, reference):
    ids = gemma.ids(TEXT)[1]
    with torch.no_grad():
        full_logits = reference(input_ids=torch.tensor([ids])).logits[0].numpy()
    cache = gemma.new_cache()
    parts = [ids[:4], ids[4:5], ids[5:]]
    got = [gemma.read_cached(p, cache) for p in parts]
    logits = torch.cat([g[0] for g in got]).numpy()
    assert np.abs(logits - full_logits).max() <= 1e-4 * np.abs(full_logits).max()
    w = gemma.trace_ids(ids).attention["decoder"].weights
    assert np.abs(got[-1][1] - w[:, :, len(ids) - len(parts[-1]) :]).max() < 1e-5


def test_generation_with_the_cache_writes_what_the_full_forward_writes(gemma, monkeypatch):
    prompt = "猫坐在"
    cached = gemma.generate(prompt, max_new_tokens=5, temperature=0.7, seed=3)
    monkeypatch.setattr(type(gemma), "has_kv_cache", property(lambda self: False))
    full = gemma.generate(prompt, max_new_tokens=5, temperature=0.7, seed=3)
    assert cached.ids == full.ids and len(cached.ids) > len(gemma.prompt_ids(prompt)[1])
    for a, b in zip(cached.steps, full.steps):
        assert np.abs(a.probs - b.probs).max() < 1e-4


def test_its_layers_local_and_global_are_named_from_its_config(gemma):
    """Gemma 3: every sixth layer global, the others a 512-token sliding window (its config)."""
    types = gemma.config.layer_types
    assert len(types) == 18 and types.count("global") == 3 and types.count("local") == 15
    assert [i + 1 for i, t in enumerate(types) if t == "global"] == [6, 12, 18]
    assert gemma.config.sliding_window == 512


def test_a_wrong_checksum_gives_a_notice_and_no_model(tmp_path, monkeypatch):
    """Parts that do not make the pinned file: no conversion, no model, the reader told why."""
    why = packaged_missing(GEMMA)
    if why:
        pytest.skip(why)
    from model.hf import pretrained

    monkeypatch.setenv(pretrained.CACHE_ENV, str(tmp_path))
    monkeypatch.setenv("ATTN_HF", "local")
    monkeypatch.setitem(pretrained.MODELS, GEMMA, dataclasses.replace(pretrained.MODELS[GEMMA], sha256="f" * 64))
    monkeypatch.setattr(pretrained, "_LOADED", {})
    monkeypatch.setattr(pretrained, "_ERRORS", {})
    pretrained.start(GEMMA, "cpu")
    deadline = time.time() + 120
    err = None
    while time.time() < deadline and err is None:
        try:
            pretrained.ready(GEMMA, "cpu")
        except Exception as e:  # noqa: BLE001 - the error the page would show
            err = e
        time.sleep(0.1)
    assert err is not None and getattr(err, "code", None) == "hf_checksum", err
    assert not pretrained.current(GEMMA) and not list(tmp_path.rglob("*.safetensors"))
    assert not list(tmp_path.rglob("*.gguf"))  # the wrong file is gone

    from tests import apptest

    at = apptest.open_page("pages/attention.py", GEMMA)
    assert not at.exception
    said = " ".join(str(w.value) for w in [*at.warning, *at.error])
    assert "sha256 differs" in said, said
