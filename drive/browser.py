"""Driving the running app in headless Chromium: launch Debian's chromium, wait for Streamlit to
settle, read what was drawn (charts, the model view's tiles, sizes on screen).

Shared by the browser tests (tests/browser/) and the benchmarks (bench/); see drive/server.py.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import time
from pathlib import Path

from .server import SCREENSHOTS

# Debian's chromium-headless-shell where it is installed (./scripts/test installs it): the same
# Blink and V8 as Debian's chromium, built for headless use only (Playwright's own default for
# headless). The browser phase's pages cost its processes 20 % less CPU than chromium's headless
# mode (13.6-13.7 s against 17.2 s for 12 loads of four pages, 2026-12-05, docs/suite-time.md).
# ATTN_CHROMIUM names another binary (`ATTN_CHROMIUM=chromium` for the full browser).
# The binary itself: Debian's /usr/bin/chromium-headless-shell is a script that does not exec it,
# so a browser killed at a timeout would leave the shell's chromium running.
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM = (
    shutil.which(os.environ.get("ATTN_CHROMIUM", ""))
    or os.environ.get("ATTN_CHROMIUM")
    or (HEADLESS_SHELL if os.access(HEADLESS_SHELL, os.X_OK) else None)
    or shutil.which("chromium")
    or "/usr/bin/chromium"
)
# Playwright's own browser download does not work everywhere this runs: Debian's chromium, with
# everything that would phone home switched off.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}

APP = "[data-testid='stApp']"
SIDEBAR = "section[data-testid='stSidebar']"
EXCEPTION = "[data-testid='stException']"
PLOT = ".js-plotly-plot"


def chromium_problem() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return (
            f"Debian's chromium was not found at {CHROMIUM}. Install it with "
            "`apt-get install -y chromium-headless-shell chromium fonts-noto-cjk` (./scripts/test does this), point "
            "ATTN_CHROMIUM at another chromium binary, or set ATTN_SKIP_BROWSER=1 to skip the "
            "browser tests on purpose."
        )
    return None


def launch(playwright, extra_args=(), **kwargs):
    """Debian's chromium; every context it makes is prepared by count_messages(), so arm() and
    wait_for_run_start() see a run however fast it is. A context made without it counted the
    script state alone and missed a quick run now and then: tests/browser/test_pages.py's home
    fixture, "Ctrl+Enter did not rerun the app" once in three runs on 2026-12-05 (the link
    already held the new sentence: the run had happened, unseen)."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra_args], **kwargs)
    make = browser.new_context

    def new_context(**context_args):
        context = make(**context_args)
        count_messages(context)
        return context

    browser.new_context = new_context
    return browser


# -- waiting for Streamlit -------------------------------------------------------------------
_STATE_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return {
    connection: app ? app.getAttribute('data-test-connection-state') : null,
    script: app ? app.getAttribute('data-test-script-state') : null,
    status: document.querySelectorAll("[data-testid='stStatusWidget']").length,
    stale: document.querySelectorAll("[data-stale='true']").length,
    // placeholders: before the first run's elements arrive, and while a chart's code loads
    // (visible ones: a hidden tab may keep its placeholders until it is opened)
    skeletons: Array.from(document.querySelectorAll("[data-testid='stSkeleton']"))
      .filter(e => e.offsetWidth || e.offsetHeight).length,
    // visible plotly charts whose figure is not drawn yet, and visible attention views (the app's
    // one components-v2 element, ui/attention_view) whose canvas is not drawn yet: its script
    // mounts after the run has ended, so an idle app is not yet a drawn page
    pending: Array.from(document.querySelectorAll("[data-testid='stPlotlyChart']"))
      .filter(c => (c.offsetWidth || c.offsetHeight))
      .filter(c => !Array.from(c.querySelectorAll('.js-plotly-plot')).some(g => g._fullLayout)).length
      + Array.from(document.querySelectorAll("[data-testid='stBidiComponentIsolated']"))
      .filter(c => (c.offsetWidth || c.offsetHeight))
      .filter(c => !(c.shadowRoot && Array.from(c.shadowRoot.querySelectorAll('canvas')).some(v => v.width > 0))).length,
  };
}"""

_RUNNING_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return (app && app.getAttribute('data-test-script-state') === 'running')
      || document.querySelectorAll("[data-testid='stStatusWidget']").length > 0;
}"""


