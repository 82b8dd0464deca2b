"""Every page of the app, opened the way a student opens a shared link, in headless Chromium.

Pages are discovered from the app's navigation, so a page added later is covered without a
change here; home and the attention explorer get specific checks on what they draw.
Screenshots of every page land in screenshots/.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from drive.browser import link_query as query
from ui.i18n import TABLE

from .conftest import slug
from .helpers import (
    SIDEBAR,
    axe_violations,
    click_and_settle,
    exceptions,
    goto,
    nav_links,
    plot_summaries,
    screenshot,
    settle,
    sidebar_text,
    submit_text,
    view_tile_xy,
)
from .screens import serious

# translation keys look like page_home, att_intro: one shown as is means a string is missing
KEYS = sorted((k for k in TABLE if "_" in k), key=len, reverse=True)
SECOND_SENTENCE = "狗咬人"


def untranslated(text: str) -> list[str]:
    return [k for k in KEYS if re.search(rf"(?<![\w/]){re.escape(k)}(?![\w/])", text)]


def problems_on(page) -> list[str]:
    """What any page must not show."""
    found = [f"exception: {e[:600]}" for e in exceptions(page)]
    dialog = page.locator("[role='dialog']")
    if dialog.count() and "not found" in dialog.first.inner_text().lower():
        found.append("Streamlit says: page not found")
    if not page.locator("[data-testid='stMain'] h1").count():
        found.append("no page title (h1) drawn")
    main = page.locator("[data-testid='stMain']").inner_text() if page.locator("[data-testid='stMain']").count() else ""
    missing = untranslated(main + "\n" + page.locator(SIDEBAR).inner_text())
    if missing:
        found.append(f"untranslated keys shown: {missing[:8]}")
    for i, p in enumerate(plot_summaries(page)):
        if p["visible"] and (not p["drawn"] or not p["types"]):
            found.append(f"plotly chart {i} is empty or not drawn: {p}")
    found += [f"dialog: {d}" for d in page.rec.dialogs]
    return found


@pytest.fixture(scope="module")
def pages(app_server, browser):
    """The app's pages, from the navigation of a first visit."""
    ctx = browser.new_context()
    page = ctx.new_page()
    goto(page, app_server.url)
    view_more = page.locator("[data-testid='stSidebarNavViewButton']")
    if view_more.count():
        view_more.first.click()
    links = nav_links(page, app_server.url)
    ctx.close()
    return links


def test_navigation_lists_home_and_attention(pages, app_server):
    assert app_server.url + "/" in pages or app_server.url in pages, pages
    assert any(p.endswith("/attention") for p in pages), f"no attention page in the navigation: {pages}"


def test_every_page_opens_from_a_fresh_link_and_takes_a_new_sentence(pages, new_page):
    """Each page as a shared link opens it (a new document: a new Streamlit session, with the
    link's defaults; axe-core finds nothing serious or critical with the sidebar open), then with a
    sentence typed in. One tab follows the links one after another:
    a new tab per link cost a fresh renderer's load of the app's code each time."""
    report = {}
    page = new_page()
    for url in pages:
        name = slug(url)
        try:
            goto(page, url)
            found = problems_on(page)
            # the normal view's open sidebar: axe-core's serious and critical there (the phone walk,
            # test_screens.py, checks the whole page, its sidebar closed, and the rest of what the
            # normal view's own walk did; the whole page here cost 10 s more of phase 2)
            found += [f"axe, the sidebar: {v}" for v in serious(axe_violations(page, within=SIDEBAR))]
            screenshot(page, f"page-{name}")
            submit_text(page, SECOND_SENTENCE)
            found += [f"after typing {SECOND_SENTENCE}: {p}" for p in problems_on(page)]
            if sidebar_text(page).input_value() != SECOND_SENTENCE:
                found.append(
                    f"the sentence box reads {sidebar_text(page).input_value()!r} after typing "
                    f"{SECOND_SENTENCE!r} and Ctrl+Enter"
                )
            screenshot(page, f"page-{name}-typed")
        except Exception as e:  # a page that never settles is a finding too; go on with the rest
            found = [f"{type(e).__name__}: {str(e)[:400]}"]
            screenshot(page, f"page-{name}-failed")
            page = new_page(fresh=True)  # the next link in a tab of its own
        if found:
            report[url] = found
    assert not report, "pages with problems (screenshots in screenshots/):\n" + "\n".join(
        f"{u}:\n  " + "\n  ".join(f) for u, f in report.items()
    )


# -- home ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def home(app_server, browser):
    """One session on the home page, shared by the home tests in order (saves page loads)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = ctx.new_page()
    from .conftest import Recorder

    page.rec = Recorder(page)
    goto(page, app_server.url)
    yield page
    ctx.close()
    assert not page.rec.dialogs, page.rec.dialogs


def heatmap_tokens(page) -> list[str]:
    """The rows of the home page's heatmap (the attention view draws them from these labels)."""
    page.wait_for_function("() => window.__attentionViews && window.__attentionViews.home_view", timeout=30_000)
    return page.evaluate("() => window.__attentionViews.home_view.labels.q")


def view_table(page) -> list[tuple[str, str]]:
    """The attention view's table as the reader sees it: (token, weight text) per key."""
    cells = page.locator(".av-table tbody tr")
    return [(r.locator("th").inner_text(), r.locator(".av-num").inner_text()) for r in cells.all()]


