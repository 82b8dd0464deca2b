"""Finding what a step names in a trace: a row or key by its word, a layer ("last", a number, "auto",
"any"), a head (a number, "mean" of the heads, or one chosen by a stated rule). Layers and heads
are 1-based in lesson files and 0-based here.

Head rules (a lesson file names them; each is a fixed, documented choice):
  mean            the mean of the layer's heads
  decided         the head whose row (the step's word) has the largest weight
  sharpest        the head (over the layers "any" names) whose rows' largest weights have the
                  largest mean: the clearest aligner (cross-attention); its row "surest" is the row
                  with the largest weight
  furthest        the head that reads furthest back from the row: the most weight on a key other
                  than the first token, the row itself and the token just before it
  most_different  (cells_compare) the head whose cell differs most between the two sentences
"""

from __future__ import annotations

import numpy as np

SPECIAL = ("</s>", "<2en>", "<2zh>", "<s>")
WORD = (str, dict)  # a query argument naming a token: "cat", {word, occurrence} or {position}


class NotApplicable(Exception):
    """The step cannot be asked on this model or sentence: key says why (a translation key
    query_na_KEY, formatted with params)."""

    def __init__(self, key: str, **params):
        super().__init__(key)
        self.key, self.params = key, params


def written_tokens(att) -> list[str]:
    """The token each decoder/cross row writes: the trace's own labels when it has them, else the
    next token read (the last row writes </s>)."""
    written = getattr(att, "query_written", None)
    return list(written) if written is not None else list(att.query_tokens[1:]) + ["</s>"]


def token_index(tokens, word) -> int | None:
    """Position of word among tokens (labels as the tokenizer writes them, case ignored), else None."""
    w = str(word).strip().lower()
    for i, tok in enumerate(tokens):
        if str(tok).strip("▁ ").lower() == w:
            return i
    return None


def _plain(tok) -> str:
    return str(tok).strip("▁ ").lower()


def word_position(tokens, word) -> int | None:
    """Where a step's word is among tokens (issue 37: a repeated word is ambiguous as a string):
    "cat" is its first occurrence (case ignored), {word = "the", occurrence = 2} its second,
    {position = 5} the fifth token counted from 1 (special tokens included, as the charts list
    them). None when the sentence has no such word or position."""
    if isinstance(word, dict):
        if "position" in word:
            i = int(word["position"]) - 1
            return i if 0 <= i < len(tokens) else None
        w, n = _plain(word.get("word", "")), int(word.get("occurrence", 1))
        hits = [i for i, tok in enumerate(tokens) if _plain(tok) == w]
        return hits[n - 1] if 1 <= n <= len(hits) else None
    return token_index(tokens, word)


def occurrence(tokens, i: int) -> tuple[int, int]:
    """(which occurrence of its word token i is, how many the sentence has), case ignored."""
    w = _plain(tokens[i])
    hits = [j for j, tok in enumerate(tokens) if _plain(tok) == w]
    return hits.index(i) + 1, len(hits)


def labels_of(tokens) -> list[str]:
    """Every token's word_label: a chart's labels, where two equal words must stay two columns."""
    return [word_label(tokens, i) for i in range(len(tokens))]


SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def word_label(tokens, i: int) -> str:
    """Token i as a lesson shows it: the token, with its occurrence as a subscript where its word
    repeats ("the₂": the second "the"), so a question and its options name the position the
    teacher chose, in either language."""
    tok = str(tokens[i])
    n, total = occurrence(tokens, i)
    return tok + str(n).translate(SUBSCRIPT) if total > 1 else tok


def word_arg(tokens, i: int):
    """What a lesson file writes for token i: the word where it occurs once, else the word and its
    occurrence (so the file means that position whatever the case of the other occurrences)."""
    n, total = occurrence(tokens, i)
    w = str(tokens[i]).strip("▁ ")
    return w if total == 1 else {"word": w, "occurrence": n}


def word_text(word) -> str:
    """A file's word argument as plain text, for a message that it is missing."""
    if isinstance(word, dict):
        if "position" in word:
            return f"#{word['position']}"
        n = int(word.get("occurrence", 1))
        return str(word.get("word", "")) + (str(n).translate(SUBSCRIPT) if n > 1 else "")
    return str(word)


def row_names(att, kind: str) -> list[str]:
    """How a lesson file names rows: cross-attention rows by the token they write, others by the token read."""
    return written_tokens(att) if kind == "cross" else list(att.query_tokens)


def row_label(att, kind: str, i: int) -> str:
    """Row i as a lesson names it, by row_names' convention (cross-attention: the token the row writes;
    the others: the token read), with its occurrence where its word repeats. Every {word} a query
    fills and every chart title names a row this way, so a reveal names the row the lesson file named
    (a cross row printed the token it read: decoder.8's "垫子" came back as "在")."""
    return word_label(row_names(att, kind), i)


def find_row(att, kind: str, word) -> int:
    i = word_position(row_names(att, kind), word)
    if i is None:
        raise NotApplicable("word_missing", word=word_text(word))
    return i


def find_key(att, word) -> int:
    i = word_position(att.key_tokens, word)
    if i is None:
        raise NotApplicable("word_missing", word=word_text(word))
    return i


def visible(att, row: int) -> list[int]:
    """The keys row may read (its mask), every key without a mask."""
    if att.mask is None:
        return list(range(len(att.key_tokens)))
    return [int(j) for j in np.nonzero(np.asarray(att.mask[row], bool))[0]]


def layer_of(value, n_layers: int) -> int:
    """A file's layer (1-based, "last") as 0-based; NotApplicable past the model's layers."""
    if value in (None, "last"):
        return n_layers - 1
    if isinstance(value, int) and 1 <= value <= n_layers:
        return value - 1
    raise NotApplicable("no_layer", layer=str(value), n=n_layers)


def head_of(value, n_heads: int) -> int | None:
    """A file's head number as 0-based (None for "mean"); rules are resolved by choose_head."""
    if value in (None, "mean"):
        return None
    if isinstance(value, int) and 1 <= value <= n_heads:
        return value - 1
    raise NotApplicable("no_head", head=str(value), n=n_heads)


def choose_head(w: np.ndarray, rule: str, layer_value, row: int | None, rows: list[int] | None = None):
    """(layer, head) 0-based that rule picks in weights w (layers, heads, queries, keys)."""
    n_layers = w.shape[0]
    layers = range(n_layers) if layer_value == "any" else [layer_of(layer_value, n_layers)]
    best, where = -np.inf, None
    for la in layers:
        for h in range(w.shape[1]):
            if rule == "decided":
                score = w[la, h, row].max()
            elif rule == "sharpest":
                score = w[la, h, rows].max(axis=-1).mean()
            elif rule == "furthest":
                far = w[la, h, row].copy()
                far[[0, row, max(row - 1, 0)]] = 0
                score = far.max()
            else:
                raise NotApplicable("no_head", head=rule, n=w.shape[1])
            if score > best:
                best, where = score, (la, h)
    return where


def matrix(w: np.ndarray, layer: int, head: int | None) -> np.ndarray:
    """(queries, keys) weights of one head, or the mean of the layer's heads."""
    return w[layer].mean(axis=0) if head is None else w[layer, head]


def content_rows(att, kind: str) -> list[int]:
    """Rows that write (cross) or read (others) a token of the text, not a special token."""
    names = row_names(att, kind)
    return [i for i, tok in enumerate(names) if tok not in SPECIAL] or [0]