def app_state(page) -> dict:
    return page.evaluate(_STATE_JS)


# settle's wait, in the page: the state above polled every few ms, and a MutationObserver that
# notes the moment stApp's script state turns busy ("running", or "rerunRequested", which the
# browser writes as it sends a widget's change, before the server answers), so a run that starts
# and ends between two polls still restarts the quiet window. Each settle call starts its window
# afresh (its own id): an action just before it has the whole window to start a run.
_SETTLE_JS = (
    """([quietMs, callId]) => {
  if (!window.__attnBusyWatch) {
    window.__attnBusyAt = 0;
    window.__attnBusyWatch = new MutationObserver((records) => {
      for (const r of records) {
        const s = r.target.getAttribute && r.target.getAttribute('data-test-script-state');
        if (s && s !== 'notRunning') window.__attnBusyAt = performance.now();
      }
    });
    window.__attnBusyWatch.observe(document.documentElement,
      {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
  }
  const now = performance.now();
  if (window.__attnSettleId !== callId) { window.__attnSettleId = callId; window.__attnIdleSince = null; }
  const s = ("""
    + _STATE_JS
    + """)();
  const idle = s.connection === 'CONNECTED' && !BUSY.includes(s.script) && !s.status && !s.stale && !s.skeletons && !s.pending;
  if (!idle) { window.__attnIdleSince = null; return false; }
  if (window.__attnIdleSince === null || window.__attnBusyAt > window.__attnIdleSince) window.__attnIdleSince = now;
  return now - window.__attnIdleSince >= quietMs;
}"""
)
# not idle: a run under way or asked for ("initial" and null: before the first run's state)
_BUSY = ("running", "rerunRequested", "stopRequested", "initial", None)
_SETTLE_JS = _SETTLE_JS.replace("BUSY", json.dumps(list(_BUSY)))
_settle_calls = itertools.count()


def settle(page, timeout: float = 120, quiet_polls: int = 3, poll: float = 0.05) -> None:
    """Wait until Streamlit is connected and idle, and has stayed so for quiet_polls * poll
    seconds (0.15 s) from this call on: its status widget ("Running...") is gone, the script is
    neither running nor asked to rerun, no element is stale, no skeleton placeholder is left and
    every plotly chart and attention view has drawn. Checked in the page (_SETTLE_JS) every poll
    seconds, a run start between two checks included, in one round trip (it was one round trip a
    poll, 20-100 ms each on a loaded machine, plus a 0.1 s sleep between polls: 0.3-0.5 s a settle
    with the app already idle). The window covers a run that follows another with no action in
    between; in the lesson walk, the phone walks and the attention page's tabs (2026-12-03, 110
    runs) every run started after an action, and an action's rerun shows at once
    ("rerunRequested", or wait_for_run_start)."""
    quiet_ms = quiet_polls * poll * 1000 if quiet_polls > 1 else 0  # one poll: idle once is enough
    try:
        page.wait_for_function(
            _SETTLE_JS,
            arg=[quiet_ms, next(_settle_calls)],
            polling=max(10, min(50, int(poll * 1000))),
            timeout=timeout * 1000,
        )
    except Exception as e:  # playwright's TimeoutError (or the page went away)
        try:
            last = app_state(page)
            # what the page shows, for a page with no app in it (a blank document, an error page)
            shown = page.evaluate("() => (document.body ? document.body.innerText : '<no body>').slice(0, 300)")
        except Exception:
            last, shown = None, None
        errors = getattr(getattr(page, "rec", None), "errors", None)  # tests/browser's Recorder
        raise TimeoutError(
            f"the app did not settle within {timeout:.0f} s (last state {last}) at {page.url}: {str(e)[:200]}"
            f"; the page shows {shown!r}" + (f"; its JS errors {errors}" if errors else "")
        ) from None


