"""Switching heads off and editing rows (analysis/intervene.py), checked against independent forwards:
a numpy GPT written here from the weights, the same model with the head's slice of W^O zeroed, and
(for Hugging Face) GPT-2 / LLaMA with the head's rows of the output projection zeroed."""

from __future__ import annotations

import copy
import io
import json
import math
from contextlib import redirect_stdout

import numpy as np
import pytest
import torch

import model
from analysis import intervene
from model import intervention
from model.__main__ import main as cli
from model.errors import InputError

GPT_TEXT = "The cat saw the dog. It was tired."
TR_TEXT = "The cat sat on the mat"


@pytest.fixture(scope="module")
def gpt():
    return model.load("gpt", device="cpu")


@pytest.fixture(scope="module")
def translator():
    return model.load("translator", device="cpu")


# -- an independent forward of our GPT in numpy (float64) ---------------------------------------------
def numpy_gpt(module, ids, ablate=None, how="zero", edit=None, ref=None, keep=None):
    """(log-probs (T, vocab), attention weights (layers, heads, T, T)); ablate=(layer, head),
    edit=(layer, head, query, row), both 0-based; ref (positions, d_k): the ablated head's output per
    position for how="mean"; keep: a dict that gets each layer's head outputs (H, T, d_k)."""
    P = {k: v.detach().double().numpy() for k, v in module.state_dict().items()}
    c = module.config
    H, d = c.num_heads, c.d_model
    dk, T = d // H, len(ids)

    def ln(x, name):
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-5) * P[name + ".weight"] + P[name + ".bias"]

    def lin(x, name):
        return x @ P[name + ".weight"].T + P[name + ".bias"]

    def heads(x):
        return x.reshape(T, H, dk).transpose(1, 0, 2)

    causal = np.tril(np.ones((T, T), dtype=bool))
    x = P["embedding.weight"][ids] + P["position.table.embedding.weight"][:T]
    all_w = []
    for i in range(c.num_layers):
        p = f"blocks.{i}."
        n = ln(x, p + "norm1")
        q, k, v = (heads(lin(n, p + f"attn.W_{m}")) for m in "qkv")
        s = np.where(causal, q @ k.transpose(0, 2, 1) / math.sqrt(dk), -np.inf)
        w = np.exp(s - s.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        if edit is not None and edit[0] == i:
            w[edit[1], edit[2]] = edit[3]
        if ablate is not None and ablate[0] == i and how == "uniform":
            w[ablate[1]] = causal / causal.sum(-1, keepdims=True)
        o = w @ v  # (H, T, dk)
        if ablate is not None and ablate[0] == i and how == "zero":
            o[ablate[1]] = 0.0
        if ablate is not None and ablate[0] == i and how == "mean":
            o[ablate[1]] = ref[:T]
        if keep is not None:
            keep[i] = o.copy()
        x = x + lin(o.transpose(1, 0, 2).reshape(T, d), p + "attn.W_o")
        x = x + lin(np.maximum(lin(ln(x, p + "norm2"), p + "ffn.linear1"), 0), p + "ffn.linear2")
        all_w.append(w)
    logits = ln(x, "norm") @ P["embedding.weight"].T
    logp = logits - logits.max(-1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(-1, keepdims=True))
    return logp, np.stack(all_w)


def _gpt_logp(m, ids, iv):
    return intervene.gpt_scores(m, ids, iv, 1)[0].numpy()


def numpy_reference(module, runner, layer, head):
    """That head's mean output per position over the reference items (corpus.gpt_items(64, 2027,
    "heldout")), each run alone through the numpy GPT: (positions, d_k)."""
    from data import corpus

    sums = np.zeros((runner.config.max_seq_len, module.config.d_model // module.config.num_heads))
    counts = np.zeros(runner.config.max_seq_len)
    for _, text in corpus.gpt_items(2 * intervention.REFERENCE_PAIRS, intervention.REFERENCE_SEED, "heldout"):
        ids = runner.prompt_ids(text)[1]
        keep: dict = {}
        numpy_gpt(module, ids, keep=keep)
        sums[: len(ids)] += keep[layer][head]
        counts[: len(ids)] += 1
    seen = counts > 0
    return sums[seen] / counts[seen, None]


@pytest.mark.parametrize("how", ["zero", "mean", "uniform"])
def test_gpt_ablation_equals_a_numpy_forward_with_the_head_switched_off(gpt, how):
    layer, head = 1, 2
    base = gpt.trace(GPT_TEXT)
    tr = gpt.trace(GPT_TEXT, ablate=[("decoder", layer, head)], how=how)
    ids = gpt.prompt_ids(GPT_TEXT)[1]
    ref = numpy_reference(gpt.module, gpt, layer, head) if how == "mean" else None
    if ref is not None:
        assert len(ref) >= len(ids)  # the reference reaches every position of this text
    logp, w = numpy_gpt(gpt.module, ids, (layer, head), how, ref=ref)
    got = tr.attention["decoder"].weights
    np.testing.assert_allclose(got, w, atol=1e-5)
    np.testing.assert_allclose(
        _gpt_logp(gpt, ids, intervention.build(gpt, [("decoder", layer, head)], how)), logp, atol=1e-4
    )
    # only what flows through the head changes: the layers up to it see the same input
    b = base.attention["decoder"].weights
    np.testing.assert_array_equal(got[:layer], b[:layer])
    if how != "uniform":
        np.testing.assert_array_equal(got[layer], b[layer])  # its own weights are still computed
    assert np.abs(got[layer + 1 :] - b[layer + 1 :]).max() > 1e-4  # ... and what reads its output moves
    assert tr.intervention == {"how": how, "ablate": ["decoder:2:3"], "edits": []}


def test_gpt_edit_equals_a_numpy_forward_with_that_row_replaced(gpt):
    ids = gpt.prompt_ids(GPT_TEXT)[1]
    toks = gpt.tokenizer.labels(ids)
    q, dog, cat = toks.index("It"), toks.index("dog"), toks.index("cat")
    base = gpt.trace(GPT_TEXT).attention["decoder"].weights
    row = intervention.moved(base[1, 2, q], cat, dog)
    tr = gpt.trace(GPT_TEXT, edit=("decoder", 1, 2, q, row))
    logp, w = numpy_gpt(gpt.module, ids, edit=(1, 2, q, row / row.sum()))
    np.testing.assert_allclose(tr.attention["decoder"].weights, w, atol=1e-5)
    np.testing.assert_allclose(tr.attention["decoder"].weights[1, 2, q], row, atol=1e-6)
    assert tr.attention["decoder"].weights[1, 2, q, cat] == 0
    iv = intervention.build(gpt, edit=("decoder", 1, 2, q, row))
    np.testing.assert_allclose(_gpt_logp(gpt, ids, iv), logp, atol=1e-4)
    assert tr.intervention["edits"][0]["head"] == "decoder:2:3"


def _without_head(m, kind, layer, head):
    """A copy of the translator whose head's slice of W^O is zero: the head's output cannot reach anything."""
    module = copy.deepcopy(m.module)
    stack = module.encoder_layers if kind == "encoder" else module.decoder_layers
    attn = {"encoder": "self_attn", "decoder": "self_attn", "cross": "cross_attn"}[kind]
    mha = getattr(stack[layer], attn)
    with torch.no_grad():
        mha.W_o.weight[:, head * mha.d_k : (head + 1) * mha.d_k] = 0
    return type(m)(m.name, module, m.tokenizer, m.device)


@pytest.mark.parametrize("kind", ["encoder", "decoder", "cross"])
def test_translator_zero_ablation_equals_the_head_cut_out_of_w_o(translator, kind):
    tr = translator.trace(TR_TEXT, ablate=[(kind, 1, 1)])
    ref = _without_head(translator, kind, 1, 1).trace(TR_TEXT)
    assert tr.output_text == ref.output_text
    for k in ("encoder", "decoder", "cross"):
        np.testing.assert_allclose(tr.attention[k].weights, ref.attention[k].weights, atol=1e-5)
    base = translator.trace(TR_TEXT)
    if kind != "encoder" and base.output_text == tr.output_text:  # the encoder never reads the decoder
        np.testing.assert_array_equal(tr.attention["encoder"].weights, base.attention["encoder"].weights)


def test_translator_uniform_weights_are_uniform_over_visible_keys(translator):
    tr = translator.trace(TR_TEXT, ablate=[("decoder", 0, 3)], how="uniform")
    w = tr.attention["decoder"].weights[0, 3]
    mask = tr.attention["decoder"].mask
    np.testing.assert_allclose(w, mask / mask.sum(-1, keepdims=True), atol=1e-7)


def test_gpt_importance_grid_equals_one_head_at_a_time(gpt):
    imp = intervene.importance(gpt, GPT_TEXT)
    ids = gpt.prompt_ids(GPT_TEXT)[1]
    base = torch.from_numpy(_gpt_logp(gpt, ids, None))[None]
    assert len(imp.heads) == gpt.config.num_layers * gpt.config.num_heads
    for (kind, layer, head), kl in zip(imp.heads, imp.kl):
        one = torch.from_numpy(_gpt_logp(gpt, ids, intervention.build(gpt, [(kind, layer, head)])))[None]
        assert kl == pytest.approx(intervene.kl_per_position(base, one).mean(), abs=1e-5)
    assert (imp.kl >= -1e-6).all() and imp.kl.max() > 0.01


def test_translator_importance_grid_equals_one_head_at_a_time(translator):
    imp = intervene.importance(translator, TR_TEXT)
    assert len(imp.heads) == 3 * translator.config.num_layers * translator.config.num_heads
    _, src, _ = translator.ids(TR_TEXT)
    start = translator.start_token(translator.direction(TR_TEXT))
    base_logp, _, target = intervene.translator_scores(translator, src, start, None, 1)
    for i, h in enumerate(imp.heads):
        logp, _, _ = intervene.translator_scores(
            translator, src, start, intervention.build(translator, [h]), 1, tgt_ids=target
        )
        assert imp.delta_logp[i] == pytest.approx(logp[0] - base_logp[0], abs=1e-4)
        out = translator.trace(TR_TEXT, ablate=[h]).output_text
        assert imp.outputs[i] == out and imp.changed[i] == (out != imp.output)


@pytest.mark.parametrize(
    "bad", [[("cross", 0, 0)], [("decoder", 9, 0)], [("decoder", 0, -1)], ["decoder:0:1"], ["decoder-1-1"]]
)
def test_heads_the_model_does_not_have_are_clear_errors(gpt, bad):
    with pytest.raises(InputError):
        gpt.trace(GPT_TEXT, ablate=bad)


def test_bad_ablation_and_bad_edits_are_clear_errors(gpt, translator):
    with pytest.raises(InputError):
        gpt.trace(GPT_TEXT, ablate=[("decoder", 0, 0)], how="half")
    with pytest.raises(InputError):
        gpt.trace(GPT_TEXT, edit=("decoder", 0, 0, 2, [0.5, -0.5]))
    with pytest.raises(InputError):  # a later token: the mask hides it
        gpt.trace(GPT_TEXT, edit=("decoder", 0, 0, 1, [0, 0, 0, 1] + [0] * 8))
    with pytest.raises(InputError):  # wrong number of keys
        translator.trace(TR_TEXT, edit=("encoder", 0, 0, 1, [1.0, 0.0]))


def _cli(*args):
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli(list(args))
    return code, out.getvalue()


def test_cli_ablate_and_importance():
    code, out = _cli(
        "trace", "--model", "translator", "--text", TR_TEXT, "--ablate", "cross:2:2", "--ablate-how", "zero", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["intervention"] == {"how": "zero", "ablate": ["cross:2:2"], "edits": []}
    m = model.load("translator", device="cpu")
    assert data["output_text"] == m.trace(TR_TEXT, ablate=[("cross", 1, 1)]).output_text
    code, out = _cli("importance", "--model", "gpt", "--text", GPT_TEXT, "--json")
    rows = json.loads(out)["heads"]
    assert code == 0 and len(rows) == 12 and {r["head"] for r in rows} >= {"decoder:1:1", "decoder:3:4"}
    assert cli(["trace", "--model", "gpt", "--text", "x", "--ablate", "cross:1:1"]) == 2


# -- Hugging Face: the same ablation through the registered attention function -------------------------
def test_hf_t5_cross_attention_ablation_reaches_only_the_cross_attention(tiny, monkeypatch):
    """T5's EncDecAttention is "cross": switched off, it equals the model with that head's columns of
    its output map zeroed (greedy output and all three kinds of weights)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ATTN_HF", "1")
    m = model.load(f"hf:{tiny['t5']}", device="cpu")
    tr = m.trace(TR_TEXT, ablate=[("cross", 0, 1)])
    ref = copy.deepcopy(m.hf_model)
    with torch.no_grad():
        ref.decoder.block[0].layer[1].EncDecAttention.o.weight[:, 16:32] = 0
    src = m.tokenizer.tok(TR_TEXT)["input_ids"]
    out = ref.generate(
        input_ids=torch.tensor([src]),
        max_new_tokens=min(m.config.max_seq_len, 2 * len(src) + 16),
        do_sample=False,
        num_beams=1,
    )
    tgt = out[0].tolist()
    body = []
    for i in tgt[1:]:
        if i == 1:
            break
        if i != 0:  # as the adapter's greedy output: pad tokens are left out
            body.append(i)
    tgt = tgt[:1] + body
    assert m.tokenizer.decode(tgt[1:]) == tr.output_text and len(tr.attention["decoder"].query_tokens) == len(tgt)
    with torch.no_grad():
        r = ref(input_ids=torch.tensor([src]), decoder_input_ids=torch.tensor([tgt]), output_attentions=True)
    for kind, atts in (
        ("encoder", r.encoder_attentions),
        ("decoder", r.decoder_attentions),
        ("cross", r.cross_attentions),
    ):
        np.testing.assert_allclose(tr.attention[kind].weights, torch.stack([a[0] for a in atts]).numpy(), atol=1e-5)
    base = m.trace(TR_TEXT).attention
    np.testing.assert_array_equal(tr.attention["encoder"].weights, base["encoder"].weights)  # upstream: untouched


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_hf_zero_ablation_equals_the_head_cut_out_of_the_output_projection(tiny, name, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ATTN_HF", "1")
    m = model.load(f"hf:{tiny[name]}", device="cpu")
    tr = m.trace(TR_TEXT, ablate=[("decoder", 0, 1)])
    assert tr.intervention["ablate"] == ["decoder:1:2"]
    ref_model = copy.deepcopy(m.hf_model)
    d = m.config.d_model // m.config.num_heads
    with torch.no_grad():
        if name == "gpt2":  # Conv1D: x @ weight, rows are the input features
            ref_model.transformer.h[0].attn.c_proj.weight[d : 2 * d] = 0
        else:
            ref_model.model.layers[0].self_attn.o_proj.weight[:, d : 2 * d] = 0
    ids = m.prompt_ids(TR_TEXT)[1] if hasattr(m, "prompt_ids") else m._prompt_ids(TR_TEXT, 64)[1]
    with torch.no_grad():
        out = ref_model(input_ids=torch.tensor([ids]), output_attentions=True)
    ref = torch.stack([a[0] for a in out.attentions]).numpy()
    np.testing.assert_allclose(tr.attention["decoder"].weights, ref, atol=1e-5)
    assert np.abs(ref[1] - m.trace(TR_TEXT).attention["decoder"].weights[1]).max() > 1e-6
    uni = m.trace(TR_TEXT, ablate=[("decoder", 1, 3 if name == "llama" else 1)], how="uniform")
    w = uni.attention["decoder"].weights[1, 3 if name == "llama" else 1]
    causal = np.tril(np.ones_like(w, dtype=bool))
    np.testing.assert_allclose(w, causal / causal.sum(-1, keepdims=True), atol=1e-6)


def test_sink_heads_and_position_alignment():
    rng = np.random.default_rng(0)
    T = 5
    causal = np.tril(np.ones((T, T), dtype=bool))
    w = rng.random((2, 3, T, T)) * causal
    w[1, 2, :, 0] += 10 * causal[:, 0]  # layer 2 head 3 parks its weight on the first token
    w /= w.sum(-1, keepdims=True)
    share = w[:, :, 1:, 0].mean(-1)  # row 0 sees only the first token: left out
    uniform = np.mean([1 / 2, 1 / 3, 1 / 4, 1 / 5])  # what rows 1-4 would give key 0 with uniform weights
    assert intervene.sink_heads(w, causal) == [(int(a), int(b)) for a, b in zip(*np.nonzero(share >= 2 * uniform))]
    assert intervene.sink_heads(w, causal) == [(1, 2)] and share[1, 2] > 0.8
    assert 0.3 <= share.max(where=share < 0.8, initial=0) < 2 * uniform  # a 30 % head here is no sink
    a, b, mask, cut = intervene.align(w, w[..., :4, :3], causal, None)
    assert a.shape[-2:] == b.shape[-2:] == (4, 3) and cut
    np.testing.assert_array_equal(mask, causal[:4, :3])
    assert not intervene.align(w, w)[3]


# -- "mean" ablation leaks no future ------------------------------------------------------------------
def test_mean_ablation_leaves_earlier_positions_unchanged_when_a_later_token_changes(gpt, translator):
    """With a head mean-ablated, a position's logits depend on nothing after it: two GPT texts that
    differ only in their last token, and two teacher-forced translations that differ only in their
    last target token, give bit-identical logits before it (the mean over the sentence's own
    positions moved them by up to 0.012 in cross-attention), while the last position does change."""
    from model.tokenizer import TO_ZH

    a, b = (gpt.prompt_ids(t)[1] for t in ("The cat sat on the mat", "The cat sat on the bed"))
    assert a[:-1] == b[:-1] and a[-1] != b[-1]
    for layer, head in ((0, 0), (1, 2), (2, 3)):
        iv = intervention.build(gpt, [("decoder", layer, head)], "mean")
        la, lb = (intervene.gpt_scores(gpt, ids, iv, 1)[0].numpy() for ids in (a, b))
        np.testing.assert_array_equal(la[:-1], lb[:-1])
        assert np.abs(la[-1] - lb[-1]).max() > 1e-3

    src = translator.ids(TR_TEXT)[1]
    tgt_a = [TO_ZH] + translator.tokenizer.encode("猫坐在垫子上")
    tgt_b = [TO_ZH] + translator.tokenizer.encode("猫坐在垫子下")
    assert tgt_a[:-1] == tgt_b[:-1] and tgt_a[-1] != tgt_b[-1]
    for head in (("cross", 0, 0), ("cross", 1, 3), ("decoder", 0, 1), ("encoder", 1, 0)):
        s = intervene._settings(intervention.build(translator, [head], "mean"))

        def logits(tgt, s=s):
            return translator.run(lambda m, dev: m(torch.tensor([src]), torch.tensor([tgt]), s)[0][0].numpy())

        la, lb = logits(tgt_a), logits(tgt_b)
        np.testing.assert_array_equal(la[:-1], lb[:-1])
        assert np.abs(la[-1] - lb[-1]).max() > 1e-3


def test_reference_means_are_per_position_means_of_separate_runs(translator):
    """reference_means (one padded batch) against each reference sentence run alone with record:
    the mean at every position of the head outputs of the sentences that reach it."""
    from data import corpus
    from model.tokenizer import TO_EN, TO_ZH

    means = intervention.reference_means(translator)
    tok = translator.tokenizer
    pairs = corpus.heldout_pairs(intervention.REFERENCE_PAIRS, intervention.REFERENCE_SEED)
    runs = [(tok.encode(p.en), [TO_ZH] + tok.encode(p.zh)) for p in pairs]
    runs += [(tok.encode(p.zh), [TO_EN] + tok.encode(p.en)) for p in pairs]
    sums = {k: np.zeros(v.shape, dtype=np.float64) for k, v in means.items()}
    counts = {k: np.zeros(v.shape[1]) for k, v in means.items()}
    for src, tgt in runs:
        rec: dict = {}
        translator.run(
            lambda m, dev, src=src, tgt=tgt, rec=rec: m(torch.tensor([src]), torch.tensor([tgt]), record=rec)
        )
        for (kind, layer), total in sums.items():
            part = rec["encoder" if kind == "encoder" else "decoder"][layer]
            out = part["cross_attn" if kind == "cross" else "self_attn"]["head_outputs"][0].double().numpy()
            total[:, : out.shape[1]] += out
            counts[(kind, layer)][: out.shape[1]] += 1
    for key, got in means.items():
        np.testing.assert_allclose(got.numpy(), sums[key] / counts[key][None, :, None], atol=1e-5)


def test_mean_help_says_the_reference_is_held_out_sentences_at_the_same_position():
    from ui.i18n import TABLE

    for lang in ("en", "zh"):
        text = " ".join(v[lang] for k, v in TABLE.items() if k.startswith("iv_how") and isinstance(v, dict))
        assert (
            ("held-out" in text and "same position" in text)
            if lang == "en"
            else ("留出" in text and "同一位置" in text)
        )
