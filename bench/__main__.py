"""Run the benchmarks, print a table, write it to bench/results.md.

    bench/run.sh [--quick] [--only views,bertviz,capture,load]
    python -m bench ...        (BertViz needs bench/.venv, which bench/run.sh makes)

Targets (docs/hosting.md): views drawn in <= 0.5 / 1.5 / 3 s at 16 / 128 / 512 tokens and
< 5 MB at 512; capturing attention <= 1.3x a fused forward; p95 <= 2 s for 30 students.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SECTIONS = ("views", "bertviz", "capture", "load")


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    mem = ""
    try:
        mem = f", {int(open('/proc/meminfo').readline().split()[1]) / 1e6:.0f} GB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}, "
            f"load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


def fmt(v, unit="", digits=2):
    if v is None:
        return "–"
    return f"{v:.{digits}f}{unit}"


def table(header, rows) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def views_md(ours, bertviz) -> str:
    targets = {16: 0.5, 128: 1.5, 512: 3.0}
    rows = []
    for r in ours:
        n = r["tokens"]
        ok = r["drawn_s"] <= targets.get(n, 99) and (n != 512 or r["mb"] < 5)
        rows.append([n, fmt(r["drawn_s"], " s"), fmt(r["drawn_max_s"], " s"), fmt(r["mb"], " MB"),
                     fmt(r["model_view_tab_s"], " s"), fmt(r["head_view_tab_s"], " s"),
                     f"≤ {targets.get(n, '?')} s" + (", < 5 MB" if n == 512 else ""), "yes" if ok else "**no**"])
    md = table(["tokens", "submit → drawn (median)", "(slowest)", "sent to browser", "→ model-view tab",
                "→ head-view tab", "target", "met"], rows)
    if bertviz:
        brows = []
        by = {(r["tokens"], r["view"]): r for r in bertviz}
        for r in ours:
            n = r["tokens"]
            for view, our_tab in (("head", r["head_view_tab_s"]), ("model", r["model_view_tab_s"])):
                b = by.get((n, view))
                if not b:
                    continue
                total = None if b["browser_s"] is None or b["python_s"] is None else b["python_s"] + b["browser_s"]
                ours_total = r["drawn_s"] + our_tab
                brows.append([n, f"{view} view", fmt(b["python_s"], " s"), fmt(b["browser_s"], " s"),
                              fmt(total, " s") if total is not None else b.get("note", "–"),
                              fmt(b["mb"], " MB"), fmt(ours_total, " s"), fmt(r["mb"], " MB"),
                              fmt(total / ours_total, "x", 1) if total else "–"])
        md += "\n\nBertViz on the same traces, same Chromium, same run (ours = submit → drawn + switching to that tab; " \
              "our bytes cover the whole page: heatmap, table, model view, head view, rollout, roles):\n\n"
        md += table(["tokens", "view", "BertViz Python", "BertViz browser", "BertViz total", "BertViz bytes",
                     "ours", "our bytes", "BertViz / ours"], brows)
    return md


def capture_md(rows) -> str:
    return table(["forward", "returning attention", "fused SDPA, none returned", "ratio", "target", "met",
                  "runs, threads", "largest logit difference"],
                 [[r["case"], fmt(r["with_weights_ms"], " ms", 1), fmt(r["fused_ms"], " ms", 1),
                   fmt(r["ratio"], "x"), "≤ 1.3x", "yes" if r["ratio"] <= 1.3 else "**no**",
                   f"{r['reps']}, {r['threads']}", f"{r['max_logit_diff']:.1e}"] for r in rows])


def load_md(rows, seconds) -> str:
    return table(["students", "requests in " + f"{seconds} s", "p50", "p95", "slowest", "server RSS (start → max)",
                  "errors", "target p95 ≤ 2 s at 30", "weights"],
                 [[r["students"], r["requests"], fmt(r["p50_s"], " s"), fmt(r["p95_s"], " s"), fmt(r["max_s"], " s"),
                   f"{fmt(r['rss_start_mb'], '', 0)} → {fmt(r['rss_max_mb'], ' MB', 0)}", r["errors"],
                   ("yes" if r["p95_s"] is not None and r["p95_s"] <= 2 else "**no**") if r["students"] == 30 else "",
                   r["weights"]] for r in rows])


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, 15 s load runs, no 512-token BertViz")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated: " + ",".join(SECTIONS))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results.md"))
    a = ap.parse_args(argv)
    only = [s.strip() for s in a.only.split(",") if s.strip()]
    sizes = (16, 128, 512)
    started = datetime.datetime.now().astimezone()
    header = (f"# Benchmark results\n\n{started:%Y-%m-%d %H:%M %Z}, `python -m bench{' --quick' if a.quick else ''}"
              f"{'' if a.only == ','.join(SECTIONS) else ' --only ' + a.only}`\n\n"
              f"Machine: {machine()}\n")
    print(header)
    parts, results = [header], {}
    t_all = time.time()

    def section(name, fn):
        t0 = time.time()
        try:
            results[name] = fn()
        except Exception as e:  # one section failing still leaves the others' figures
            traceback.print_exc()
            results[name] = None
            parts.append(f"\n_{name}: failed: {type(e).__name__}: {str(e)[:300]}_\n")
        print(f"[{name}: {time.time() - t0:.0f} s]")

    if "views" in only:
        from bench import views
        section("views", lambda: views.run(sizes, reps=2 if a.quick else 3))
    if "bertviz" in only:
        from bench import bertviz_bench
        section("bertviz", lambda: bertviz_bench.run(sizes[:2] if a.quick else sizes, timeout=60 if a.quick else 120))
    if results.get("views"):
        parts.append("\n## Our views: the attention page on a synthetic 6-layer × 12-head trace\n\n"
                     + views_md(results["views"], results.get("bertviz")) + "\n")
    elif results.get("bertviz"):
        parts.append("\n## BertViz\n\n" + table(["tokens", "view", "python s", "browser s", "MB", "note"],
                     [[r["tokens"], r["view"], fmt(r["python_s"]), fmt(r["browser_s"]), fmt(r["mb"]), r.get("note", "")]
                      for r in results["bertviz"]]) + "\n")
    if "capture" in only:
        from bench import capture
        section("capture", lambda: capture.run(reps=5 if a.quick else 15))
        if results.get("capture"):
            parts.append("\n## Cost of capturing attention (same model, same input, interleaved, medians)\n\n"
                         + capture_md(results["capture"]) + "\n")
    seconds = 15 if a.quick else 60
    if "load" in only:
        from bench import load
        section("load", lambda: load.run((1, 10, 30), seconds=seconds))
        if results.get("load"):
            parts.append(f"\n## A class on one server (home page, new sentence every 2–4 s per student, {seconds} s)\n\n"
                         + load_md(results["load"], seconds) + "\n")
    parts.append(f"\nTotal {time.time() - t_all:.0f} s. Load average at the end: "
                 f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())}.\n")
    text = "\n".join(parts)
    print(text)
    Path(a.out).write_text(text, encoding="utf-8")
    print(f"written to {a.out}")
    return 0 if all(results.get(s) is not None for s in only) else 1


if __name__ == "__main__":
    sys.exit(main())
