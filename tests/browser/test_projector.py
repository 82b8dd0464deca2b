"""A class's hour on the projector and on a phone (issue 37), in a real browser, in both languages.

The projector, the real case: a teacher with a room open, in presentation mode, at 1280x800. On
every page of app.py's PAGES that draws a chart, the first chart's x axis ends on the first screen
(y <= 800: Plotly's x axis with its tick labels and title; the in-browser attention view's canvas);
at 1920x1080 it ends on that screen too and the first row's plot areas (the drawn data, not the
chart's box) take >= 60 % of the width. The room code outside presentation mode is >= 32 px and its
QR code one click away. No button or page-link label is cut ("Run to th...") on any page. Two
pages draw their main chart after a click, as in class, and are measured after it: generation
after Step (the button itself on the first screen), the lessons page after a prediction.
Screenshots: screenshots/projector-PAGE-WIDTH-LANG.png and phone-PAGE-LANG.png.

A phone (390x844, touch): no chart text under 11 px on any page, no label cut, Plotly's toolbar
never over a chart's title after a tap, the sidebar closed after a language is picked, and the
skip link in the reader's language.

One server, and one browser context per language and screen that moves from page to page inside
its Streamlit session (the page menu on the projector, the sidebar's links on the phone), as a
teacher does: a fresh load per page costs about 3 s.
"""

from __future__ import annotations

import ast

import pytest

from ui.i18n import LANGS, TABLE

from .helpers import ROOT, SCREENSHOTS, SIDEBAR, arm, exceptions, goto, measure, relaid, settle, wait_for_run_start


