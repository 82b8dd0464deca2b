"""The model's own moves (issue 48): "type a character", "every-layer temperature", "head off" and
"positions off" on the trained GPT at 16 / 128 / 512 tokens (<s> included), three paths in one run:

  in the browser  the GPT's whole forward in onnxruntime-web on the app's origin (ui/browser_model/
                  model.js, every knob a graph input; typing also runs the tokenizer on the new text),
                  timed in the page with performance.now(), normal and with the CPU slowed 4x by
                  Chrome's own throttling (CDP Emulation.setCPUThrottlingRate, a phone stand-in).
                  This is the model's answer; the view's redraw of it comes on top (bench.moves times
                  the view's redraws: its head, row and temperature moves).
  server          the move as the app answers it today: the page run it causes on the server (the
                  attention page for a typed character, the temperature page for T in every layer,
                  intervene for a head off, compare's "positions" for positions off), from the rerun
                  sent on the page's websocket to the run finished, every chart's bytes received
                  (bench/load.py's protocol client). Each move asks for a setting the server has not
                  run yet (another T, another head, another sentence), so the model runs each time.
  attention page  the same moves on the real attention page (model=gpt) through its view's test API
                  (window.__attentionViews.att_view.move: the box's text or the knobs set as the
                  reader sets them, the model run in the browser and the view redrawn; it resolves to
                  that answer's ms), normal and 4x throttled. A page without that path (no move() in
                  its API, or its model not loaded) is a note with the reason.
  BertViz         BertViz has no knob: each move is Python running the model with it and writing a
                  new head_view page, then Chromium loading and drawing that page (bench.bertviz_bench).

Our models read at most 128 tokens (their max_seq_len): at 512 every path is a note, not a figure.
Medians of `moves` (BertViz: of `bertviz_moves`), the slowest beside them, the load average with
each phase (the machine is shared).

    .venv/bin/python -m bench.model_moves [--moves 20] [--sizes 16,128,512] [--no-bertviz]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MOVES = ("type a character", "every-layer temperature", "head off", "positions off")
MODEL = "gpt"
RATES = (1, 4)
COLUMNS = (
    "in the browser",
    "in the browser, CPU 4x slower",
    "attention page, in the browser",
    "attention page, CPU 4x slower",
    "server",
    "BertViz",
)
# issue 48's Done-when, for a redraw: 16 ms at 16 tokens and 50 ms at 128, 50 ms at 16 tokens 4x throttled
TARGET_MS = {(16, 1): 16.0, (128, 1): 50.0, (16, 4): 50.0}


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def result(path: str, move: str, n: int, ms: list[float], rate: int | None = None) -> dict:
    """One row of the results: a path's median and slowest move at n tokens, with the load."""
    row = {"path": path, "move": move, "tokens": n, "median_ms": statistics.median(ms), "max_ms": max(ms)}
    row.update({"moves": len(ms), "load": load()})
    return row if rate is None else {**row, "rate": rate}


def texts(n: int, moves: int) -> dict:
    """What each move reads at n tokens: the sentence (the corpus's words, n tokens with <s>) and,
    for typing, the sentence as it grows by one character a move up to the whole of it."""
    from bench.synthetic import gpt_prompt
    from model import load as load_model

    full, tok = gpt_prompt(n), load_model(MODEL).tokenizer
    while len(tok.encode(full)) + 1 > n:  # the prompt's ids are cut at the model's length: the text is not
        full = full.rsplit(" ", 1)[0]
    return {"text": full, "typed": [full[: len(full) - (moves - 1 - k)] for k in range(moves)]}


