"""The page explorer's idea in a real browser, for what AppTest cannot see (fragments, tab bars,
tile clicks): every tab of the attention page in both languages and every model-view tile in
English, a lesson walked by Next by a reader with no room and every step of the lessons this
server does not offer in English, and in Chinese every lesson and every question type, with no
error box and no exception after any of them. Every step of every offered lesson: test_room_walk.py, in a room."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from .helpers import click_and_settle, exceptions, goto, settle, view_tile_xy
from .screens import open_room

ERROR_BOX = "[data-testid='stAlertContentError']"


def trouble(page) -> list[str]:
    """Exceptions, and error boxes other than a lesson's "wrong prediction" (its ❌ is meant)."""
    found = [f"exception: {e[:400]}" for e in exceptions(page)]
    for box in page.locator(ERROR_BOX).all():
        text = box.inner_text()
        if "❌" not in text and not box.locator("xpath=..").inner_text().startswith("❌"):
            found.append(f"error box: {text[:300]}")
    found += [f"js error: {e}" for e in page.rec.errors]
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_attention_every_tab_and_every_tile(app_server, new_page, lang):
    page = new_page()
    goto(page, f"{app_server.url}/attention?model=translator&lang={lang}")
    assert not trouble(page), trouble(page)
    # the attention view's own tabs (drawn in the browser), then the page's (each a rerun)
    view_tabs = page.locator(".av [role='tab']")
    assert view_tabs.count() == 3
    for i in range(3):
        view_tabs.nth(i).click()
        assert page.evaluate("() => window.__attentionViews.att_view.geo.kind") == ("heat", "model", "lines")[i]
        assert not trouble(page), (i, trouble(page))
    page_tabs = page.locator("[data-testid='stMain'] [data-testid='stTab']")
    assert page_tabs.count() >= 3
    for i in range(page_tabs.count()):
        click_and_settle(page_tabs.nth(i), page)
        assert not trouble(page), (i, trouble(page))
    if lang != "en":  # a tile's click is the same in every language (8 reruns): English's walk has it
        return
    # the attention view's model view: each tile once; the link says which head was chosen
    click_and_settle(page_tabs.first, page)
    page.locator(".av [role='tab'][data-tab='model']").click()
    first = view_tile_xy(page, 0, 0)
    assert first, "the model view drew no tiles"
    clicked = 0
    for layer in range(first["layers"]):
        for head in range(first["heads"]):
            xy = view_tile_xy(page, layer, head)
            page.mouse.click(xy["x"], xy["y"])
            page.wait_for_function(
                "([l, h]) => { const q = new URLSearchParams(location.search);"
                " return q.get('layer') === String(l) && q.get('head') === String(h); }",
                arg=[layer + 1, head + 1],
                timeout=20_000,
            )
            settle(page)
            assert not trouble(page), (layer, head, trouble(page))
            clicked += 1
    assert clicked == first["layers"] * first["heads"] >= 8


def _open_lesson(page, url: str, lang: str, n: int, lesson: str, menu: list[str]) -> None:
    """Lesson n of the built-in ones on step 1: the first from its link, the next ones picked in the
    page's menu in the same session; one not offered here from its link, as before."""
    if n == 0 or lesson not in menu:
        goto(page, f"{url}/lessons?model=translator&lang={lang}&lesson={lesson}&step=1")
        return
    options = page.locator("[data-testid='stMain'] [data-testid='stRadio'] [role='radiogroup'] label")
    assert options.count() == len(menu), (options.all_inner_texts(), menu)
    click_and_settle(options.nth(menu.index(lesson)), page)
    query = parse_qs(urlparse(page.url).query)
    assert (query.get("lesson"), query.get("step")) == ([lesson], ["1"]), (lesson, page.url)


def answer_shown_step(page, where) -> bool:
    """The step shown, answered with its first option (no error box before or after); whether it
    asked anything."""
    assert not trouble(page), (where, trouble(page))
    pills = page.locator("[data-testid='stMain'] [data-testid='stButtonGroup'] button:not([disabled])")
    if not pills.count():
        return False
    click_and_settle(pills.first, page)
    assert not trouble(page), (where, "after answering", trouble(page))
    return True


