"""Streamlit's own words in the reader's language (ui/streamlit_words.py), in a real browser.
Streamlit draws them in English in every language: the lesson editor's uploader ("Drag and drop
file here", "Limit 1MB per file", "Upload" / "Browse files"; issue 50.5), every page's menu
("View 9 more", "View less") and the labels a screen reader says and a tooltip shows ("Collapse
sidebar", "Help for Model", Plotly's "Zoom in"), which a Chinese class met in English until 2026-12-05."""

from __future__ import annotations

import pytest

from ui.i18n import LANGS, text_in
from ui.layout import NAV_SHOWN

from .helpers import exceptions, goto, settle
from .screens import PAGES

ENGLISH = ("Drag and drop", "Browse files", "Upload", "Limit", "per file")  # ("upload" is the icon's name)


def test_the_uploader_speaks_chinese(app_server, new_page):
    page = new_page()
    goto(page, app_server.url + "/editor?model=translator&lang=zh", 300)
    box = page.locator(".st-key-ed_upload [data-testid='stFileUploaderDropzone']")
    box.wait_for()
    settle(page)
    page.wait_for_function(
        "(w) => document.querySelector('.st-key-ed_upload [data-testid=stFileUploaderDropzone]').innerText.includes(w)",
        arg=text_in("zh", "ed_upload_browse"),
        timeout=10_000,
    )
    said = box.inner_text()
    assert not [w for w in ENGLISH if w in said], said
    assert text_in("zh", "ed_upload_browse") in said, said
    assert text_in("zh", "ed_upload_limit", mb=1) in said, said
    assert said.count("TOML") == 1, said  # the file type once, where Streamlit writes it
    assert not exceptions(page)


def test_the_uploader_keeps_streamlit_s_words_in_english(app_server, new_page):
    page = new_page()
    goto(page, app_server.url + "/editor?model=translator&lang=en", 300)
    box = page.locator(".st-key-ed_upload [data-testid='stFileUploaderDropzone']")
    box.wait_for()
    said = box.inner_text()
    assert "Upload" in said and "per file" in said and said.count("TOML") == 1, said


NAV_BUTTON = "[data-testid='stSidebarNavViewButton']"


def _button_says(page, text: str) -> None:
    page.wait_for_function(
        "([sel, w]) => { const b = document.querySelector(sel); return b && b.innerText.trim() === w; }",
        arg=[NAV_BUTTON, text],
        timeout=10_000,
    )


def test_the_menu_speaks_the_readers_language_and_gives_english_back(app_server, new_page):
    """Chinese: "显示其余 N 页" (N: the pages the menu does not list), then "收起" once opened, on
    another page too; back to English, Streamlit's own words again (its text node is not redrawn)."""
    hidden = len(PAGES) - NAV_SHOWN
    assert hidden > 0, "the menu lists every page: no button to check"
    page = new_page(viewport={"width": 1280, "height": 800})
    goto(page, app_server.url + "/?lang=zh", 300)
    _button_says(page, text_in("zh", "nav_view_more", n=hidden))
    page.locator(NAV_BUTTON).click()
    _button_says(page, text_in("zh", "nav_view_less"))
    page.locator("[data-testid='stSidebarNav'] a").nth(NAV_SHOWN).click()  # a page the menu hid
    settle(page)
    _button_says(page, text_in("zh", "nav_view_less"))
    page.locator(NAV_BUTTON).click()
    _button_says(page, text_in("zh", "nav_view_more", n=hidden))
    page.locator("section[data-testid='stSidebar'] label").filter(has_text="English").click()
    page.wait_for_function("() => location.search.includes('lang=en')")
    settle(page)
    _button_says(page, f"View {hidden} more")
    assert not exceptions(page)


LABELS_JS = """(attrs) => Array.from(document.querySelectorAll(attrs.map(a => '[' + a + ']').join(',')))
  .flatMap(e => attrs.map(a => e.getAttribute(a)).filter(v => v))"""


@pytest.mark.parametrize("lang", list(LANGS))
def test_what_a_screen_reader_says_is_in_the_readers_language(app_server, new_page, lang):
    """Streamlit's and Plotly's labels (aria-label, title, data-title: "Collapse sidebar", "Help for
    Model", "Fullscreen", Plotly's "Zoom in") on a page with help icons, a Plotly chart and a table:
    in Chinese none is left in English and each is Chinese; in English they are Streamlit's own."""
    from ui.streamlit_words import LABEL_ATTRIBUTES, LABEL_KEYS

    english = {text_in("en", k) for k in LABEL_KEYS}
    page = new_page(viewport={"width": 1280, "height": 800})
    seen = []
    for path in ("/", "/positional?model=gpt"):
        goto(page, f"{app_server.url}{path}{'&' if '?' in path else '?'}lang={lang}", 300)
        page.wait_for_function(
            "(w) => Array.from(document.querySelectorAll('[aria-label]')).some(e => e.getAttribute('aria-label') === w)",
            arg=text_in(lang, "st_collapse_sidebar"),
            timeout=10_000,
        )
        seen += page.evaluate(LABELS_JS, list(LABEL_ATTRIBUTES))
    ours = {text_in(lang, k) for k in LABEL_KEYS}
    helps = [
        v
        for v in seen
        if v.startswith(text_in(lang, "st_help_for").split("{")[0] or "\x00")
        or v.endswith(text_in(lang, "st_help_for").split("}")[-1] or "\x00")
    ]
    assert len(set(seen) & ours) >= 3 and helps, sorted(set(seen))[:40]  # the enumeration found labels
    if lang != "en":
        left = sorted({v for v in seen if v in english or v.startswith("Help for ")})
        assert not left, left
    assert not exceptions(page)
