"""A student in a room when a step is revealed (issue 50: axe-core 0 serious or critical with a room
open and a step revealed, teacher and student, en and zh). The teacher's side is checked in
test_teacher_reveal.py (both languages) and test_room_walk.py; here the student's: a laptop in
English and a phone in Chinese join the teacher's room, follow it to the first step, answer, the
teacher reveals, and axe-core runs on the student's page as it then is."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from ui.i18n import text_in

from .helpers import SCREENSHOTS, axe_problem, axe_violations, exceptions, goto, settle
from .screens import open_room_and_present, serious
from .test_room_walk import PHONE, answer, follow, main, where

VERDICT = "() => document.querySelectorAll(\"[data-testid='stMain'] [data-testid='stAlert']\").length > 0"


@pytest.fixture(scope="module", autouse=True)
def _axe_installed():
    problem = axe_problem()
    if problem:
        pytest.fail(problem, pytrace=False)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_student_sees_a_revealed_step_with_nothing_serious_for_axe(app_server, new_page, lang):
    teacher = new_page(viewport={"width": 1280, "height": 800})
    goto(teacher, f"{app_server.url}/lessons?model=translator&lang=en", 300)
    open_room_and_present(teacher, "en", 32)
    code = parse_qs(urlparse(teacher.url).query)["room"][0]
    lesson, step = where(teacher)
    student = new_page(**PHONE, locale="zh-CN") if lang == "zh" else new_page(viewport={"width": 1280, "height": 800})
    goto(student, f"{app_server.url}/?room={code}&lang={lang}", 300)
    follow(student, lesson, int(step))
    assert answer(student, last=lang == "zh"), "the first step asks with options"
    main(teacher).get_by_role("button", name=text_in("en", "lesson_reveal")).click()
    settle(teacher)
    student.wait_for_function(VERDICT, timeout=30_000)
    settle(student)
    student.screenshot(path=str(SCREENSHOTS / f"student-reveal-{lang}.png"), full_page=True)
    bad = serious(axe_violations(student))
    assert not bad, bad
    assert not exceptions(student) and not exceptions(teacher)
