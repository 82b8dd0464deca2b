"""What the screen tests measure on every page, shared by test_projector.py (a projector with a
room open) and test_screens.py (a phone, the normal view): the pages, from app.py; each chart's
box; labels cut by an ellipsis; presentation mode's first-screen rule; and the click after which a
page draws its main chart, as in class.
"""

from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from drive import browser as drive_browser
from lessons.pages import file_of
from tests.apptest import page_statement, pages_of_app
from ui.i18n import TABLE, text_in

from .helpers import SIDEBAR, arm, click_and_settle, relaid, settle, wait_for_run_start


def app_pages() -> list[tuple[str, str]]:
    """(url path, title key) of every page, in order, from app.py's PAGES (read from the source, so
    a new page is checked with no list here to edit)."""
    return [(path, key) for _, path, key, _ in pages_of_app()[0]]


PAGES = app_pages()
# the lesson editor draws no chart (its preview does, once opened); the lessons page's charts are a
# step's answer: it is measured after a prediction, not held to the first-screen rule
NO_CHART_FIRST = {"lessons", "editor"}
BAD = ("serious", "critical")  # axe-core's impacts that fail a page

# Each chart in the main area in document order, with the bottom of its x axis (page coordinates)
# and its plot area's left and right: Plotly's from the live figure (the plot area, then the tick
# labels and the axis title below it, whichever is lowest); the attention view's canvas box (its
# width with the row's table beside it).
CHARTS_JS = """() => {
  const main = document.querySelector("[data-testid='stMain']");
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const out = [];
  for (const c of main.querySelectorAll("[data-testid='stPlotlyChart'], [data-testid='stBidiComponentIsolated']")) {
    if (!shown(c)) continue;
    const box = c.getBoundingClientRect();
    const gd = c.querySelector('.js-plotly-plot');
    const canvas = c.shadowRoot && c.shadowRoot.querySelector('canvas');
    let bottom, left, right;
    if (gd && gd._fullLayout && gd._fullLayout.xaxis) {
      const g = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = xa._anchorAxis;
      bottom = ya ? g.top + ya._offset + ya._length : g.bottom;
      for (const t of gd.querySelectorAll('g.xtick text, .g-xtitle text')) {
        const r = t.getBoundingClientRect();
        if (r.height) bottom = Math.max(bottom, r.bottom);
      }
      left = g.left + xa._offset; right = left + xa._length;
    } else if (canvas) {
      const r = canvas.getBoundingClientRect();
      bottom = r.bottom; left = r.left; right = r.right;
      // the view's chart is its heatmap and, beside it, the tutorial's table of the selected row
      // (the heatmap's own reading, issue 35); a table under the heatmap adds no width
      const table = c.shadowRoot.querySelector('.av-side .av-table');
      if (table && shown(table)) {
        const t = table.getBoundingClientRect();
        if (t.top < r.bottom && t.left >= r.right - 1) right = Math.max(right, t.right);
      }
    } else continue;  // a chart not drawn yet: settle() waits for those
    out.push({kind: c.getAttribute('data-testid'), top: box.top + scrollY, end: box.bottom + scrollY,
              bottom: bottom + scrollY, left, right});
  }
  return out;
}"""

# Labels cut by an ellipsis (or clipped): each visible button, page link or tab on screen (not in a
# closed sidebar) whose text, or an element of it, is wider than its box while its overflow is hidden.
CUT_JS = """() => {
  const vw = window.innerWidth, out = [];
  for (const host of document.querySelectorAll("button, a[data-testid], [role='tab']")) {
    const r = host.getBoundingClientRect();
    if (r.width < 4 || r.height < 4 || r.right <= 0 || r.left >= vw) continue;
    for (const e of [host, ...host.querySelectorAll('*')]) {
      if (!e.textContent.trim()) continue;
      const s = getComputedStyle(e);
      const clips = s.textOverflow === 'ellipsis' || s.overflowX === 'hidden';
      if (clips && e.scrollWidth > e.clientWidth + 1) { out.push(host.innerText.replace(/\\s+/g, ' ').trim().slice(0, 40)); break; }
    }
  }
  return out;
}"""


def tr(key: str, lang: str) -> str:
    return TABLE[key][lang]


def serious(violations) -> list[dict]:
    return [v for v in violations if v["impact"] in BAD]


