"""Our models as ONNX graphs, for a browser to run (onnxruntime-web): exported from the same
PyTorch modules the app runs, never written by hand.

    python -m model export-onnx gpt            # -> <cache>/onnx/<code>/gpt.onnx (+ gpt.json, what it holds)
    python -m model export-onnx all            # every shipped model and every training snapshot

The knobs a page turns are the graph's inputs, so one graph answers every setting:

    ids (1, T) int64                  the GPT's tokens, <s> first    (translator: src (1, S), tgt (1, T))
    temperature (layers,) float32     the attention temperature of each layer (every kind in it), 1 = the model's own
    head_off (kinds, layers, heads) bool   heads switched off (kinds: the model's, in KINDS order)
    ablation () int64                 how a head is switched off: 0 zero, 1 mean, 2 uniform (ABLATIONS' order)
    use_position () bool              False: no positional information (embedding, RoPE rotation, ALiBi bias)

and its outputs are the logits (1, T, vocab) and, for each kind, every layer's attention weights
and the scores softmax was given (layers, heads, queries, keys): `<kind>_weights`, `<kind>_scores`.

How the knobs reach the unchanged model code: its forward asks its settings for each layer's
temperature and HeadOp, and its Position module for the positional information. Here the
settings answer with the graph's tensors (Knobs), the HeadOp computes the three ablations and
keeps the one `ablation` names (SwitchedHeadOp, model/attention.py's HeadOp for each), and a
SwitchedPosition keeps or drops what Position adds. A "mean"-switched-off head outputs the
held-out reference means (model/intervention.reference_means), stored in the graph.
tests/test_onnx_export.py runs each graph in onnxruntime and checks it against the PyTorch trace.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path

import torch
import torch.nn as nn

from model.attention import ABLATIONS, HeadOp
from model.trace import KINDS

OPSET = 18
FORMAT = 1  # bump when the graph's inputs or outputs change: a cached export of another format is made again
CACHE_ENV = "ATTN_CACHE_DIR"


# -- the knobs as tensors --------------------------------------------------------------------------
class SwitchedHeadOp(HeadOp):
    """HeadOp with the heads to switch off as a tensor and the way to switch them off chosen by a
    tensor too: every way is computed by HeadOp itself and `mode` picks one (a graph has no if)."""

    def __init__(self, off, mode, means=None):
        super().__init__(ablate=off.view(1, -1), how="zero")
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "ref", means)

    def apply(self, output, weights, v, mask=None):
        picked_out, picked_w = None, None
        for i, how in enumerate(ABLATIONS):
            op = HeadOp(ablate=self.ablate, how=how, means=self.ref if how == "mean" else None)
            out, w = op.apply(output, weights, v, mask)
            if picked_out is None:
                picked_out, picked_w = out, w
            else:
                chosen = self.mode == i
                picked_out = torch.where(chosen, out, picked_out)
                picked_w = torch.where(chosen, w, picked_w)
        return picked_out, picked_w


class Knobs:
    """What AttentionSettings answers the model's forward, read from the graph's inputs."""

    use_position = True  # the Python switch stays on: SwitchedPosition applies the tensor one

    def __init__(self, temperature, head_off, ablation, kinds, means):
        self.temperature, self.head_off, self.ablation = temperature, head_off, ablation
        self.kinds, self.means = kinds, means

    def temperature_at(self, layer: int):
        return self.temperature[layer]

    def head_op(self, kind: str, layer: int):
        return SwitchedHeadOp(
            self.head_off[self.kinds.index(kind), layer], self.ablation, self.means.get((kind, layer))
        )


class SwitchedRope(nn.Module):
    """RoPE's rotation, or none when the positions are off."""

    def __init__(self, rope, on):
        super().__init__()
        self.rope, self.on = rope, on

    def forward(self, x, offset=0):
        return torch.where(self.on, self.rope(x, offset), x)


class SwitchedPosition(nn.Module):
    """A model's Position, kept or dropped by a tensor (`on`, set for each forward): what the
    embeddings get added and what attention gets (RoPE's rotation, ALiBi's bias, times 0 when off)."""

    def __init__(self, position):
        super().__init__()
        self.inner = position
        self.on = None

    @property
    def scheme(self):
        return self.inner.scheme

    def add_to_embeddings(self, x, use_position=True, offset=0):
        return torch.where(self.on, self.inner.add_to_embeddings(x, True, offset), x)

    def attention_extras(self, seq_q, seq_k, device, use_position=True):
        extras = dict(self.inner.attention_extras(seq_q, seq_k, device, True))
        if "rope" in extras:
            extras["rope"] = SwitchedRope(extras["rope"], self.on)
        if "bias" in extras:
            extras["bias"] = extras["bias"] * self.on.to(extras["bias"].dtype)
        return extras


