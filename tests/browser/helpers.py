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
    Sent,
    act_and_settle,
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
    reach_model,
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


# -- the in-browser model (ui/attention_view/live.js): what its pages' tests read of a view --------
def view_js(key: str) -> str:
    """The view KEY's test API (ui/attention_view/view.js api()) as a JavaScript expression."""
    return f"window.__attentionViews && window.__attentionViews.{key}"


def live_ready(key: str) -> str:
    """A function for wait_for_function: view KEY is loaded and its chart is the browser's run."""
    v = view_js(key)
    return f"() => {v} && {v}.ready && {v}.source === 'browser'"


def wait_live(page, key: str, timeout: float = 60) -> None:
    """The reader reaches for view KEY's model (drive.browser.reach_model: it loads then, not with
    the page), and the chart becomes the browser's run: waited for."""
    reach_model(page, key, timeout)
    page.wait_for_function(live_ready(key), timeout=timeout * 1000)


def live_settled(page, key: str, timeout: float = 60) -> None:
    """The reader reaches for view KEY's model, and it either loads or says why it cannot (no graph
    published: "off"): what the view computes is then fixed for the test's moves."""
    reach_model(page, key, timeout)
    v = view_js(key)
    page.wait_for_function(f"() => {v}.liveReady || {v}.liveReason", timeout=timeout * 1000)


def view_api(page, key: str, expr: str):
    """expr evaluated with v = view KEY's test API."""
    return page.evaluate(f"() => {{ const v = {view_js(key)}; return {expr}; }}")


def open_without_webassembly(new_page, url: str, key: str):
    """URL opened in a browser without WebAssembly (an old phone's): view KEY must fall back to the
    server's chart and say why on the chart (its source line names WebAssembly). The page."""
    page = new_page()
    page.add_init_script("delete window.WebAssembly;")
    goto(page, url)
    v = view_js(key)
    page.wait_for_function(f"() => {v} && {v}.ready && {v}.liveReason === 'no-webassembly'", timeout=60_000)
    source = page.locator(".av-source")
    assert source.get_attribute("data-source") == "server", source.get_attribute("data-source")
    assert "WebAssembly" in source.inner_text(), source.inner_text()
    return page


def view_move(page, key: str, **patch) -> float | None:
    """A move through view KEY's test API (as the reader's controls make it): the answer's ms."""
    return page.evaluate(f"async (p) => await {view_js(key)}.move(p)", patch)


def sentence_box(page):
    """The sidebar's sentence box."""
    return page.locator("[data-testid='stSidebar'] textarea").first


def type_in_box(page, key: str, typed: str, until: str | None = None, delay: int = 30) -> int:
    """Type at the end of the sidebar's sentence box and wait until view KEY's in-browser model
    answered for the new sentence (until: a JavaScript condition on v, the view's test API; by
    default its keys hold the last word typed); returns the websocket frames the page sent
    meanwhile (none: the box sends on Apply or when it is left)."""
    sent = Sent(page)
    sentence_box(page).click()
    page.keyboard.press("End")
    answers = len(view_api(page, key, "v.liveFrames"))
    page.keyboard.type(typed, delay=delay)
    until = until or f"v.labels.k.join('').includes({typed.split()[-1]!r})"
    page.wait_for_function(
        f"() => {{ const v = {view_js(key)}; return v.liveFrames.length > {answers} && ({until}); }}"
    )
    page.wait_for_timeout(300)
    return sent.frames


def drag_temperature(page, to: float) -> None:
    """Press the attention view's temperature slider's thumb (at T = 1, its middle), move it in 20
    steps to fraction `to` of the track, and hold it there (page.mouse.up() lets go)."""
    page.locator(".av-temp").scroll_into_view_if_needed()  # a mouse drag needs the thumb on screen
    box = page.locator(".av-temp").bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] / 2, y)
    page.mouse.down()
    for i in range(1, 21):
        page.mouse.move(box["x"] + box["width"] * (0.5 + (to - 0.5) * i / 20), y)


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
_AXE_RUN = """async (within) => {
  const r = await axe.run(within ? document.querySelector(within) : document, {resultTypes: ['violations']});
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


def axe_violations(page, within: str | None = None) -> list[dict]:
    """axe-core's violations on the page as it is now: [{id, impact, help, nodes}]; within: a CSS
    selector, the part of the page checked (the whole document's rules, such as its language, then
    skipped)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    return page.evaluate(_AXE_RUN, within)


# every canvas fillText with whether the transform in force turns the text (its matrix's b is not 0):
# what the in-browser attention views draw (open_view(watch=True); drawn_text)
WATCH_TEXT = """(() => {
  if (window.__drawnText) return;
  window.__drawnText = [];
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    const m = this.getTransform();
    window.__drawnText.push({ text: String(text), turned: Math.abs(m.b) > 1e-6 });
    return fill.call(this, text, ...rest);
  };
})();"""


def open_view(new_page, url: str, view: str | None = None, watch: bool = False, width: int = 1280, height: int = 800):
    """A page at url in a new tab (1280 x 800 unless told), settled; with watch, every canvas text it draws is
    recorded (drawn_text); with view, after that in-browser attention view (window.__attentionViews[view])
    says it is ready."""
    page = new_page(viewport={"width": width, "height": height})
    if watch:
        page.add_init_script(WATCH_TEXT)
    goto(page, url)
    if view:
        page.wait_for_function(
            f"() => window.__attentionViews && window.__attentionViews.{view} && window.__attentionViews.{view}.ready",
            timeout=60_000,
        )
        settle(page)
    return page


def drawn_text(page) -> list[dict]:
    """What the watched page drew on its canvases so far: [{text, turned}]."""
    return page.evaluate("() => window.__drawnText")
