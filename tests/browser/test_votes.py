"""Issue 32 items 5 and 6 in a real browser: a student who arrives by the room link (as by the QR
code) keeps one browser id, so a reload does not add a vote; and a teacher's shared lesson whose
text holds Markdown links, images and reference definitions reaches the student's page as text:
no <a>, no <img> in the lesson's part of the DOM. The teacher is played by the room store itself
(the same SQLite file as the server's): what it counts is what the teacher's screen shows."""

from __future__ import annotations

import time

import pytest

from tests.test_app_lesson_text import HOSTILE_LESSON

from .helpers import SCREENSHOTS, AppServer, app_env, goto, settle


@pytest.fixture(scope="module")
def server_and_store(tmp_path_factory):
    from ui.rooms import SQLiteRooms

    path = tmp_path_factory.mktemp("votes") / "rooms.sqlite3"
    server = AppServer(env={**app_env(), "ATTN_ROOMS": f"sqlite:///{path}"}, log=SCREENSHOTS / "streamlit-votes.log")
    try:
        server.start()
    except RuntimeError as e:
        pytest.fail(f"the app did not start: {e}", pytrace=False)
    yield server, SQLiteRooms(path)
    server.stop()


def on_lessons(page, timeout: float = 60) -> None:
    page.wait_for_function("() => location.pathname.endsWith('/lessons')", timeout=timeout * 1000)
    settle(page)


def answer_first_pill(page) -> None:
    page.locator("[data-testid='stMain'] [data-testid='stButtonGroup'] button").first.click()
    settle(page)


def wait_for(check, timeout: float = 15) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return check()


def test_a_reload_does_not_add_a_vote(server_and_store, new_page):
    server, store = server_and_store
    code, token = store.create()
    store.publish(code, token, {"page": "lessons", "params": {"lesson": "attention", "step": "1"}})
    student = new_page()
    goto(student, f"{server.url}/?room={code}", 300)  # the link the QR code holds
    on_lessons(student)
    answer_first_pill(student)
    assert wait_for(lambda: len(store.results(code)) == 1), store.results(code)
    cookies = {c["name"]: c["value"] for c in student.context.cookies()}
    assert "attn_browser" in cookies, f"no browser id was written: {sorted(cookies)}"
    student.reload()
    on_lessons(student)
    answer_first_pill(student)
    time.sleep(2)
    students = {who for _, who, _ in store.results(code)}
    assert len(students) == 1, f"one browser answered as {len(students)} students"
    assert sum(store.answers(code, "attention.1").values()) == 1  # the teacher's "1 answered"


def test_a_shared_hostile_lesson_reaches_the_student_as_text(server_and_store, new_page):
    server, store = server_and_store
    code, token = store.create()
    store.set_lesson(code, token, HOSTILE_LESSON)
    store.publish(code, token, {"page": "lessons", "params": {"lesson": "custom", "step": "1"}})
    requests = []
    student = new_page()
    student.on("request", lambda r: requests.append(r.url))
    goto(student, f"{server.url}/?room={code}", 300)
    on_lessons(student)
    main = student.locator("[data-testid='stMain']")
    main.get_by_text("tracker", exact=False).first.wait_for(timeout=30_000)
    answer_first_pill(student)  # the reveal, with its own hostile text
    student.screenshot(path=str(SCREENSHOTS / "votes-hostile-lesson.png"))
    # Streamlit's own anchors beside headings ("#your-score") are the only links allowed
    hrefs = main.locator("[data-testid='stMarkdownContainer'] a").evaluate_all(
        "els => els.map(e => e.getAttribute('href')).filter(h => !(h || '').startsWith('#'))"
    )
    images = main.locator("[data-testid='stMarkdownContainer'] img").count()
    assert (hrefs, images) == ([], 0), hrefs
    assert not [u for u in requests if "tracker" in u or "evil.example" in u], requests
