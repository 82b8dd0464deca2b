"""What every page looks like on a projector and on a phone, measured in Chromium, in both languages.

Presentation mode (1280x800 and 1920x1080): the page's main chart (ui.layout.main_area) starts on
the first screen, its charts span at least 60 % of the width, and no chart label is under 16 px.
A phone (390x844, touch): nothing scrolls sideways, no chart text under 11 px, every tab on
screen, every legend inside its chart, the sidebar closed after Apply. axe-core (tests/browser/node,
pinned) in all three, both languages: 0 serious or critical violations, and no heading-order jump
in the normal view (other moderate ones are printed); every chart has a text alternative.

One browser context per language and screen walks the pages one after another inside its
Streamlit session, by the sidebar's links (visit()); a fresh load opens only the first page and
the two whose link sets their state, 3 of 13 per walk (the walks loaded every page afresh, 78
loads of about 2-3 s each; a fresh link of every page is test_pages.py's test).
"""

from __future__ import annotations

import pytest

from .helpers import axe_problem, axe_violations, go_in_app, goto, measure, relaid, screenshot, settle

# (url path, query): a query that puts the page's main chart on screen (generation: three tokens
# drawn; steps: the scores step)
PAGES = [
    ("", ""),
    ("attention", ""),
    ("temperature", ""),
    ("positional", ""),
    ("generation", "done=3"),
    ("steps", "step=6"),
    ("architecture", ""),
    ("intervene", ""),
    ("compare", ""),
    ("cost", ""),
    ("timeline", ""),
    ("lessons", ""),
    ("editor", ""),
]
# the lessons page opens on a question; its charts are the answer's, drawn after the prediction;
# the lesson editor draws no chart (its preview does, once opened)
NO_CHART_FIRST = {"lessons", "editor"}
LANGS = ("en", "zh")
BAD = ("serious", "critical")


def url(base: str, path: str, query: str, **more) -> str:
    q = "&".join(x for x in [query, *(f"{k}={v}" for k, v in more.items())] if x)
    return f"{base}/{path}" + (f"?{q}" if q else "")


def visit(page, base: str, i: int, path: str, query: str, **more) -> None:
    """The walk's move to page i, PATH: the first page and a page whose QUERY sets its state
    (generation's three tokens, the steps page's step) from a fresh link; any other inside the
    session, by its sidebar link, with the session's language and presentation mode."""
    if i == 0 or query:
        goto(page, url(base, path, query, **more))
    else:
        go_in_app(page, path)
    assert ("present=1" in page.url) is bool(more.get("present")), page.url  # the walk kept its mode


def name(path: str) -> str:
    return path or "home"


def serious(violations) -> list[dict]:
    return [v for v in violations if v["impact"] in BAD]


@pytest.fixture(scope="module", autouse=True)
def _axe_installed():
    problem = axe_problem()
    if problem:
        pytest.fail(problem, pytrace=False)


def first_screen_checks(m: dict, where: str) -> list[str]:
    """What is wrong with the presentation-mode measurement m of one page (empty: nothing)."""
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


@pytest.mark.parametrize("lang", LANGS)
def test_presentation_mode_puts_the_main_chart_on_the_first_screen(app_server, new_page, lang):
    page = new_page(viewport={"width": 1280, "height": 800})
    # a fresh server's first visit draws the loading message first (ui/boot.py, test_first_visit)
    goto(page, url(app_server.url, "", "", lang=lang))
    bad, seen = [], {}
    for i, (path, query) in enumerate(PAGES):
        page.set_viewport_size({"width": 1280, "height": 800})
        visit(page, app_server.url, i, path, query, present=1, lang=lang)
        small = measure(page)
        found = serious(axe_violations(page))
        if found:
            bad.append(f"{name(path)} 1280 {lang}: axe {found}")
        page.set_viewport_size({"width": 1920, "height": 1080})
        relaid(page)  # plotly and the attention view redraw at the new width
        large = measure(page)
        if path in NO_CHART_FIRST:
            continue
        for m, size in ((small, "1280x800"), (large, "1920x1080")):
            bad += first_screen_checks(m, f"{name(path)} {size} {lang}")
        seen[name(path)] = [
            f"{(m['main_row']['right'] - m['main_row']['left']) / m['vw']:.0%} top {m['main_row']['top']:.0f}"
            if m["main_row"]
            else None
            for m in (small, large)
        ]
    screenshot(page, f"screens-present-{lang}")
    print(f"presentation ({lang}): width share and top at 1280x800, 1920x1080: {seen}")
    assert not bad, "\n".join(bad)


