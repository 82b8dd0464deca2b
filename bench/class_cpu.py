"""A class on the server's CPU: N students, each typing a sentence every `interval` seconds, on the
real app (app.py, the attention page by default), two paths in one run on one server:

  server path   each sentence is a page run on the server (a rerun whose link carries the new
                sentence, as bench/load.py's students send it): the model runs, the page is laid
                out and its charts' bytes go back.
  browser path  the sentence is computed in the student's browser (ui/browser_model); the server
                receives only the released view, once per sentence: the very message the real page
                sends when the reader lets go, recorded first from Chromium (record_releases) and
                replayed by every student, cycling through `releases` distinct ones.

    .venv/bin/python -m bench.class_cpu [--students 60] [--interval 10] [--seconds 60] [--page attention]
        [--move view|type] [--texts language|free]

The server's CPU is read with psutil on the server process (user + system, its children
included) across each phase; the figures are CPU seconds per sentence, the share of one core the
class keeps busy, and browser / server (issue 48's target: at most 1/10). Both phases run on the
same server, one after the other, with the same students, sentences' timing and idle websockets,
so the machine's load treats them alike as far as one run can; the load average is printed with
each phase (the machine is shared). A third phase, idle, keeps the same students connected with the
page open and sends nothing for as long: what the open websockets cost, shown beside the ratio. A student's first page run (opening the link) is a warm-up
in both paths and not counted.

What the browser path sends: RELEASES names the moves whose release this bench can record from
the page (window.__attentionViews). "view": the view's temperature dragged and let go (the
component reports its view once, debounced: a rerun of the page's fragment on the cached trace).
"type": a sentence typed into the sidebar's box with the page's in-browser model answering each
keystroke, then the box left: where the page draws the sentence only in the browser's view, the
view posts it to the server's own route (ui/said.py: no rerun; the server only checks that the
model reads it as it reads the one shown), and each student replays that POST with its own
session's token (read from its first page run) and its own next sentence, the same sentences as on
the server path. A sentence the route refuses (409: the page must draw it) is a page run, as the
page then applies it; the row counts them. The server is started as production starts it
(`python -m ui.serve`, which adds the route); under a bare `streamlit run` the page applies the
sentence by a rerun of the box's fragment, and so would the recording.

Where the sentences come from (--texts, the same on both paths): "language", the models' own
(data.corpus: what a lesson types; the page says nothing about them but their attention); "free",
bench/load.py's (mostly words the models never saw: the page's warning about each, drawn by the
server, differs, so each such sentence is a page run on both paths). Every student opens the page at
OPEN_TEXT[texts], a sentence of the same kind.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import re  # noqa: E402

from bench.load import pct, sentences, shows_exception  # noqa: E402
from drive.server import SCREENSHOTS, AppServer, has_trained_weights  # noqa: E402
from ui import said as said_route  # noqa: E402  (its ROUTE and HEADER)

# the sentence every student's page opens at, per source of sentences (TEXTS): one the page says the
# same about as about the students' next ones (the models' own language: no warning; free: a warning)
OPEN_TEXT = {"language": "The cat sat on the mat", "free": "The cat sat on the mat because it was tired"}

# JS that readies one release (argument k: its number, so each differs from the one before) on the
# page's attention view and lets go; the component then reports once (REPORT_MS later).
RELEASES = {
    # the sentence typed into the sidebar's box with the page's in-browser model answering each
    # keystroke, then the box left: what the page sends then (the browser branch's pages: the
    # sentence applied, so the link, the room and the server's figures follow)
    "type": """([k, text]) => {
  const v = window.__attentionViews.att_view;
  const box = document.querySelector('[class*="st-key-_text_box"] textarea');  // the sidebar's sentence box
  if (!box || !v.liveReady) throw new Error('the page has no in-browser sentence box (typing is a server run)');
  box.focus();
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, text);
  box.dispatchEvent(new Event('input', {bubbles: true}));
  box.blur();
  return text;
}""",
    "view": """([k]) => {
  const v = window.__attentionViews.att_view;
  const s = v.element.querySelector('.av-temp');
  s.value = String(Math.round(+s.max * (0.55 + 0.4 * ((k * 7) % 10) / 10)));
  s.dispatchEvent(new Event('input', {bubbles: true}));
  s.dispatchEvent(new Event('change', {bubbles: true}));
  return +s.value;
}""",
}


def language_sentences(seed: int):
    """Sentences of the models' own language (data.corpus, what they were trained on: the model
    says nothing about them but its attention), endlessly."""
    from data import corpus

    while True:
        for pair in corpus.generate(64, seed):
            yield pair.en
        seed += 1


# where the students' sentences come from, the same on both paths: "language", the models' own
# (a lesson's sentences); "free", bench/load.py's (mostly words the models never saw: the page
# warns about each, and the warning, the server's, differs from sentence to sentence)
TEXTS = {"language": language_sentences, "free": sentences}


def _rerun(text: str, page: str, model: str) -> bytes:
    """A rerun whose link carries the sentence and the model (as bench/load.py's students send it)."""
    from urllib.parse import urlencode

    from streamlit.proto.BackMsg_pb2 import BackMsg

    m = BackMsg()
    m.rerun_script.query_string = urlencode({"model": model, "text": text})
    m.rerun_script.page_name = page
    return m.SerializeToString()


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_seconds(proc) -> float:
    """User + system CPU seconds of a psutil.Process and its children (finished ones included)."""
    t = proc.cpu_times()
    return t.user + t.system + t.children_user + t.children_system


def _size(item) -> int:
    """Bytes a release sent: a websocket message, or a POST's body."""
    return len(item["body"]) if isinstance(item, dict) else len(item)


REPORT_QUIET_MS = 400  # after a release's first answer: the view's report (REPORT_MS 350) would come in this


def released_views(frames: list[bytes]) -> list[bytes]:
    """The rerun messages among frames a page sent (Streamlit's BackMsg rerun_script)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    out = []
    for data in frames:
        if not isinstance(data, (bytes, bytearray)):
            continue
        m = BackMsg()
        try:
            m.ParseFromString(bytes(data))
        except Exception:  # not a BackMsg
            continue
        if m.WhichOneof("type") == "rerun_script":
            out.append(bytes(data))
    return out


def record_releases(
    url: str, page_name: str, n: int, move: str = "view", timeout: float = 120, texts: str = "language"
) -> list[list[bytes]]:
    """n distinct released views, as the real page sends them from Chromium: the page opened at
    OPEN_TEXT[texts] (the GPT, whose graph the browser runs), then the move made and let go n times; each
    release's rerun messages, byte for byte. texts: where a typed sentence comes from (TEXTS)."""
    said = [s for s, _ in zip(TEXTS[texts](900), range(n))]
    from playwright.sync_api import sync_playwright

    from bench.views import Runs
    from drive.browser import goto, launch, reach_model, settle

    sent: list[bytes] = []
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            page.set_default_timeout(timeout * 1000)
            page.on("websocket", lambda ws: ws.on("framesent", lambda p: sent.append(p)))
            runs = Runs(page)
            goto(page, f"{url}/{page_name}?model=gpt&text={quote(OPEN_TEXT[texts])}", timeout=timeout)
            page.wait_for_function(
                "() => window.__attentionViews && window.__attentionViews.att_view"
                " && window.__attentionViews.att_view.frames.length > 0",
                timeout=timeout * 1000,
            )
            settle(page, timeout)
            if move == "type":  # the page's own model loaded, its box listened to (or the release says why not)
                try:
                    reach_model(page, "att_view")  # a student reaches for the box: the model loads
                    page.wait_for_function(
                        "() => window.__attentionViews.att_view.liveReady",
                        timeout=60_000,
                    )
                except Exception:  # noqa: BLE001
                    pass
            posts: list[dict] = []

            def posted(response) -> None:
                r = response.request
                if r.method == "POST" and r.url.split("?")[0].endswith("/" + said_route.ROUTE):
                    headers = r.headers
                    posts.append(
                        {
                            "post": r.url,
                            "status": response.status,
                            "body": r.post_data_buffer or b"",
                            "token": headers.get(said_route.HEADER.lower(), ""),
                        }
                    )

            page.on("response", posted)
            out = []
            for k in range(n):
                before, done, n_posts = len(sent), runs.finished, len(posts)
                page.evaluate(RELEASES[move], [k, said[k % len(said)]])
                deadline = time.perf_counter() + timeout
                while runs.finished <= done and len(posts) <= n_posts:  # a run finished, or the box's POST answered
                    if time.perf_counter() > deadline:
                        raise TimeoutError(f"release {k}: no run and no post within {timeout:.0f} s")
                    page.wait_for_timeout(5)
                page.wait_for_timeout(REPORT_QUIET_MS)  # anything else this release sends
                settle(page, timeout)
                got = [p for p in posts[n_posts:] if p["status"] == 204] + released_views(sent[before:])
                if not got:
                    raise RuntimeError(f"release {k} sent no rerun message and no post the server took")
                out.append(got)  # what this release sent: the post taken, or every rerun message, in order
            return out
        finally:
            browser.close()


async def _one_run(ws, data: bytes, timeout: float, seen: list | None = None) -> tuple[float, str | None]:
    """Send one message; (seconds to the run finished, the first exception drawn or None). A run
    that finished early for a rerun (a fragment's st.rerun(scope="app")) is followed by that rerun,
    waited for too. seen: a list that gets every message received, as bytes."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    t0 = time.perf_counter()
    await ws.send(data)
    problem = None
    while True:
        msg = ForwardMsg()
        raw = await asyncio.wait_for(ws.recv(), timeout)
        if seen is not None:
            seen.append(raw)
        msg.ParseFromString(raw)
        if shows_exception(msg) and problem is None:
            e = msg.delta.new_element.exception
            problem = f"{e.type}: {e.message}"[:300]
        if msg.WhichOneof("type") == "script_finished":
            if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                continue  # a fragment that asked for the whole app (the sentence box): that run follows
            done = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
            if msg.script_finished not in done and problem is None:
                problem = f"run finished with {msg.script_finished}"
            return time.perf_counter() - t0, problem


TOKEN = re.compile(rb'data-said-token="([A-Za-z0-9_-]{16,64})"')  # ui/said.py's marker() in a page run


async def _post(host: str, path: str, token: str, text: str, timeout: float) -> int:
    """One POST of a sentence to the box's route (ui/said.py): the status. A connection of its own,
    as a browser opens one for it: a student's next sentence comes 10 s later, and the server
    (uvicorn) closes a connection idle for 5 s."""
    hostname, port = host.rsplit(":", 1)
    reader, writer = await asyncio.wait_for(asyncio.open_connection(hostname, int(port)), timeout)
    body = text.encode("utf-8")
    writer.write(
        (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\n{said_route.HEADER}: {token}\r\n"
            f"Content-Type: text/plain;charset=UTF-8\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode("ascii")
        + body
    )
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    status = int(head.split(b" ", 2)[1])
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    if length and int(length.group(1)):
        await asyncio.wait_for(reader.readexactly(int(length.group(1))), timeout)
    writer.close()
    return status


async def _class(
    url: str,
    page_name: str,
    students: int,
    seconds: float,
    interval: float,
    path: str,
    releases,
    proc,
    timeout,
    texts: str = "language",
):
    """Every student opens the page (a warm-up run, not counted), then every `interval` seconds (a
    random phase each) sends its next sentence: a rerun with it (server path) or the next released
    view (browser path). CPU is read from the moment every student has opened the page."""
    import websockets

    uri = url.replace("http://", "ws://") + "/_stcore/stream"
    times: list[float] = []
    errors: list[str] = []
    opened = asyncio.Event()
    n_open = [0]
    window: dict = {}

    refused = [0]
    host = url.split("://", 1)[1]

    async def student(i: int, ws):
        rng = random.Random(7000 + i)
        said = TEXTS[texts](500 + i)
        first: list[bytes] = []
        _, problem = await _one_run(ws, _rerun(OPEN_TEXT[texts], page_name, "gpt"), timeout * 3, first)
        if problem:
            errors.append(f"student {i}, opening the page: {problem}")
        token = next((m.group(1).decode() for raw in first for m in [TOKEN.search(raw)] if m), None)
        if path == "browser" and token is None and any(isinstance(x, dict) for r in releases for x in r):
            errors.append(f"student {i}: its page run carried no token for the box's route")
        n_open[0] += 1
        if n_open[0] == students:
            window["cpu0"], window["t0"] = cpu_seconds(proc), time.perf_counter()
            window["stop"] = time.monotonic() + seconds
            opened.set()
        await opened.wait()
        await asyncio.sleep(rng.uniform(0, interval))
        k = i  # each student starts at another recorded release
        if path == "idle":  # connected, the page open, nothing sent: what the open websockets cost
            await asyncio.sleep(max(0.0, window["stop"] - time.monotonic()))
        while path != "idle" and time.monotonic() < window["stop"]:
            t_next = time.monotonic() + interval
            sent = [_rerun(next(said), page_name, "gpt")] if path == "server" else releases[k % len(releases)]
            k += 1
            try:
                total = 0.0
                for data in sent:
                    if isinstance(data, dict):  # the box's POST, with this student's token and next sentence
                        text, t0 = next(said), time.perf_counter()
                        status = await _post(host, data["path"], token or "", text, timeout)
                        total += time.perf_counter() - t0
                        if status == 409:  # the page must draw it: applied by a page run, as the page does
                            refused[0] += 1
                            s, problem = await _one_run(ws, _rerun(text, page_name, "gpt"), timeout)
                            total += s
                        elif status != 204:
                            problem = f"the box's route answered {status}"
                    else:
                        s, problem = await _one_run(ws, data, timeout)
                        total += s
                    if problem:
                        errors.append(f"student {i}: {problem}")
                times.append(total)
            except TimeoutError:
                errors.append(f"student {i}: no answer within {timeout} s")
            await asyncio.sleep(max(0.0, t_next - time.monotonic()))

    async def connected(i: int):
        async with websockets.connect(
            uri, subprotocols=["streamlit"], origin=url, max_size=None, open_timeout=timeout
        ) as ws:
            await student(i, ws)

    await asyncio.gather(*(connected(i) for i in range(students)))
    wall = time.perf_counter() - window["t0"]
    return times, errors, cpu_seconds(proc) - window["cpu0"], wall, refused[0]


def measure(
    students: int = 60,
    interval: float = 10.0,
    seconds: float = 60.0,
    page: str = "attention",
    releases: int = 6,
    move: str = "view",
    timeout: float = 120,
    log=print,
    texts: str = "language",
) -> dict:
    """Both paths on one server; the figures of each and the browser / server ratio. texts: where
    the students' sentences come from, the same on both paths (TEXTS)."""
    import psutil

    env = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    # as production starts it (ui.serve: the box's route, ui/said.py), one torch thread (AppServer)
    server = AppServer(env=env, log=SCREENSHOTS / "bench-class-cpu.log", preload=True).start()
    rows = {}
    try:
        proc = psutil.Process(server.proc.pid)
        log(f"  recording {releases} released views ({move}) from Chromium on /{page} ... load {load()}")
        recorded = record_releases(server.url, page, releases, move, timeout, texts)
        for r in recorded:  # a post's address as this server's route has it (the path alone)
            for x in r:
                if isinstance(x, dict):
                    x["path"] = "/" + x["post"].split("://", 1)[1].split("/", 1)[1].split("?")[0]
        sizes = [_size(m) for r in recorded for m in r]
        log(f"  recorded {len(recorded)} releases, {len(sizes)} messages of {min(sizes)}-{max(sizes)} bytes")
        for path in ("server", "browser", "idle"):
            l0 = load()
            times, errors, cpu, wall, refused = asyncio.run(
                _class(server.url, page, students, seconds, interval, path, recorded, proc, timeout, texts)
            )
            rows[path] = {
                "path": path,
                "sentences": len(times),
                "cpu_s": cpu,
                "wall_s": wall,
                "cpu_per_sentence_s": cpu / len(times) if times else None,
                "cores": cpu / wall,
                "p50_s": statistics.median(times) if times else None,
                "p95_s": pct(times, 95) if times else None,
                "errors": len(errors),
                "error_examples": errors[:3],
                "refused": refused,  # sentences the box's route sent back to a page run (409)
                "load_before": l0,
                "load_after": load(),
            }
            r = rows[path]
            log(
                f"  {path} path: {r['sentences']} sentences in {wall:.0f} s, server CPU {cpu:.2f} s "
                f"({r['cpu_per_sentence_s'] or 0:.4f} s a sentence, {r['cores']:.3f} of a core), p50 "
                f"{r['p50_s'] or 0:.3f} s, p95 {r['p95_s'] or 0:.3f} s, {r['errors']} errors {errors[:2]}, "
                f"{refused} posts refused; "
                f"load {l0} -> {r['load_after']}"
            )
    finally:
        server.stop()
    s, b, idle = rows["server"], rows["browser"], rows["idle"]
    ratio = above_idle = None
    if s["cpu_per_sentence_s"] and b["cpu_per_sentence_s"] is not None:
        ratio = b["cpu_per_sentence_s"] / s["cpu_per_sentence_s"]
        # the same students' open websockets alone, for as long, taken off both
        spare = [(r["cpu_s"] - idle["cores"] * r["wall_s"]) / r["sentences"] for r in (s, b)]
        above_idle = spare[1] / spare[0] if spare[0] > 0 else None
    return {
        "students": students,
        "interval_s": interval,
        "seconds": seconds,
        "page": page,
        "move": move,
        "texts": texts,
        "release_bytes": [sum(_size(m) for m in r) for r in recorded],
        "recorded": recorded,
        "server": s,
        "browser": b,
        "idle": idle,
        "ratio": ratio,
        "ratio_above_idle": above_idle,
    }


TARGET = 0.1  # issue 48: the browser path costs the server at most 1/10 of the server path


def table(result: dict) -> str:
    out = [
        "| path | sentences | server CPU | CPU a sentence | share of a core | p50 | p95 | errors | page runs for a refused post | load before → after |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key in ("server", "browser", "idle"):
        r = result[key]

        def ms(x, digits=0):
            return "–" if x is None else f"{x * 1000:.{digits}f} ms"

        out.append(
            f"| {key} | {r['sentences']} | {r['cpu_s']:.2f} s | {ms(r['cpu_per_sentence_s'], 1)} | "
            f"{r['cores']:.3f} | {ms(r['p50_s'])} | {ms(r['p95_s'])} | "
            f"{r['errors']} | {r.get('refused', 0)} | {r['load_before']} → {r['load_after']} |"
        )
    ratio, above = result["ratio"], result.get("ratio_above_idle")
    out.append("")
    out.append(
        f"browser / server CPU a sentence: {'–' if ratio is None else f'{ratio:.3f}'} "
        f"(target ≤ {TARGET:g}: {'met' if ratio is not None and ratio <= TARGET else 'not met'}); "
        f"with the idle websockets' CPU taken off both: {'–' if above is None else f'{above:.3f}'}"
    )
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m bench.class_cpu", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--students", type=int, default=60)
    ap.add_argument("--interval", type=float, default=10.0, help="seconds between a student's sentences")
    ap.add_argument("--seconds", type=float, default=60.0, help="each path's run")
    ap.add_argument("--page", default="attention")
    ap.add_argument("--releases", type=int, default=6, help="distinct released views recorded")
    ap.add_argument("--move", default="view", choices=sorted(RELEASES))
    ap.add_argument("--texts", default="language", choices=sorted(TEXTS), help="the students' sentences, both paths")
    a = ap.parse_args(argv)
    print(f"load average at start {load()}", flush=True)
    result = measure(a.students, a.interval, a.seconds, a.page, a.releases, a.move, texts=a.texts)
    print()
    print(table(result))
    return result


if __name__ == "__main__":
    main()