def app_pages() -> list[tuple[str, str]]:
    """(url path, title key) of every page, in order, from app.py's PAGES (read from the source, so
    a new page is checked with no list here to edit)."""
    tree = ast.parse((ROOT / "app.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PAGES" for t in node.targets):
            return [(path, key) for _, path, key, _ in ast.literal_eval(node.value)]
    raise AssertionError("app.py has no PAGES list")


PAGES = app_pages()
SCREENSHOTS.mkdir(parents=True, exist_ok=True)
FOLD = {(1280, 800): 800, (1920, 1080): 1080}
WIDE_SHARE = 0.60  # the first row of charts, of the screen's width (issue 37.4)
PHONE_MIN_PX = 11  # chart text on a phone (issue 37.5)
ROOM_CODE_PX = 32  # the room code outside presentation mode, read from a desk away

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


def first_action(page, path: str, lang: str) -> str | None:
    """The pages whose main chart follows a click, as in class: generation draws a step after
    Step; a lesson step reveals the model's numbers (and, to the teacher, the class's) after a
    prediction. The control is on the first screen (else what is wrong), and is clicked."""
    main = page.locator("[data-testid='stMain']")
    if path == "generation":
        control = main.get_by_role("button", name=tr("gen_step", lang))
    elif path == "lessons":
        control = main.locator("[data-testid='stButtonGroup'] button").first
    else:
        return None
    box = control.bounding_box()
    control.click()
    wait_for_run_start(page)
    settle(page)
    if box["y"] + box["height"] > page.viewport_size["height"]:
        return f"{path}: the control that draws the chart ends at y {box['y'] + box['height']:.0f}"
    return None


def first_row(charts: list[dict]) -> list[dict]:
    """The first chart and those beside it (their boxes overlap it vertically: two heatmaps side
    by side, or a chart under a longer title in the next column)."""
    if not charts:
        return []
    first = charts[0]
    return [c for c in charts if c["top"] < first["end"] and c["end"] > first["top"]]


def open_room_and_present(page, lang: str) -> None:
    page.locator(f"{SIDEBAR} summary").filter(has_text=tr("room_section", lang)).first.click()
    page.get_by_role("button", name=tr("room_open", lang)).click()
    page.wait_for_function("() => location.search.includes('room=')")
    settle(page)
    # outside presentation mode: the code large enough for a desk away, the QR one click away
    code = page.locator(".st-key-room_banner strong").first
    px = code.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert px >= ROOM_CODE_PX, f"the room code outside presentation mode is {px} px"
    page.locator(".st-key-room_banner").get_by_role("button", name=tr("room_show_qr", lang)).click()
    qr = page.locator("[data-testid='stPopoverBody'] img").first
    qr.wait_for()
    assert qr.bounding_box()["width"] >= 200  # a QR a phone reads from across a room
    page.keyboard.press("Escape")
    page.locator(f"{SIDEBAR} label", has_text=tr("presentation_mode", lang)).click()
    page.wait_for_function("() => location.search.includes('present=1')")
    settle(page)


def go_present(page, lang: str, i: int, path: str) -> None:
    links = page.locator("[data-testid='stPopoverBody'] a[data-testid='stPageLink-NavLink']")
    if not links.first.is_visible():  # the menu closes on a new page, not on the same one
        page.get_by_role("button", name=tr("present_pages", lang)).click()
    links.first.wait_for()
    since = arm(page)
    links.nth(i).click()
    arrived(page, path, since)


@pytest.mark.parametrize("lang", list(LANGS))
def test_with_a_room_open_every_first_chart_ends_on_the_projector_screen(app_server, new_page, lang):
    page = new_page(viewport={"width": 1280, "height": 800})
    goto(page, f"{app_server.url}/?lang={lang}", 300)
    open_room_and_present(page, lang)
    bad, seen = [], {}
    for i, (path, _) in enumerate(PAGES):
        page.set_viewport_size({"width": 1280, "height": 800})
        go_present(page, lang, i, path)
        problem = first_action(page, path, lang)
        if problem:
            bad.append(f"{problem} ({lang})")
        cut = page.evaluate(CUT_JS)
        if cut:
            bad.append(f"{path} 1280 {lang}: labels cut {cut}")
        if exceptions(page):
            bad.append(f"{path} {lang}: {exceptions(page)[0][:200]}")
        small = page.evaluate(CHARTS_JS)
        page.screenshot(path=str(SCREENSHOTS / f"projector-{path}-1280-{lang}.png"))
        if not small:
            continue  # a page that draws no chart (the lesson editor)
        page.set_viewport_size({"width": 1920, "height": 1080})
        relaid(page)  # plotly and the attention view redraw at the new width
        large = page.evaluate(CHARTS_JS)
        page.screenshot(path=str(SCREENSHOTS / f"projector-{path}-1920-{lang}.png"))
        seen[path] = []
        for (w, h), charts in (((1280, 800), small), ((1920, 1080), large)):
            row = first_row(charts)
            share = sum(c["right"] - c["left"] for c in row) / w
            seen[path].append(f"x axis {charts[0]['bottom']:.0f}, {share:.0%} wide")
            if charts[0]["bottom"] > FOLD[(w, h)]:
                bad.append(f"{path} {w}x{h} {lang}: the first chart's x axis ends at y {charts[0]['bottom']:.0f}")
            if w == 1920 and share < WIDE_SHARE:
                bad.append(f"{path} 1920x1080 {lang}: the first row's plot areas take {share:.0%} of the width")
    print(f"with a room, presentation ({lang}): 1280x800, 1920x1080: {seen}")
    assert seen, "no page drew a chart"
    assert not bad, "\n".join(bad)


_SIDEBAR_OPEN = (
    "() => document.querySelector(\"[data-testid='stSidebar']\")?.getAttribute('data-collapsed') === 'false'"
)

# a chart's title and plotly's toolbar boxes, where both are shown (null: no title or no toolbar)
_MODEBAR_JS = """(gd) => {
  const title = gd.querySelector('.gtitle'), bar = gd.querySelector('.modebar-container');
  const box = e => { if (!e) return null; const s = getComputedStyle(e);
    if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0) return null;
    const r = e.getBoundingClientRect(); return r.width && r.height ? r : null; };
  const t = box(title), b = box(bar && bar.querySelector('.modebar'));
  return {title: !!t, bar: !!b, overlap: !!(t && b && t.left < b.right && b.left < t.right && t.top < b.bottom && b.top < t.bottom)};
}"""


@pytest.mark.parametrize("lang", list(LANGS))
def test_a_phone_reads_every_chart_every_label_and_its_own_language(app_server, new_page, lang):
    page = new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    goto(page, f"{app_server.url}/?lang={lang}", 300)
    bad, smallest = [], {}
    skip = page.locator("[data-testid='stSkipToContent']")
    links = page.locator("a[data-testid='stSidebarNavLink']")
    assert links.count() == len(PAGES)
    for i, (path, _) in enumerate(PAGES):
        since = arm(page)
        links.nth(i).dispatch_event("click")  # a tap on the (closed) sidebar's link
        arrived(page, path, since)
        m = measure(page)
        page.screenshot(path=str(SCREENSHOTS / f"phone-{path}-{lang}.png"))
        smallest[path] = m["min_text"]["px"] if m["min_text"] else None
        if m["min_text"] is not None and m["min_text"]["px"] < PHONE_MIN_PX:
            bad.append(f"{path} 390 {lang}: chart text at {m['min_text']}")
        cut = page.evaluate(CUT_JS)
        if cut:
            bad.append(f"{path} 390 {lang}: labels cut {cut}")
        if skip.text_content() != tr("skip_to_content", lang):
            bad.append(f"{path} {lang}: the skip link reads {skip.text_content()!r}")
        if path == "architecture":  # its charts have titles at the top, where the toolbar appears
            chart = page.locator("[data-testid='stMain'] .js-plotly-plot").first
            chart.scroll_into_view_if_needed()
            chart.tap()
            page.wait_for_timeout(300)
            bar = chart.evaluate(_MODEBAR_JS)
            print(f"architecture {lang}, plotly's toolbar after a tap: {bar}")
            assert bar["title"], bar  # the check can fail: there is a title to cover
            if bar["overlap"]:
                bad.append(f"{path} {lang}: after a tap plotly's toolbar covers the chart's title")
    print(f"phone ({lang}): smallest chart text {smallest}")
    # the sidebar, which covers the page on a phone, closes after the other language is picked
    page.locator(
        "[data-testid='stExpandSidebarButton'], [data-testid='stSidebarCollapsedControl'] button"
    ).first.click()
    page.wait_for_function(_SIDEBAR_OPEN, timeout=10_000)
    other = next(code for code in LANGS if code != lang)
    page.locator(f"{SIDEBAR} label", has_text=LANGS[other]).first.click()
    page.wait_for_function(f"() => location.search.includes('lang={other}')")
    settle(page)
    try:  # it closes as the new language's page is drawn
        page.wait_for_function(f"() => !({_SIDEBAR_OPEN})()", timeout=5_000)
    except Exception:  # playwright's TimeoutError
        bad.append(f"{lang} -> {other}: the sidebar stayed open over the page after a language change")
    try:  # the script that writes it runs once the new language's page is drawn
        page.wait_for_function(
            "t => document.querySelector(\"[data-testid='stSkipToContent']\")?.textContent === t",
            arg=tr("skip_to_content", other),
            timeout=5_000,
        )
    except Exception:  # playwright's TimeoutError
        bad.append(f"{lang} -> {other}: the skip link reads {skip.text_content()!r}")
    assert not bad, "\n".join(bad)


STEPS_VIEW = (
    "() => window.__attentionViews && window.__attentionViews.steps_view && window.__attentionViews.steps_view.h"
)
# the step's title (the top of its subheader "7. ...") and the weights' view: the canvas, its smallest text
STEPS_TITLE_JS = """() => {
  const h = Array.from(document.querySelectorAll("[data-testid='stMain'] h3")).find(e => /^7\\./.test(e.innerText.trim()));
  const v = window.__attentionViews.steps_view, r = v.canvas.getBoundingClientRect();
  return {title: h ? h.getBoundingClientRect().top : null, top: r.top, bottom: r.bottom, minText: v.minTextPx,
          plotly: document.querySelectorAll("[data-testid='stMain'] [data-testid='stPlotlyChart']").length};
}"""


@pytest.mark.parametrize("lang", list(LANGS))
def test_with_a_room_open_the_steps_softmax_weights_end_on_the_projector_screen(app_server, new_page, lang):
    """The steps page's weight matrix (its softmax step) is the in-browser attention view, no
    Plotly chart: with a room open on a projector (1280x800, presentation mode) it comes right
    under the step's title, its heatmap's last row ends on the first screen, the heatmap and the
    row's table beside it take >= 60 % of the width, and nothing it draws is under 16 px; a GPT's
    causal decoder (7 rows) and the translator's cross-attention."""
    bad, seen = [], {}
    for name, kind in (("gpt", ""), ("translator", "&kind=cross")):
        page = new_page(viewport={"width": 1280, "height": 800})
        goto(page, f"{app_server.url}/steps?model={name}{kind}&stage=softmax&lang={lang}", 300)
        open_room_and_present(page, lang)
        page.wait_for_function(STEPS_VIEW, timeout=30_000)
        settle(page)
        m = page.evaluate(STEPS_TITLE_JS)
        row = first_row(page.evaluate(CHARTS_JS))
        page.screenshot(path=str(SCREENSHOTS / f"projector-steps-softmax-{name}-1280-{lang}.png"))
        share = sum(c["right"] - c["left"] for c in row) / 1280
        seen[name] = f"title {m['title']:.0f}, heatmap {m['top']:.0f}-{m['bottom']:.0f}, {share:.0%} wide"
        if m["plotly"]:
            bad.append(f"{name} {lang}: {m['plotly']} Plotly charts on the softmax step")
        if m["title"] is None or not m["title"] < m["top"] < m["title"] + 120:  # the next thing under it
            bad.append(
                f"{name} {lang}: the heatmap starts at y {m['top']:.0f}, not under the step's title {m['title']}"
            )
        if m["bottom"] > FOLD[(1280, 800)]:
            bad.append(f"{name} {lang}: the heatmap ends at y {m['bottom']:.0f}")
        if share < WIDE_SHARE:
            bad.append(f"{name} {lang}: the first row takes {share:.0%} of the width")
        if m["minText"] < 16:
            bad.append(f"{name} {lang}: the view draws text at {m['minText']} px")
        if exceptions(page) or page.rec.errors:
            bad.append(f"{name} {lang}: {exceptions(page)[:1]} {page.rec.errors[:1]}")
    print(f"steps' softmax with a room, presentation ({lang}), 1280x800: {seen}")
    assert not bad, "\n".join(bad)
