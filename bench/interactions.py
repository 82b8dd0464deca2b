"""Interactions inside the app, as a user feels them: from the action to the page drawn again.

    .venv/bin/python -m bench.interactions [--reps 5] [--gc on|off|config]

The real app (app.py, the trained translator) in headless Chromium, a 15-token sentence. Each
interaction is done `reps` times (alternating between two values, so every one is a real change)
after one untimed warm-up, and timed from the click or key press to: a rerun has started (seen by
a MutationObserver on the app's script state) and the page is idle again with every visible chart
drawn (no stale element, no skeleton, no plotly chart without its figure). Target <= 0.3 s each.

  (the temperature page's slider and the attention page's layer, head, tab and tile moves:
  bench/moves.py, since they are drawn in the browser with no rerun)
  step Next            step-by-step page: the Next button
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.views import IDLE, Runs  # noqa: E402  (a run finished: Streamlit's own message)
from drive.browser import VIEWPORT, exceptions, goto, launch, settle  # noqa: E402
from drive.server import SCREENSHOTS, AppServer, has_trained_weights  # noqa: E402

SENTENCE = "The little girl saw three red apples on the table in the kitchen"  # 15 tokens (translator)
TARGET_S = 0.3

# idle and every visible chart drawn (no skeleton, no plotly chart without its figure)
DRAWN = """() => {
  const visible = e => e.offsetWidth || e.offsetHeight;
  if (Array.from(document.querySelectorAll("[data-testid='stSkeleton']")).some(visible)) return false;
  return !Array.from(document.querySelectorAll("[data-testid='stPlotlyChart']")).filter(visible)
      .some(c => !Array.from(c.querySelectorAll('.js-plotly-plot')).some(g => g._fullLayout));
}"""


def timed(page, runs, action, timeout=60) -> float:
    since = runs.finished
    t0 = time.perf_counter()
    action()
    runs.wait(page, since, timeout)
    page.wait_for_function(IDLE, polling="raf", timeout=timeout * 1000)
    page.wait_for_function(DRAWN, polling="raf", timeout=timeout * 1000)
    return time.perf_counter() - t0


def open_list(page, label: str):
    """Open the select box labelled label (untimed: the reader's choice is the option's click)."""
    page.locator("[data-testid='stMain']").get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option").first.wait_for()


def choose(page, option: str):
    page.get_by_role("option", name=option, exact=True).click()


def pick(page, label: str, option: str):
    """Choose option in the select box labelled label."""
    open_list(page, label)
    choose(page, option)


def _open(page, base, path):
    goto(page, f"{base}/{path}?text={quote(SENTENCE)}", timeout=300)
    if exceptions(page):
        raise RuntimeError(f"/{path} failed: {exceptions(page)[0][:300]}")


def run(reps: int = 5, server_args=(), log=print) -> list[dict]:
    env = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    server = AppServer(env=env, args=list(server_args), log=SCREENSHOTS / "bench-interactions.log").start()
    times: dict[str, list[float]] = {}

    def measure(name, action, reps=reps, prepare=None):
        """prepare(i), untimed, then action(i), timed: a select box is opened, then its option clicked."""
        for i in range(reps + 1):  # the first is a warm-up: caches filled, charts' code loaded
            if prepare:
                prepare(i)
            if i == 0:
                action(0)
                settle(page)
                continue
            times.setdefault(name, []).append(timed(page, runs, lambda: action(i)))
            settle(page, quiet_polls=2)
        out = times[name]
        if exceptions(page):
            raise RuntimeError(f"{name}: {exceptions(page)[0][:300]}")
        log(f"  {name}: " + ", ".join(f"{s:.2f}" for s in out) + " s")

    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            page = browser.new_context(viewport=VIEWPORT).new_page()
            runs = Runs(page)
            _open(page, server.url, "")  # the teacher's first visit: models loaded, imports done

            # the temperature page's slider and the attention page's layer, head, tab and tile moves
            # are drawn in the browser now (ui/attention_view): no rerun to time here; bench/moves.py
            # times them beside the old pages (--page temperature)
            log("  temperature slider, attention page layer / head / tab / tile: see bench/moves.py (in the browser)")

            _open(page, server.url, "steps")

            def step(i):
                nxt = page.get_by_role("button", name=re.compile("^Next"))
                (page.get_by_role("button", name=re.compile("^Previous")) if nxt.is_disabled() else nxt).click()

            measure("step page Next", step)
            browser.close()
    finally:
        server.stop()
    rows = []
    for name, values in times.items():
        rows.append(
            {
                "interaction": name,
                "median_s": statistics.median(values),
                "max_s": max(values),
                "reps": len(values),
                "met": statistics.median(values) <= TARGET_S,
            }
        )
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m bench.interactions", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument(
        "--gc",
        default="config",
        choices=("on", "off", "config"),
        help="runner.postScriptGC for the server (config: .streamlit/config.toml's)",
    )
    a = ap.parse_args(argv)
    args = [] if a.gc == "config" else ["--runner.postScriptGC", "true" if a.gc == "on" else "false"]
    print(f"load average {' / '.join(f'{x:.1f}' for x in os.getloadavg())}, postScriptGC {a.gc}")
    for r in run(a.reps, args):
        print(
            f"{r['interaction']:<26} median {r['median_s']:.2f} s, slowest {r['max_s']:.2f} s "
            f"({'met' if r['met'] else 'NOT met'}, target <= {TARGET_S} s)"
        )


if __name__ == "__main__":
    main()
