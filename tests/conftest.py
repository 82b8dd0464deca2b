import functools
import math
import os
import sys
from pathlib import Path

# One torch thread in every test process, as the app runs (ui/cache.py, the Dockerfile, the test
# servers of drive/server.py): set before torch is imported. With torch's default of a thread per
# core, two pytest-xdist workers ran four threads on the two cores, and a process that had not yet
# imported ui/cache.py (which sets one) ran two: tests/test_lessons.py's recomputation of two
# lessons took 82-88 s and 26-29 s of CPU against 15-21 s and 5 s with one thread (2026-12-04,
# load 11-13, the same run alternated twice). ATTN_TORCH_THREADS=N sets another number.
os.environ.setdefault("OMP_NUM_THREADS", os.environ.get("ATTN_TORCH_THREADS", "1"))
os.environ.setdefault("MKL_NUM_THREADS", os.environ["OMP_NUM_THREADS"])

import numpy as np  # noqa: E402
import pytest  # noqa: E402

TESTS_DIR = Path(__file__).resolve().parent
WEIGHTS = TESTS_DIR.parent / "model" / "weights"


def pytest_configure(config):
    """torch imported before this file (a plugin): its thread count set here instead."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


def _show_errors() -> None:
    """The app's errors as they are in tests (AppTest's at.exception): .streamlit/config.toml hides
    them from strangers (showErrorDetails "none"), so a failing page test printed only "the
    original error message is redacted". The served app's tests start it with "full" too
    (drive/server.py)."""
    from streamlit import config

    config.set_option("client.showErrorDetails", "full")


_show_errors()


def _scan_components_once() -> None:
    """AppTest looks for installed components (Streamlit's components-v2 manifests) on the first run
    of each new AppTest by reading every installed distribution's metadata: 0.1 s a page opened,
    10.8 % of a profile of test_explore.py (2026-12-05). The packages installed do not change
    during a test process, so it reads them once; the app server scans once at its start anyway."""
    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


_scan_components_once()
MAX_DECODE = 8  # cap_translation's length for an untrained translator (it never writes </s>)
# every model with each attention kind it has (tests that walk them all)
MODEL_KINDS = [
    ("translator", "encoder"),
    ("translator", "decoder"),
    ("translator", "cross"),
    ("gpt", "decoder"),
    ("gpt-rope", "decoder"),
    ("gpt-alibi", "decoder"),
]


def trained(name: str) -> bool:
    return (WEIGHTS / f"{name}.safetensors").exists()


def untrained(name: str) -> bool:
    """No trained weights where model/registry looks for NAME's (ATTN_WEIGHTS_DIR included)."""
    from model import registry

    return not registry.paths(name)[0].exists()


def cap_translation(mp, limit: int = MAX_DECODE) -> None:
    """Random weights never write </s>: cap the greedy translation's length (tests only)."""
    from model import transformer

    original = transformer.Transformer.greedy_decode

    def capped(self, src, start_ids, eos_id, max_len, settings=transformer.DEFAULT):
        return original(self, src, start_ids, eos_id, min(max_len, limit), settings)

    mp.setattr(transformer.Transformer, "greedy_decode", capped)


@pytest.fixture
def page_language(monkeypatch):
    """set(lang) for an AppTest of a page in that language: AppTest formats widget options in the
    test's own thread, where t() sees no session, so its fallback language must be the page's too,
    or the sidebar's translated options would not match. Returns ui.i18n.MISSING, emptied: it then
    collects every string key the page asked for with no text in that language."""
    from ui import i18n

    def set_lang(lang: str) -> set:
        monkeypatch.setattr(i18n, "DEFAULT_LANG", lang)
        i18n.MISSING.clear()
        return i18n.MISSING

    return set_lang


@pytest.fixture(autouse=True)
def heavy_budget_off(monkeypatch):
    """ui/slots.py's per-session budget of heavy CPU seconds is off in this process: a test's
    AppTest session runs many heavy computations in seconds (the editor's walk of every question
    type, every control of a page), a robot, not the visitor the budget is for, and its CPU seconds
    grow with the machine's load (the README's run of 2026-12-06 05:19 UTC, phase 1 at 458 s against
    300 s in a quiet hour, refused the editor's walk of the translator at its question type token_count).
    A test of the budget installs its own (slots.HEAVY_BUDGET, tests/test_hostile_lanes.py,
    tests/test_lesson_budget.py); a served app (a subprocess: the browser tests, the benches) keeps
    its own."""
    from ui import slots

    monkeypatch.setattr(slots.HEAVY_BUDGET, "budget", 0.0)


@pytest.fixture(autouse=True)
def language_restored():
    """open_page(..., lang=) sets ui.i18n's fallback language for the AppTest it opens (see
    tests/apptest.use_language); after each test it is the default again. The module is imported
    both as `apptest` and as `tests.apptest`; either may have set it."""
    yield
    for name in ("apptest", "tests.apptest"):
        if name in sys.modules:
            sys.modules[name].restore_language()


@pytest.fixture
def random_where_untrained(monkeypatch):
    """For tests that open pages: seed-0 random weights only where trained ones are absent (the
    app's ATTN_RANDOM_WEIGHTS), and then a capped translation."""
    import model

    if any(untrained(n) for n in model.NAMES):
        monkeypatch.setenv("ATTN_RANDOM_WEIGHTS", "1")
        cap_translation(monkeypatch)


@pytest.fixture(scope="session")
def random_runner():
    """Load a model with seed-0 random weights (architecture tests need no training)."""
    import model

    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = model.load(name, device="cpu", random_weights=True)
        return cache[name]

    return get


# -- tiny Hugging Face models (tests/test_hf.py, tests/test_messages.py) --------------------------------
HF_CORPUS = [
    "The cat sat on the mat.",
    "The dog bit the man.",
    "A bird sings in the morning light.",
    "猫坐在垫子上。",
    "Emoji 😀 and café are fine.",
    "the mat sat on the cat",
] * 20


def _byte_bpe(transformers):
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(HF_CORPUS, vocab_size=400, min_frequency=1, special_tokens=["<|endoftext|>"])
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer, bos_token="<|endoftext|>", eos_token="<|endoftext|>"
    )


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """{"gpt2" | "llama" | "bert" | "t5": folder}: tiny random Hugging Face models (2 layers) saved
    with tokenizers trained here (byte-level BPE, WordPiece, SentencePiece unigram); no network.
    Skips the test when transformers is not installed (pip install -r requirements-hf.txt)."""
    transformers = pytest.importorskip("transformers")
    import torch
    from tokenizers import BertWordPieceTokenizer, SentencePieceUnigramTokenizer
    from tokenizers.processors import TemplateProcessing

    root = tmp_path_factory.mktemp("hf_tiny")
    torch.manual_seed(0)
    folders = {}

    def save(name, tok, module):
        folders[name] = str(root / name)
        tok.save_pretrained(folders[name])
        module.eval().save_pretrained(folders[name])

    tok = _byte_bpe(transformers)
    save(
        "gpt2",
        tok,
        transformers.GPT2LMHeadModel(
            transformers.GPT2Config(
                n_layer=2, n_head=2, n_embd=32, vocab_size=len(tok), n_positions=64, bos_token_id=0, eos_token_id=0
            )
        ),
    )
    save(
        "llama",
        tok,
        transformers.LlamaForCausalLM(
            transformers.LlamaConfig(
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=2,
                hidden_size=32,
                intermediate_size=64,
                vocab_size=len(tok),
                max_position_embeddings=64,
                bos_token_id=0,
                eos_token_id=0,
                pad_token_id=0,
            )
        ),
    )
    wp = BertWordPieceTokenizer(lowercase=True)
    wp.train_from_iterator(HF_CORPUS, vocab_size=300, min_frequency=1)
    tok = transformers.BertTokenizerFast(tokenizer_object=wp._tokenizer)
    save(
        "bert",
        tok,
        transformers.BertForMaskedLM(
            transformers.BertConfig(
                num_hidden_layers=2,
                num_attention_heads=2,
                hidden_size=32,
                intermediate_size=64,
                vocab_size=len(tok),
                max_position_embeddings=64,
            )
        ),
    )
    sp = SentencePieceUnigramTokenizer()
    sp.train_from_iterator(HF_CORPUS, vocab_size=200, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>")
    sp._tokenizer.post_processor = TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    # model_max_length: T5 has no position limit of its own; a short one keeps the random model's
    # endless greedy output (no </s>) short
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_object=sp._tokenizer, eos_token="</s>", pad_token="<pad>", unk_token="<unk>", model_max_length=24
    )
    save(
        "t5",
        tok,
        transformers.T5ForConditionalGeneration(
            transformers.T5Config(
                num_layers=2,
                num_heads=2,
                d_model=32,
                d_kv=16,
                d_ff=64,
                vocab_size=len(tok),
                decoder_start_token_id=0,
                pad_token_id=0,
                eos_token_id=1,
            )
        ),
    )
    return folders


