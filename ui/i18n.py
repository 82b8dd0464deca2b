"""One translation table for every string a user sees, in English and Chinese.

The table is assembled from ui/strings/*.toml (one file per area, so each page's wording sits in
one place) and looked up with t(key, **params). A key missing from the table is recorded in
MISSING and shown as the key itself, so a test can walk every page and find none.

The wording is data, not code: a translator edits a TOML file (one table per key, `en = ...` and
`zh = ...`) without touching Python, and a new language is one more key per table.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import streamlit as st

LANGS = {"en": "English", "zh": "中文"}
DEFAULT_LANG = "en"
STRINGS_DIR = Path(__file__).with_name("strings")


def load_area(area: str) -> dict[str, dict[str, str]]:
    """One area's table (ui/strings/AREA.toml): key -> {language: text}, in the file's order."""
    with open(STRINGS_DIR / f"{area}.toml", "rb") as f:
        return tomllib.load(f)


AREAS = sorted(p.stem for p in STRINGS_DIR.glob("*.toml"))
TABLE: dict[str, dict[str, str]] = {}
for _area in AREAS:
    for _key, _value in load_area(_area).items():
        if _key in TABLE:
            raise KeyError(f"translation key {_key!r} defined twice ({_area}.toml)")
        TABLE[_key] = _value

MISSING: set[str] = set()


def lang() -> str:
    return st.session_state.get("lang", DEFAULT_LANG)


def t(key: str, **params) -> str:
    return text_in(lang(), key, **params)


def text_in(language: str, key: str, **params) -> str:
    """t() in a given language: for code that runs outside the reader's session (a deferred
    download), where lang() would fall back to the default."""
    entry = TABLE.get(key)
    if entry is None or language not in entry:
        MISSING.add(key)
        return key
    text = entry[language]
    return text.format(**params) if params else text


def lang_from_locale(locale: str | None) -> str:
    return "zh" if (locale or "").lower().startswith("zh") else "en"
