"""Every setting that changes a view lives in the URL, so a copied link reopens the same view.

url_param() reads a query parameter once per session (or when the URL changed under us),
validates it, and falls back to the default with a visible notice when the value is bad; the
widget then owns the value, and set_url() writes the current values back into the address bar.
A page declares its view once (ui/view.py) and calls read_view / write_view, which do both for
every field; tests/test_views.py fails on a page that calls url_param or st.query_params itself
(the app-wide sidebar and room keys are read here and in ui/context.py, ui/classroom.py).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import streamlit as st

from .i18n import t
from .safe import echo, md

TEXT_KEY = "text"  # the sentence the sidebar's box applied (the box itself has a key per room version)

_NOTICES = "_url_notices"
_SEEN = "_url_seen"
_WRITTEN = "_url_written"  # name -> the last values this session wrote into the address bar
_LINKED = "_url_linked"  # key -> the value the link gave it (until fit() has looked at it)
_KEY_OF = "_url_key_of"  # link name -> the session key it fills
_KEYS = "_url_keys"  # the link keys this run read or wrote: the only ones a copied link keeps
TEXT_MAX = 500  # longest text the app writes into a link
TEXT_READ_MAX = 2000  # longest text it reads from one (model/runner.py's MAX_CHARS)
VALUE_MAX = 100  # longest value of any other key


def begin_run() -> None:
    """Called first on every run (the sidebar): forget the previous page's link keys."""
    st.session_state[_KEYS] = set()


def _known(name: str) -> None:
    st.session_state.setdefault(_KEYS, set()).add(name)


def link_params() -> dict[str, str]:
    """The link's parameters as a copied link should carry them: only the keys this run's page
    knows, one value each, none longer than TEXT_MAX (the address bar's other keys stay unread)."""
    known = st.session_state.get(_KEYS, set())
    return {k: v for k, v in st.query_params.to_dict().items() if k in known and len(v) <= TEXT_MAX}


def _notices() -> list[str]:
    return st.session_state.setdefault(_NOTICES, [])


def notice(message: str) -> None:
    """A notice about the link, shown once by show_notices() (page_header calls it)."""
    _notices().append(message)


def linked(key: str) -> bool:
    """Whether read_view gave session_state[key] a value from the link (a link opened, a room's new
    address) that the page has not taken yet, and take it: True once for each value a link brings.
    For a value a page applies once and then leaves to its own controls (the generation page's
    steps, a lesson link's answers, intervene's edit), which page.show has read before the page
    draws."""
    taken = st.session_state.get(_LINKED, {})
    if key not in taken:
        return False
    del taken[key]
    return True


def url_param(
    name: str, default: Any, parse: Callable[[str], Any], key: str | None = None, is_text: bool | None = None
) -> Any:
    """Put the URL's value (or the default) into session_state[key] the first time this page runs,
    and return it. parse raises ValueError for a bad value. is_text: the value is a sentence, read
    up to TEXT_READ_MAX characters (default: whether parse is state.text)."""
    key = key or name
    _known(name)
    st.session_state.setdefault(_KEY_OF, {})[name] = key  # which widget a link name fills (tests/explore.py)
    raw = st.query_params.get(name)
    seen = st.session_state.setdefault(_SEEN, {})
    # a widget moved quickly (a slider stepped with the arrow keys) can send its rerun with an
    # address this session wrote a moment before, not yet replaced in the browser: that is our own
    # older value coming back, not a new link, and taking it would make the slider jump back
    stale = raw in st.session_state.get(_WRITTEN, {}).get(name, [])[:-1]
    fresh = key not in st.session_state or (raw is not None and seen.get(name) != raw and not stale)
    if fresh:
        value = default
        if raw is not None:
            try:
                long_text = parse is text if is_text is None else is_text
                if len(raw) > (TEXT_READ_MAX if long_text else VALUE_MAX):
                    raise ValueError("too long")
                value = parse(raw)
                st.session_state.setdefault(_LINKED, {})[key] = value
            except (ValueError, TypeError, KeyError, IndexError):
                _notices().append(t("bad_url_value", name=md(name), value=echo(raw)))
        st.session_state[key] = value
        seen[name] = raw
    return st.session_state[key]


def fit(key: str, options, label: Callable[[Any], str], fallback: Any = None) -> Any:
    """session_state[key] fitted to this model (its layers, heads, attention kinds; a sentence's
    tokens; a vocabulary): kept when it is one of ``options``, else the nearest that is (a number
    past the last number: the last; before the first: the first; anything else: options[0]; or
    ``fallback`` when one is given).
    When the value came from the link, a notice says what was asked and what is shown;
    ``label(value)`` is how the reader sees a value ("Layer 3", "Cross-attention")."""
    value = st.session_state.get(key)
    asked = st.session_state.get(_LINKED, {}).pop(key, None)
    if value in options and not isinstance(value, bool):
        return value
    numbers = [o for o in options if isinstance(o, int) and not isinstance(o, bool)]
    if fallback is not None:
        fixed = fallback
    elif isinstance(value, int) and numbers and value > numbers[-1]:
        fixed = numbers[-1]
    elif isinstance(value, int) and numbers and value < numbers[0]:
        fixed = numbers[0]
    else:
        fixed = options[0]
    if value is not None and asked == value:
        # our own labels; a value of another kind than the options (?head=mean where the page offers
        # no mean) has no label here: the link's own text, echoed
        kinds = {type(o) for o in options}
        asked_text = label(value) if type(value) in kinds else echo(value)
        st.warning(t("link_fitted", asked=asked_text, shown=label(fixed)), icon="⚠️")
    st.session_state[key] = fixed
    return fixed


