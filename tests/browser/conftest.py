"""Browser tests: the real app (`streamlit run app.py`) driven by Debian's chromium.

One app server and one browser serve the whole session. Every test that uses them is marked
`browser`. Without chromium those tests FAIL with a message saying how to install it; set
ATTN_SKIP_BROWSER=1 to skip them on purpose (a silent skip would hide a broken CI).
Screenshots and the server's log land in screenshots/ (gitignored).
"""

from __future__ import annotations

import os
import re

import pytest

from .helpers import CHROMIUM, ROOT, VIEWPORT, chromium_problem, launch, served

BROWSER_FIXTURES = {"app_server", "browser", "new_page"}
SKIP = os.environ.get("ATTN_SKIP_BROWSER") == "1"


@pytest.hookimpl(tryfirst=True)  # before -m selects: `-m "not browser"` must see the marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
            if SKIP:
                item.add_marker(pytest.mark.skip(reason="ATTN_SKIP_BROWSER=1"))


@pytest.fixture(scope="session")
def app_server():
    # a log per pytest-xdist worker: ./scripts/test runs the untimed browser tests on two
    yield from served(f"streamlit-browser-tests{os.environ.get('PYTEST_XDIST_WORKER', '')}.log")


@pytest.fixture(scope="session")
def browser():
    problem = chromium_problem()
    if problem:
        pytest.fail(problem, pytrace=False)
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        b = launch(pw)
    except Exception as e:  # a chromium that cannot start is a broken test machine, not a skip
        pw.stop()
        pytest.fail(f"chromium at {CHROMIUM} did not start: {e}", pytrace=False)
    yield b
    b.close()
    pw.stop()


class Recorder:
    """What a page did that it must not: open a dialog (alert/confirm/prompt), throw in JS."""

    def __init__(self, page):
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda e: self.errors.append(str(e)[:300]))

    def _dialog(self, dialog):
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()


@pytest.fixture
def new_page(browser, request):
    """new_page() -> a page in a fresh browser context (its own cookies: its own Streamlit
    session). Each page has .rec (a Recorder); a dialog on any of them fails the test."""
    made = []

    def make(**context_args):
        ctx = browser.new_context(**{"viewport": VIEWPORT, "accept_downloads": True, "locale": "en-US", **context_args})
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        page.rec = Recorder(page)
        made.append((ctx, page))
        return page

    yield make
    dialogs = [d for _, p in made for d in p.rec.dialogs]
    for ctx, _ in made:
        ctx.close()
    assert not dialogs, f"a page opened a dialog: {dialogs}"


def slug(url: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", url.split("://", 1)[-1].split("/", 1)[-1]).strip("_") or "home"


__all__ = ["ROOT", "slug"]
