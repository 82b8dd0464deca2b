"""ui/said.py, the box's route (issue 48): a sentence the reader's browser draws, taken without a
rerun. The route is driven as Starlette serves it (its ASGI app, the request's bytes in chunks);
its check against the real GPT's reading of a sentence (model/runner.py's prompt_ids, the oracle:
the notices a page run would draw). tests/browser/test_sentence_posted.py drives it from the page."""

from __future__ import annotations

import asyncio

import pytest

from ui import cache, said

TOKEN = "t" * 32


@pytest.fixture(autouse=True)
def fresh_claims():
    kept = dict(said._CLAIMS)
    said._CLAIMS.clear()
    yield
    said._CLAIMS.clear()
    said._CLAIMS.update(kept)


def call(body: bytes, token: str | None = TOKEN, method: str = "POST", length: int | None = None, chunk: int = 1024):
    """(status, headers) of one request to the route, its body sent in chunks of `chunk` bytes."""

    async def streamlit(scope, receive, send):  # what every other request reaches
        raise AssertionError(f"the route's request went on to Streamlit: {scope['path']}")

    route = said._First(streamlit, said.path(None))
    headers = [(b"content-type", b"text/plain;charset=UTF-8")]
    if token is not None:
        headers.append((said.HEADER.lower().encode(), token.encode()))
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    scope = {"type": "http", "method": method, "path": "/" + said.ROUTE, "headers": headers, "query_string": b""}
    parts = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    incoming = [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)]
    sent = []

    async def receive():
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(route(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], dict(start["headers"])


def test_a_sentence_the_page_can_leave_to_the_browser_is_taken_once():
    said._keep(TOKEN, lambda text: True)
    status, headers = call(b"The mouse hid under the table")
    assert status == 204 and headers[b"cache-control"] == b"no-store"
    assert said._take(TOKEN) == "The mouse hid under the table"
    assert said._take(TOKEN) is None  # applied once
    # a later page run keeps a sentence posted and not yet taken
    said._CLAIMS[TOKEN].at = 0.0
    assert call("狗咬人 🐕\u200b<b>x</b>".encode())[0] == 204
    said._keep(TOKEN, lambda text: True)
    assert said._take(TOKEN) == "狗咬人 🐕\u200b<b>x</b>"


@pytest.mark.parametrize(
    "case, status",
    [
        ("no token", 404),
        ("another token", 404),
        ("a token too long", 404),
        ("the page draws it", 409),
        ("withdrawn", 409),
        ("longer than the box takes", 409),
        ("not UTF-8", 400),
        ("over the bound, said", 413),
        ("over the bound, unsaid", 413),
        ("GET", 405),
        ("two at once", 429),
    ],
)
def test_every_other_request_is_refused_and_takes_nothing(case, status):
    said._keep(TOKEN, lambda text: "warned" not in text)
    body, kwargs = b"The cat sat", {}
    if case == "no token":
        kwargs["token"] = None
    elif case == "another token":
        kwargs["token"] = "u" * 32
    elif case == "a token too long":
        kwargs["token"] = TOKEN * 3
    elif case == "the page draws it":
        body = b"a warned sentence"
    elif case == "withdrawn":
        said._CLAIMS[TOKEN].alike = said._never
    elif case == "longer than the box takes":
        body = "狗" * (said.TEXT_READ_MAX + 1)  # within BODY_MAX bytes, past the box's characters
        body = body.encode()
        assert len(body) <= said.BODY_MAX
    elif case == "not UTF-8":
        body = b"\xff\xfe cat"
    elif case == "over the bound, said":
        body, kwargs["length"] = b"x" * (said.BODY_MAX + 1), said.BODY_MAX + 1
    elif case == "over the bound, unsaid":  # no Content-Length: the body is counted as it comes
        body = b"x" * (said.BODY_MAX * 3)
    elif case == "GET":
        kwargs["method"] = "GET"
    elif case == "two at once":
        assert call(b"The dog ran")[0] == 204
        said._take(TOKEN)
    assert call(body, **kwargs)[0] == status
    assert said._take(TOKEN) is None


def test_every_other_path_passes_through_untouched():
    passed = []

    async def streamlit(scope, receive, send):
        passed.append(scope["path"])

    route = said._First(streamlit, "/explorer/_attn/said")  # served under a prefix
    for p in ("/_attn/said", "/explorer/_attn/saidx", "/_stcore/health"):
        asyncio.run(route({"type": "http", "method": "POST", "path": p, "headers": []}, None, None))
    asyncio.run(route({"type": "websocket", "path": "/explorer/_attn/said"}, None, None))
    assert passed == ["/_attn/said", "/explorer/_attn/saidx", "/_stcore/health", "/explorer/_attn/said"]
    assert said.path("explorer/") == "/explorer/_attn/said" and said.path(None) == "/_attn/said"


def test_the_claims_are_bounded_whatever_clients_do(monkeypatch):
    monkeypatch.setattr(said, "MAX_SESSIONS", 50)
    for i in range(200):
        said._keep(f"token-{i:04d}", lambda text: True)
    assert len(said._CLAIMS) == 50 and "token-0199" in said._CLAIMS and "token-0000" not in said._CLAIMS


def test_the_check_is_the_models_own_reading_of_the_sentence():
    """alike_to: the same notices as the sentence shown (the oracle: the runner's prompt_ids, as a
    page run draws them), and no more tokens than the view takes."""
    runner = cache.runner("gpt", "cpu")
    shown = said.reading(runner, "The cat sat on the mat")
    alike = said.alike_to(runner, shown, max_tokens=12)
    texts = [
        "The mouse hid under the table",
        "The dog ran",
        "狗咬人",
        "Her brother watches the train at night",
        "The cat sat on the mat 🐈",
        "The cat\u200b sat",
        "<b>The cat</b>",
        "The the the the",
        "The cat sat on the mat . The dog ran on the mat",  # more tokens than the view takes
    ]
    said_alike = []
    for text in texts:
        _, ids, notes = runner.prompt_ids(text)
        assert alike(text) == (not notes and len(ids) <= 12), (text, notes, len(ids))
        said_alike.append(alike(text))
    assert any(said_alike) and not all(said_alike), "both answers met"
    for text in ("   ", "\u200b", ""):  # nothing to read: the page's hint, a page run
        assert not alike(text), repr(text)


def test_a_page_run_offers_the_route_and_every_other_run_or_a_teacher_withdraws_it(monkeypatch):
    """offer() as the attention page's run calls it (ui.run.sentence_in_browser), withdraw() as
    every other run does (ui.run.forget_sentence_in_browser), and a room's teacher, whose run
    publishes the room's view: only a session whose page draws the sentence alone takes one."""
    from types import SimpleNamespace

    import streamlit as st

    from ui import classroom

    for k in list(st.session_state):
        del st.session_state[k]
    assert said.marker() == ""  # no route on this server (a bare streamlit run): the page runs
    monkeypatch.setitem(said.STATE, "installed", True)
    ctx = SimpleNamespace(model="gpt", device="cpu", text="The cat sat on the mat")
    said.offer(ctx, 48)
    token = st.session_state[said._TOKEN_KEY]
    assert f'data-said-token="{token}"' in said.marker() and 'data-said-url="/_attn/said"' in said.marker()
    assert said.post(token, b"The dog ran") == 204 and said.take() == "The dog ran" and said.take() is None
    said._CLAIMS[token].at = 0.0
    assert said.post(token, b"Her brother watches the train") == 409  # the page warns
    said.withdraw()
    said._CLAIMS[token].at = 0.0
    assert said.post(token, b"The dog ran") == 409
    monkeypatch.setattr(classroom, "is_teacher", lambda: True)
    said.offer(ctx, 48)
    said._CLAIMS[token].at = 0.0
    assert said.post(token, b"The dog ran") == 409 and said.take() is None
