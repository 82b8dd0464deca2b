"""One translation table for every string a user sees, in English and Chinese.

The table is assembled from ui/strings/*.py (one module per area, so each page's wording sits in
one place) and looked up with t(key, **params). A key missing from the table is recorded in
MISSING and shown as the key itself, so a test can walk every page and find none.
"""

from __future__ import annotations

import streamlit as st

from .strings import (
    architecture,
    attention,
    common,
    compare,
    cost,
    errors,
    generation,
    intervene,
    lessons,
    positional,
    steps,
    temperature,
    timeline,
)

LANGS = {"en": "English", "zh": "中文"}
DEFAULT_LANG = "en"

TABLE: dict[str, dict[str, str]] = {}
for _module in (
    common,
    attention,
    temperature,
    positional,
    generation,
    steps,
    architecture,
    timeline,
    lessons,
    cost,
    intervene,
    compare,
    errors,
):
    for _key, _value in _module.STRINGS.items():
        if _key in TABLE:
            raise KeyError(f"translation key {_key!r} defined twice ({_module.__name__})")
        TABLE[_key] = _value

MISSING: set[str] = set()


def lang() -> str:
    return st.session_state.get("lang", DEFAULT_LANG)


def t(key: str, **params) -> str:
    entry = TABLE.get(key)
    if entry is None or lang() not in entry:
        MISSING.add(key)
        return key
    text = entry[lang()]
    return text.format(**params) if params else text


def lang_from_locale(locale: str | None) -> str:
    return "zh" if (locale or "").lower().startswith("zh") else "en"
