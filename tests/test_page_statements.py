"""What a page says about itself to the tests, as module-level statements read without running it
(tests/apptest.py, page_statement): FIRST_CHART_AFTER, the control a class clicks before the page
draws its main chart, which the screen walks click first (tests/browser/screens.py, first_action).
A statement that names no control of its page, or whose clicks draw nothing new, fails here, in
the first phase, before a browser walk looks for it."""

from __future__ import annotations

import pytest

from lessons.pages import app_pages
from tests.apptest import open_page, page_statement

DECLARED = {f: page_statement(f, "FIRST_CHART_AFTER") for f, _, _, _ in app_pages()[0]}
DECLARED = {f: after for f, after in DECLARED.items() if after is not None}


def test_pages_declare_what_draws_their_main_chart():
    """The enumeration finds something: at least the generation and steps pages, whose charts follow
    a click, declare theirs."""
    assert {"pages/generation.py", "pages/steps.py"} <= set(DECLARED), sorted(DECLARED)


def _drawn(at) -> list[str]:
    """What the main area shows, element by element (type and text), to tell a change."""
    return [f"{type(e).__name__}:{getattr(e, 'value', '')!s:.80}" for e in at.main]


def _enabled(at, key: str) -> list:
    """The enabled buttons and pill groups whose key is `key` or starts with it."""
    found = [b for b in at.button if b.key and b.key.startswith(key) and not b.disabled]
    return found + [g for g in at.button_group if g.key and g.key.startswith(key) and not g.disabled]


@pytest.mark.parametrize("file", sorted(DECLARED))
def test_the_declared_clicks_are_there_and_draw(file):
    key, clicks = DECLARED[file]
    assert isinstance(key, str) and key and isinstance(clicks, int) and clicks >= 1, DECLARED[file]
    at = open_page(file, "gpt", lang="en", text="The cat sat on the mat")
    before = _drawn(at)
    for n in range(clicks):
        controls = _enabled(at, key)
        assert controls, f"{file}: click {n + 1} of {clicks}: no enabled control keyed {key}..."
        control = controls[0]
        # a button is clicked; a pill group (a lesson's prediction) gets its first option
        (control.set_value(0) if type(control).__name__ == "ButtonGroup" else control.click()).run()
        assert not at.exception, [e.value for e in at.exception]
    assert _drawn(at) != before, f"{file}: {clicks} clicks on {key} drew nothing new"