def download_csv(page) -> list[dict]:
    """The attention view's CSV export (every cell of the shown head at the shown temperature)."""
    with page.expect_download() as info:
        page.locator(".av-x-csv").click()
    return list(csv.DictReader(io.StringIO(open(info.value.path(), encoding="utf-8").read())))


def test_home_draws_the_heatmap_and_the_table_of_the_default_sentence(home):
    assert not exceptions(home)
    tokens = heatmap_tokens(home)
    assert (
        " ".join(tokens).replace("▁", "").split() == "The cat sat on the mat".split()
        or "".join(tokens).replace("▁", "").replace(" ", "") == "Thecatsatonthemat"
    ), tokens
    table = view_table(home)
    assert [tok for tok, _ in table] == tokens
    weights = [float(w) for _, w in table]
    assert abs(sum(weights) - 1) < 1e-3 and all(0 <= w <= 1 for w in weights), weights
    # the table is the heatmap's row for the link's query (q=1 by default)
    q = int(query(home).get("q", 1))
    n = len(tokens)
    row = home.evaluate("([q, n]) => window.__attentionViews.home_view.shown().slice(q * n, q * n + n)", [q, n])
    assert [round(v, 4) for v in row] == weights
    # the CSV export holds the same numbers (full precision) for that row
    rows = [r for r in download_csv(home) if int(r["query_position"]) == q]
    assert [r["key"] for r in rows] == tokens
    assert [round(float(r["weight"]), 4) for r in rows] == weights
    # a click on another row: the table follows in the browser, the link after release
    home.locator(".av-canvas").focus()
    home.keyboard.press("ArrowDown")
    assert home.locator(".av-caption").inner_text().startswith("When the model processes sat")
    home.wait_for_function("() => new URLSearchParams(location.search).get('q') === '2'", timeout=15_000)
    screenshot(home, "home-en")


def test_home_redraws_for_a_typed_sentence_and_puts_it_in_the_link(home):
    assert submit_text(home, "The dog barked at the cat"), "Ctrl+Enter did not rerun the app"
    assert sidebar_text(home).input_value() == "The dog barked at the cat"
    assert "dog" in heatmap_tokens(home)
    assert query(home).get("text") == "The dog barked at the cat"
    assert not exceptions(home)
    submit_text(home, "狗咬人")
    assert any("狗" in t or "咬" in t for t in heatmap_tokens(home)), heatmap_tokens(home)
    assert abs(sum(float(w) for _, w in view_table(home)) - 1) < 1e-3
    assert not exceptions(home)
    screenshot(home, "home-zh-sentence")


def test_switching_the_language_to_chinese_and_back(home):
    click_and_settle(home.locator(SIDEBAR).get_by_text("中文", exact=True), home)
    title = home.locator("[data-testid='stMain'] h1").first.inner_text()
    assert "注意力" in title, title
    assert query(home).get("lang") == "zh"
    assert "句子" in home.locator(SIDEBAR).inner_text()
    assert not untranslated(home.locator("[data-testid='stMain']").inner_text())
    assert home.locator(".av-canvas").count() and not exceptions(home)
    assert home.locator(".av-table th").first.inner_text() == "位置"  # the view speaks Chinese too
    screenshot(home, "home-zh")
    click_and_settle(home.locator(SIDEBAR).get_by_text("English", exact=True), home)
    assert "Transformer Attention Explorer" in home.locator("[data-testid='stMain'] h1").first.inner_text()
    assert query(home).get("lang") == "en"


# -- attention explorer --------------------------------------------------------------------------
def test_attention_model_view_click_selects_that_layer_and_head(home, pages):
    url = next(p for p in pages if p.endswith("/attention"))
    page = home
    page.locator(f"{SIDEBAR} a[href='{url}'], {SIDEBAR} a[href$='/attention']").first.click()
    page.wait_for_url(re.compile(r".*/attention.*"))
    settle(page)
    assert not exceptions(page), exceptions(page)
    screenshot(page, "attention-en")
    page.get_by_role("tab", name=re.compile("Model view")).click()  # the attention view's, in the browser
    before = view_tile_xy(page, 0, 0)
    assert before and before["layers"] >= 1 and before["heads"] >= 2, before
    target = [0, 1]
    xy = view_tile_xy(page, *target)
    page.mouse.click(xy["x"], xy["y"])
    # drawn at once in the browser: the view shows that head
    assert (
        page.evaluate("() => { const v = window.__attentionViews.att_view.state; return [v.layer, v.head]; }") == target
    )
    assert page.locator(".av-head").input_value() == "1" and page.locator(".av-layer").input_value() == "0"
    # the tile's layer and head reach the link once the view is reported (debounced, a fragment rerun)
    page.wait_for_function(
        "() => { const q = new URLSearchParams(location.search); return q.get('layer') === '1' && q.get('head') === '2'; }",
        timeout=15_000,
    )
    settle(page)
    assert query(page).get("layer") == "1" and query(page).get("head") == "2", page.url
    assert not exceptions(page)
    screenshot(page, "attention-model-view-clicked")
    # the head view (lines) draws on the same canvas: its lines are the selected head's
    page.get_by_role("tab", name=re.compile("Head view")).click()
    assert page.evaluate("() => window.__attentionViews.att_view.geo.kind") == "lines"
    screenshot(page, "attention-head-view")
