"""Reading the snapshots of a training run: `registry.load("NAME@STEP")` gets the state after STEP
updates from here. training/snapshots.py writes them (the format is described there): int8 with a
float16 scale per group of weights, or float16; the last snapshot is the shipped weights themselves,
so the index points at them instead of storing a copy.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file


def directory(name: str, weights_dir: Path) -> Path:
    return Path(weights_dir) / "snapshots" / name


def index_path(name: str, weights_dir: Path) -> Path:
    return directory(name, weights_dir) / "index.json"


def dequantize(q: torch.Tensor, scale: torch.Tensor, shape) -> torch.Tensor:
    rows = (q.float() * scale.float().unsqueeze(2)).reshape(q.shape[0], -1)
    n = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
    return rows[:, :n].reshape(shape)


def decode_state(stored: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    out = {}
    for k, v in stored.items():
        if k.endswith((".scale", ".shape")):
            continue
        if k.endswith(".q"):
            base = k[:-2]
            out[base] = dequantize(v, stored[base + ".scale"], tuple(stored[base + ".shape"].tolist()))
        else:
            out[k] = v.float() if v.is_floating_point() else v
    return out


def read_index(name: str, weights_dir: Path) -> dict | None:
    p = index_path(name, weights_dir)
    if not p.exists():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


def steps_of(name: str, weights_dir: Path) -> list[int]:
    index = read_index(name, weights_dir)
    return [e["step"] for e in index["snapshots"]] if index else []


def load_state(name: str, step: int, weights_dir: Path) -> dict[str, torch.Tensor] | None:
    """The float32 state of one snapshot, or None for the last one (the shipped weights)."""
    index = read_index(name, weights_dir)
    entry = next((e for e in (index or {}).get("snapshots", []) if e["step"] == step), None)
    if entry is None:
        raise KeyError(step)
    if entry["file"] is None:
        return None
    return decode_state(load_file(str(directory(name, weights_dir) / entry["file"])))
