"""The lesson editor's uploader in Chinese (issue 50.5): Streamlit draws its own words ("Drag and
drop file here", "Limit 1MB per file", "Upload" / "Browse files") in English in every language;
the page writes them in the reader's language, in a real browser."""

from __future__ import annotations

from ui.i18n import text_in

from .helpers import exceptions, goto, settle

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
    assert text_in("zh", "ed_upload_limit", mb=1, types="TOML") in said, said
    assert not exceptions(page)


def test_the_uploader_keeps_streamlit_s_words_in_english(app_server, new_page):
    page = new_page()
    goto(page, app_server.url + "/editor?model=translator&lang=en", 300)
    box = page.locator(".st-key-ed_upload [data-testid='stFileUploaderDropzone']")
    box.wait_for()
    said = box.inner_text()
    assert "Upload" in said and "per file" in said, said
