"""Training snapshots and the timeline's numbers, on the shipped snapshots in model/weights.

Oracles: the snapshot files read with safetensors' numpy loader and dequantised here (int8 x
per-row scale); the shipped weights themselves; the exact match the training run wrote beside the
last snapshot, recomputed by translating the same held-out sentences; role scores recomputed with
numpy from the attention weights; alignment links written out by hand for one sentence.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file

import model
from analysis import timeline as probes
from data import corpus
from model import registry
from model.errors import InputError
from model.tokenizer import BOS, EOS, TO_EN, TO_ZH, Tokenizer
from training import snapshots
from viz.timeline import FORMED, formation, formed_heads, largest_rise

MODELS = [n for n in ("translator", "gpt") if registry.snapshots_of(n)]
needs_snapshots = pytest.mark.skipif(len(MODELS) < 2, reason="needs the shipped snapshots of translator and gpt")


def steps(name):
    return [s["step"] for s in model.snapshots_of(name)]


@pytest.fixture(scope="module")
def load():
    loaded = {}

    def get(name):
        if name not in loaded:
            loaded[name] = model.load(name, device="cpu")
        return loaded[name]

    return get


# -- names ----------------------------------------------------------------------------------------
def test_split_snapshot_names():
    assert registry.split_snapshot("gpt") == ("gpt", None)
    assert registry.split_snapshot("translator@300") == ("translator", 300)
    for bad in ("gpt@", "gpt@x", "gpt@-1", "gpt@1.5", "gpt@١٢"):
        with pytest.raises(InputError):
            registry.split_snapshot(bad)


@needs_snapshots
def test_unknown_step_names_the_steps_there_are():
    with pytest.raises(InputError, match="snapshots: 0, "):
        model.load("gpt@999999999", device="cpu")


# -- the stored snapshots ---------------------------------------------------------------------------
@needs_snapshots
@pytest.mark.parametrize("name", ["translator", "gpt"])
def test_index_schedule_starts_at_random_init_and_ends_at_the_shipped_weights(name):
    snaps = model.snapshots_of(name)
    assert len(snaps) >= 5
    assert snaps[0]["step"] == 0 and [s["step"] for s in snaps] == sorted({s["step"] for s in snaps})
    assert snaps[-1]["shipped"] and not any(s["shipped"] for s in snaps[:-1])
    assert all(s["metrics"]["step"] == s["step"] for s in snaps)
    index = snapshots.read_index(name, registry.weights_dir())
    assert all(e["largest_attention_change"] <= snapshots.STORE_TOLERANCE for e in index["snapshots"])
    # the run's own notes list the same steps
    assert registry.read_config(name)[1]["trained"]["snapshots"] == [s["step"] for s in snaps]


@needs_snapshots
@pytest.mark.parametrize("name", ["translator", "gpt"])
def test_a_snapshot_loads_the_stored_weights_and_traces(name, load):
    """Every weight of the loaded step-0 model equals the file dequantised here with numpy (int8
    groups times their float16 scales, cut to the tensor's shape)."""
    first = steps(name)[0]
    index = snapshots.read_index(name, registry.weights_dir())["snapshots"][0]
    stored = load_file(str(snapshots.directory(name, registry.weights_dir()) / index["file"]))
    m = load(f"{name}@{first}")
    assert m.name == f"{name}@{first}" and m.trained
    state = {k: v.numpy() for k, v in m.module.state_dict().items()}
    seen = 0
    for key, value in stored.items():
        if key.endswith((".scale", ".shape")):
            continue
        if key.endswith(".q"):  # int8 (rows, groups, size) with one float16 scale per group
            base = key[:-2]
            shape = tuple(int(n) for n in stored[base + ".shape"])
            scale = stored[base + ".scale"].astype(np.float32)
            rows = (value.astype(np.float32) * scale[..., None]).reshape(value.shape[0], -1)
            want = rows[:, : int(np.prod(shape[1:], dtype=int)) if len(shape) > 1 else shape[0]].reshape(shape)
        else:
            base, want = key, value.astype(np.float32)
        np.testing.assert_allclose(state[base], want, rtol=1e-6, atol=1e-7, err_msg=base)
        seen += 1
    assert seen == len([k for k in state if k != "lm_head.weight"])
    tr = m.trace("The cat sat on the mat")
    for att in tr.attention.values():
        np.testing.assert_allclose(att.weights.sum(-1), 1.0, atol=1e-5)
    # step 0 is the random start: it does not attend like the shipped model
    shipped = load(name).trace("The cat sat on the mat")
    kind = tr.kinds()[0]
    assert np.abs(tr.attention[kind].weights - shipped.attention[kind].weights).max() > 0.05


@needs_snapshots
@pytest.mark.parametrize("name", ["translator", "gpt"])
def test_the_last_snapshot_is_the_shipped_model(name, load):
    last = load(f"{name}@{steps(name)[-1]}")
    shipped = load(name)
    a, b = last.module.state_dict(), shipped.module.state_dict()
    assert a.keys() == b.keys()
    for k in a:  # float16 precision at least (here: the same file)
        torch.testing.assert_close(a[k], b[k], rtol=2**-10, atol=1e-4)
    text = "狗咬人" if name == "translator" else "The girl fed the dog. She was happy."
    ta, tb = last.trace(text), shipped.trace(text)
    assert ta.output_text == tb.output_text
    for kind in ta.kinds():
        np.testing.assert_allclose(ta.attention[kind].weights, tb.attention[kind].weights, atol=1e-3)


@needs_snapshots
def test_the_last_snapshots_exact_match_is_the_shipped_translators(load):
    """The metrics beside the last snapshot describe the shipped weights: translate the same 100
    held-out pairs (seed 4321, as the training probe) and count exact matches."""
    metrics = model.snapshots_of("translator")[-1]["metrics"]
    m = load("translator")
    pairs = corpus.heldout_pairs(256, seed=4321)[:100]
    zh = m.translate([p.en for p in pairs], direction="en-zh")
    en = m.translate([p.zh for p in pairs], direction="zh-en")
    assert np.mean([h == p.zh for h, p in zip(zh, pairs)]) == pytest.approx(metrics["exact_match_en-zh"], abs=0.011)
    assert np.mean([h == p.en for h, p in zip(en, pairs)]) == pytest.approx(metrics["exact_match_zh-en"], abs=0.011)


# -- role scores, recomputed with numpy --------------------------------------------------------------
def test_alignment_links_of_the_cat_sentence():
    tok = Tokenizer.load()
    en, zh = tok.encode("The cat sat on the mat"), tok.encode("猫坐在垫子上")
    links = probes.alignment_links(
        tok.labels(en), tok.word_labels(en), tok.word_ids(en), tok.word_labels(zh), tok.word_ids(zh), to_zh=True
    )
    shown = {tok.labels(zh)[t]: sorted(tok.labels(en)[s] for s in src) for t, src in links}
    assert shown == {"猫": ["cat"], "坐": ["sat"], "在": ["on"], "垫子": ["mat"], "上": ["on"]}
    back = probes.alignment_links(
        tok.labels(zh), tok.word_labels(zh), tok.word_ids(zh), tok.word_labels(en), tok.word_ids(en), to_zh=False
    )
    shown = {tok.labels(en)[t]: sorted(tok.labels(zh)[s] for s in src) for t, src in back}
    assert shown == {"cat": ["猫"], "sat": ["坐"], "on": ["上", "在"], "mat": ["垫子"]}


def test_pronoun_probe_points_each_pronoun_at_the_storys_first_noun():
    tok = Tokenizer.load()
    probe = probes.pronoun_probe(tok)
    assert len(probe) == probes.PROBE_PAIRS
    shown = [(tok.labels(ids)[row], [tok.labels(ids)[c] for c in cols]) for ids, row, cols in probe]
    assert shown[0] == ("She", ["mother"])  # "The mother was sad. She sat near the bowl."
    assert ("它", ["椅子"]) in shown  # "绿椅子在脏房子后面。它很大。"
    for ids, row, cols in probe:
        assert cols and max(cols) < row and tok.labels(ids)[row].lower() in {"it", "he", "she", "它", "他", "她"}


def _forward(module, *ids):
    with torch.no_grad():
        _, w = module(*(torch.tensor([x]) for x in ids))
    return {k: v[:, 0].numpy().astype(np.float64) for k, v in w.items()}


def _previous(w):  # (L, H, T, T) -> mean over rows i >= 1 of w[i, i-1]
    t = w.shape[-1]
    return np.mean([w[..., i, i - 1] for i in range(1, t)], axis=0)


def _first(w, causal):  # causal row 0 has no choice (it can only see itself): left out
    t = w.shape[-1]
    return np.mean([w[..., i, 0] for i in range(1 if causal else 0, t)], axis=0)


@needs_snapshots
@pytest.mark.parametrize("name", ["translator", "gpt"])
def test_role_scores_recomputed_with_numpy(name, load):
    tok = load(name).tokenizer
    for step in (steps(name)[0], steps(name)[len(steps(name)) // 2], steps(name)[-1]):
        m = load(f"{name}@{step}")
        got = probes.role_scores(m)
        want = {}
        if name == "translator":
            enc_p, enc_f, dec_p, dec_f, align = [], [], [], [], []
            for p in corpus.heldout_pairs(probes.PROBE_PAIRS, seed=probes.PROBE_SEED):
                for src, tgt, start, to_zh in ((p.en, p.zh, TO_ZH, True), (p.zh, p.en, TO_EN, False)):
                    s, t = tok.encode(src), tok.encode(tgt)
                    w = _forward(m.module, s, [start] + t)
                    enc_p.append(_previous(w["encoder"]))
                    enc_f.append(_first(w["encoder"], causal=False))
                    dec_p.append(_previous(w["decoder"]))
                    dec_f.append(_first(w["decoder"], causal=True))
                    links = probes.alignment_links(
                        tok.labels(s), tok.word_labels(s), tok.word_ids(s), tok.word_labels(t), tok.word_ids(t), to_zh
                    )
                    # row k reads decoder token k and writes target piece k
                    cells = [sum(w["cross"][:, :, row, j] for j in src_pos) for row, src_pos in links]
                    if cells:
                        align.append(np.mean(cells, axis=0))
            want = {
                "encoder": {"previous": np.mean(enc_p, 0), "first": np.mean(enc_f, 0)},
                "decoder": {"previous": np.mean(dec_p, 0), "first": np.mean(dec_f, 0)},
                "cross": {"alignment": np.mean(align, 0)},
            }
        else:
            ws = [
                _forward(m.module, [BOS] + tok.encode(text) + [EOS])["decoder"]
                for _, text in corpus.gpt_items(probes.PROBE_PAIRS, probes.PROBE_SEED, split="heldout")
            ]
            period = probes.INDUCTION_PERIOD
            ordinary = [i for i in range(tok.vocab_size) if m.is_ordinary(i)]
            r = np.random.default_rng(0).choice(ordinary, size=period, replace=False).tolist()
            w = _forward(m.module, [BOS] + r + r)["decoder"]
            induction = np.mean([w[..., q, q - period + 1] for q in range(1 + period, 1 + 2 * period)], axis=0)
            pronoun = {}
            for lang in ("en", "zh"):
                pronoun[lang] = []
                for ids, row, cols in probes.pronoun_probe(tok, lang=lang):
                    w_ = _forward(m.module, ids)["decoder"]
                    pronoun[lang].append(sum(w_[:, :, row, c] for c in cols))
            want = {
                "decoder": {
                    "previous": np.mean([_previous(w) for w in ws], 0),
                    "first": np.mean([_first(w, causal=True) for w in ws], 0),
                    "pronoun_en": np.mean(pronoun["en"], 0),
                    "pronoun_zh": np.mean(pronoun["zh"], 0),
                    "induction": induction,
                }
            }
        assert got.keys() == want.keys()
        for kind in want:
            assert got[kind].keys() == want[kind].keys()
            for role in want[kind]:
                np.testing.assert_allclose(
                    got[kind][role], want[kind][role], atol=1e-5, err_msg=f"{name}@{step} {kind} {role}"
                )


# -- when a head forms -------------------------------------------------------------------------------
def test_formation_is_the_first_snapshot_from_which_the_score_stays_above_the_line():
    assert formation([0.1, 0.2, 0.6, 0.7, 0.9]) == 2
    assert formation([0.1, 0.6, 0.3, 0.55, 0.8]) == 3  # dipped below: forms again at 3
    assert formation([0.6, 0.7, 0.8]) is None  # had it from the start
    assert formation([0.1, 0.9, 0.4]) is None  # lost it by the end
    assert formation([0.1, FORMED]) == 1


def test_formed_heads_names_steps_either_side_and_orders_by_jump():
    steps_ = [0, 10, 100, 1000]
    c = np.zeros((4, 2, 2))
    c[:, 0, 1] = [0.1, 0.2, 0.9, 0.95]  # forms between 10 and 100, jump 0.7
    c[:, 1, 0] = [0.1, 0.45, 0.55, 0.6]  # forms between 10 and 100, jump 0.1
    c[:, 1, 1] = [0.1, 0.1, 0.1, 0.52]  # forms between 100 and 1000, jump 0.42
    got = formed_heads(steps_, {("cross", "alignment"): c})
    assert [(g["layer"], g["head"], g["before"], g["after"]) for g in got] == [
        (0, 1, 10, 100),
        (1, 1, 100, 1000),
        (1, 0, 10, 100),
    ]
    assert got[0]["score_before"] == pytest.approx(0.2) and got[0]["score_after"] == pytest.approx(0.9)


def test_largest_rise_is_the_biggest_step_up_of_any_line():
    c = np.zeros((3, 1, 2))
    c[:, 0, 0] = [0.1, 0.3, 0.2]
    c[:, 0, 1] = [0.1, 0.15, 0.45]
    got = largest_rise([0, 5, 50], {("decoder", "pronoun"): c})
    assert (got["head"], got["before"], got["after"]) == (1, 5, 50)
    assert got["score_before"] == pytest.approx(0.15) and got["jump"] == pytest.approx(0.30)
    assert largest_rise([0, 5], {("decoder", "pronoun"): np.ones((2, 1, 1))}) is None
