"""A sentence applied from the sidebar's box without a rerun (issue 48: a class typing costs the
server a small fraction of a page run).

Where the page shown draws the box's sentence only in a view the reader's browser computes
(ui.run.sentence_in_browser: the attention page on our GPTs), a sentence typed there needs nothing
from the server but to be remembered: the link, the room's and the page's next run read it. A
Streamlit widget cannot hand the server a value without a rerun (leaving Streamlit's box commits
it, and every commit reruns at least the box's fragment: about a third of a page run's CPU,
measured). So `python -m ui.serve` adds one route of its own to Streamlit's Starlette app
(install(): a middleware first in its stack, answering one path), and the attention view, leaving the box, POSTs the sentence
there instead of letting Streamlit's box commit it:

    POST /_attn/said, header X-Attn-Said: TOKEN, body: the sentence (UTF-8)
      204  taken: the session's next run applies it (take()); the browser writes the link itself
      409  the page must draw it (more tokens than the view takes, a sentence the model says
           something else about than about the one shown: a warning is the server's): the
           browser lets Streamlit's box apply it, a page run as before
      404  no such token (another replica, a restart, a session gone); 413 a body over
           BODY_MAX bytes; 400 not UTF-8; 429 a second sentence within MIN_GAP_S

TOKEN is a random 192-bit capability a run writes into its own session's page (marker(), on the
sidebar's style element), so no other visitor can write into a session; a page run that draws the
sentence in the browser alone says what the route may take (offer(): the model's reading of the
sentence shown, compared with each one posted), and every other run withdraws it (withdraw()). The
records are bounded (MAX_SESSIONS, the oldest out) and each holds one sentence, applied by the
session's next run (take(), before the link is read: a link opened later still wins). Under a bare
`streamlit run app.py` (the route is not there) marker() is "" and the box applies sentences by its
own fragment's rerun, as before (ui/context.py's _applied).
"""

from __future__ import annotations

import html
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from .state import TEXT_READ_MAX  # longer is cut by the box, with a notice: a page run

ROUTE = "_attn/said"
HEADER = "X-Attn-Said"
BODY_MAX = 4 * TEXT_READ_MAX  # UTF-8: at most four bytes a character
MIN_GAP_S = 0.05  # a person leaves the box at most a few times a second; a script, faster, waits
MAX_SESSIONS = 10_000  # sessions that were offered the route (the oldest go): bounded whatever clients do
_TOKEN_KEY = "_said_token"


@dataclass
class _Claim:
    """What one session's page last drew: alike(text) says whether a sentence can be drawn by the
    browser alone; said is the last sentence taken and not yet applied; at, when it came."""

    alike: Callable[[str], bool]
    said: str | None = None
    at: float = 0.0


_CLAIMS: OrderedDict[str, _Claim] = OrderedDict()
_LOCK = threading.Lock()
STATE = {"installed": False}


def installed() -> bool:
    return STATE["installed"]


def offer(ctx, max_tokens: int) -> None:
    """This run's page (Context ctx) draws the box's sentence only in the browser's view, for any
    sentence of at most max_tokens tokens: the route takes from this session the sentences the
    model reads as it reads the one shown (alike_to), until the next run withdraws it. Not for
    a room's teacher, whose run publishes the room's view."""
    if not installed():
        return
    from . import cache, classroom

    if classroom.is_teacher():
        withdraw()
        return
    try:
        runner = cache.runner(ctx.model, ctx.device)
        shown = read(ctx.model, ctx.device, ctx.text)
    except Exception:  # noqa: BLE001  (the page's run says why; the box applies by a run)
        withdraw()
        return
    _keep(_token(), alike_to(runner, shown, max_tokens))


def alike_to(runner, shown: tuple[int, tuple], max_tokens: int) -> Callable[[str], bool]:
    """The route's check for a page drawn for a sentence whose reading() is shown: True for a text
    of at most max_tokens tokens the model says the same about. Runs outside any script run (no
    session_state), on the runner the page used."""

    def alike(text: str) -> bool:
        try:
            return _same(shown, reading(runner, text), max_tokens)
        except Exception:  # noqa: BLE001  (a sentence with nothing to read: the page's hint)
            return False

    return alike


def _same(shown: tuple[int, tuple], new: tuple[int, tuple], max_tokens: int) -> bool:
    return new[0] <= max_tokens and new[1] == shown[1]


def _keep(token: str, alike: Callable[[str], bool]) -> None:
    """token's claim is alike now; a sentence posted before and not yet taken stays (the same
    record: a post checked meanwhile still lands in it)."""
    with _LOCK:
        claim = _CLAIMS.get(token)
        if claim is None:
            _CLAIMS[token] = _Claim(alike)
        else:
            claim.alike = alike
            _CLAIMS.move_to_end(token)
        while len(_CLAIMS) > MAX_SESSIONS:
            _CLAIMS.popitem(last=False)


def _token() -> str:
    token = st.session_state.get(_TOKEN_KEY)
    if not isinstance(token, str):
        token = st.session_state[_TOKEN_KEY] = secrets.token_urlsafe(24)
    return token


