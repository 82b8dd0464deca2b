"""Predict-then-reveal lessons: each step asks the student to predict, then shows the model's numbers.

Every question is computed from the model's own numbers for the lesson's sentence (which word a
row reads most, whether switching a head off changes the translation, what a row looks like at
another temperature), never written down by hand, so the lessons stay right when the weights are
retrained. A step carries its question, its options, the index of the right one and what to show
after the prediction; the page (pages/lessons.py) lays it out and translates its text keys.

The margin rule: a step asks only when the model's answer is clear, so students are graded on what
the model does, not on noise. Each step carries its margin (how far the right option is ahead of the
runner-up, in the unit of its rule) and the rule's threshold (MARGINS):
  weight  attention weights: right weight - runner-up >= 0.10 (or |weight - the number asked about|);
  prob    next-token probabilities: the same, >= 0.10 absolute;
  sketch  the runner-up sketch's L1 distance to the model's row - the right sketch's >= 0.10;
  change  "does the output change": log p(token written) - log p(its rival) >= 1 nat where the
          answer is decided (change_margin);
  exact   a structural fact (a count, the causal mask, outputs that are equal by symmetry): no margin.
Where a step's first choice of row, head or sentence fails, its builder tries the next one by a
stated rule; build() drops a step that still fails (passes()), so a retrained model skips a
question rather than grading on a coin toss.

    from model import load
    from analysis.lessons import build
    steps = build("attention", load)       # load: model name -> runner (ui passes its cache)
    steps[2].options[steps[2].answer]      # 'sat' (whatever the trained model says)
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field

import numpy as np

from analysis import experiments, intervene
from model import intervention
from model.tokenizer import EOS

LESSONS = ("attention", "positions", "decoder")
CAT_TEXT = "The cat sat on the mat"
PRONOUN_TEXT = "The cat sat on the mat. It was happy."
DOG_BITES, MAN_BITES = "狗咬人", "人咬狗"
SHARP_T = 0.2  # the temperature the sketch questions ask about
SAME_WEIGHT = 0.01  # two weights closer than this count as "the same"
TUTORIAL_CAT_SELF = 0.35  # the tutorial's table: cat reads itself with 0.35
MARGINS = {"weight": 0.10, "prob": 0.10, "sketch": 0.10, "change": 1.0, "exact": 0.0}
# next-word prompts whose next word the grammar (data/corpus.py) decides, with that word: every
# English noun phrase starts with "the"; a story's second sentence ends with "."
DECIDED_PROMPTS = (("The cat sat on", "the"), ("The cat sat on the mat. It was happy", "."))
# a prompt where the grammar leaves the next word open: 12 nouns fit "on the", 1/12 each
OPEN_PROMPT = "The cat sat on the"


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


@dataclass(frozen=True)
class Bars:
    """A bar chart to reveal: one value per label (a row of weights, scores, probabilities)."""

    labels: list[str]
    values: np.ndarray
    title: str = ""  # a translation key
    title_params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    """One prediction.

    kind: "word" (click one of the tokens in options), "choice" (options are translation keys,
    or literal text when literal is True), "sketch" (options are labels A, B, C; sketches holds
    the arrays drawn for them), "yesno" (options ["yes", "no"]).
    key: the step's translation-key stem: lesson_{key}_ask, lesson_{key}_reveal (both formatted
    with params, which hold the model's numbers).
    """

    id: str
    key: str
    kind: str
    options: list[str]
    answer: int
    params: dict = field(default_factory=dict)
    literal: bool = False
    option_params: list[dict] | None = None
    sketches: list[np.ndarray] | None = None
    sketch_labels: list[str] | None = None
    reveal: list = field(default_factory=list)  # Heat / Bars, in order
    rule: str = "exact"  # which margin rule grades this step (MARGINS)
    margin: float = math.inf  # how far the right option is ahead of the runner-up, in the rule's unit

    @property
    def answer_label(self) -> str:
        return self.options[self.answer]


def passes(step: Step) -> bool:
    """Whether the step's right option is ahead of the runner-up by its rule's margin."""
    return bool(step.margin >= MARGINS[step.rule])


def gap(values, right: int) -> float:
    """values[right] minus the largest of the others (the margin of a "word" question)."""
    v = np.asarray(values, dtype=np.float64)
    others = np.delete(v, right)
    return float(v[right] - others.max()) if len(others) else math.inf


def nearest_gap(value: float, options: list[float]) -> float:
    """How much nearer value is to its nearest option than to the next nearest."""
    d = np.sort([abs(value - o) for o in options])
    return float(d[1] - d[0]) if len(d) > 1 else math.inf


def change_margin(probs: np.ndarray, base_ids: list[int]) -> float:
    """The margin of "does switching the head off change the translation", in nats. probs (T, vocab):
    the next-token probabilities with the head off, teacher-forced on the untouched translation
    base_ids (start token first; the last row predicts </s>). Greedy decoding with the head off
    follows base_ids until the first step whose most likely token is another one: there the output
    changes, and the margin is log p(that token) - log p(the untouched token). Where no step
    changes, it is the smallest log p(untouched token) - log p(runner-up): how far the model with
    the head off is from writing something else."""
    logp = np.log(np.clip(np.asarray(probs, dtype=np.float64), 1e-30, None))
    gold = list(base_ids[1:]) + [EOS]
    for t, want in enumerate(gold[: len(logp)]):
        best = int(logp[t].argmax())
        if best != want:
            return float(logp[t, best] - logp[t, want])
    top2 = np.sort(logp[: len(gold)], axis=-1)[:, -2:]
    return float((top2[:, 1] - top2[:, 0]).min())


def head_heat(
    weights, query_tokens, key_tokens, kind: str, layer: int, head: int, row: int, mask=None, written=None
) -> Heat:
    """One head's (queries, keys) weights to reveal, titled "<kind> layer L, head H" (layer and head
    0-based here, shown from 1), with the row asked about marked; written: what each row writes
    (decoder, cross), so the page labels rows "reads → writes" as every other page does."""
    return Heat(
        weights,
        query_tokens,
        key_tokens,
        mask=mask,
        row=row,
        title="lesson_title_head",
        title_params={"kind": kind, "layer": int(layer) + 1, "head": int(head) + 1},
        query_written=None if written is None else list(written),
    )


def yesno(truth: bool) -> tuple[list[str], int]:
    return ["yes", "no"], 0 if truth else 1


def find(tokens: list[str], word: str, default: int) -> int:
    """Position of word among tokens (labels as the tokenizer writes them), else default."""
    for i, tok in enumerate(tokens):
        if tok.strip("▁ ").lower() == word.lower():
            return i
    return min(max(default, 0), len(tokens) - 1)


def nearest(value: float, options: list[float]) -> int:
    return int(np.argmin([abs(value - o) for o in options]))


def closest_sketch(real: np.ndarray, sketches: list[np.ndarray]) -> int:
    return int(np.argmin([np.abs(np.asarray(s) - real).sum() for s in sketches]))


def sketch_margin(real: np.ndarray, sketches: list[np.ndarray]) -> float:
    """L1 distance of the runner-up sketch to the real row minus that of the closest one: 0 when two
    sketches are the same picture (a one-hot row stays one-hot at any temperature)."""
    d = np.sort([np.abs(np.asarray(s) - real).sum() for s in sketches])
    return float(d[1] - d[0])


def written_tokens(att) -> list[str]:
    """The token each decoder/cross row writes: the trace's own labels when it has them, else the
    next token read (the last row writes </s>)."""
    written = getattr(att, "query_written", None)
    return list(written) if written is not None else list(att.query_tokens[1:]) + ["</s>"]


def cross_word_step(step_id: str, key: str, cross, layer: int, head: int, row: int, **params) -> Step:
    """A "word" question on one cross-attention row: which source word does head (layer, head) read most
    when it writes written[row]? The reveal is that head's heatmap with the row marked."""
    cw = cross.weights.astype(np.float64)
    written = written_tokens(cross)
    top = int(cw[layer, head, row].argmax())
    layer, head = int(layer), int(head)
    return Step(
        step_id,
        key,
        "word",
        list(cross.key_tokens),
        top,
        params={
            **params,
            "written": written[row],
            "layer": layer + 1,
            "head": head + 1,
            "top": cross.key_tokens[top],
            "weight": f"{cw[layer, head, row, top]:.2f}",
        },
        reveal=[
            head_heat(cw[layer, head], cross.query_tokens, cross.key_tokens, "cross", layer, head, row, written=written)
        ],
        rule="weight",
        margin=gap(cw[layer, head, row], top),
    )