def _lessons():
    from lessons.files import BUILTIN, builtin
    from ui.lessons import offered

    return list(BUILTIN), [name for name in BUILTIN if offered(name)], builtin  # the menu, in its order


def test_a_reader_alone_walks_a_lesson_by_next_and_every_lesson_not_offered(app_server, new_page):
    """In English, a reader with no room: the menu's first lesson, every step reached by Next and
    answered; then every built-in lesson this server does not offer (a real model's, its model not
    installed), from its link, every step. Every step of every offered lesson is walked and answered
    in a room, on a laptop in English and a phone in Chinese, by test_room_walk.py (this test walked
    them all alone too until 2026-12-05: 65 s of phase 2, 43 s of CPU, for no check of its own)."""
    lessons, menu, builtin = _lessons()
    assert menu, "no built-in lesson is offered"
    walk = [menu[0], *(name for name in lessons if name not in menu)]
    page = new_page()
    for n, lesson in enumerate(walk):
        _open_lesson(page, app_server.url, "en", n, lesson, menu)
        steps = 0
        while True:
            answer_shown_step(page, (lesson, steps))
            steps += 1
            nxt = page.locator("[data-testid='stMain'] button").filter(has_text=re.compile("Next|下一步"))
            if not nxt.count() or nxt.first.is_disabled():
                break
            click_and_settle(nxt.first, page)
        # every step the lesson file has, walked by Next (a lesson of any length; CONTRIBUTING, "Add a lesson")
        want = len(builtin(lesson).steps)
        assert steps >= want >= 1, f"{lesson}: {steps} of its {want} steps walked"


def test_every_lesson_and_every_question_type_in_chinese(app_server, new_page):
    """In Chinese: every built-in lesson picked in the menu and its first step answered, then the
    first step of each question type the built-in lessons ask that no first step asked, from its
    link. (Both languages walked every step until 2026-12-04, 80 s each: a step's Chinese texts
    are checked without a browser, every placeholder filled, by tests/test_lessons.py; what the
    browser adds is a question of each type, each lesson and its menu, drawn in Chinese.)"""
    lessons, menu, builtin = _lessons()
    page = new_page()
    asked = {}  # question type -> the step that asked it in Chinese
    for n, lesson in enumerate(lessons):
        _open_lesson(page, app_server.url, "zh", n, lesson, menu)
        if answer_shown_step(page, (lesson, 1)):
            asked.setdefault(builtin(lesson).steps[0]["question"], f"{lesson}.1")
    kinds = {}  # question type -> its first step in the built-in lessons (lesson, step from 1)
    for lesson in lessons:
        for i, spec in enumerate(builtin(lesson).steps):
            kinds.setdefault(spec["question"], (lesson, i + 1))
    for kind, (lesson, step) in kinds.items():
        if kind in asked:
            continue
        goto(page, f"{app_server.url}/lessons?model=translator&lang=zh&lesson={lesson}&step={step}")
        if answer_shown_step(page, (lesson, step)):
            asked[kind] = f"{lesson}.{step}"
    print(f"asked in Chinese: {asked}")
    assert kinds and set(asked) == set(kinds), (asked, kinds)


def test_a_sentence_typed_but_not_applied_gives_way_to_the_teachers(app_server, new_page):
    """A student types in the sentence box without applying; the teacher moves the room: the box
    shows the teacher's sentence, not the student's unapplied one (it used to stay, silently)."""
    from .helpers import submit_text

    teacher = new_page()
    goto(teacher, app_server.url + "/", 300)
    code = open_room(teacher)
    assert f"Room {code[:4]}-{code[4:]}" in teacher.locator("body").inner_text()
    student = new_page()
    goto(student, f"{app_server.url}/?room={code}", 300)
    settle(student)
    box = student.locator("section[data-testid='stSidebar'] textarea")
    box.click()
    box.fill("The dog saw the cat")  # typed; the focus stays in the box: not applied
    submit_text(teacher, "狗咬人")
    student.wait_for_function("() => location.search.includes('text=%E7%8B%97')", timeout=20_000)
    settle(student)
    student.wait_for_timeout(1500)
    assert box.input_value() == "狗咬人"
    assert not trouble(student)