def padded_means(means: dict, positions: int) -> dict:
    """Reference means (heads, P, d_v) extended to `positions` rows with the last one repeated, as
    HeadOp.mean_output extends them: then the graph never branches on the sentence's length."""
    out = {}
    for key, m in means.items():
        m = m.float()
        if m.size(1) < positions:
            m = torch.cat([m, m[:, -1:].expand(-1, positions - m.size(1), -1)], dim=1)
        out[key] = m[:, :positions].contiguous()
    return out


class _Exported(nn.Module):
    def __init__(self, module, kinds, means):
        super().__init__()
        self.model = copy.deepcopy(module).eval()
        self.model.position = SwitchedPosition(self.model.position)
        self.kinds = kinds
        self.means = padded_means(means, module.config.max_seq_len)

    def knobs(self, temperature, head_off, ablation, use_position):
        self.model.position.on = use_position
        return Knobs(temperature, head_off, ablation, self.kinds, self.means)

    @staticmethod
    def scores(record, stack, part):
        return torch.stack([layer[part]["scores"][0] for layer in record[stack]])


class GPTGraph(_Exported):
    def forward(self, ids, temperature, head_off, ablation, use_position):
        record: dict = {}
        logits, w = self.model(ids, self.knobs(temperature, head_off, ablation, use_position), record)
        return logits, w["decoder"][:, 0], self.scores(record, "decoder", "self_attn")


class TranslatorGraph(_Exported):
    def forward(self, src, tgt, temperature, head_off, ablation, use_position):
        record: dict = {}
        logits, w = self.model(src, tgt, self.knobs(temperature, head_off, ablation, use_position), record)
        return (
            logits,
            w["encoder"][:, 0],
            self.scores(record, "encoder", "self_attn"),
            w["decoder"][:, 0],
            self.scores(record, "decoder", "self_attn"),
            w["cross"][:, 0],
            self.scores(record, "decoder", "cross_attn"),
        )


# -- the export ------------------------------------------------------------------------------------
def kinds_of(runner) -> tuple[str, ...]:
    return tuple(k for k in KINDS if k in runner.kinds)


def input_names(runner) -> list[str]:
    tokens = ["src", "tgt"] if runner.kind == "translator" else ["ids"]
    return [*tokens, "temperature", "head_off", "ablation", "use_position"]


def output_names(runner) -> list[str]:
    return ["logits"] + [f"{k}_{what}" for k in kinds_of(runner) for what in ("weights", "scores")]


def example_inputs(runner, tokens: int = 5) -> dict[str, torch.Tensor]:
    """Inputs of the right types and shapes (the knobs at their defaults), for export and tests."""
    c = runner.config
    ids = torch.arange(4, 4 + tokens).view(1, -1)
    seqs = {"src": ids, "tgt": ids[:, :-1]} if runner.kind == "translator" else {"ids": ids}
    return {
        **seqs,
        "temperature": torch.ones(c.num_layers),
        "head_off": torch.zeros(len(kinds_of(runner)), c.num_layers, c.num_heads, dtype=torch.bool),
        "ablation": torch.tensor(0),
        "use_position": torch.tensor(True),
    }


def graph_module(runner) -> nn.Module:
    from model import intervention

    means = intervention.reference_means(runner) if intervention.has_reference(runner) else {}
    cls = TranslatorGraph if runner.kind == "translator" else GPTGraph
    return cls(runner.module, kinds_of(runner), means)


def export(runner, path: Path) -> dict:
    """runner's model as an ONNX graph at path; returns what the graph holds (written beside it as JSON)."""
    from torch.export import Dim

    graph = graph_module(runner)
    inputs = example_inputs(runner)
    c = runner.config
    # the sequence axes are the graph's own (any length up to the model's); a GPT reads at least <s>
    # and one token, the translator's decoder starts from its start token alone
    seq = {"ids": Dim("T", min=2, max=c.max_seq_len)}
    if runner.kind == "translator":
        seq = {"src": Dim("S", min=1, max=c.max_seq_len), "tgt": Dim("T", min=1, max=c.max_seq_len)}
    shapes = {name: ({1: seq[name]} if name in seq else None) for name in inputs}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".onnx.tmp")
    with torch.no_grad():
        program = torch.onnx.export(
            graph,
            tuple(inputs.values()),
            input_names=list(inputs),
            output_names=output_names(runner),
            dynamic_shapes=tuple(shapes.values()),
            opset_version=OPSET,
            dynamo=True,
            external_data=False,
            verbose=False,
        )
        program.save(str(tmp))
    os.replace(tmp, path)
    meta = describe(runner, path)
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
    return meta


