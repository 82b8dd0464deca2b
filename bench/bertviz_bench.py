"""The same synthetic traces through BertViz's head view and model view, in the same Chromium.

BertViz (bench/.venv, made by bench/run.sh) writes HTML that loads require.js, d3 and jQuery
from a CDN this machine cannot reach; npm's copies (bench/node_modules) are served from a local
HTTP server and the HTML is rewritten to use them. Time = Python making the HTML (what a notebook
cell spends) + the browser loading and drawing it; bytes = the HTML and the three scripts.

bench/moves.py also times BertViz's moves in its head view (MOVES: a click on a head's colour
square, the layer select, hovering a token), each a synchronous d3 redraw in its event handler.
"""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from drive.browser import VIEWPORT, launch
from drive.server import ROOT, SCREENSHOTS

from . import synthetic

NODE = ROOT / "bench" / "node_modules"
LIBS = {
    "require.js": NODE / "requirejs" / "require.js",
    "d3.min.js": NODE / "d3" / "dist" / "d3.min.js",
    "jquery.min.js": NODE / "jquery" / "dist" / "jquery.min.js",
}
# past this the HTML is not loaded into the browser: at 512 tokens BertViz writes every weight of
# every head as JSON text (~380 MB), near V8's string limit, and the model view would draw 19
# million SVG lines
MAX_HTML_BYTES = 200e6

HEAD_DRAWN = "() => !!document.querySelector('#vis svg #attention line')"
MODEL_DRAWN = "(n) => document.querySelectorAll(\"[id^='attn_background_']\").length >= n"


BENCH_VENV = ROOT / "bench" / ".venv"


def _bench_site() -> Path:
    """bench/.venv's site-packages (bench/run.sh installs BertViz there, apart from the app)."""
    rel = Path(sysconfig.get_paths()["purelib"]).relative_to(sys.prefix)
    return BENCH_VENV / rel


def available() -> str | None:
    """Why BertViz cannot be measured here, or None. Run from the app's .venv, bench/.venv's
    site-packages are appended to the path (after the app's own, which win), so
    `.venv/bin/python -m bench.moves` finds BertViz as bench/.venv's python does."""
    try:
        import bertviz  # noqa: F401
    except ImportError:
        site = _bench_site()
        if not (site / "bertviz").is_dir():
            return "bertviz is not installed (run bench/run.sh, which makes bench/.venv)"
        sys.path.append(str(site))
        try:
            import bertviz  # noqa: F401, F811
        except ImportError as e:
            return f"bertviz in {site} does not import: {e}"
    missing = [str(p) for p in LIBS.values() if not p.exists()]
    if missing:
        return f"npm copies missing: {missing} (run bench/run.sh: npm install in bench/)"
    return None


def rewrite(html: str) -> str:
    html = re.sub(r"https://cdnjs\.cloudflare\.com/ajax/libs/require\.js/[^\"']+", "/lib/require.js", html)
    html = re.sub(r"https://cdnjs\.cloudflare\.com/ajax/libs/d3/[^\"']+?/d3\.min", "/lib/d3.min", html)
    html = re.sub(r"https://cdnjs\.cloudflare\.com/ajax/libs/jquery/[^\"']+?/jquery\.min", "/lib/jquery.min", html)
    assert "cdnjs" not in html, "a CDN URL was left in BertViz's HTML"
    return f"<!doctype html><html><head><meta charset='utf-8'></head><body>{html}</body></html>"