def sharpen_step(step_id: str, key: str, word: str, layer: int, head: int, before: float, real, sketches, keys) -> Step:
    """A "sketch" question: which of three sketches is the row of head (layer, head) for `word` with its
    scores divided by SHARP_T? real: the model's row at that temperature, one weight per key; before:
    the row's largest weight at T = 1. The reveal is the real row."""
    where = {"word": word, "layer": int(layer) + 1, "head": int(head) + 1, "temp": SHARP_T}
    return Step(
        step_id,
        key,
        "sketch",
        ["A", "B", "C"],
        closest_sketch(real, sketches),
        params={**where, "before": f"{before:.2f}", "after": f"{real.max():.2f}"},
        sketches=sketches,
        sketch_labels=list(keys),
        reveal=[Bars(list(keys), real, "lesson_title_row_temp", where)],
        rule="sketch",
        margin=sketch_margin(real, sketches),
    )


def sharpen(row: np.ndarray, temperature: float, mask_row: np.ndarray | None = None) -> np.ndarray:
    """What a row of weights becomes when its scores are divided by T (and nothing else changes):
    softmax(log(w) / T) = w^(1/T), normalised; masked cells stay 0."""
    w = np.asarray(row, dtype=np.float64)
    visible = w > 0 if mask_row is None else np.asarray(mask_row, bool) & (w > 0)
    logw = np.where(visible, np.log(np.where(visible, w, 1.0)), -np.inf)
    return experiments.softmax_at(logw, temperature)


