"""Checks that sessions stick when two replicas run behind deploy/nginx.conf (bench/replicas.sh
starts them and runs this with the proxy's address).

1. plain HTTP: each client (its own cookie jar) is always answered by one replica; different
   clients are spread over both;
2. the websocket (Streamlit's /_stcore/stream) is upgraded through the proxy and runs the app;
3. real browsers: every response a browser gets (page, scripts, websocket's session, the CSV
   download that exists only in the memory of the replica that ran the script) comes from one
   replica, and the download works.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import sys
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from drive.browser import VIEWPORT, exceptions, goto, launch  # noqa: E402


def http_clients(base: str, clients: int = 12, requests: int = 6) -> list[set]:
    seen = []
    for _ in range(clients):
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        replicas = set()
        for path in ["/"] + ["/_stcore/health", "/_stcore/host-config", "/"] * (requests // 3):
            with opener.open(base + path, timeout=30) as r:
                replicas.add(r.headers.get("X-Replica"))
        seen.append(replicas)
    return seen


async def websocket_run(base: str, cookie: str) -> bool:
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    uri = base.replace("http://", "ws://") + "/_stcore/stream"
    async with websockets.connect(
        uri, subprotocols=["streamlit"], origin=base, max_size=None, additional_headers={"Cookie": cookie}
    ) as ws:
        m = BackMsg()
        m.rerun_script.query_string = "text=The%20cat%20sat%20on%20the%20mat"
        await ws.send(m.SerializeToString())
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await asyncio.wait_for(ws.recv(), 120))
            if msg.WhichOneof("type") == "script_finished":
                return msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY


def browsers(base: str, n: int = 4) -> list[dict]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw:
        browser = launch(pw)
        for _ in range(n):
            ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
            page = ctx.new_page()
            replicas = Counter()
            page.on("response", lambda r: replicas.update([r.headers.get("x-replica")]))
            goto(page, base)
            button = page.locator("[data-testid='stMain'] [data-testid='stDownloadButton'] button").first
            with page.expect_download() as d:
                button.click()
            csv = open(d.value.path(), "rb").read()
            out.append(
                {
                    "replicas": dict(replicas),
                    "exceptions": exceptions(page),
                    "csv_rows": csv.count(b"\n"),
                    "csv_failed": d.value.failure(),
                }
            )
            ctx.close()
        browser.close()
    return out


def main(base: str) -> int:
    ok = True
    seen = http_clients(base)
    per_client = [len(s) for s in seen]
    spread = set().union(*seen)
    print(f"HTTP: {len(seen)} clients; replicas per client {per_client}; replicas used {sorted(spread)}")
    if any(n != 1 for n in per_client):
        print("FAIL: a client was answered by more than one replica")
        ok = False
    if len(spread) < 2:
        print("FAIL: every client went to the same replica (no spreading)")
        ok = False
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar := http.cookiejar.CookieJar()))
    opener.open(base + "/", timeout=30).read()
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    ws_ok = asyncio.run(websocket_run(base, cookie))
    print(f"websocket through the proxy (cookie {cookie.split('=')[0]}): script finished {'ok' if ws_ok else 'FAILED'}")
    ok &= ws_ok
    for i, b in enumerate(browsers(base)):
        replicas = {k: v for k, v in b["replicas"].items() if k}
        good = len(replicas) == 1 and not b["exceptions"] and b["csv_failed"] is None and b["csv_rows"] > 1
        print(
            f"browser {i}: responses by replica {replicas}, CSV download "
            f"{'ok (%d lines)' % b['csv_rows'] if b['csv_failed'] is None else b['csv_failed']}"
            f"{', exception shown' if b['exceptions'] else ''}: {'ok' if good else 'FAIL'}"
        )
        ok &= good
    print("sessions stick: " + ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