def make_html(view: str, n: int, text: str | None = None) -> tuple[str, float]:
    """(page, seconds Python took) for BertViz's `view` ("head" or "model") of an n-token trace
    (the synthetic trace of `text`, by default a sentence of its own)."""
    import torch
    from bertviz import head_view, model_view

    tr = synthetic.trace(text or synthetic.sentence(n, f"bv{n}"))
    att = tr.attention["encoder"]
    layers = [torch.from_numpy(np.ascontiguousarray(att.weights[i : i + 1])) for i in range(att.num_layers)]
    t0 = time.perf_counter()
    fn = head_view if view == "head" else model_view
    html = fn(attention=layers, tokens=list(att.query_tokens), html_action="return").data
    return rewrite(html), time.perf_counter() - t0


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory: Path):
    handler = functools.partial(_Quiet, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


class Pages:
    """A folder of BertViz pages and the npm copies of its scripts (under /lib/), served from
    127.0.0.1 on a free port while the `with` block runs."""

    def __enter__(self):
        problem = available()
        if problem:
            raise RuntimeError(problem)
        self.dir = Path(tempfile.mkdtemp(prefix="bertviz-bench-"))
        (self.dir / "lib").mkdir()
        for name, src in LIBS.items():
            shutil.copy(src, self.dir / "lib" / name)
        self.lib_bytes = sum(p.stat().st_size for p in (self.dir / "lib").iterdir())
        self.httpd = serve(self.dir)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        return self

    def put(self, name: str, data: bytes) -> str:
        (self.dir / name).write_bytes(data)
        return f"{self.base}/{name}"

    def drop(self, name: str):
        (self.dir / name).unlink(missing_ok=True)

    def __exit__(self, *exc):
        self.httpd.shutdown()
        shutil.rmtree(self.dir, ignore_errors=True)


# BertViz's head view, as head_view.js builds it: an <svg> in #vis holding g#left and g#right
# (each a g.attentionBoxes and a g of one g per token), g#attention (g.headAttention per head, a
# g.tokenAttention per query, a <line> per key) and, last, a g of one colour square per head.
# Each move is (prep, act, check): prep readies the move untimed, act dispatches the one event
# BertViz's own handler answers (d3's selection.on / jQuery's .on, both addEventListener, so the
# handler runs inside dispatchEvent), check says whether the page shows what the move asked.
# `k` is the move's number, `n` the tokens, `h` the heads.
HEAD_SQUARES = "document.querySelectorAll('#vis svg > g:last-of-type > rect')"
MOVES = {
    # a click on head (k % 2)'s square toggles that head: updateAttention sets every line's opacity
    "head": (
        f"const sq = {HEAD_SQUARES}[k % 2]; const was = "
        "document.querySelector(`#attention .headAttention[head-index='${k % 2}'] line`)"
        ".getAttribute('stroke-opacity') !== '0';",
        "sq.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, view: window}));",
        "(document.querySelector(`#attention .headAttention[head-index='${k % 2}'] line`)"
        ".getAttribute('stroke-opacity') !== '0') !== was",
    ),
    # the layer select, 1 then 0 then 1 ...: renderVis empties #vis and builds every line again
    "layer": (
        "const sel = document.querySelector('#layer'); sel.value = String((k + 1) % 2);",
        "sel.dispatchEvent(new Event('change', {bubbles: true}));",
        "document.querySelectorAll('#attention line').length === h * n * n "
        "&& document.querySelector('#layer').value === String((k + 1) % 2)",
    ),
    # hovering query token `row`: its lines shown, the others hidden, the key tokens' boxes shaded
    "row": (
        "const tok = document.querySelectorAll('#vis svg #left > g:not(.attentionBoxes) > g')[row];",
        "tok.dispatchEvent(new MouseEvent('mouseover', {bubbles: true, view: window}));",
        "document.querySelectorAll(`#attention line[visibility='visible'][left-token-index='${row}']`).length"
        " === h * n && document.querySelectorAll(\"#attention line[visibility='visible']\").length === h * n",
    ),
}


def run(sizes=(16, 128, 512), timeout=120, log=print) -> list[dict]:
    rows, per_weight = [], {}
    from playwright.sync_api import sync_playwright

    with Pages() as pages:
        lib_bytes = pages.lib_bytes
        with sync_playwright() as pw:
            browser = launch(pw)
            for n in sorted(sizes):
                for view in ("head", "model"):
                    row = {"tokens": n, "view": view}
                    weights = synthetic.LAYERS * synthetic.HEADS * n * n
                    if per_weight.get(view) and per_weight[view] * weights > MAX_HTML_BYTES:
                        est = per_weight[view] * weights
                        row.update(
                            python_s=None,
                            browser_s=None,
                            mb=est / 1e6,
                            note=f"not made: ~{est / 1e6:.0f} MB of HTML (estimated)",
                        )
                        log(f"  bertviz {view} n={n}: {row['note']}")
                        rows.append(row)
                        continue
                    html, py_s = make_html(view, n)
                    per_weight[view] = len(html) / weights
                    data = html.encode()
                    row.update(python_s=py_s, mb=(len(data) + lib_bytes) / 1e6)
                    if len(data) > MAX_HTML_BYTES:
                        row.update(browser_s=None, note=f"not loaded: {len(data) / 1e6:.0f} MB of HTML")
                        log(f"  bertviz {view} n={n}: python {py_s:.1f} s, HTML {len(data) / 1e6:.0f} MB: not loaded")
                        rows.append(row)
                        del html, data
                        continue
                    url = pages.put(f"{view}{n}.html", data)
                    del html, data
                    ctx = browser.new_context(viewport=VIEWPORT)
                    page = ctx.new_page()
                    errors = []
                    page.on("pageerror", lambda e: errors.append(str(e)[:200]))
                    t0 = time.perf_counter()
                    try:
                        page.goto(url, wait_until="commit", timeout=timeout * 1000)
                        if view == "head":
                            page.wait_for_function(HEAD_DRAWN, polling="raf", timeout=timeout * 1000)
                        else:
                            page.wait_for_function(
                                MODEL_DRAWN,
                                arg=synthetic.LAYERS * synthetic.HEADS,
                                polling="raf",
                                timeout=timeout * 1000,
                            )
                        page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
                        browser_s = time.perf_counter() - t0
                        row.update(browser_s=browser_s, note="")
                        if n == sizes[0] or n == 128:
                            page.screenshot(path=str(SCREENSHOTS / f"bench-bertviz-{view}-{n}.png"))
                    except Exception as e:
                        browser_s = None
                        row.update(
                            browser_s=None,
                            note=f"not drawn within {timeout} s"
                            + (f" ({errors[0]})" if errors else "")
                            + f" [{type(e).__name__}]",
                        )
                    ctx.close()
                    pages.drop(f"{view}{n}.html")
                    log(
                        f"  bertviz {view} n={n}: python {py_s:.2f} s, browser "
                        f"{'%.2f s' % browser_s if browser_s is not None else row['note']}, {row['mb']:.2f} MB"
                    )
                    rows.append(row)
            browser.close()
    return rows