def test_the_page_switcher_stays_in_presentation_mode_and_the_room_code_is_large(app_server, new_page):
    page = new_page(viewport={"width": 1280, "height": 800})
    goto(page, url(app_server.url, "attention", ""))
    page.get_by_text("Classroom").first.click()
    page.get_by_role("button", name="Open a room (teacher)").click()
    page.wait_for_function("() => location.search.includes('room=')")
    settle(page)
    page.locator("section[data-testid='stSidebar'] label", has_text="Presentation mode").click()
    page.wait_for_function("() => location.search.includes('present=1')")
    settle(page)
    assert page.locator("section[data-testid='stSidebar']").first.is_hidden()
    code_px = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('.st-key-room_banner strong')).fontSize)"
    )
    print(f"room code on the projector: {code_px} px")
    assert code_px >= 48
    page.get_by_role("button", name="Pages").click()
    links = page.locator("[data-testid='stPopoverBody'] a[data-testid='stPageLink-NavLink']")
    links.first.wait_for()
    assert links.count() == len(PAGES)
    page.locator("[data-testid='stPopoverBody'] a", has_text="Compare").click()
    page.wait_for_url("**/compare**")
    settle(page)
    assert "present=1" in page.url
    assert page.locator("h1", has_text="Compare").count() == 1
    assert page.locator("section[data-testid='stSidebar']").first.is_hidden()  # still on the projector
    assert measure(page)["main_row"] is not None


@pytest.mark.parametrize("lang", LANGS)
def test_phone_no_sideways_scroll_readable_charts_reachable_tabs(app_server, new_page, lang):
    page = new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    bad, smallest, tabs = [], {}, {}
    for i, (path, query) in enumerate(PAGES):
        visit(page, app_server.url, i, path, query, lang=lang)
        m = measure(page)
        where = f"{name(path)} 390 {lang}"
        if m["scroll_width"] > m["vw"] or m["main_scroll_width"] > m["main_client_width"] + 1:
            bad.append(f"{where}: scrolls sideways ({m['scroll_width']}, main {m['main_scroll_width']})")
        if m["min_text"] is not None and m["min_text"]["px"] < 11:
            bad.append(f"{where}: chart text at {m['min_text']}")
        if m["hidden_tabs"]:
            bad.append(f"{where}: tabs off the screen {m['hidden_tabs']}")
        if m["legends_out"]:
            bad.append(f"{where}: legend outside its chart {m['legends_out']}")
        if path not in NO_CHART_FIRST and m["first"] and m["first"]["width"] < 0.85 * m["vw"]:
            bad.append(f"{where}: first chart {m['first']['width']:.0f} px wide, not full width")
        found = serious(axe_violations(page))
        if found:
            bad.append(f"{where}: axe {found}")
        smallest[name(path)] = m["min_text"]["px"] if m["min_text"] else None
        tabs[name(path)] = len(m["tabs"])
    print(f"phone ({lang}): smallest chart text {smallest}; tabs on screen {tabs}")
    # the check can fail: the attention page's three tabs and its attention view's three were measured
    assert tabs["attention"] == 6, tabs
    assert not bad, "\n".join(bad)


