"""The command line: JSON shape, readable errors, and a smoke run of training."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from model.tokenizer import DEFAULT_PATH

ROOT = Path(__file__).resolve().parent.parent


def cli(*args, env=None):
    e = {**os.environ, "ATTN_RANDOM_WEIGHTS": os.environ.get("ATTN_RANDOM_WEIGHTS", "1"), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "model", *args], cwd=ROOT, env=e, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("name,kinds", [("translator", {"encoder", "decoder", "cross"}), ("gpt", {"decoder"})])
def test_trace_json_shape(name, kinds):
    r = cli("trace", "--model", name, "--text", "The cat sat on the mat", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"model", "input_text", "output_text", "attention"} <= set(out)
    assert out["model"] == name and out["input_text"] == "The cat sat on the mat"
    assert set(out["attention"]) == kinds
    for att in out["attention"].values():
        w = np.array(att["weights"])
        assert w.ndim == 4 and w.shape[2:] == (len(att["query_tokens"]), len(att["key_tokens"]))
        assert np.allclose(w.sum(-1), 1, atol=1e-4)


def test_trace_options_and_readable_summary():
    r = cli("trace", "--model", "translator", "--text", "狗咬人", "--temperature", "2", "--no-position")
    assert r.returncode == 0, r.stderr
    assert "encoder: 2 layers x 4 heads" in r.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["trace", "--model", "nope", "--text", "x"], "unknown model"),
        (["trace", "--text", "   "], "empty"),
        (["trace", "--text", "x", "--temperature", "0"], "temperature"),
        (["trace", "--text", "x", "--temperature", "nan"], "finite"),
    ],
)
def test_bad_input_is_one_line_not_a_traceback(args, message):
    r = cli(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert message in r.stderr.strip().splitlines()[-1]  # argparse may print its usage above it


def test_info_lists_every_model():
    r = cli("info")
    assert r.returncode == 0, r.stderr
    for name in ("translator", "gpt", "gpt-rope", "gpt-alibi", "gpt-local"):
        assert name in r.stdout
    assert "device: cpu" in r.stdout


def test_generate_same_seed_same_text():
    a = cli("generate", "--model", "gpt", "--prompt", "The cat", "--seed", "3", "--max-new-tokens", "6")
    b = cli("generate", "--model", "gpt", "--prompt", "The cat", "--seed", "3", "--max-new-tokens", "6")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout and a.stdout.startswith("The cat")


def test_training_smoke_run_saves_loadable_safetensors(tmp_path):
    import shutil

    shutil.copy(DEFAULT_PATH, tmp_path / "tokenizer.model")
    for name in ("translator", "gpt-rope"):
        r = cli("train", name, "--steps", "3", "--threads", "1", env={"ATTN_WEIGHTS_DIR": str(tmp_path)})
        assert r.returncode == 0, r.stderr
        assert (tmp_path / f"{name}.safetensors").exists() and (tmp_path / f"{name}.json").exists()
    import model

    m = model.load("gpt-rope", directory=tmp_path)
    assert m.trained and m.trace("The cat").attention["decoder"].weights.shape[:2] == (3, 4)
    meta = json.loads((tmp_path / "gpt-rope.json").read_text())
    assert meta["config"]["positional"] == "rope" and meta["trained"]["steps"] == 3
    assert not list(tmp_path.glob("*.tmp"))


# -- every bad number is one line and status 2; train never overwrites without --overwrite --
BAD_NUMBERS = {
    "generate temperature 1e-320": ["generate", "--temperature", "1e-320"],
    "generate temperature 1e-300": ["generate", "--temperature", "1e-300"],
    "generate temperature inf": ["generate", "--temperature", "inf"],
    "train steps 0": ["train", "gpt", "--steps", "0"],
    "train steps -1": ["train", "gpt", "--steps", "-1"],
    "train steps 1.5": ["train", "gpt", "--steps", "1.5"],
    "train seed -1": ["train", "gpt", "--seed", "-1"],
    "train threads 0": ["train", "gpt", "--threads", "0"],
    "train snapshots -3": ["train", "gpt", "--snapshots", "-3"],
    "train lr nan": ["train", "gpt", "--lr", "nan"],
    "train lr 1e-320": ["train", "gpt", "--lr", "1e-320"],
    "trace temperature 5e-324": ["trace", "--text", "The cat", "--temperature", "5e-324"],
}


def main_in_process(args, capsys):
    from model.__main__ import main

    try:
        code = main(["--device", "cpu", *args])
    except SystemExit as e:  # argparse's exit
        code = e.code
    out = capsys.readouterr()
    return code, out.out, [ln for ln in out.err.splitlines() if ln.strip()]


@pytest.fixture
def no_training(monkeypatch):
    """training.train.train replaced by a recorder: nothing here trains or writes weights."""
    import training.train

    calls = []
    monkeypatch.setattr(training.train, "train", lambda name, **kw: calls.append((name, kw)) or {})
    return calls


@pytest.mark.parametrize("case", list(BAD_NUMBERS))
def test_bad_numbers_exit_2_with_one_line(case, capsys, monkeypatch, no_training):
    monkeypatch.setenv("ATTN_RANDOM_WEIGHTS", "1")
    code, out, err = main_in_process(BAD_NUMBERS[case], capsys)
    assert code == 2, (code, out, err)
    assert len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    assert not no_training


def test_train_refuses_to_overwrite_the_shipped_weights(capsys, monkeypatch, no_training):
    from model import registry

    monkeypatch.delenv("ATTN_WEIGHTS_DIR", raising=False)
    weights = registry.paths("gpt")[0]
    assert weights.exists(), "the shipped gpt weights are part of the repository"
    before = weights.stat().st_mtime_ns
    code, _, err = main_in_process(["train", "gpt"], capsys)
    assert code == 2 and len(err) == 1 and "--overwrite" in err[0] and "gpt.safetensors" in err[0], err
    assert not no_training and weights.stat().st_mtime_ns == before
    code, _, err = main_in_process(["train", "gpt", "--resume", "--steps", "5"], capsys)
    assert code == 2 and "--overwrite" in err[0] and not no_training


def test_train_with_overwrite_or_into_a_new_folder_goes_ahead(tmp_path, capsys, monkeypatch, no_training):
    monkeypatch.delenv("ATTN_WEIGHTS_DIR", raising=False)
    code, _, err = main_in_process(["train", "gpt", "--steps", "5", "--overwrite"], capsys)
    assert code == 0, err
    monkeypatch.setenv("ATTN_WEIGHTS_DIR", str(tmp_path))
    code, _, err = main_in_process(["train", "gpt-rope", "--steps", "7"], capsys)
    assert code == 0, err
    assert [(n, kw["steps"]) for n, kw in no_training] == [("gpt", 5), ("gpt-rope", 7)]
