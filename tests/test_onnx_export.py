"""model/onnx_export.py: every shipped model (and a snapshot of each trained run) exported to ONNX
by the project's own command, run in onnxruntime (the oracle runner, as a browser's
onnxruntime-web runs the same graph), and checked against the PyTorch trace within 1e-5: every
kind's attention weights and scores and the logits, with each knob set (weights absolute, scores and
logits relative to their largest magnitude: see relative()) (the temperature in every layer or in one, heads switched off in each way, positions off, and all of them at once).

The graphs are the project's cache's (ATTN_CACHE_DIR or ~/.cache/attention-explorer/onnx), where
scripts/test's export step has made the shipped models' already; a graph there is used only while
current (same FORMAT, weights' files and model code: onnx_export.current), else exported again
(about 17 s of CPU a graph, the snapshots here the first time): the file is marked slow."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import model
from model import intervention, onnx_export
from model.config import settings_from
from model.tokenizer import BOS

ort = pytest.importorskip("onnxruntime", reason="requirements.txt pins onnxruntime; install it")

pytestmark = pytest.mark.slow
TOL = 1e-5
MODELS = ("translator", "gpt", "gpt-rope", "gpt-alibi", "gpt-local")
SENTENCES = {
    "translator": ("The cat sat on the mat.", "我 爱 你 们 的 猫。"),
    "gpt": ("The dog saw the man in the garden",),
}


def snapshot_of(name: str) -> str:
    first = next(s for s in model.snapshots_of(name) if not s["shipped"])
    return f"{name}@{first['step']}"


@pytest.fixture(scope="session")
def exported():
    """{name: onnxruntime session}, each made by `python -m model export-onnx NAME` (into the cache,
    exported unless a current one is there)."""
    from model.__main__ import main

    out = onnx_export.code_folder()
    sessions = {}

    def get(name):
        if name not in sessions:
            assert main(["export-onnx", name]) == 0
            path = out / onnx_export.file_name(name)
            sessions[name] = (ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]), path)
        return sessions[name]

    return get


def heads(runner, n: int, seed: int):
    """n heads of the model (kind, layer, head), spread over its kinds, the same every run."""
    every = intervention.all_heads(runner)
    picked = np.random.default_rng(seed).choice(len(every), size=n, replace=False)
    return [every[i] for i in sorted(picked)]


def knob_cases(runner):
    """(label, trace settings): each knob alone, each ablation, and all at once."""
    L = runner.config.num_layers
    off = heads(runner, 3, 7)
    cases = [
        ("default", {}),
        ("T=0.4 every layer", {"temperature": 0.4}),
        ("T=3 in the last layer", {"temperature": 3.0, "temperature_layer": L - 1}),
        ("positions off", {"use_position": False}),
    ]
    cases += [(f"3 heads off ({how})", {"ablate": off, "how": how}) for how in intervention.ABLATIONS]
    cases.append(
        (
            "all at once",
            {"temperature": 2.0, "temperature_layer": 0, "use_position": False, "ablate": off[:2], "how": "mean"},
        )
    )
    return cases


def onnx_inputs(runner, ids: dict, s: dict) -> dict:
    """The graph's inputs for the trace settings s (the PyTorch trace's keywords)."""
    c = runner.config
    temps = np.ones(c.num_layers, dtype=np.float32)
    t, layer = s.get("temperature", 1.0), s.get("temperature_layer")
    temps[:] = t if layer is None else 1.0
    if layer is not None:
        temps[layer] = t
    kinds = onnx_export.kinds_of(runner)
    off = np.zeros((len(kinds), c.num_layers, c.num_heads), dtype=bool)
    for kind, la, h in s.get("ablate", ()):
        off[kinds.index(kind), la, h] = True
    return {
        **{k: np.asarray([v], dtype=np.int64) for k, v in ids.items()},
        "temperature": temps,
        "head_off": off,
        "ablation": np.asarray(intervention.ABLATIONS.index(s.get("how", "zero")), dtype=np.int64),
        "use_position": np.asarray(s.get("use_position", True)),
    }


def pytorch(runner, text: str, s: dict):
    """The PyTorch trace of text under s, its scores (from the trace's record) and logits (the
    model's forward under the same settings, on the tokens the trace read)."""
    record: dict = {}
    tr = runner.trace(text, record=record, **s)
    if runner.kind == "translator":
        ids = {"src": record["encoder_ids"][0].tolist(), "tgt": record["decoder_ids"][0].tolist()}
    else:
        ids = {"ids": record["decoder_ids"][0].tolist()}
    iv = intervention.build(runner, s.get("ablate"), s.get("how", "zero"))
    settings = settings_from(s.get("temperature", 1.0), s.get("temperature_layer"), s.get("use_position", True), iv)
    with torch.no_grad():
        tensors = [torch.tensor([v]) for v in ids.values()]
        logits, _ = runner.module(*tensors, settings)
    scores = {}
    for kind in tr.kinds():
        stack, part = ("encoder", "self_attn") if kind == "encoder" else ("decoder", "self_attn")
        part = "cross_attn" if kind == "cross" else part
        scores[kind] = np.stack([layer[part]["scores"][0].numpy() for layer in record[stack]])
    return tr, ids, scores, logits[0].numpy()


def worst(a, b) -> float:
    return float(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)).max())


def relative(a, b) -> float:
    """The largest difference over the largest magnitude (at least 1): logits reach 10 or more, where
    float32's own step is 1e-6 and two correct orders of summation differ by a few of those."""
    return worst(a, b) / max(1.0, float(np.abs(b).max()))