def here(page) -> str:
    return page.evaluate("() => location.pathname").rstrip("/").rsplit("/", 1)[-1]


def arrived(page, path: str, since: int) -> None:
    """After a click on PATH's link (since: arm()'s count from before it): its run, then every
    chart drawn at its column's width (plotly lays out once more at it)."""
    wait_for_run_start(page, 5, since=since)
    settle(page, 300)
    relaid(page)
    want = "" if path == PAGES[0][0] else path  # the first page is the app's root, "/"
    assert here(page) == want, f"went to {here(page)!r}, not {want!r}"


def chart_after(path: str) -> tuple[str, int] | None:
    """The page's own FIRST_CHART_AFTER: the key (or the start of the key) of the control a class
    clicks before the page draws its main chart, and how many clicks; None for a page that draws
    it at once."""
    after = page_statement(file_of(path), "FIRST_CHART_AFTER")
    return None if after is None else (str(after[0]), int(after[1]))


def first_action(page, path: str, on_screen: bool = True) -> str | None:
    """On the pages whose main chart follows a click, as in class (generation draws a step after
    Step; the steps page's charts begin at its mask step; a lesson step reveals the model's
    numbers after a prediction): the click each declares (FIRST_CHART_AFTER), the last one
    measured as the others. on_screen: that control must be on the first screen (else what is
    wrong)."""
    after = chart_after(path)
    if after is None:
        return None
    key, clicks = after
    main = page.locator("[data-testid='stMain']")

    def control():
        found = main.locator(f"[class*='st-key-{key}'] button:not([disabled]):visible").first
        assert found.count(), f"{path}: no enabled button keyed {key}... (its FIRST_CHART_AFTER)"
        return found

    for _ in range(clicks - 1):
        click_and_settle(control(), page)
    button = control()
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    since = arm(page)
    button.click()
    wait_for_run_start(page, since=since)
    settle(page)
    relaid(page)
    if on_screen and box["y"] + box["height"] > page.viewport_size["height"]:
        return f"{path}: the control that draws the chart ends at y {box['y'] + box['height']:.0f}"
    return None


def first_row(charts: list[dict]) -> list[dict]:
    """The first chart and those beside it (their boxes overlap it vertically: two heatmaps side
    by side, or a chart under a longer title in the next column)."""
    if not charts:
        return []
    first = charts[0]
    return [c for c in charts if c["top"] < first["end"] and c["end"] > first["top"]]


def first_screen_checks(m: dict, where: str) -> list[str]:
    """What is wrong with the presentation-mode measurement m (drive.browser.measure) of one page
    (empty: nothing): its main slot's charts start in the first three quarters of the screen, span
    >= 60 % of its width, and no tick label or other chart text is under 16 px."""
    bad = []
    row = m["main_row"]
    if row is None:
        return [f"{where}: no chart in the main slot starts on the first screen (first chart: {m['first']})"]
    share = (row["right"] - row["left"]) / m["vw"]
    if share < 0.60:
        bad.append(f"{where}: the main charts span {share:.0%} of the width")
    if row["top"] >= m["vh"] * 0.75:
        bad.append(f"{where}: the main chart starts at y = {row['top']:.0f} of {m['vh']}")
    if m["min_tick"] is None or m["min_tick"]["px"] < 16:
        bad.append(f"{where}: smallest tick label {m['min_tick']}")
    if m["min_text"] is not None and m["min_text"]["px"] < 16:
        bad.append(f"{where}: smallest chart text {m['min_text']}")
    return bad


def open_room(page, lang: str = "en", timeout: float = 60) -> str:
    """The teacher opens a room from the sidebar, its labels in LANG: the room's code
    (drive.browser.open_room)."""
    return drive_browser.open_room(page, tr("room_open", lang), tr("room_section", lang), timeout)


