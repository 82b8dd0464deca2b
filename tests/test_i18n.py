"""The translation table, and every page of the app walked in English and in Chinese.

- Every entry of ui.i18n.TABLE has a non-empty English and Chinese text, with the same {fields}.
- Every page listed in app.py's PAGES (whatever pages exist when this runs: others are written
  in parallel) runs in both languages without an exception, and t() records no missing key
  (ui.i18n.MISSING stays empty).

Each page runs once, opened straight on it (apptest.open_alone: a copy of app.py whose
PAGES keeps the files that exist, the page under test first; no switch_page, after which AppTest
would drop the sidebar's widget values and quietly turn the app back to English). Trained weights
are used where they exist, random ones otherwise.
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from apptest import open_alone, pages_of_app

import ui.i18n as i18n

ROOT = Path(__file__).resolve().parents[1]


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_entry_has_english_and_chinese():
    assert i18n.TABLE, "the table is empty"
    problems = []
    for key, entry in i18n.TABLE.items():
        for lang in i18n.LANGS:
            text = entry.get(lang)
            if not isinstance(text, str) or not text.strip():
                problems.append(f"{key}: no {lang}")
        if all(isinstance(entry.get(lang), str) for lang in i18n.LANGS):
            en, zh = fields(entry["en"]), fields(entry["zh"])
            if en != zh:
                problems.append(f"{key}: placeholders differ, en {sorted(en)} zh {sorted(zh)}")
    assert not problems, "\n".join(problems)


def test_pages_list_names_translated_titles():
    pages, _ = pages_of_app()
    assert pages, "no pages"
    for file, _, key, _ in pages:
        assert key in i18n.TABLE, f"{file}: title key {key} is not in the table"


pytestmark = pytest.mark.usefixtures("random_where_untrained")  # tests/conftest.py


@pytest.mark.slow  # every page through AppTest (5-7 s a language)
@pytest.mark.parametrize("lang", list(i18n.LANGS))
def test_every_page_in_both_languages(lang):
    pages = [p for p in pages_of_app()[0] if (ROOT / p[0]).exists()]
    assert pages, "no page files exist"
    i18n.MISSING.clear()
    problems = []
    for file, _, _, _ in pages:
        try:
            at = open_alone(file, lang=lang)
        except AssertionError as e:  # an exception on the page
            problems.append(f"{file}: {e}")
            continue
        if not at.title:
            problems.append(f"{file}: no title")
        elif at.radio(key="lang").value != lang:
            problems.append(f"{file}: ran in {at.radio(key='lang').value}, not {lang}")
    assert not problems, "\n".join(problems)
    assert not i18n.MISSING, f"keys missing from the table ({lang}): {sorted(i18n.MISSING)}"
