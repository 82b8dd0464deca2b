"""A Trace: what one forward pass attended to, as plain data.

Everything after the model (analysis, charts, pages, the CLI's JSON) speaks only this, so a model
from another library needs one adapter and nothing else changes. No torch in here on purpose.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

KINDS = ("encoder", "decoder", "cross")


@dataclass(frozen=True)
class Attention:
    """One attention kind: weights of shape (layers, heads, queries, keys), float32.

    Rows sum to 1; cells a mask hid are exactly 0 and are listed in ``mask`` (True = may attend),
    shape (queries, keys), so a chart can draw them as masked rather than as a 0.00 weight.
    ``query_words`` / ``key_words`` give each token's word index (pieces of one word share it).

    ``query_written`` (decoder and cross-attention only): the token each query row *writes*, i.e.
    the model's most likely next token at that position (argmax of its output there). A decoder
    row reads ``query_tokens[i]`` and its output predicts the next token, so the translator's row
    that reads <2zh> writes 猫, and the last row writes </s>; for a GPT reading given text it is
    the model's own top guess for the token after position i (not necessarily the text's next
    token). None where the rows write nothing (an encoder).
    """

    query_tokens: list[str]
    key_tokens: list[str]
    weights: np.ndarray
    mask: np.ndarray | None = None
    query_words: list[int] | None = None
    key_words: list[int] | None = None
    query_word_labels: list[str] | None = None  # one per word: "mat.", "垫子", "😀"
    key_word_labels: list[str] | None = None
    query_written: list[str] | None = None

    def __post_init__(self):
        w = self.weights
        if w.ndim != 4:
            raise ValueError(f"weights must be (layers, heads, queries, keys), got shape {w.shape}")
        if w.shape[2] != len(self.query_tokens) or w.shape[3] != len(self.key_tokens):
            raise ValueError(
                f"weights {w.shape} do not match {len(self.query_tokens)} query and {len(self.key_tokens)} key tokens"
            )
        if self.query_written is not None and len(self.query_written) != len(self.query_tokens):
            raise ValueError(f"{len(self.query_written)} written tokens for {len(self.query_tokens)} queries")

    @property
    def num_layers(self) -> int:
        return self.weights.shape[0]

    @property
    def num_heads(self) -> int:
        return self.weights.shape[1]

    def query_labels(self, arrow: str = " → ") -> list[str]:
        """Row labels: "<2zh> → 猫" (reads <2zh>, writes 猫) where rows write, else the tokens read."""
        if self.query_written is None:
            return list(self.query_tokens)
        return [f"{r}{arrow}{w}" for r, w in zip(self.query_tokens, self.query_written)]

    def to_json(self) -> dict:
        out = {
            "query_tokens": list(self.query_tokens),
            "key_tokens": list(self.key_tokens),
            "weights": self.weights.tolist(),
        }
        if self.query_written is not None:
            out["query_written"] = list(self.query_written)
        return out


@dataclass(frozen=True)
class Trace:
    """The input and output text and, for each kind in KINDS that the model has, its Attention."""

    model: str
    input_text: str
    output_text: str
    attention: dict[str, Attention]
    notices: list[str] = field(default_factory=list)  # e.g. truncation, words never seen in training
    # what was switched off or edited (analysis/intervene.py), None for an untouched run:
    # {"how": "zero", "ablate": ["cross:2:2"], "edits": [{"head": "decoder:2:3", "query": 5, "weights": [...]}]}
    intervention: dict | None = None

    def kinds(self) -> list[str]:
        return [k for k in KINDS if k in self.attention]

    def to_json(self) -> dict:
        out = {
            "model": self.model,
            "input_text": self.input_text,
            "output_text": self.output_text,
            "attention": {k: a.to_json() for k, a in self.attention.items()},
            "notices": list(self.notices),
        }
        if self.intervention:
            out["intervention"] = self.intervention
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)