def marker() -> str:
    """Attributes for an element the page keeps (the sidebar's style): where the view posts a
    sentence and this session's token; "" without the route."""
    if not installed():
        return ""
    url = html.escape(path(st.get_option("server.baseUrlPath")), quote=True)
    return f' data-said-url="{url}" data-said-token="{_token()}"'


def reading(runner, text: str) -> tuple[int, tuple]:
    """(tokens, what the model says about text: its notices with their parameters), as the trace
    reads text (cleaned, tokenized, parsed by the corpus grammar; never run through the model);
    InputError for a sentence with nothing to read."""
    from model.runner import clean_text

    clean_text(text)
    _, ids, notes = runner.prompt_ids(text)
    return len(ids), tuple((str(n), repr(getattr(n, "params", None))) for n in notes)


def read(name: str, device: str, text: str) -> tuple[int, tuple]:
    """reading() of model NAME, kept in this session for its last two sentences: a sentence
    applied is read once, and compared again as the one shown."""
    from . import cache

    kept = st.session_state.setdefault("_sentence_reads", {})
    key = (name, device, text)
    if key in kept:
        kept[key] = kept.pop(key)  # the newest read now (the one shown stays while sentences come)
    else:
        kept[key] = reading(cache.runner(name, device), text)
        while len(kept) > 2:
            kept.pop(next(iter(kept)))
    return kept[key]


def reads_alike(ctx, text: str, max_tokens: int) -> bool:
    """Whether text has at most max_tokens tokens and the model says the same about it as about
    the sentence the page shows (its notices: words never seen, outside the language, cut), so what
    the page drew around the browser's view stays right."""
    try:
        return _same(read(ctx.model, ctx.device, ctx.text), read(ctx.model, ctx.device, text), max_tokens)
    except Exception:  # noqa: BLE001  (a sentence the model cannot read: the page's run says why)
        return False


def withdraw() -> None:
    """This session's page no longer draws the sentence in the browser alone: a sentence posted now
    is refused (409), and the box applies it by a run."""
    token = st.session_state.get(_TOKEN_KEY)
    if isinstance(token, str):
        with _LOCK:
            claim = _CLAIMS.get(token)
            if claim is not None:
                claim.alike = _never


def _never(_text: str) -> bool:
    return False


def take() -> str | None:
    """The sentence this session's view posted since its last run (once), or None."""
    token = st.session_state.get(_TOKEN_KEY)
    return _take(token) if isinstance(token, str) else None


def _take(token: str) -> str | None:
    with _LOCK:
        claim = _CLAIMS.get(token)
        if claim is None or claim.said is None:
            return None
        said, claim.said = claim.said, None
    return said


def post(token: str, body: bytes) -> int:
    """The route's answer to a POST (an HTTP status); see the module's docstring."""
    if len(body) > BODY_MAX:
        return 413
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return 400
    with _LOCK:
        claim = _CLAIMS.get(token)
        if claim is None:
            return 404
        now = time.monotonic()
        if now - claim.at < MIN_GAP_S:
            return 429
        claim.at = now
        check = claim.alike
    if len(text) > TEXT_READ_MAX or not check(text):
        return 409
    with _LOCK:
        if _CLAIMS.get(token) is claim:
            claim.said = text
    return 204


def path(base_url: str | None) -> str:
    base = (base_url or "").strip("/")
    return f"/{base}/{ROUTE}" if base else f"/{ROUTE}"


class _First:
    """The route as ASGI middleware, first inside Starlette's error handler: a POST to the route is
    answered here, before Streamlit's own middleware (path checks, sessions, compression) and its
    router, which it needs none of (measured: about a tenth of a post's CPU); everything else
    passes through untouched."""

    def __init__(self, app, path: str):
        self.app, self.path = app, path

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        status = await _answer(scope, receive) if scope["method"] == "POST" else 405
        headers = [(b"cache-control", b"no-store"), (b"content-length", b"0")]
        if status == 405:
            headers.append((b"allow", b"POST"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


async def _answer(scope, receive) -> int:
    """The status for one POST (its headers in scope, its body from receive): post()'s, or 404 /
    400 / 413 before the body is read where the headers already say so."""
    headers = dict(scope.get("headers") or ())
    token = headers.get(HEADER.lower().encode(), b"").decode("latin-1")
    if not token or len(token) > 64:
        return 404
    try:
        length = int(headers.get(b"content-length", b"0"))
    except ValueError:
        return 400
    if length > BODY_MAX:  # refused before a byte is read
        return 413
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return 400
        body += message.get("body", b"")
        if len(body) > BODY_MAX:  # a body longer than it said
            return 413
        if not message.get("more_body"):
            return post(token, body)


def install() -> None:
    """The route in every Starlette app this process builds (_First, the first of its middleware).
    Call before Streamlit starts (ui.serve)."""
    from . import streamlit_internals

    if STATE["installed"]:
        return
    streamlit_internals.add_middleware_first(lambda base_url: (_First, {"path": path(base_url)}))
    STATE["installed"] = True
