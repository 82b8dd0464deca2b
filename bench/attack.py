"""Issue 26: the class's response times with and without a visitor attacking the shared caches.

Six students (websocket clients, bench/load.py's) send a new sentence to the home page every
2 s; in the same run, two attacker tabs loop Streamlit's clear_cache message followed by a
timeline-page run (the attack of issue 26, item 2: before ui/hardening.py it took the class
from p95 0.48 s to 5.79 s). The attack phase and the quiet phase run on one server, one after
the other. Run: .venv/bin/python -m bench.attack [seconds]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from streamlit.proto.BackMsg_pb2 import BackMsg

from bench.load import _class, _run_once, pct
from tests.browser.helpers import SCREENSHOTS, AppServer, has_trained_weights


async def _attacker(server, stop_at, counts):
    import websockets

    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    clear = BackMsg()
    clear.clear_cache = True
    async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
        n = 0
        while time.monotonic() < stop_at:
            await ws.send(clear.SerializeToString())
            try:
                await _run_once(ws, f"The dog sees the moon {n}", "timeline", 60)
            except TimeoutError:
                pass
            n += 1
        counts.append(n)


async def _phase(server, seconds, attackers):
    stop_at = time.monotonic() + seconds
    counts: list[int] = []
    attacks = [asyncio.create_task(_attacker(server, stop_at, counts)) for _ in range(attackers)]
    times, errors, rss = await _class(server, 6, seconds, "", (2.0, 2.0), 60)
    await asyncio.gather(*attacks)
    return times, errors, rss, sum(counts)


def main(seconds: int = 40) -> None:
    env = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    server = AppServer(env=env, log=SCREENSHOTS / "bench-attack.log").start()
    try:
        asyncio.run(_class(server, 1, 1, "", (0.0, 0.1), 180))  # the models loaded, as before a class
        for phase, attackers in (("quiet", 0), ("two attackers", 2)):
            times, errors, rss, attacks = asyncio.run(_phase(server, seconds, attackers))
            print(
                f"{phase}: 6 students, {seconds} s, {len(times)} sentences, p50 {statistics.median(times):.2f} s, "
                f"p95 {pct(times, 95):.2f} s, max {max(times):.2f} s, attacker loops {attacks}, "
                f"RSS max {max(rss) / 2**20:.0f} MB, errors {len(errors)}"
            )
        print("clear_cache refused in the log:", server.log_tail(2000).count("refused a clear_cache message"))
    finally:
        server.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
