"""Synthetic traces of a given size: what a 6-layer x 12-head model (BERT-base's head count)
would hand the views, without running one."""

from __future__ import annotations

import zlib
from functools import lru_cache

import numpy as np

from model.trace import Attention, Trace

LAYERS, HEADS = 6, 12


def words(n: int, tag: str) -> list[str]:
    """n distinct word-like tokens; tag makes one sentence's tokens differ from another's."""
    return [f"{tag}w{i}" for i in range(n)]


SPEC = "synthetic:"  # "synthetic:512:tag" stands for words(512, "tag")
BOX_LIMIT = 2000  # the sidebar's sentence box keeps this many characters (ui.context)


def sentence(n: int, tag: str) -> str:
    """The text to type for an n-token trace: the words themselves while they fit the sentence
    box, else a short spec the synthetic trace expands (512 words are 6,000 characters; the box
    would cut them to about 170 tokens)."""
    text = " ".join(words(n, tag))
    return text if len(text) <= BOX_LIMIT else f"{SPEC}{n}:{tag}"


def tokens_of(text: str) -> list[str]:
    """The tokens a typed text stands for: its words, or a spec's n words."""
    if text.startswith(SPEC):
        n, tag = text[len(SPEC) :].split(":", 1)
        return words(int(n), tag)
    return text.split() or ["(empty)"]


def attention_weights(n: int, layers: int = LAYERS, heads: int = HEADS, seed: int = 0) -> np.ndarray:
    """(layers, heads, n, n) float32 rows summing to 1, with the patterns real heads show
    (previous token, self, first token, broad) so charts have structure to draw."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, 1.0, size=(layers, heads, n, n)).astype(np.float32)
    idx = np.arange(n)
    for h in range(heads):
        kind = h % 4
        if kind == 0:
            logits[:, h, idx[1:], idx[:-1]] += 4.0
        elif kind == 1:
            logits[:, h, idx, idx] += 4.0
        elif kind == 2:
            logits[:, h, :, 0] += 4.0
    logits -= logits.max(axis=-1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=-1, keepdims=True)
    return logits


@lru_cache(maxsize=4)
def _base(n: int, layers: int, heads: int) -> np.ndarray:
    w = attention_weights(n, layers, heads, seed=n)
    w.setflags(write=False)
    return w


def trace(text: str, layers: int = LAYERS, heads: int = HEADS) -> Trace:
    """An encoder trace whose tokens are the text's words (a BERT-like self-attention model).

    The weights of one length are made once; each sentence gets its own order of the heads, so
    two sentences never send the browser the same chart (Streamlit would send a reference to the
    copy the browser already has, and the bytes counted would be too low)."""
    tokens = tokens_of(text)
    n = len(tokens)
    order = np.random.default_rng(zlib.crc32(text.encode())).permutation(heads)
    w = np.ascontiguousarray(_base(n, layers, heads)[:, order])
    att = Attention(
        query_tokens=tokens,
        key_tokens=tokens,
        weights=w,
        mask=None,
        query_words=list(range(n)),
        key_words=list(range(n)),
    )
    return Trace("synthetic", " ".join(tokens), "", {"encoder": att})


# the trained GPT's corpus words (bench/moves.py's temperature page, bench/model_moves.py)
GPT_WORDS = "The cat sat on the mat . The dog saw the man in the garden . A bird sang on the old tree".split()


def gpt_prompt(n: int) -> str:
    """A text the GPT reads as n tokens with its <s> (the corpus's words, repeated)."""
    from model import load

    ids = load("gpt").prompt_ids
    words: list[str] = []
    while True:
        words.append(GPT_WORDS[len(words) % len(GPT_WORDS)])
        got = len(ids(" ".join(words))[1])
        if got >= n:
            if got > n:
                words.pop()
            return " ".join(words)
