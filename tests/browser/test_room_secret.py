"""Issue 26, item 1 in a real browser: the teacher's secret is never in an address. The teacher's
address bar shows the student link; a reload keeps the teacher (the secret is in a cookie of
this app); rotating the secret locks out a browser that kept a copy of the old one, with a
notice; a ?teach= in a link is removed from the address and refused."""

from __future__ import annotations

import time

import pytest

from drive.browser import link_address as href
from drive.browser import link_query as query

from .helpers import SCREENSHOTS, click_and_settle, exceptions, goto, served, settle
from .screens import open_room


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("rooms") / "rooms.sqlite3"
    yield from served("streamlit-room-secret.log", {"ATTN_ROOMS": f"sqlite:///{store}"})


def teacher_cookie(page) -> str | None:
    for c in page.context.cookies():
        if c["name"] == "attn_teach":
            return c["value"]
    return None


def wait_for(page, check, timeout: float = 20) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if check():
            return True
        page.wait_for_timeout(100)
    return False


def is_teacher(page) -> bool:
    return page.get_by_text("the class follows this screen").first.is_visible()


def test_the_secret_never_in_the_address_and_rotating_it_locks_out_an_old_copy(server, new_page):
    teacher = new_page()
    goto(teacher, server.url + "/", 300)
    code = open_room(teacher)
    assert wait_for(teacher, lambda: teacher_cookie(teacher) is not None), "no teacher cookie written"
    cookie = teacher_cookie(teacher)
    room_code, _, token = cookie.partition(".")
    assert room_code == code and len(token) >= 20
    assert is_teacher(teacher)
    assert "teach" not in query(teacher) and token not in href(teacher)  # the student link, only

    # the teacher reloads: still the teacher, still no secret in the address
    teacher.reload(wait_until="domcontentloaded")
    settle(teacher, 120)
    assert wait_for(teacher, lambda: is_teacher(teacher)), "a reload lost the teacher's room"
    assert "teach" not in query(teacher) and token not in href(teacher)
    assert query(teacher)["room"] == code

    # a second browser holding a copy of the secret (a stolen cookie) opens the room: the teacher
    copy = new_page()
    copy.context.add_cookies([{"name": "attn_teach", "value": cookie, "url": server.url}])
    goto(copy, server.url + f"/?room={code}", 120)
    assert wait_for(copy, lambda: is_teacher(copy))

    # the teacher rotates the secret: the copy is locked out, with a notice
    rotate = teacher.get_by_role("button", name="New teacher secret")
    if not rotate.is_visible():  # the room panel is open while a room is
        teacher.get_by_text("Classroom").first.click()
    click_and_settle(rotate, teacher)
    assert teacher.get_by_text("only this tab moves the class now").first.is_visible()
    assert wait_for(teacher, lambda: teacher_cookie(teacher) not in (None, cookie)), "the cookie kept the old secret"
    new_token = teacher_cookie(teacher).partition(".")[2]
    assert new_token != token and new_token not in href(teacher)
    copy.reload(wait_until="domcontentloaded")
    settle(copy, 120)
    assert wait_for(copy, lambda: copy.get_by_text("is no longer valid").first.is_visible())
    assert not is_teacher(copy) and copy.get_by_text("Following the teacher").first.is_visible()
    copy.screenshot(path=str(SCREENSHOTS / "room-secret-stale.png"))

    # an old-style link with the (current!) secret: removed from the address, refused
    linked = new_page()
    goto(linked, server.url + f"/?room={code}&teach={new_token}", 120)
    assert wait_for(linked, lambda: linked.get_by_text("Links never carry a teacher").first.is_visible())
    assert wait_for(linked, lambda: "teach" not in query(linked))
    assert not is_teacher(linked) and linked.get_by_text("Following the teacher").first.is_visible()
    assert is_teacher(teacher)
    for p in (teacher, copy, linked):
        assert not exceptions(p)
