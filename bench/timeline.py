"""The training timeline's speed and memory (issue 13): `python -m bench.timeline [--rounds N]`.

1. Moving the slider at 16 tokens, in headless Chromium against `streamlit run app.py`: the
   thumb gets ArrowRight and the clock stops when the page has rerun for the new step (the link
   says it, the script is idle, nothing is stale, every plotly chart has drawn). The first pass
   over the snapshots is "cold" (each snapshot loaded and traced for the first time), later
   passes "warm" (cached). Target: <= 0.5 s.
2. Memory: the process RSS before and after loading every snapshot of one model and scoring
   its roles (what the page holds once a student has played the whole timeline). Target: < 100 MB.
Prints a Markdown table (paste into bench/results.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TEXT = "The little cat sat on the big red mat. It was happy."  # 16 tokens
STEP_DRAWN = """(step) => {
  if (!location.search.includes('step=' + step)) return false;
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector("[data-stale='true']")) return false;
  const gds = Array.from(document.querySelectorAll('.js-plotly-plot')).filter(g => g.offsetWidth);
  return gds.length > 0 && gds.every(g => g._fullLayout);
}"""


def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def memory(name: str) -> dict:
    """RSS growth of a fresh process (this script run with --memory NAME) when every snapshot of
    `name` is loaded and role-scored, after handing freed heap back (malloc_trim)."""
    import json
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "bench.timeline", "--memory", name], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def _memory_here(name: str) -> dict:
    import ctypes
    import gc
    import json

    import torch

    torch.set_num_threads(1)
    import model
    from analysis import timeline as probes

    model.load(name, device="cpu")  # the shipped model, as the app holds it anyway
    probes.role_scores(model.load(name, device="cpu"))
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    before = rss_mb()
    runners = [model.load(f"{name}@{s['step']}", device="cpu") for s in model.snapshots_of(name)]
    for r in runners:
        probes.role_scores(r)
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    print(json.dumps({"model": name, "snapshots": len(runners), "before": before, "after": rss_mb()}))


def slider(name: str, rounds: int) -> dict:
    from urllib.parse import quote

    from playwright.sync_api import sync_playwright

    import model
    from drive.browser import VIEWPORT, goto, launch
    from drive.server import AppServer

    steps = [s["step"] for s in model.snapshots_of(name)]
    server = AppServer(log=ROOT / "screenshots" / "bench-timeline.log")
    server.start()
    times = {"cold": [], "warm": []}
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            page = browser.new_context(viewport=VIEWPORT).new_page()
            goto(page, f"{server.url}/timeline?model={name}&text={quote(TEXT)}&step={steps[0]}")
            thumb = page.locator("[data-testid='stSlider'] input[type='range']").first
            for r in range(rounds):
                for step in steps[1:]:
                    thumb.focus()
                    t0 = time.perf_counter()
                    thumb.press("ArrowRight")
                    page.wait_for_function(STEP_DRAWN, arg=step, polling="raf", timeout=120_000)
                    times["cold" if r == 0 else "warm"].append(time.perf_counter() - t0)
                thumb.focus()
                thumb.press("Home")
                page.wait_for_function(STEP_DRAWN, arg=steps[0], polling="raf", timeout=120_000)
            browser.close()
    finally:
        server.stop()
    return {"model": name, "moves": len(steps) - 1, **times}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--memory", help=argparse.SUPPRESS)
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    if args.memory:
        return _memory_here(args.memory)
    import os

    load = os.getloadavg()
    rows = [] if args.no_browser else [slider(name, args.rounds) for name in ("translator", "gpt")]
    mem = [memory(name) for name in ("translator", "gpt")]
    print(f"\nLoad average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}\n")
    print(
        "| model | slider moves at 16 tokens | cold: median / slowest | warm: median / slowest | target ≤ 0.5 s (warm) |"
    )
    print("|---|---|---|---|---|")
    for r in rows:
        warm = r["warm"] or r["cold"]
        print(
            f"| {r['model']} | {len(r['cold'])} + {len(r['warm'])} | {statistics.median(r['cold']):.2f} / "
            f"{max(r['cold']):.2f} s | {statistics.median(warm):.2f} / {max(warm):.2f} s | "
            f"{'met' if statistics.median(warm) <= 0.5 else '**not met**'} |"
        )
    print("\n| model | snapshots loaded and scored | RSS before → after | growth | target < 100 MB |")
    print("|---|---|---|---|---|")
    for m in mem:
        grow = m["after"] - m["before"]
        print(
            f"| {m['model']} | {m['snapshots']} | {m['before']:.0f} → {m['after']:.0f} MB | {grow:.0f} MB | "
            f"{'met' if grow < 100 else '**not met**'} |"
        )


if __name__ == "__main__":
    main()
