"""Errors and notices reach a Chinese reader in Chinese: every InputError code and every Notice that
model/ raises (our models, the Hugging Face adapter, the registry, the device choice), triggered
through the model API, rendered by ui/messages.py with the language switched to 中文, holds no English
sentence (three English words in a row) and no server path; every code written in model/ has its
line in the translation table, and every one of them is triggered here."""

from __future__ import annotations

import ast
import json
import re
import shutil
import time
from pathlib import Path

import pytest
import torch

import model
from analysis.walkthrough import walk
from model import registry
from model.errors import InputError, Notice
from model.runner import MAX_CHARS
from ui import i18n
from ui.messages import error_text, notice_text, table_key

ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[ ,;:'’]+[A-Za-z]{2,}){2,}")
MODEL_DIR = Path(model.__file__).resolve().parent
# where the computations behind the pages raise them: the model and what runs beside it
CODE_DIRS = [MODEL_DIR.parent / d for d in ("model", "data", "training", "analysis")]
TEXT = "The cat sat on the mat."


def english(text: str):
    """Three English words in a row outside “quoted examples” (the hint quotes an English sentence)."""
    return ENGLISH.search(re.sub(r"“[^”]*”", "", text))


@pytest.fixture
def chinese(monkeypatch):
    monkeypatch.setattr(i18n, "lang", lambda: "zh")


def raised(call) -> InputError:
    with pytest.raises(InputError) as e:
        call()
    return e.value


def codes_in_model() -> dict[str, set[str]]:
    """{"InputError": codes, "Notice": codes} written in model/, data/, training/ and analysis/ (model/errors.py defines them). A code
    that is not a string literal fails: the table could not be checked for it."""
    found: dict[str, set[str]] = {"InputError": set(), "Notice": set()}
    for path in sorted(p for d in CODE_DIRS for p in d.rglob("*.py")):
        if path.name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in found:
                code = node.args[0] if node.args else None
                assert isinstance(code, ast.Constant) and isinstance(code.value, str), (
                    f"{path.name}:{node.lineno}: {node.func.id}'s code must be a string literal"
                )
                found[node.func.id].add(code.value)
    return found


def check_rendered(found: dict, render, *hidden: str) -> None:
    """Each raised error / notice, rendered in the current language: a line of the table (not the
    model's English line), no English sentence, nothing of the server's folders."""
    for code, item in found.items():
        assert item.code == code, (code, item.code)  # each call raised the code it stands for
        text = render(item)
        assert text and not english(text), (code, text)
        assert not any(h in text for h in hidden), (code, text)


# -- our models, the registry and the device choice ---------------------------------------------------
@pytest.fixture(scope="module")
def bare_weights(tmp_path_factory) -> Path:
    """A weights folder with the tokenizer alone: no trained weights, no snapshots."""
    folder = tmp_path_factory.mktemp("bare_weights")
    shutil.copy(registry.weights_dir() / "tokenizer.model", folder / "tokenizer.model")
    return folder


def errors(random_runner, bare_weights) -> dict[str, InputError]:
    gpt, tr = random_runner("gpt"), random_runner("translator")
    return {
        "empty": raised(lambda: gpt.trace("   ")),
        "temperature": raised(lambda: gpt.trace("The cat", temperature=-1)),
        "sampling": raised(lambda: gpt.generate("The cat", temperature=-1)),
        "direction": raised(lambda: tr.trace("The cat", direction="fr-de")),
        "kind": raised(lambda: walk(gpt, "The cat", kind="cross")),
        "layer": raised(lambda: walk(gpt, "The cat", kind="decoder", layer=99)),
        "head": raised(lambda: walk(gpt, "The cat", kind="decoder", head=99)),
        "ablate": raised(lambda: gpt.trace("The cat", ablate=[("cross", 0, 0)])),
        "edit": raised(lambda: gpt.trace("The cat", edit=[("decoder", 0, 0, 99, [1.0])])),
        "model": raised(lambda: tr.generate("The cat")),
        "unknown_model": raised(lambda: model.load("nosuch", device="cpu")),
        "snapshot_step": raised(lambda: model.load("gpt@x1", device="cpu")),
        "no_snapshot": raised(lambda: model.load("gpt@7", device="cpu")),  # the shipped snapshots
        "no_snapshots": raised(lambda: model.load("gpt@7", device="cpu", directory=bare_weights)),
    }


def notices(random_runner, bare_weights) -> dict[str, Notice]:
    gpt = random_runner("gpt")
    found = {}
    for text in ("x" * (MAX_CHARS + 5), "The cat\x07 sat", "the cat " * 200, "The zyxqv sat"):
        for n in gpt.trace(text).notices:
            found.setdefault(n.code, n)
    gen = gpt.generate("the cat " * 60, max_new_tokens=gpt.config.max_seq_len, stop_at_eos=False)
    for n in gen.notices:
        found.setdefault(n.code, n)
    # no trained weights in the folder, a device this machine lacks (no Linux machine has MPS), one
    # that does not exist: the loaded model's notices, which every trace carries
    for device in ("mps", "tpu"):
        loaded = model.load("gpt", device=device, random_weights=True, directory=bare_weights)
        for n in loaded.trace("The cat").notices:
            found.setdefault(n.code, n)
    # a GPU running out of memory cannot be triggered on a CPU machine: the runner's own Notice
    found["oom_cpu"] = Notice("oom_cpu", "CUDA ran out of memory; this run used the CPU", device="CUDA")
    return found


def test_every_error_code_in_chinese(random_runner, bare_weights, chinese):
    check_rendered(errors(random_runner, bare_weights), error_text)


def test_every_notice_in_chinese(random_runner, bare_weights, chinese):
    found = notices(random_runner, bare_weights)
    assert set(found) >= {"cut_chars", "control_removed", "cut_tokens", "unseen_words", "stopped_max", "oom_cpu"}
    assert set(found) >= {"random_weights", "device_fallback", "device_unknown"}
    check_rendered(found, notice_text)


def test_the_check_finds_english(random_runner, bare_weights, monkeypatch):
    monkeypatch.setattr(i18n, "lang", lambda: "en")
    assert english(error_text(errors(random_runner, bare_weights)["layer"]))  # the checks above can fail
    assert english(notice_text(notices(random_runner, bare_weights)["random_weights"]))


def test_specific_reasons_keep_their_numbers(random_runner, bare_weights, chinese):
    """A Chinese reader gets the particular reason, with its values, not a generic line."""
    found = errors(random_runner, bare_weights)
    assert [s["step"] for s in registry.snapshots_of("gpt")] == [0, 10, 22, 47, 103, 224, 486, 1057, 2299, 5000]
    assert error_text(found["no_snapshot"]) == "gpt 在第 7 步没有快照；它共有 10 个快照，从第 0 步到第 5000 步。"
    assert error_text(found["unknown_model"]) == "没有名为 nosuch 的模型。请在侧边栏中选择一个模型。"
    assert notice_text(notices(random_runner, bare_weights)["device_fallback"]) == "本机没有 MPS，改用 CPU"


def test_every_code_in_model_has_a_line_in_both_languages():
    """A new code without a translation fails here (the app would show its English line)."""
    codes = codes_in_model()
    assert len(codes["InputError"]) > 30 and len(codes["Notice"]) > 10, codes
    missing = [
        (kind, code)
        for cls, kind in (("InputError", "error"), ("Notice", "notice"))
        for code in sorted(codes[cls])
        if not {"en", "zh"} <= set(i18n.TABLE.get(table_key(kind, code), {}))
    ]
    assert not missing, (
        f"codes without a line in ui/strings (error_CODE in errors.toml, notice_CODE in common.toml): {missing}"
    )


# -- the Hugging Face adapter (model/hf/) -----------------------------------------------------------
def _copy(src: str, dest: Path, leave_out=()) -> Path:
    dest.mkdir()
    for f in Path(src).iterdir():
        if f.name not in leave_out:
            shutil.copy(f, dest / f.name)
    return dest


@pytest.fixture(scope="module")
def hf_folders(tiny, tmp_path_factory) -> dict[str, Path]:
    """Model folders that fail in one way each, or load with a notice; tiny, built offline."""
    transformers = pytest.importorskip("transformers")
    from safetensors.torch import load_file, save_file

    root = tmp_path_factory.mktemp("hf_messages")
    tok = transformers.AutoTokenizer.from_pretrained(tiny["gpt2"])
    out = {"root": root, "empty": root / "empty"}
    out["empty"].mkdir()

    def config(name, cfg, architectures=None):
        if architectures:
            cfg.architectures = architectures
        cfg.save_pretrained(root / name)
        out[name] = root / name

    config("size_out_of_range", transformers.GPT2Config(n_layer=10**6, n_head=2, n_embd=32))
    config("heads_do_not_split", transformers.GPT2Config(n_layer=2, n_head=4, n_embd=30))
    config("huge", transformers.GPT2Config(n_layer=96, n_embd=8192, n_head=64, vocab_size=50257))  # ~103,000M
    config("medium", transformers.GPT2Config(n_layer=4, n_embd=1024, n_head=16, vocab_size=50257))  # ~103M
    # a vision model's config that claims a language-model head transformers does not have
    config(
        "cannot_build",
        transformers.ViTConfig(num_hidden_layers=2, hidden_size=32, num_attention_heads=2),
        ["ViTLMHeadModel"],
    )
    out["remote_code"] = root / "remote_code"
    out["remote_code"].mkdir()
    (out["remote_code"] / "config.json").write_text(
        json.dumps({"model_type": "its-own", "auto_map": {"AutoConfig": "configuration_own.OwnConfig"}})
    )
    tokenizer_files = {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt"}
    out["no_tokenizer_files"] = _copy(tiny["gpt2"], root / "no_tokenizer_files", tokenizer_files)
    out["bad_tokenizer"] = _copy(tiny["gpt2"], root / "bad_tokenizer")
    (out["bad_tokenizer"] / "tokenizer.json").write_text("{not json")
    out["no_safetensors"] = _copy(tiny["gpt2"], root / "no_safetensors", {"model.safetensors"})
    (out["no_safetensors"] / "pytorch_model.bin").write_bytes(b"not a pickle, and never read")
    out["bad_weights"] = _copy(tiny["gpt2"], root / "bad_weights")
    (out["bad_weights"] / "model.safetensors").write_bytes(b"not safetensors" * 10)

    def model_folder(name, module, tokenizer_from=None):
        torch.manual_seed(0)
        module.save_pretrained(root / name)
        if tokenizer_from:
            for f in Path(tokenizer_from).iterdir():
                if f.name not in ("config.json", "model.safetensors", "generation_config.json"):
                    shutil.copy(f, root / name / f.name)
        else:
            tok.save_pretrained(root / name)
        out[name] = root / name

    # a model that knows 4x the tokenizer's tokens, with one tensor missing from its file
    model_folder(
        "odd",
        transformers.GPT2LMHeadModel(
            transformers.GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=4 * len(tok), n_positions=64)
        ),
    )
    weights = load_file(out["odd"] / "model.safetensors")
    weights.pop("transformer.h.0.attn.c_attn.bias")
    save_file(weights, out["odd"] / "model.safetensors", metadata={"format": "pt"})
    # an encoder-decoder whose decoder has fewer layers than its encoder
    t5 = transformers.T5Config(
        num_layers=2,
        num_decoder_layers=1,
        num_heads=2,
        d_model=32,
        d_kv=16,
        d_ff=64,
        vocab_size=64,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    model_folder("t5_uneven", transformers.T5ForConditionalGeneration(t5), tokenizer_from=tiny["t5"])
    # GPT-J computes its attention itself (not through transformers' AttentionInterface) and has
    # no position module the adapter can switch off
    gptj = transformers.GPTJConfig(n_layer=2, n_head=2, n_embd=32, rotary_dim=8, n_positions=64, vocab_size=len(tok))
    model_folder("gptj", transformers.GPTJForCausalLM(gptj))
    return out


@pytest.fixture(scope="module")
def hf_runners(tiny):
    pytest.importorskip("transformers")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("ATTN_HF", "1")
        return {name: model.load("hf:" + tiny[name], device="cpu") for name in ("gpt2", "bert", "t5")}


def out_of_memory(*args, **kwargs):
    raise torch.OutOfMemoryError("CUDA out of memory")


@pytest.fixture(scope="module")
def hf_errors(hf_folders, hf_runners) -> dict[str, InputError]:
    import huggingface_hub.constants

    from model import hf

    f, r = hf_folders, hf_runners
    found = {}

    def load(spec):
        return raised(lambda: model.load("hf:" + str(spec), device="cpu"))

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("ATTN_HF", "1")
        mp.delenv("ATTN_HF_MAX_PARAMS", raising=False)
        mp.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # the hub library sends nothing
        found["hf_no_name"] = load("")
        found["hf_bad_name"] = load("x" * 301)
        found["hf_unreadable"] = load("~no-such-user-here/model")
        found["hf_no_folder"] = load(f["root"] / "nowhere")
        found["hf_not_id"] = load("what is this?")
        found["hf_offline"] = load("nobody-here/no-such-model")
        found["hf_no_config"] = load(f["empty"])
        found["hf_remote_code"] = load(f["remote_code"])
        found["hf_config_size"] = load(f["size_out_of_range"])
        found["hf_heads_split"] = load(f["heads_do_not_split"])
        found["hf_too_many"] = load(f["huge"])
        found["hf_cannot_build"] = load(f["cannot_build"])
        found["hf_no_tokenizer_files"] = load(f["no_tokenizer_files"])
        found["hf_no_tokenizer"] = load(f["bad_tokenizer"])
        found["hf_no_safetensors"] = load(f["no_safetensors"])
        found["hf_no_weights"] = load(f["bad_weights"])
        found["hf_refused"] = raised(lambda: hf.load_served("no-such-model"))
        found["hf_no_run"] = raised(lambda: r["gpt2"].run(lambda module, device: None))
        found["hf_trace_ids"] = raised(lambda: r["t5"].trace_ids([0, 1]))
        found["hf_generate"] = raised(lambda: r["bert"].generate("The cat"))
        found["hf_nll"] = raised(lambda: r["bert"].nll(["The cat"]))
        found["hf_translate"] = raised(lambda: r["gpt2"].translate(["The cat"]))
        found["no_walkthrough"] = raised(lambda: walk(r["bert"], TEXT))
        with mp.context() as m2:  # a machine with 128 MiB free
            m2.setattr(hf.loading, "free_memory", lambda dev: 2**27)
            found["hf_too_large"] = load(f["medium"])
        with mp.context() as m2:  # the model's forward runs out of memory
            m2.setattr(r["gpt2"].hf_model, "forward", out_of_memory)
            found["memory"] = raised(lambda: r["gpt2"].trace(TEXT))
        mp.delenv("HF_HUB_OFFLINE")
        with mp.context() as m2:
            m2.setattr(hf.loading, "_hub_reachable", lambda timeout=3.0: False)
            found["hf_unreachable"] = load("nobody-here/no-such-model")
        with mp.context() as m2:  # the hub answers (here: the hub library, offline, finds nothing)
            m2.setattr(hf.loading, "_hub_reachable", lambda timeout=3.0: True)
            found["hf_not_on_hub"] = load("nobody-here/no-such-model")
        mp.setenv("ATTN_HF", "local")
        found["hf_local_only"] = load("openai-community/gpt2")
        mp.setenv("ATTN_HF", "0")
        found["hf_off"] = load(f["empty"])
        with mp.context() as m2:  # the real model's cache folder cannot be made
            m2.setenv("ATTN_CACHE_DIR", "/dev/null/attention-explorer")
            m2.setattr(hf.pretrained, "current", lambda name: False)
            found["hf_cache_unwritable"] = raised(lambda: hf.pretrained.converted("smollm2-135m"))
        with mp.context() as m2:  # its package is not installed
            m2.setattr(hf.pretrained, "gguf_path", lambda name: None)
            found["hf_packaged_missing"] = raised(lambda: hf.pretrained.convert("smollm2-135m", Path("/nowhere")))
        with mp.context() as m2:  # a model in parts whose assembled file is not the pinned one
            import dataclasses
            import tempfile

            part = Path(tempfile.mkdtemp()) / "part00"
            part.write_bytes(b"GGUF, but not the file it should be")
            fake = dataclasses.replace(hf.pretrained.MODELS["gemma3-270m"], sha256="0" * 64)
            m2.setitem(hf.pretrained.MODELS, "gemma3-270m", fake)
            m2.setattr(hf.pretrained, "part_paths", lambda name: [part])
            found["hf_checksum"] = raised(lambda: hf.pretrained.assembled("gemma3-270m", part.parent))
            assert not (part.parent / fake.gguf).exists()  # the wrong file is not left for anything to read
        with mp.context() as m2:  # its load fails in the background (a damaged converted file)
            m2.setattr(hf.pretrained, "_ERRORS", {})
            m2.setattr(hf.pretrained, "_LOADED", {})
            m2.setattr(hf.pretrained, "load", lambda name, device=None: 1 / 0)
            hf.pretrained.start("smollm2-135m", "cpu")
            for _ in range(600):
                if not hf.pretrained.loading_now("smollm2-135m", "cpu"):
                    break
                time.sleep(0.01)
            found["hf_load_failed"] = raised(lambda: hf.pretrained.ready("smollm2-135m", "cpu"))
        mp.setenv("ATTN_HF", "1")
        mp.setattr(hf.policy, "installed", lambda: False)
        found["hf_no_transformers"] = load(f["empty"])
    return found


@pytest.fixture(scope="module")
def hf_notices(hf_folders, hf_runners) -> dict[str, Notice]:
    from model import hf

    f, r = hf_folders, hf_runners
    found = {}

    def add(notes):
        for n in notes:
            found.setdefault(n.code, n)

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("ATTN_HF", "1")
        add(r["gpt2"].trace(" ".join([TEXT] * 40)).notices)  # cut_tokens
        add(r["gpt2"].trace(TEXT, direction="en-zh").notices)
        add(model.load(f"hf:{f['odd']}", device="cpu").notices)
        add(model.load(f"hf:{f['t5_uneven']}", device="cpu").notices)
        add(model.load(f"hf:{f['gptj']}", device="cpu").trace(TEXT, temperature=2.0, use_position=False).notices)
        # a real pretrained English model reading Chinese (counted on the tiny GPT-2's tokenizer here)
        add(hf.pretrained.MODELS["smollm2-135m"].notices_for("狗咬人", r["gpt2"].tokenizer))
    return found


HF_NOTICES = {
    "cut_tokens",
    "hf_direction_ignored",
    "hf_vocab_mismatch",
    "hf_missing_weights",
    "hf_stacks_differ",
    "hf_temperature_unused",
    "hf_positions_kept",
    "hf_mostly_english",
}


def test_every_hugging_face_error_in_chinese(hf_errors, hf_folders, tiny, chinese):
    check_rendered(hf_errors, error_text, str(hf_folders["root"]), str(Path(tiny["gpt2"]).parent))


def test_every_hugging_face_notice_in_chinese(hf_notices, hf_folders, tiny, chinese):
    assert set(hf_notices) == HF_NOTICES
    check_rendered(hf_notices, notice_text, str(hf_folders["root"]), str(Path(tiny["gpt2"]).parent))


def test_hugging_face_lines_in_english_show_no_server_path(hf_errors, hf_notices, hf_folders, monkeypatch):
    """The English lines the app shows come from the table too: the CLI's line names the folder, the
    app's never does."""
    monkeypatch.setattr(i18n, "lang", lambda: "en")
    assert str(hf_folders["root"]) in str(hf_errors["hf_no_config"])  # the CLI's line (the owner's)
    for code, e in hf_errors.items():
        assert str(hf_folders["root"]) not in error_text(e), code
    for code, n in hf_notices.items():
        assert str(hf_folders["root"]) not in notice_text(n), code


def test_hugging_face_reasons_keep_their_numbers(hf_errors, hf_notices, chinese):
    assert error_text(hf_errors["hf_too_many"]) == "该模型有 103,499M 个参数，本服务器最多允许 1,000M 个。"
    assert (
        error_text(hf_errors["hf_heads_split"])
        == "该模型的 `config.json` 自相矛盾：隐藏层维度 30 不能平均分给 4 个头。"
    )
    assert notice_text(hf_notices["hf_stacks_differ"]) == (
        "编码器有 2 层 × 2 个头，解码器有 1 层 × 2 个头：各页面只提供前 1 层 × 2 个头"
    )
    assert notice_text(hf_notices["hf_direction_ignored"]) == "该模型不是翻译模型：已忽略翻译方向 en\\-zh"


def test_every_code_in_model_is_triggered_here(random_runner, bare_weights, hf_errors, hf_notices):
    """Each InputError and Notice code written in model/ is raised by one of the tests above (the
    oom_cpu notice as the runner constructs it)."""
    codes = codes_in_model()
    assert set(errors(random_runner, bare_weights)) | set(hf_errors) == codes["InputError"]
    assert set(notices(random_runner, bare_weights)) | set(hf_notices) == codes["Notice"]