def can_ablate(runner) -> bool:
    try:
        return "ablate" in inspect.signature(runner.trace).parameters
    except (TypeError, ValueError):
        return False


# -- lesson 1: attention and Q/K/V on "The cat sat on the mat" (translator encoder) -------------------


def heads_agree_step(w0: np.ndarray, toks: list[str], prefer: int) -> Step:
    """ "Do all heads of layer 1 give <word> the same top word?" on a row where every head's top word
    is clear (ahead of its runner-up by the weight margin). Rows where the heads disagree come
    first (that is what multi-head attention is for), `prefer` first among equals; where no row has
    clearly disagreeing heads, a row where they clearly agree, with a reveal that says so."""
    n_heads = w0.shape[0]

    def tops_and_margin(r):
        tops = [int(w0[h, r].argmax()) for h in range(n_heads)]
        return tops, min(gap(w0[h, r], tops[h]) for h in range(n_heads))

    order = [prefer] + [r for r in range(len(toks)) if r != prefer]
    clear = [(r, *tops_and_margin(r)) for r in order]
    clear = [c for c in clear if c[2] >= MARGINS["weight"]] or [(prefer, *tops_and_margin(prefer))]
    row, tops, margin = next((c for c in clear if len(set(c[1])) > 1), clear[0])
    agree = len(set(tops)) == 1
    opts, ans = yesno(agree)
    return Step(
        "attention.6",
        "att_heads_same" if agree else "att_heads_agree",
        "yesno",
        opts,
        ans,
        params={
            "word": toks[row],
            "layer": 1,
            "n": n_heads,
            "tops": ", ".join(f"{h + 1}: {toks[k]}" for h, k in enumerate(tops)),
        },
        reveal=[head_heat(w0[h], toks, toks, "encoder", 0, h, row) for h in range(n_heads)],
        rule="weight",
        margin=margin,
    )


