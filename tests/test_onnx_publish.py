"""The build's export step (`python -m ui.browser_model --jobs 2`, run by
scripts/test and scripts/app, in the image, and by ui.serve in a child process): a graph is exported into the cache once
and kept only while it is current, i.e. of this FORMAT, from the same weights' files and traced
from the same model code; the served folder gets a copy of each and the tokenizer the browser
reads. No export runs here (onnx_export.export is replaced by a writer of a small file; the cache
is a temporary folder), so these take about a second."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model import onnx_export, registry
from model.tokenizer import DEFAULT_PATH


@pytest.fixture
def exports(monkeypatch, tmp_path):
    """onnx_export.export replaced: records the names asked for and writes a small file; the cache
    in tmp_path/cache."""
    made: list[str] = []
    monkeypatch.setenv("ATTN_CACHE_DIR", str(tmp_path / "cache"))

    def fake_export(runner, path):
        made.append(runner.name)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(b"graph of " + runner.name.encode() + b" " + str(len(made)).encode())
        return {
            "format": onnx_export.FORMAT,
            "model": runner.name,
            "bytes": Path(path).stat().st_size,
            "sha256": "0" * 64,
        }

    monkeypatch.setattr(onnx_export, "export", fake_export)
    return made


def test_publish_exports_each_graph_once_into_the_cache_and_copies_it_with_the_tokenizer(exports, tmp_path):
    served = tmp_path / "static" / "models"
    names = ["gpt", "translator", "gpt@10"]
    paths = onnx_export.publish(served, names)
    assert sorted(exports) == sorted(names)
    assert [p.name for p in paths] == ["gpt.onnx", "translator.onnx", "gpt-at-10.onnx"]
    cache = onnx_export.code_folder()
    assert cache.parent == tmp_path / "cache" / "onnx"
    for p in paths:
        assert p.read_bytes() == (cache / p.name).read_bytes()
        assert p.with_suffix(".json").read_bytes() == (cache / p.name).with_suffix(".json").read_bytes()
    assert (served / "tokenizer.model").read_bytes() == DEFAULT_PATH.read_bytes()
    meta = onnx_export.read_meta(served / "gpt.onnx")
    assert meta["code"] == onnx_export.code_stamp() and meta["weights"] == onnx_export._stamp("gpt")
    exports.clear()
    onnx_export.publish(served, names)
    assert exports == []  # every graph current: none made again
    # the default: the shipped models, the registry's list
    assert [p.stem for p in onnx_export.publish(served)] == [onnx_export.file_name(n)[:-5] for n in registry.NAMES]


def test_a_graph_from_other_model_code_or_weights_or_format_is_made_again(exports, tmp_path, monkeypatch):
    served = tmp_path / "served"
    onnx_export.publish(served, ["gpt"])
    path = onnx_export.code_folder() / "gpt.onnx"
    stamp, code = onnx_export._stamp("gpt"), onnx_export.code_stamp()
    assert onnx_export.current(path, stamp, code)
    assert not onnx_export.current(path, stamp, "0" * 64)  # model/'s code changed since
    assert not onnx_export.current(path, [["gpt.safetensors", 1, 2]], code)  # other weights
    meta = onnx_export.read_meta(path)
    for change in ({"format": onnx_export.FORMAT + 1}, {"bytes": meta["bytes"] + 1}, {"code": None}):
        path.with_suffix(".json").write_text(json.dumps({**meta, **change}))
        assert not onnx_export.current(path, stamp, code), change
    path.with_suffix(".json").write_text("{not json")
    assert not onnx_export.current(path, stamp, code)
    # publish makes it again and the served copy follows
    monkeypatch.setattr(onnx_export, "code_stamp", lambda: "1" * 64)
    exports.clear()
    onnx_export.publish(served, ["gpt"])
    assert exports == ["gpt"]
    # into the new code's own folder: the old code's graph stays for the clones that still run it
    assert (served / "gpt.onnx").read_bytes() == (onnx_export.code_folder() / "gpt.onnx").read_bytes()
    assert onnx_export.code_folder().name == "1" * 12 and path.exists()


def test_the_code_stamp_reads_every_module_of_the_model_package():
    """A change to any model/*.py (the attention, a block, the export itself) changes the stamp:
    the stamp hashes each file's name and bytes."""
    import hashlib

    files = sorted(Path(onnx_export.__file__).parent.glob("*.py"))
    assert {"attention.py", "gpt.py", "transformer.py", "onnx_export.py"} <= {p.name for p in files}
    h = hashlib.sha256()
    for p in files:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    assert onnx_export.code_stamp() == h.hexdigest()


def test_publish_refuses_an_unknown_name_before_writing(exports, tmp_path):
    from model.errors import InputError

    out = tmp_path / "models"
    with pytest.raises(InputError):
        onnx_export.publish(out, ["gpt", "nope"])
    assert not out.exists() and exports == [] and not (tmp_path / "cache").exists()


def test_the_command_publishes_the_shipped_models(exports, tmp_path, capsys):
    from model.__main__ import main

    out = tmp_path / "static" / "models"
    assert main(["export-onnx", "shipped", "--publish", str(out)]) == 0
    assert sorted(exports) == sorted(registry.NAMES)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{onnx_export.file_name(n)}" for n in registry.NAMES]
        + [f"{onnx_export.file_name(n)[:-5]}.json" for n in registry.NAMES]
        + ["tokenizer.model"]
        + [f"{onnx_export.file_name(n)}.gz" for n in registry.NAMES]
        + ["tokenizer.model.gz"]  # the copies the browser fetches (test below)
    )
    assert len(capsys.readouterr().out.strip().splitlines()) == len(registry.NAMES)


def test_every_served_file_has_its_gzipped_copy_with_the_same_bytes(exports, tmp_path):
    """The browser fetches NAME.gz and unpacks it (ui/browser_model/model.js, fetchBytes): a copy
    made for every graph and the tokenizer, whenever the graph is copied (publish writes a changed
    graph, then its copy, then its JSON)."""
    import gzip

    served = tmp_path / "static" / "models"
    paths = onnx_export.publish(served, ["gpt"])
    for p in (*paths, served / "tokenizer.model"):
        assert gzip.decompress(Path(f"{p}.gz").read_bytes()) == p.read_bytes(), p.name
    (served / "gpt.onnx.gz").unlink()  # a folder published before the copies: made on the next publish
    onnx_export.publish(served, ["gpt"])
    assert gzip.decompress((served / "gpt.onnx.gz").read_bytes()) == (served / "gpt.onnx").read_bytes()


def test_the_runtimes_wasm_has_its_gzipped_copy():
    """ui/browser_model/install.sh (run by scripts/test before the tests) gzips the runtime's .wasm."""
    import gzip

    from ui.browser_model import STATIC

    wasm = STATIC / "ort" / "ort-wasm-simd-threaded.wasm"
    assert gzip.decompress(Path(f"{wasm}.gz").read_bytes()) == wasm.read_bytes()


def test_a_folder_holding_current_graphs_exports_nothing_into_an_empty_cache(exports, tmp_path, monkeypatch):
    """The image publishes at build; its server starts with another (empty) cache and must not
    export the five again (about 85 s of CPU beside the first visitors) while static/models holds
    them current. A graph the folder holds stale is exported as before."""
    served = tmp_path / "static" / "models"
    onnx_export.publish(served, ["gpt", "translator"])
    assert sorted(exports) == ["gpt", "translator"]
    exports.clear()
    monkeypatch.setenv("ATTN_CACHE_DIR", str(tmp_path / "another-cache"))
    assert [p.name for p in onnx_export.publish(served, ["gpt", "translator"])] == ["gpt.onnx", "translator.onnx"]
    assert exports == [] and not (tmp_path / "another-cache" / "onnx").exists()
    meta = json.loads((served / "gpt.json").read_text())
    (served / "gpt.json").write_text(json.dumps({**meta, "code": "older code"}))  # stale in the folder
    onnx_export.publish(served, ["gpt", "translator"])
    assert exports == ["gpt"] and onnx_export.read_meta(served / "gpt.onnx")["code"] == onnx_export.code_stamp()


def test_one_command_publishes_the_graphs_everywhere():
    """scripts/test, scripts/app, the Dockerfile and ui.serve's child all run `python -m
    ui.browser_model`; none spells out the export's own arguments again (they were written in four
    places until 2026-12-05)."""
    root = Path(__file__).resolve().parents[1]
    for f in ("scripts/test", "scripts/app", "Dockerfile", "ui/serve.py"):
        text = (root / f).read_text(encoding="utf-8")
        assert "ui.browser_model" in text, f
        assert "export-onnx shipped" not in text and '"export-onnx"' not in text, f


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_the_command_refuses_a_number_of_exports_below_one(value, capsys, monkeypatch):
    """`python -m ui.browser_model --jobs 0` ran one export, quietly, until 2026-12-05: a count under
    one, or no number, is refused with a line that says why, before anything is exported."""
    from ui.browser_model import __main__ as command

    def publish(**_):
        raise AssertionError(f"--jobs {value} was not refused: the export started")

    monkeypatch.setattr(command, "publish", publish)
    main = command.main
    with pytest.raises(SystemExit) as stop:
        main(["--jobs", value])
    assert stop.value.code == 2
    assert "--jobs" in capsys.readouterr().err
