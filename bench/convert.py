"""The real models' first conversion and cached start (model/hf/pretrained.py, model/hf/gguf_fast.py):
where the first start's time goes and what a cached start costs.

    python -m bench.convert [--models smollm2-135m gemma3-270m] [--reader-only]

For each model: reading the GGUF file's metadata with gguf.GGUFReader and with gguf_fast's reader
(the step that dominated SmolLM2's 151 s first conversion), then, each in a fresh process as a
server's start is, a first load into an empty cache folder (assemble, check, dequantize, write)
and a cached load from that folder, with the process's peak RSS. One torch thread, as the app
runs. Each child prints wall and CPU seconds (user + system) for its imports, transformers' import
and the load: on a shared machine the wall time follows the load average, printed beside the
figures, while the CPU time is what a quiet machine's wall time would be for this one-thread work.
--reader-only skips the loads (tests/test_gguf_fast.py runs that on a small written file).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, os, resource, sys, time

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def peak_mb():
    # VmHWM: this process's own peak (getrusage's ru_maxrss starts from the parent's at the fork,
    # and the bench's parent has read the whole GGUF file)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

t0, c0 = time.perf_counter(), cpu()
import torch
torch.set_num_threads(1)
import model
from model.hf import pretrained
t1, c1 = time.perf_counter(), cpu()
import transformers.modeling_utils  # what any Hugging Face model's load imports first
t2, c2 = time.perf_counter(), cpu()
name = sys.argv[1]
r = model.load(name, device="cpu")
t3, c3 = time.perf_counter(), cpu()
rep = pretrained.report(name)
print(json.dumps({"imports_s": t1 - t0, "transformers_import_s": t2 - t1, "load_s": t3 - t2,
    "converted": rep.converted, "convert_s": rep.convert_s, "start_s": t3 - t0,
    "start_cpu_s": c3 - c0, "load_cpu_s": c3 - c2, "transformers_import_cpu_s": c2 - c1,
    "max_rss_mb": peak_mb(), "load_average": os.getloadavg()[0]}))
"""


def load_in_child(name: str, cache: str) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT, ATTN_HF="1", HF_HUB_OFFLINE="1", ATTN_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", CHILD, name], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def reader_times(path: str) -> dict:
    """Seconds to read the file's metadata with gguf's reader and with ours, and whether every
    field came out the same (types, indices and bytes of every part)."""
    import gguf

    from model.hf import gguf_fast

    t = time.perf_counter()
    slow = gguf.GGUFReader(path)
    t_slow = time.perf_counter() - t
    t = time.perf_counter()
    fast = gguf_fast.reader(path)
    t_fast = time.perf_counter() - t
    return {"gguf_reader_s": t_slow, "fast_reader_s": t_fast, "fields": len(fast.fields), "same": same(slow, fast)}


def same(a, b) -> bool:
    if list(a.fields) != list(b.fields):
        return False
    for key, fa in a.fields.items():
        fb = b.fields[key]
        if fa.types != fb.types or fa.data != fb.data or len(fa.parts) != len(fb.parts):
            return False
        if any(x.dtype != y.dtype or x.tobytes() != y.tobytes() for x, y in zip(fa.parts, fb.parts, strict=True)):
            return False
    return [(t.name, t.tensor_type, t.data.shape) for t in a.tensors] == [
        (t.name, t.tensor_type, t.data.shape) for t in b.tensors
    ]


def main(argv=None) -> dict:
    from model.hf import pretrained

    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="*", default=list(pretrained.NAMES))
    ap.add_argument("--reader-only", action="store_true")
    ap.add_argument("--gguf", help="time the readers on this GGUF file instead of the models'")
    a = ap.parse_args(argv)
    out: dict = {"load_average_before": os.getloadavg()}
    if a.gguf:
        out["file"] = reader_times(a.gguf)
    for name in [] if a.gguf else a.models:
        if not pretrained.installed(name):
            out[name] = f"not installed ({pretrained.INSTALL})"
            continue
        row: dict = {}
        with tempfile.TemporaryDirectory(prefix=f"{name}-bench-") as tmp:
            from pathlib import Path

            src = pretrained.assembled(name, Path(tmp))
            row["reader"] = reader_times(str(src))
            del src
        if not a.reader_only:
            with tempfile.TemporaryDirectory(prefix=f"{name}-cache-") as cache:
                row["first"] = load_in_child(name, cache)
                row["cached"] = load_in_child(name, cache)
        out[name] = row
    out["load_average_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
