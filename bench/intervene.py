"""Head ablation figures (issue 12): speed of the importance grid and of a rerun on the intervene page,
and what switching heads off does to the translator's exact match on held-out sentences.

    python -m bench.intervene [--n 200] [--skip-exact] [--skip-page] [--browser]

Targets: importance grid for the translator on a 10-token sentence <= 1 s, for the GPT <= 0.5 s;
an ablation rerun on the page <= 0.5 s. Prints a Markdown section for bench/results.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import model  # noqa: E402
from analysis import intervene  # noqa: E402
from data import corpus  # noqa: E402
from model import intervention  # noqa: E402

TR_TEXT = "The old man saw the big dog in the park"  # 10 tokens for the translator
GPT_TEXT = "The cat sat on the mat. It was happy."


def timed(fn, repeat=7):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def grid_speed(lines):
    tr, gpt = model.load("translator", device="cpu"), model.load("gpt", device="cpu")
    n_tr = len(tr.ids(TR_TEXT)[1])
    n_gpt = len(gpt.prompt_ids(GPT_TEXT)[1])
    heads_tr, heads_gpt = len(intervention.all_heads(tr)), len(intervention.all_heads(gpt))
    med, best = timed(lambda: intervene.importance(tr, TR_TEXT))
    lines.append(
        f"| translator: importance grid, {heads_tr} heads, {n_tr}-token sentence (batched greedy "
        f"decode + teacher-forced log p) | {med:.3f} s | {best:.3f} s | ≤ 1 s |"
    )
    one = timed(lambda: [intervene.importance(tr, TR_TEXT, heads=[h]) for h in intervention.all_heads(tr)], repeat=2)[0]
    lines.append(
        f"| translator: the same grid one head at a time ({heads_tr} runs, for comparison) | {one:.3f} s | | |"
    )
    med, best = timed(lambda: intervene.importance(gpt, GPT_TEXT))
    lines.append(
        f"| gpt: importance grid, {heads_gpt} heads, {n_gpt} tokens (KL of next-token distributions) "
        f"| {med:.3f} s | {best:.3f} s | ≤ 0.5 s |"
    )
    med, best = timed(lambda: tr.trace(TR_TEXT, ablate=[("cross", 1, 1)]))
    lines.append(f"| translator: one ablated trace (model only, cross:2:2 off) | {med:.3f} s | {best:.3f} s | |")


def page_speed(lines):
    """Script time of the rerun after a head is switched off (AppTest: the server's work, without the
    browser's drawing); each rerun switches a new head off, so nothing comes from the cache."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import AppTest, app_test, local_script_runner

    class NavigationSeen(PagesManager):  # as tests/conftest.py: the app as a server runs it
        def __init__(self, *args, **kwargs):
            PagesManager.uses_pages_directory = False
            super().__init__(*args, **kwargs)

    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared
    app_test.PagesManager = NavigationSeen
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(model="translator", lang="en", text=TR_TEXT)
    at.run()
    at.switch_page("pages/intervene.py")
    at.run()
    times = []
    names = [intervention.head_name(*h) for h in intervention.all_heads(model.load("translator", device="cpu"))]
    for name in names[8:16]:
        t0 = time.perf_counter()
        at.multiselect(key="iv_off").set_value([name]).run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    lines.append(
        f"| intervene page: rerun after switching one head off (AppTest script time, {len(times)} new heads, "
        f"uncached) | {statistics.median(times):.3f} s | {min(times):.3f} s | ≤ 0.5 s |"
    )


def browser_speed(lines):
    """Click on a model-view tile to drawn, in Debian's chromium: the intervene page (each click switches
    one more head off) against the attention page's model view (a click selects a head) on the same server."""
    from urllib.parse import quote

    from playwright.sync_api import sync_playwright

    from drive.browser import VIEWPORT, goto, launch, settle, tile_xy, wait_for_run_start
    from drive.server import AppServer

    tiles = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 2), (1, 3), (1, 1)]
    with AppServer(log=ROOT / "screenshots" / "bench-intervene.log") as srv, sync_playwright() as pw:
        browser = launch(pw)
        for page_name, url, tab in (
            ("intervene page: click a tile (switch a head off) to drawn", "intervene?ikind=cross", None),
            ("attention page, for comparison: click a model-view tile to drawn", "attention?kind=cross", "Model view"),
        ):
            page = browser.new_context(viewport=VIEWPORT).new_page()
            goto(page, f"{srv.url}/{url}&model=translator&text={quote(TR_TEXT)}")
            if tab:
                page.get_by_role("tab", name=tab).click()
                settle(page)
            times = []
            for tile in tiles:
                xy = tile_xy(page, *tile)
                t0 = time.perf_counter()
                page.mouse.click(xy["x"], xy["y"])
                wait_for_run_start(page, 5)
                settle(page, 60, quiet_polls=1, poll=0.02)
                times.append(time.perf_counter() - t0)
            lines.append(
                f"| {page_name} (chromium, {len(times)} clicks) | {statistics.median(times):.3f} s | "
                f"{min(times):.3f} s | {'≤ 0.5 s' if tab is None else ''} |"
            )
        browser.close()


