"""Errors and notices from model/ in the reader's language, in one place.

model/ raises InputError(code, English line) and emits Notice(code, English line, **values): the
CLI prints the English line, the app looks the code up here (error_CODE, notice_CODE in the
translation table). A code without a line falls back to the English line, quoted.
"""

from __future__ import annotations

from .i18n import TABLE, t
from .safe import echo, md


def error_text(e) -> str:
    """One line for an InputError: the table's line for its code (it never echoes the visitor's
    value), else the error's own line inside the translated frame."""
    code = getattr(e, "code", None)
    if code == "empty":
        return t("empty_text_hint")
    if code and f"error_{code}" in TABLE:
        return t(f"error_{code}", **{k: echo(v, 40) for k, v in getattr(e, "params", {}).items()})
    return t("input_error", message=md(str(e)))


def notice_text(note) -> str:
    """One line for a model notice: the table's line for a Notice's code, with its values capped
    (they can echo the visitor's text); any other note as it is."""
    code = getattr(note, "code", None)
    if code == "outside_language":  # ui/grammar.py shows it in a box, with suggestions after this line
        params = note.params
        what = t("grammar_what_" + ("continuation" if params.get("what") == "continuation" else "translation"))
        return t("grammar_outside", n=params.get("n", ""), what=what)
    if code and f"notice_{code}" in TABLE:
        return t(f"notice_{code}", **{k: echo(v, 80) for k, v in note.params.items()})
    return md(str(note))