def attention_lesson(load) -> list[Step]:
    m = load("translator")
    tr = m.trace(CAT_TEXT)
    enc = tr.attention["encoder"]
    toks, w = enc.key_tokens, enc.weights.astype(np.float64)
    n_layers, n_heads = enc.num_layers, enc.num_heads
    last = n_layers - 1
    cat, sat, mat = find(toks, "cat", 1), find(toks, "sat", 2), find(toks, "mat", len(toks) - 1)
    mean_last = w[last].mean(axis=0)
    steps = []

    counts = sorted({max(1, len(toks) + d) for d in (-2, -1, 0, 1)})
    steps.append(
        Step(
            "attention.1",
            "att_tokens",
            "choice",
            [str(c) for c in counts],
            counts.index(len(toks)),
            params={"text": CAT_TEXT, "n": len(toks), "tokens": " | ".join(toks)},
            literal=True,
        )
    )

    total = float(mean_last[cat].sum())
    sums = [0.5, 1.0, float(len(toks))]
    steps.append(
        Step(
            "attention.2",
            "att_row_sum",
            "choice",
            ["lesson_sum_half", "lesson_sum_one", "lesson_sum_n"],
            nearest(total, sums),
            params={"word": toks[cat], "total": f"{total:.4f}", "n": len(toks)},
            option_params=[{}, {}, {"n": len(toks)}],
            reveal=[Bars(toks, mean_last[cat], "lesson_title_row", {"word": toks[cat], "layer": last + 1})],
            rule="weight",
            margin=nearest_gap(total, sums),
        )
    )

    top = int(mean_last[cat].argmax())
    steps.append(
        Step(
            "attention.3",
            "att_cat_reads",
            "word",
            list(toks),
            top,
            params={"word": toks[cat], "layer": last + 1, "top": toks[top], "weight": f"{mean_last[cat, top]:.2f}"},
            reveal=[
                Heat(
                    mean_last,
                    toks,
                    toks,
                    row=cat,
                    title="lesson_title_mean",
                    title_params={"kind": "encoder", "layer": last + 1},
                )
            ],
            rule="weight",
            margin=gap(mean_last[cat], top),
        )
    )

    # "cat" on itself against the tutorial's 0.35: in the last layer, else the first earlier layer
    # where the mean of the heads is at least WEIGHT margin away from 0.35 (a clear yes or no)
    layer = next(
        (
            la
            for la in range(last, -1, -1)
            if abs(w[la].mean(axis=0)[cat, cat] - TUTORIAL_CAT_SELF) >= MARGINS["weight"]
        ),
        last,
    )
    mean_row = w[layer].mean(axis=0)[cat]
    self_w = float(mean_row[cat])
    opts, ans = yesno(self_w > TUTORIAL_CAT_SELF)
    steps.append(
        Step(
            "attention.4",
            "att_cat_self",
            "yesno",
            opts,
            ans,
            params={"word": toks[cat], "tutorial": TUTORIAL_CAT_SELF, "weight": f"{self_w:.2f}", "layer": layer + 1},
            reveal=[Bars(toks, mean_row, "lesson_title_row", {"word": toks[cat], "layer": layer + 1})],
            rule="weight",
            margin=abs(self_w - TUTORIAL_CAT_SELF),
        )
    )

    # the most decided head of layer 1 for "sat": the one whose row has the largest weight
    head = int(w[0, :, sat].max(axis=-1).argmax())
    row = w[0, head, sat]
    top = int(row.argmax())
    steps.append(
        Step(
            "attention.5",
            "att_head_reads",
            "word",
            list(toks),
            top,
            params={"word": toks[sat], "layer": 1, "head": head + 1, "top": toks[top], "weight": f"{row[top]:.2f}"},
            reveal=[head_heat(w[0, head], toks, toks, "encoder", 0, head, sat)],
            rule="weight",
            margin=gap(row, top),
        )
    )
    steps.append(heads_agree_step(w[0], toks, sat))

    # Q/K: the scores q.k / sqrt(d_k) of the last layer's most decided head for "mat"
    head = int(w[last, :, mat].max(axis=-1).argmax())
    scores = experiments.head_scores(m, CAT_TEXT, "encoder", last, head)[mat]
    top = int(np.argmax(scores))
    d_k = m.config.d_model // m.config.num_heads
    steps.append(
        Step(
            "attention.7",
            "att_scores",
            "word",
            list(toks),
            top,
            params={
                "word": toks[mat],
                "layer": last + 1,
                "head": head + 1,
                "top": toks[top],
                "score": f"{scores[top]:.2f}",
                "weight": f"{w[last, head, mat, top]:.2f}",
                "d_k": d_k,
            },
            reveal=[
                Bars(toks, scores, "lesson_title_scores", {"word": toks[mat]}),
                Bars(
                    toks,
                    w[last, head, mat],
                    "lesson_title_row_head",
                    {"word": toks[mat], "layer": last + 1, "head": head + 1},
                ),
            ],
            rule="weight",  # softmax keeps the order of the scores: the weights' gap is the margin
            margin=gap(w[last, head, mat], top),
        )
    )

    # the same head with its scores divided by T: the real row from the model run at T in that layer
    sharp = m.trace(CAT_TEXT, temperature=SHARP_T, temperature_layer=last).attention["encoder"].weights
    real = sharp[last, head, mat].astype(np.float64)
    sketches = [sharpen(w[last, head, mat], t) for t in (SHARP_T, 1.0, 1 / SHARP_T)]
    order = [1, 0, 2]  # "unchanged" first, so the right sketch is not always A
    sketches = [sketches[i] for i in order]
    steps.append(
        sharpen_step(
            "attention.8", "att_sharpen", toks[mat], last, head, w[last, head, mat].max(), real, sketches, toks
        )
    )

    dk_options = sorted({d_k, m.config.d_model, n_heads, int(math.isqrt(d_k)) or 1})
    steps.append(
        Step(
            "attention.9",
            "att_dk",
            "choice",
            [str(v) for v in dk_options],
            dk_options.index(d_k),
            params={"d_model": m.config.d_model, "h": n_heads, "d_k": d_k, "sqrt": f"{math.sqrt(d_k):.2f}"},
            literal=True,
        )
    )
    return steps


