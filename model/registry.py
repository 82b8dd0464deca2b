"""The shipped models: their sizes, where their files live, and how to load them.

Weights are safetensors with a JSON config beside them; the tokenizer is a SentencePiece .model.
Nothing is ever loaded with pickle.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from model import device as devices
from model import snapshots
from model.config import ModelConfig
from model.errors import InputError, ModelFileError, Notice
from model.gpt import GPT
from model.runner import GPTRunner, TranslatorRunner
from model.tokenizer import PAD, REBUILD_COMMAND, Tokenizer
from model.transformer import Transformer

WEIGHTS_DIR = Path(__file__).parent / "weights"

# Small enough to train on two CPU cores in minutes, large enough for heads to specialise.
PRESETS: dict[str, ModelConfig] = {
    "translator": ModelConfig(
        arch="transformer", d_model=128, num_heads=4, num_layers=2, d_ff=512, max_seq_len=96, positional="sinusoidal"
    ),
    "gpt": ModelConfig(
        arch="gpt", d_model=128, num_heads=4, num_layers=3, d_ff=512, max_seq_len=128, positional="learned"
    ),
    "gpt-rope": ModelConfig(
        arch="gpt", d_model=128, num_heads=4, num_layers=3, d_ff=512, max_seq_len=128, positional="rope"
    ),
    "gpt-alibi": ModelConfig(
        arch="gpt", d_model=128, num_heads=4, num_layers=3, d_ff=512, max_seq_len=128, positional="alibi"
    ),
    # gpt with sliding-window attention: each token sees itself and the 3 tokens before it (3 layers
    # reach 10 back), so what the window costs is measurable on items of up to 20 tokens
    "gpt-local": ModelConfig(
        arch="gpt", d_model=128, num_heads=4, num_layers=3, d_ff=512, max_seq_len=128, positional="learned", window=4
    ),
}
NAMES = tuple(PRESETS)
# real pretrained models that pip packages ship, loaded through the Hugging Face adapter when those
# packages are installed (model/hf/pretrained.py holds their files' names; this is what load() routes)
PACKAGED = ("smollm2-135m", "gemma3-270m")


def trained_here(name: str) -> bool:
    """Whether this project trained the model (one of PRESETS, or a snapshot of one): not a real
    pretrained model (PACKAGED) nor a Hugging Face one ("hf:...")."""
    return isinstance(name, str) and name.split("@", 1)[0] in PRESETS


def weights_dir() -> Path:
    return Path(os.environ.get("ATTN_WEIGHTS_DIR", WEIGHTS_DIR))


def paths(name: str, directory: Path | None = None) -> tuple[Path, Path]:
    d = Path(directory) if directory else weights_dir()
    return d / f"{name}.safetensors", d / f"{name}.json"


def build(config: ModelConfig) -> torch.nn.Module:
    return Transformer(config, pad_id=PAD) if config.arch == "transformer" else GPT(config)


def check_name(name: str) -> str:
    if name not in PRESETS:
        raise InputError("unknown_model", f"unknown model {name!r}; choose one of: {', '.join(NAMES)}", name=name)
    return name


def read_config(name: str, directory: Path | None = None) -> tuple[ModelConfig, dict]:
    """The config saved with the weights (and its training notes), or the preset when none is saved."""
    _, cfg_path = paths(name, directory)
    if not cfg_path.exists():
        return PRESETS[name], {}
    try:
        meta = json.loads(cfg_path.read_text(encoding="utf-8"))
        config = ModelConfig.from_dict(meta["config"])
    except (ValueError, KeyError, TypeError, AttributeError, OSError) as e:
        raise ModelFileError(cfg_path, f"python -m model train {name}", f"unreadable ({e})") from None
    problem = config_problem(config)
    if problem:
        raise ModelFileError(cfg_path, f"python -m model train {name}", f"not a valid model config ({problem})")
    return config, meta


# sizes far beyond any model this project trains: a config asking for more is damaged, and building
# it would take the server's memory before the weights could say so
LIMITS = {"d_model": 4096, "num_heads": 64, "num_layers": 48, "d_ff": 16384, "max_seq_len": 8192}


def config_problem(config: ModelConfig) -> str | None:
    """What is wrong with a saved config (checked before anything is built), or None."""
    from model.positional import SCHEMES

    if config.arch not in ("transformer", "gpt"):
        return f"arch {config.arch!r} is neither transformer nor gpt"
    for field, most in LIMITS.items():
        v = getattr(config, field)
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= most:
            return f"{field} = {v!r} must be a whole number from 1 to {most}"
    if config.d_model % config.num_heads:
        return f"d_model = {config.d_model} is not divisible by num_heads = {config.num_heads}"
    if config.positional not in SCHEMES:
        return f"positional = {config.positional!r} is not one of {', '.join(SCHEMES)}"
    if config.positional == "rope" and (config.d_model // config.num_heads) % 2:
        return "rope needs an even head size (d_model / num_heads)"
    if isinstance(config.window, bool) or not isinstance(config.window, int) or config.window < 0:
        return f"window = {config.window!r} must be a whole number >= 0"
    if not isinstance(config.dropout, (int, float)) or not 0 <= config.dropout < 1:
        return f"dropout = {config.dropout!r} must be in [0, 1)"
    return None


def load_tokenizer(directory: Path | None = None) -> Tokenizer:
    """The SentencePiece tokenizer of the weights folder; ModelFileError naming the file and the
    command that rebuilds it when it is missing, unreadable or not one of ours."""
    path = (Path(directory) if directory else weights_dir()) / "tokenizer.model"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ModelFileError(path, REBUILD_COMMAND, "missing") from None
    except OSError as e:
        raise ModelFileError(path, REBUILD_COMMAND, f"unreadable ({e.strerror or type(e).__name__})") from None
    try:
        return Tokenizer.from_bytes(data, path)
    except (ValueError, RuntimeError, OSError) as e:
        raise ModelFileError(path, REBUILD_COMMAND, f"not a usable tokenizer ({e})") from None


def load(name: str, device: str | None = None, random_weights: bool = False, directory=None):
    """Load a shipped model by name ("translator", "gpt", "gpt-rope", "gpt-alibi"), or a Hugging
    Face model as "hf:NAME_OR_PATH" (model/hf/; needs requirements-hf.txt).

    random_weights=True builds the same architecture with seed-0 random weights when no trained
    file exists (and says so in every trace's notices) instead of raising ModelFileError.
    """
    if isinstance(name, str) and name.startswith("hf:"):  # a Hugging Face model: model/hf/
        from model import hf

        return hf.load(name, device=device)
    if name in PACKAGED:  # a real pretrained model a pip package ships (model/hf/pretrained.py)
        from model.hf import pretrained

        return pretrained.load(name, device=device)
    name, step = split_snapshot(name)  # "translator@300": the run's snapshot at step 300
    check_name(name)
    # development only: lets the app run before `python -m model train` has produced weights
    random_weights = (random_weights or os.environ.get("ATTN_RANDOM_WEIGHTS") == "1") and step is None
    dev, dev_notice = devices.pick(device)
    module, tokenizer, trained, notices = _built(name, step, directory, random_weights)
    notices = ([dev_notice] if dev_notice else []) + notices
    module = module.to(dev).eval()
    runner = TranslatorRunner if module.config.arch == "transformer" else GPTRunner
    return runner(name if step is None else f"{name}@{step}", module, tokenizer, dev, trained=trained, notices=notices)


def load_module(name: str, directory: Path | None = None) -> torch.nn.Module:
    """The trained module of a shipped model, on the CPU, in training mode: what training continues
    from and re-stores. The app reaches modules only through a runner's run(fn)."""
    check_name(name)
    module, _, _, _ = _built(name, None, directory, random_weights=False)
    return module.train()  # _built raised ModelFileError if there are no trained weights


_SEEDED_BUILD = threading.Lock()


def _built(name: str, step: int | None, directory, random_weights: bool):
    """(module with the run's weights on the CPU, tokenizer, trained?, notices)."""
    tokenizer = load_tokenizer(directory)
    config, _ = read_config(name, directory)
    config.vocab_size = tokenizer.vocab_size
    # seed 0, then the layers' initial weights drawn from torch's one global generator: one load at
    # a time, or two sessions loading at once would draw from each other's stream (and "random
    # weights (seed 0)" would not be what an untrained model shows)
    with _SEEDED_BUILD:
        torch.manual_seed(0)
        module = build(config)
    notices = []
    weights_path, _ = paths(name, directory)
    snapshot = _snapshot_state(name, step, directory) if step is not None else None
    trained = weights_path.exists() or snapshot is not None
    if trained:
        try:
            state = snapshot if snapshot is not None else load_file(str(weights_path))
            # tied weights are saved once; the module expects both names
            missing, unexpected = module.load_state_dict(state, strict=False)
            if unexpected or [k for k in missing if k != "lm_head.weight"]:
                raise ValueError(f"tensors do not match the model: missing {missing[:3]}, unexpected {unexpected[:3]}")
        except Exception as e:  # safetensors raises its own error types for truncated files
            raise ModelFileError(weights_path, f"python -m model train {name}", f"unreadable ({e})") from None
    elif not random_weights:
        raise ModelFileError(weights_path, f"python -m model train {name}")
    else:
        notices.append(
            Notice(
                "random_weights",
                f"{name} has no trained weights yet: random weights (seed 0), so its attention means nothing",
                name=name,
            )
        )
    return module, tokenizer, trained, notices


# -- training snapshots (model/snapshots.py): "NAME@STEP" loads the run's state after STEP updates --


def split_snapshot(name: str) -> tuple[str, int | None]:
    """ "gpt@300" -> ("gpt", 300); "gpt" -> ("gpt", None)."""
    if not isinstance(name, str) or "@" not in name:
        return name, None
    base, _, step = name.partition("@")
    if not (step.isascii() and step.isdigit() and len(step) <= 9):
        raise InputError(
            "snapshot_step",
            f"bad snapshot step {step[:20]!r}: write NAME@STEP, e.g. {base[:20]}@0",
            step=step[:20],
            name=base[:20],
        )
    return base, int(step)


def snapshots_of(name: str, directory: Path | None = None) -> list[dict]:
    """The run's snapshots, oldest first: step, metrics (train/held-out loss, exact match for the
    translator), storage format; the last one is the shipped weights (shipped=True). [] if none."""
    check_name(name)
    index = snapshots.read_index(name, Path(directory) if directory else weights_dir()) or {}
    return [
        {
            "step": e["step"],
            "metrics": dict(e.get("metrics", {})),
            "format": e.get("format"),
            "shipped": e.get("file") is None,
        }
        for e in index.get("snapshots", [])
    ]


def _snapshot_state(name: str, step: int, directory) -> dict | None:
    """The float32 state of snapshot `step`, or None when it is the shipped weights."""
    d = Path(directory) if directory else weights_dir()
    steps = snapshots.steps_of(name, d)
    if not steps:
        raise InputError(
            "no_snapshots",
            f"{name} has no snapshot at step {step}; snapshots: none (python -m model train {name} --snapshots 10)",
            name=name,
        )
    if step not in steps:
        listed = ", ".join(map(str, steps))
        raise InputError(
            "no_snapshot",
            f"{name} has no snapshot at step {step}; snapshots: {listed}",
            name=name,
            step=step,
            count=len(steps),
            first=steps[0],
            last=steps[-1],
        )
    try:
        return snapshots.load_state(name, step, d)
    except Exception as e:  # safetensors raises its own error types for truncated files
        path = snapshots.directory(name, d) / f"step-{step:06d}.safetensors"
        raise ModelFileError(path, f"python -m model train {name} --snapshots 10", f"unreadable ({e})") from None


def save(name: str, module: torch.nn.Module, meta: dict, directory: Path | None = None) -> None:
    """Write weights and config atomically (temp file, then rename): a failed run changes nothing."""
    weights_path, cfg_path = paths(name, directory)
    weights_path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        k: v.detach().cpu().contiguous() for k, v in module.state_dict().items() if k != "lm_head.weight"
    }  # tied to the embedding
    tmp_w, tmp_c = (p.with_name(p.name + ".tmp") for p in (weights_path, cfg_path))
    save_file(state, str(tmp_w), metadata={"model": name})
    tmp_c.write_text(
        json.dumps({"config": module.config.to_dict(), **meta}, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    os.replace(tmp_w, weights_path)
    os.replace(tmp_c, cfg_path)