# what a chart's text alternative (ui.layout.chart_alt) and the page's outline look like
_ALT_JS = """() => {
  const main = document.querySelector("[data-testid='stMain']");
  const charts = main.querySelectorAll("[data-testid='stPlotlyChart']");
  const alts = Array.from(main.querySelectorAll('.attn-chart-alt'));
  const first = charts[0];
  // the first chart's own alternative: the last one before it in document order
  const before = first ? alts.filter(a => a.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING) : [];
  const box = alts.length ? alts[0].getBoundingClientRect() : null;
  return {charts: charts.length, alts: alts.length, first: before.length ? before[before.length - 1].textContent : null,
          seenPx: box ? box.width * box.height : 0};
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_axe_normal_view_nothing_serious_no_heading_jump_every_chart_described(app_server, new_page, lang):
    """1280 x 800, sidebar open, both languages: axe-core's serious and critical counts (0) and its
    heading-order rule (moderate; every page's h1 -> h3 jump was flagged before ui.layout's hidden
    h2), and every plotly chart's text alternative, computed from its data and in the page's
    language, just before the chart and taking no room on screen."""
    page = new_page(viewport={"width": 1280, "height": 800})
    bad, moderate, described = [], {}, {}
    for i, (path, query) in enumerate(PAGES):
        visit(page, app_server.url, i, path, query, lang=lang)
        found = axe_violations(page)
        bad += [f"{name(path)} {lang}: {v}" for v in serious(found)]
        bad += [f"{name(path)} {lang}: {v}" for v in found if v["id"] == "heading-order"]
        moderate[name(path)] = sorted({v["id"] for v in found if v["impact"] not in BAD})
        alt = page.evaluate(_ALT_JS)
        if alt["charts"] and alt["alts"] < alt["charts"]:
            bad.append(f"{name(path)} {lang}: {alt['charts']} charts, {alt['alts']} text alternatives")
        if alt["charts"] and not alt["first"]:
            bad.append(f"{name(path)} {lang}: no text alternative before the first chart")
        if alt["first"] and lang == "zh" and not any("\u4e00" <= c <= "\u9fff" for c in alt["first"]):
            bad.append(f"{name(path)} zh: the text alternative is not Chinese: {alt['first'][:80]}")
        if alt["seenPx"] > 1:
            bad.append(f"{name(path)} {lang}: the text alternative takes {alt['seenPx']} px on screen")
        described[name(path)] = (alt["first"] or "")[:70]
    print(f"axe, normal view ({lang}), moderate and minor: {moderate}")
    print(f"first chart's text alternative ({lang}): {described}")
    assert not bad, "\n".join(bad)


_SIDEBAR_OPEN = (
    "() => document.querySelector(\"[data-testid='stSidebar']\")?.getAttribute('data-collapsed') === 'false'"
)


@pytest.mark.parametrize("width", [390, 1280])
def test_the_sidebar_closes_after_apply_on_a_phone_only(app_server, new_page, width):
    """Issue 24: on a phone the sidebar covers the page, and it stayed open over the results after
    Apply. It closes there (<= 480 px) and stays open on a laptop."""
    phone = width <= 480
    page = new_page(viewport={"width": width, "height": 844 if phone else 800}, is_mobile=phone, has_touch=phone)
    goto(page, url(app_server.url, "", "", lang="en"))
    if not page.evaluate(_SIDEBAR_OPEN):
        page.locator(
            "[data-testid='stExpandSidebarButton'], [data-testid='stSidebarCollapsedControl'] button"
        ).first.click()
        page.wait_for_function(_SIDEBAR_OPEN, timeout=10_000)
    box = page.locator("section[data-testid='stSidebar'] textarea").first
    box.fill("The dog sat on the mat")
    box.evaluate("e => e.blur()")  # a tap on Apply leaves the box first
    # the button is below the phone's first screen, in the sidebar's own scroll box, where
    # Playwright's click finds it "not visible"; a tap's click event instead
    page.locator("section[data-testid='stSidebar']").get_by_role(
        "button", name="Apply", exact=True
    ).first.dispatch_event("click")
    settle(page)
    page.wait_for_timeout(500)
    assert page.evaluate(_SIDEBAR_OPEN) is (not phone)
    assert "dog" in page.url  # the sentence was applied (it is in the link)


STEPS_VIEW = (
    "() => window.__attentionViews && window.__attentionViews.steps_view && window.__attentionViews.steps_view.h"
)


@pytest.mark.parametrize("lang", LANGS)
def test_steps_softmax_weights_on_a_projector_and_a_phone(app_server, new_page, lang):
    """The steps page's softmax step draws its weight matrix with the in-browser attention view
    (no Plotly chart on the step), for a GPT's causal decoder and the translator's
    cross-attention: in presentation mode at 1280x800 the heatmap and the row's table start under
    the step's title and span >= 60 % of the width, no label under 16 px; on a phone (390x844) the
    view is as wide as the screen, nothing scrolls sideways, no text it draws or writes is under
    11 px; axe-core finds nothing serious or critical in either. Screenshots: screens-steps-softmax-MODEL-present-LANG and -phone-LANG."""
    bad, seen = [], {}
    for name, kind in (("gpt", ""), ("translator", "&kind=cross")):
        page = new_page(viewport={"width": 1280, "height": 800})
        goto(page, url(app_server.url, "steps", f"model={name}{kind}&stage=softmax", present=1, lang=lang))
        page.wait_for_function(STEPS_VIEW, timeout=30_000)
        m = measure(page)
        bad += first_screen_checks(m, f"steps softmax {name} 1280x800 {lang}")
        if m["kind"] != "stBidiComponentIsolated":
            bad.append(f"steps softmax {name} {lang}: the first chart is a {m['kind']}")
        plotly = page.locator("[data-testid='stMain'] [data-testid='stPlotlyChart']").count()
        if plotly:
            bad.append(f"steps softmax {name} {lang}: {plotly} Plotly charts")
        found = serious(axe_violations(page))
        if found:
            bad.append(f"steps softmax {name} 1280 {lang}: axe {found}")
        screenshot(page, f"screens-steps-softmax-{name}-present-{lang}")
        row = m["main_row"] or {}
        present = f"{(row.get('right', 0) - row.get('left', 0)) / m['vw']:.0%} top {row.get('top', 0):.0f}"

        phone = new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
        goto(phone, url(app_server.url, "steps", f"model={name}{kind}&stage=softmax", lang=lang))
        phone.wait_for_function(STEPS_VIEW, timeout=30_000)
        phone.locator("[data-testid='stBidiComponentIsolated']").first.scroll_into_view_if_needed()
        p = measure(phone)
        where = f"steps softmax {name} 390 {lang}"
        if p["scroll_width"] > p["vw"] or p["main_scroll_width"] > p["main_client_width"] + 1:
            bad.append(f"{where}: scrolls sideways ({p['scroll_width']}, main {p['main_scroll_width']})")
        # the smallest text the view draws on its canvas or writes in its table, caption, buttons
        small = p["min_text"]
        if small is None or small["px"] < 11:
            bad.append(f"{where}: chart text at {small}")
        if p["first"] is None or p["first"]["width"] < 0.85 * p["vw"]:
            bad.append(f"{where}: the first chart is {p['first']}, not the screen's width")
        found = serious(axe_violations(phone))
        if found:
            bad.append(f"{where}: axe {found}")
        screenshot(phone, f"screens-steps-softmax-{name}-phone-{lang}")
        wide = p["first"]["width"] if p["first"] else 0
        seen[name] = f"present {present}; phone {wide:.0f} px wide, text >= {small and small['px']} px"
    print(f"steps' softmax ({lang}): {seen}")
    assert not bad, "\n".join(bad)
