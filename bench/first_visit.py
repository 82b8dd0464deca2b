"""The first visit to a fresh server: what the visitor sees, and when (issue 24: the page drawn
within 2 s of the server answering, on a server started as production starts it, python -m ui.serve).

    .venv/bin/python -m bench.first_visit

First the floor (bench/floor_app.py: a title, one heatmap and one table, Streamlit and Plotly
without the app), then each case (the home page in English, a Chinese reader, a deep link to the
attention page): a new server is started (`streamlit run app.py`); as soon as it answers its health check, a fresh
Chromium opens the link and the page is polled every 50 ms until the page is drawn. Reported:
when the app's title first shows (target <= 1 s), when a loading message or spinner first shows,
when the page is complete, and whether Streamlit's file-name menu (app, architecture, attention
...) was ever on screen (target: never). A screenshot at 1 s lands in screenshots/.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from drive.browser import VIEWPORT, launch  # noqa: E402
from drive.server import SCREENSHOTS, AppServer, has_trained_weights  # noqa: E402

FILE_NAMES = ["app", "home", "attention", "temperature", "positional", "generation", "steps", "architecture"]

PROBE = """([files, tableFloor]) => {
  const main = document.querySelector("[data-testid='stMain']");
  const text = main ? main.innerText : '';
  const nav = Array.from(document.querySelectorAll("[data-testid='stSidebarNav'] a, [data-testid='stSidebarNavLink']"))
      .map(a => a.innerText.trim()).filter(x => x);
  const app = document.querySelector("[data-testid='stApp']");
  return {text, nav, fileMenu: nav.some(n => files.includes(n)),
          spinner: !!document.querySelector("[data-testid='stSpinner']"),
          running: app ? app.getAttribute('data-test-script-state') : null,
          charts: document.querySelectorAll("[data-testid='stPlotlyChart'] .js-plotly-plot").length
            // the attention view (ui/attention_view) once it has drawn; a table floor's table
            + Object.values(window.__attentionViews || {}).filter(v => v.frames.length).length
            + (tableFloor ? document.querySelectorAll("[data-testid='stDataFrame']").length : 0)};
}"""

CASES = [
    ("home, English", "/", "Transformer Attention Explorer", "Loading", "en-US"),
    ("home, Chinese reader", "/", "Transformer 注意力探索器", "正在加载", "zh-CN"),
    (
        "deep link /attention?lang=zh",
        "/attention?lang=zh&text=The%20dog%20sees%20the%20cat",
        "注意力",
        "正在加载",
        "zh-CN",
    ),
]


FLOOR = (
    "the floor: bench/floor_app.py, Streamlit and Plotly alone",
    "/",
    "Transformer Attention Explorer",
    "Loading",
    "en-US",
)


TABLE_FLOOR = (
    "the floor without a chart library: bench/floor_table_app.py, the same table alone",
    "/",
    "Transformer Attention Explorer",
    "Loading",
    "en-US",
)


def visit(pw, label, path, title, loading, locale, preload=True, timeout=60.0, log=print, script="app.py") -> dict:
    env = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    if script.endswith("floor_table_app.py"):
        env["ATTN_FLOOR_APP"] = "floor_table_app.py"
    server = AppServer(script, env=env, log=SCREENSHOTS / "bench-first-visit.log", preload=preload).start()
    if script == "app.py":
        label = f"{label} ({'python -m ui.serve: preloaded' if preload else 'bare streamlit run'})"
    row = {"case": label, "title_s": None, "loading_s": None, "drawn_s": None, "file_menu": False}
    try:
        browser = launch(pw)
        ctx = browser.new_context(viewport=VIEWPORT, locale=locale)
        page = ctx.new_page()
        t0 = time.perf_counter()
        page.goto(server.url + path, wait_until="commit")
        shot = False
        while (elapsed := time.perf_counter() - t0) < timeout:
            try:
                p = page.evaluate(PROBE, [FILE_NAMES, script.endswith("floor_table_app.py")])
            except Exception:  # the page is navigating
                time.sleep(0.05)
                continue
            row["file_menu"] |= p["fileMenu"]
            if row["title_s"] is None and title in p["text"]:
                row["title_s"] = elapsed
            if row["loading_s"] is None and (loading in p["text"] or p["spinner"]):
                row["loading_s"] = elapsed
            if not shot and elapsed >= 1.0:
                page.screenshot(path=str(SCREENSHOTS / f"bench-first-visit-{len(label)}-1s.png"))
                shot = True
            if p["running"] == "notRunning" and p["charts"] and not p["spinner"] and loading not in p["text"]:
                row["drawn_s"] = elapsed
                break
            time.sleep(0.05)
        ctx.close()
        browser.close()
    finally:
        server.stop()
    f = lambda v: "never" if v is None else f"{v:.2f} s"  # noqa: E731
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    row["load"] = load
    log(
        f"  first visit, {label}: title {f(row['title_s'])}, loading message {f(row['loading_s'])}, "
        f"drawn {f(row['drawn_s'])} (target <= 2 s: "
        f"{'met' if row['drawn_s'] is not None and row['drawn_s'] <= 2 else 'not met'}), file-name menu "
        f"{'SHOWN' if row['file_menu'] else 'never shown'}; load {load}"
    )
    return row


def run(log=print, bare: bool = True) -> list[dict]:
    """Every case on a preloaded server (the production launcher), then, for comparison in the same
    run, on a bare `streamlit run app.py`."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        # the floor first: what a title, one heatmap and one table take here without the app
        rows = [visit(pw, *FLOOR, preload="bench.floor_serve", log=log, script="bench/floor_app.py")]
        # the home page draws no Plotly chart: its floor is the same table with no chart library
        rows += [visit(pw, *TABLE_FLOOR, preload="bench.floor_serve", log=log, script="bench/floor_table_app.py")]
        rows += [visit(pw, *case, preload=True, log=log) for case in CASES]
        if os.environ.get("ATTN_FIRST_VISIT_PRELOADED_ONLY"):
            return rows
        if bare:
            rows += [visit(pw, *case, preload=False, log=log) for case in CASES]
    return rows


if __name__ == "__main__":
    print(f"load average {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")
    run()
