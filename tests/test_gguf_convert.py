"""The real models' first conversion tensor by tensor (model/hf/gguf_convert.py) and their cached
start (model/hf/loading.py's converted path, tokens.from_file, sizes.file_parameters), against
transformers' own reading as the oracle: load_gguf_checkpoint's tensors (what from_pretrained
(gguf_file=) loads), AutoTokenizer on the same folder, a model counted on the meta device.

The small files are written here from a tiny model of each packaged architecture (llama: q/k
permuted; gemma3: norm weights stored plus one), quantized where gguf can; the real models' tests
are slow (they convert the real files) and skipped where their packages are not installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

gguf = pytest.importorskip("gguf")
pytest.importorskip("transformers")

from tests.conftest import GEMMA, SMOLLM, packaged_missing  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def tiny_config(arch: str):
    from transformers import Gemma3TextConfig, LlamaConfig

    if arch == "llama":
        return LlamaConfig(
            vocab_size=96,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            tie_word_embeddings=True,
        )
    return Gemma3TextConfig(
        vocab_size=96,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=1,
        head_dim=32,
        sliding_window=8,
        layer_types=["sliding_attention", "full_attention"],
    )


def write_tiny(path: Path, arch: str):
    """A GGUF file holding a tiny model's every weight under gguf's names (found through
    transformers' own map, as a conversion does), 2-D weights quantized to Q8_0, with the
    metadata transformers' tensor processors read. Returns (skeleton on meta, its config)."""
    from transformers import AutoModelForCausalLM
    from transformers.modeling_gguf_pytorch_utils import TENSOR_PROCESSORS, TensorProcessor, get_gguf_hf_weights_map

    cfg = tiny_config(arch)
    with torch.device("meta"):
        skeleton = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    heads = {"num_attention_heads": cfg.num_attention_heads, "num_key_value_heads": cfg.num_key_value_heads}
    names = get_gguf_hf_weights_map(skeleton, TENSOR_PROCESSORS.get(arch, TensorProcessor)(config=heads))
    by_hf = {hf: g for g, hf in names.items()}
    w = gguf.GGUFWriter(str(path), arch)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    w.add_embedding_length(cfg.hidden_size)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_context_length(64)
    rng = np.random.default_rng(1)
    for name, p in skeleton.named_parameters():
        values = rng.standard_normal(tuple(p.shape)).astype(np.float32)
        if values.ndim == 2 and values.shape[1] % 32 == 0:
            q = gguf.quants.quantize(values, gguf.GGMLQuantizationType.Q8_0)
            w.add_tensor(by_hf[name], q, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        else:
            w.add_tensor(by_hf[name], values)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return skeleton, cfg


@pytest.mark.parametrize("arch", ["llama", "gemma3"])
@pytest.mark.parametrize("block_bytes", [64, 32 << 20])  # rows in blocks of 1 and every tensor whole
def test_written_tensor_by_tensor_equals_transformers_own_reading(tmp_path, monkeypatch, arch, block_bytes):
    from safetensors.torch import load_file
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    from model.hf import gguf_convert

    src = tmp_path / "tiny.gguf"
    skeleton, _ = write_tiny(src, arch)
    oracle = load_gguf_checkpoint(str(src), return_tensors=True, model_to_load=skeleton, torch_dtype=torch.float32)
    monkeypatch.setattr(gguf_convert, "BLOCK_BYTES", block_bytes)
    reader = gguf.GGUFReader(str(src))
    out = tmp_path / "model.safetensors"
    wrote = gguf_convert.write(reader, skeleton, arch, oracle["config"], out)
    got = load_file(str(out))
    assert set(got) == set(oracle["tensors"]) == set(wrote) and len(got) == len(list(skeleton.parameters()))
    for name, tensor in oracle["tensors"].items():
        assert got[name].dtype == torch.float32 and got[name].shape == tensor.shape, name
        assert torch.equal(got[name], tensor), name
    # what the processors did is in there: gemma's norms minus 1, llama's q rows permuted
    norm = next(n for n in got if n.endswith("input_layernorm.weight"))
    plain = gguf_convert.plan(reader, skeleton, arch, oracle["config"])[1]
    raw = next(t for t, n, _ in plain if n == norm).data
    assert torch.equal(got[norm], torch.from_numpy(np.array(raw)) - (1 if arch == "gemma3" else 0))


def test_a_weight_the_file_lacks_is_an_error_not_a_random_one(tmp_path):
    from transformers import AutoModelForCausalLM
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    from model.hf import gguf_convert

    src = tmp_path / "tiny.gguf"
    _, cfg = write_tiny(src, "llama")
    cfg.num_hidden_layers = 3  # the model has a layer the file does not
    with torch.device("meta"):
        bigger = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    config = load_gguf_checkpoint(str(src), return_tensors=False)["config"]
    with pytest.raises(ValueError, match="lacks"):
        gguf_convert.write(gguf.GGUFReader(str(src)), bigger, "llama", config, tmp_path / "m.safetensors")


def test_file_parameters_counts_what_the_model_has(tmp_path):
    """The header's count equals the parameters of the model built on the meta device (tied
    weights once), for the converted file of a tiny model."""
    from transformers import AutoModelForCausalLM
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    from model.hf import gguf_convert
    from model.hf.sizes import count_parameters, file_parameters

    src = tmp_path / "tiny.gguf"
    skeleton, cfg = write_tiny(src, "gemma3")
    config = load_gguf_checkpoint(str(src), return_tensors=False)["config"]
    gguf_convert.write(gguf.GGUFReader(str(src)), skeleton, "gemma3", config, tmp_path / "model.safetensors")
    n = file_parameters(tmp_path / "model.safetensors")
    assert n == count_parameters(AutoModelForCausalLM, cfg) == sum(p.numel() for p in skeleton.parameters()) > 0


# -- tokenizer.json's merges as strings (tokens.merges_as_text) -------------------------------------
TEXTS = [
    "猫坐在垫子上。它很开心。",
    "The cat sat on the mat.\n\nIt was happy.",
    "  two  spaces,\ttab",
    "😀 é ß 𠀀 龘",
    "",
]


def trained_bpe(pre_tokenized: bool):
    """A small BPE tokenizer trained here (Gemma's kind: byte fallback, SentencePiece's ▁ for a
    space, newlines and Chinese in its pieces). pre_tokenized=False: no pre-tokenizer, so pieces
    hold spaces (then "a b" strings would be ambiguous)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    if pre_tokenized:
        tok.normalizer = normalizers.Replace(" ", "▁")
        tok.pre_tokenizer = pre_tokenizers.Split("▁", behavior="merged_with_next")
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<pad>", "<unk>", "<bos>"], show_progress=False)
    tok.train_from_iterator(corpus_texts() * 3 + TEXTS * 30, trainer)
    return tok


def test_merges_written_as_strings_parse_to_the_same_tokenizer(tmp_path):
    """The rewritten file holds every merge as one "a b" string and parses to the very tokenizer
    that was saved (tokenizers' own serialization, every field), so every text encodes alike."""
    from tokenizers import Tokenizer

    from model.hf.tokens import merges_as_text

    tok = trained_bpe(pre_tokenized=True)
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    pairs = json.loads(path.read_text(encoding="utf-8"))["model"]["merges"]
    assert len(pairs) > 100 and all(isinstance(m, list) for m in pairs)
    assert any("\n" in "".join(m) for m in pairs) and any(
        any("\u4e00" <= c <= "\u9fff" for c in "".join(m)) for m in pairs
    )
    assert merges_as_text(path, tok)
    merges = json.loads(path.read_text(encoding="utf-8"))["model"]["merges"]
    assert merges == [f"{a} {b}" for a, b in pairs]
    back = Tokenizer.from_file(str(path))
    assert back.to_str() == tok.to_str()
    for text in TEXTS + corpus_texts():
        assert back.encode(text).ids == tok.encode(text).ids, text


@pytest.mark.parametrize("case", ["space in a piece", "not the saved tokenizer", "not BPE", "already strings"])
def test_merges_left_as_they_are_where_strings_would_not_read_the_same(tmp_path, case):
    """Pieces holding a space, a file that is not the tokenizer given as the oracle, a model
    without merges, a file already rewritten: nothing is written."""
    from tokenizers import Tokenizer, models

    from model.hf.tokens import merges_as_text

    path = tmp_path / "tokenizer.json"
    tok = trained_bpe(pre_tokenized=case != "space in a piece")
    oracle = tok
    if case == "not the saved tokenizer":
        oracle = trained_bpe(pre_tokenized=False)
    elif case == "not BPE":
        tok = oracle = Tokenizer(models.WordLevel({"猫": 0, "<unk>": 1}, unk_token="<unk>"))
    tok.save(str(path))
    if case == "already strings":
        assert merges_as_text(path, oracle)
    if case == "space in a piece":
        assert any(" " in piece for m in json.loads(path.read_text(encoding="utf-8"))["model"]["merges"] for piece in m)
    before = path.read_bytes()
    assert not merges_as_text(path, oracle)
    assert path.read_bytes() == before


# -- the real models (slow: they convert the real files) -------------------------------------------
PROBES = [
    "猫坐在垫子上。它很开心。",
    "The cat sat on the mat. 猫坐在垫子上。",
    "  two  spaces,\ttab\nnewline",
    "<bos>special<eos> <pad> <mask> <unk>",
    "😀 emoji, é, ß, 𠀀 rare 龘",
    "",
    "It's 2026: $3.50 — “quotes” (brackets) [1]",
]


def corpus_texts():
    import random

    from data import corpus

    rng = random.Random(0)
    pairs = [corpus.sample(rng) for _ in range(40)]  # the explorer's own sentences, both languages
    return PROBES + [p.en for p in pairs] + [p.zh for p in pairs]


REAL = [pytest.param(n, marks=pytest.mark.slow) for n in (SMOLLM, GEMMA)]


def convert_in_child(name: str, cache: Path) -> dict:
    """A first load into an empty cache folder in a fresh process: its own peak RSS (VmHWM)."""
    code = (
        "import json, sys, torch; torch.set_num_threads(1); import model\n"
        "r = model.load(sys.argv[1], device='cpu')\n"
        "hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]\n"
        "from model.hf import pretrained\n"
        "print(json.dumps({'peak_mb': hwm / 1024, 'converted': pretrained.report(sys.argv[1]).converted}))"
    )
    env = {
        **__import__("os").environ,
        "PYTHONPATH": str(ROOT),
        "ATTN_CACHE_DIR": str(cache),
        "ATTN_HF": "1",
        "HF_HUB_OFFLINE": "1",
    }
    out = subprocess.run([sys.executable, "-c", code, name], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def converted_real(tmp_path_factory):
    """Each installed real model converted once into a fresh cache folder, with the peak."""
    cache = tmp_path_factory.mktemp("real-cache")
    return cache, {}


@pytest.mark.parametrize("name", REAL)
def test_first_conversion_within_its_memory_bound_and_equal_to_transformers(converted_real, name):
    """The first conversion's peak stays within the model's float32 weights plus 512 MB (Gemma
    had peaked at 2,958 MB: the whole dequantized dict beside the model), the file holds what
    transformers' own GGUF loading gives, bit for bit, and the tokenizer what it builds."""
    why = packaged_missing(name)
    if why:
        pytest.skip(why)
    from safetensors import safe_open
    from transformers import AutoModelForCausalLM
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    from model.hf import gguf_fast, pretrained

    cache, seen = converted_real
    got = convert_in_child(name, cache)
    folder = cache / name
    assert got["converted"] and pretrained.complete(folder)
    weights_mb = (folder / "model.safetensors").stat().st_size / 2**20
    assert got["peak_mb"] < weights_mb + 512, got
    seen[name] = got
    with pretrained_cache(cache), gguf_fast.shared_reader():
        import tempfile

        with tempfile.TemporaryDirectory(dir=cache) as whole:
            src = pretrained.assembled(name, Path(whole))
            cfg = json.loads((folder / "config.json").read_text())
            from transformers import AutoConfig

            config = AutoConfig.for_model(**cfg)
            with torch.device("meta"):
                skeleton = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
            oracle = load_gguf_checkpoint(str(src), return_tensors=True, model_to_load=skeleton)["tensors"]
            # the tokenizer transformers builds from the GGUF file itself: the folder's file, its
            # merges rewritten as strings, parses to exactly it (every field of its serialization)
            from tokenizers import Tokenizer
            from transformers import AutoTokenizer

            from_gguf = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name).backend_tokenizer
            assert Tokenizer.from_file(str(folder / "tokenizer.json")).to_str() == from_gguf.to_str()
    with safe_open(str(folder / "model.safetensors"), "pt") as f:
        assert set(f.keys()) == set(oracle)
        for key in oracle:
            assert torch.equal(f.get_tensor(key), oracle[key].to(torch.float32)), key


class pretrained_cache:
    """ATTN_CACHE_DIR set for the block (the module-level functions read it on each call)."""

    def __init__(self, cache):
        self.cache = str(cache)

    def __enter__(self):
        import os

        self.old = os.environ.get("ATTN_CACHE_DIR")
        os.environ["ATTN_CACHE_DIR"] = self.cache

    def __exit__(self, *exc):
        import os

        if self.old is None:
            os.environ.pop("ATTN_CACHE_DIR", None)
        else:
            os.environ["ATTN_CACHE_DIR"] = self.old


@pytest.mark.parametrize("name", REAL)
def test_cached_start_reads_the_folder_the_quick_way(converted_real, monkeypatch, name):
    """A cached load builds the tokenizer from tokenizer.json alone, its merges stored as strings
    (the quicker parse: format 2's pairs fail here), initialises no weight at random (the old
    folders stored the embedding as lm_head.weight: every load filled the 262k x 640 embedding
    with random numbers before tying it) and counts the parameters from the file; the tokenizer
    gives what transformers' AutoTokenizer gives on the same folder."""
    why = packaged_missing(name)
    if why:
        pytest.skip(why)
    from transformers import AutoTokenizer

    from model.hf import pretrained

    cache, _ = converted_real
    if not pretrained.complete(cache / name):
        convert_in_child(name, cache)
    monkeypatch.setenv("ATTN_CACHE_DIR", str(cache))
    monkeypatch.setenv("ATTN_HF", "1")
    calls = []  # random fills of real memory (transformers also fills the model on the meta device: free)
    for fn in ("normal_", "uniform_"):

        def counted(self, *a, _original=getattr(torch.Tensor, fn), **k):
            if not self.is_meta:
                calls.append(tuple(self.shape))
            return _original(self, *a, **k)

        monkeypatch.setattr(torch.Tensor, fn, counted)
    merges = json.loads((cache / name / "tokenizer.json").read_text(encoding="utf-8"))["model"]["merges"]
    assert len(merges) > 1000 and all(isinstance(m, str) and len(m.split(" ")) == 2 for m in merges)
    monkeypatch.setattr(pretrained, "_LOADED", {})
    with monkeypatch.context() as slow_path:  # the slow path's two steps, refused while it loads

        def refused(*a, **k):
            raise AssertionError("the cached start took the slow path")

        from model.hf import loading

        slow_path.setattr(loading, "count_parameters", refused)
        slow_path.setattr(AutoTokenizer, "from_pretrained", refused)
        runner = pretrained.load(name, device="cpu")
    assert not pretrained.report(name).converted
    assert calls == []
    assert runner.config.num_parameters == sum(p.numel() for p in runner.hf_model.parameters())
    fast, slow = runner.tokenizer.tok, AutoTokenizer.from_pretrained(str(cache / name))
    assert type(fast).__name__ == "TokenizersBackend"
    texts = corpus_texts()
    assert len(texts) > len(PROBES)
    for text in texts:
        for special in (True, False):
            assert fast.encode(text, add_special_tokens=special) == slow.encode(text, add_special_tokens=special), text
        ids = slow.encode(text)
        assert fast.convert_ids_to_tokens(ids) == slow.convert_ids_to_tokens(ids)
        assert fast.decode(ids) == slow.decode(ids)
    for attr in ("all_special_ids", "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id", "model_max_length"):
        assert getattr(fast, attr) == getattr(slow, attr), attr
    assert len(fast) == len(slow)


@pytest.mark.slow
def test_bench_cached_starts(converted_real):
    """bench.convert's repeated cached start on a folder already converted, in its smallest form
    (SmolLM2, one fresh process): no first load, the start cached, its parts within its whole."""
    why = packaged_missing(SMOLLM)
    if why:
        pytest.skip(why)
    from bench import convert

    cache, _ = converted_real
    if not convert.current_in(SMOLLM, str(cache)):
        convert_in_child(SMOLLM, cache)
    out = convert.main(["--models", SMOLLM, "--no-reader", "--cache", str(cache), "--cached", "1"])[SMOLLM]
    assert "first" not in out and "reader" not in out and len(out["cached"]) == 1
    (run,) = out["cached"]
    assert run["converted"] is False
    assert 0 < run["tokenizer_cpu_s"] + run["from_pretrained_cpu_s"] <= run["load_cpu_s"] + 0.05
    assert run["imports_s"] + run["transformers_import_s"] + run["load_s"] <= run["start_s"] + 0.01
    assert run["start_s"] < run["launch_to_ready_s"] and run["exit_s"] > 0
    assert len(run["uptime_before"]) == 3
    summary = out["cached_summary"]
    assert summary["runs"] == 1
    assert summary["launch_to_ready_s"]["min"] == summary["launch_to_ready_s"]["median"] == run["launch_to_ready_s"]