# -- lesson 2: positions, 狗咬人 / 人咬狗 ------------------------------------------------------------------


def positions_lesson(load) -> list[Step]:
    m = load("translator")
    a, b = m.trace(DOG_BITES), m.trace(MAN_BITES)
    a0, b0 = m.trace(DOG_BITES, use_position=False), m.trace(MAN_BITES, use_position=False)
    steps = []

    # which is the translation: the two sentences' own outputs and this one's without positions
    for n, (key, text, tr, tr0) in enumerate(
        (("pos_translate_a", DOG_BITES, a, a0), ("pos_translate_b", MAN_BITES, b, b0))
    ):
        outs = sorted({a.output_text, b.output_text, tr0.output_text})
        steps.append(
            Step(
                f"positions.{n + 1}",
                key,
                "choice",
                outs,
                outs.index(tr.output_text),
                params={"text": text, "out": tr.output_text},
                literal=True,
            )
        )

    opts, ans = yesno(a0.output_text == b0.output_text)
    steps.append(
        Step(
            "positions.3",
            "pos_no_position_same",
            "yesno",
            opts,
            ans,
            params={"a": DOG_BITES, "b": MAN_BITES, "out_a": a0.output_text, "out_b": b0.output_text},
        )
    )

    ea0, eb0 = a0.attention["encoder"], b0.attention["encoder"]
    ta, tb = ea0.key_tokens, eb0.key_tokens
    bite_a, dog_a = find(ta, "咬", 1), find(ta, "狗", 0)
    bite_b, dog_b = find(tb, "咬", 1), find(tb, "狗", 2)
    wa0, wb0 = ea0.weights[0].mean(axis=0), eb0.weights[0].mean(axis=0)
    diff0 = abs(float(wa0[bite_a, dog_a]) - float(wb0[bite_b, dog_b]))
    opts, ans = yesno(diff0 < SAME_WEIGHT)
    steps.append(
        Step(
            "positions.4",
            "pos_no_position_weight",
            "yesno",
            opts,
            ans,
            params={
                "a": DOG_BITES,
                "b": MAN_BITES,
                "wa": f"{wa0[bite_a, dog_a]:.3f}",
                "wb": f"{wb0[bite_b, dog_b]:.3f}",
            },
            reveal=[
                Heat(wa0, ta, ta, row=bite_a, title="lesson_title_nopos", title_params={"text": DOG_BITES}),
                Heat(wb0, tb, tb, row=bite_b, title="lesson_title_nopos", title_params={"text": MAN_BITES}),
            ],
        )
    )

    ea, eb = a.attention["encoder"], b.attention["encoder"]
    wa, wb = ea.weights[0].mean(axis=0), eb.weights[0].mean(axis=0)
    for n, (att, weights, text, bite) in enumerate(((ea, wa, DOG_BITES, bite_a), (eb, wb, MAN_BITES, bite_b))):
        top = int(weights[bite].argmax())
        steps.append(
            Step(
                f"positions.{5 + n}",
                "pos_bite_reads",
                "word",
                list(att.key_tokens),
                top,
                params={
                    "text": text,
                    "word": att.key_tokens[bite],
                    "top": att.key_tokens[top],
                    "weight": f"{weights[bite, top]:.2f}",
                },
                reveal=[
                    Heat(
                        weights,
                        att.key_tokens,
                        att.key_tokens,
                        row=bite,
                        title="lesson_title_pos",
                        title_params={"text": text},
                    )
                ],
                rule="weight",
                margin=gap(weights[bite], top),
            )
        )

    # with positions: the head (any layer) whose 咬 -> 狗 weight differs most between the sentences;
    # the mean of layer 1's heads differs by less than the weight margin, so it would be a coin toss
    da = ea.weights[:, :, bite_a, dog_a].astype(np.float64)
    db = eb.weights[:, :, bite_b, dog_b].astype(np.float64)
    layer, head = (int(x) for x in np.unravel_index(int(np.abs(da - db).argmax()), da.shape))
    diff = abs(da[layer, head] - db[layer, head])
    opts, ans = yesno(diff >= SAME_WEIGHT)
    steps.append(
        Step(
            "positions.7",
            "pos_position_weight",
            "yesno",
            opts,
            ans,
            params={
                "a": DOG_BITES,
                "b": MAN_BITES,
                "layer": layer + 1,
                "head": head + 1,
                "wa": f"{da[layer, head]:.3f}",
                "wb": f"{db[layer, head]:.3f}",
            },
            rule="weight",
            margin=diff,
        )
    )

    # cross-attention of 狗咬人: the head that aligns most sharply, and the row it is surest of
    cross = a.attention["cross"]
    cw = cross.weights.astype(np.float64)
    written = written_tokens(cross)
    rows = [i for i, tok in enumerate(written) if tok not in ("</s>", "<2en>", "<2zh>")] or [0]
    sharpness = cw[:, :, rows].max(axis=-1).mean(axis=-1)  # (layers, heads)
    layer, head = np.unravel_index(int(sharpness.argmax()), sharpness.shape)
    row = max(rows, key=lambda i: cw[layer, head, i].max())
    steps.append(cross_word_step("positions.8", "pos_cross", cross, layer, head, row, text=DOG_BITES))

    pe = experiments.pe_table(m.config.d_model, 16)
    near, far = float(pe[3] @ pe[4]), float(pe[3] @ pe[10])
    steps.append(
        Step(
            "positions.9",
            "pos_pe_dot",
            "choice",
            ["lesson_pe_near", "lesson_pe_far", "lesson_pe_equal"],
            0 if near > far + 1e-6 else 1 if far > near + 1e-6 else 2,
            params={"near": f"{near:.2f}", "far": f"{far:.2f}", "d_model": m.config.d_model},
            reveal=[Bars([str(p) for p in range(16)], pe[3] @ pe.T, "lesson_title_pe", {})],
        )
    )
    return steps


