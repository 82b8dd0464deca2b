"""Moves at the speed of a hand: a temperature, head or row move on the attention page at 16, 128
and 512 tokens, the attention view (ui/attention_view: drawn and recomputed in the browser) beside
the old Plotly path (the page as it was at OLD_PAGE_COMMIT: every move a server round trip), in
one run, on bench/views_app.py's synthetic 6-layer x 12-head traces.

    .venv/bin/python -m bench.moves [--moves 20] [--old-moves 20] [--sizes 16,128,512]

New path: the time is the view's own, performance.now() around each redraw (recompute + canvas +
table), read back from the page; moves are real input (a mouse drag of the slider's thumb in
`moves` steps, arrow keys on the canvas for head and row); each head move starts from an empty
cache (the worst case: every head's softmax(log w / T) recomputed). The websocket frames the page
sent during the moves are counted (target 0), and after the last one (the debounced report).
Old path: from the select box option's or the pill's click to the rerun finished and every chart
drawn (bench.interactions.timed); the old attention page had no temperature slider.

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
from drive.browser import goto, launch, settle  # noqa: E402
from drive.server import SCREENSHOTS, AppServer  # noqa: E402

OLD_PAGE_COMMIT = "9bb939fc84e9d153682954b91b68df88114c1c6a"  # the last Plotly attention page
# the last Plotly temperature page (its whole tree is run)
OLD_TEMPERATURE_COMMIT = "9f4263b787564c06214af14dc3280f88091a0e13"
GPT_WORDS = "The cat sat on the mat . The dog saw the man in the garden . A bird sang on the old tree".split()
VIEWPORT = {"width": 1280, "height": 800}


class Sent:
    def __init__(self, page):
        self.frames = 0
        page.on("websocket", lambda ws: ws.on("framesent", lambda _: setattr(self, "frames", self.frames + 1)))


def frames(page) -> list[float]:
    return page.evaluate("() => window.__attentionViews.att_view.frames.slice()")


def new_path(page, url, n, moves, log) -> list[dict]:
    text = synthetic.sentence(n, f"m{n}")
    sent = Sent(page)
    goto(page, f"{url}/?text={quote(text)}&head=1&q=1", timeout=300)
    page.wait_for_function(VIEW_DRAWN, arg=[synthetic.tokens_of(text)[0], "head"], timeout=120_000)
    rows = []

    def batch(name, act):
        """act() makes the moves and returns the frames sent until just before the release."""
        drawn = len(frames(page))
        before = sent.frames
        during = act() - before
        ms = frames(page)[drawn:]
        page.wait_for_timeout(1500)  # the debounced report goes now
        settle(page, 300)
        row = {
            "path": "attention view (browser)",
            "move": name,
            "tokens": n,
            "median_ms": statistics.median(ms),
            "max_ms": max(ms),
            "moves": len(ms),
            "ws_sent_during": during,
            "ws_sent_after": sent.frames - before - during,
        }
        log(
            f"  new {name} n={n}: median {row['median_ms']:.2f} ms, max {row['max_ms']:.2f} ms over {len(ms)} "
            f"redraws; ws frames sent during {during}, after release {row['ws_sent_after']}"
        )
        rows.append(row)

    def temperature():
        page.locator(".av-temp").scroll_into_view_if_needed()  # a mouse drag needs the thumb on screen
        box = page.locator(".av-temp").bounding_box()
        y = box["y"] + box["height"] / 2
        page.mouse.move(box["x"] + box["width"] / 2, y)
        page.mouse.down()
        for i in range(1, moves + 1):
            page.mouse.move(box["x"] + box["width"] * (0.5 + 0.3 * i / moves), y)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
        held = sent.frames  # the drag itself, before the thumb is let go
        page.mouse.up()
        return held

    def keys(key_of):
        def act():
            page.locator(".av-canvas").focus()
            for i in range(moves):
                page.evaluate("() => { window.__attentionViews.att_view.cache = null; }")  # worst case
                page.keyboard.press(key_of(i))
            return sent.frames  # the report waits REPORT_MS after the last key

        return act

    batch("temperature", temperature)
    batch("head", keys(lambda i: "ArrowRight" if (i // 11) % 2 == 0 else "ArrowLeft"))
    batch("row", keys(lambda i: "ArrowDown" if (i // 10) % 2 == 0 else "ArrowUp"))
    page.screenshot(path=str(SCREENSHOTS / f"bench-moves-new-{n}.png"))
    return rows


def old_path(page, url, n, moves, log) -> list[dict]:
    text = synthetic.sentence(n, f"o{n}")
    runs = Runs(page)  # before the page opens its websocket
    goto(page, f"{url}/?text={quote(text)}", timeout=300)
    rows = []
    for name, label, options in (("head", "Head", ("Head 2", "Head 3")), ("row", None, None)):
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


def gpt_prompt(n: int) -> str:
    """A text the GPT reads as n tokens with its <s> (the corpus's words, repeated)."""
    from model import load

    ids = load("gpt").prompt_ids
    words: list[str] = []
    while True:
        words.append(GPT_WORDS[len(words) % len(GPT_WORDS)])
        got = len(ids(" ".join(words))[1])
        if got >= n:
            if got > n:
                words.pop()
            return " ".join(words)


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

    texts = {n: gpt_prompt(n) for n in sizes}
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
    drawn = page.evaluate(f"() => {view}.frames.length")
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
    page.mouse.up()  # T in every layer: the server re-runs the model, the view draws its weights
    page.wait_for_function(f"() => {view}.fromServer({view}.panels[1])", polling="raf", timeout=120_000)
    release = time.perf_counter() - t0
    settle(page, 300)
    page.screenshot(path=str(SCREENSHOTS / f"bench-moves-temperature-new-{n}.png"))
    log(
        f"  new temperature page n={n}: median {statistics.median(ms):.2f} ms, max {max(ms):.2f} ms over "
        f"{len(ms)} redraws; ws frames sent during {during}; release to every layer drawn {release * 1000:.0f} ms"
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


def run(sizes=(16, 128, 512), moves=20, old_moves=20, log=print) -> list[dict]:
    from playwright.sync_api import sync_playwright

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
    rows = []
    log(f"load average before: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with sync_playwright() as pw:
        browser = launch(pw)
        for label, env in (("new", {}), ("old", {"ATTN_BENCH_PAGE": str(old_page)})):
            if label == "old" and not old_moves:
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
                    log(f"  ({label} n={n}: {time.perf_counter() - t0:.0f} s)")
                    ctx.close()
            finally:
                server.stop()
        browser.close()
    log(f"load average after: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--old-moves", type=int, default=20)
    ap.add_argument("--sizes", default=None, help="tokens (default: 16,128,512; the temperature page: 16,128)")
    ap.add_argument("--page", default="attention", choices=("attention", "temperature"))
    a = ap.parse_args(argv)
    if a.page == "temperature":
        rows = temperature_page(tuple(int(x) for x in (a.sizes or "16,128").split(",")), a.moves, a.old_moves)
    else:
        rows = run(tuple(int(x) for x in (a.sizes or "16,128,512").split(",")), a.moves, a.old_moves)
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


if __name__ == "__main__":
    main()
