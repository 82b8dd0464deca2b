"""The warning a page shows beside a translation or continuation when the sentence is outside the
language the models learned (model.runner emits the notice "outside_language"; data.corpus
knows the grammar): what it means, known words like the unknown ones, and example sentences of
the grammar to click."""

from __future__ import annotations

import zlib

import streamlit as st

from data import corpus

from .i18n import t
from .messages import notice_text
from .safe import echo, md
from .state import TEXT_KEY


def _use(example: str) -> None:
    st.session_state[TEXT_KEY] = example


def show_outside_language(note) -> None:
    """One warning box with suggestions and up to three example sentences as buttons."""
    params = getattr(note, "params", {})
    text = str(params.get("text", ""))
    lines = [notice_text(note)]
    near = []
    for w in list(params.get("unknown", ()))[:6]:  # computed once, by the runner
        close = corpus.close_words(w)
        if close:
            near.append(t("grammar_near", word=echo(w, 20), known=", ".join(md(c) for c in close)))
    if near:
        lines.append(t("grammar_known_like") + " " + "; ".join(near))
    st.warning("\n\n".join(lines), icon="⚠️")
    examples = corpus.examples_like(text, 3)
    if examples:
        with st.container(horizontal=True, vertical_alignment="center"):
            st.caption(t("grammar_try"))
            for ex in examples:
                st.button(md(ex), key=f"grammar_ex_{zlib.crc32(ex.encode())}", on_click=_use, args=(ex,))


def off_language(tr):
    """The trace's "outside_language" notice, or None."""
    return next((n for n in getattr(tr, "notices", ()) if getattr(n, "code", None) == "outside_language"), None)


def output_markdown(tr, key: str, code: bool = False) -> str:
    """The model's output line (t(key, text=...)); when the sentence is outside the language
    (issue 37, item 7), never "Translation:": what the model wrote from the words it knows, with
    the words it never saw struck out in what it read."""
    out = tr.output_text.replace("`", "'")
    text = f"`{out}`" if code else md(out)
    note = off_language(tr)
    if note is None:  # key's own text puts a code span around it where code is True
        return t(key, text=out if code else md(out))
    unknown = {str(w).lower() for w in note.params.get("unknown", ())}
    read = " ".join(
        f"~~{md(w)}~~" if w.strip(".,!?;:。，！？").lower() in unknown else md(w)
        for w in str(note.params.get("text", "")).split()
    )
    return t(f"off_language_{note.params.get('what', 'translation')}", read=read, text=text)
