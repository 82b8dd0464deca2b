"""A real pretrained model's measured claims, kept on disk beside its converted weights.

analysis.claims.at_load measures what the pages may say about SmolLM2 or Gemma (the sink, a
previous-token head, an induction head, "it" -> "animal", how far back its layers read) through the
model's own traces: 7.5 s of CPU for SmolLM2 and 10.0 s for Gemma on the 2-core machine
(2026-12-05), in every server process that loads them, so each restart and each replica paid it
again. The verdicts are a function of the converted weights, the device and the code that computes
them, so they are kept under a key of all three (model/hf/pretrained.py's stamp of the conversion;
every source file under analysis/, model/ and data/; torch's and numpy's versions): a change of any
of them measures again. Written as JSON (never pickle: the cache folder is read, not run), every
value given back with its exact type, or not kept at all.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from analysis.claims import Claim

ROOT = Path(__file__).resolve().parents[1]
CODE = ("analysis", "model", "data")  # what the verdicts are computed by (weights files excluded)
SKIP = {".safetensors", ".onnx", ".pyc", ".gguf"}
_LOG = logging.getLogger(__name__)


@cache
def code_digest() -> str:
    digest = hashlib.sha256()
    for top in CODE:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix not in SKIP and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    import torch

    digest.update(f"torch {torch.__version__} numpy {np.__version__}".encode())
    return digest.hexdigest()


def path_of(name: str, device) -> Path | None:
    """Where a packaged model's claims live on this device, or None (not a packaged model)."""
    from model.hf import pretrained

    if name not in pretrained.MODELS:
        return None
    key = json.dumps(
        {"stamp": pretrained.stamp(name), "device": getattr(device, "type", str(device)), "code": code_digest()},
        sort_keys=True,
    )
    return pretrained.cache_dir() / "claims" / f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:24]}.json"


# -- every value with its type: JSON's own, and tagged objects for what JSON would change -----------
def encode(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, np.ndarray):
        return {"~": "array", "dtype": v.dtype.str, "shape": list(v.shape), "v": v.ravel().tolist()}
    if isinstance(v, np.generic):
        return {"~": "scalar", "dtype": v.dtype.str, "v": v.item()}
    if isinstance(v, tuple):
        return {"~": "tuple", "v": [encode(x) for x in v]}
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {"~": "dict", "v": [[encode(k), encode(x)] for k, x in v.items()]}
    if isinstance(v, Claim):
        return {"~": "claim", "v": [v.name, v.holds, encode(v.numbers), encode(v.heads)]}
    raise TypeError(f"not kept: {type(v).__name__}")


def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if not isinstance(v, dict):
        return v
    tag, body = v["~"], v["v"]
    if tag == "array":
        return np.array(body, dtype=np.dtype(v["dtype"])).reshape(v["shape"])
    if tag == "scalar":
        return np.array(body, dtype=np.dtype(v["dtype"]))[()]
    if tag == "tuple":
        return tuple(decode(x) for x in body)
    if tag == "dict":
        return {decode(k): decode(x) for k, x in body}
    if tag == "claim":
        name, holds, numbers, heads = body
        return Claim(name, holds, decode(numbers), decode(heads))
    raise ValueError(f"unknown tag {tag!r}")


def load(name: str, device) -> dict | None:
    """The claims kept for this model on this device, or None (none kept, or unreadable)."""
    path = path_of(name, device)
    if path is None or not path.is_file():
        return None
    try:
        found = decode(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found if isinstance(found, dict) and all(isinstance(c, Claim) for c in found.values()) else None


def save(name: str, device, claims: dict) -> bool:
    """Keep them (atomically: another process reads the whole file or none); False where they
    cannot be written or hold a value of a type not kept."""
    path = path_of(name, device)
    if path is None:
        return False
    tmp = None
    try:
        text = json.dumps(encode(claims))
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".claims-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
        tmp = None
    except (OSError, TypeError, ValueError) as e:
        _LOG.info("%s: its claims were not kept on disk (%s)", name, e)
        return False
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return True
