"""Cookies the server sets, HttpOnly (issue 32): the teacher's secret must not be readable by a
script in the page. Streamlit has no call that sets a cookie, and a cookie written by a script
(document.cookie) cannot be HttpOnly. So `python -m ui.serve` adds one route of its own to
Streamlit's Starlette app before the server starts (install(), through ui/streamlit_internals.py:
Streamlit's route builder wrapped; nothing else changes): GET /_attn/cookie?n=NONCE
answers with the Set-Cookie header a session asked for (ask()), once, within NONCE_S seconds.
The page's script only fetches that address; the nonce is a random 192-bit, single-use capability,
held in this process (behind deploy/nginx.conf a browser keeps to one replica by its cookie).

Under a bare `streamlit run app.py` (the route is not there) ask() returns None and the caller
writes the cookie by script as before.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict

ROUTE = "_attn/cookie"
NONCE_S = 60  # a page's fetch comes within a second or two of the run that asked
MAX_PENDING = 10_000  # asked, not yet fetched (the oldest go): bounded whatever a client does
_PENDING: OrderedDict[str, tuple[str, float]] = OrderedDict()
_LOCK = threading.Lock()
STATE = {"installed": False}


def installed() -> bool:
    return STATE["installed"]


def ask(name: str, value: str, max_age: int, same_site: str = "Strict") -> str | None:
    """A nonce whose fetch sets the cookie name=value (HttpOnly, path /, max_age seconds; 0
    deletes it); None when this server has no cookie route. value: URL-safe characters only."""
    if not installed():
        return None
    header = f"{name}={value}; Path=/; Max-Age={int(max_age)}; SameSite={same_site}; HttpOnly"
    nonce = secrets.token_urlsafe(24)
    with _LOCK:
        _PENDING[nonce] = (header, time.monotonic() + NONCE_S)
        while len(_PENDING) > MAX_PENDING:
            _PENDING.popitem(last=False)
    return nonce


def take(nonce: str) -> str | None:
    """The Set-Cookie header asked under nonce (once), or None."""
    with _LOCK:
        got = _PENDING.pop(nonce, None)
    return got[0] if got and got[1] >= time.monotonic() else None


def path(base_url: str | None) -> str:
    base = (base_url or "").strip("/")
    return f"/{base}/{ROUTE}" if base else f"/{ROUTE}"


def _route(base_url: str | None):
    from starlette.responses import Response
    from starlette.routing import Route

    async def endpoint(request) -> Response:
        header = take(request.query_params.get("n", ""))
        if header is None:
            return Response(status_code=404, headers={"Cache-Control": "no-store"})
        proto = request.headers.get("x-forwarded-proto", request.url.scheme)
        secure = "; Secure" if proto == "https" else ""
        return Response(status_code=204, headers={"Set-Cookie": header + secure, "Cache-Control": "no-store"})

    return Route(path(base_url), endpoint, methods=["GET"])


def install() -> None:
    """The cookie route first among Streamlit's routes for every Starlette app this process builds
    (ui/streamlit_internals.py reaches the route builder). Call before Streamlit starts (ui.serve)."""
    from . import streamlit_internals

    if STATE["installed"]:
        return
    streamlit_internals.add_route_first(_route)
    STATE["installed"] = True