# -- lesson 3: the decoder: masking, cross-attention, generation -------------------------------------


def decoder_lesson(load) -> list[Step]:
    g = load("gpt")
    tr = g.trace(CAT_TEXT)
    dec = tr.attention["decoder"]
    toks, w, mask = dec.key_tokens, dec.weights.astype(np.float64), dec.mask
    sat, mat = find(toks, "sat", 3), find(toks, "mat", len(toks) - 1)
    steps = []

    allowed = bool(mask[sat, mat]) if mask is not None else bool(w[:, :, sat, mat].max() > 0)
    opts, ans = yesno(allowed)
    steps.append(
        Step(
            "decoder.1",
            "dec_mask",
            "yesno",
            opts,
            ans,
            params={"word": toks[sat], "later": toks[mat], "weight": f"{w[:, :, sat, mat].max():.2f}"},
            reveal=[
                Heat(
                    w[0].mean(axis=0),
                    toks,
                    toks,
                    mask=mask,
                    row=sat,
                    title="lesson_title_mean",
                    title_params={"kind": "decoder", "layer": 1},
                    query_written=written_tokens(dec),
                )
            ],
        )
    )

    first = float(w[:, :, 0, 0].mean())
    values = [1.0, 1.0 / len(toks), 0.0]
    steps.append(
        Step(
            "decoder.2",
            "dec_first",
            "choice",
            ["1", f"1/{len(toks)}", "0"],
            nearest(first, values),
            params={"token": toks[0], "weight": f"{first:.2f}"},
            literal=True,
        )
    )

    # "It": the head that reads furthest back (most weight on a token other than <s>, itself and
    # the token just before it), and which token it reads most
    pt = g.trace(PRONOUN_TEXT).attention["decoder"]
    ptoks, pw = pt.key_tokens, pt.weights.astype(np.float64)
    pwritten = written_tokens(pt)
    it = find(ptoks, "It", len(ptoks) - 4)
    far = pw[:, :, it].copy()
    far[..., [0, it, it - 1]] = 0
    layer, head = np.unravel_index(int(far.max(axis=-1).argmax()), far.shape[:2])
    row = pw[layer, head, it]
    top = int(row.argmax())
    steps.append(
        Step(
            "decoder.3",
            "dec_pronoun",
            "word",
            list(ptoks[: it + 1]),
            top,
            params={
                "text": PRONOUN_TEXT,
                "word": ptoks[it],
                "layer": int(layer) + 1,
                "head": int(head) + 1,
                "top": ptoks[top],
                "weight": f"{row[top]:.2f}",
            },
            reveal=[head_heat(pw[layer, head], ptoks, ptoks, "decoder", layer, head, it, pt.mask, pwritten)],
            rule="weight",
            margin=gap(row[: it + 1], top),
        )
    )

    # the same head with every layer's scores divided by 0.2: the model's real row, against three
    # sketches. "It"'s row is already one-hot (1.00 stays 1.00, two sketches are the same picture),
    # so the row asked about is the one of this head whose sketches are most clearly apart
    real_all = g.trace(PRONOUN_TEXT, temperature=SHARP_T).attention["decoder"].weights[layer, head].astype(np.float64)

    def sharpen_option(r):
        sketches = [sharpen(pw[layer, head, r, : r + 1], t) for t in (1 / SHARP_T, SHARP_T, 1.0)]
        # the row's causal mask leaves the weights after r at exactly 0: real[: r + 1] has real's maximum
        return r, sketches, sketch_margin(real_all[r, : r + 1], sketches)

    options = [sharpen_option(r) for r in range(1, len(ptoks))]  # row 0 sees one key: nothing to sharpen
    r, sketches, _ = max(options, key=lambda o: o[2])
    steps.append(
        sharpen_step(
            "decoder.4",
            "dec_sharpen",
            ptoks[r],
            layer,
            head,
            pw[layer, head, r].max(),
            real_all[r, : r + 1],
            sketches,
            ptoks[: r + 1],
        )
    )

    # generation: a next word the grammar decides (every English noun phrase starts with "the"), among
    # GPT's five likeliest tokens; the first prompt of DECIDED_PROMPTS where the model's top token is
    # the grammar's word and beats its runner-up by the probability margin
    def next_probs(prompt):
        logits = experiments.gpt_next_token_logits(g, prompt).astype(np.float64)
        probs = np.exp(logits - logits.max())
        return probs / probs.sum()

    def decided(prompt_word):
        probs = next_probs(prompt_word[0])
        top5 = [int(i) for i in np.argsort(-probs)[:5]]
        labels = g.tokenizer.labels(top5)
        ok = labels[0].strip("▁ ") == prompt_word[1] and probs[top5[0]] - probs[top5[1]] >= MARGINS["prob"]
        return ok, prompt_word[0], probs, top5, labels

    tried = [decided(pw_) for pw_ in DECIDED_PROMPTS]
    _, prompt, probs, top5, labels = next((x for x in tried if x[0]), tried[0])
    order = sorted(range(5), key=lambda i: labels[i])  # alphabetical: the answer's place tells nothing
    options = [labels[i] for i in order]
    steps.append(
        Step(
            "decoder.5",
            "dec_next",
            "word",
            options,
            order.index(0),
            params={"prompt": prompt, "top": labels[0], "p": f"{probs[top5[0]]:.2f}"},
            reveal=[Bars(labels, probs[top5], "lesson_title_next", {"prompt": prompt})],
            rule="prob",
            margin=float(probs[top5[0]] - probs[top5[1]]),
        )
    )

    # sampling where the grammar leaves the word open: 12 nouns fit "on the", so the greedy word is
    # far from certain and sampling writes another one most of the time
    probs = next_probs(OPEN_PROMPT)
    top = int(probs.argmax())
    top_label = g.tokenizer.labels([top])[0]
    rest = 1 - float(probs[top])
    opts, ans = yesno(rest >= MARGINS["prob"])
    steps.append(
        Step(
            "decoder.6",
            "dec_sample",
            "yesno",
            opts,
            ans,
            params={"prompt": OPEN_PROMPT, "top": top_label, "p": f"{probs[top]:.3f}", "rest": f"{rest:.3f}"},
            rule="prob",
            # yes: another token is sampled at least one time in ten; no: almost never (< 0.001)
            margin=rest if ans == 0 else MARGINS["prob"] * (rest < 0.001),
        )
    )

    # the translator's decoder: how many rows, which English word a written Chinese word reads
    m = load("translator")
    tt = m.trace(CAT_TEXT)
    cross = tt.attention["cross"]
    n_rows = len(cross.query_tokens)
    counts = sorted({max(1, n_rows + d) for d in (-2, -1, 0, 1)})
    steps.append(
        Step(
            "decoder.7",
            "dec_rows",
            "choice",
            [str(c) for c in counts],
            counts.index(n_rows),
            literal=True,
            params={"text": CAT_TEXT, "out": tt.output_text, "n": n_rows, "read": " | ".join(cross.query_tokens)},
        )
    )

    cw = cross.weights.astype(np.float64)
    written = written_tokens(cross)
    rows = [i for i, tok in enumerate(written) if tok not in ("</s>",)] or [0]
    sharpness = cw[:, :, rows].max(axis=-1).mean(axis=-1)
    layer, head = (int(x) for x in np.unravel_index(int(sharpness.argmax()), sharpness.shape))
    row = next((i for i in rows if written[i] == "垫子"), max(rows, key=lambda i: cw[layer, head, i].max()))
    steps.append(cross_word_step("decoder.8", "dec_cross", cross, layer, head, row))

    if can_ablate(m):
        steps += ablate_steps(m, tt.output_text)
    return steps


