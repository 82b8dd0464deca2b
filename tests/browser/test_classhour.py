"""A class's hour in the lesson editor (issue 37), in a real browser, in English and Chinese, on
one server and browser: a repeated word is graded at the occurrence the teacher chose (row "mat",
key the second "the": the weight on that "the", not on "The"), picked from the editor's lists by
typing, as a teacher does. (That every question type opens on defaults that build with no warning
is tests/test_editor.py's, for every model: the browser's walk of it, the translator in English and
the GPT in Chinese, read the same warnings, 46 s of phase 2, until 2026-12-05.)"""

from __future__ import annotations

import pytest

import model
from lessons import defaults, queries
from ui.i18n import TABLE

from .helpers import arm, exceptions, goto, settle, wait_for_run_start

SENTENCE = "The cat sat on the mat"
THE2 = {"word": "the", "occurrence": 2}


def main(page):
    return page.locator("[data-testid='stMain']")


def pick(page, label: str, option: str) -> None:
    """Open the select, filter its long list as a user would, click the option. A list that kept
    redrawing under the option (a rerun landing meanwhile, on a loaded machine: CI 2026-12-05, 30 s
    of "element was detached") is closed and opened again, once."""
    from playwright.sync_api import TimeoutError as Timeout

    for attempt in (1, 2):
        main(page).get_by_role("combobox", name=label).click()
        page.keyboard.type(option[:8])
        since = arm(page)
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=15_000)
        except Timeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            settle(page)
            continue
        wait_for_run_start(page, since=since)
        settle(page)
        return


def warnings(page) -> list[str]:
    return main(page).locator("[data-testid='stAlertContentWarning']").all_inner_texts()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_repeated_word_is_graded_at_the_chosen_occurrence(app_server, new_page, lang):
    tr = lambda key: TABLE[key][lang]  # noqa: E731
    runner = model.load("translator", device="cpu")
    _, view, _ = defaults.default_step("cell_weight", runner, SENTENCE, "slider")  # the view the form opens on
    want = queries.run("cell_weight", runner, SENTENCE, view, {"word": "mat", "key": THE2}, "slider")
    other = queries.run("cell_weight", runner, SENTENCE, view, {"word": "mat", "key": "The"}, "slider")
    assert want["params"]["weight"] != other["params"]["weight"]  # so grading on "The" would show
    page = new_page()
    goto(page, app_server.url + f"/editor?model=translator&lang={lang}", 300)
    pick(page, tr("ed_query"), tr("ed_query_cell_weight"))
    pick(page, tr("ed_arg_word"), "mat")
    pick(page, tr("ed_arg_key"), "the₂")  # pick() settles after its rerun
    computed = tr("ed_computed").split("{")[0].strip("* ")
    line = main(page).locator("p", has_text=computed).first.inner_text()  # the answer and the question
    assert f"{computed}{want['params']['weight']}".replace(" ", "") in line.replace(" ", ""), line
    assert "the₂" in line, line  # the question names the occurrence
    assert not warnings(page) and not exceptions(page)
