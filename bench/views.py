"""Speed of our views: the real attention page (bench/views_app.py) on synthetic 6 x 12 traces,
from submitting a sentence to the page being drawn, in headless Chromium, and the bytes the
server sent the browser for it.

Phase 1 (one browser context) submits every sentence once, so the traces are made and cached.
Phase 2 (a fresh context: a new session whose browser has no cached messages) opens each view's
tab (heatmap + table, model view, head view) and submits new sentences to it, timed from the
submit to that view drawn: what remains is the views' cost (a cache hit, layout, transfer,
drawing), not the model's. The model's cost is bench/capture.py's business.
"""

from __future__ import annotations

import statistics
import time

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from drive.browser import VIEWPORT, exceptions, goto, launch, settle, sidebar_text, wait_for_run_start
from drive.server import ROOT, SCREENSHOTS, AppServer

from . import synthetic

DRAWN = """(first) => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector("[data-stale='true']")) return false;
  const charts = Array.from(document.querySelectorAll("[data-testid='stPlotlyChart']"))
      .filter(c => c.offsetWidth);
  if (!charts.length) return false;
  const gds = charts.map(c => c.querySelector('.js-plotly-plot'));
  if (gds.some(gd => !gd || !gd._fullLayout)) return false;
  const heat = gds.find(gd => gd.data && gd.data[0] && gd.data[0].type === 'heatmap');
  return !!heat && String(heat.data[0].y[0]).startsWith(first + ' ');
}"""

# the attention view (ui/attention_view): the new sentence's rows drawn in the view's tab
VIEW_DRAWN = """([first, tab]) => {
  const v = (window.__attentionViews || {}).att_view;
  const kind = {heatmap: 'heat', model: 'model', head: 'lines'}[tab];
  return !!(v && v.ready && v.labels.q[0] === first && v.state.tab === tab && v.geo && v.geo.kind === kind);
}"""

MODEL_VIEW_DRAWN = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .some(gd => gd.offsetWidth && gd._fullLayout && (gd.data || []).some(t => t.type === 'image')
        && gd.querySelector('image'))"""

HEAD_VIEW_DRAWN = """() => Array.from(document.querySelectorAll("[data-testid='stVegaLiteChart']"))
  .some(c => c.offsetWidth && c.querySelector('canvas, svg'))"""


class Bytes:
    """Payload bytes the page received over its websockets and plain HTTP."""

    def __init__(self, page, context):
        self.ws = self.http = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on(
            "Network.loadingFinished", lambda e: setattr(self, "http", self.http + int(e.get("encodedDataLength", 0)))
        )

    def _frame(self, payload):
        self.ws += len(payload)

    def total(self):
        return self.ws + self.http


def _submit(page, text):
    box = sidebar_text(page)
    box.fill(text)
    t0 = time.perf_counter()
    box.press("Control+Enter")
    return t0


def _tab(page, name_part):
    import re

    return page.get_by_role("tab", name=re.compile(name_part))


# (view, its tab's name, the attention view's tab)
VIEWS = (
    ("heatmap", "Heatmap", "heatmap"),
    ("model view", "Model view", "model"),
    ("head view", "Head view", "head"),
)

IDLE = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return app.getAttribute('data-test-script-state') !== 'running'
      && !document.querySelector("[data-stale='true'], [data-testid='stStatusWidget']");
}"""


class Runs:
    """Streamlit's script_finished messages on the page's websocket: one per run or fragment run.

    The page's script-state attribute is not enough to see a rerun: React can draw a fast
    (partial) rerun's "running" and "notRunning" in one frame, and the attribute never changes."""

    DONE = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)

    def __init__(self, page):
        self.finished = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload):
        if not isinstance(payload, (bytes, bytearray)):
            return
        msg = ForwardMsg()
        try:
            msg.ParseFromString(payload)
        except Exception:  # not one of Streamlit's messages
            return
        if msg.WhichOneof("type") == "script_finished" and msg.script_finished in self.DONE:
            self.finished += 1

    def wait(self, page, since: int, timeout: float) -> None:
        """Until a run has finished after `since` runs (Playwright delivers the frames while it waits)."""
        deadline = time.perf_counter() + timeout
        while self.finished <= since:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no run finished within {timeout:.0f} s")
            page.wait_for_timeout(5)


def run(sizes=(16, 128, 512), reps=3, timeout=120, log=print) -> list[dict]:
    """For each view (its tab opened first) and size: submit -> that view drawn, and bytes sent."""
    server = AppServer(script=ROOT / "bench" / "views_app.py", log=SCREENSHOTS / "bench-views.log").start()
    sentences = {n: [synthetic.sentence(n, f"r{r}n{n}x") for r in range(reps * len(VIEWS))] for n in sizes}
    results = {(v, n): {"drawn": [], "bytes": []} for v, _, _ in VIEWS for n in sizes}
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            # phase 1: make and cache every trace
            warm = browser.new_context(viewport=VIEWPORT)
            page = warm.new_page()
            goto(page, server.url)
            for n in sizes:
                for text in sentences[n]:
                    _submit(page, text)
                    wait_for_run_start(page)
                    settle(page, timeout)
            warm.close()
            # phase 2: a fresh session, timed; each view's tab is opened, then sentences submitted
            ctx = browser.new_context(viewport=VIEWPORT)
            page = ctx.new_page()
            counter, runs = Bytes(page, ctx), Runs(page)
            goto(page, server.url)
            used = {n: iter(sentences[n]) for n in sizes}
            for view, _label, view_tab in VIEWS:
                # the attention view's own tab: switched in the browser, and reported to the page
                done = runs.finished
                page.locator(f".av [role='tab'][data-tab='{view_tab}']").click()
                if view_tab != VIEWS[0][2]:  # a new tab: its report (debounced, view.js REPORT_MS) reruns the
                    # page; a sentence submitted before that run would come back on the old tab
                    runs.wait(page, done, timeout)
                settle(page, timeout)
                for r in range(reps):
                    for n in sizes:
                        text = next(used[n])
                        before, done = counter.total(), runs.finished
                        t0 = _submit(page, text)
                        first = synthetic.tokens_of(text)[0]
                        runs.wait(page, done, timeout)
                        page.wait_for_function(VIEW_DRAWN, arg=[first, view_tab], polling="raf", timeout=timeout * 1000)
                        drawn = time.perf_counter() - t0
                        settle(page, timeout, quiet_polls=2)
                        sent = counter.total() - before
                        if exceptions(page):
                            raise RuntimeError(f"the attention page failed at {n} tokens: {exceptions(page)[0][:300]}")
                        results[(view, n)]["drawn"].append(drawn)
                        results[(view, n)]["bytes"].append(sent)
                        if r == reps - 1:
                            page.screenshot(path=str(SCREENSHOTS / f"bench-views-{n}-{view.replace(' ', '-')}.png"))
                        log(f"  {view} n={n} rep={r}: submit -> drawn {drawn:.2f} s, {sent / 1e6:.2f} MB")
            ctx.close()
            browser.close()
    finally:
        server.stop()
    rows = []
    for view, _, _ in VIEWS:
        for n in sizes:
            res = results[(view, n)]
            rows.append(
                {
                    "view": view,
                    "tokens": n,
                    "drawn_s": statistics.median(res["drawn"]),
                    "drawn_max_s": max(res["drawn"]),
                    "mb": statistics.median(res["bytes"]) / 1e6,
                }
            )
    return rows
