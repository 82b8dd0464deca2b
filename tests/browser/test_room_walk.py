"""A class's hour in a real browser (issue 50, "Done when"): a teacher at a 1280 x 800 projector
with a room open in presentation mode, a student on a laptop (English) and one on a phone at
390 x 844 (Chinese) walk every built-in lesson this server offers, every step: the students answer,
the teacher reveals without answering and moves on.

Checked: no error box (but a wrong prediction's), exception or JavaScript error on any of the three
screens at any step (test_walk.py's trouble); every answer option fits the projector and the phone
(test_teacher_reveal.py's OPTIONS_JS: none cut, none in a box that scrolls sideways), before and
after the reveal; the projector shows the answer once revealed and never shows the teacher's own verdict or score; axe-core finds nothing serious or critical with the room open and
a step revealed, on the projector and on both students' pages (the students' own test,
test_student_reveal.py, walked a room to its first reveal twice more until 2026-12-05); the class's results CSV holds every answer the students gave (the sum of its
"students" column, per lesson); after the check lesson (pre / post steps) the teacher's
"what the class learned" CSV has a row per objective, each counting both students' answers before
and after; and the server's log of the whole walk holds no exception or traceback.

Slow (every step of every offered lesson, three browsers: 415 s on 2026-12-04 at load 12-15 beside
other test runs; 150 s in phase 2 of a quiet run, 100 s of CPU), marked so. It is also the suite's
walk of every step of every offered lesson in English (the laptop's answers): test_walk.py walked them
again alone until 2026-12-05 (65 s, 43 s of CPU, the same steps and checks); it keeps the lone
reader's Next and the lessons this server does not offer.
"""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from lessons import checks
from lessons.files import BUILTIN, builtin
from ui.i18n import text_in
from ui.lessons import offered

from .helpers import SCREENSHOTS, axe_violations, goto, settle
from .screens import answer_line, open_room_and_present, revealed, serious
from .test_teacher_reveal import OPTIONS_JS, _personal
from .test_walk import trouble

pytestmark = pytest.mark.slow
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LOG_BAD = re.compile(r"Traceback|Exception|Error:|\bERROR\b")
ASKED = "[data-testid='stButtonGroup'], [data-testid='stSlider']"  # a step's question, answerable
LOADING_MS = 300_000
# a student's page once the step is revealed: its verdict on the student's own answer
VERDICT = "() => document.querySelectorAll(\"[data-testid='stMain'] [data-testid='stAlert']\").length > 0"


def main(page):
    return page.locator("[data-testid='stMain']")


def where(page) -> tuple[str | None, str | None]:
    q = parse_qs(urlparse(page.url).query)
    return (q.get("lesson") or [None])[0], (q.get("step") or [None])[0]


def follow(student, lesson: str, step: int) -> None:
    """Wait until the student's page shows the teacher's lesson and step (the room's follow)."""
    student.wait_for_function(
        "([l, s]) => { const q = new URLSearchParams(location.search); return q.get('lesson') === l && q.get('step') === s; }",
        arg=[lesson, str(step)],
        timeout=30_000,
    )
    # a real pretrained model's lesson shows a loading notice, then builds its steps, before the
    # question appears (its first use in this server: a minute or more on a busy machine)
    main(student).locator(ASKED).first.wait_for(timeout=LOADING_MS)
    settle(student)


def answer(student, last: bool) -> bool:
    """The student picks an option (the last one on the phone, the first on the laptop); False for
    a step that asks with a slider (none picked)."""
    pills = main(student).locator("[data-testid='stButtonGroup'] button:not([disabled])")
    if not pills.count():
        return False
    (pills.last if last else pills.first).click()
    settle(student)
    return True


def download(page, key: str, summary: str) -> str:
    """A CSV the teacher downloads from the results (its expander opened first where closed)."""
    button = page.locator(f".st-key-{key} button")
    if not button.is_visible():
        main(page).locator("summary").filter(has_text=summary).first.click()
    for attempt in range(3):  # the results refresh every 3 s: a click as they redraw may be lost
        try:
            with page.expect_download(timeout=60_000) as dl:
                button.click()
            return open(dl.value.path(), encoding="utf-8-sig").read()
        except PlaywrightTimeout:
            if attempt == 2:
                page.screenshot(path=str(SCREENSHOTS / f"room-walk-no-{key}.png"))
                raise
    raise AssertionError("unreachable")


def fits(page, where) -> None:
    """Every answer option of the screen's main area fits it: none cut, none in a sideways-scrolling
    box (a step that asks nothing has none). Read on a settled page: a reading taken as a rerun
    redraws (the teacher's results refresh every 3 s) can catch options at no width for a frame
    (README's run at da35fbc, 2026-12-05: four of eight, the check lesson's step 11), so a reading
    that finds one is taken again once the page has settled, and that one is asserted."""
    options = page.evaluate(OPTIONS_JS)
    if options["cut"] or options["scrolls"]:
        settle(page)
        options = page.evaluate(OPTIONS_JS)
    assert not options["cut"] and not options["scrolls"], (where, options)


def next_step(teacher, lesson: str, step: int) -> None:
    """The teacher clicks Next and the projector's link reaches the step. The click's run may wait
    for a run already going (the class's results refresh every 3 s; runner.fastReruns is off, so a
    rerun waits for the session's own run to reach its next Streamlit call): waited for, up to 30 s,
    then clicked once more where the step has still not moved (a click that reached no run)."""
    for attempt in range(2):
        main(teacher).get_by_role("button", name=text_in("en", "lesson_next")).click()
        settle(teacher)
        try:
            teacher.wait_for_function(
                "([l, s]) => { const q = new URLSearchParams(location.search); return q.get('lesson') === l && q.get('step') === s; }",
                arg=[lesson, str(step)],
                timeout=30_000,
            )
            return
        except PlaywrightTimeout:
            if attempt == 1 or where(teacher) != (lesson, str(step - 1)):
                raise