def read_view(fields, **defaults) -> dict[str, Any]:
    """Every field of a view (ui/view.py) from the link, else this session, else its default (or
    defaults[link name], a default known only at run time: the sidebar's sentence), into
    session_state[field.key]; {link name: value}. A bad value falls back with a notice. A field's
    old link name (Field.old), when the link has it, is read into the new name and removed from the
    link: an old link opens the same view and is written back in the new form."""
    for f in fields:
        if f.old:
            _from_old_name(f)
    return {
        f.link: url_param(f.link, defaults.get(f.link, f.default), f.from_link, key=f.key, is_text=f.parse is text)
        for f in fields
    }


def _from_old_name(f) -> None:
    """A link that still carries the field's old name: its value, read by f.from_old, moves to
    f.link (where url_param reads it as any link's value); the old name leaves the link. The new
    name wins when the link carries both."""
    raw = st.query_params.get(f.old)
    if raw is None:
        return
    del st.query_params[f.old]
    if f.link in st.query_params:
        return
    try:
        if len(raw) > VALUE_MAX:
            raise ValueError("too long")
        st.query_params[f.link] = serialize(f.to_link(f.from_old(raw)))
    except (ValueError, TypeError, KeyError, IndexError):
        _notices().append(t("bad_url_value", name=md(f.old), value=echo(raw)))


def write_view(fields, defaults: dict | None = None, **values) -> None:
    """The view's values given (by link name) written into the link, 1-based where the field
    says so; a field not given is left as the link has it (a page section not shown). None, and a
    field's default where it says omit_default (defaults: as read_view's), leave it out."""
    out = {}
    for f in fields:
        if f.link not in values:
            continue
        value = values[f.link]
        if f.omit_default and value == (defaults or {}).get(f.link, f.default):
            value = None
        out[f.link] = f.to_link(value)
    set_url(**out)


def set_url(**values) -> None:
    """Write values into the address bar; None or "" removes the parameter, and so does a text
    longer than TEXT_MAX (a link stays short enough for every server and browser)."""
    seen = st.session_state.setdefault(_SEEN, {})
    for name, value in values.items():
        _known(name)
        text = "" if value is None else serialize(value)
        if text == "" or len(text) > TEXT_MAX:
            if name in st.query_params:
                del st.query_params[name]
            seen[name] = None
        elif st.query_params.get(name) != text or len(st.query_params.get_all(name)) > 1:
            st.query_params[name] = text
            seen[name] = text
        else:
            seen[name] = text
        if text:
            mine = st.session_state.setdefault(_WRITTEN, {}).setdefault(name, [])
            if not mine or mine[-1] != text:
                mine[:] = [v for v in mine if v != text][-7:] + [text]


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
    return _within(int, lo, hi)


def number(lo: float, hi: float) -> Callable[[str], float]:
    return _within(float, lo, hi)


def _within(cast, lo, hi) -> Callable[[str], Any]:
    """cast(raw), which must lie in lo..hi (and, a float, be finite: NaN and inf are invalid)."""

    def parse(raw: str):
        v = cast(raw)
        if (isinstance(v, float) and not math.isfinite(v)) or not lo <= v <= hi:
            raise ValueError(raw)
        if isinstance(v, float) and v != 0 and abs(v) < TINY:  # a denormal or near one: not a setting
            raise ValueError(raw)
        return v

    return parse


TINY = 1e-6  # a link's number nearer to 0 than this is read as 0: no denormal (1e-45) reaches a model


def _normal(v: float) -> float:
    """v as a finite, normal number: NaN is invalid, +-inf the largest float, |v| < TINY 0."""
    if math.isnan(v):
        raise ValueError(v)
    if math.isinf(v):
        return math.copysign(sys.float_info.max, v)
    return 0.0 if abs(v) < TINY else v


def clamped(name: str, lo, hi, cast=float) -> Callable[[str], Any]:
    """A link's number limited to lo..hi, with a notice when it was outside; NaN is invalid, and a
    number nearer to 0 than TINY is 0 (with the notice), so 1e-45 never reaches torch."""

    def parse(raw: str):
        v = float(raw)
        if math.isnan(v):
            raise ValueError(raw)
        fixed = cast(min(max(_normal(v), lo), hi))
        if fixed != v:
            _notices().append(t("url_clamped", name=md(name), value=echo(raw, 20), lo=lo, hi=hi, shown=fixed))
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
