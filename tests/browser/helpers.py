"""The browser and server tests' helpers: drive/ (starting the app, driving Chromium, shared with
bench/) and what only the tests use (a fixture's server, axe-core).
"""

from __future__ import annotations

from drive.browser import (  # noqa: F401  (the tests import these from here)
    APP,
    CHARTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    EXCEPTION,
    MEASURE_JS,
    PLOT,
    SCROLL_TO_MODEL_VIEW,
    SIDEBAR,
    TILE_XY,
    VIEWPORT,
    app_state,
    arm,
    chart_summaries,
    chromium_problem,
    click_and_settle,
    count_messages,
    exceptions,
    go_in_app,
    goto,
    launch,
    measure,
    nav_links,
    plot_summaries,
    relaid,
    screenshot,
    settle,
    show_every_page,
    sidebar_text,
    submit_text,
    tile_xy,
    view_summaries,
    view_tile_xy,
    wait_for_run_start,
)
from drive.server import MODELS, ROOT, SCREENSHOTS, AppServer, app_env, free_port, has_trained_weights  # noqa: F401


def served(log_name: str, env: dict | None = None):
    """For a fixture to `yield from`: an app server started with app_env() and env (its log in
    screenshots/LOG_NAME), stopped afterwards; one that does not start fails the test with why."""
    import pytest

    server = AppServer(env={**app_env(), **(env or {})}, log=SCREENSHOTS / log_name)
    try:
        server.start()
    except RuntimeError as e:
        pytest.fail(f"the app did not start: {e}", pytrace=False)
    yield server
    server.stop()


# -- axe-core (npm, pinned in tests/browser/node/package.json; scripts/test installs it) ----------
AXE_JS = ROOT / "tests" / "browser" / "node" / "node_modules" / "axe-core" / "axe.min.js"
_AXE_RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ').slice(-120))}));
}"""


def axe_problem() -> str | None:
    if AXE_JS.exists():
        return None
    return (
        f"axe-core is not installed at {AXE_JS}: run `npm install --prefix tests/browser/node` "
        "(./scripts/test does this)"
    )


def axe_violations(page) -> list[dict]:
    """axe-core's violations on the page as it is now: [{id, impact, help, nodes}]."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    return page.evaluate(_AXE_RUN)
