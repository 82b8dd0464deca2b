"""Every setting that changes a view lives in the URL, so a copied link reopens the same view.

url_param() reads a query parameter once per session (or when the URL changed under us),
validates it, and falls back to the default with a visible notice when the value is bad; the
widget then owns the value, and sync_url() writes the current values back into the address bar.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import streamlit as st

from .i18n import t
from .safe import md, short

_NOTICES = "_url_notices"
_SEEN = "_url_seen"


def _notices() -> list[str]:
    return st.session_state.setdefault(_NOTICES, [])


def notice(message: str) -> None:
    """A notice about the link, shown once by show_notices() (page_header calls it)."""
    _notices().append(message)


def from_link(name: str, key: str | None = None) -> bool:
    """Whether url_param(name, key=key) takes its value from the link on this run: the link carries a
    value this session has not read yet. Call it before url_param."""
    raw = st.query_params.get(name)
    seen = st.session_state.get(_SEEN, {})
    return raw is not None and (seen.get(name) != raw or (key or name) not in st.session_state)


def url_param(name: str, default: Any, parse: Callable[[str], Any], key: str | None = None) -> Any:
    """Put the URL's value (or the default) into session_state[key] the first time this page runs,
    and return it. parse raises ValueError for a bad value."""
    key = key or name
    raw = st.query_params.get(name)
    seen = st.session_state.setdefault(_SEEN, {})
    fresh = key not in st.session_state or (raw is not None and seen.get(name) != raw)
    if fresh:
        value = default
        if raw is not None:
            try:
                value = parse(raw)
            except (ValueError, TypeError, KeyError, IndexError):
                _notices().append(t("bad_url_value", name=md(name), value=md(short(raw, 40))))
        st.session_state[key] = value
        seen[name] = raw
    return st.session_state[key]


def set_url(**values) -> None:
    """Write values into the address bar; None or "" removes the parameter."""
    seen = st.session_state.setdefault(_SEEN, {})
    for name, value in values.items():
        text = "" if value is None else serialize(value)
        if text == "":
            if name in st.query_params:
                del st.query_params[name]
            seen[name] = None
        elif st.query_params.get(name) != text:
            st.query_params[name] = text
            seen[name] = text
        else:
            seen[name] = text


def serialize(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def show_notices() -> None:
    for note in st.session_state.pop(_NOTICES, []):
        st.warning(note, icon="⚠️")


# -- parsers: each raises ValueError on a bad value ----------------------------------------------
def choice(options) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw not in options:
            raise ValueError(raw)
        return raw
    return parse


def integer(lo: int, hi: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        v = int(raw)
        if not lo <= v <= hi:
            raise ValueError(raw)
        return v
    return parse


def number(lo: float, hi: float) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        v = float(raw)
        if not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(raw)
        return v
    return parse


def clamped(name: str, lo, hi, cast=float) -> Callable[[str], Any]:
    """A link's number limited to lo..hi, with a notice when it was outside; NaN is invalid."""
    def parse(raw: str):
        v = float(raw)
        if math.isnan(v):
            raise ValueError(raw)
        fixed = cast(min(max(v, lo), hi))
        if fixed != v:
            _notices().append(t("url_clamped", name=md(name), value=md(short(raw, 20)),
                                lo=lo, hi=hi, shown=fixed))
        return fixed
    return parse


def flag(raw: str) -> bool:
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)


def text(raw: str) -> str:
    return raw