def describe(runner, path: Path) -> dict:
    c = runner.config
    return {
        "format": FORMAT,
        "model": runner.name,
        "kind": runner.kind,
        "kinds": list(kinds_of(runner)),
        "layers": c.num_layers,
        "heads": c.num_heads,
        "vocab": c.vocab_size,
        "max_seq_len": c.max_seq_len,
        "positional": c.positional,
        "window": c.window,
        "ablations": list(ABLATIONS),
        "inputs": input_names(runner),
        "outputs": output_names(runner),
        "opset": OPSET,
        "torch": torch.__version__,
        "bytes": path.stat().st_size,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }


def cache_dir() -> Path:
    """<ATTN_CACHE_DIR, else ~/.cache/attention-explorer>/onnx: outside the repository (the same
    folder SmolLM2's converted weights go to), so no export is ever committed."""
    from model.hf.pretrained import cache_dir as base

    return base() / "onnx"


def code_folder(code: str | None = None) -> Path:
    """The default folder of graphs made by this model code: cache_dir()/<its code_stamp's first 12
    hex digits>. The cache is shared by every clone on the machine; a clone whose model/ differs (a
    branch in progress) keeps its graphs beside the others' instead of making them stale (each
    clone's export step made every other clone's five graphs again). Folders of other code not
    used for KEEP_DAYS are removed when a new one is made."""
    folder = cache_dir() / (code or code_stamp())[:12]
    if not folder.exists():
        folder.mkdir(parents=True, exist_ok=True)
        _remove_unused(folder)
    return folder


KEEP_DAYS = 7


def _remove_unused(keep: Path) -> None:
    import shutil
    import time

    for other in keep.parent.iterdir():  # another code's folder, or a graph of the layout before folders
        if other != keep and time.time() - other.stat().st_mtime > KEEP_DAYS * 86400:
            if other.is_dir():
                shutil.rmtree(other, ignore_errors=True)
            else:
                other.unlink(missing_ok=True)


def file_name(name: str) -> str:
    return name.replace("@", "-at-") + ".onnx"


def read_meta(path: Path) -> dict:
    return json.loads(Path(path).with_suffix(".json").read_text(encoding="utf-8"))


def cached(name: str, directory: Path | str | None = None, force: bool = False) -> Path:
    """NAME's graph in directory (default code_folder()), exported now unless the folder holds one of
    this FORMAT made from the same weights' files (their names and contents) by the same model code
    (code_stamp: a graph made before model/'s code changed is made again)."""
    from model import registry

    runner = registry.load(name, device="cpu")  # an unknown name or snapshot fails here, nothing written
    stamp, code = _stamp(name), code_stamp()
    path = Path(directory or code_folder(code)) / file_name(name)
    if not force and current(path, stamp, code):
        return path
    meta = export(runner, path)
    meta["weights"], meta["code"] = stamp, code
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8")
    return path


def current(path: Path, stamp: list, code: str) -> bool:
    """Whether path holds a graph of this FORMAT from these weights' files and this model code."""
    if not (path.exists() and path.with_suffix(".json").exists()):
        return False
    try:
        meta = read_meta(path)
    except (OSError, ValueError):
        return False
    return (
        meta.get("format") == FORMAT
        and meta.get("weights") == stamp
        and meta.get("code") == code
        and meta.get("bytes") == path.stat().st_size
    )


def code_stamp() -> str:
    """sha256 of the model package's own modules (model/*.py, this file included): what a graph
    is traced from besides the weights."""
    h = hashlib.sha256()
    for p in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _cached_one(name: str, directory: str | None, force: bool) -> str:
    torch.set_num_threads(1)  # one export a process: `jobs` processes share the cores
    return str(cached(name, directory, force))


