"""What every page looks like on a phone, measured in Chromium, in both languages (a projector
with a room open: test_projector.py; the normal view with its sidebar open: test_pages.py's fresh
links).

A phone (390x844, touch): nothing scrolls sideways, no chart text under 11 px, no label cut, every
tab on screen, every legend inside its chart, the first chart as wide as the screen, Plotly's
toolbar never over a chart's title after a tap, the skip link in the reader's language, and the
sidebar closed after Apply and after a language is picked, every bar value at >= 12 px and none
over another. On every page, too: axe-core (tests/browser/node, pinned) finds 0 serious or
critical violations (other moderate ones are printed) and no heading-order jump, and every chart
has a text alternative in the page's language that takes no room on screen.

One browser context per language walks the pages of app.py's PAGES one after another inside its
Streamlit session, by the sidebar's links; a page whose main chart follows a click (generation's
Step, the steps page's mask step, a lesson's prediction: screens.first_action) gets that click, as
in class. One fresh load a walk (the walks loaded every page afresh, 78 loads of about 2-3 s each;
a fresh link of every page is test_pages.py's test). The phone walk of test_projector.py and this
file's were one each until 2026-12-03, when they became this one walk; the normal view's walk
(1280x800, both languages: axe, heading order, text alternatives; 55 s of phase 2) became part of
it on 2026-12-05: none of its checks reads the screen's size, and the desktop's open sidebar is
axe's in test_pages.py.
"""

from __future__ import annotations

import pytest

from ui.i18n import LANGS

from .helpers import (
    SCREENSHOTS,
    SIDEBAR,
    arm,
    axe_violations,
    goto,
    measure,
    settle,
    show_every_page,
)
from .screens import (
    BAD,
    BAR_PHONE_MIN,
    CUT_JS,
    NO_CHART_FIRST,
    PAGES,
    arrived,
    bar_value_problems,
    first_action,
    serious,
    tr,
)

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
PHONE_MIN_PX = 11  # chart text on a phone (issue 37.5)


def name(path: str) -> str:
    return path or "home"


pytestmark = pytest.mark.usefixtures("axe_installed")  # tests/browser/conftest.py


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


def phone_checks(page, path: str, lang: str) -> tuple[list[str], dict]:
    """What is wrong with one page on the phone as it is now (empty: nothing), and measure()'s
    reading of it."""
    m = measure(page)
    where = f"{name(path)} 390 {lang}"
    bad = []
    if m["scroll_width"] > m["vw"] or m["main_scroll_width"] > m["main_client_width"] + 1:
        bad.append(f"{where}: scrolls sideways ({m['scroll_width']}, main {m['main_scroll_width']})")
    if m["min_text"] is not None and m["min_text"]["px"] < PHONE_MIN_PX:
        bad.append(f"{where}: chart text at {m['min_text']}")
    if m["hidden_tabs"]:
        bad.append(f"{where}: tabs off the screen {m['hidden_tabs']}")
    if m["legends_out"]:
        bad.append(f"{where}: legend outside its chart {m['legends_out']}")
    if path not in NO_CHART_FIRST and m["first"] and m["first"]["width"] < 0.85 * m["vw"]:
        bad.append(f"{where}: first chart {m['first']['width']:.0f} px wide, not full width")
    cut = page.evaluate(CUT_JS)
    if cut:
        bad.append(f"{where}: labels cut {cut}")
    found = axe_violations(page)
    bad += [f"{where}: axe {v}" for v in serious(found)]
    # axe's heading-order rule (moderate; every page's h1 -> h3 jump was flagged before ui.layout's
    # hidden h2)
    bad += [f"{where}: {v}" for v in found if v["id"] == "heading-order"]
    m["moderate"] = sorted({v["id"] for v in found if v["impact"] not in BAD})
    alt = page.evaluate(_ALT_JS)
    if alt["charts"] and alt["alts"] < alt["charts"]:
        bad.append(f"{where}: {alt['charts']} charts, {alt['alts']} text alternatives")
    if alt["charts"] and not alt["first"]:
        bad.append(f"{where}: no text alternative before the first chart")
    if alt["first"] and lang == "zh" and not any("\u4e00" <= c <= "\u9fff" for c in alt["first"]):
        bad.append(f"{where}: the text alternative is not Chinese: {alt['first'][:80]}")
    if alt["seenPx"] > 1:
        bad.append(f"{where}: the text alternative takes {alt['seenPx']} px on screen")
    m["described"] = (alt["first"] or "")[:70]
    found, m["bar_px"] = bar_value_problems(page, path, where, BAR_PHONE_MIN)
    return bad + found, m


