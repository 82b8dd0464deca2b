"""analysis/walkthrough.py: every step's numbers against an independent recomputation from the
model's weights (numpy, float64, written from the formulas, not from our model code), the code
snippets against the files they claim to come from, and bad input.

Trained weights are used where they exist; otherwise seed-0 random weights (the numbers must
match either way). An untrained translator never writes </s>, so its greedy translation would
run to 96 tokens: while weights are random, the translation is capped at MAX_DECODE tokens to
keep this file fast.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import model
from analysis.walkthrough import STEPS, Recording, code_for, record, walk
from model.errors import InputError
from model.tokenizer import BOS
from tests.conftest import (
    MODEL_KINDS,
    cap_translation,
    first_input,
    layer_norm,
    recompute,
    recompute_post,
    untrained,
)

ROOT = Path(__file__).resolve().parents[1]
TEXT = "The cat sat on the mat"


@pytest.fixture(scope="module")
def runners():
    """name -> Runner on the CPU (trained weights, or random ones where none exist yet)."""
    with pytest.MonkeyPatch.context() as mp:
        if any(untrained(n) for n in model.NAMES):
            cap_translation(mp)
        yield {n: model.load(n, device="cpu", random_weights=untrained(n)) for n in model.NAMES}


@pytest.fixture(scope="module")
def recordings(runners):
    cache = {}

    def get(name, text=TEXT):
        if (name, text) not in cache:
            cache[name, text] = record(runners[name], text)
        return cache[name, text]

    return get


def close(a, b, what, atol=2e-4, rtol=1e-4):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    assert np.allclose(a, b, atol=atol, rtol=rtol), f"{what}: off by {np.abs(a - b).max():g}"


# -- tests ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,kind", MODEL_KINDS)
def test_every_step_equals_a_recomputation_from_the_weights(runners, recordings, name, kind):
    runner = runners[name]
    c = runner.config
    for layer in range(c.num_layers):
        head = (layer + 1) % c.num_heads
        w = walk(runner, recordings(name), kind, layer, head)
        assert (w.kind, w.layer, w.head) == (kind, layer, head)
        # the model's own record agrees with what the walkthrough derived from it
        assert max(w.check.values()) < 1e-5, w.check
        # X: layer 1 reads X^(0) (GPT: its LayerNorm); later layers read the layer before's output
        if kind != "cross":
            x0 = first_input(runner, w.query_ids)
            close(w.query_input, x0, "X^(0)")
            if layer == 0:
                close(w.layer_input, x0, "layer-1 input")
        else:
            close(w.X_kv, walk(runner, recordings(name), "encoder", c.num_layers - 1, 0).post[-1].value, "memory")
            close(w.X, walk(runner, recordings(name), "decoder", layer, 0).post[1].value, "H")
        if layer > 0 and kind != "cross":
            before = walk(runner, recordings(name), kind, layer - 1, 0)
            close(w.layer_input, before.post[-1].value, "layer input = previous output")
        if c.arch == "gpt":
            close(w.X, layer_norm(w.layer_input.astype(np.float64), runner.module.blocks[layer].norm1), "X = LN1(x)")
        elif kind != "cross":
            close(w.X, w.layer_input, "X = x (post-LN)")

        r = recompute(runner, w)
        for key in (
            "Q_full",
            "K_full",
            "V_full",
            "q",
            "k",
            "v",
            "scores",
            "scaled",
            "weights",
            "head_output",
            "concat",
            "output",
        ):
            close(getattr(w, key), r[key], f"{name} {kind} layer {layer} {key}")
        assert np.array_equal(w.mask, r["mask"])
        close(np.where(w.mask, w.masked, 0), np.where(r["mask"], r["masked"], 0), "masked scores")
        assert np.all(w.masked[~w.mask] == np.float32(-1e9))
        assert (w.bias is not None) == ("bias" in r)
        if w.bias is not None:
            close(w.bias, r["bias"], "ALiBi bias")
        if c.positional == "rope":
            sl = slice(head * w.d_k, (head + 1) * w.d_k)
            close(w.q_unrotated, r["Q_full"][:, sl], "q before RoPE")
        # rows of the weights sum to 1 and masked cells are exactly 0
        close(w.weights.sum(-1), np.ones(len(w.query_tokens)), "row sums", atol=1e-5)
        assert np.all(w.weights[~w.mask] == 0)
        # step 10
        post = {p.key: p.value for p in w.post}
        for key, value in recompute_post(runner, w, r["output"]).items():
            close(post[key], value, f"{name} {kind} layer {layer} step 10 {key}", atol=5e-4)


def test_the_mask_is_the_tutorials(runners, recordings):
    gpt = walk(runners["gpt"], recordings("gpt"), "decoder", 0, 0)
    assert gpt.mask_kind == "causal" and np.array_equal(gpt.mask, np.tril(np.ones(gpt.mask.shape, bool)))
    assert gpt.query_tokens[0] == "<s>" and gpt.query_tokens[1:] == ["The", "cat", "sat", "on", "the", "mat"]
    enc = walk(runners["translator"], recordings("translator"), "encoder", 0, 0)
    assert enc.mask_kind == "padding" and enc.mask.all()  # one sentence: no padding to hide
    assert enc.query_tokens == ["The", "cat", "sat", "on", "the", "mat"]
    assert enc.query_position is not None and enc.query_ids == runners["translator"].tokenizer.encode(TEXT)
    cross = walk(runners["translator"], recordings("translator"), "cross", 0, 0)
    assert cross.key_tokens == enc.query_tokens and cross.query_tokens[0] in ("<2zh>", "<2en>")
    for scheme in ("gpt-rope", "gpt-alibi"):
        w = walk(runners[scheme], recordings(scheme), "decoder", 0, 0)
        assert w.query_position is None  # position enters inside attention


@pytest.mark.parametrize("name,kind", MODEL_KINDS)
def test_code_is_read_from_the_model_files(name, kind, runners):
    c = runners[name].config
    code = code_for(c.arch, c.positional, kind)
    assert set(code) == set(STEPS)
    for step, snippets in code.items():
        assert snippets, step
        for sn in snippets:
            assert sn.found, f"{step}: a marker in {sn.name} no longer matches {sn.path}"
            lines = (ROOT / sn.path).read_text(encoding="utf-8").splitlines()
            shown = sn.text.splitlines()
            file_part = lines[sn.first_line - 1 : sn.first_line - 1 + len(shown)]
            assert [s.strip() for s in file_part] == [s.strip() for s in shown], (step, sn.name)
    joined = {step: "\n".join(s.text for s in snippets) for step, snippets in code.items()}
    assert "torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)" in joined["scale"]
    assert "masked_fill(mask == 0, -1e9)" in joined["mask"]
    assert "F.softmax" in joined["softmax"]
    assert "torch.matmul(attention_weights, V)" in joined["weighted"]
    assert "self.W_o(concat)" in joined["concat"]
    assert "split_heads" in joined["qkv"]


def test_bad_indices_are_input_errors(runners, recordings):
    gpt = runners["gpt"]
    for kwargs in (
        {"layer": -1},
        {"layer": gpt.config.num_layers},
        {"head": gpt.config.num_heads},
        {"head": -1},
        {"kind": "cross"},
        {"kind": "encoder"},
    ):
        with pytest.raises(InputError):
            walk(gpt, recordings("gpt"), **{"kind": "decoder", "layer": 0, "head": 0, **kwargs})
    with pytest.raises(InputError):
        walk(gpt, "   ")
    with pytest.raises(ValueError):
        walk(runners["gpt-rope"], recordings("gpt"), "decoder", 0, 0)  # a recording of another model


def test_one_token_and_maximum_length(runners):
    gpt, tr = runners["gpt"], runners["translator"]
    w = walk(gpt, "猫", "decoder", 0, 0)  # one token ("cat" is two: c + at)
    assert w.query_tokens == ["<s>", "猫"] and w.weights.shape == (2, 2)
    for kind in ("encoder", "decoder", "cross"):
        w = walk(tr, "猫", kind, 0, 0)
        assert w.weights.shape == (len(w.query_tokens), len(w.key_tokens))
        if kind != "decoder":
            assert w.key_tokens == ["猫"]
        assert np.allclose(w.weights.sum(-1), 1, atol=1e-5)
    long = " ".join(["the cat sat on the mat"] * 40)  # far more tokens than either model reads
    rec = record(gpt, long)
    assert isinstance(rec, Recording)
    w = walk(gpt, rec, "decoder", gpt.config.num_layers - 1, gpt.config.num_heads - 1)
    assert len(w.query_tokens) == gpt.config.max_seq_len
    assert any("cut" in n for n in w.notices)
    r = recompute(gpt, w)
    close(w.weights, r["weights"], "weights at maximum length")
    w = walk(tr, long, "encoder", 0, 0)
    assert len(w.query_tokens) == tr.config.max_seq_len


SCRIPTS = [
    "我爱北京天安门",
    "Où est la bibliothèque ?",
    "Grüße aus München",
    "Привет, как дела?",
    "I ❤️ my 🐱 and 🐶",
    "नमस्ते दुनिया",
    "猫 " * 300,
]


@pytest.mark.parametrize("name", model.NAMES)
def test_any_script_and_cut_text_for_every_model(runners, name):
    """The step page reads the token ids the model recorded (no recovery from the embeddings):
    every script, byte pieces and a text cut to the model's length walk; the ids are the
    tokenizer's own, and step 7's weights are the trace's."""
    r = runners[name]
    for text in SCRIPTS:
        rec = record(r, text)
        for kind in r.kinds:
            w = walk(r, rec, kind, r.config.num_layers - 1, 0)
            src = r.tokenizer.encode(" ".join(text.split()))[: r.config.max_seq_len]
            if kind != "decoder" or name != "translator":
                ids = w.key_ids if kind == "cross" else w.query_ids
                assert ids == ([BOS] + src)[: r.config.max_seq_len] if r.can_continue_text else ids == src, (text, kind)
            np.testing.assert_allclose(w.weights, rec.trace.attention[kind].weights[-1, 0], atol=1e-6)
            assert max(w.check.values()) < 1e-4, (text, kind, w.check)