def cached_all(names: list[str], directory: Path | str | None = None, jobs: int = 1, force: bool = False) -> list[Path]:
    """cached() for each of NAMES (every name checked first, so an unknown one writes nothing), the
    ones not current exported in `jobs` processes at once (about 17 s of CPU a graph)."""
    from model import registry

    for n in names:
        registry.load(n, device="cpu")
    code = code_stamp()
    folder = Path(directory or code_folder(code))
    if directory is None:
        os.utime(folder)  # used now: kept by _remove_unused
    todo = [n for n in names if force or not current(folder / file_name(n), _stamp(n), code)]
    if jobs > 1 and len(todo) > 1:
        import concurrent.futures
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: no torch state inherited
        with concurrent.futures.ProcessPoolExecutor(min(jobs, len(todo)), mp_context=ctx) as pool:
            list(pool.map(_cached_one, todo, [str(folder)] * len(todo), [force] * len(todo)))
    else:
        for n in todo:
            cached(n, folder, force)
    return [folder / file_name(n) for n in names]


def publish(directory: Path | str, names: list[str] | None = None, jobs: int = 1, force: bool = False) -> list[Path]:
    """The folder a browser loads (the app serves static/models/): NAMES' graphs (default: the
    shipped models, registry.NAMES), each the folder does not already hold current made current in
    the cache first (cached_all: exported once, as SmolLM2's conversion is) and copied, with a
    gzipped copy beside each file, and our SentencePiece model
    (tokenizer.model, read by ui/browser_model/tokenizer.js). Returns the folder's graphs."""
    import shutil

    from model import registry
    from model.tokenizer import DEFAULT_PATH

    names = list(registry.NAMES) if names is None else list(names)
    directory = Path(directory)
    # a graph the folder already holds current (the image's, published when it was built) is not
    # exported again into this process's cache: the image's server, started with a fresh cache,
    # exported all five (about 85 s of CPU) although its static/models held them
    code = code_stamp()
    stale = [n for n in names if force or not current(directory / file_name(n), _stamp(n), code)]
    graphs = cached_all(stale, None, jobs, force) if stale else []
    directory.mkdir(parents=True, exist_ok=True)
    out = [directory / file_name(n) for n in names]
    for graph in graphs:
        dest = directory / graph.name
        meta, dest_meta = graph.with_suffix(".json"), dest.with_suffix(".json")
        if not (dest.exists() and dest_meta.exists() and dest_meta.read_bytes() == meta.read_bytes()):
            tmp = dest.with_suffix(".onnx.tmp")
            shutil.copyfile(graph, tmp)
            os.replace(tmp, dest)
            gzipped(dest)
            shutil.copyfile(meta, dest_meta)  # last: a graph is whole once its JSON says so
    tok = directory / "tokenizer.model"
    if not tok.exists() or tok.read_bytes() != DEFAULT_PATH.read_bytes():
        shutil.copyfile(DEFAULT_PATH, tok)
        gzipped(tok)
    for path in (*out, tok):  # published before the copies were made
        if not Path(f"{path}.gz").exists():
            gzipped(path)
    return out


def gzipped(path: Path) -> Path:
    """PATH.gz beside PATH, compressed once here: the browser fetches it and unpacks it itself
    (ui/browser_model/model.js, fetchBytes), instead of the server gzipping the file again at
    every request. No name or time in the header, so the same file always gives the same bytes."""
    import gzip

    out, tmp = Path(f"{path}.gz"), Path(f"{path}.gz.tmp")
    tmp.write_bytes(gzip.compress(Path(path).read_bytes(), compresslevel=9, mtime=0))
    os.replace(tmp, out)
    return out


def _stamp(name: str) -> list:
    """The files NAME's graph is made from, each by its name and content (sha256): the model's
    weights and its config, and a snapshot's own file. Not by their time: every clone of the
    repository checks the files out at its own time, and the cache is shared by them all (one
    clone's export made every other's stale, so each clone exported the five graphs again, 165 s
    at load 9, 2026-12-04)."""
    from model import registry, snapshots

    base, step = registry.split_snapshot(name)
    files = list(registry.paths(base))
    if step is not None:
        files.append(snapshots.index_path(base, registry.weights_dir()))
    return [[p.name, hashlib.sha256(p.read_bytes()).hexdigest()] for p in files if p.exists()]


def every_name() -> list[str]:
    """Every shipped model, and the timeline's snapshots (NAME@STEP, the last one is the model itself)."""
    from model import registry

    names = list(registry.NAMES)
    for name in registry.NAMES:
        names += [f"{name}@{s['step']}" for s in registry.snapshots_of(name) if not s["shipped"]]
    return names
