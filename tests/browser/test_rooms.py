"""Following the teacher, in real browsers: a teacher and three students, each in a separate
browser context (its own Streamlit session), on two app servers that share one SQLite room
store as two replicas would. Students see the teacher's sentence, view settings (the query
token), model and page (how soon: bench/follow.py); a student who detaches stays where they are
while the others follow, and re-attaches with one click; a student's own change moves nobody; the teacher sees
the class's answers to a lesson step."""

from __future__ import annotations

import math
import re
from urllib.parse import urlparse

import pytest

from drive.browser import link_address as url
from drive.browser import link_query as query
from drive.browser import link_sentence as sentence
from drive.browser import wait_until
from ui.classroom import POLL_S

from .helpers import (
    SCREENSHOTS,
    SIDEBAR,
    AppServer,
    app_env,
    click_and_settle,
    exceptions,
    goto,
    settle,
    show_every_page,
    submit_text,
)
from .screens import open_room

# How soon a student follows is bench/follow.py's figure, on a quiet machine with its load stated
# (its target: 2 s; 0.29-1.07 s for three students at load 2, 2026-12-05). This file asserted a 3 s
# bound until then, and so ran alone in the suite's timed phase; it now runs beside the other
# browser tests and asserts that every student follows every change (wait_until's 30 s: a follow
# that never comes), and what a detached student must not do. SLOWEST holds this run's follows.
SLOWEST: list[float] = []


def followed(waits: list[float]) -> bool:
    """Every page followed (a finite wait); its slowest kept for unmoved_s."""
    SLOWEST.append(max(waits))
    return all(math.isfinite(w) for w in waits)


def unmoved_s() -> float:
    """How long to watch a student who must not move: twice the slowest follow of this run, and at
    least two of the room's polls and a second, so that a follow that was coming would have come."""
    return max(2 * max(SLOWEST, default=0.0), 2 * POLL_S) + 1.0


@pytest.fixture(scope="module")
def replicas(tmp_path_factory):
    store = tmp_path_factory.mktemp("rooms") / "rooms.sqlite3"
    env = {**app_env(), "ATTN_ROOMS": f"sqlite:///{store}"}
    servers = [AppServer(env=env, log=SCREENSHOTS / f"streamlit-rooms-{i}.log") for i in range(2)]
    try:
        for s in servers:
            s.start()
    except RuntimeError as e:
        for s in servers:
            s.stop()
        pytest.fail(f"the app did not start: {e}", pytrace=False)
    yield servers
    for s in servers:
        s.stop()


def shots(pages, name: str) -> None:
    for i, p in enumerate(pages):
        p.screenshot(path=str(SCREENSHOTS / f"rooms-{name}-{i}.png"))