def open_room_and_present(page, lang: str, room_code_px: float) -> str:
    """The teacher opens a room in the sidebar, checks the code is large enough for a desk away
    (>= room_code_px outside presentation mode) and its QR one click away, then turns on
    presentation mode; the room's code."""
    room = open_room(page, lang)
    code = page.locator(".st-key-room_banner strong").first
    px = code.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert px >= room_code_px, f"the room code outside presentation mode is {px} px"
    page.locator(".st-key-room_banner").get_by_role("button", name=tr("room_show_qr", lang)).click()
    qr = page.locator("[data-testid='stPopoverBody'] img").first
    qr.wait_for()
    assert qr.bounding_box()["width"] >= 200  # a QR a phone reads from across a room
    page.keyboard.press("Escape")
    page.locator(f"{SIDEBAR} label", has_text=tr("presentation_mode", lang)).click()
    page.wait_for_function("() => location.search.includes('present=1')")
    settle(page)
    return room


# -- the numbers written on bar charts, as a class reads them (issue 50 item 9) ----------------------
# Measured as rendered, in the phone walk (test_screens.py, >= 12 px) and the projector's
# (test_projector.py, a room open, presentation mode: >= 18 px), on every page, in both languages:
# the text's font size times the scale Plotly applies to it (Plotly shrank outside values to their
# bar's width: 8.4 px on a phone, 14 px on the projector), and no two values drawn over each other.
# (tests/browser/test_bar_values.py measured generation and lessons alone on both screens, 35 s of
# phase 2, until 2026-12-05.)
BAR_PHONE_MIN, BAR_PROJECTOR_MIN = 12, 18
PAGES_WITH_BARS = ("generation",)  # whose first chart (after Step) is bars with values: must be found
BAR_VALUES_JS = """() => Array.from(document.querySelectorAll("[data-testid='stMain'] svg text.bartext"))
  .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
  .map(t => {
    const m = t.getScreenCTM(), svg = t.ownerSVGElement.getScreenCTM();
    const scale = Math.hypot(m.a, m.b) / Math.hypot(svg.a, svg.b);
    const r = t.getBoundingClientRect();
    return {px: Math.round(parseFloat(getComputedStyle(t).fontSize) * scale * 10) / 10, text: t.textContent,
            box: [r.left, r.top, r.right, r.bottom]};
  })"""


def overlapping(values) -> list:
    """Pairs of values drawn over each other (boxes sharing more than a pixel both ways)."""
    out = []
    for i, a in enumerate(values):
        for b in values[i + 1 :]:
            (l1, t1, r1, b1), (l2, t2, r2, b2) = a["box"], b["box"]
            if min(r1, r2) - max(l1, l2) > 1 and min(b1, b2) - max(t1, t2) > 1:
                out.append((a["text"], b["text"]))
    return out


def bar_value_problems(page, path: str, where: str, floor: float) -> tuple[list[str], float | None]:
    """What is wrong with the bar values PATH's page draws now (none drawn where PAGES_WITH_BARS
    says there must be, one under floor px, two over each other), and the smallest one's size."""
    values = page.evaluate(BAR_VALUES_JS)
    px = min(v["px"] for v in values) if values else None
    bad = []
    if px is None and path in PAGES_WITH_BARS:
        bad.append(f"{where}: no bar values drawn")
    elif px is not None and px < floor:
        bad.append(f"{where}: bar values at {px} px: {values[:4]}")
    if overlapping(values):
        bad.append(f"{where}: bar values drawn over each other: {overlapping(values)[:4]}")
    return bad, px


def answer_line(lang: str) -> str:
    """The start of the line the projector shows once a step is revealed ("The model's answer is"),
    as a page's text reads it (markdown's asterisks gone)."""
    return text_in(lang, "lesson_the_answer", answer="\x00").split("\x00")[0].replace("*", "")


def revealed(page, line: str) -> str:
    """The projector's main area once the revealed answer's line is drawn, waited for up to 30 s:
    settle() can end in a quiet moment of the teacher's reruns (the class's results refresh every
    3 s) while the main area holds the room's bar and the results but not the step (a clean clone's
    room walk, 2026-12-05, the check lesson's step 3; test_teacher_reveal.py in Chinese with the
    server tests' waiting lane beside it, 2026-12-06), and each passed alone right after. Every
    reveal a test asserts on reads the projector through this. The text is returned either way, so
    the assertion still says what the projector showed."""
    try:
        page.wait_for_function(
            "([sel, line]) => (document.querySelector(sel)?.innerText || '').includes(line)",
            arg=["[data-testid='stMain']", line],
            timeout=30_000,
        )
    except PlaywrightTimeout:
        pass
    return page.locator("[data-testid='stMain']").inner_text()
