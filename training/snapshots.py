"""Snapshots of one training run, from the random start (step 0) to the shipped weights.

`python -m model train NAME --snapshots N` keeps N states of the run on a log-spaced step
schedule, with the losses (and, for the translator, held-out exact match) measured at each one,
so the app can show heads forming during training. The last snapshot *is* the shipped weights
(the index points at them instead of storing a copy).

Storage: each earlier snapshot is stored as int8 with one float16 scale per row when that changes
no attention weight (on held-out sentences) by more than STORE_TOLERANCE, else as float16; the
measured largest change is written in the index beside each file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from model.snapshots import decode_state, directory, index_path, read_index
from training.probe import CHECK_SENTENCES

STORE_TOLERANCE = 0.01  # largest change of any attention weight that storing may cause
GROUP = 32  # int8 values share one float16 scale per GROUP consecutive weights of a row


def schedule(steps: int, n: int) -> list[int]:
    """n distinct steps from 0 to `steps`, log-spaced (heads form early, so early steps are dense)."""
    if n < 2 or steps < 1:
        raise ValueError("a timeline needs at least 2 snapshots and 1 step")
    inner = np.geomspace(10, steps, num=n - 1) if steps > 10 else np.linspace(1, steps, num=n - 1)
    out = sorted({0, steps, *(int(round(s)) for s in inner)})
    return out


def _groups(x: torch.Tensor) -> torch.Tensor:
    """(..., n) float -> (rows, groups, GROUP), zero-padded at the end of each row."""
    rows = x.reshape(x.shape[0], -1) if x.dim() > 1 else x.reshape(1, -1)
    pad = (-rows.shape[1]) % GROUP
    return torch.nn.functional.pad(rows, (0, pad)).reshape(rows.shape[0], -1, GROUP)


def _quantize(t: torch.Tensor) -> dict[str, torch.Tensor]:
    """int8 with one float16 scale per group of GROUP weights (a per-row scale is too coarse for
    the trained translator's sharp heads: measured, it moved attention weights by more than 0.01)."""
    g = _groups(t.detach().float())
    scale = (g.abs().amax(dim=2, keepdim=True).clamp_min(1e-12) / 127.0).to(torch.float16)
    q = torch.round(g / scale.float()).clamp(-127, 127).to(torch.int8)
    return {"q": q.contiguous(), "scale": scale.squeeze(2).contiguous()}


def encode_state(state: dict[str, torch.Tensor], fmt: str) -> dict[str, torch.Tensor]:
    out = {}
    for k, v in state.items():
        if fmt == "int8" and v.is_floating_point() and v.numel() >= 256:
            parts = _quantize(v)
            out[k + ".q"], out[k + ".scale"] = parts["q"], parts["scale"]
            out[k + ".shape"] = torch.tensor(list(v.shape), dtype=torch.int64)
        else:
            out[k] = v.detach().to(torch.float16 if v.is_floating_point() else v.dtype).contiguous()
    return out


def _attention_arrays(module, batches) -> list[np.ndarray]:
    """Every attention weight the app could show, for a list of (src, tgt) or (ids,) batches."""
    out = []
    with torch.no_grad():
        for batch in batches:
            _, weights = module(*batch)
            out += [w.float().numpy() for w in weights.values()]
    return out


def largest_attention_change(module, state_a, state_b, batches) -> float:
    """Largest |weight difference| of any attention weight between two states of one module."""
    module.load_state_dict(state_a, strict=False)
    a = _attention_arrays(module, batches)
    module.load_state_dict(state_b, strict=False)
    b = _attention_arrays(module, batches)
    return float(max(np.abs(x - y).max() for x, y in zip(a, b)))


def pack(
    name: str,
    module,
    states: list[tuple[int, dict]],
    metrics: list[dict],
    batches,
    weights_dir: Path,
    final_step: int,
    log=print,
) -> dict:
    """Write the snapshots and their index. `states` holds (step, float32 state) for every
    snapshot but the last, which is the shipped weights themselves."""
    d = directory(name, weights_dir)
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("step-*.safetensors"):
        old.unlink()
    final_state = {k: v.detach().clone() for k, v in module.state_dict().items()}
    entries = []
    for step, state in states:
        fmt, change = "float16", None
        for candidate in ("int8", "float16"):
            restored = decode_state(encode_state(state, candidate))
            change = largest_attention_change(module, state, restored, batches)
            if change <= STORE_TOLERANCE:
                fmt = candidate
                break
        file = f"step-{step:06d}.safetensors"
        save_file(encode_state(state, fmt), str(d / file), metadata={"model": name, "step": str(step), "format": fmt})
        entries.append({"step": step, "file": file, "format": fmt, "largest_attention_change": round(change, 5)})
        log(f"snapshot {step}: {fmt}, attention changed by at most {change:.4f}")
    module.load_state_dict(final_state)
    entries.append({"step": final_step, "file": None, "format": "shipped", "largest_attention_change": 0.0})
    by_step = {m["step"]: m for m in metrics}
    for e in entries:
        e["metrics"] = by_step.get(e["step"], {})
    index = {"model": name, "tolerance": STORE_TOLERANCE, "checked_on_sentences": CHECK_SENTENCES, "snapshots": entries}
    tmp = index_path(name, weights_dir).with_suffix(".json.tmp")
    tmp.write_text(json.dumps(index, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, index_path(name, weights_dir))
    return index


def repack(name: str, weights_dir: Path, log=print) -> dict:
    """Store existing float16 snapshots as int8 where that still changes no attention weight by more
    than STORE_TOLERANCE. The change is measured against the stored float16 state and added to the
    float16 state's own recorded change (a bound on the change from the float32 original)."""
    from model import registry
    from model.tokenizer import Tokenizer
    from training.probe import Probe

    index = read_index(name, weights_dir)
    module = registry.load_module(name, weights_dir).eval()
    probe = Probe(name, module.config.arch, Tokenizer.load(Path(weights_dir) / "tokenizer.model"), [], 0)
    final_state = {k: v.detach().clone() for k, v in module.state_dict().items()}
    for e in index["snapshots"]:
        if e["format"] != "float16":
            continue
        path = directory(name, weights_dir) / e["file"]
        state = decode_state(load_file(str(path)))
        encoded = encode_state(state, "int8")
        change = largest_attention_change(module, state, decode_state(encoded), probe.check_batches)
        total = change + e["largest_attention_change"]
        if total <= STORE_TOLERANCE:
            save_file(encoded, str(path), metadata={"model": name, "step": str(e["step"]), "format": "int8"})
            e["format"], e["largest_attention_change"] = "int8", round(total, 5)
        log(f"snapshot {e['step']}: {e['format']}, at most {total:.4f}")
    module.load_state_dict(final_state)
    index_path(name, weights_dir).write_text(json.dumps(index, indent=2, ensure_ascii=False), encoding="utf-8")
    return index
