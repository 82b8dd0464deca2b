"""Browser tests: the real app (`streamlit run app.py`) driven by Debian's chromium.

One app server and one browser serve the whole session (per pytest-xdist worker). Every test that
uses them is marked `browser`. Without chromium those tests FAIL with a message saying how to install it; set
ATTN_SKIP_BROWSER=1 to skip them on purpose (a silent skip would hide a broken CI).
Screenshots and the server's log land in screenshots/ (gitignored).
"""

from __future__ import annotations

import json
import os
import re

import pytest

from .helpers import CHROMIUM, ROOT, VIEWPORT, axe_problem, chromium_problem, launch, served

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
        # one renderer process per site in a browser context: a new tab of a context that already
        # shows the app reuses that process, its compiled JS and decoded resources (new_page)
        b = launch(pw, extra_args=["--process-per-site"])
    except Exception as e:  # a chromium that cannot start is a broken test machine, not a skip
        pw.stop()
        pytest.fail(f"chromium at {CHROMIUM} did not start: {e}", pytrace=False)
    yield b
    b.close()
    pw.stop()


@pytest.fixture(scope="module")
def published():
    """Every shipped model's graph and the tokenizer in static/models/ (ui.browser_model.publish:
    exported into the cache on the first run, about 10-40 s a model; later runs copy nothing), so
    the pages hand our models to the browser (ui/attention_view/live.js)."""
    from ui import browser_model

    browser_model.publish()


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


CONTEXT_DEFAULTS = {"viewport": VIEWPORT, "accept_downloads": True, "locale": "en-US"}


@pytest.fixture(scope="session")
def _shared_contexts(browser):
    """A browser context per context configuration (viewport, phone, locale...), kept for the
    session, in which each test's first page opens (new_page)."""
    contexts: dict[str, object] = {}
    yield contexts
    for ctx in list(contexts.values()):
        ctx.close()


def _keep_warm(ctx, page) -> None:
    """After a test: its shared-context tab stays, moved to the server's health address (the
    document, its websocket and so its Streamlit session end), as the context's keeper of the
    site's renderer process; the keeper before it is closed. A tab on no http page is closed."""
    if page.is_closed():
        return
    if not page.url.startswith("http"):
        page.close()
        return
    try:
        origin = "/".join(page.url.split("/", 3)[:3])
        page.goto(origin + "/_stcore/health", wait_until="domcontentloaded", timeout=10_000)
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    except Exception:  # a server a test has stopped: nothing to keep warm for
        page.close()
        return
    old = getattr(ctx, "attn_keeper", None)
    if old is not None and not old.is_closed():
        old.close()
    ctx.attn_keeper = page


@pytest.fixture
def new_page(browser, _shared_contexts, request):
    """new_page(**context_args) -> a page with .rec (a Recorder); a dialog on any page fails the
    test.

    The test's first page of given context_args is a new tab of the session's shared context for them
    (its cookies cleared first: no teacher's cookie or room of an earlier test comes along); a
    new tab of that context reuses the renderer process that drew the app before (about 1.7 s
    instead of 3.4 s for a fresh load of the generation page, 2026-12-03), and a new document is a
    new Streamlit session, as a link opened by a new visitor is. Every further page of the test with
    the same context_args is another visitor, with a browser context of its own (its own cookies:
    its own Streamlit session, a student beside a teacher): the n-th such visitor of a test takes
    the session's n-th context for those args, cookies cleared, kept warm as the first is (a fresh
    context for each cost a new renderer: Streamlit's code and onnxruntime's WebAssembly compiled
    again, 11 times in a run of phase 2, 2026-12-05). fresh=True: a fresh context whatever came
    before (a test of what a cold browser fetches)."""
    made = []

    def make(fresh: bool = False, **context_args):
        args = {**CONTEXT_DEFAULTS, **context_args}
        # the n-th visitor of these context_args in this test takes the session's n-th context for
        # them: one visitor, one context (its own cookies), and a warm renderer across tests
        n = sum(1 for _, _, k in made if k and k[0] == json.dumps(args, sort_keys=True, default=str))
        key = None if fresh else (json.dumps(args, sort_keys=True, default=str), n)
        if key is not None:
            ctx = _shared_contexts.get(key)
            if ctx is None:
                ctx = _shared_contexts[key] = browser.new_context(**args)  # prepared (drive.browser.launch)
                ctx.on("close", lambda _, key=key: _shared_contexts.pop(key, None))  # a test closed it
            ctx.clear_cookies()
        else:
            ctx = browser.new_context(**args)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        page.rec = Recorder(page)
        made.append((ctx, page, key))
        return page

    yield make
    dialogs = [d for _, p, _ in made for d in p.rec.dialogs]
    for ctx, page, key in made:
        if key is None:
            ctx.close()
        elif _shared_contexts.get(key) is ctx:  # not closed by the test
            _keep_warm(ctx, page)
    assert not dialogs, f"a page opened a dialog: {dialogs}"


def slug(url: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", url.split("://", 1)[-1].split("/", 1)[-1]).strip("_") or "home"


__all__ = ["ROOT", "slug"]


@pytest.fixture(scope="module")
def axe_installed():
    """For a module whose tests run axe-core (`pytestmark = pytest.mark.usefixtures("axe_installed")`):
    where axe-core is missing, the module fails at its start saying how to install it, not after a
    walk of every page (three modules wrote this fixture out until 2026-12-05)."""
    problem = axe_problem()
    if problem:
        pytest.fail(problem, pytrace=False)
