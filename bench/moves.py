"""Moves at the speed of a hand: a temperature, head, row or layer move on the attention page at
16, 128 and 512 tokens, the attention view (ui/attention_view: drawn and recomputed in the
browser) beside the old Plotly path (the page as it was at OLD_PAGE_COMMIT: every move a server
round trip) and BertViz's head view, in one run, on bench/synthetic.py's 6-layer x 12-head traces.

    .venv/bin/python -m bench.moves [--moves 20] [--old-moves 20] [--sizes 16,128,512] [--no-bertviz]

(or bench/.venv/bin/python, which bench/run.sh makes; from the app's .venv, BertViz is found in
bench/.venv's site-packages, see bench.bertviz_bench.available.) One run, one Chromium:

New path, the attention view's heatmap and its head view (lines): a temperature move (the
slider's "input" event, the thumb dragged from T = 1 to the right in `moves` steps), a head and
a row move (arrow keys on the canvas: each head recomputed at T from an empty cache, the worst
case) and a layer move (its layer select; at 512 tokens only the shown layer travels, so another
layer is a server round trip and is not timed here). The websocket frames the page sent during
the moves are counted (target 0), and after them (the debounced report).
BertViz 1.4.1's head view of the same size of synthetic trace, loaded from local files: a head
move (a click on a head's colour square: d3 sets every line's opacity again), a layer move (its
layer select: the whole SVG built again) and a row move (hovering a query token: its lines shown,
the rest hidden); no temperature. At 512 tokens its HTML would be ~840 MB and is not loaded.
Both are timed the same way, in the page (move_js): performance.now() before the tool's own
event is dispatched and after dispatchEvent returns (both redraw inside their handlers), then a
requestAnimationFrame and a task posted from it, which runs once that frame is laid out and
painted; "work" is the handler plus that frame's rendering, "to the frame" the whole span, the
wait for the next frame's slot included (up to 16.7 ms even for a move of no cost). The view's
own draw() time (performance.now() inside it) is read too, as a cross-check of the handler.
Old path: from the select box option's or the pill's click to the rerun finished and every chart
drawn (bench.interactions.timed, from Python: a server round trip a move); the old attention
page had no temperature slider.

The model's moves (bench/model_moves.py, issue 48) in the same run unless --no-model: "type a
character", "every-layer temperature", "head off" and "positions off" on the trained GPT in the
browser (onnxruntime-web, normal and 4x CPU-throttled), on the server and in BertViz.

    .venv/bin/python -m bench.moves --page temperature [--sizes 16,128]

The temperature page (T = 1 beside T) on the real app and the trained GPT, a prompt of n tokens
(<s> included): new path, the view's redraw during a mouse drag of the slider (both panels,
softmax(log w / T) of the shown layer), and the time from the release to the model re-run with
T in every layer drawn; old path, the page as it was at OLD_TEMPERATURE_COMMIT (a select slider
of 17 temperatures, two Plotly heatmaps), one arrow-key step of its slider to the rerun finished
and every chart drawn.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import synthetic  # noqa: E402
from bench.interactions import choose, open_list, timed  # noqa: E402
from bench.views import VIEW_DRAWN, Runs  # noqa: E402
from drive.browser import Sent, goto, launch, reach_model, settle  # noqa: E402
from drive.server import SCREENSHOTS, AppServer  # noqa: E402

OLD_PAGE_COMMIT = "9bb939fc84e9d153682954b91b68df88114c1c6a"  # the last Plotly attention page
# the last Plotly temperature page (its whole tree is run)
OLD_TEMPERATURE_COMMIT = "9f4263b787564c06214af14dc3280f88091a0e13"
VIEWPORT = {"width": 1280, "height": 800}


def move_js(prep: str, act: str, check: str) -> str:
    """One move, timed in the page the same way for every tool. `prep` readies it (untimed);
    t0 = performance.now(); `act` dispatches the tool's own event, whose handler redraws inside
    dispatchEvent (ours recomputes and paints its canvas and table, BertViz's d3 sets its SVG's
    attributes); t1 = performance.now(); then a requestAnimationFrame (t2, in its callback) and a
    task posted from it, which runs once that frame's style, layout and paint are done (t3).
    handler = t1 - t0, render = t3 - t2 (the browser's own work on what the handler changed),
    work = handler + render, to_frame = t3 - t0 (work plus the wait for the next frame's slot).
    `check` (evaluated after the frame) says whether the page shows what the move asked, so an
    event that missed its handler cannot pass for a fast move. Arguments: k (the move's number),
    m (moves in the batch), row, n (tokens), h (heads)."""
    return f"""async ({{k, m, row, n, h}}) => {{
  {prep}
  const t0 = performance.now();
  {act}
  const t1 = performance.now();
  const t2 = await new Promise(r => requestAnimationFrame(() => r(performance.now())));
  await new Promise(r => {{ const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); }});
  const t3 = performance.now();
  return {{handler: t1 - t0, render: t3 - t2, work: t1 - t0 + t3 - t2, to_frame: t3 - t0, ok: !!({check}),
           draw: (typeof drawn === 'function') ? drawn() : null}};
}}"""


def summary(samples: list[dict]) -> dict:
    """Medians (and the slowest work) of timed moves, in ms; draw: the view's own draw() time."""
    out = {key: statistics.median(s[key] for s in samples) for key in ("handler", "render", "work", "to_frame")}
    out["max_work"] = max(s["work"] for s in samples)
    draws = [s["draw"] for s in samples if s.get("draw") is not None]
    out["draw"] = statistics.median(draws) if draws else None
    out["moves"] = len(samples)
    return out


def timed_moves(page, name: str, js: str, moves: int, n: int, h: int, rows_of=None) -> list[dict]:
    out = []
    for k in range(moves):
        row = rows_of(k) if rows_of else 0
        got = page.evaluate(js, {"k": k, "m": moves, "row": row, "n": n, "h": h})
        if not got["ok"]:
            raise RuntimeError(f"{name} move {k} (n={n}) did not show what it asked for")
        out.append(got)
    return out


# The attention view's moves (ui/attention_view/view.js): `v` the view; its draw() pushes its own
# time onto v.frames, so a move that drew once is a move that reached the view.
VIEW = "const v = window.__attentionViews.att_view; const before = v.frames.length;"
DRAWN = "const drawn = () => v.frames[v.frames.length - 1];"
KEY = "v.canvas.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true}));"
OUR_MOVES = {
    # the slider dragged from the middle (T = 1) to the right, m steps: its "input" event redraws
    "temperature": (
        f"{VIEW} {DRAWN} const s = v.element.querySelector('.av-temp');"
        " s.value = String(Math.round(+s.max * (0.5 + 0.3 * (k + 1) / m))); const want = +s.value;",
        "s.dispatchEvent(new Event('input', {bubbles: true}));",
        "v.frames.length === before + 1 && +v.element.querySelector('.av-temp').value === want && v.state.ltemp !== 1",
    ),
    # arrow keys on the canvas, right 11 then left: each head recomputed at T from an empty cache
    # (the worst case: softmax(log w / T) of the new head)
    "head": (
        f"{VIEW} {DRAWN} v.clearCache(); const was = v.state.head;"
        " const key = Math.floor(k / 11) % 2 === 0 ? 'ArrowRight' : 'ArrowLeft';",
        KEY,
        "v.frames.length === before + 1 && v.state.head !== was",
    ),
    # arrow keys, down 10 then up: the selected row (its table, its highlight)
    "row": (
        f"{VIEW} {DRAWN} const was = v.state.q; const key = Math.floor(k / 10) % 2 === 0 ? 'ArrowDown' : 'ArrowUp';",
        KEY,
        "v.frames.length === before + 1 && v.state.q !== was",
    ),
    # the layer select, the last but one then the last ...
    "layer": (
        f"{VIEW} {DRAWN} const sel = v.element.querySelector('.av-layer'); const to = k % 2 === 0 ? v.shape.L - 2 : v.shape.L - 1;"
        " sel.value = String(to);",
        "sel.dispatchEvent(new Event('change', {bubbles: true}));",
        "v.frames.length === before + 1 && v.state.layer === to",
    ),
}
ALL_LAYERS = "() => { const v = window.__attentionViews.att_view; return v.layersLoaded === v.shape.L; }"
TABS = (("heatmap", "heatmap"), ("head view", "head"))  # (our name, the view's tab id)


def new_path(page, url, n, moves, log) -> list[dict]:
    text = synthetic.sentence(n, f"m{n}")
    sent = Sent(page)
    rows = []
    for tab_name, tab in TABS:
        goto(page, f"{url}/?text={quote(text)}&head=1&q=1&tab={tab}", timeout=300)
        page.wait_for_function(VIEW_DRAWN, arg=[synthetic.tokens_of(text)[0], tab], timeout=120_000)
        settle(page, 300)
        every_layer = page.evaluate(ALL_LAYERS)
        for name, (prep, act, check) in OUR_MOVES.items():
            row = {"path": f"attention view, {tab_name}", "move": name, "tokens": n}
            if name == "layer" and not every_layer:
                # the trace is over the view's byte budget: only the shown layer travelled, and
                # another layer is asked of the server (a round trip, not a browser move)
                row["note"] = "a server round trip: only the shown layer travels at this size"
                log(f"  new {tab_name} {name} n={n}: {row['note']}")
                rows.append(row)
                continue
            before = sent.frames
            samples = timed_moves(page, name, move_js(prep, act, check), moves, n, synthetic.HEADS)
            if name == "temperature":  # the thumb let go: the view reports once
                page.evaluate(
                    "() => window.__attentionViews.att_view.element.querySelector('.av-temp').dispatchEvent(new Event('change'))"
                )
            during = sent.frames - before
            # the debounced report goes now (view.js's REPORT_MS, 350 ms, after the last move): waited
            # for, up to 1.5 s; a move that ends on the view already reported sends none (it waited a
            # fixed 1.5 s for each move: 12 s of the bench guard's 52 s)
            deadline = time.monotonic() + 1.5
            while sent.frames == before + during and time.monotonic() < deadline:
                page.wait_for_timeout(50)  # Playwright reads the page's events (the frames) meanwhile
            settle(page, 300)
            row.update(summary(samples), ws_sent_during=during, ws_sent_after=sent.frames - before - during)
            log(
                f"  new {tab_name} {name} n={n}: work {row['work']:.2f} ms (handler {row['handler']:.2f}, "
                f"render {row['render']:.2f}, view's draw() {row['draw']:.2f}), to the frame "
                f"{row['to_frame']:.2f} ms, slowest work {row['max_work']:.2f} ms over {row['moves']}; "
                f"ws frames sent during {during}, after {row['ws_sent_after']}"
            )
            rows.append(row)
        page.screenshot(path=str(SCREENSHOTS / f"bench-moves-new-{tab}-{n}.png"))
    return rows


def zigzag_row(k: int) -> int:
    """The row our arrow keys reach at move k (from row 1: down 10, up 10, ...), for BertViz's hover."""
    p = k % 20
    return 2 + p if p < 10 else 10 - (p - 10)


def bertviz_path(browser, pages, n, moves, per_weight: dict, log, timeout=300) -> list[dict]:
    """BertViz's head view of this size's synthetic trace (a sentence of its own, as each of our
    paths has), loaded from local files, and its head, layer and row moves, timed as ours are."""
    from bench import bertviz_bench as bv

    base = {"path": "BertViz head view", "tokens": n}
    weights = synthetic.LAYERS * synthetic.HEADS * n * n
    if "head" in per_weight and per_weight["head"] * weights > bv.MAX_HTML_BYTES:
        mb = per_weight["head"] * weights / 1e6
        # BertViz writes every weight as JSON text twice: head_view.js's comment "PYTHON_PARAMS is
        # a template marker" is replaced by the data too
        note = f"not loaded: ~{mb:.0f} MB of HTML"
        log(
            f"  bertviz n={n}: {note} (every weight as JSON text, twice, {per_weight['head']:.0f} bytes a "
            f"weight, past bench.bertviz_bench.MAX_HTML_BYTES) and {synthetic.HEADS * n * n:,} SVG lines a layer"
        )
        return [{**base, "move": m, "note": note} for m in ("head", "layer", "row")]
    html, py_s = bv.make_html("head", n, synthetic.sentence(n, f"b{n}"))
    data = html.encode()
    per_weight["head"] = len(data) / weights
    del html
    if len(data) > bv.MAX_HTML_BYTES:
        note = f"not loaded: {len(data) / 1e6:.0f} MB of HTML"
        log(f"  bertviz n={n}: {note}")
        return [{**base, "move": m, "note": note} for m in ("head", "layer", "row")]
    url = pages.put(f"head{n}.html", data)
    log(f"  bertviz n={n}: HTML {len(data) / 1e6:.1f} MB made in {py_s:.2f} s")
    del data
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)[:200]))
    rows = []
    try:
        t0 = time.perf_counter()
        page.goto(url, wait_until="commit", timeout=timeout * 1000)
        page.wait_for_function(bv.HEAD_DRAWN, polling="raf", timeout=timeout * 1000)
        log(f"  bertviz n={n}: head view drawn {time.perf_counter() - t0:.2f} s after the page was asked for")
        h = page.evaluate(f"() => {bv.HEAD_SQUARES}.length")
        assert h == synthetic.HEADS, f"BertViz drew {h} head squares, not {synthetic.HEADS}"
        for name in ("head", "layer", "row"):
            prep, act, check = bv.MOVES[name]
            samples = timed_moves(
                page,
                f"BertViz {name}",
                move_js(prep, act, check),
                moves,
                n,
                synthetic.HEADS,
                rows_of=zigzag_row,
            )
            row = {**base, "move": name, **summary(samples)}
            log(
                f"  bertviz {name} n={n}: work {row['work']:.2f} ms (handler {row['handler']:.2f}, render "
                f"{row['render']:.2f}), to the frame {row['to_frame']:.2f} ms, slowest work {row['max_work']:.2f} ms"
            )
            rows.append(row)
        page.screenshot(path=str(SCREENSHOTS / f"bench-moves-bertviz-{n}.png"))
    finally:
        if errors:
            log(f"  bertviz n={n}: page errors: {errors[:3]}")
        ctx.close()
        pages.drop(f"head{n}.html")
    return rows


