"""The cost page's measured curves: `python -m bench.cost [--quick]` writes analysis/data/cost_results.json.

- one attention layer (our MultiHeadAttention) at d_model 128 / 4 heads (the shipped models) and
  768 / 12 heads (BERT-base, GPT-2), n = 16 .. 4,096: best-of wall time, bytes allocated, peak;
- full attention against the sparse patterns (gathered pairs only), n = 256 .. 4,096;
- the GPT's time per new token with and without the KV cache;
- our attention against the blockwise online softmax (FlashAttention's idea) at 1,024 and 4,096 tokens;
- what gpt-local's window costs against gpt over five held-out samples of 1,000 items (mean, sd, range).
One torch thread (as the app runs); the machine's load average is saved beside the figures, since
the machine is shared. Never part of the tests.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from analysis import cost  # noqa: E402

LAYER_NS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
PATTERN_NS = (256, 512, 1024, 2048, 4096)
TIME_LIMIT = 60.0  # seconds for one call: beyond it the curve stops (and says so)


def cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_bytes() -> int:
    try:
        return int(open("/proc/meminfo").readline().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0


def layers(ns, log) -> dict:
    out, stopped = {}, {}
    for key, (d, h) in cost.SIZES.items():
        rows = []
        for n in ns:
            r = cost.measure_layer(n, d, h, repeats=3 if n <= 1024 else 1)
            rows.append(r)
            log(f"layer {key} d={d} h={h} n={n}: {r['seconds'] * 1e3:.2f} ms, peak {r['peak_bytes'] / 1e6:.1f} MB")
            if r["seconds"] > TIME_LIMIT:
                stopped[key] = f"stopped after n = {n}: one call took over {TIME_LIMIT:.0f} s"
                break
        out[key] = rows
    return {"rows": out, "stopped": stopped}


def patterns(ns, log) -> list[dict]:
    rows = []
    for n in ns:
        for p in cost.PATTERNS:
            r = cost.measure_pattern(p, n, w=64, dilation=2, block=64, global_tokens=(0,))
            rows.append(r)
            log(f"pattern {p} n={n}: {r['seconds'] * 1e3:.2f} ms, {r['share']:.4f} of pairs")
    return rows


def generation(log) -> dict:
    import model
    from model.tokenizer import BOS

    m = model.load("gpt", device="cpu")
    text = " ".join(["The cat sat on the mat. It was happy."] * 12)
    ids = ([BOS] + m.tokenizer.encode(text))[: m.config.max_seq_len]
    r = cost.generation_timing(m, ids, repeats=3)
    r["flops_no_cache"] = [cost.gpt_flops_per_token(t, m.config, False)["total"] for t in r["t"]]
    r["flops_cache"] = [cost.gpt_flops_per_token(t, m.config, True)["total"] for t in r["t"]]
    log(
        f"generation: t={len(ids)}: {r['no_cache'][-1] * 1e3:.2f} ms without the cache, "
        f"{r['cache'][-1] * 1e3:.2f} ms with it ({r['no_cache'][-1] / r['cache'][-1]:.1f}x); FLOPs "
        f"{r['flops_no_cache'][-1]:,} against {r['flops_cache'][-1]:,} "
        f"({r['flops_no_cache'][-1] / r['flops_cache'][-1]:.1f}x, the last position's logits only); "
        f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    return r


LOCAL_SEEDS = (1234, 1235, 1236, 1237, 1238)  # 1234 is evaluate's sample (the README's quality table)
LOCAL_N = 1000


def local_cost(log, seeds=LOCAL_SEEDS, n: int = LOCAL_N) -> dict:
    """What the window costs, gpt-local against gpt, on several held-out samples of n items each
    (analysis.cost.nll_by_length): one sample's difference is not the cost, so the mean, the standard
    deviation and the range over the samples."""
    import statistics

    import model

    runners = {name: model.load(name, device="cpu") for name in ("gpt", "gpt-local")}
    rows = []
    for seed in seeds:
        a, b = (cost.nll_by_length(runners[name], n=n, seed=seed) for name in ("gpt", "gpt-local"))
        row = {"seed": seed, "one": b["one"] - a["one"], "two": b["two"] - a["two"]}
        row |= {"n_one": a["n_one"], "n_two": a["n_two"]}
        rows.append(row)
        log(
            f"local cost seed {seed}: {row['one']:+.4f} nats per one-sentence item ({row['n_one']}), "
            f"{row['two']:+.4f} per two-sentence story ({row['n_two']})"
        )
    out = {"n": n, "samples": rows}
    for k in ("one", "two"):
        v = [r[k] for r in rows]
        out[k] = {"mean": statistics.mean(v), "sd": statistics.stdev(v), "min": min(v), "max": max(v)}
        log(
            f"local cost {k}: mean {out[k]['mean']:+.4f}, sd {out[k]['sd']:.4f}, "
            f"range {out[k]['min']:+.4f} to {out[k]['max']:+.4f} over {len(v)} samples of {n}"
        )
    out["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out["load"] = [round(x, 2) for x in os.getloadavg()]
    log(f"local cost: load {' '.join(map(str, out['load']))}")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="n up to 512 only")
    p.add_argument("--out", default=str(cost.BENCH_FILE))
    p.add_argument(
        "--generation-only", action="store_true", help="re-measure the KV-cache section only, in the existing file"
    )
    p.add_argument("--local-only", action="store_true", help="re-measure gpt-local's cost over several samples only")
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    if a.generation_only or a.local_only:
        result = json.loads(Path(a.out).read_text(encoding="utf-8"))
        if a.generation_only:
            result["generation"] = generation(print)
            result["generation_date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
            result["generation_load"] = [round(x, 2) for x in os.getloadavg()]
        if a.local_only:
            result["local_cost"] = local_cost(print)
        Path(a.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
        print(f"wrote {a.out} (sections asked for only)")
        return 0
    load_before = os.getloadavg()
    started = time.time()
    ns = [n for n in LAYER_NS if not a.quick or n <= 512]
    result = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{cpu_name()}, {os.cpu_count()} cores, {memory_bytes() / 2**30:.0f} GiB RAM",
        "torch": torch.__version__,
        "threads": 1,
        "load_before": [round(x, 2) for x in load_before],
        "command": "python -m bench.cost" + (" --quick" if a.quick else ""),
        "memory_bytes": memory_bytes(),
        "layers": layers(ns, print),
        "patterns": patterns([n for n in PATTERN_NS if not a.quick or n <= 512], print),
        "generation": generation(print),
        "blockwise": [cost.blockwise_timing(n) for n in ((1024,) if a.quick else (1024, 4096))],
        "local_cost": local_cost(print, LOCAL_SEEDS[:3] if a.quick else LOCAL_SEEDS),
    }
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    result["seconds"] = round(time.time() - started, 1)
    Path(a.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(f"wrote {a.out} ({result['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
