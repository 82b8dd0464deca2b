"""Server CPU per request, and memory over a long run, with Streamlit's settings as arguments.

    .venv/bin/python -m bench.server_cpu [--pages home,attention] [--sessions 1,8] [--requests 200]
        [--gc on,off] [--long 2000]

For each page x number of sessions x `runner.postScriptGC` setting, a fresh server (the real
app.py) is started; each session (a websocket speaking Streamlit's protocol, as bench/load.py)
sends distinct new sentences back to back; the figures are the server process's CPU seconds
(user + system, from /proc) per request, the latency of each request, and its RSS. `--long N`
adds one run per GC setting of N distinct sentences on the home page from 4 sessions, reporting
RSS at the start, every 500 requests and at the end (the trace cache holds 200 entries, so memory
should level off).

The settings are interleaved (on, off, on, off ...) so a machine whose load changes during the
run treats both alike; compare the ratios within one run, not absolute figures across runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import _rerun, pct, sentences, shows_exception  # noqa: E402
from drive.server import SCREENSHOTS, AppServer, has_trained_weights  # noqa: E402

CLK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its finished children, in seconds (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def distinct_sentences(n: int, seed: int = 0) -> list[str]:
    seen, out = set(), []
    for s in sentences(seed):
        if s not in seen:
            seen.add(s)
            out.append(s)
            if len(out) == n:
                return out
    return out


async def _ask(ws, text: str, page: str, timeout: float = 120) -> tuple[float, bool]:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    t0 = time.perf_counter()
    await ws.send(_rerun(text, page))
    ok = True
    while True:
        msg = ForwardMsg()
        msg.ParseFromString(await asyncio.wait_for(ws.recv(), timeout))
        kind = msg.WhichOneof("type")
        if shows_exception(msg):
            ok = False
        if kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            return time.perf_counter() - t0, ok and msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY


async def _sessions(server: AppServer, page: str, texts: list[str], sessions: int, on_done=None):
    """Each session works through its share of texts back to back; returns (latencies, errors)."""
    import websockets

    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    times, errors = [], []
    done = [0]

    async def one(i):
        async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
            for text in texts[i::sessions]:
                s, ok = await _ask(ws, text, page)
                times.append(s)
                errors.extend([] if ok else [text])
                done[0] += 1
                if on_done:
                    on_done(done[0])

    await asyncio.gather(*(one(i) for i in range(sessions)))
    return times, errors


def measure(page: str, sessions: int, requests: int, gc: bool, seed: int, log=print) -> dict:
    env = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    server = AppServer(
        env=env,
        args=["--runner.postScriptGC", "true" if gc else "false"],
        log=SCREENSHOTS / f"bench-cpu-{page or 'home'}.log",
    ).start()
    try:
        # warm-up: the models load and every import happens, as the teacher's first visit
        warm = distinct_sentences(2 * sessions, seed=10_000 + seed)
        asyncio.run(_sessions(server, page, warm, sessions))
        texts = distinct_sentences(requests, seed=seed)
        rss0, cpu0, t0 = server.rss_bytes(), cpu_seconds(server.proc.pid), time.perf_counter()
        times, errors = asyncio.run(_sessions(server, page, texts, sessions))
        wall, cpu = time.perf_counter() - t0, cpu_seconds(server.proc.pid) - cpu0
        row = {
            "page": page or "home",
            "sessions": sessions,
            "gc": gc,
            "requests": len(times),
            "cpu_per_request_s": cpu / len(times),
            "p50_s": statistics.median(times),
            "p95_s": pct(times, 95),
            "throughput_per_s": len(times) / wall,
            "rss_start_mb": rss0 / 1e6,
            "rss_end_mb": server.rss_bytes() / 1e6,
            "errors": len(errors),
        }
    finally:
        server.stop()
    log(
        f"  {row['page']:<12} sessions {sessions:>2} postScriptGC {'on ' if gc else 'off'}: "
        f"CPU/request {row['cpu_per_request_s']:.3f} s, p50 {row['p50_s']:.2f} s, p95 {row['p95_s']:.2f} s, "
        f"{row['throughput_per_s']:.1f} req/s, RSS {row['rss_start_mb']:.0f} -> {row['rss_end_mb']:.0f} MB, "
        f"{row['errors']} errors"
    )
    return row


def long_run(n: int, gc: bool, sessions: int = 4, log=print) -> dict:
    env = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    server = AppServer(
        env=env, args=["--runner.postScriptGC", "true" if gc else "false"], log=SCREENSHOTS / "bench-cpu-long.log"
    ).start()
    marks = {}
    try:
        asyncio.run(_sessions(server, "", distinct_sentences(8, seed=99), sessions))
        rss0, cpu0, t0 = server.rss_bytes(), cpu_seconds(server.proc.pid), time.perf_counter()

        def on_done(k):
            if k % 500 == 0:
                marks[k] = server.rss_bytes() / 1e6

        times, errors = asyncio.run(_sessions(server, "", distinct_sentences(n, seed=7), sessions, on_done))
        cpu, wall = cpu_seconds(server.proc.pid) - cpu0, time.perf_counter() - t0
        row = {
            "gc": gc,
            "requests": len(times),
            "rss_start_mb": rss0 / 1e6,
            "rss_marks_mb": marks,
            "rss_end_mb": server.rss_bytes() / 1e6,
            "cpu_per_request_s": cpu / len(times),
            "p50_s": statistics.median(times),
            "p95_s": pct(times, 95),
            "wall_s": wall,
            "errors": len(errors),
        }
    finally:
        server.stop()
    log(
        f"  long run, {n} distinct sentences, postScriptGC {'on ' if gc else 'off'}: RSS {row['rss_start_mb']:.0f} -> "
        + " -> ".join(f"{v:.0f}" for v in marks.values())
        + f" -> {row['rss_end_mb']:.0f} MB "
        f"(+{row['rss_end_mb'] - row['rss_start_mb']:.0f} MB), CPU/request {row['cpu_per_request_s']:.3f} s, "
        f"p50 {row['p50_s']:.2f} s, {row['errors']} errors, {wall:.0f} s"
    )
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m bench.server_cpu", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--pages",
        default="home,attention,temperature,steps",
        help="url paths, comma-separated (home = the default page)",
    )
    ap.add_argument("--sessions", default="1,8")
    ap.add_argument("--requests", type=int, default=120)
    ap.add_argument("--gc", default="on,off")
    ap.add_argument("--long", type=int, default=0, help="distinct sentences in the long run (0: none)")
    a = ap.parse_args(argv)
    print(f"load average at start {' / '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    gcs = [g.strip() == "on" for g in a.gc.split(",")]
    rows = []
    for page in [p.strip() for p in a.pages.split(",")]:
        for sessions in [int(s) for s in a.sessions.split(",")]:
            for gc in gcs:
                rows.append(measure("" if page == "home" else page, sessions, a.requests, gc, seed=len(rows)))
    longs = [long_run(a.long, gc) for gc in gcs] if a.long else []
    print(f"load average at the end {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return rows, longs


if __name__ == "__main__":
    main()