def head_of(k: int, layers: int, heads: int) -> tuple[int, int]:
    """The k-th head, (layer, head) from 0: every head of the model in turn."""
    return (k // heads) % layers, k % heads


def heads_of(k: int, layers: int, heads: int) -> list[tuple[int, int]]:
    """The heads move k switches off: each head alone, then (past layers x heads moves) pairs, so
    none of the first 4 x layers x heads moves asks for what one before it did (tests/test_bench_moves.py)."""
    n = layers * heads
    one = head_of(k, layers, heads)
    if k < n:
        return [one]
    return [one, head_of(k + k // n, layers, heads)]


def temperature_of(k: int) -> float:
    """Move k's temperature: another one each move (0.55, 0.6, ... up to 1.5, then again)."""
    return round(0.55 + 0.05 * (k % 20), 2)


# -- in the browser ---------------------------------------------------------------------------------
BROWSER_JS = """async ({base, move, text, typed, moves, temps, offs, bos}) => {
  const { BrowserModel, loadTokenizer } = await import(base + '/browser_model/model.js');
  window.__benchTok = window.__benchTok || await loadTokenizer(base);
  window.__benchGpt = window.__benchGpt || await BrowserModel.load(base, 'gpt');
  const tok = window.__benchTok, m = window.__benchGpt;
  // <s> and the text's tokens, cut at what the model reads (as the app's runner cuts a long text)
  const read = (t) => [bos, ...tok.encode(t)].slice(0, m.meta.max_seq_len);
  const ids = read(text);
  await m.forward({ids});  // warm-up: the first run allocates
  const ms = [];
  let last = null;
  for (let k = 0; k < moves; k++) {
    const t0 = performance.now();
    let out;
    if (move === 'type a character') out = await m.forward({ids: read(typed[k])});
    else if (move === 'every-layer temperature') out = await m.forward({ids}, {temperature: temps[k]});
    else if (move === 'head off') out = await m.forward({ids}, {headsOff: offs[k].map(([l, h]) => ['decoder', l, h]), ablation: 'zero'});
    else out = await m.forward({ids}, {usePosition: k % 2 === 1});
    ms.push(performance.now() - t0);
    last = out.weights.decoder.dims;
  }
  return {ms, dims: last};
}"""


def browser_path(page, base: str, n: int, moves: int, rates=RATES, log=print) -> list[dict]:
    from model import load as load_model
    from model.tokenizer import BOS

    runner = load_model(MODEL)
    L, H = runner.config.num_layers, runner.config.num_heads
    t = texts(n, moves)
    cdp = page.context.new_cdp_session(page)
    rows = []
    try:
        for rate in rates:
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
            for move in MOVES:
                got = page.evaluate(
                    BROWSER_JS,
                    {
                        "base": base,
                        "move": move,
                        "text": t["text"],
                        "typed": t["typed"],
                        "moves": moves,
                        "bos": BOS,
                        "temps": [temperature_of(k) for k in range(moves)],
                        "offs": [[list(x) for x in heads_of(k, L, H)] for k in range(moves)],
                    },
                )
                if got["dims"][0] != L or got["dims"][3] > n:
                    raise RuntimeError(f"the browser's forward gave attention of shape {got['dims']}")
                ms = got["ms"]
                row = result(COLUMNS[0] if rate == 1 else f"in the browser, CPU {rate}x slower", move, n, ms, rate)
                log(
                    f"  browser x{rate} {move} n={n}: median {row['median_ms']:.1f} ms, max {row['max_ms']:.1f} ms "
                    f"over {len(ms)}; load {row['load']}"
                )
                rows.append(row)
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    return rows


# -- the attention page's own in-browser path (the view's test API: move) -----------------------
PAGE_VIEW = "window.__attentionViews && window.__attentionViews.att_view"
PAGE_READY = f"() => {{ const v = {PAGE_VIEW}; return !!(v && typeof v.move === 'function' && v.liveReady); }}"


def page_patches(k: int, move: str, t: dict, layers: int, heads: int) -> dict:
    """Move k as the view's move() takes it (the reader's controls: the box's text, T in every
    layer, heads off as kind:layer:head from 1, positions off)."""
    if move == "type a character":
        return {"text": t["typed"][k]}
    if move == "every-layer temperature":
        return {"temp": temperature_of(k)}
    if move == "head off":
        return {"ltemp": 1, "off": [f"decoder:{la + 1}:{h + 1}" for la, h in heads_of(k, layers, heads)]}
    return {"off": [], "nopos": k % 2 == 0}


def page_path(page, url: str, n: int, moves: int, rates=RATES, timeout: float = 120, log=print) -> list[dict]:
    """The attention page answering each move in the browser (the model's run and the view's
    redraw, the ms its move() resolves to), normal and throttled; a note where the page has no
    in-browser path (no move() in its test API, or its model did not load)."""
    from urllib.parse import quote

    from drive.browser import goto, reach_model
    from model import load as load_model

    c = load_model(MODEL).config
    t = texts(n, moves)
    names = [p for p in COLUMNS if p.startswith("attention page")]
    goto(page, f"{url}/attention?model={MODEL}&text={quote(t['text'])}", timeout=timeout)
    try:
        reach_model(page, "att_view")  # the model loads when the reader reaches for it, not with the page
        page.wait_for_function(PAGE_READY, timeout=60_000)
    except Exception:  # noqa: BLE001  (a page without the hook, or whose model did not load)
        why = page.evaluate(
            f"() => {{ const v = {PAGE_VIEW}; if (!v) return 'no attention view';"
            " return typeof v.move !== 'function' ? 'the page has no in-browser move (view.move)' :"
            " 'the model of the page did not load (' + v.liveReason + ')'; }"
        )
        log(f"  page n={n}: {why}")
        return [{"path": p, "move": m, "tokens": n, "note": why} for p in names for m in MOVES]
    page.evaluate(f"async (p) => await ({PAGE_VIEW}).move(p)", {"text": t["text"]})
    cdp = page.context.new_cdp_session(page)
    rows = []
    try:
        for rate, name in zip(rates, names):
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
            for move in MOVES:
                ms = []
                for k in range(moves):
                    got = page.evaluate(
                        f"async (p) => await ({PAGE_VIEW}).move(p)",
                        page_patches(k, move, t, c.num_layers, c.num_heads),
                    )
                    if got is None:
                        raise RuntimeError(f"the page's move {move} {k} ran no model")
                    ms.append(got)
                page.evaluate(
                    f"async (p) => await ({PAGE_VIEW}).move(p)",
                    {"off": [], "nopos": False, "temp": 1, "text": t["text"]},
                )
                row = result(name, move, n, ms, rate)
                log(
                    f"  page x{rate} {move} n={n}: median {row['median_ms']:.1f} ms, max {row['max_ms']:.1f} ms; load {row['load']}"
                )
                rows.append(row)
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    return rows


# -- on the server ----------------------------------------------------------------------------------
def server_query(move: str, k: int, n: int, t: dict, layers: int, heads: int) -> tuple[str, str]:
    """(page, query string) of move k: the link the page's controls write, with a setting the
    server has not run yet."""
    base = {"model": MODEL}
    if move == "type a character":
        return "attention", urlencode({**base, "text": t["typed"][k]})
    if move == "every-layer temperature":
        return "temperature", urlencode({**base, "text": t["text"], "temp": temperature_of(k)})
    if move == "head off":
        off = ",".join(f"decoder:{la + 1}:{h + 1}" for la, h in heads_of(k, layers, heads))
        return "intervene", urlencode({**base, "text": t["text"], "off": off})
    # positions off for a sentence the server has not read (compare runs it with and without)
    return "compare", urlencode({**base, "text": t["typed"][k], "cmp": "positions"})


async def _server_moves(url: str, n: int, moves: int, layers: int, heads: int, timeout: float) -> dict:
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg

    from bench.class_cpu import _one_run

    t = texts(n, moves)
    uri = url.replace("http://", "ws://") + "/_stcore/stream"
    out = {}
    async with websockets.connect(uri, subprotocols=["streamlit"], origin=url, max_size=None) as ws:
        for move in MOVES:

            def msg(page, query):
                m = BackMsg()
                m.rerun_script.query_string, m.rerun_script.page_name = query, page
                return m.SerializeToString()

            page, _ = server_query(move, 0, n, t, layers, heads)
            _, problem = await _one_run(ws, msg(page, urlencode({"model": MODEL, "text": "warm up"})), timeout)
            ms, problems = [], []
            for k in range(moves):
                s, problem = await _one_run(ws, msg(*server_query(move, k, n, t, layers, heads)), timeout)
                ms.append(s * 1000)
                problems += [problem] if problem else []
            out[move] = (ms, problems)
    return out


def server_path(url: str, n: int, moves: int, timeout: float = 120, log=print) -> list[dict]:
    from model import load as load_model

    c = load_model(MODEL).config
    got = asyncio.run(_server_moves(url, n, moves, c.num_layers, c.num_heads, timeout))
    rows = []
    for move, (ms, problems) in got.items():
        if problems:
            raise RuntimeError(f"server {move} n={n}: {problems[:2]}")
        row = result("server", move, n, ms)
        log(f"  server {move} n={n}: median {row['median_ms']:.0f} ms, max {row['max_ms']:.0f} ms; load {row['load']}")
        rows.append(row)
    return rows


# -- BertViz ----------------------------------------------------------------------------------------
def bertviz_path(browser, pages, n: int, moves: int, timeout: float = 120, log=print) -> list[dict]:
    """Each move: the GPT run with the move's knob and BertViz's head_view written (Python), then the
    page loaded and drawn in Chromium (a context of its own each time, as a new output cell)."""
    import numpy as np
    import torch
    from bertviz import head_view

    from bench import bertviz_bench as bv
    from drive.browser import VIEWPORT
    from model import load as load_model

    runner = load_model(MODEL)
    L, H = runner.config.num_layers, runner.config.num_heads
    t = texts(n, moves)
    rows = []
    for move in MOVES:
        total = []
        for k in range(moves):
            knobs = {
                "type a character": {},
                "every-layer temperature": {"temperature": temperature_of(k)},
                "head off": {"ablate": [("decoder", la, h) for la, h in heads_of(k, L, H)], "how": "zero"},
                "positions off": {"use_position": k % 2 == 1},
            }[move]
            text = t["typed"][k] if move == "type a character" else t["text"]
            t0 = time.perf_counter()
            with torch.no_grad():
                att = runner.trace(text, **knobs).attention["decoder"]
            layers = [torch.from_numpy(np.ascontiguousarray(att.weights[i : i + 1])) for i in range(L)]
            html = bv.rewrite(head_view(attention=layers, tokens=list(att.query_tokens), html_action="return").data)
            py_s = time.perf_counter() - t0
            url = pages.put(f"move{n}.html", html.encode())
            ctx = browser.new_context(viewport=VIEWPORT)
            page = ctx.new_page()
            t1 = time.perf_counter()
            page.goto(url, wait_until="commit", timeout=timeout * 1000)
            page.wait_for_function(bv.HEAD_DRAWN, polling="raf", timeout=timeout * 1000)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
            total.append((py_s + time.perf_counter() - t1) * 1000)
            ctx.close()
        row = result("BertViz", move, n, total)
        log(f"  bertviz {move} n={n}: median {row['median_ms']:.0f} ms over {len(total)}; load {row['load']}")
        rows.append(row)
    return rows


# -- one run ----------------------------------------------------------------------------------------
def run(
    sizes=(16, 128, 512), moves=20, bertviz=True, bertviz_moves=5, log=print, paths=("browser", "server")
) -> list[dict]:
    from playwright.sync_api import sync_playwright

    from bench import bertviz_bench
    from bench.browser_model import BASE, publish
    from drive.browser import launch
    from drive.server import SCREENSHOTS, AppServer
    from model import load as load_model

    most = load_model(MODEL).config.max_seq_len
    fits = [n for n in sizes if n <= most]
    rows = [
        {"path": p, "move": m, "tokens": n, "note": f"our models read at most {most} tokens"}
        for n in sizes
        if n > most
        for p in COLUMNS
        for m in MOVES
    ]
    publish((MODEL,))
    no_bertviz = None if bertviz else "left out (--no-bertviz)"
    no_bertviz = no_bertviz or bertviz_bench.available()
    log(f"load average before: {load()}")
    server = AppServer(log=SCREENSHOTS / "bench-model-moves.log").start()
    try:
        if "server" in paths:  # its own event loop: before Playwright's sync API holds one on this thread
            for n in fits:
                rows += server_path(server.url, n, moves, log=log)
        with sync_playwright() as pw:
            browser = launch(pw)
            if "browser" in paths:
                page = browser.new_context().new_page()
                page.goto(server.url + "/_stcore/health")
                for n in fits:
                    rows += browser_path(page, BASE, n, moves, log=log)
                page.context.close()
                page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                page.set_default_timeout(120_000)
                for n in fits:
                    rows += page_path(page, server.url, n, moves, log=log)
                page.context.close()
            if no_bertviz:
                log(f"  bertviz: {no_bertviz}")
                rows += [{"path": "BertViz", "move": m, "tokens": n, "note": no_bertviz} for n in fits for m in MOVES]
            else:
                with bertviz_bench.Pages() as pages:
                    for n in fits:
                        rows += bertviz_path(browser, pages, n, bertviz_moves, log=log)
            browser.close()
    finally:
        server.stop()
    log(f"load average after: {load()}")
    return rows


def cell(r: dict | None) -> str:
    if r is None:
        return "–"
    if "note" in r:
        return r["note"]
    return f"{r['median_ms']:.1f} ms (max {r['max_ms']:.1f})"


def met(rows: list[dict]) -> list[tuple[str, str, bool]]:
    """(target, figure, met) for the browser path's figures that issue 48 bounds."""
    out = []
    for r in rows:
        limit = TARGET_MS.get((r["tokens"], r.get("rate")))
        if limit is None or "median_ms" not in r:
            continue
        out.append(
            (
                f"{r['path']}, {r['move']} at {r['tokens']} tokens ≤ {limit:g} ms "
                + ("(the run and the redraw)" if r["path"].startswith("attention page") else "(the model's forward)"),
                f"{r['median_ms']:.1f} ms",
                r["median_ms"] <= limit,
            )
        )
    return out


def table(rows: list[dict]) -> str:
    by = {(r["tokens"], r["move"], r["path"]): r for r in rows}
    sizes = sorted({r["tokens"] for r in rows})
    out = ["| tokens | move | " + " | ".join(COLUMNS) + " |", "|---|---|" + "---|" * len(COLUMNS)]
    for n in sizes:
        for move in MOVES:
            out.append(f"| {n} | {move} | " + " | ".join(cell(by.get((n, move, p))) for p in COLUMNS) + " |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m bench.model_moves", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--bertviz-moves", type=int, default=5)
    ap.add_argument("--sizes", default="16,128,512")
    ap.add_argument("--no-bertviz", action="store_true")
    a = ap.parse_args(argv)
    rows = run(tuple(int(x) for x in a.sizes.split(",")), a.moves, not a.no_bertviz, a.bertviz_moves)
    print()
    print(table(rows))
    print()
    for target, figure, ok in met(rows):
        print(f"- {target}: {figure} ({'met' if ok else 'not met'})")
    return rows


if __name__ == "__main__":
    main()
