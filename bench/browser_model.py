"""The whole model in the browser: how long one forward of our GPT takes in headless Chromium
(onnxruntime-web's WebAssembly CPU path, one thread, every knob an input: ui/browser_model), at 16
and 128 tokens (<s> included), normal and with the CPU slowed 4x by Chrome's own throttling
(CDP Emulation.setCPUThrottlingRate, a phone stand-in). Each figure: performance.now() around
`await session.run`, after a warm-up, the median of `runs` (the slowest beside it).

    .venv/bin/python -m bench.browser_model [--runs 20] [--sizes 16,128] [--rates 1,4]

Starts the real app (its static serving holds the runtime and the graphs: see
publish()) and one Chromium; prints a table and
the load average before and after (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BASE = "/app/static"  # where Streamlit serves the app's static/ folder
STATIC = ROOT / "static"


def publish(names=("gpt", "translator")) -> None:
    """The runtime and our modules (ui/browser_model/install.sh), the tokenizer and NAMES' graphs
    (exported now unless static/models/ holds current ones: scripts/test and scripts/app export
    every one there, `python -m model export-onnx all --out static/models`) under static/: made,
    gitignored."""
    from model import onnx_export

    subprocess.run([str(ROOT / "ui" / "browser_model" / "install.sh")], check=True, timeout=600)
    onnx_export.publish(STATIC / "models", list(names))


TIME_JS = """async ({base, n, runs}) => {
  const { BrowserModel } = await import(base + '/browser_model/model.js');
  const m = window.__benchGpt || (window.__benchGpt = await BrowserModel.load(base, 'gpt'));
  const ids = [2]; for (let i = 1; i < n; i++) ids.push(6 + (i * 37) % 1300);  // <s> and n-1 ordinary ids
  const knobs = {temperature: 1.5, headsOff: [['decoder', 1, 2]], ablation: 'mean'};
  await m.forward({ids}, knobs);  // warm-up: the first run allocates
  const ms = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const out = await m.forward({ids}, knobs);
    ms.push(performance.now() - t0);
    if (out.weights.decoder.dims[3] !== n) throw new Error('wrong size');
  }
  return ms;
}"""


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(page, base: str = BASE, sizes=(16, 128), runs: int = 20, rates=(1, 4)) -> list[dict]:
    """Forward times on `page` (on the app's origin) for each CPU slowdown and size."""
    cdp = page.context.new_cdp_session(page)
    rows = []
    try:
        for rate in rates:
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
            for n in sizes:
                ms = page.evaluate(TIME_JS, {"base": base, "n": n, "runs": runs})
                rows.append(
                    {
                        "tokens": n,
                        "cpu_slowdown": rate,
                        "median_ms": statistics.median(ms),
                        "max_ms": max(ms),
                        "runs": len(ms),
                    }
                )
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    return rows


def table(rows: list[dict]) -> str:
    out = ["| tokens | CPU | forward, median | slowest | runs |", "|---|---|---|---|---|"]
    for r in rows:
        cpu = "normal" if r["cpu_slowdown"] == 1 else f"{r['cpu_slowdown']}x slower"
        out.append(f"| {r['tokens']} | {cpu} | {r['median_ms']:.1f} ms | {r['max_ms']:.1f} ms | {r['runs']} |")
    return "\n".join(out)


def main(argv=None):
    from playwright.sync_api import sync_playwright

    from drive.browser import launch
    from drive.server import SCREENSHOTS, AppServer

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--sizes", default="16,128")
    ap.add_argument("--rates", default="1,4")
    a = ap.parse_args(argv)
    publish(("gpt",))
    print(f"load average before: {load()}")
    server = AppServer(log=SCREENSHOTS / "bench-browser-model.log").start()
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            page = browser.new_context().new_page()
            page.goto(server.url + "/_stcore/health")
            rows = measure(
                page,
                sizes=tuple(int(x) for x in a.sizes.split(",")),
                runs=a.runs,
                rates=tuple(float(x) if "." in x else int(x) for x in a.rates.split(",")),
            )
            browser.close()
    finally:
        server.stop()
    print(f"load average after: {load()}\n")
    print(table(rows))
    return rows


if __name__ == "__main__":
    main()