# Counts the runs that start in this document, two ways, so that a run is seen however fast it is:
# - a MutationObserver sees stApp's script state turn "running" (or "rerunRequested") the moment
#   React writes it, so a run that starts and ends between two polls (a cached rerun takes less
#   than one Playwright round trip) is still seen;
# - in a context that count_messages() prepared, every message the server sends on Streamlit's
#   websocket: the server only sends while a run is under way. On a quiet machine a run's
#   "running" and "done" can reach React in one render, and the attribute then never reads
#   "running" (a tile click on the intervene page, 2026-12-03 19:40 UTC: the page had rerun, its
#   link held the change, and the observer saw nothing).
_RUNS = "(window.__attnRuns + (window.__attnMessages || 0))"
_ARM_JS = """() => {
  if (!(window.WebSocket && window.WebSocket.__attnCounted)) return null;  // not counted: arm() refuses
  if (!window.__attnRunWatch) {
    window.__attnRuns = 0;
    window.__attnRunWatch = new MutationObserver((records) => {
      for (const r of records) {
        const s = r.target.getAttribute && r.target.getAttribute('data-test-script-state');
        if (s === 'running' || s === 'rerunRequested') window.__attnRuns++;
      }
    });
    window.__attnRunWatch.observe(document.documentElement,
      {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
  }
  return RUNS;
}""".replace("RUNS", _RUNS)
# Before the app's own script: every WebSocket of the document counts the messages it receives.
_COUNT_MESSAGES_JS = """(() => {
  const Native = window.WebSocket;
  if (!Native || Native.__attnCounted) return;
  window.__attnSent = 0;  // frames this document sent (Sent reads it)
  class Counted extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => { window.__attnMessages = (window.__attnMessages || 0) + 1; });
    }
    send(data) {
      window.__attnSent += 1;
      return super.send(data);
    }
  }
  Counted.__attnCounted = true;
  window.WebSocket = Counted;
})();"""


def count_messages(context) -> None:
    """Prepare a browser context so that arm() and wait_for_run_start() also count the server's
    websocket messages (see _ARM_JS), and Sent the page's, whenever it is made; a context without
    it counts the script state alone."""
    context.add_init_script(_COUNT_MESSAGES_JS)


def arm(page) -> int:
    """Before an action: start counting run starts (see _ARM_JS); pass the count to
    wait_for_run_start. A page whose websocket messages are not counted (its context not made by
    launch()'s browser, nor prepared by count_messages) is refused: it would miss a quick run."""
    runs = page.evaluate(_ARM_JS)
    if runs is None and page.url.startswith("http"):
        raise RuntimeError(
            "arm() on a page whose context counts no websocket messages: make it with drive.browser.launch()"
        )
    return runs or 0


def wait_for_run_start(page, timeout: float = 10, since: int | None = None) -> bool:
    """After an action: wait (briefly) for the rerun it caused to start. False if none did.
    since: arm()'s count from before the action; then a run that has already ended counts too."""
    running = _RUNNING_JS if since is None else f"() => {_RUNS} > {int(since)} || ({_RUNNING_JS})()"
    try:
        page.wait_for_function(running, polling="raf", timeout=timeout * 1000)
        return True
    except Exception:  # playwright's TimeoutError
        return False


_SENT_SO_FAR = "() => typeof window.__attnSent === 'number' ? window.__attnSent : null"


