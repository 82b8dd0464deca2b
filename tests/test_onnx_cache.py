"""model/onnx_export.py's cache: a graph is current while its weights' contents, the export's FORMAT
and the model code are the ones it was made from; not the files' times. The cache
(ATTN_CACHE_DIR or ~/.cache/attention-explorer/onnx) is shared by every clone on a machine, and
each clone checks the weights out at its own time: with the time in the stamp one clone's export
made every other clone's graphs stale, and its next run exported all five again. Nothing is
exported here (tests/test_onnx_export.py, slow, checks the graphs themselves)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from model import onnx_export, registry


@pytest.fixture
def clone(tmp_path, monkeypatch):
    """The shipped weights copied into a folder of their own (another clone's), ATTN_WEIGHTS_DIR there."""
    folder = tmp_path / "weights"
    shutil.copytree(registry.weights_dir(), folder)
    monkeypatch.setenv("ATTN_WEIGHTS_DIR", str(folder))
    return folder


def fake_graph(folder, name: str, stamp: list) -> os.PathLike:
    """A cache entry as cached() writes it (the graph's bytes stand in for an export)."""
    path = folder / onnx_export.file_name(name)
    path.write_bytes(b"graph")
    meta = {"format": onnx_export.FORMAT, "weights": stamp, "code": onnx_export.code_stamp(), "bytes": 5}
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


@pytest.mark.parametrize("name", ["gpt", "translator", "gpt@0"])
def test_a_graph_stays_current_in_another_clone_and_not_for_other_weights(name, clone, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    path = fake_graph(cache, name, onnx_export._stamp(name))
    assert onnx_export.current(path, onnx_export._stamp(name), onnx_export.code_stamp())

    # another clone: the same files checked out an hour later
    later = tmp_path / "later"
    shutil.copytree(clone, later)
    for f in later.rglob("*"):
        os.utime(f, (f.stat().st_atime + 3600, f.stat().st_mtime + 3600))
    monkeypatch.setenv("ATTN_WEIGHTS_DIR", str(later))
    assert onnx_export.current(path, onnx_export._stamp(name), onnx_export.code_stamp())

    # other weights of the same size: made again
    weights = registry.paths(name.split("@")[0], later)[0]
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    assert not onnx_export.current(path, onnx_export._stamp(name), onnx_export.code_stamp())


def test_a_snapshots_graph_follows_its_index(clone, tmp_path):
    path = fake_graph(tmp_path, "gpt@0", onnx_export._stamp("gpt@0"))
    index = clone / "snapshots" / "gpt" / "index.json"
    index.write_text(index.read_text() + " ")
    assert not onnx_export.current(path, onnx_export._stamp("gpt@0"), onnx_export.code_stamp())


def test_a_graph_of_other_model_code_is_made_again(clone, tmp_path):
    path = fake_graph(tmp_path, "gpt", onnx_export._stamp("gpt"))
    assert not onnx_export.current(path, onnx_export._stamp("gpt"), "another model code")


def test_two_clones_model_code_keep_their_graphs_side_by_side(tmp_path, monkeypatch):
    """A branch that changed model/ and main share the machine's cache: each export step finds its
    own graphs current (one folder per model code), and a folder no clone used for KEEP_DAYS goes."""
    monkeypatch.setenv("ATTN_CACHE_DIR", str(tmp_path / "cache"))
    made = []

    def fake_export(runner, path):
        made.append(runner.name)
        path.write_bytes(b"graph")
        return {"format": onnx_export.FORMAT, "model": runner.name, "bytes": 5, "sha256": "0" * 64}

    monkeypatch.setattr(onnx_export, "export", fake_export)
    stale = tmp_path / "cache" / "onnx" / "0123456789ab"
    stale.mkdir(parents=True)
    flat = stale.parent / "gpt.onnx"  # a graph of the layout before the folders
    flat.write_bytes(b"graph")
    old = stale.stat().st_mtime - (onnx_export.KEEP_DAYS + 1) * 86400
    for p in (stale, flat):
        os.utime(p, (old, old))
    for code, exported in (("a", ["gpt"]), ("b", ["gpt"]), ("a", []), ("b", [])):
        monkeypatch.setattr(onnx_export, "code_stamp", lambda code=code: code * 64)
        made.clear()
        (path,) = onnx_export.cached_all(["gpt"])
        assert made == exported, code
        assert path.parent.name == code * 12 and path.exists()
    assert not stale.exists() and not flat.exists()
    assert sorted(p.name for p in (tmp_path / "cache" / "onnx").iterdir()) == ["a" * 12, "b" * 12]