@pytest.mark.parametrize("lang", list(LANGS))
def test_a_phone_reads_every_chart_every_label_and_its_own_language(app_server, new_page, lang):
    page = new_page(**PHONE)
    goto(page, f"{app_server.url}/?lang={lang}", 300)
    bad, smallest, tabs, moderate, described, bars = [], {}, {}, {}, {}, {}
    skip = page.locator("[data-testid='stSkipToContent']")
    show_every_page(page)  # the menu lists ui.layout.NAV_SHOWN pages before "View more"
    links = page.locator("a[data-testid='stSidebarNavLink']")
    assert links.count() == len(PAGES)
    for i, (path, _) in enumerate(PAGES):
        since = arm(page)
        links.nth(i).dispatch_event("click")  # a tap on the (closed) sidebar's link
        arrived(page, path, since)
        first_action(page, path, on_screen=False)
        found, m = phone_checks(page, path, lang)
        bad += found
        page.screenshot(path=str(SCREENSHOTS / f"phone-{name(path)}-{lang}.png"))
        smallest[name(path)] = m["min_text"]["px"] if m["min_text"] else None
        tabs[name(path)] = len(m["tabs"])
        moderate[name(path)], described[name(path)] = m["moderate"], m["described"]
        if m["bar_px"] is not None:
            bars[name(path)] = m["bar_px"]
        if skip.text_content() != tr("skip_to_content", lang):
            bad.append(f"{name(path)} {lang}: the skip link reads {skip.text_content()!r}")
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
    print(f"phone ({lang}): smallest chart text {smallest}; tabs on screen {tabs}")
    print(f"axe ({lang}), moderate and minor: {moderate}")
    print(f"first chart's text alternative ({lang}): {described}")
    print(f"smallest bar value ({lang}): {bars}")
    assert any(described.values()), described  # the check can fail: some page drew a Plotly chart
    # the checks can fail: the attention page's three tabs and its attention view's three were
    # measured, and some page drew chart text
    assert tabs["attention"] == 6, tabs
    assert any(px is not None for px in smallest.values()), smallest
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


@pytest.mark.parametrize("width", [390, 1280])
def test_the_sidebar_closes_after_apply_on_a_phone_only(app_server, new_page, width):
    """Issue 24: on a phone the sidebar covers the page, and it stayed open over the results after
    Apply. It closes there (<= 480 px) and stays open on a laptop."""
    phone = width <= 480
    page = new_page(viewport={"width": width, "height": 844 if phone else 800}, is_mobile=phone, has_touch=phone)
    goto(page, f"{app_server.url}/?lang=en")
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
    if phone:  # closed by the page's script once the run has drawn: waited for (a loaded machine's
        # run of 2026-12-06, phases 1 and 2 side by side, still saw it open 0.5 s after settling)
        page.wait_for_function(f"() => !({_SIDEBAR_OPEN})()", timeout=10_000)
    else:  # a laptop's stays open: looked at once the page has had time to close it
        page.wait_for_timeout(500)
    assert page.evaluate(_SIDEBAR_OPEN) is (not phone)
    assert "dog" in page.url  # the sentence was applied (it is in the link)