class Sent:
    """Websocket frames the page sent (Streamlit's BackMsgs: a rerun, a widget's value) since it
    was made: a move that stays in the browser sends none. Playwright reports the frames of a
    websocket opened after this is made; a page whose app is already open is counted by the
    context's count_messages script instead (its document's own count), and one with neither is
    refused, as a count that could only read 0 (it did, unseen, for a while)."""

    def __init__(self, page):
        self.page, self._events = page, 0
        page.on("websocket", lambda ws: ws.on("framesent", lambda _: self._one()))
        self._base = page.evaluate(_SENT_SO_FAR)
        if self._base is None and page.url.startswith("http"):
            raise RuntimeError(
                "Sent made on a page already open counts nothing: make it before goto(), or open the "
                "page in a context prepared by count_messages()"
            )

    def _one(self) -> None:
        self._events += 1

    @property
    def frames(self) -> int:
        if self._base is None:
            return self._events
        now = self.page.evaluate(_SENT_SO_FAR)  # this document's count (a new document starts at 0)
        return max(self._events, 0 if now is None else now - self._base)


def goto(page, url: str, timeout: float = 120) -> None:
    page.goto(url, timeout=timeout * 1000, wait_until="domcontentloaded")
    page.wait_for_selector(APP, timeout=timeout * 1000)
    settle(page, timeout)


def sidebar_text(page):
    return page.locator(f"{SIDEBAR} textarea").first


def submit_text(page, text: str, timeout: float = 120) -> bool:
    """Type text into the sidebar's sentence box and apply it with Ctrl+Enter, then settle.
    Returns whether a rerun started (False when the text did not change)."""
    box = sidebar_text(page)
    box.fill(text)
    since = arm(page)
    box.press("Control+Enter")
    started = wait_for_run_start(page, since=since)
    settle(page, timeout)
    return started


def act_and_settle(action, page, timeout: float = 120) -> bool:
    """Do ACTION (a callable), wait for the run it causes to start (False if none did within
    10 s), then settle. settle() alone is not enough after an action whose run starts late:
    Streamlit's slider sends a keyboard move 200 ms after the key (its debounce), after
    settle's 150 ms quiet window (a CI run of test_timeline.py, 2026-12-06, read the old step)."""
    since = arm(page)
    action()
    started = wait_for_run_start(page, since=since)
    settle(page, timeout)
    return started


def click_and_settle(locator, page, timeout: float = 120) -> bool:
    return act_and_settle(locator.click, page, timeout)


# Where the app's own link to a page is: its index among the sidebar navigation's links (the
# link's path, "" for the home page), or -1
_LINK_INDEX_JS = """([selector, path]) => Array.from(document.querySelectorAll(selector)).findIndex(a => {
  const href = a.getAttribute('href') || '';
  const p = /^[a-z]+:/.test(href) ? new URL(href).pathname : href;
  return p.replace(/^\\/+|\\/+$/g, '') === path;
})"""
NAV_LINK = "a[data-testid='stSidebarNavLink']"
MENU_LINK = "[data-testid='stPopoverBody'] a[data-testid='stPageLink-NavLink']"


_ROOM_IN_LINK = "() => new URLSearchParams(location.search).has('room')"


def open_room(page, button_label: str, section_label: str, timeout: float = 60) -> str:
    """The teacher opens a room from the sidebar's classroom section (section_label, opened where
    it is closed) with its button (button_label): the room's code, once the link holds it. The one
    way every browser test (tests/browser/screens.open_room, the labels in a language) and bench
    opens a room (eleven copies until 2026-12-05, most clicking with no wait for the run:
    test_walk.py's teacher, in a phase-2 run at 16:00 UTC, clicked and saw no room in 30 s). Where
    the click started no run that opened one within half the timeout and the button is still
    there, it is clicked once more (a click lost as the page redrew)."""
    from urllib.parse import parse_qs, urlparse

    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    button = page.get_by_role("button", name=button_label)  # shown ones only (a hidden copy too)
    if not button.is_visible():
        page.locator(f"{SIDEBAR} summary").filter(has_text=section_label).first.click()
        button.wait_for(state="visible", timeout=timeout * 1000)
    for attempt in range(2):
        click_and_settle(button, page, timeout)
        try:
            page.wait_for_function(_ROOM_IN_LINK, timeout=timeout * 500)
            break
        except PlaywrightTimeout:
            if attempt or not button.is_visible():
                raise
    settle(page, timeout)
    return parse_qs(urlparse(page.evaluate("() => location.href")).query)["room"][0]


