"""How a page names attention rows (queries) and lets the reader pick one.

A decoder or cross-attention row reads one token and, from its output, writes the next one (its
most likely next token, model.trace.Attention.query_written): "<2zh> → 猫" is the step that writes
猫. Students read a row labelled only "<2zh>" as "<2zh> looks at cat" and the whole alignment
looks shifted by one word, so every page labels such rows by both.
"""

from __future__ import annotations

import re

from analysis.measures import merge_tokens, word_groups

from .i18n import t
from .safe import md

ARROW = " → "


def written(att, words: bool = False) -> list[str] | None:
    """The token (or, merged into words, the pieces) each row writes; None for an encoder."""
    if att.query_written is None:
        return None
    if words and att.query_words:
        return merge_written(att.query_written, att.query_words)
    return list(att.query_written)


_PART = re.compile(r" (\d+)/(\d+|\?)$")  # "猫 2/3": a piece of a character (model/hf/tokens.py)


def merge_written(labels, query_words) -> list[str]:
    """What each word's rows write, as one label: their labels joined, a character that several
    pieces write shown once and without its "k/n" (a real model's byte pieces: the rows of 的空猪
    wrote "的空 2/3猪 3/3…" joined as pieces are)."""
    groups = word_groups(query_words)
    out = [[] for _ in range(int(groups.max()) + 1 if len(groups) else 0)]
    for label, g in zip(labels, groups):
        out[g].append(label)
    return [_join_written(group) for group in out]


def _join_written(labels: list[str]) -> str:
    text, shown = "", None  # shown: the character the label before wrote a piece of
    for label in labels:
        part = _PART.search(label)
        if part is None:
            text, shown = text + label, None
            continue
        char = label[: part.start()]
        if not (char == shown and part.group(1) != "1"):  # not a later piece of the character just shown
            text += char
        shown = char
    return text or "".join(labels)


def read(att, words: bool = False) -> list[str]:
    if words and att.query_words:
        return att.query_word_labels or merge_tokens(att.query_tokens, att.query_words)
    return list(att.query_tokens)


def row_labels(att, words: bool = False) -> list[str]:
    """ "reads → writes" per row where the rows write, else the tokens read."""
    r, w = read(att, words), written(att, words)
    return r if w is None else [f"{a}{ARROW}{b}" for a, b in zip(r, w)]


def unique(labels: list[str]) -> list[str]:
    """Labels a widget can tell apart: a repeated label gets its position ("dog (4)").
    st.pills and st.selectbox identify an option by its formatted text, so with two "dog" pills
    the second could never be chosen."""
    seen: dict[str, int] = {}
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
    return [f"{lab} ({i})" if seen[lab] > 1 else lab for i, lab in enumerate(labels)]


def pill_labels(labels: list[str]) -> list[str]:
    """Unique, Markdown-escaped labels for st.pills (a token is data, never markup)."""
    return [md(lab) for lab in unique(labels)]


def y_label(att) -> str:
    return t("axis_query_writes") if att.query_written is not None else t("axis_query")


def rows_caption(att) -> str | None:
    """One line under a chart of writing rows: what "a → b" means for this kind of model."""
    if att.query_written is None:
        return None
    # the first row's own token (<2zh>, <s>, or a real model's first word), not a fixed example
    return t("rows_written_note", first=md(str(att.query_tokens[0])))
