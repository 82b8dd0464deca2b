"""What a teacher needs is on the first screen, and a page opens by its plain name (issue 50.7), in a
real browser, both languages.

- At 1280 x 800 the sentence box, Apply, presentation mode and the classroom section end within
  the first screen of the sidebar, with and without a room open (they were at y 775, 894, 1038 and
  1088 under a menu of every page); the menu still reaches every page ("View more").
- Every page's plain name as a path opens that page without "Page not found": the home page's
  own name (/home, which Streamlit served at / only), any page's name in capitals or with a
  trailing slash; a name that is no page still says so, in the reader's language (Streamlit's own
  dialog said "... no corresponding file was found in the app's pages/ directory" in English).
"""

from __future__ import annotations

import json

import pytest

from .helpers import goto, show_every_page
from .screens import PAGES, open_room, tr

FOLD = 800
# the bottom of each control in the sidebar, found by its label in the reader's language
BOTTOMS_JS = """(labels) => {
  const sb = document.querySelector("section[data-testid='stSidebar']");
  const bottom = (el) => (el ? Math.round(el.getBoundingClientRect().bottom) : null);
  const byText = (sel, text) => Array.from(sb.querySelectorAll(sel)).find((e) => e.innerText.includes(text));
  return {
    sentence: bottom(sb.querySelector("textarea")),
    apply: bottom(byText("button", labels.apply)),
    presentation: bottom(byText("label", labels.present)),
    classroom: bottom(byText("[data-testid='stExpander'] summary", labels.room)),
  };
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_teachers_controls_are_on_the_first_screen(app_server, new_page, lang):
    page = new_page(viewport={"width": 1280, "height": FOLD})
    goto(page, f"{app_server.url}/?lang={lang}")
    labels = {
        "apply": tr("sentence_apply", lang),
        "present": tr("presentation_mode", lang),
        "room": tr("room_section", lang),
    }
    where = page.evaluate(BOTTOMS_JS, labels)
    assert all(where.values()), f"a control was not found: {where}"
    assert max(where.values()) <= FOLD, f"below the first screen at 1280 x {FOLD}: {where}"
    # with a room open (the section expanded, its QR code below), the same controls stay put
    open_room(page, lang)
    opened = page.evaluate(BOTTOMS_JS, labels)
    assert max(opened.values()) <= FOLD, f"with a room open: {opened}"
    # the menu lists a few pages, and every one of them after "View more"
    show_every_page(page)
    hrefs = page.eval_on_selector_all("[data-testid='stSidebarNav'] a[href]", "els => els.map(e => e.href)")
    assert len(hrefs) == len(PAGES), json.dumps(hrefs)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_page_opens_by_its_plain_name(app_server, new_page, lang):
    page = new_page(viewport={"width": 1280, "height": FOLD})
    titles = dict(PAGES)
    home = PAGES[0][0]
    other = [p for p, _ in PAGES[1:] if p in ("lessons", "attention")] or [PAGES[1][0]]
    asked = [(home, home), (home.upper(), home), ("index", home)]
    asked += [(p.capitalize(), p) for p in other] + [(p + "/", p) for p in other]
    if lang != "en":  # which page a name opens is the same in every language; what it says is not:
        asked = [(home.upper(), home), (other[0].capitalize(), other[0])]  # two titles, and the dialog below
    for path, want in asked:
        goto(page, f"{app_server.url}/{path}?lang={lang}")
        page.wait_for_timeout(500)  # the dialog comes with the first run's navigation message
        for lost in {"Page not found", tr("page_not_found_title", lang)}:  # Streamlit's words, or ours
            assert not page.get_by_text(lost).count(), f"/{path}: {lost}"
        title = tr(titles[want], lang) if want != home else tr("app_title", lang)
        heading = page.locator("[data-testid='stMain'] h1").first.inner_text()
        assert title in heading, (path, heading, title)
    goto(page, f"{app_server.url}/no-such-page?lang={lang}")
    # Streamlit's dialog, in the reader's language (ui/streamlit_words.py): its title and what it says
    dialog = page.locator("[role='dialog']").filter(has_text=tr("page_not_found_title", lang))
    dialog.first.wait_for(timeout=10_000)  # the check can fail
    # Streamlit names the page asked for, or not (1.67 here: not)
    said = [tr("page_not_found_named", lang).replace("{page}", "no-such-page"), tr("page_not_found", lang)]
    page.wait_for_function(
        "(ws) => Array.from(document.querySelectorAll('[role=dialog]')).some(d => ws.some(w => d.innerText.includes(w)))",
        arg=said,
        timeout=10_000,
    )
    assert "Running the app's main page" not in dialog.first.inner_text(), dialog.first.inner_text()