def link_address(page) -> str:
    """The address bar now. Not page.url: the sync API updates that only while it handles the
    browser's events (inside a Playwright call), so a loop of page.url and time.sleep reads an old
    address for ever."""
    return page.evaluate("() => location.href")


def link_query(page) -> dict:
    """The link's query now, one value a key."""
    from urllib.parse import parse_qs, urlparse

    return {k: v[0] for k, v in parse_qs(urlparse(link_address(page)).query).items()}


def link_sentence(page) -> str:
    """The sentence the link holds now (a room's students follow it: tests/browser/test_rooms.py,
    bench/follow.py)."""
    return link_query(page).get("text", "")


def wait_until(pages, check, timeout: float) -> list[float]:
    """Seconds until check(page) held, for each page (inf where it never did within timeout)."""
    start, done = time.perf_counter(), {}
    while time.perf_counter() - start < timeout and len(done) < len(pages):
        for i, p in enumerate(pages):
            if i not in done and check(p):
                done[i] = time.perf_counter() - start
        pages[0].wait_for_timeout(50)
    return [done.get(i, float("inf")) for i in range(len(pages))]


def show_every_page(page) -> None:
    """The sidebar's menu with every page listed: it shows ui.layout.NAV_SHOWN of them and a
    "View N more" button (app.py); that button clicked where it is there and says more."""
    more = page.locator("[data-testid='stSidebarNavViewButton']")
    if more.count() and page.evaluate(_NAV_COLLAPSED_JS):
        more.first.dispatch_event("click")  # a tap's click event: a closed sidebar's too (a phone)
        page.wait_for_function(f"() => !({_NAV_COLLAPSED_JS})()", timeout=10_000)


# the menu lists fewer links than app.py has pages (its "View N more" button not yet clicked)
_NAV_COLLAPSED_JS = r"""() => {
  const nav = document.querySelector("[data-testid='stSidebarNav']");
  const more = document.querySelector("[data-testid='stSidebarNavViewButton']");
  return !!(nav && more && /\d/.test(more.innerText));
}"""


def go_in_app(page, path: str, timeout: float = 120) -> None:
    """Move to the app's page PATH ("" for the home page) inside this Streamlit session, as a
    reader does: its link in the sidebar's navigation (a tap's click event, which also reaches a
    link of a closed sidebar, as on a phone), or in presentation mode, where the sidebar has no
    navigation, in the page menu; then settle. No fresh page load (the JS bundle, the websocket,
    a first run); the session's settings (language, presentation mode, model, sentence) come
    along. Fails if the app ends on another page."""
    i = page.evaluate(_LINK_INDEX_JS, [NAV_LINK, path])
    if i < 0:  # a page past the menu's first few: "View N more"
        show_every_page(page)
        i = page.evaluate(_LINK_INDEX_JS, [NAV_LINK, path])
    links = page.locator(NAV_LINK)
    if i < 0:  # presentation mode: the page menu (ui.layout.page_switcher), opened if closed
        links = page.locator(MENU_LINK)
        if not links.first.is_visible():
            page.locator("[data-testid='stPopover'] button").filter(has_text="📑").first.click()
            links.first.wait_for()
        i = page.evaluate(_LINK_INDEX_JS, [MENU_LINK, path])
    assert i >= 0, f"no link to /{path} in the navigation or the page menu at {page.url}"
    since = arm(page)
    links.nth(i).dispatch_event("click")
    wait_for_run_start(page, since=since)
    settle(page, timeout)
    here = page.evaluate("() => location.pathname").strip("/").rsplit("/", 1)[-1]
    assert here == path, f"went to /{here}, not /{path}"


# The attention views in the document, found by their elements (each .av element holds its view's
# test API) rather than by window.__attentionViews' keys: a key names one view per key, and a view
# replaced in the document may hold it a moment after (a clean clone's run read "no chart" on
# home while the screenshot showed the view drawn, 2026-12-05 and 2026-12-06)
VIEWS_IN_PAGE = (
    "Array.from(document.querySelectorAll(\"[data-testid='stBidiComponentIsolated']\"))"
    ".map(c => (c.shadowRoot || c).querySelector('.av')).filter(av => av && av.__attentionView)"
    ".map(av => av.__attentionView)"
)

