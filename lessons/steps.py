"""A built step (what the lessons page shows) and the margin rule that decides whether it is asked.

The margin rule (issue 23): a step asks only when the model's answer is clear, so students are
graded on what the model does, not on noise. Each step carries its margin (how far the right
option is ahead of the runner-up, in the unit of its rule) and MARGINS holds each rule's threshold:
  weight   attention weights: right weight - runner-up >= 0.10 (or |weight - the number asked about|);
  prob     next-token probabilities: the same, >= 0.10 absolute;
  sketch   the runner-up sketch's L1 distance to the model's row - the right sketch's >= 0.10;
  change   "does the output change": log p(token written) - log p(its rival) >= 1 nat where the
           answer is decided (change_margin);
  entropy  "which row has the higher entropy": the difference >= 0.10 nats;
  estimate a number on a slider, right within a tolerance: no option of the slider lies within
           0.01 of the tolerance's edge (a tiny change of the model would not regrade any option);
  output   a model output (a translation, how many tokens it writes): the smallest gap between the top
           two log-probabilities over greedy decoding's decisions >= 1 nat (decode_gap), so a retrain
           that moves a decision by less cannot flip the answer unseen; never "exact";
  exact    a structural fact (a count of the input, the causal mask, outputs that are equal by
           symmetry): no margin.
A choice among numbers (first_token_weight, row_sum) is graded by numeric_margin: the distance of
the right option to the true number against the runner-up's, not the spacing of the options.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from model.tokenizer import EOS

MARGINS = {
    "weight": 0.10,
    "prob": 0.10,
    "sketch": 0.10,
    "change": 1.0,
    "output": 1.0,
    "entropy": 0.10,
    "estimate": 0.01,
    "exact": 0.0,
}


@dataclass(frozen=True)
class Heat:
    """A heatmap to reveal: (queries, keys) weights, their labels, the mask and the row asked about."""

    weights: np.ndarray
    query_tokens: list[str]
    key_tokens: list[str]
    mask: np.ndarray | None = None
    row: int | None = None
    title: str = ""  # a translation key
    title_params: dict = field(default_factory=dict)
    query_written: list[str] | None = None  # decoder / cross rows: the token each row writes
    name: str = "heatmap"  # what a lesson file's `show` names it


@dataclass(frozen=True)
class Bars:
    """A bar chart to reveal: one value per label (a row of weights, scores, probabilities)."""

    labels: list[str]
    values: np.ndarray
    title: str = ""  # a translation key
    title_params: dict = field(default_factory=dict)
    name: str = "row"


@dataclass(frozen=True)
class Step:
    """One prediction, built from a lesson file's step on the model.

    kind: "word" (click one of the tokens in options), "choice" (options are translation keys,
    or literal text when literal is True), "sketch" (options A, B, C; sketches holds the arrays
    drawn), "yesno" (options ["yes", "no"]), "slider" (options are the slider's numbers as text;
    a choice is right within `tolerance` of `value`).
    ask / reveal: {language: text}, formatted with params (the model's numbers).
    """

    id: str
    kind: str
    options: list[str]
    answer: int
    ask: dict = field(default_factory=dict)
    reveal_text: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    literal: bool = False
    option_params: list[dict] | None = None
    sketches: list[np.ndarray] | None = None
    sketch_labels: list[str] | None = None
    reveal: list = field(default_factory=list)  # Heat / Bars, in order
    rule: str = "exact"
    margin: float = math.inf
    model: str = ""
    query: str = ""
    certainty: float | None = None  # the right option's probability, where options are the model's
    page: str = ""  # the app page that shows this view (the file's view.page): the reveal links to it
    value: float | None = None  # a slider's true number
    tolerance: float = 0.0
    # what the step asks instead of what its lesson file names, said on the step (issue 46): each
    # (translation key, params), e.g. another row ("clearest") or the file's next sentence
    notes: list = field(default_factory=list)

    @property
    def answer_label(self) -> str:
        return self.options[self.answer]

    def is_right(self, choice: int) -> bool:
        if self.kind == "slider" and self.value is not None:
            try:
                return abs(float(self.options[choice]) - self.value) <= self.tolerance + 1e-9
            except (IndexError, ValueError):
                return False
        return choice == self.answer


def passes(step: Step) -> bool:
    """Whether the step's right option is ahead of the runner-up by its rule's margin, and the
    question is uncertain enough to ask (uncertain_enough)."""
    return bool(step.margin >= MARGINS[step.rule]) and uncertain_enough(step)


# The margin rule's companion (issue 37): a question whose right option the model gives a
# probability of at least this is not worth asking ("which token next?" at p = 1.00 teaches
# nothing about uncertainty). A step with several sentences then uses the next one.
CERTAIN = 0.95


def uncertain_enough(step: Step) -> bool:
    """Whether the right option's probability (where the options are the model's probabilities:
    next_token) is under CERTAIN; True for the other questions."""
    return step.certainty is None or step.certainty < CERTAIN


def gap(values, right: int) -> float:
    """values[right] minus the largest of the others (the margin of a "word" question)."""
    v = np.asarray(values, dtype=np.float64)
    others = np.delete(v, right)
    return float(v[right] - others.max()) if len(others) else math.inf


def nearest(value: float, options: list[float]) -> int:
    return int(np.argmin([abs(value - o) for o in options]))


def nearest_gap(value: float, options: list[float]) -> float:
    """How much nearer value is to its nearest option than to the next nearest."""
    d = np.sort([abs(value - o) for o in options])
    return float(d[1] - d[0]) if len(d) > 1 else math.inf


def numeric_margin(value: float, options: list[float]) -> float:
    """The margin of a choice among numbers: half the runner-up's distance to the true number less the
    right (nearest) option's, less the right option's own distance. Half the difference is how far the
    number could move before another option is nearest; the right option's distance is how far off
    it already is. The spacing of the options alone (nearest_gap) says nothing of that: the
    translator's encoder on 狗咬人 gives its first token 0.47, and "1/3" came out right with margin
    0.33 (= 1/3 - 0, whatever the weight between them); here its margin is 0.03."""
    d = np.sort([abs(value - o) for o in options])
    return float((d[1] - d[0]) / 2 - d[0]) if len(d) > 1 else math.inf


def estimate_margin(value: float, options: list[float], tolerance: float) -> float:
    """The smallest distance of any slider option to the edge of "right" (|option - value| = tolerance)."""
    return float(min(abs(abs(o - value) - tolerance) for o in options))


def change_margin(probs: np.ndarray, base_ids: list[int]) -> float:
    """The margin of "does switching the head off change the translation", in nats. probs (T, vocab):
    the next-token probabilities with the head off, teacher-forced on the untouched translation
    base_ids (start token first; the last row predicts </s>). Greedy decoding with the head off
    follows base_ids until the first step whose most likely token is another one: there the output
    changes, and the margin is log p(that token) - log p(the untouched token). Where no step
    changes, it is the smallest log p(untouched token) - log p(runner-up)."""
    logp = np.log(np.clip(np.asarray(probs, dtype=np.float64), 1e-30, None))
    gold = list(base_ids[1:]) + [EOS]
    for t, want in enumerate(gold[: len(logp)]):
        best = int(logp[t].argmax())
        if best != want:
            return float(logp[t, best] - logp[t, want])
    top2 = np.sort(logp[: len(gold)], axis=-1)[:, -2:]
    return float((top2[:, 1] - top2[:, 0]).min())


def closest_sketch(real: np.ndarray, sketches: list[np.ndarray]) -> int:
    return int(np.argmin([np.abs(np.asarray(s) - real).sum() for s in sketches]))


def sketch_margin(real: np.ndarray, sketches: list[np.ndarray]) -> float:
    """L1 distance of the runner-up sketch to the real row minus that of the closest one: 0 when two
    sketches are the same picture (a one-hot row stays one-hot at any temperature)."""
    d = np.sort([np.abs(np.asarray(s) - real).sum() for s in sketches])
    return float(d[1] - d[0])


def entropy(row) -> float:
    p = np.asarray(row, dtype=np.float64)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())
