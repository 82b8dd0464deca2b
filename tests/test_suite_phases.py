"""How the suite is split into its loops and phases (tests/conftest.py, scripts/test; CONTRIBUTING.md,
"Tests"): the lists of files name files that exist, the server phase hands its longest files out
first, the `model` loop holds the model's fast tests alone, a real model's lesson is left to the
full run, and every test process runs torch on one thread."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


@pytest.mark.parametrize(
    "names, folder",
    [
        (conftest.LONG_SERVER_FILES, ("browser", ".")),  # browser files and tests/' server tests
        (conftest.MODEL_FILES, "."),
        (conftest.SLOW_FILES, "."),
        (conftest.LONG_FILES, "."),
        (conftest.WAITING_FILES, "."),  # paths under tests/
    ],
)
def test_every_file_a_list_names_exists(names, folder):
    assert names
    if names is not conftest.WAITING_FILES:  # a file's name alone (run_order and the marks read path.name)
        assert not [n for n in names if "/" in n], names
    folders = folder if isinstance(folder, tuple) else (folder,)
    missing = [n for n in names if not any((TESTS / f / n).exists() for f in folders)]
    assert not missing, f"named in tests/conftest.py but not in tests/{folder}: {missing}"


def test_the_server_phase_keeps_the_collections_order():
    """xdist's own order for --dist loadfile (most tests first) would undo LONG_SERVER_FILES."""
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    phase = next(line for line in script.splitlines() if '-m "serial and not timed and not waits"' in line)
    assert "--dist loadfile" in phase and "--no-loadscope-reorder" in phase, phase


def test_the_waiting_lane_runs_beside_the_server_phase_and_counts():
    """The tests marked waits run in a process of their own, started in the background before the
    server phase's workers and waited for right after them, before the timed phase; its exit status
    is the run's too (an empty lane, pytest's status 5, fails the run: a list that selects nothing
    is a mistake)."""
    lines = (ROOT / "scripts" / "test").read_text(encoding="utf-8").splitlines()
    lane = next(i for i, line in enumerate(lines) if '-m "serial and not timed and waits"' in line)
    workers = next(i for i, line in enumerate(lines) if '-m "serial and not timed and not waits"' in line)
    assert lines[lane].rstrip().endswith("&") and "-n " not in lines[lane], lines[lane]
    assert lane < workers, "the lane starts before the workers, so both run at once"
    assert lines[workers + 1].strip() == 'wait "$waits_pid" || status=$((status ? status : $?))', lines[workers + 1]
    assert workers + 1 < next(i for i, line in enumerate(lines) if '-m "timed"' in line), (
        "the lane ends before the timed phase"
    )


def test_every_waiting_file_is_a_server_file_marked_waits():
    """A file of WAITING_FILES is collected as serial and waits (so it runs in the lane, not twice,
    and not in the first phase); a server file not listed is serial without waits."""
    assert conftest.WAITING_FILES
    for name in conftest.WAITING_FILES:
        path = TESTS / name
        items = [_Collected(path), _Collected(TESTS / "browser" / "test_cost.py")]
        if path.parent == TESTS:  # a server test in tests/ is serial by its own file's pytestmark
            assert "pytest.mark.serial" in path.read_text(encoding="utf-8"), name
            items[0].marks.append("serial")
            # the same name in tests/browser/ would be another file: not in the lane
        conftest.pytest_collection_modifyitems(None, items)
        assert {"serial", "waits"} <= set(items[0].marks), (name, items[0].marks)
        assert "serial" in items[1].marks and "waits" not in items[1].marks
    # tests/test_rooms.py (the room store) shares a name with tests/browser/test_rooms.py: not a waiting file
    store = _Collected(TESTS / "test_rooms.py")
    conftest.pytest_collection_modifyitems(None, [store])
    assert "waits" not in store.marks and "serial" not in store.marks


class _Item:
    def __init__(self, path: Path):
        self.fspath = path


def test_the_model_tests_come_first_then_the_longest_server_files():
    paths = [
        TESTS / "browser" / "test_cost.py",
        TESTS / "browser" / conftest.LONG_SERVER_FILES[1],
        TESTS / "test_viz.py",
        TESTS / "browser" / conftest.LONG_SERVER_FILES[0],
        TESTS / conftest.MODEL_FILES[0],
        TESTS / "browser" / "test_intervene.py",  # a browser file named as a model file is not one
    ]
    ordered = sorted((_Item(p) for p in paths), key=conftest.run_order)
    assert [i.fspath for i in ordered] == [paths[4], paths[3], paths[1], paths[0], paths[2], paths[5]]


@pytest.mark.slow  # a pytest collection in a subprocess
def test_the_model_loop_holds_the_models_fast_tests_alone():
    """`-m model` on a model file, a slow-marked model test, a real model's file and a browser file
    of a model file's name: only the fast model tests are selected."""
    files = [
        "tests/test_attention.py",
        "tests/test_row_labels.py",
        "tests/test_smollm.py",
        "tests/browser/test_intervene.py",
    ]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-o",
            "addopts=",
            "-p",
            "no:xdist",
            "--collect-only",
            "-q",
            "-m",
            "model",
            *files,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    assert any(i.startswith("tests/test_attention.py::") for i in ids), done.stdout[-2000:]
    assert any(i.startswith("tests/test_row_labels.py::") for i in ids), ids
    assert not [i for i in ids if "test_smollm" in i or "browser" in i or "test_cli_json" in i], ids


def test_a_real_models_lesson_is_left_to_the_full_run():
    from lessons import files

    params = conftest.each_lesson(files.BUILTIN_DIR / f"{n}.toml" for n in files.BUILTIN)
    slow = {p.id for p in params if any(m.name == "slow" for m in p.marks)}
    assert {"real", "real_zh"} <= slow and "attention" not in slow and len(params) > len(slow)


def test_torch_runs_on_one_thread_in_the_tests():
    import torch

    assert os.environ["OMP_NUM_THREADS"] == "1" and torch.get_num_threads() == 1


class _Collected:
    """A collected test as conftest.pytest_collection_modifyitems sees it: a file, fixtures, marks."""

    def __init__(self, path: Path, fixturenames=()):
        self.fspath, self.fixturenames, self.marks = path, list(fixturenames), []

    def add_marker(self, mark):
        self.marks.append(mark.name)

    def get_closest_marker(self, name):
        return name if name in self.marks else None


@pytest.mark.parametrize("fixture", ["smollm", "gemma", "tiny"])
def test_a_test_on_a_real_or_built_model_is_left_to_the_full_run(fixture):
    """A test that loads SmolLM2 or Gemma (or builds the tiny Hugging Face models) through its
    fixture, in any file, is slow, so the fast loop does not load them (tests/test_home_real.py
    spent 17 s of its setup on SmolLM2 at load 9); its neighbours in the file stay."""
    items = [_Collected(TESTS / "test_home_real.py", [fixture, "monkeypatch"]), _Collected(TESTS / "test_viz.py")]
    conftest.pytest_collection_modifyitems(None, items)
    assert "slow" in items[0].marks and "slow" not in items[1].marks
