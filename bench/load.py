"""A class on one server: N simulated students, each on its own websocket session (Streamlit's own
protocol, as the browser speaks it), each submitting a new sentence every 2-4 s.

A student's time = from sending the rerun (the new sentence, as the browser sends a changed link)
to the server's "script finished": the model run, the page's layout and every chart's bytes
received. The browser's drawing comes on top and is not in these figures (bench/views.py times
a page from submit to drawn). Server RSS is sampled once a second.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from urllib.parse import quote

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from drive.server import ROOT, SCREENSHOTS, AppServer, has_trained_weights

SUBJECTS = (
    "the cat|the dog|a small bird|my teacher|the old man|a child|the farmer|her brother|our class|the robot".split("|")
)
VERBS = "sees|likes|chases|reads|finds|helps|draws|follows|watches|calls".split("|")
OBJECTS = "the red ball|a long book|the mouse|the big tree|a new friend|the river|the moon|a green apple|the house|the train".split(
    "|"
)
PLACES = "in the park|at school|near the river|after lunch|every morning|on the mat|in the rain|at night|by the door|today".split(
    "|"
)


def sentences(seed: int):
    rng = random.Random(seed)
    while True:
        yield f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(PLACES)}"


def _rerun(text: str, page: str) -> bytes:
    m = BackMsg()
    m.rerun_script.query_string = f"text={quote(text)}"
    m.rerun_script.page_name = page
    return m.SerializeToString()


def shows_exception(msg: ForwardMsg) -> bool:
    """Whether a message from the server draws an exception box on the page."""
    return (
        msg.WhichOneof("type") == "delta"
        and msg.delta.WhichOneof("type") == "new_element"
        and msg.delta.new_element.WhichOneof("type") == "exception"
    )


async def _run_once(ws, text: str, page: str, timeout: float) -> tuple[float, int, bool]:
    """(seconds, bytes received, ok) for one rerun."""
    t0 = time.perf_counter()
    await ws.send(_rerun(text, page))
    received, ok = 0, True
    while True:
        data = await asyncio.wait_for(ws.recv(), timeout)
        received += len(data)
        msg = ForwardMsg()
        msg.ParseFromString(data)
        kind = msg.WhichOneof("type")
        if shows_exception(msg):
            ok = False
        if kind == "script_finished":
            if msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                return time.perf_counter() - t0, received, ok
            if msg.script_finished in (ForwardMsg.FINISHED_WITH_COMPILE_ERROR,):
                return time.perf_counter() - t0, received, False


async def _student(i, server, page, stop_at, interval, times, errors, timeout, headers=None):
    import websockets

    rng = random.Random(1000 + i)
    texts = sentences(i)
    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    await asyncio.sleep(rng.uniform(0, interval[1]))  # students do not all start at once
    async with websockets.connect(
        uri,
        subprotocols=["streamlit"],
        origin=server.url,
        max_size=None,
        open_timeout=timeout,
        additional_headers=headers(i) if headers else None,
    ) as ws:
        try:
            await _run_once(ws, next(texts), page, timeout)  # opening the link
        except TimeoutError:  # the class's first page never came (bench.attacks' crowd on the old slots)
            errors.append(f"student {i}: the first page did not come within {timeout} s")
            times.append(float(timeout))
            return
        while time.monotonic() < stop_at:
            await asyncio.sleep(rng.uniform(*interval))
            try:
                s, _, ok = await _run_once(ws, next(texts), page, timeout)
                times.append(s)
                if not ok:
                    errors.append(f"student {i}: an exception was drawn")
            except TimeoutError:
                errors.append(f"student {i}: no answer within {timeout} s")
                times.append(float(timeout))


async def _class(server, n, seconds, page, interval, timeout, headers=None):
    """n students on page for seconds; headers(i): student i's request headers (its address
    through the proxy, its browser's cookie), else none."""
    times, errors, rss = [], [], []
    stop_at = time.monotonic() + seconds

    async def sample():
        while time.monotonic() < stop_at + 5:
            rss.append(server.rss_bytes())
            await asyncio.sleep(1)

    sampler = asyncio.create_task(sample())
    await asyncio.gather(
        *(_student(i, server, page, stop_at, interval, times, errors, timeout, headers) for i in range(n)),
        return_exceptions=False,
    )
    sampler.cancel()
    return times, errors, rss


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))]


def run(classes=(1, 10, 30), seconds=60, page="", interval=(2.0, 4.0), timeout=60, log=print) -> list[dict]:
    env = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    rows = []
    for n in classes:
        server = AppServer(env=env, log=SCREENSHOTS / f"bench-load-{n}.log").start()
        try:
            # one warm-up visit loads the model, as the teacher's own first visit would
            asyncio.run(_class(server, 1, 1, page, (0.0, 0.1), timeout * 3))
            rss0 = server.rss_bytes()
            times, errors, rss = asyncio.run(_class(server, n, seconds, page, interval, timeout))
        finally:
            server.stop()
        row = _row(n, times, errors, rss0 / 1e6, max(rss) / 1e6 if rss else None)
        log(
            f"  load {n} students, {seconds} s: {len(times)} requests, p50 {row['p50_s']:.2f} s, "
            f"p95 {row['p95_s']:.2f} s, RSS {row['rss_start_mb']:.0f} -> {row['rss_max_mb']:.0f} MB, "
            f"{len(errors)} errors {errors[:2]}"
        )
        rows.append(row)
    return rows


def _row(n: int, times: list[float], errors: list, rss_start_mb, rss_max_mb) -> dict:
    """One class's figures: requests, p50 / p95 / max seconds, the server's memory, errors."""
    return {
        "students": n,
        "requests": len(times),
        "p50_s": statistics.median(times) if times else None,
        "p95_s": pct(times, 95) if times else None,
        "max_s": max(times) if times else None,
        "rss_start_mb": rss_start_mb,
        "rss_max_mb": rss_max_mb,
        "errors": len(errors),
        "weights": "trained" if (ROOT / "model/weights/translator.safetensors").exists() else "random",
    }


class _Remote:
    """A server this bench did not start (e.g. nginx in front of replicas): no RSS to read."""

    def __init__(self, url: str):
        self.url = url.rstrip("/")

    def rss_bytes(self) -> int:
        return 0


def run_url(url: str, n: int, seconds: int = 60, page: str = "", interval=(2.0, 4.0), timeout=60, log=print) -> dict:
    """One class of n students against a running server or proxy at url."""
    server = _Remote(url)
    asyncio.run(_class(server, 1, 1, page, (0.0, 0.1), timeout * 3))
    times, errors, _ = asyncio.run(_class(server, n, seconds, page, interval, timeout))
    row = {**_row(n, times, errors, None, None), "url": url}
    log(
        f"  load {n} students via {url}, {seconds} s: {len(times)} requests, p50 {row['p50_s']:.2f} s, "
        f"p95 {row['p95_s']:.2f} s, {len(errors)} errors {errors[:2]}"
    )
    return row


if __name__ == "__main__":
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m bench.load")
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--url", help="a running server or proxy (default: start one)")
    a = ap.parse_args()
    rows = [run_url(a.url, a.students, a.seconds)] if a.url else run((a.students,), a.seconds)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f)