@pytest.fixture(scope="session", autouse=True)
def apptest_setup():
    """Two changes to AppTest itself, none to the app:

    - One ScriptCache for the module: AppTest makes a new one on every run, so it re-parses
      app.py and the page (and rewrites their AST for magic) each time, most of a run's time.
      The files do not change while the tests run.
    - Every run as a server runs it once st.navigation has been called (PagesManager's
      pages/-folder mode off). A server is in that mode only until the first st.navigation call
      in its process; AppTest.run() puts it back before every run (streamlit/testing/v1/app_test.py
      sets PagesManager.uses_pages_directory = None, "to ensure st.navigation works correctly
      regardless of prior test state", and the new PagesManager sets it again because pages/
      exists). In that mode Streamlit runs its own navigation over the folder: app.py runs as
      that navigation's main page, and the page a test switched to (same url path) runs alone,
      until ui.run.current() reruns it through app.py. A widget's id includes the script hash
      of the page it is drawn in, and app.py-as-folder-page and app.py-as-entry have different
      ones, so from one AppTest run to the next the sidebar's widgets are new widgets and lose
      their values. Measured without this patch (2026-11-30): after open_page's switch_page the
      sentence is "" and the attention page draws no chart (tests/test_app_attention.py's first
      case fails on KeyError 'att_kind'); with open_alone a widget change runs the page file
      alone, without the sidebar (test_app_steps.py's presentation test). No public Streamlit
      call can stop AppTest's reset, so this stays. (A server shows the same loss once: in the
      first session of a fresh process that opens "/", the first click reset the sentence and
      the model, measured in Chromium; leaving the mode on a session's first run, before any
      widget, fixes that, but not AppTest, which re-enters the mode on every run.)
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    class NavigationSeen(PagesManager):
        def __init__(self, *args, **kwargs):
            PagesManager.uses_pages_directory = False  # as after st.navigation's first call
            super().__init__(*args, **kwargs)

    shared = ScriptCache()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(app_test, "ScriptCache", lambda: shared)
        mp.setattr(local_script_runner, "ScriptCache", lambda: shared)
        mp.setattr(app_test, "PagesManager", NavigationSeen)
        yield
        PagesManager.uses_pages_directory = None


# -- an independent recomputation of the step page's numbers from a model's weights (numpy, float64,
#    written from the formulas, not from our model code): tests/test_walkthrough.py, tests/test_app_steps.py
def P(t) -> np.ndarray:
    """A parameter as float64 numpy."""
    return t.detach().cpu().double().numpy()


def layer_norm(x, ln):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + ln.eps) * P(ln.weight) + P(ln.bias)


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def sinusoid(T, d):
    pos = np.arange(T)[:, None]
    i = np.arange(0, d, 2)[None, :]
    pe = np.zeros((T, d))
    pe[:, 0::2] = np.sin(pos / 10000 ** (i / d))
    pe[:, 1::2] = np.cos(pos / 10000 ** (i / d))
    return pe


def rotate(x, base=10000.0):
    """RoPE from its definition: pair (x_2i, x_2i+1) at position m turned by m * base^(-2i/d)."""
    T, d = x.shape
    theta = np.arange(T)[:, None] * base ** (-np.arange(0, d, 2) / d)[None, :]
    c, s = np.cos(theta), np.sin(theta)
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * c - x[:, 1::2] * s
    out[:, 1::2] = x[:, 0::2] * s + x[:, 1::2] * c
    return out


def mha_module(m, kind, layer):
    if m.config.arch == "gpt":
        return m.blocks[layer].attn
    if kind == "encoder":
        return m.encoder_layers[layer].self_attn
    return m.decoder_layers[layer].cross_attn if kind == "cross" else m.decoder_layers[layer].self_attn


def first_input(runner, ids):
    """X^(0) from the ids: embedding (x sqrt(d_model) for the translator) + position."""
    m, c = runner.module, runner.config
    x = P(m.embedding.weight)[ids]
    if c.arch == "transformer":
        x = x * math.sqrt(c.d_model)
    if c.positional == "sinusoidal":
        x = x + sinusoid(len(ids), c.d_model)
    elif c.positional == "learned":
        x = x + P(m.position.table.embedding.weight)[: len(ids)]
    return x


def recompute(runner, w):
    """Every step of w recomputed from the model's weights, from w's X (its inputs), in float64."""
    m, c = runner.module, runner.config
    mha = mha_module(m, w.kind, w.layer)
    h, d_k = c.num_heads, c.d_model // c.num_heads
    X, M = w.X.astype(np.float64), w.X_kv.astype(np.float64)
    out = {
        "Q_full": X @ P(mha.W_q.weight).T + P(mha.W_q.bias),
        "K_full": M @ P(mha.W_k.weight).T + P(mha.W_k.bias),
        "V_full": M @ P(mha.W_v.weight).T + P(mha.W_v.bias),
    }
    T, S = X.shape[0], M.shape[0]

    def per_head(full, n):  # (n, h*d_k) -> (h, n, d_k)
        return full.reshape(n, h, d_k).transpose(1, 0, 2)

    q, k, v = per_head(out["Q_full"], T), per_head(out["K_full"], S), per_head(out["V_full"], S)
    relative = w.kind != "cross"  # RoPE and ALiBi act within a sequence, not across
    if c.positional == "rope" and relative:
        q, k = np.stack([rotate(x) for x in q]), np.stack([rotate(x) for x in k])
    scores = q @ k.transpose(0, 2, 1)  # (h, T, S)
    scaled = scores / math.sqrt(d_k)
    biased = scaled.copy()
    if c.positional == "alibi" and relative:
        slopes = 2.0 ** (-8.0 * (np.arange(h) + 1) / h)
        biased = biased - slopes[:, None, None] * np.abs(np.arange(T)[:, None] - np.arange(S)[None, :])
        out["bias"] = (biased - scaled)[w.head]
    mask = np.tril(np.ones((T, S), bool)) if w.kind == "decoder" else np.ones((T, S), bool)
    masked = np.where(mask, biased, -1e9)
    weights = np.where(mask, softmax(masked), 0.0)
    head_out = weights @ v  # (h, T, d_k)
    named = {"q": q, "k": k, "v": v, "scores": scores, "scaled": scaled, "masked": masked, "weights": weights}
    out.update({name: a[w.head] for name, a in named.items()}, mask=mask, head_output=head_out[w.head])
    heads = list(head_out)
    out["concat"] = np.concatenate(heads, axis=-1)
    out["output"] = out["concat"] @ P(mha.W_o.weight).T + P(mha.W_o.bias)
    return out


def ffn(f, x):
    return np.maximum(x @ P(f.linear1.weight).T + P(f.linear1.bias), 0) @ P(f.linear2.weight).T + P(f.linear2.bias)


def recompute_post(runner, w, a):
    """Step 10 from the layer input x and the attention output a."""
    m = runner.module
    x = w.layer_input.astype(np.float64)
    if runner.config.arch == "gpt":
        b = m.blocks[w.layer]
        hh = x + a
        return {
            "residual": hh,
            "norm_ffn_in": layer_norm(hh, b.norm2),
            "ffn": ffn(b.ffn, layer_norm(hh, b.norm2)),
            "out": hh + ffn(b.ffn, layer_norm(hh, b.norm2)),
        }
    if w.kind == "encoder":
        L = m.encoder_layers[w.layer]
        h1 = layer_norm(x + a, L.norm1)
        return {"residual": x + a, "norm1": h1, "ffn": ffn(L.ffn, h1), "out": layer_norm(h1 + ffn(L.ffn, h1), L.norm2)}
    L = m.decoder_layers[w.layer]
    if w.kind == "cross":
        h = w.X.astype(np.float64)
        h2 = layer_norm(h + a, L.norm2)
        return {"residual": h + a, "norm2": h2, "ffn": ffn(L.ffn, h2), "out": layer_norm(h2 + ffn(L.ffn, h2), L.norm3)}
    h1 = layer_norm(x + a, L.norm1)
    return {"residual": x + a, "norm1": h1}  # the cross sub-layer is checked by the "cross" case


# The tests that start a real server (tests/browser/, the websocket protocol tests) are marked
# `serial`; those among them that assert on time (the class served under a flood of reruns or a
# crowd of sessions, tests/test_protocol.py) are marked `@pytest.mark.timed` as well. ./scripts/test
# runs the rest on two pytest-xdist workers, then the untimed server tests on two workers (each its
# own app server), then the timed ones alone in one process, so a timing bound never competes with
# another test for the two cores. A speed target is a bench's (bench/, its load stated), not a
# test's: the room tests' 3 s follow is bench/follow.py's figure since 2026-12-05, and they run
# untimed (TIMED_FILES, the files that ran alone, went with them: 2:24 of the phase's 2:24-2:35
# was theirs and four other tests'). The explorer and the other AppTest walks over every page are marked slow, so
# `-m "not browser and not slow"` is the fast loop (CONTRIBUTING.md).
SERVER_FILES = ("test_protocol.py", "test_sentence_in_browser.py")
# test_protocol.py bounds memory (the server's RSS), not time: it runs with the untimed ones;
# test_votes.py (one vote after a reload) waits up to 15 s for a vote and times nothing: with the
# untimed ones since 2026-12-05 (about 10 s of the timed phase)
# test_timeline_play.py asserts an order (the slider never behind the page drawn), which load must
# not break: with the untimed ones since 2026-12-05 (15 s of the timed phase)
# test_cli.py: each test runs the CLI in a subprocess (torch imported again), one of them trains;
# test_editor.py drives the lesson editor page through AppTest (5-8 s a test); test_onnx_tokenizer.py
# runs node on thousands of texts; test_smollm.py loads SmolLM2 (as test_gemma.py, marked in its file, loads Gemma)
SLOW_FILES = (
    "test_smollm.py",
    "test_editor.py",
    "test_onnx_tokenizer.py",
    "test_explore.py",
    "test_claims.py",
    "test_lessons_page.py",
    "test_timeline.py",
    "test_trained.py",
    "test_cli.py",
)

# The untimed server phase's longest files, longest first (their tests' seconds in the clean-clone
# runs of 2026-12-04, 14:14 and 14:38 UTC). ./scripts/test hands its two workers whole files in the
# order of the collection (--no-loadscope-reorder), which is this order, then the other files:
# the long ones start first and the short ones fill in at the end. pytest-xdist's own order (most
# tests first) handed out the 57 s bench guard and a 37 s editor test last, one worker running
# them while the other had finished. A browser file that takes more than about 30 s goes here, in
# its place (an unlisted file costs time at the end of the phase, never a test); a server test in
# tests/ (SERVER_FILES, or marked serial in its file) as well.
LONG_SERVER_FILES = (
    "test_room_walk.py",  # a class's hour: every lesson, teacher, laptop and phone (415 s at load 12-15)
    # tests/: bench.attacks' guard, 14 phases of 2.5 s (49 s alone, 27 s of the machine's CPU, 2026-12-05): mostly
    # waiting, so it starts first beside the walks (unlisted, it was handed out third-to-last in the
    # 20:12 clean-clone run, 147 s, one worker running it while the other had finished)
    "test_bench_attacks.py",
    # two replicas and four browsers, mostly waiting on the room's polls (46 s alone, 2026-12-05)
    "test_rooms.py",
    # nginx, Redis and two replicas, one restarted mid-class (about 40 s alone with its stack)
    "test_production.py",
    "test_live_model.py",  # the in-browser model, five models x knobs (~2 min at load 10-20)
    "test_live_compare.py",  # compare in the browser, five models (~90 s at load 16)
    "test_security.py",  # ~170 s
    "test_projector.py",  # ~135 s
    "test_screens.py",  # ~75 s (the phone walks, 41 + 28 s, and the normal view's checks in them since 2026-12-05)
    "test_pages.py",  # ~70 s
    "test_walk.py",  # ~60 s (the attention page's tabs and tiles; a lesson by Next; Chinese every lesson and question type)
    "test_attention_view.py",  # ~60 s of untimed tests
    "test_live_temperature.py",  # the temperature page in the browser, the two families (~40 s; five models: ~150 s at load 16)
    "test_bench_smallest.py",  # ~57 s
    "test_browser_model.py",  # ~50 s (the graphs' export in its setup on a fresh clone)
    "test_protocol.py",  # tests/: ~50 s of untimed tests (a server of its own, two more started)
    "test_teacher_reveal.py",  # ~45 s
    "test_lesson_editor.py",  # ~37 s
    "test_first_screen.py",  # ~34 s of tests (41 s alone at load 2.6)
    "test_new_page_and_lesson.py",  # ~30 s: the contributor's copy served and walked
    "test_classhour.py",  # ~25 s: the repeated word in two languages (every question type's walk went, 2026-12-05)
    "test_attention_view_hf.py",  # ~25 s
)

# The model's own tests (model/: attention, positions, tokenizer, runners, interventions, the
# Hugging Face adapter), each against an independent oracle, marked `model`: after a change in
# model/, `./scripts/test -n 2 -m model` (under 30 s) says what broke in the model before a lesson
# or a page does ("no_clear_head" is a lesson's margin failing on a changed model). They run first
# in every run. Not in this loop: the Hugging Face adapter's checks against transformers
# (test_hf.py: building its tiny models took 35-39 s of each worker's setup at load 11-14, against a
# 30 s loop), the real pretrained models' (test_smollm.py, test_gemma.py: a model load each) and the
# ONNX export's, which are slow-marked.
MODEL_FILES = (
    "test_attention.py",
    "test_positional.py",
    "test_models.py",
    "test_runner.py",
    "test_tokenizer.py",
    "test_intervene.py",
    "test_row_labels.py",
    "test_walkthrough.py",
    "test_hf_names.py",
    "test_gguf_fast.py",
)


# The first phase's longest files (no server), longest first: handed out at its start, so that the
# phase does not end on one worker running them while the other has finished (a clean clone's
# phase 1, 2026-12-06: Gemma's first conversion, 29 s, came last, 28 s of one core idle).
LONG_FILES = (
    "test_gguf_convert.py",  # SmolLM2's and Gemma's first conversions (10 s and 29 s)
    "test_image.py",  # the image's context installed and every page opened from it (29-34 s)
    "test_explore.py",  # every control of every page, one at a time (2-14 s a page)
)

# The server phase's tests that mostly wait (a room's one-second polls, the class's results every
# 3 s, a bench's timed phases) or start servers of their own (nginx, Redis and replicas; a bench's
# app and Chromium): marked `waits`, ./scripts/test runs them in one process of their own beside the
# other server tests' two workers, so that what one waits the others fill (the phase alone on two
# workers kept the cores 82 % busy; with this lane beside them, 94 %: 573 s against 636 s in the
# same hour, 2026-12-06). A file here is a server file (serial) and keeps its place in
# LONG_SERVER_FILES, the order its lane runs in. Paths under tests/: tests/test_rooms.py (the room
# store, no server) is not tests/browser/test_rooms.py.
WAITING_FILES = (
    "browser/test_room_walk.py",  # 148 s of wall, 96 s of CPU (2026-12-06)
    "browser/test_rooms.py",  # 43 s, 33 s
    "browser/test_bench_smallest.py",  # 105 s, 38 s
    "test_bench_attacks.py",  # 47 s, 21 s
    "browser/test_production.py",  # 36 s, 34 s: a stack of its own (nginx, Redis, two replicas)
)


REAL_MODEL_FIXTURES = ("smollm", "gemma")  # the fixtures below: a test that uses one is slow


def run_order(item) -> tuple[int, int]:
    """The model's tests first, then the long files (the server phase's, then the first phase's),
    longest first; the rest as collected."""
    path = Path(str(item.fspath))
    order = LONG_SERVER_FILES + LONG_FILES
    long = order.index(path.name) if path.name in order else len(order)
    return (not (path.name in MODEL_FILES and path.parent.name == "tests"), long)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    items.sort(key=run_order)  # stable: the other files keep their order, after these
    for item in items:
        path = Path(str(item.fspath))
        if "browser" in path.parts or path.name in SERVER_FILES:
            item.add_marker(pytest.mark.serial)
        if path.name in SLOW_FILES or path.name.startswith("test_app_") or path.name in SERVER_FILES:
            item.add_marker(pytest.mark.slow)
        if path.is_relative_to(TESTS_DIR) and path.relative_to(TESTS_DIR).as_posix() in WAITING_FILES:
            item.add_marker(pytest.mark.waits)  # a lane of its own in ./scripts/test's server phase
        # the tiny Hugging Face models (`tiny`): transformers imported, tokenizers trained and four
        # models saved, in each worker that runs one (25-50 s of a worker's setup at load 12-20)
        # a real pretrained model (`smollm`, `gemma`): loaded once in each worker that runs one (the
        # fast loop's tests/test_home_real.py spent 17 s of its setup on SmolLM2 at load 9, 2026-12-04)
        if {"tiny", *REAL_MODEL_FIXTURES} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
        if path.name in MODEL_FILES and path.parent.name == "tests" and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.model)  # the model's fast tests: `-m model`


# -- the real pretrained decoder (model/hf/pretrained.py: SmolLM2-135M from its pip package) ----------
SMOLLM = "smollm2-135m"


GEMMA = "gemma3-270m"


def packaged_missing(name: str) -> str | None:
    """Why a real pretrained model cannot be loaded here, or None. scripts/test installs their
    packages (requirements-real.txt), so in CI this is None and their tests run."""
    try:
        from model.hf import pretrained
    except ImportError as e:  # pragma: no cover - model/hf imports only the standard library and torch
        return str(e)
    if not pretrained.installed(name):
        return f"{name} is not installed ({pretrained.INSTALL})"
    return None


def on_a_real_model(path: Path) -> bool:
    """A lesson file with a step on a real pretrained model (SmolLM2, Gemma): loading it and
    tracing the steps takes 20-60 s, so a test's case for that lesson is marked slow."""
    from lessons import schema
    from model.registry import PACKAGED

    return any(s["model"] in PACKAGED for s in schema.validate(Path(path).read_bytes()).steps)


