"""Every shipped model on two devices: the same traces on CUDA (when there is one) and on the CPU,
with each knob set, and how far their numbers differ; a forward's time on each.

    python -m bench.devices [--devices cpu cuda] [--models gpt translator] [--repeat 10] [--json PATH]

"GPU when there is one" is a claim of the app (model/device.py picks CUDA first); this checks that
what a page shows does not depend on where the model ran: attention of every kind within 1e-4
(float32 matrix products on a GPU use other summation orders; TF32 is off in PyTorch by default),
the same output text, and next-token logits within 1e-3. On a machine without CUDA it compares the
CPU with itself, which is what tests/test_bench_devices.py runs so the bench cannot rot.
Prints the machine's load average beside the figures: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

SENTENCES = ("The cat sat on the mat", "狗咬人", "The boy saw the cat. It was happy 😀")
# (name, trace settings): every knob a page turns
KNOBS = (
    ("plain", {}),
    ("T=3 every layer", {"temperature": 3.0}),
    ("T=0.5 layer 0", {"temperature": 0.5, "temperature_layer": 0}),
    ("no positions", {"use_position": False}),
    ("head 0.1 off (zero)", {"ablate": "first", "how": "zero"}),
    ("head 0.1 off (mean)", {"ablate": "first", "how": "mean"}),
    ("head 0.1 off (uniform)", {"ablate": "first", "how": "uniform"}),
)
ATTENTION_TOL = 1e-4
LOGITS_TOL = 1e-3


def _settings(kinds: list[str], knob: dict) -> dict:
    out = dict(knob)
    if out.get("ablate") == "first":  # the first kind the model has, layer 0, head 1
        out["ablate"] = [(kinds[0], 0, 1)]
    return out


def compare(name: str, devices: tuple[str, str], repeat: int = 10) -> dict:
    """The largest differences between the two devices' traces over SENTENCES x KNOBS, and the
    median time of one plain trace on each."""
    import model

    a, b = (model.load(name, device=d) for d in devices)
    worst_attention, worst_logits, outputs_differ = 0.0, 0.0, 0
    kinds = a.trace(SENTENCES[0]).kinds()
    for text in SENTENCES:
        for _, knob in KNOBS:
            ta, tb = a.trace(text, **_settings(kinds, knob)), b.trace(text, **_settings(kinds, knob))
            if ta.output_text != tb.output_text:
                outputs_differ += 1
            for kind in ta.kinds():
                diff = abs(ta.attention[kind].weights.astype("float64") - tb.attention[kind].weights).max()
                worst_attention = max(worst_attention, float(diff))
        if "cross" not in kinds:  # a GPT: the next-token logits too
            _, ids, _ = a.prompt_ids(text)
            la, _ = a.next_token_logits(ids)
            lb, _ = b.next_token_logits(ids)
            worst_logits = max(worst_logits, float((la.cpu().double() - lb.cpu().double()).abs().max()))
    times = []
    for runner in (a, b):
        runner.trace(SENTENCES[0])  # warm-up (CUDA's first kernels, allocator)
        seconds = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            runner.trace(SENTENCES[0])
            seconds.append(time.perf_counter() - t0)
        times.append(statistics.median(seconds))
    return {
        "model": name,
        "devices": list(devices),
        "device_types": [str(a.device), str(b.device)],
        "max_attention_diff": worst_attention,
        "max_logits_diff": worst_logits,
        "outputs_differ": outputs_differ,
        "traces_compared": len(SENTENCES) * len(KNOBS),
        "median_trace_s": times,
        "ok": worst_attention <= ATTENTION_TOL and worst_logits <= LOGITS_TOL and outputs_differ == 0,
    }


def main(argv: list[str] | None = None) -> int:
    import torch

    from model.registry import NAMES

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--devices", nargs=2, default=None, help="two devices (default: cpu and cuda, or cpu twice)")
    p.add_argument("--models", nargs="+", default=list(NAMES))
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--json", default=None, help="also write the rows to this file")
    args = p.parse_args(argv)
    devices = tuple(args.devices or ("cpu", "cuda" if torch.cuda.is_available() else "cpu"))
    print(f"torch {torch.__version__}, CUDA: {torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none'}")
    print(f"load average: {os.getloadavg()[0]:.2f}; devices {devices[0]} vs {devices[1]}")
    rows = [compare(name, devices, args.repeat) for name in args.models]
    print(
        f"{'model':<12} {'attention':>10} {'logits':>10} {'outputs':>8} " + " ".join(f"{d + ' ms':>9}" for d in devices)
    )
    for r in rows:
        ms = " ".join(f"{s * 1000:9.2f}" for s in r["median_trace_s"])
        print(
            f"{r['model']:<12} {r['max_attention_diff']:10.2e} {r['max_logits_diff']:10.2e} "
            f"{r['outputs_differ']:>8} {ms}{'' if r['ok'] else '  DIFFERS'}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