def exact(lines, n):
    tr = model.load("translator", device="cpu")
    pairs = corpus.heldout_pairs(50, 4321)  # not the evaluation pairs: pick the heads on other sentences
    heads = intervention.all_heads(tr)
    total = None
    for p in pairs:
        s = intervene.importance(tr, p.en).score
        total = s if total is None else total + s
    mean = total / len(pairs)
    cross = [i for i, h in enumerate(heads) if h[0] == "cross"]
    align = max(cross, key=lambda i: mean[i])
    least = min(range(len(heads)), key=lambda i: mean[i])
    t0 = time.perf_counter()
    base = intervene.exact_match(tr, n)
    rows = [("none (untouched)", base)]
    last = tr.config.num_layers - 1
    readme = ("cross", last, 1)  # the README's alignment head, cross:2:2
    top_cross = [("cross", last, h) for h in range(tr.config.num_heads)]
    sets = [[heads[align]], [readme], top_cross, [heads[least]]]
    for hs in sets:
        if len(hs) == 1 and any(hs == r for r in sets[: sets.index(hs)]):
            continue
        rows.append((" + ".join(intervention.head_name(*h) for h in hs), intervene.exact_match(tr, n, ablate=hs)))
    lines.append("")
    lines.append(
        f"Exact match on {n} held-out pairs (`corpus.heldout_pairs({n}, 1234)`, as `python -m model evaluate`), "
        f"one head switched off (output 0). Heads picked by their mean importance (−Δ log p) on 50 other "
        f"held-out sentences: the most important cross-attention head "
        f"({intervention.head_name(*heads[align])}, {mean[align]:.2f} nats) and the least important head "
        f"({intervention.head_name(*heads[least])}, {mean[least]:.4f} nats)."
    )
    lines.append("")
    lines.append("| head off | en→zh | zh→en | change (en→zh / zh→en) |")
    lines.append("|---|---|---|---|")
    for name, em in rows:
        d = (
            ""
            if name.startswith("none")
            else f"{em['en-zh'] - base['en-zh']:+.3f} / {em['zh-en'] - base['zh-en']:+.3f}"
        )
        lines.append(f"| {name} | {em['en-zh']:.3f} | {em['zh-en']:.3f} | {d} |")
    lines.append("")
    lines.append(f"({time.perf_counter() - t0:.0f} s for the {len(rows)} evaluations.)")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--skip-exact", action="store_true")
    ap.add_argument("--skip-page", action="store_true")
    ap.add_argument("--browser", action="store_true", help="also click in chromium (needs Debian's chromium)")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    w = ROOT / "model" / "weights" / "translator.safetensors"
    mtime = datetime.datetime.fromtimestamp(w.stat().st_mtime, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## Head ablation and importance (issue 12)",
        "",
        f"{stamp}, `python -m bench.intervene`, one torch thread, load average {load} at start; "
        f"translator weights of {mtime}.",
        "",
        "| what | median | best | target |",
        "|---|---|---|---|",
    ]
    grid_speed(lines)
    if not a.skip_page:
        page_speed(lines)
    if a.browser:
        browser_speed(lines)
    if not a.skip_exact:
        exact(lines, a.n)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