def choose_lesson(page, title: str) -> None:
    """The teacher picks a lesson in the projector's lesson menu (a select box). The teacher's page
    reruns as the class's answers arrive, which may close an open menu before its option is
    clicked: open it again, up to three times."""
    menu = main(page).locator("[data-testid='stSelectbox']").first
    for attempt in range(3):
        menu.click()
        option = page.get_by_role("option", name=title)
        try:
            option.click(timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            settle(page)
    settle(page)


def test_a_class_walks_every_lesson_with_the_teacher(app_server, new_page):
    """On the session's server (a server of its own cost a start and a cold first run of each
    model), its log read from the walk's start: what the walk made it write, Python's stderr being
    line-buffered."""
    with open(app_server.log_path, "rb") as f:
        start = f.seek(0, 2)
    _walk(app_server, new_page)
    with open(app_server.log_path, "rb") as f:
        f.seek(start)
        log = f.read().decode(errors="replace")
    assert app_server.proc.poll() is None, "the server stopped during the walk:\n" + log[-2000:]
    bad = [line for line in log.splitlines() if LOG_BAD.search(line)]
    assert not bad, "the server's log of the walk:\n" + "\n".join(bad[:20])


def _walk(server, new_page) -> None:
    lessons = [name for name in BUILTIN if offered(name)]
    assert "check" in lessons and len(lessons) >= 3, lessons
    teacher = new_page(viewport={"width": 1280, "height": 800})
    goto(teacher, f"{server.url}/lessons?lang=en&lesson={lessons[0]}", 300)
    code = open_room_and_present(teacher, "en", 32)
    laptop = new_page(viewport={"width": 1280, "height": 800})
    phone = new_page(**PHONE, locale="zh-CN")
    for page, lang in ((laptop, "en"), (phone, "zh")):
        goto(page, f"{server.url}/?room={code}&lang={lang}", 300)
    personal = _personal("en")
    line = answer_line("en")
    axe_done = False
    for n, lesson in enumerate(lessons):
        steps = builtin(lesson).steps
        if n:
            choose_lesson(teacher, builtin(lesson).title["en"])
        given, per = 0, {}  # answers given; per (objective, phase) of a check step
        for i in range(1, len(steps) + 1):
            assert where(teacher) == (lesson, str(i)), (where(teacher), lesson, i)
            fits(teacher, (lesson, i, "projector"))
            for student, last in ((laptop, False), (phone, True)):
                follow(student, lesson, i)
                assert not trouble(student), (lesson, i, trouble(student))
                if last:
                    fits(student, (lesson, i, "phone"))
                got = answer(student, last)
                assert not trouble(student), (lesson, i, "after answering", trouble(student))
                given += got
                tag = steps[i - 1].get("check")
                if tag:
                    key = (tag["objective"], tag["phase"])
                    per[key] = per.get(key, 0) + got
            reveal = main(teacher).get_by_role("button", name=text_in("en", "lesson_reveal"))
            reveal.click(timeout=LOADING_MS)
            settle(teacher)
            shown = revealed(teacher, line)
            assert line in shown, (lesson, i, "the projector shows no answer after the reveal")
            assert not [p for p in personal if p in shown], (lesson, i, "the projector shows a personal result")
            assert not trouble(teacher), (lesson, i, trouble(teacher))
            fits(teacher, (lesson, i, "projector, revealed"))
            if not axe_done:  # the first reveal: axe on the projector and on each student's page
                teacher.screenshot(path=str(SCREENSHOTS / "room-walk-teacher.png"))
                bad = [f"projector: {v}" for v in serious(axe_violations(teacher))]
                for student, lang in ((laptop, "en"), (phone, "zh")):
                    student.wait_for_function(VERDICT, timeout=30_000)  # the reveal reached the student
                    settle(student)
                    student.screenshot(path=str(SCREENSHOTS / f"student-reveal-{lang}.png"), full_page=True)
                    bad += [f"student ({lang}): {v}" for v in serious(axe_violations(student))]
                assert not bad, bad
                axe_done = True
            if i < len(steps):
                next_step(teacher, lesson, i + 1)
        assert given >= len(steps), (lesson, given, "the students answered too few steps to check")
        table = list(csv.reader(io.StringIO(download(teacher, "les_results_csv", text_in("en", "lesson_results")))))
        col = table[0].index(text_in("en", "lesson_results_col_students"))
        counted = sum(int(row[col]) for row in table[1:] if row[col].strip())
        assert counted == given, (lesson, "the CSV holds", counted, "answers of", given)
        if lesson == "check":
            gains = list(csv.DictReader(io.StringIO(download(teacher, "les_gains_csv", text_in("en", "lesson_gains")))))
            assert len(gains) == len(checks.OBJECTIVES), gains
            names = [text_in("en", f"check_objective_{o}") for o in checks.OBJECTIVES]
            for objective, row in zip(checks.OBJECTIVES, gains):
                assert row[text_in("en", "lesson_gain_col_objective")] in names, row
                for phase, col in (("pre", "before_answers"), ("post", "after_answers")):
                    n = int(row[text_in("en", f"lesson_gain_col_{col}")].split("/")[1])
                    assert n == per.get((objective, phase), 0), (objective, phase, row, per)
    for page in (teacher, laptop, phone):
        assert not trouble(page), trouble(page)
