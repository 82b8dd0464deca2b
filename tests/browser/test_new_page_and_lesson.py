"""The contributor's page and lesson (tests/test_new_page_and_lesson.py: a copy of the project with a
page and a 3-step seventh lesson of a long title added by CONTRIBUTING.md's steps alone), served from
the copy, in a real browser: what only a browser shows. On the projector (a room open, presentation
mode, 1280x800) the lesson's first chart, after a prediction, ends on the first screen in both
languages, its long title in the lesson menu included (a fifth lesson's title once wrapped the menu
and pushed the chart below the screen); every step of the lesson is reached by Next and answered
with no error; the new page opens from a fresh link in Chinese with its title and no exception.

One server for the copy (about 10 s to start); the walks over every page and lesson of the real
project (test_projector.py, test_walk.py, test_pages.py) hold the same checks for the pages and
lessons that exist."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.test_new_page_and_lesson import LESSON, write_copy

from .helpers import (
    SCREENSHOTS,
    AppServer,
    app_env,
    arm,
    click_and_settle,
    exceptions,
    goto,
    settle,
    wait_for_run_start,
)
from .screens import CHARTS_JS, first_action, open_room_and_present
from .test_walk import answer_shown_step, trouble

FOLD = 800  # the projector's first screen, 1280x800 (test_projector.py)
TITLES = tomllib.loads(LESSON)["title"]  # the new lesson's long titles


@pytest.fixture(scope="module")
def copy_server(tmp_path_factory):
    copy = write_copy(tmp_path_factory.mktemp("contributor") / "project")
    server = AppServer(cwd=copy, env=app_env(), log=SCREENSHOTS / "streamlit-contributor-copy.log")
    try:
        server.start()
    except RuntimeError as e:
        pytest.fail(f"the copy did not start: {e}", pytrace=False)
    yield server
    server.stop()


def test_the_new_lesson_on_the_projector_its_walk_and_the_new_page(copy_server, new_page):
    url, bad = copy_server.url, []
    for lang in ("en", "zh"):
        page = new_page(viewport={"width": 1280, "height": 800})
        goto(page, f"{url}/lessons?lesson=glossary&step=1&lang={lang}", 300)
        open_room_and_present(page, lang, 32)
        # the teacher picks the new lesson in the projector's lesson menu (the room opened on the
        # first): a select box, or whatever menu the page draws (radio buttons, until 2026-12-04)
        menu = page.locator("[data-testid='stMain'] [data-testid='stSelectbox']")
        if menu.count():
            menu.first.click()
            since = arm(page)
            page.get_by_role("option", name=TITLES[lang]).click()
        else:
            since = arm(page)
            page.locator("[data-testid='stMain'] [data-testid='stRadio'] label").filter(
                has_text=TITLES[lang][:12]
            ).first.click()
        wait_for_run_start(page, since=since)
        settle(page)
        if "lesson=glossary" not in page.url:
            bad.append(f"{lang}: the menu did not open the new lesson ({page.url})")
        problem = first_action(page, "lessons")  # the prediction, whose reveal draws the chart
        if problem:
            bad.append(f"{lang}: {problem}")
        charts = page.evaluate(CHARTS_JS)
        page.screenshot(path=str(SCREENSHOTS / f"projector-contributor-lesson-1280-{lang}.png"))
        if not charts:
            bad.append(f"{lang}: the reveal drew no chart")
        elif charts[0]["bottom"] > FOLD:
            bad.append(f"{lang}: the reveal's chart ends at y {charts[0]['bottom']:.0f}, below the projector's screen")
        bad += [f"{lang}: {t}" for t in trouble(page)]
    # every step, by Next, answered (test_walk.py's walk on the new lesson)
    page = new_page()
    goto(page, f"{url}/lessons?lesson=glossary&step=1&lang=en")
    asked = 0
    while True:
        asked += answer_shown_step(page, ("glossary", asked))
        nxt = page.locator("[data-testid='stMain'] button").filter(has_text=re.compile("Next"))
        if not nxt.count() or nxt.first.is_disabled():
            break
        click_and_settle(nxt.first, page)
    if asked != 3:
        bad.append(f"the lesson's walk answered {asked} of its 3 steps")
    # the new page from a fresh link, in Chinese
    goto(page, f"{url}/glossary?lang=zh")
    settle(page)
    title = page.locator("[data-testid='stMain'] h1").first.inner_text()
    if "术语表" not in title:  # the new page's title in Chinese, from its strings file
        bad.append(f"the new page's title reads {title!r}")
    bad += [f"glossary: {e[:300]}" for e in exceptions(page)]
    assert not bad, "\n".join(bad)