# every visible chart drawn at its box's width: plotly's figure (it lays out again after its box
# changes: a new window size, a column's width) and the attention view (it redraws on a resize)
_LAID_OUT_JS = """() => {
  const shown = e => e.offsetWidth || e.offsetHeight;
  const plots = Array.from(document.querySelectorAll('.js-plotly-plot')).filter(shown);
  const views = VIEWS_IN_PAGE.filter(v => shown(v.element));
  return plots.every(gd => gd._fullLayout && Math.abs(gd._fullLayout.width - gd.offsetWidth) < 2)
      && views.every(v => v.drawnWidth === v.element.clientWidth);
}""".replace("VIEWS_IN_PAGE", VIEWS_IN_PAGE)


def relaid(page, timeout: float = 30) -> None:
    """After the window's size changed: wait until every visible chart is drawn at its box's new
    width, then settle (instead of a fixed wait for plotly's redraw)."""
    page.wait_for_function(_LAID_OUT_JS, polling=50, timeout=timeout * 1000)
    settle(page, timeout)


def nav_links(page, base: str) -> list[str]:
    """The app's pages, from the links of its navigation (sidebar or top), without query strings."""
    hrefs = page.eval_on_selector_all(
        "[data-testid='stSidebarNav'] a[href], [data-testid='stTopNavLink'] a[href], "
        "a[data-testid='stSidebarNavLink'], a[data-testid='stTopNavLink']",
        "els => els.map(e => e.href)",
    )
    out = []
    for h in hrefs:
        h = h.split("#")[0].split("?")[0]
        if h.startswith(base) and "/_stcore" not in h and h not in out:
            out.append(h)
    return out


def exceptions(page) -> list[str]:
    return [e.inner_text()[:2000] for e in page.locator(EXCEPTION).all()]


def plot_summaries(page) -> list[dict]:
    """Each plotly chart on the page: its trace types, sizes and title (from the live graph div)."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => ({
        visible: !!(gd.offsetWidth || gd.offsetHeight),
        drawn: !!gd._fullLayout,
        types: (gd.data || []).map(t => t.type || 'scatter'),
        y: gd.data && gd.data[0] && gd.data[0].y ? Array.from(gd.data[0].y).map(String) : null,
        x: gd.data && gd.data[0] && gd.data[0].x ? Array.from(gd.data[0].x).map(String) : null,
        shapes: ((gd.layout || {}).shapes || []).length,
        title: (((gd.layout || {}).title || {}).text) || '',
    }))""")


def view_summaries(page) -> list[dict]:
    """Each attention view (ui/attention_view, drawn on canvas in a shadow root) as plot_summaries
    describes a chart: visible, drawn, its rows (y: the query labels) and keys (x)."""
    return page.evaluate(
        """() => VIEWS_IN_PAGE.filter(v => v.canvas)
      .map(v => ({
        visible: !!(v.canvas.offsetWidth || v.canvas.offsetHeight),
        drawn: !!(v.ready && v.canvas.width),
        types: ['attention_view'],
        y: v.ready ? Array.from(v.labels.q).map(String) : null,
        x: v.ready ? Array.from(v.labels.k).map(String) : null,
        shapes: 0,
        title: '',
      }))""".replace("VIEWS_IN_PAGE", VIEWS_IN_PAGE)
    )


