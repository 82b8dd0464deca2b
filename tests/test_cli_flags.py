"""Issue 32 item 9: the CLI's flag combinations, in process (model/__main__.py's main(argv); nothing
trains: training.train.train and the tokenizer's trainer are recorders). Every bad combination is
one line and status 2; every train target, the tokenizer included, refuses to replace a file
without --overwrite and writes into ATTN_WEIGHTS_DIR; an unknown device and an empty text are refused."""

from __future__ import annotations

import pytest

from tests.test_cli import main_in_process, no_training  # noqa: F401  (the fixture)

BAD_COMBINATIONS = {
    "resume with snapshots": ["train", "gpt", "--resume", "--snapshots", "3", "--overwrite", "--steps", "1"],
    "one snapshot": ["train", "gpt", "--snapshots", "1", "--overwrite"],
    "tokenizer with steps": ["train", "tokenizer", "--steps", "3", "--overwrite"],
    "tokenizer with resume": ["train", "tokenizer", "--resume", "--overwrite"],
    "tokenizer with snapshots": ["train", "tokenizer", "--snapshots", "3", "--overwrite"],
    "unknown device": ["--device", "foo", "info"],
    "unknown device for train": ["--device", "tpu", "train", "gpt", "--overwrite"],
    "importance on an empty text": ["importance", "--text", ""],
    "importance on spaces": ["importance", "--text", "   "],
    "trace on an empty text": ["trace", "--text", ""],
    "translate an empty text": ["translate", ""],
}


@pytest.fixture
def tokenizer_trainer(monkeypatch):
    import model.tokenizer

    calls = []
    monkeypatch.setattr(model.tokenizer, "train_default", lambda out_path, seed=0: calls.append(out_path) or out_path)
    return calls


@pytest.mark.parametrize("case", list(BAD_COMBINATIONS))
def test_bad_combinations_exit_2_with_one_line(case, capsys, monkeypatch, no_training, tokenizer_trainer):  # noqa: F811
    monkeypatch.setenv("ATTN_RANDOM_WEIGHTS", "1")
    code, out, err = main_in_process(BAD_COMBINATIONS[case], capsys)
    assert code == 2, (code, out, err)
    assert len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    assert not no_training and not tokenizer_trainer


def test_resume_with_nothing_to_resume_is_one_line(tmp_path, capsys, monkeypatch, no_training):  # noqa: F811
    monkeypatch.setenv("ATTN_WEIGHTS_DIR", str(tmp_path))
    code, _, err = main_in_process(["train", "gpt", "--resume"], capsys)
    assert code == 2 and len(err) == 1 and "nothing to resume" in err[0], err
    assert not no_training


def test_the_tokenizer_is_never_replaced_without_overwrite(tmp_path, capsys, monkeypatch, tokenizer_trainer):
    from model.tokenizer import DEFAULT_PATH

    monkeypatch.delenv("ATTN_WEIGHTS_DIR", raising=False)
    before = DEFAULT_PATH.stat().st_mtime_ns
    code, _, err = main_in_process(["train", "tokenizer", "--seed", "7"], capsys)
    assert code == 2 and len(err) == 1 and "--overwrite" in err[0] and "tokenizer.model" in err[0], err
    assert not tokenizer_trainer and DEFAULT_PATH.stat().st_mtime_ns == before
    monkeypatch.setenv("ATTN_WEIGHTS_DIR", str(tmp_path))  # another folder: trained there
    code, out, err = main_in_process(["train", "tokenizer", "--seed", "7"], capsys)
    assert code == 0, err
    assert tokenizer_trainer == [tmp_path / "tokenizer.model"]
    (tmp_path / "tokenizer.model").write_bytes(b"x")
    code, _, err = main_in_process(["train", "tokenizer"], capsys)
    assert code == 2 and "--overwrite" in err[0], err
    code, _, err = main_in_process(["train", "tokenizer", "--overwrite"], capsys)
    assert code == 0 and len(tokenizer_trainer) == 2, err


def test_training_reads_the_tokenizer_of_its_folder(tmp_path, monkeypatch):
    """A model trained into ATTN_WEIGHTS_DIR reads that folder's tokenizer, the one it will be loaded with."""
    import training.train
    from model import registry

    seen = []
    monkeypatch.setattr(registry, "load_tokenizer", lambda directory=None: seen.append(directory) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        training.train.train("gpt", steps=1, directory=tmp_path, save=False, progress=False)
    assert seen == [tmp_path]


def test_the_cli_offers_the_devices_model_device_knows():
    from model import device
    from model.__main__ import DEVICES

    assert DEVICES == device.CHOICES