def each_lesson(paths) -> list:
    """Lesson files as parameters named by their stem, those on a real model marked slow (the fast
    loop builds the lessons on our own models; the full run builds every one)."""
    return [pytest.param(p, id=Path(p).stem, marks=[pytest.mark.slow] if on_a_real_model(p) else []) for p in paths]


def smollm_missing() -> str | None:
    return packaged_missing(SMOLLM)


@pytest.fixture(scope="session")
def smollm():
    """SmolLM2-135M, loaded once per test session (per xdist worker) from the safetensors cache
    folder; the first load on a fresh machine dequantizes the GGUF into it (about 40-100 s), once
    for every later session (the cache is outside the repository: ATTN_CACHE_DIR or
    ~/.cache/attention-explorer)."""
    why = smollm_missing()
    if why:
        pytest.skip(why)
    import torch

    import model

    # one intra-op thread, as the app runs (ui/cache.py): with torch's default two on this 2-core
    # machine under load, a 6-token trace took 4.7-8.3 s against 0.17-0.28 s with one
    torch.set_num_threads(1)
    return model.load(SMOLLM, device="cpu")


@pytest.fixture(scope="session")
def gemma():
    """Gemma 3 270M, loaded once per test session (per xdist worker) from the safetensors cache
    folder; the first load on a fresh machine assembles its four parts, checks their sha256 and
    dequantizes the GGUF into it (docs/hf.md has the time)."""
    why = packaged_missing(GEMMA)
    if why:
        pytest.skip(why)
    import torch

    import model

    torch.set_num_threads(1)
    return model.load(GEMMA, device="cpu")


def _offer(monkeypatch) -> None:
    """The operator offers the packaged real models (ATTN_HF=local), offline."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ATTN_HF", "local")


@pytest.fixture
def offered_smollm(smollm, monkeypatch):
    """SmolLM2 loaded and offered in the sidebar (the app's pages find it loaded)."""
    _offer(monkeypatch)
    return smollm


@pytest.fixture
def offered_gemma(gemma, monkeypatch):
    """Gemma 3 270M loaded and offered in the sidebar."""
    _offer(monkeypatch)
    return gemma


@pytest.fixture(scope="module")
def runners():
    """name -> the shipped model's runner on the CPU, loaded on first use (a test module that needs
    other runners, random weights or every model at once, defines its own `runners`)."""
    import model

    made = {}

    def load(name):
        if name not in made:
            made[name] = model.load(name, device="cpu")
        return made[name]

    return load