def chart_summaries(page) -> list[dict]:
    """Every chart on the page, Plotly's and the attention views: where a test means "a chart"."""
    return plot_summaries(page) + view_summaries(page)


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# -- the model view: one image of every head, with an invisible marker per tile (customdata [layer, head]) --
def reach_model(page, key: str, timeout: float = 60) -> None:
    """The reader reaches for the in-browser model of attention view KEY (ui/attention_view/view.js,
    armReach: it loads on a pointer, touch, key or focus in the view or the sentence box, not with
    the page): focus on the view's chart, as a keyboard reader's Tab gives it. Focus, not a
    pointer: it needs no spot on the screen that nothing covers (a phone's open sidebar covers the
    chart), and it neither scrolls the page nor shows a tip. Waits for the view first."""
    page.wait_for_function(
        "k => window.__attentionViews && window.__attentionViews[k] && window.__attentionViews[k].ready",
        arg=key,
        timeout=timeout * 1000,
    )
    page.evaluate("k => window.__attentionViews[k].canvas.focus({preventScroll: true})", key)


_MODEL_VIEW = """Array.from(document.querySelectorAll('.js-plotly-plot'))
    .find(g => g.offsetWidth && (g.data || []).some(t => t.type === 'image'))"""
SCROLL_TO_MODEL_VIEW = f"""() => {_MODEL_VIEW}?.scrollIntoView({{block: 'center'}})"""
# where tile [layer, head] is on screen, and the view's numbers of layers, heads and shapes (a chosen
# tile is outlined by a shape); null when no model view is drawn
TILE_XY = f"""([layer, head]) => {{
    const gd = {_MODEL_VIEW};
    if (!gd) return null;
    const fl = gd._fullLayout, xa = fl.xaxis, ya = fl.yaxis;
    const markers = gd._fullData.find(t => t.type === 'scatter' && t.customdata);
    const i = markers.customdata.findIndex(c => Number(c[0]) === layer && Number(c[1]) === head);
    const r = gd.getBoundingClientRect();
    return {{x: r.left + xa._offset + xa.l2p(markers.x[i]), y: r.top + ya._offset + ya.l2p(markers.y[i]),
            layers: new Set(markers.customdata.map(c => Number(c[0]))).size,
            heads: new Set(markers.customdata.map(c => Number(c[1]))).size,
            shapes: (fl.shapes || []).length}};
}}"""


def view_tile_xy(page, layer: int, head: int, key: str = "att_view") -> dict | None:
    """The centre of tile (layer, head) of the attention view's model view (ui/attention_view),
    its page turned to that layer and scrolled into sight: {x, y, layers, heads}, or None."""
    return page.evaluate(
        """([key, la, h]) => { const v = (window.__attentionViews || {})[key];
          if (!v) return null;
          const c = v.tile(la, h); return c && {...c, layers: v.shape.L, heads: v.shape.H}; }""",
        [key, layer, head],
    )


def tile_xy(page, layer: int, head: int) -> dict | None:
    """The model view scrolled to the middle of the window, then TILE_XY of tile (layer, head)
    (0-based): {x, y, layers, heads, shapes}, or None when the page draws no model view."""
    page.evaluate(SCROLL_TO_MODEL_VIEW)
    return page.evaluate(TILE_XY, [layer, head])