def ablate_steps(m, before: str) -> list[Step]:
    """Steps 9-10: switch one head off (output 0). The heads are chosen by their measured importance
    on the lesson's sentence (intervene.importance, -delta log p of the translation): step 9 the most
    important head whose translation clearly changes, step 10 the least important head whose
    translation clearly stays (change_margin >= 1 nat both times). A step without such a head is
    left out."""
    imp = intervene.importance(m, CAT_TEXT, how="zero")
    _, base_ids = intervene.step_probs(m, CAT_TEXT)
    ranked = [int(i) for i in np.argsort(-imp.score)]

    def first(candidates, changed: bool):
        for i in candidates:
            if bool(imp.changed[i]) != changed:
                continue
            iv = intervention.build(m, [imp.heads[i]], "zero")
            probs, _ = intervene.step_probs(m, CAT_TEXT, iv, target=base_ids)
            margin = change_margin(probs, base_ids)
            if margin >= MARGINS["change"]:
                return i, margin
        return None

    out = []
    for n, pick in enumerate((first(ranked, True), first(ranked[::-1], False))):
        if pick is None:
            continue
        i, margin = pick
        kind, lyr, hd = imp.heads[i]
        opts, ans = yesno(bool(imp.changed[i]))
        out.append(
            Step(
                f"decoder.{9 + n}",
                "dec_ablate",
                "yesno",
                opts,
                ans,
                params={
                    "kind": kind,
                    "layer": lyr + 1,
                    "head": hd + 1,
                    "before": before,
                    "after": imp.outputs[i],
                    "loss": f"{imp.score[i]:.2f}",
                },
                rule="change",
                margin=margin,
            )
        )
    return out


