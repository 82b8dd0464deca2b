"""Issue 32 item 10: the teacher's cookie is HttpOnly where the app runs as in production
(`python -m ui.serve`, which adds ui/cookies.py's route): no script in the page can read the
secret, a reload still finds the teacher, closing the room deletes the cookie, and the route
answers nothing to a nonce it did not give."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from .helpers import SCREENSHOTS, AppServer, app_env, click_and_settle, goto, settle
from .screens import open_room
from .test_room_secret import is_teacher, wait_for


@pytest.fixture(scope="module")
def production(tmp_path_factory):
    store = tmp_path_factory.mktemp("rooms") / "rooms.sqlite3"
    env = {**app_env(), "ATTN_ROOMS": f"sqlite:///{store}", "ATTN_PRELOAD_MODEL": "0"}
    server = AppServer(env=env, log=SCREENSHOTS / "streamlit-teacher-cookie.log", preload=True)
    try:
        server.start()
    except RuntimeError as e:
        pytest.fail(f"the app did not start: {e}", pytrace=False)
    yield server
    server.stop()


def teach_cookie(page) -> dict | None:
    return next((c for c in page.context.cookies() if c["name"] == "attn_teach"), None)


def test_the_teacher_cookie_is_httponly(production, new_page):
    teacher = new_page()
    goto(teacher, production.url + "/", 300)
    code = open_room(teacher)
    assert wait_for(teacher, lambda: teach_cookie(teacher) is not None), "no teacher cookie"
    cookie = teach_cookie(teacher)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["value"].startswith(code + ".")
    assert "attn_teach" not in teacher.evaluate("() => document.cookie")  # no script reads it
    teacher.reload(wait_until="domcontentloaded")
    settle(teacher, 120)
    assert wait_for(teacher, lambda: is_teacher(teacher)), "a reload lost the teacher's room"
    click_and_settle(teacher.get_by_role("button", name="Close the room"), teacher)  # the panel is open in a room
    assert wait_for(teacher, lambda: teach_cookie(teacher) is None), "closing the room kept the cookie"
    with pytest.raises(urllib.error.HTTPError) as got:
        urllib.request.urlopen(production.url + "/_attn/cookie?n=guessed", timeout=10)
    assert got.value.code == 404