def test_a_teacher_and_three_students(replicas, new_page):
    a, b = replicas
    for server in (a, b):  # each replica builds the lessons once (seconds): not part of following
        warm = new_page(fresh=True)  # the teacher below gets the warm shared tab (conftest.new_page)
        goto(warm, server.url + "/lessons", 300)
        warm.context.close()
    teacher = new_page()
    goto(teacher, a.url + "/", 300)  # the first visit imports torch and the models
    code = open_room(teacher)
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{8}", code)
    banner = teacher.get_by_text(f"Room {code[:4]}-{code[4:]}")
    assert banner.first.is_visible()
    assert teacher.locator("section[data-testid='stSidebar'] img").first.is_visible()  # the QR code

    # three students: two on the other replica; one opens the link, two type the code
    students = [new_page() for _ in range(3)]
    goto(students[0], b.url + f"/?room={code}", 300)
    for s, server in ((students[1], b), (students[2], a)):
        goto(s, server.url + "/")
        s.get_by_text("Classroom").first.click()
        s.get_by_label("Room code (student)").fill(f"{code[:4].lower()}-{code[4:]}")
        s.get_by_label("Room code (student)").press("Enter")
        settle(s)
    for s in students:
        assert s.get_by_text("Following the teacher").first.is_visible()
        assert "teach" not in query(s)  # students never hold the token

    # the teacher types a sentence: every student has it within 2 s
    submit_text(teacher, "狗咬人")
    waits = wait_until(students, lambda p: sentence(p) == "狗咬人", 30)
    print(f"students followed a new sentence after {', '.join(f'{w:.2f}' for w in waits)} s")
    shots([teacher, *students], "sentence")
    assert followed(waits), (waits, [url(s) for s in students])
    for s in students:
        settle(s)
        assert s.locator("section[data-testid='stSidebar'] textarea").input_value() == "狗咬人"
        assert not exceptions(s)

    # a view setting: the teacher picks another query token; the students' views follow
    # (home's attention view: the row moves in the browser, and is reported when the keys stop)
    teacher.locator(".av-canvas").focus()
    teacher.keyboard.press("ArrowDown")  # row 1 (咬) -> row 2 (人)
    assert teacher.locator(".av-caption").inner_text().startswith("When the model processes 人")
    teacher.wait_for_function("() => new URLSearchParams(location.search).get('q') === '2'", timeout=15_000)
    waits = wait_until(students, lambda p: query(p).get("q") == "2", 30)
    print(f"students followed the query token after {', '.join(f'{w:.2f}' for w in waits)} s")
    assert followed(waits), waits
    for s in students:  # their view shows that row
        s.wait_for_function("() => window.__attentionViews.home_view.state.q === 2", timeout=15_000)

    # the model: the teacher picks the GPT, then the translator again; the students' sidebars follow
    for name, label in (("gpt", "GPT (learned positions)"), ("translator", "Translator (encoder–decoder)")):
        teacher.locator(f"{SIDEBAR} [data-testid='stSelectbox']").first.click()
        click_and_settle(teacher.get_by_role("option", name=label, exact=True), teacher)
        assert query(teacher)["model"] == name
        waits = wait_until(students, lambda p: query(p).get("model") == name, 30)
        print(f"students followed the model {name} after {', '.join(f'{w:.2f}' for w in waits)} s")
        assert followed(waits), waits
        for s in students:
            settle(s)
            assert s.locator(f"{SIDEBAR} [data-testid='stSelectbox'] input").first.input_value() == label
    assert all(sentence(s) == "狗咬人" for s in [teacher, *students])

    # the attention page: a layer change reruns only its fragment (ui.context.partial), which
    # publishes the teacher's view itself; the students' layer follows
    show_every_page(teacher)  # the menu lists ui.layout.NAV_SHOWN pages before "View more"
    teacher.locator("[data-testid='stSidebarNav'] a[href*='attention']").click()
    teacher.wait_for_function("() => location.pathname.endsWith('/attention')")
    settle(teacher)
    waits = wait_until(students, lambda p: urlparse(p.url).path.endswith("/attention"), 30)
    assert followed(waits), waits
    # (the layer is the attention view's own select box: drawn in the browser, reported on change)
    teacher.locator(".av-layer").select_option("0")
    teacher.wait_for_function("() => new URLSearchParams(location.search).get('layer') === '1'", timeout=15_000)
    settle(teacher)
    waits = wait_until(students, lambda p: query(p).get("layer") == "1", 30)
    print(f"students followed a layer change in a fragment after {', '.join(f'{w:.2f}' for w in waits)} s")
    assert followed(waits), waits
    for s in students:  # and their view moved to it
        s.wait_for_function("() => window.__attentionViews.att_view.state.layer === 0", timeout=15_000)

    # the teacher opens the lessons page: the students land on it
    show_every_page(teacher)
    teacher.locator("[data-testid='stSidebarNav'] a[href*='lessons']").click()
    teacher.wait_for_function("() => location.pathname.endsWith('/lessons')")
    settle(teacher)
    waits = wait_until(students, lambda p: urlparse(p.url).path.endswith("/lessons"), 30)
    print(f"students followed to the lessons page after {', '.join(f'{w:.2f}' for w in waits)} s")
    assert followed(waits), waits

    # student 0 detaches; the teacher changes the sentence; the others follow, student 0 stays
    settle(students[0])
    students[0].get_by_role("button", name="Explore on my own").click()
    students[0].get_by_role("button", name="Follow the teacher again").wait_for()
    submit_text(teacher, "人咬狗")
    waits = wait_until(students[1:], lambda p: sentence(p) == "人咬狗", 30)
    assert followed(waits), waits
    students[0].wait_for_timeout(unmoved_s() * 1000)
    assert sentence(students[0]) == "狗咬人"
    assert students[0].locator("section[data-testid='stSidebar'] textarea").input_value() == "狗咬人"

    # a student's own change moves nobody: not the teacher, not the other students
    submit_text(students[0], "The dog saw the cat")
    students[0].wait_for_timeout(unmoved_s() * 1000)
    assert sentence(teacher) == "人咬狗" and all(sentence(s) == "人咬狗" for s in students[1:])

    # one click re-attaches: the teacher's view comes back
    students[0].get_by_role("button", name="Follow the teacher again").click()
    waits = wait_until([students[0]], lambda p: sentence(p) == "人咬狗", 30)
    assert followed(waits), waits

    # the students predict; the teacher's screen counts the answers
    for i, s in enumerate(students):
        settle(s)
        s.locator("[data-testid='stButtonGroup'] button").nth(i % 2).click()
        settle(s)
    teacher.get_by_text("The class's predictions (3 answered)").wait_for(timeout=15_000)
    teacher.screenshot(path=str(SCREENSHOTS / "rooms-teacher.png"))
    students[1].screenshot(path=str(SCREENSHOTS / "rooms-student.png"))
    assert not exceptions(teacher)