BUILDERS = {"attention": attention_lesson, "positions": positions_lesson, "decoder": decoder_lesson}


def build(lesson: str, load) -> list[Step]:
    """The steps of one lesson, computed from the models load(name) returns."""
    if lesson not in BUILDERS:
        raise ValueError(f"unknown lesson {lesson!r}; one of {', '.join(LESSONS)}")
    # the margin rule's last resort: a step whose answer is still a coin toss is not asked
    return [s for s in BUILDERS[lesson](load) if passes(s)]


# -- answers in a link: one character per step, "-" for not answered yet ------------------------------

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def encode_answers(answers: dict[int, int], n_steps: int) -> str:
    return "".join(
        _DIGITS[answers[i]] if i in answers and 0 <= answers[i] < len(_DIGITS) else "-" for i in range(n_steps)
    ).rstrip("-")


def decode_answers(raw: str) -> dict[int, int]:
    """The link's answers; raises ValueError on a character that is neither a digit nor "-"."""
    out = {}
    for i, ch in enumerate(raw or ""):
        if ch == "-":
            continue
        if ch not in _DIGITS:
            raise ValueError(raw)
        out[i] = _DIGITS.index(ch)
    return out


def score(steps: list[Step], answers: dict[int, int]) -> tuple[int, int]:
    """(right, answered)."""
    answered = [i for i in answers if i < len(steps)]
    return sum(answers[i] == steps[i].answer for i in answered), len(answered)