@pytest.mark.parametrize("name", MODELS)
def test_the_graph_equals_the_pytorch_trace_for_every_kind_and_knob(exported, name):
    runner = model.load(name, device="cpu")
    sess, _ = exported(name)
    out_names = [o.name for o in sess.get_outputs()]
    checked = []
    for text in SENTENCES["translator" if name == "translator" else "gpt"]:
        for label, s in knob_cases(runner):
            tr, ids, scores, logits = pytorch(runner, text, s)
            got = dict(zip(out_names, sess.run(None, onnx_inputs(runner, ids, s))))
            assert relative(got["logits"][0], logits) < TOL, (name, label, relative(got["logits"][0], logits))
            for kind in tr.kinds():
                w = tr.attention[kind].weights
                assert got[f"{kind}_weights"].shape == w.shape
                assert worst(got[f"{kind}_weights"], w) < TOL, (name, label, kind)
                visible = scores[kind] > -1e8  # masked cells: -1e9 in both
                assert (got[f"{kind}_scores"] > -1e8).tolist() == visible.tolist(), (name, label, kind)
                assert relative(got[f"{kind}_scores"][visible], scores[kind][visible]) < TOL, (name, label, kind)
                checked.append((label, kind))
    kinds = set(runner.kinds)
    assert {k for _, k in checked} == kinds and len(checked) == len(SENTENCES[runner.kind]) * 8 * len(kinds)


def test_a_knob_changes_the_graph_output(exported):
    """Each knob reaches the graph: the output moves (a graph that ignored one would pass the
    comparison only if PyTorch ignored it too; this pins that neither does)."""
    runner = model.load("gpt", device="cpu")
    sess, _ = exported("gpt")
    ids = {"ids": [BOS] + runner.tokenizer.encode("The cat sat on the mat and the dog sat too")}
    base = sess.run(None, onnx_inputs(runner, ids, {}))[1]
    for label, s in knob_cases(runner)[1:]:
        moved = sess.run(None, onnx_inputs(runner, ids, s))[1]
        assert worst(moved, base) > 1e-3, label


def greedy(sess, runner, src: list[int], start: int, knobs: dict) -> list[int]:
    """The translator's greedy output from the graph alone (as a browser would loop it)."""
    from model.tokenizer import EOS

    tgt = [start]
    while len(tgt) < runner.config.max_seq_len:
        logits = sess.run(["logits"], onnx_inputs(runner, {"src": src, "tgt": tgt}, knobs))[0]
        nxt = int(logits[0, -1].argmax())
        if nxt == EOS:
            break
        tgt.append(nxt)
    return tgt


@pytest.mark.parametrize("knobs", [{}, {"ablate": [("cross", 0, 0), ("cross", 1, 2)], "how": "uniform"}])
def test_the_graph_translates_as_the_app_does(exported, knobs):
    runner = model.load("translator", device="cpu")
    sess, _ = exported("translator")
    for text in ("The cat sat on the mat.", "我 爱 你。"):
        record: dict = {}
        tr = runner.trace(text, record=record, **knobs)
        src = record["encoder_ids"][0].tolist()
        start = record["decoder_ids"][0, 0].item()
        out = greedy(sess, runner, src, start, knobs)
        assert runner.tokenizer.decode(out[1:]) == tr.output_text
        assert tr.output_text  # a real translation, not an empty match


@pytest.mark.parametrize("name", ["gpt", "translator"])
def test_a_snapshot_exports_with_its_own_weights(exported, name):
    """The timeline's snapshots: NAME@STEP's graph computes that snapshot's trace, not the model's."""
    snap = snapshot_of(name)
    runner = model.load(snap, device="cpu")
    sess, path = exported(snap)
    text = SENTENCES[runner.kind][0]
    tr, ids, _, logits = pytorch(runner, text, {})
    got = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, onnx_inputs(runner, ids, {}))))
    assert relative(got["logits"][0], logits) < TOL
    shipped = pytorch(model.load(name, device="cpu"), text, {})[3]
    if logits.shape == shipped.shape:
        assert worst(logits, shipped) > 1e-2  # another model's weights: the check above means something
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["model"] == snap and meta["format"] == onnx_export.FORMAT


def test_the_cache_is_reused_and_says_what_the_graph_holds(exported, tmp_path):
    _, path = exported("gpt-local")
    meta = onnx_export.read_meta(path)
    runner = model.load("gpt-local", device="cpu")
    assert meta["inputs"] == ["ids", "temperature", "head_off", "ablation", "use_position"]
    assert meta["outputs"] == ["logits", "decoder_weights", "decoder_scores"]
    assert (meta["layers"], meta["heads"], meta["window"]) == (
        runner.config.num_layers,
        runner.config.num_heads,
        runner.config.window,
    )
    before = path.stat().st_mtime_ns
    assert onnx_export.cached("gpt-local", path.parent) == path
    assert path.stat().st_mtime_ns == before  # current: not exported again


def test_every_name_lists_the_models_and_the_snapshots():
    names = onnx_export.every_name()
    assert set(MODELS) <= set(names)
    assert snapshot_of("gpt") in names and snapshot_of("translator") in names


@pytest.mark.parametrize("name", ["nope", "gpt@x", "gpt@999999"])
def test_a_name_the_project_has_not_is_one_line_and_status_2(name, tmp_path, capsys):
    from model.__main__ import main

    assert main(["export-onnx", name, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
    assert not list(tmp_path.iterdir())  # nothing written