def old_path(page, url, n, moves, log) -> list[dict]:
    text = synthetic.sentence(n, f"o{n}")
    runs = Runs(page)  # before the page opens its websocket
    goto(page, f"{url}/?text={quote(text)}", timeout=300)
    rows = []
    for name, label, options in (
        ("head", "Head", ("Head 2", "Head 3")),
        ("row", None, None),
        ("layer", "Layer", ("Layer 5", "Layer 6")),  # the old page opens on the last layer
    ):
        out = []
        for i in range(moves + 1):  # the first: warm-up
            if label:
                open_list(page, label)
                s = timed(page, runs, lambda: choose(page, options[i % 2]), timeout=120)
            else:
                pills = page.locator("[data-testid='stMain'] [data-testid='stButtonGroup'] button")
                s = timed(page, runs, lambda: pills.nth(2 + i % 2).click(), timeout=120)
            settle(page, 300, quiet_polls=2)
            out.extend([s * 1000] if i else [])
        row = {
            "path": "old Plotly page (server)",
            "move": name,
            "tokens": n,
            "median_ms": statistics.median(out),
            "max_ms": max(out),
            "moves": len(out),
        }
        log(f"  old {name} n={n}: median {row['median_ms']:.0f} ms, max {row['max_ms']:.0f} ms over {len(out)} moves")
        rows.append(row)
    page.screenshot(path=str(SCREENSHOTS / f"bench-moves-old-{n}.png"))
    return rows