# -- what a screen shows: the first chart's place and size, the smallest chart text, sideways scroll --
CHARTS = (
    "[data-testid='stPlotlyChart'], [data-testid='stVegaLiteChart'], [data-testid='stImage'], "
    "[data-testid='stArrowVegaLiteChart'], [data-testid='stGraphVizChart'], "
    "[data-testid='stBidiComponentIsolated']"  # ui/attention_view: canvas in a shadow root
)
MEASURE_JS = f"""() => {{
  const vw = window.innerWidth, vh = window.innerHeight;
  const main = document.querySelector("[data-testid='stMain']") || document.body;
  const shown = e => {{ const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; }};
  const charts = Array.from(main.querySelectorAll("{CHARTS}")).filter(shown)
    .filter(e => !e.parentElement.closest("{CHARTS}"));
  const box = e => {{ const r = e.getBoundingClientRect();
    return {{left: r.left, top: r.top + window.scrollY, width: r.width, height: r.height}}; }};
  // every text a plotly or SVG vega chart draws, with its rendered size in CSS px
  const texts = [];
  for (const c of charts) {{
    for (const t of c.querySelectorAll('svg text')) {{
      if (!t.textContent.trim()) continue;
      const s = getComputedStyle(t);
      if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0) continue;
      const r = t.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      let px = parseFloat(s.fontSize);
      const svg = t.ownerSVGElement;  // an SVG drawn scaled (viewBox) renders its text scaled too
      if (svg && svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width)
        px *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const tick = !!t.closest('.xtick, .ytick, .x2tick, .y2tick, .role-axis-label');
      texts.push({{px: Math.round(px * 10) / 10, tick, text: t.textContent.slice(0, 30)}});
    }}
  }}
  // the attention view draws on canvas: it reports the smallest size it drew (a tick: its labels),
  // and its own controls and table are DOM text in its shadow root
  const views = charts.map(c => c.shadowRoot && c.shadowRoot.querySelector('.av')).filter(v => v);
  for (const av of views) {{
    const v = av.__attentionView;
    if (v && isFinite(v.minTextPx)) texts.push({{px: v.minTextPx, tick: true, text: 'attention view canvas'}});
    for (const t of av.querySelectorAll('p, th, td, button, label > span, output')) {{
      if (!t.innerText || !t.innerText.trim() || !shown(t)) continue;
      texts.push({{px: parseFloat(getComputedStyle(t).fontSize), tick: false, text: t.innerText.slice(0, 30)}});
    }}
  }}
  const min = a => a.length ? a.reduce((m, t) => t.px < m.px ? t : m) : null;
  const allTabs = [...main.querySelectorAll("[role='tab']"), ...views.flatMap(v => [...v.querySelectorAll("[role='tab']")])];
  const tabs = allTabs.filter(shown).map(t => {{
    const r = t.getBoundingClientRect(); return {{text: t.innerText.trim().slice(0, 30), left: r.left, right: r.right}}; }});
  // legends drawn outside their chart (a horizontal legend wider than a phone runs off its edge)
  const legends_out = [];
  for (const c of charts) {{
    const r = c.getBoundingClientRect();
    for (const g of c.querySelectorAll('g.legend')) {{
      const l = g.getBoundingClientRect();
      if (l.width && (l.left < r.left - 1 || l.right > r.right + 1 || l.top < r.top - 1))
        legends_out.push({{chart_right: Math.round(r.right), legend_right: Math.round(l.right), legend_left: Math.round(l.left)}});
    }}
  }}
  // presentation mode's main slot (ui.layout.main_area): the charts in it that start on the
  // first screen, and the box they span together (two heatmaps side by side count as one view)
  const slot = document.querySelector('.st-key-present_main');
  const lead = slot ? charts.filter(c => slot.contains(c)).map(box).filter(b => b.top < vh) : [];
  const main_row = lead.length ? {{
    count: lead.length,
    left: Math.min(...lead.map(b => b.left)),
    right: Math.max(...lead.map(b => b.left + b.width)),
    top: Math.min(...lead.map(b => b.top)),
  }} : null;
  const mainEl = document.querySelector("[data-testid='stMain']");
  return {{
    vw, vh, legends_out, main_row,
    main_scroll_width: mainEl ? mainEl.scrollWidth : 0,
    main_client_width: mainEl ? mainEl.clientWidth : 0,
    scroll_width: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    charts: charts.length,
    first: charts.length ? box(charts[0]) : null,
    kind: charts.length ? charts[0].getAttribute('data-testid') : null,
    min_text: min(texts),
    min_tick: min(texts.filter(t => t.tick)),
    tabs,
    hidden_tabs: tabs.filter(t => t.left < -1 || t.right > vw + 1).map(t => t.text),
  }};
}}"""


def measure(page) -> dict:
    """MEASURE_JS on the page as it is now: viewport (vw, vh), scroll_width, the first chart's box
    (left, top in page coordinates, width, height) and kind, the smallest chart text and tick label
    ({{px, text}}), the tabs and those outside the viewport (hidden_tabs)."""
    return page.evaluate(MEASURE_JS)
