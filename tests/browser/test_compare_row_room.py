"""The row a teacher picks in compare's view reaches the room's students (issue 50.8), in a real
browser: compare's row was not in its link, so a student's view stayed on its own row."""

from __future__ import annotations

import pytest

from .helpers import goto, settle
from .screens import open_room

READY = "() => window.__attentionViews && window.__attentionViews.cmp_view && window.__attentionViews.cmp_view.ready"
ROW = "() => window.__attentionViews.cmp_view.state.q"


# English: a row follows the same in every language, and the room's controls in Chinese are opened
# by the Chinese projector and first-screen walks (this test ran in both until 2026-12-05, 12 s each)
@pytest.mark.parametrize("lang", ["en"])
def test_a_student_follows_the_teachers_row_on_compare(app_server, new_page, lang):

    teacher = new_page()
    goto(teacher, f"{app_server.url}/compare?model=gpt&lang={lang}")
    code = open_room(teacher, lang)
    student = new_page()
    goto(student, f"{app_server.url}/?room={code}&lang={lang}")
    for page in (teacher, student):
        page.wait_for_function(READY, timeout=60_000)
    settle(student)
    before = student.evaluate(ROW)
    canvas = teacher.locator(".av canvas").first
    canvas.focus()
    for _ in range(2):
        teacher.keyboard.press("ArrowDown")  # the view's keys: a row down
    teacher.wait_for_function(f"() => ({ROW})() !== {before}", timeout=10_000)
    settle(teacher)
    want = teacher.evaluate(ROW)
    assert want != before
    student.wait_for_function(f"() => ({ROW})() === {want}", timeout=30_000)
    assert not teacher.rec.errors and not student.rec.errors
