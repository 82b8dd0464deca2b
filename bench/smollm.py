"""SmolLM2-135M (model/hf/pretrained.py): load time (first, which dequantizes the GGUF, and cached),
a forward at 16 / 128 / 512 tokens, memory, and generation per token with and without the KV cache.

    python -m bench.smollm [--first] [--tokens 32]

--first also times a first load into an empty cache folder (a minute or two on two cores). Each
load runs in a fresh process, as a server's start does. One torch thread, as the app runs.
Prints the machine's load average beside the figures: compare the ratios of one run.
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
NAME = "smollm2-135m"

CHILD = r"""
import json, os, resource, time
t0 = time.perf_counter()
import torch
torch.set_num_threads(1)
import model
from model.hf import pretrained
t1 = time.perf_counter()
r = model.load("smollm2-135m", device="cpu")
t2 = time.perf_counter()
rep = pretrained.report("smollm2-135m")
print(json.dumps({"imports_s": t1 - t0, "load_s": t2 - t1, "converted": rep.converted,
    "convert_s": rep.convert_s, "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def load_in_child(cache: str | None) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT, ATTN_HF="1", HF_HUB_OFFLINE="1")
    if cache:
        env["ATTN_CACHE_DIR"] = cache
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def per_token(runner, prompt: str, n: int, cached: bool) -> float:
    kind = type(runner)
    original = kind.has_kv_cache
    if not cached:
        kind.has_kv_cache = property(lambda self: False)
    try:
        t = time.perf_counter()
        g = runner.generate(prompt, max_new_tokens=n, temperature=1.0, seed=0, stop_at_eos=False)
        return (time.perf_counter() - t) / max(1, len(g.steps))
    finally:
        kind.has_kv_cache = original


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--first", action="store_true", help="also time a first load into an empty cache folder")
    ap.add_argument("--tokens", type=int, default=32)
    a = ap.parse_args()
    out = {"load_average": os.getloadavg()}
    if a.first:
        with tempfile.TemporaryDirectory(prefix="smollm-cache-") as tmp:
            out["first"] = load_in_child(tmp)
            out["cached_after_first"] = load_in_child(tmp)
    out["cached"] = load_in_child(None)

    import torch

    torch.set_num_threads(1)
    import model

    r = model.load(NAME, device="cpu")
    base = r.tokenizer.encode("The cat sat on the mat. It was tired because it had walked a long way. " * 60)
    for n in (16, 128, 512):
        ids = base[:n]
        times = []
        for _ in range(3):
            t = time.perf_counter()
            with torch.no_grad():
                r.hf_model(input_ids=torch.tensor([ids]), output_attentions=True)
            times.append(time.perf_counter() - t)
        out[f"forward_{n}_s"] = min(times)
    out["weights_mb"] = sum(p.numel() * p.element_size() for p in r.hf_model.parameters()) / 2**20
    prompt = "The cat sat on the mat. It was tired because"
    out["per_token_cached_s"] = per_token(r, prompt, a.tokens, cached=True)
    out["per_token_full_s"] = per_token(r, prompt, a.tokens, cached=False)
    out["cache_speedup"] = out["per_token_full_s"] / out["per_token_cached_s"]
    out["load_average_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