def temperature_page(sizes=(16, 128), moves=20, old_moves=20, log=print) -> list[dict]:
    """The temperature page's T move, new (in the browser) and old (a rerun), in one run."""
    with tempfile.TemporaryDirectory(prefix="old-temperature-") as tmp:  # the old tree, removed after
        old_tree = Path(tmp)
        archive = subprocess.run(["git", "archive", OLD_TEMPERATURE_COMMIT], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old_tree)], input=archive.stdout, check=True)
        return temperature_runs(old_tree, sizes, moves, old_moves, log)


def temperature_runs(old_tree: Path, sizes, moves, old_moves, log) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from model import load

    texts = {n: synthetic.gpt_prompt(n) for n in sizes}
    for n, text in texts.items():
        assert len(load("gpt").prompt_ids(text)[1]) == n, (n, text)
    rows = []
    log(f"load average before: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with sync_playwright() as pw:
        browser = launch(pw)
        for label, cwd in (("new", ROOT), ("old", old_tree)):
            if label == "old" and not old_moves:
                continue
            server = AppServer(cwd=cwd, log=SCREENSHOTS / f"bench-moves-temperature-{label}.log").start()
            try:
                for n in sizes:
                    page = browser.new_context(viewport=VIEWPORT).new_page()
                    page.set_default_timeout(120_000)
                    url = f"{server.url}/temperature?model=gpt&text={quote(texts[n])}&head=1&q=1"
                    rows += (
                        new_temperature(page, url, n, moves, log)
                        if label == "new"
                        else old_temperature(page, url, n, old_moves, log)
                    )
                    page.context.close()
            finally:
                server.stop()
        browser.close()
    log(f"load average after: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return rows


def new_temperature(page, url, n, moves, log) -> list[dict]:
    sent = Sent(page)
    goto(page, url, timeout=300)
    page.wait_for_function("() => window.__attentionViews && window.__attentionViews.temp_view", timeout=120_000)
    view = "window.__attentionViews.temp_view"
    # the model loads when the reader reaches for it (here, before the drag: its moves are timed, not its load)
    reach_model(page, "temp_view")
    page.wait_for_function(f"() => {view}.liveReady || {view}.liveReason", timeout=120_000)
    drawn = page.evaluate(f"() => {view}.frames.length")
    answered = page.evaluate(f"() => {view}.liveFrames.length")  # the model's runs in the browser (our models)
    before = sent.frames
    page.locator(".av-temp").scroll_into_view_if_needed()  # a mouse drag needs the thumb on screen
    box = page.locator(".av-temp").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] / 2, y)
    page.mouse.down()
    for i in range(1, moves + 1):
        page.mouse.move(box["x"] + box["width"] * (0.5 + 0.3 * i / moves), y)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
    during = sent.frames - before
    ms = page.evaluate(f"() => {view}.frames.slice({drawn})")
    t0 = time.perf_counter()
    # T in every layer: the model re-run in the browser (already during the drag, where the browser
    # runs our model) or on the server after the release; the view then draws that run
    page.mouse.up()
    page.wait_for_function(f"() => {view}.panelSource(1) !== 'view'", polling="raf", timeout=120_000)
    release = time.perf_counter() - t0
    by = page.evaluate(f"() => {view}.panelSource(1)")
    runs = page.evaluate(f"() => {view}.liveFrames.slice({answered})")
    settle(page, 300)
    page.screenshot(path=str(SCREENSHOTS / f"bench-moves-temperature-new-{n}.png"))
    model_ms = (
        f"; the model's runs in the browser: median {statistics.median(runs):.1f} ms of {len(runs)}" if runs else ""
    )
    log(
        f"  new temperature page n={n}: median {statistics.median(ms):.2f} ms, max {max(ms):.2f} ms over "
        f"{len(ms)} redraws; ws frames sent during {during}; release to every layer drawn ({by}) "
        f"{release * 1000:.0f} ms{model_ms}"
    )
    return [
        {
            "path": "temperature page, attention view (browser)",
            "move": "temperature",
            "tokens": n,
            "median_ms": statistics.median(ms),
            "max_ms": max(ms),
            "moves": len(ms),
            "ws_sent_during": during,
            "ws_sent_after": sent.frames - before - during,
            "release_ms": release * 1000,
            "every_layer_by": by,  # "browser" or "server"
            "model_runs": len(runs),
            "model_run_median_ms": statistics.median(runs) if runs else None,
        }
    ]


