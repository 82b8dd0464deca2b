"""Errors and notices from model/ in the reader's language, in one place.

model/ raises InputError(code, English line, **values) and emits Notice(code, English line, **values):
the CLI prints the English line, the app looks the code up here (table_key: error_CODE, notice_CODE in
the translation table, ui/strings/errors.toml and common.toml). A code without a line falls back to
the English line, quoted; tests/test_messages.py checks that every code written in model/ has one.
"""

from __future__ import annotations

from .i18n import TABLE, t
from .safe import echo, md

# codes whose line is shared with another part of the app
_OWN_KEYS = {("error", "empty"): "empty_text_hint", ("notice", "outside_language"): "grammar_outside"}


def table_key(kind: str, code: str) -> str:
    """The translation table's key for a model code: kind "error" (InputError) or "notice" (Notice)."""
    return _OWN_KEYS.get((kind, code), f"{kind}_{code}")


def error_text(e) -> str:
    """One line for an InputError: the table's line for its code, with its values capped (they can
    echo the visitor's value), else the error's own line inside the translated frame."""
    code = getattr(e, "code", None)
    if code and table_key("error", code) in TABLE:
        return t(table_key("error", code), **{k: echo(v, 40) for k, v in getattr(e, "params", {}).items()})
    return t("input_error", message=md(str(e)))


def notice_text(note) -> str:
    """One line for a model notice: the table's line for a Notice's code, with its values capped
    (they can echo the visitor's text); any other note as it is."""
    code = getattr(note, "code", None)
    if code == "outside_language":  # ui/grammar.py shows it in a box, with suggestions after this line
        params = note.params
        what = t("grammar_what_" + ("continuation" if params.get("what") == "continuation" else "translation"))
        return t("grammar_outside", n=params.get("n", ""), what=what)
    if code and table_key("notice", code) in TABLE:
        return t(table_key("notice", code), **{k: echo(v, 80) for k, v in note.params.items()})
    return md(str(note))
