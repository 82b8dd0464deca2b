"""A teacher writes a lesson (issue 27), in a real browser: builds 5 steps in the editor (each
answer computed from the model, its margin shown), reorders them, previews the lesson as a student,
downloads the file; a fresh session uploads it, opens a room and runs it with two students (who
need no file: the room shares it), one of them with a nickname; the teacher downloads the class's
results as CSV with their answers."""

from __future__ import annotations

import csv
import io
import re
import time

from lessons import schema

from .helpers import SCREENSHOTS, click_and_settle, exceptions, goto, settle, show_every_page
from .screens import open_room

STEPS = [  # the query's name as the editor shows it; the first is the editor's default query
    None,
    "how many tokens the sentence has",
    "what a row's weights add up to",
    "d_k, the length of each head's vectors",
    "whether a word may read another (the mask)",
]


def pick(page, label: str, option: str) -> None:
    box = page.locator("[data-testid='stMain']").get_by_role("combobox", name=label)
    box.click()
    page.keyboard.type(option[:12])  # the list is long: filter it as a user would
    try:
        click_and_settle(page.get_by_role("option", name=option, exact=True), page)
    except Exception:
        page.screenshot(path=str(SCREENSHOTS / "editor-pick-failed.png"), full_page=True)
        raise


def main(page):
    return page.locator("[data-testid='stMain']")


def test_a_teacher_writes_a_lesson_and_runs_it_in_a_room(app_server, new_page, tmp_path):
    started = time.time()
    teacher = new_page()
    goto(teacher, app_server.url + "/editor?model=translator", 300)
    assert not exceptions(teacher)
    for n, query in enumerate(STEPS, start=1):
        if query is not None:
            pick(teacher, "The answer is…", query)
        main(teacher).get_by_text("Computed answer").first.wait_for()
        assert main(teacher).get_by_text("Clear enough to grade").first.is_visible(), f"step {n}: the margin rule fails"
        click_and_settle(main(teacher).get_by_role("button", name="Add this step"), teacher)
        main(teacher).get_by_text(f"Steps ({n})").wait_for()
        assert not exceptions(teacher)
    # reorder: the token count first
    click_and_settle(main(teacher).get_by_role("button", name="↑").nth(1), teacher)  # step 2: step 1 has it disabled
    lines = main(teacher).locator("p", has_text=re.compile(r"^\d\. ")).all_inner_texts()
    assert lines[0].startswith("1. how many tokens"), lines

    # preview as a student: answer the first step, see the verdict and the reveal
    teacher.get_by_text("Preview as a student").click()
    settle(teacher)
    main(teacher).get_by_text("How many tokens does it cut it into?").first.wait_for()
    click_and_settle(main(teacher).locator("[data-testid='stButtonGroup'] button").nth(2), teacher)
    assert main(teacher).get_by_text(re.compile("Right: the model says|Not this time")).first.is_visible()
    teacher.screenshot(path=str(SCREENSHOTS / "editor-preview.png"), full_page=True)

    # download the lesson file: it is a valid lesson with the 5 steps in their new order
    with teacher.expect_download() as got:
        main(teacher).get_by_role("button", name="Download the lesson file").click()
    path = tmp_path / "lesson.toml"
    got.value.save_as(path)
    lesson = schema.validate(path.read_bytes())
    assert [s["query"] for s in lesson.steps] == ["token_count", "top_key", "row_sum", "head_dim", "can_read"]

    # a fresh session (another browser) uploads it and opens a room
    fresh = new_page()
    goto(fresh, app_server.url + "/editor?model=translator", 300)
    fresh.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(str(path))
    main(fresh).get_by_text("Loaded a lesson with 5 steps").wait_for(timeout=30_000)
    settle(fresh)
    code = open_room(fresh)
    show_every_page(fresh)  # the menu lists ui.layout.NAV_SHOWN pages before "View more"
    fresh.locator("[data-testid='stSidebarNav'] a[href*='lessons']").click()
    fresh.wait_for_function("() => location.pathname.endsWith('/lessons')")
    settle(fresh)
    click_and_settle(main(fresh).get_by_text("My lesson", exact=True), fresh)
    main(fresh).get_by_text("How many tokens does it cut it into?").first.wait_for()

    # two students join by the link: the room gives them the lesson; one types a nickname
    students = [new_page(), new_page()]
    for s in students:
        goto(s, app_server.url + f"/?room={code}", 300)
    for s in students:
        s.wait_for_function("() => location.pathname.endsWith('/lessons')", timeout=30_000)
        settle(s)
        main(s).get_by_text("How many tokens does it cut it into?").first.wait_for(timeout=30_000)
    nick = main(students[0]).get_by_role("textbox", name="Nickname for the teacher (optional)")
    nick.fill("Ann")
    nick.press("Enter")
    settle(students[0])
    for i, s in enumerate(students):
        click_and_settle(main(s).locator("[data-testid='stButtonGroup'] button").nth(i + 1), s)
        assert main(s).get_by_text(re.compile("Right: the model says|Not this time")).first.is_visible()
        assert not exceptions(s)
    main(fresh).get_by_text("The class's predictions (2 answered)").wait_for(timeout=15_000)

    # the class's results as CSV: per option how many chose it, whether it is right, who
    fresh.get_by_text("The class's results, step by step").click()
    settle(fresh)
    with fresh.expect_download() as got:
        fresh.get_by_role("button", name="Download the results (CSV)").click()
    rows = list(csv.DictReader(io.StringIO(got.value.path().read_text(encoding="utf-8-sig"))))
    first = [r for r in rows if r["Step"] == "1"]
    assert sum(int(r["Students"]) for r in first) == 2, rows
    assert any("Ann" in r["Who (nicknames)"] for r in first) and any(
        "1 anonymous" in r["Who (nicknames)"] for r in first
    )
    assert sum(r["Right"] == "Yes" for r in first) == 1  # one option is right
    fresh.screenshot(path=str(SCREENSHOTS / "editor-room-results.png"), full_page=True)
    assert not exceptions(fresh)
    print(
        f"built, previewed, downloaded, uploaded and ran a 5-step lesson with 2 students in {time.time() - started:.0f} s"
    )