def old_temperature(page, url, n, moves, log) -> list[dict]:
    runs = Runs(page)
    goto(page, url, timeout=300)
    thumb = page.locator("[data-testid='stSlider'] input[type='range']").first
    out = []
    for i in range(moves + 1):  # the first: warm-up
        thumb.focus()
        s = timed(page, runs, lambda: thumb.press("ArrowRight" if i % 2 == 0 else "ArrowLeft"), timeout=120)
        settle(page, 300, quiet_polls=2)
        out.extend([s * 1000] if i else [])
    page.screenshot(path=str(SCREENSHOTS / f"bench-moves-temperature-old-{n}.png"))
    log(f"  old temperature page n={n}: median {statistics.median(out):.0f} ms, max {max(out):.0f} ms over {len(out)}")
    return [
        {
            "path": "temperature page, old Plotly (server)",
            "move": "temperature",
            "tokens": n,
            "median_ms": statistics.median(out),
            "max_ms": max(out),
            "moves": len(out),
        }
    ]


def load() -> str:
    """`uptime`'s load averages (1, 5, 15 minutes): the machine is shared, so every phase says it."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def run(
    sizes=(16, 128, 512), moves=20, old_moves=20, bertviz=True, log=print, paths=("new", "old"), model=True
) -> list[dict]:
    """The view's moves (new and old paths, BertViz's head view) and, with model, the model's own
    moves (bench.model_moves: type a character, every-layer temperature, head off, positions off,
    in the browser normal and 4x throttled, on the server and in BertViz), in one run."""
    rows = view_moves(sizes, moves, old_moves, bertviz, log, paths)
    if model:
        from bench import model_moves

        rows += model_moves.run(sizes, moves, bertviz, bertviz_moves=min(moves, 5), log=log)
    return rows


def view_moves(sizes, moves, old_moves, bertviz, log, paths) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from bench import bertviz_bench

    old_page = Path(tempfile.mkdtemp()) / "attention.py"
    old_page.write_text(
        subprocess.run(
            ["git", "show", f"{OLD_PAGE_COMMIT}:pages/attention.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    no_bertviz = None if bertviz else "left out (--no-bertviz)"
    no_bertviz = no_bertviz or bertviz_bench.available()
    rows = []
    log(f"load average before: {load()}")
    with sync_playwright() as pw:
        browser = launch(pw)
        for label, env in (("new", {}), ("old", {"ATTN_BENCH_PAGE": str(old_page)})):
            if label not in paths or (label == "old" and not old_moves):
                continue
            server = AppServer(
                script=ROOT / "bench" / "views_app.py", env=env, log=SCREENSHOTS / f"bench-moves-{label}.log"
            )
            server.start()
            try:
                for n in sizes:
                    ctx = browser.new_context(viewport=VIEWPORT)
                    page = ctx.new_page()
                    page.set_default_timeout(120_000)
                    t0 = time.perf_counter()
                    rows += (new_path if label == "new" else old_path)(
                        page, server.url, n, moves if label == "new" else old_moves, log
                    )
                    log(f"  ({label} n={n}: {time.perf_counter() - t0:.0f} s, load average {load()})")
                    ctx.close()
            finally:
                server.stop()
        if no_bertviz:
            log(f"  bertviz: {no_bertviz}")
            rows += [
                {"path": "BertViz head view", "tokens": n, "move": m, "note": no_bertviz}
                for n in sizes
                for m in ("head", "layer", "row")
            ]
        else:
            per_weight: dict = {}
            with bertviz_bench.Pages() as pages:
                for n in sorted(sizes):
                    t0 = time.perf_counter()
                    rows += bertviz_path(browser, pages, n, moves, per_weight, log)
                    log(f"  (bertviz n={n}: {time.perf_counter() - t0:.0f} s, load average {load()})")
        browser.close()
    log(f"load average after: {load()}")
    return rows


LEGEND = (
    "Browser cells (ours and BertViz's, timed alike in the page, see move_js): work, the event's "
    "handler plus that frame's style, layout and paint (the slowest in brackets) / to the frame, "
    "from the event to that frame done, the wait for the frame's slot included. The old page: "
    "from the click to the rerun finished and every chart drawn (a server round trip)."
)
COLUMNS = ("attention view, heatmap", "attention view, head view", "old Plotly page (server)", "BertViz head view")
MOVE_NAMES = ("temperature", "head", "row", "layer")


def cell(r: dict | None, path: str, move: str) -> str:
    if r is None:
        if move == "temperature" and path.startswith("old"):
            return "no slider on the old page"
        if move == "temperature" and path.startswith("BertViz"):
            return "none (BertViz has no temperature)"
        return "–"
    if "note" in r:
        return r["note"]
    if "work" in r:  # timed in the page
        return f"{r['work']:.2f} ms (max {r['max_work']:.1f}) / {r['to_frame']:.1f} ms"
    return f"{r['median_ms']:.0f} ms (max {r['max_ms']:.0f})"  # the old page: a rerun, timed from Python


def moves_table(rows: list[dict]) -> str:
    """Size x move x tool, one line a (size, move); a cell is the median of its moves."""
    by = {(r["tokens"], r["move"], r["path"]): r for r in rows}
    sizes = sorted({r["tokens"] for r in rows})
    out = ["| tokens | move | " + " | ".join(COLUMNS) + " |", "|---|---|" + "---|" * len(COLUMNS)]
    for n in sizes:
        for move in MOVE_NAMES:
            cells = [cell(by.get((n, move, path)), path, move) for path in COLUMNS]
            out.append(f"| {n} | {move} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def details_table(rows: list[dict]) -> str:
    out = [
        "| path | move | tokens | work | handler | render | to the frame | view's draw() | slowest work | moves |"
        " ws frames sent during / after |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "work" not in r:
            continue
        draw = "–" if r.get("draw") is None else f"{r['draw']:.2f} ms"
        ws = f"{r['ws_sent_during']} / {r['ws_sent_after']}" if "ws_sent_during" in r else "–"
        out.append(
            f"| {r['path']} | {r['move']} | {r['tokens']} | {r['work']:.2f} ms | {r['handler']:.2f} ms | "
            f"{r['render']:.2f} ms | {r['to_frame']:.2f} ms | {draw} | {r['max_work']:.2f} ms | {r['moves']} | {ws} |"
        )
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--old-moves", type=int, default=20)
    ap.add_argument("--sizes", default=None, help="tokens (default: 16,128,512; the temperature page: 16,128)")
    ap.add_argument("--page", default="attention", choices=("attention", "temperature"))
    ap.add_argument("--no-bertviz", action="store_true", help="leave BertViz's head view out")
    ap.add_argument("--only-bertviz", action="store_true", help="BertViz's head view alone (a trial)")
    ap.add_argument("--no-model", action="store_true", help="leave the model's moves (bench.model_moves) out")
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    a = ap.parse_args(argv)
    if a.page == "temperature":
        rows = temperature_page(tuple(int(x) for x in (a.sizes or "16,128").split(",")), a.moves, a.old_moves)
        print("\n| path | move | tokens | median | max | moves | ws frames sent during / after |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            ws = f"{r['ws_sent_during']} / {r['ws_sent_after']}" if "ws_sent_during" in r else "(every move)"
            if "release_ms" in r:
                ws += f"; release to every layer drawn {r['release_ms']:.0f} ms"
            print(
                f"| {r['path']} | {r['move']} | {r['tokens']} | {r['median_ms']:.2f} ms | {r['max_ms']:.2f} ms | "
                f"{r['moves']} | {ws} |"
            )
        return
    sizes = tuple(int(x) for x in (a.sizes or "16,128,512").split(","))
    rows = run(
        sizes,
        a.moves,
        a.old_moves,
        bertviz=not a.no_bertviz,
        paths=() if a.only_bertviz else ("new", "old"),
        model=not (a.only_bertviz or a.no_model),
    )
    print(f"\nMedians of {a.moves} moves (the old page: {a.old_moves} after a warm-up). {LEGEND}\n")
    print(moves_table(rows))
    print()
    print(details_table(rows))
    from bench import model_moves

    if any(r["move"] in model_moves.MOVES for r in rows):
        print(f"\nThe model's moves (bench.model_moves), medians of {a.moves}:\n")
        print(model_moves.table([r for r in rows if r["move"] in model_moves.MOVES]))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
