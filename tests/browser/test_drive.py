"""What the browser tests lean on in drive/browser.py: every context its browser makes counts the
server's websocket messages, so a run is seen however fast it is (a context made without that
missed quick runs: "Ctrl+Enter did not rerun the app" while the link already held the sentence),
and arm() refuses a page that would miss them rather than wait 10 s and report no run."""

from __future__ import annotations

import pytest

from drive.browser import arm, goto, settle, submit_text


def test_every_context_counts_the_runs_and_an_uncounted_page_is_refused(app_server, browser):
    ctx = browser.new_context()  # a bare context, as a fixture of a test file makes one
    try:
        page = ctx.new_page()
        goto(page, app_server.url)
        before = page.evaluate("() => window.__attnMessages")
        assert isinstance(before, int) and before > 0, "the first run's messages were not counted"
        assert submit_text(page, "The dog barked at the cat"), "a rerun went unseen"
        assert page.evaluate("() => window.__attnMessages") > before
        settle(page)
        page.evaluate("() => { delete window.WebSocket.__attnCounted; }")  # as an unprepared context's page
        with pytest.raises(RuntimeError, match="counts no websocket messages"):
            arm(page)
    finally:
        ctx.close()


_KEPT: dict[str, object] = {}  # the second visitor's context, from the test before the next one


def test_each_visitor_of_a_test_has_a_context_of_its_own(new_page):
    """new_page (tests/browser/conftest.py): a test's second visitor of the same screen is another
    browser context (its own cookies: a student beside a teacher), the session's second one, kept
    warm for the next test's second visitor."""
    a, b = new_page(), new_page()
    assert a.context is not b.context
    a.context.add_cookies([{"name": "attn_teach", "value": "x", "url": "http://127.0.0.1:1"}])
    assert not b.context.cookies(), b.context.cookies()
    _KEPT["second"] = b.context


def test_the_second_visitor_of_the_next_test_reuses_that_context_its_cookies_cleared(new_page):
    a, b = new_page(), new_page()
    if "second" not in _KEPT:
        pytest.skip("runs after the test above")
    assert b.context is _KEPT["second"] and a.context is not b.context
    assert not a.context.cookies() and not b.context.cookies()
