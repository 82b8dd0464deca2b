"""The warning a page shows beside a translation or continuation when the sentence is outside the
language the models learned (model.runner emits the notice "outside_language"; data.corpus
knows the grammar): what it means, known words like the unknown ones, and example sentences of
the grammar to click."""

from __future__ import annotations

import unicodedata
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
    return t(
        f"off_language_{note.params.get('what', 'translation')}",
        read=struck_out(note.params.get("text", "")),
        text=text,
    )


def struck_out(text: str) -> str:
    """The sentence as Markdown with the words the model never saw struck out, wherever they are:
    between spaces or inside a Chinese sentence, which has none (鲸 in 鲸鱼咬人; issue 50.6: only
    space-separated words were ever struck out). A struck span that begins or ends in punctuation
    next to a letter gets a thin space there, or Markdown would not read its ~~ as a strike."""
    text = " ".join(str(text).split())
    out, at = [], 0
    for a, b in corpus.unknown_spans(text):
        out.append(md(text[at:a]))
        pad_a = "\u2009" if a > 0 and _punct(text[a]) and not _open(text[a - 1]) else ""
        pad_b = "\u2009" if b < len(text) and _punct(text[b - 1]) and not _open(text[b]) else ""
        out.append(f"{pad_a}~~{md(text[a:b])}~~{pad_b}")
        at = b
    out.append(md(text[at:]))
    return "".join(out)


def _punct(c: str) -> bool:
    return unicodedata.category(c)[0] in "PS"  # CommonMark's punctuation: Unicode P and S


def _open(c: str) -> bool:
    return c.isspace() or _punct(c)
