"""The fixed set of named queries a lesson step's answer can be. A lesson file names one (`query`)
with its arguments (`args`) and the view (`view`: kind, layer, head, temperature, heads off,
positions); the query computes the options, the right one, the margin (steps.MARGINS) and the
numbers the texts fill in ({word}, {weight}, ...), all from the model. No code in a lesson file:
a name not in QUERIES is refused when the file is read.

Each Query says which question kinds it answers, which args it takes (name -> type), which numbers
it gives the texts, what it reveals (chart names a step's `show` may pick), and when it does not
apply (an encoder has no next token): it then raises pick.NotApplicable, which the editor shows.
docs/lessons.md lists them for teachers.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from analysis import experiments, intervene
from model import intervention
from model.errors import InputError
from model.tokenizer import EOS

from .pick import (
    WORD,
    NotApplicable,
    choose_head,
    content_rows,
    find_key,
    find_row,
    head_of,
    labels_of,
    layer_of,
    matrix,
    row_label,
    row_names,
    visible,
    word_label,
    word_position,
    written_tokens,
)
from .steps import (
    MARGINS,
    Bars,
    Heat,
    closest_sketch,
    entropy,
    estimate_margin,
    gap,
    nearest,
    numeric_margin,
    sketch_margin,
)

HEAD_RULES = ("mean", "decided", "sharpest", "furthest", "most_different")
SAME_WEIGHT = 0.01  # two weights closer than this count as "the same"
# the sketches' temperatures: "sharper" is always T < 1 and "flatter" T > 1, whichever side of 1 the
# step's temperature is on (they were t and 1/t, so named the wrong way round for a step with T > 1)
SKETCH_T = {"same": lambda t: 1.0, "sharper": lambda t: min(t, 1.0 / t), "flatter": lambda t: max(t, 1.0 / t)}


@dataclass
class Ctx:
    """What a query reads: the runner, the step's sentence, view and args."""

    runner: object
    sentence: str
    view: dict
    args: dict
    question: str
    traces: dict = field(default_factory=dict)  # (text, settings) -> Trace, shared by one build's steps

    def settings(self, **over) -> dict:
        v = {**self.view, **over}
        s = {"temperature": float(v.get("temperature", 1.0)), "use_position": bool(v.get("positions", True))}
        if v.get("temperature_layer") is not None:
            s["temperature_layer"] = int(v["temperature_layer"]) - 1
        if v.get("heads_off"):
            s["ablate"] = list(v["heads_off"])
        return s

    def trace(self, text: str | None = None, target: str | None = None, **over):
        """The trace of text (default: the step's sentence) under the view's settings changed by over;
        target: a translator reads this text as its output (teacher forcing) instead of its own."""
        text = self.sentence if text is None else text
        key = (text, target, tuple(sorted((k, str(v)) for k, v in self.settings(**over).items())))
        if key not in self.traces:
            forced = {} if target is None else {"target": target}
            try:
                self.traces[key] = self.runner.trace(text, **self.settings(**over), **forced)
            except InputError as e:
                raise NotApplicable("model_refuses", reason=str(e)) from e
        return self.traces[key]

    def model_settings(self, **over):
        """The view's settings as the model's AttentionSettings (heads_off as an intervention)."""
        from model.config import settings_from

        s = self.settings(**over)
        try:
            iv = intervention.build(self.runner, s.pop("ablate"), "zero") if s.get("ablate") else None
        except InputError as e:
            raise NotApplicable("model_refuses", reason=str(e)) from e
        return settings_from(**s, intervention=iv)

    @property
    def kind(self) -> str:
        kinds = tuple(getattr(self.runner, "kinds", ()) or ())
        kind = self.view.get("kind") or (kinds[0] if kinds else "encoder")
        if kinds and kind not in kinds:
            raise NotApplicable("no_kind", kind=kind)
        return kind

    def att(self, text: str | None = None, **over):
        tr = self.trace(text, **over)
        if self.kind not in tr.attention:
            raise NotApplicable("no_kind", kind=self.kind)
        return tr.attention[self.kind]


@dataclass(frozen=True)
class Query:
    name: str
    fn: Callable
    questions: tuple[str, ...]
    args: dict  # name -> type (str, float, int, bool, list)
    params: tuple[str, ...]  # the numbers its texts may use
    shows: tuple[str, ...] = ()  # chart names it can reveal
    needs: str = ""  # "translate", "continue", "tutorial", "sinusoidal": when it applies
    required: tuple[str, ...] = ()


QUERIES: dict[str, Query] = {}
COMMON_PARAMS = ("text", "model", "kind", "layer", "head")


def query(questions, args=None, params=(), shows=(), needs="", required=()):
    def register(fn):
        name = fn.__name__.rstrip("_")
        QUERIES[name] = Query(
            name, fn, tuple(questions), dict(args or {}), COMMON_PARAMS + tuple(params), tuple(shows), needs, required
        )
        return fn

    return register


def applies(runner, name: str) -> str | None:
    """None when query name can run on runner, else the NotApplicable key saying why not."""
    needs = QUERIES[name].needs
    if needs == "translate" and not getattr(runner, "can_translate", False):
        return "needs_translate"
    if needs == "continue" and not getattr(runner, "can_continue_text", False):
        return "needs_continue"
    if needs == "tutorial" and not getattr(runner, "has_tutorial_code", False):
        return "needs_tutorial"
    if needs == "sinusoidal" and getattr(getattr(runner, "config", None), "positional", "") != "sinusoidal":
        return "needs_sinusoidal"
    if needs == "ablate" and not can_ablate(runner):
        return "needs_ablate"
    return None


def can_ablate(runner) -> bool:
    if not getattr(runner, "has_tutorial_code", False):
        return False
    try:
        return "ablate" in inspect.signature(runner.trace).parameters
    except (TypeError, ValueError):
        return False


def run(name: str, runner, sentence: str, view: dict, args: dict, question: str, traces: dict | None = None) -> dict:
    """The query's answer as Step fields (options, answer, params, reveal, rule, margin, ...)."""
    q = QUERIES[name]
    why = applies(runner, name)
    if why:
        raise NotApplicable(why, query=name)
    ctx = Ctx(runner, sentence, dict(view or {}), dict(args or {}), question)
    if traces is not None:  # traces shared by the steps of one build (same runner)
        ctx.traces = traces.setdefault(id(runner), {})
    out = q.fn(ctx)
    out["params"] = {"text": sentence, "model": getattr(runner, "name", ""), **out.get("params", {})}
    return out


# -- helpers ------------------------------------------------------------------------------------------


def _yesno(truth: bool, **rest) -> dict:
    """A yes/no query's result: "yes" is right when truth holds; rest: its params, reveal, rule, margin."""
    return dict(options=["yes", "no"], answer=0 if truth else 1, **rest)


def _heat(weights, att, kind: str, layer: int, head: int | None, row: int | None) -> Heat:
    writes = kind in ("decoder", "cross")
    if head is None:
        title, tp = "lesson_title_mean", {"kind": kind, "layer": layer + 1}
    else:
        title, tp = "lesson_title_head", {"kind": kind, "layer": layer + 1, "head": head + 1}
    return Heat(
        np.asarray(weights, dtype=np.float64),
        labels_of(att.query_tokens),
        labels_of(att.key_tokens),
        mask=att.mask,
        row=row,
        title=title,
        title_params=tp,
        query_written=written_tokens(att) if writes else None,
    )


def _where(ctx, att, row: int | None, rows=None) -> tuple[int, int | None]:
    """The view's (layer, head) 0-based, resolving a head rule on the row (or rows)."""
    w = att.weights.astype(np.float64)
    head = ctx.view.get("head", "mean")
    if head in ("decided", "sharpest", "furthest"):
        return choose_head(w, head, ctx.view.get("layer", "last"), row, rows)
    layer = layer_of(ctx.view.get("layer", "last"), att.num_layers)
    return layer, head_of(head, att.num_heads)


def _where_params(kind, layer, head) -> dict:
    return {"kind": kind, "layer": layer + 1, "head": "—" if head is None else head + 1}


def _row_of(ctx, att, kind):
    word = ctx.args.get("word")
    if word in (None, "surest", "clearest"):
        return None
    return find_row(att, kind, word)


def _counts(n: int) -> list[int]:
    return sorted({max(1, n + d) for d in (-2, -1, 0, 1)})


# -- the queries ----------------------------------------------------------------------------------------


def _count_question(n: int, **params) -> dict:
    """A choice among counts near n, the right one n (a literal option: no margin to measure)."""
    counts = _counts(n)
    return dict(options=[str(c) for c in counts], answer=counts.index(n), literal=True, params={"n": n, **params})


@query(["choice"], params=("n", "tokens"))
def token_count(ctx):
    """How many tokens the model cuts the sentence into (the keys of the view's attention kind; the
    translator's decoder: the tokens it read, its start token and what it wrote, a model output)."""
    att = ctx.att()
    q = _count_question(len(att.key_tokens), tokens=" | ".join(att.key_tokens))
    if ctx.runner.kind == "translator" and ctx.kind == "decoder":
        # the decoder's keys are the tokens it wrote (as row_count's rows): a model output
        q.update(rule="output", margin=decode_gap(ctx, ctx.sentence))
    return q


@query(["choice"], params=("n", "out", "read"))
def row_count(ctx):
    """How many rows the view's attention matrix has (cross-attention: one per token the decoder reads)."""
    att = ctx.att()
    q = _count_question(len(att.query_tokens), out=ctx.trace().output_text, read=" | ".join(att.query_tokens))
    if ctx.runner.kind == "translator" and ctx.kind != "encoder":
        # the decoder's rows are the tokens it wrote: a model output, as sure as its closest decision
        q.update(rule="output", margin=decode_gap(ctx, ctx.sentence))
    return q


@query(["choice"], args={"word": WORD}, params=("word", "total", "n"), shows=("row",), required=("word",))
def row_sum(ctx):
    """What the row of `word` adds up to: one half, one, or the number of tokens."""
    kind, att = ctx.kind, ctx.att()
    row = find_row(att, kind, ctx.args["word"])
    layer, head = _where(ctx, att, row)
    m = matrix(att.weights.astype(np.float64), layer, head)
    total = float(m[row].sum())
    n = len(att.key_tokens)
    sums = [0.5, 1.0, float(n)]
    return dict(
        options=["lesson_sum_half", "lesson_sum_one", "lesson_sum_n"],
        option_params=[{}, {}, {"n": n}],
        answer=nearest(total, sums),
        params={
            **_where_params(kind, layer, head),
            "word": row_label(att, kind, row),
            "total": f"{total:.4f}",
            "n": n,
        },
        reveal=[
            Bars(
                labels_of(att.key_tokens),
                m[row],
                "lesson_title_row",
                {"word": row_label(att, kind, row), "layer": layer + 1},
            )
        ],
        rule="weight",
        margin=numeric_margin(total, sums),
    )


@query(
    ["word"],
    args={"word": WORD},
    params=("word", "written", "top", "weight", "first", "first_ratio"),
    shows=("heatmap", "row"),
)
def top_key(ctx):
    """The key the row of `word` reads most (cross-attention: the row that writes `word`; "surest":
    the row the head is surest of). Options: the keys that row may read."""
    kind, att = ctx.kind, ctx.att()
    w = att.weights.astype(np.float64)
    row = _row_of(ctx, att, kind)
    rows = content_rows(att, kind)
    if row is None and ctx.view.get("head") != "sharpest":
        raise NotApplicable("word_missing", word=str(ctx.args.get("word", "")))
    layer, head = _where(ctx, att, row if row is not None else rows[0], rows)
    m = matrix(w, layer, head)
    if row is None:
        row = max(rows, key=lambda i: m[i].max())
    keys = visible(att, row)
    values = m[row, keys]
    top = int(np.argmax(values))
    written = written_tokens(att)
    return dict(
        options=[word_label(att.key_tokens, j) for j in keys],
        answer=top,
        params={
            **_where_params(kind, layer, head),
            "word": row_label(att, kind, row),
            "written": written[row],
            "top": word_label(att.key_tokens, keys[top]),
            "weight": f"{values[top]:.2f}",
            "first": att.key_tokens[keys[0]],
            "first_ratio": f"{values[0] * len(keys):.2f}",  # its weight over uniform's 1 / keys
        },
        reveal=[
            _heat(m, att, kind, layer, head, row),
            Bars(
                [word_label(att.key_tokens, j) for j in keys],
                values,
                "lesson_title_row",
                {"word": row_label(att, kind, row), "layer": layer + 1},
            ),
        ],
        rule="weight",
        margin=gap(values, top),
        default_show=("heatmap",),
    )


def occurrences(ctx, att, kind) -> tuple:
    """(the word the step names, the rows where it occurs, in order): a word given by its position
    or occurrence ({position = 5}) names the word there; case and the tokenizer's space marks aside.
    The repeated-word queries (top_key_again, induction) read its last rows."""
    rows = row_names(att, kind)
    raw = ctx.args["word"]
    if isinstance(raw, dict):
        i = word_position(rows, raw)
        raw = rows[i] if i is not None else raw.get("word", "")
    word = str(raw).strip("▁Ġ ").lower()
    return raw, [i for i, x in enumerate(rows) if str(x).strip("▁Ġ ").lower() == word]


@query(
    ["word"],
    args={"word": WORD},
    params=("word", "top", "weight"),
    shows=("heatmap", "row"),
    required=("word",),
)
def top_key_again(ctx):
    """The key the row of `word`'s last occurrence reads most: where a word comes a second time, an
    induction head reads the token that followed it the first time. Options: the keys that row may
    read; margin: the weights' gap (the view names the layer and head, or a head rule)."""
    kind, att = ctx.kind, ctx.att()
    raw, seen = occurrences(ctx, att, kind)
    if not seen:
        raise NotApplicable("word_missing", word=str(raw))
    row = seen[-1]
    layer, head = _where(ctx, att, row)
    m = matrix(att.weights.astype(np.float64), layer, head)
    keys = visible(att, row)
    values = m[row, keys]
    top = int(np.argmax(values))
    labels = [word_label(att.key_tokens, j) for j in keys]
    return dict(
        options=labels,
        answer=top,
        params={
            **_where_params(kind, layer, head),
            "word": row_label(att, kind, row),
            "top": labels[top],
            "weight": f"{values[top]:.2f}",
        },
        reveal=[
            _heat(m, att, kind, layer, head, row),
            Bars(labels, values, "lesson_title_row", {"word": row_label(att, kind, row), "layer": layer + 1}),
        ],
        rule="weight",
        margin=gap(values, top),
        default_show=("heatmap",),
    )


@query(
    ["word"],
    args={"word": WORD},
    params=("word", "top", "weight", "share", "after", "sink"),
    shows=("heatmap", "row"),
    needs="continue",  # an induction head is a language model's: it predicts the copy
    required=("word",),
)
def induction(ctx):
    """What an induction head does, measured as its name says: the row of `word`'s last occurrence,
    the keys it reads apart from the first token (an attention sink takes most of many rows) and
    itself, and which of them gets the largest share. NotApplicable unless that key is the token
    that followed `word`'s previous occurrence ("after"): then the reveal's "the token that came
    after it last time" is true of this head on this sentence. Options: the keys without the sink
    and the row itself; margin: the gap between the shares (each weight over what those keys get)."""
    kind, att = ctx.kind, ctx.att()
    raw, seen = occurrences(ctx, att, kind)
    if len(seen) < 2:
        raise NotApplicable("word_missing" if not seen else "not_repeated", word=str(raw))
    row, previous = seen[-1], seen[-2]
    layer, head = _where(ctx, att, row)
    m = matrix(att.weights.astype(np.float64), layer, head)
    keys = [j for j in visible(att, row) if j not in (0, row)]  # no sink, not itself
    if len(keys) < 2 or previous + 1 not in keys:
        raise NotApplicable("not_repeated", word=str(raw))
    values = m[row, keys]
    shares = values / values.sum() if values.sum() > 0 else values
    top = int(np.argmax(shares))
    if keys[top] != previous + 1:
        raise NotApplicable("not_induction", word=row_label(att, kind, row))
    labels = [word_label(att.key_tokens, j) for j in keys]
    return dict(
        options=labels,
        answer=top,
        params={
            **_where_params(kind, layer, head),
            "word": row_label(att, kind, row),
            "top": labels[top],
            "weight": f"{values[top]:.2f}",
            "share": f"{shares[top]:.2f}",
            "after": word_label(att.key_tokens, previous + 1),
            "sink": f"{m[row, 0]:.2f}",
        },
        reveal=[
            _heat(m, att, kind, layer, head, row),
            Bars(labels, values, "lesson_title_row", {"word": row_label(att, kind, row), "layer": layer + 1}),
        ],
        rule="weight",
        margin=gap(shares, top),
        default_show=("heatmap",),
    )


@query(
    ["word"],
    args={"word": WORD},
    params=("word", "top", "score", "weight", "d_k"),
    shows=("scores", "row"),
    needs="tutorial",
    required=("word",),
)
def top_score(ctx):
    """The key with the highest score q·k / √d_k in the row of `word` (one head; softmax keeps the
    order, so the margin is the weights' gap)."""
    kind, att = ctx.kind, ctx.att()
    row = find_row(att, kind, ctx.args["word"])
    layer, head = _where(ctx, att, row)
    if head is None:
        raise NotApplicable("needs_one_head")
    scores = experiments.head_scores(ctx.runner, ctx.sentence, kind, layer, head, **ctx.settings())[row]
    keys = visible(att, row)
    top = int(np.argmax(scores[keys]))
    w = att.weights.astype(np.float64)[layer, head, row]
    d_k = ctx.runner.config.d_model // ctx.runner.config.num_heads
    labels = [word_label(att.key_tokens, j) for j in keys]
    word = row_label(att, kind, row)
    return dict(
        options=labels,
        answer=top,
        params={
            **_where_params(kind, layer, head),
            "word": word,
            "top": labels[top],
            "score": f"{scores[keys[top]]:.2f}",
            "weight": f"{w[keys[top]]:.2f}",
            "d_k": d_k,
        },
        reveal=[
            Bars(labels, scores[keys], "lesson_title_scores", {"word": word}, name="scores"),
            Bars(labels, w[keys], "lesson_title_row_head", {"word": word, "layer": layer + 1, "head": head + 1}),
        ],
        rule="weight",
        margin=gap(w[keys], top),
    )


def _cell(ctx, att, kind):
    row = find_row(att, kind, ctx.args["word"])
    key = find_key(att, ctx.args["key"])
    return row, key


@query(
    ["yesno"],
    args={"word": WORD, "key": WORD, "than": float},
    params=("word", "key", "than", "weight"),
    shows=("row",),
    required=("word", "key", "than"),
)
def cell_above(ctx):
    """Whether the weight of `word` on `key` is larger than `than`. Layer "auto": the last layer
    where the weight is at least the weight margin away from `than`, else the last layer."""
    kind, att = ctx.kind, ctx.att()
    row, key = _cell(ctx, att, kind)
    w = att.weights.astype(np.float64)
    than = float(ctx.args["than"])
    head = head_of(ctx.view.get("head", "mean"), att.num_heads) if ctx.view.get("head") not in HEAD_RULES[1:] else None
    if ctx.view.get("layer") == "auto":
        last = att.num_layers - 1
        layer = next(
            (la for la in range(last, -1, -1) if abs(matrix(w, la, head)[row, key] - than) >= MARGINS["weight"]), last
        )
    else:
        layer, head = _where(ctx, att, row)
    m = matrix(w, layer, head)
    value = float(m[row, key])
    return _yesno(
        value > than,
        params={
            **_where_params(kind, layer, head),
            "word": row_label(att, kind, row),
            "key": word_label(att.key_tokens, key),
            "than": than,
            "weight": f"{value:.2f}",
        },
        reveal=[
            Bars(
                labels_of(att.key_tokens),
                m[row],
                "lesson_title_row",
                {"word": row_label(att, kind, row), "layer": layer + 1},
            )
        ],
        rule="weight",
        margin=abs(value - than),
    )


@query(
    ["slider"],
    args={"word": WORD, "key": WORD, "step": float, "tolerance": float},
    params=("word", "key", "weight"),
    shows=("heatmap", "row"),
    required=("word", "key"),
)
def cell_weight(ctx):
    """The weight of `word` on `key`, estimated on a slider from 0 to 1 (in steps of `step`, default
    0.05); right within `tolerance` (default 0.10)."""
    kind, att = ctx.kind, ctx.att()
    row, key = _cell(ctx, att, kind)
    layer, head = _where(ctx, att, row)
    m = matrix(att.weights.astype(np.float64), layer, head)
    value = float(m[row, key])
    step = float(ctx.args.get("step", 0.05))
    tol = float(ctx.args.get("tolerance", 0.10))
    grid = [round(i * step, 4) for i in range(int(round(1 / step)) + 1)]
    return dict(
        options=[f"{g:g}" for g in grid],
        answer=nearest(value, grid),
        value=value,
        tolerance=tol,
        params={
            **_where_params(kind, layer, head),
            "word": row_label(att, kind, row),
            "key": word_label(att.key_tokens, key),
            "weight": f"{value:.2f}",
        },
        reveal=[
            _heat(m, att, kind, layer, head, row),
            Bars(
                labels_of(att.key_tokens),
                m[row],
                "lesson_title_row",
                {"word": row_label(att, kind, row), "layer": layer + 1},
            ),
        ],
        rule="estimate",
        margin=estimate_margin(value, grid, tol),
        default_show=("heatmap",),
    )


@query(
    ["yesno"],
    args={"word": WORD, "key": WORD},
    params=("word", "later", "weight"),
    shows=("heatmap",),
    required=("word", "key"),
)
def can_read(ctx):
    """Whether the row of `word` may read `key` at all (the mask): a structural fact."""
    kind, att = ctx.kind, ctx.att()
    row, key = _cell(ctx, att, kind)
    w = att.weights.astype(np.float64)
    allowed = bool(att.mask[row, key]) if att.mask is not None else bool(w[:, :, row, key].max() > 0)
    return _yesno(
        allowed,
        params={
            "kind": kind,
            "layer": 1,
            "head": "—",
            "word": row_label(att, kind, row),
            "later": word_label(att.key_tokens, key),
            "weight": f"{w[:, :, row, key].max():.2f}",
        },
        reveal=[_heat(w[0].mean(axis=0), att, kind, 0, None, row)],
    )


@query(["choice"], params=("token", "weight"))
def first_token_weight(ctx):
    """The weight the first token gives itself (mean over layers and heads): 1, 1/n or 0. Under a
    causal mask a structural fact."""
    kind, att = ctx.kind, ctx.att()
    w = att.weights.astype(np.float64)
    n = len(att.key_tokens)
    first = float(w[:, :, 0, 0].mean())
    values = [1.0, 1.0 / n, 0.0]
    causal = att.mask is not None and not np.asarray(att.mask[0], bool)[1:].any()
    return dict(
        options=["1", f"1/{n}", "0"],
        answer=nearest(first, values),
        literal=True,
        params={
            "kind": kind,
            "layer": "—",
            "head": "—",
            "token": word_label(att.key_tokens, 0),
            "weight": f"{first:.2f}",
        },
        rule="exact" if causal else "weight",
        margin=math.inf if causal else numeric_margin(first, values),
    )


@query(["yesno"], args={"word": WORD}, params=("word", "n", "tops", "agree"), shows=("heatmaps",), required=("word",))
def heads_agree(ctx):
    """Whether every head of the layer gives the row of `word` the same top key; margin: the
    smallest gap of a head's top key over its runner-up in that row (a head that has no clear top
    key makes the question unclear, and the margin rule then keeps the step from the class). The
    row is always the one the lesson file names: until issue 46 a row where the heads disagree was
    put in its place without a word (lesson 1 asked about "The₁" for the file's "sat")."""
    kind, att = ctx.kind, ctx.att()
    w = att.weights.astype(np.float64)
    layer = layer_of(ctx.view.get("layer", "last"), att.num_layers)  # as every query and the editor's form
    w0 = w[layer]
    row = find_row(att, kind, ctx.args["word"])
    keys = visible(att, row)
    if len(keys) < 2:  # a row that sees one key only (a causal row 0) has nothing to agree on
        raise NotApplicable("one_key", word=row_label(att, kind, row))
    n_heads = w0.shape[0]
    tops = [keys[int(w0[h, row, keys].argmax())] for h in range(n_heads)]
    margin = min(gap(w0[h, row, keys], keys.index(tops[h])) for h in range(n_heads))
    agree = len(set(tops)) == 1
    return _yesno(
        agree,
        params={
            "kind": kind,
            "layer": layer + 1,
            "head": "—",
            "word": row_label(att, kind, row),
            "n": n_heads,
            "tops": ", ".join(f"{h + 1}: {word_label(att.key_tokens, k)}" for h, k in enumerate(tops)),
            "agree": agree,
        },
        reveal=[_heat(w0[h], att, kind, layer, h, row) for h in range(n_heads)],
        rule="weight",
        margin=margin,
        reveal_name="heatmaps",
    )


def sharpen(row: np.ndarray, temperature: float) -> np.ndarray:
    """What a row of weights becomes when its scores are divided by T (and nothing else changes):
    softmax(log(w) / T) = w^(1/T), normalised; cells at 0 stay 0."""
    w = np.asarray(row, dtype=np.float64)
    logw = np.where(w > 0, np.log(np.where(w > 0, w, 1.0)), -np.inf)
    return experiments.softmax_at(logw, temperature)


@query(
    ["sketch"],
    args={"word": WORD, "row": str, "temperature": float, "sketches": list, "every_layer": bool},
    params=("word", "temp", "before", "after"),
    shows=("row",),
    required=("word",),
)
def sharpen_sketch(ctx):
    """Which of three sketches (the row at T = 1 made "same", "sharper" or "flatter" by the
    temperature) is the model's real row with the scores divided by `temperature` (in the view's
    layer only; every layer with every_layer). `row` = "clearest": the row of the head whose
    sketches are most clearly apart (a one-hot row stays one-hot)."""
    kind, att = ctx.kind, ctx.att()
    temp = float(ctx.args.get("temperature", 0.2))
    order = list(ctx.args.get("sketches", ["same", "sharper", "flatter"]))
    base_row = find_row(att, kind, ctx.args["word"])
    layer, head = _where(ctx, att, base_row)
    if head is None:
        raise NotApplicable("needs_one_head")
    w = att.weights.astype(np.float64)[layer, head]
    over = (
        {"temperature": temp} if ctx.args.get("every_layer") else {"temperature": temp, "temperature_layer": layer + 1}
    )
    if ctx.runner.kind == "translator" and kind != "encoder":
        # the translator's rows at T must read what its rows at T = 1 read: at T its greedy output
        # may be another (a Chinese story at T = 2 in every layer wrote one token fewer, and row 11
        # of 10 was asked for), so it reads the T = 1 output, teacher-forced
        runner = ctx.runner
        _, src, _ = runner.ids(ctx.sentence)
        start = runner.start_token(runner.direction(ctx.sentence))
        _, read, _, _ = runner.decode_then_read(src, start, ctx.model_settings())
        _, _, _, forced = runner.decode_then_read(src, start, ctx.model_settings(**over), target=read)
        real_all = forced[kind][layer, 0, head].double().numpy()
    else:
        real_all = ctx.att(**over).weights.astype(np.float64)[layer, head]

    def option(r):
        keys = visible(att, r)
        sketches = [sharpen(w[r, keys], SKETCH_T[s](temp)) for s in order]
        return r, keys, sketches, min(sketch_margin(real_all[r, keys], sketches), sketches_apart(sketches))

    notes = []
    if ctx.args.get("row") == "clearest":
        rows = [r for r in range(len(att.query_tokens)) if len(visible(att, r)) > 1] or [base_row]
        r, keys, sketches, _ = max((option(r) for r in rows), key=lambda o: o[3])
        if r != base_row:  # the file's row is not the one asked: the step says so (issue 46)
            notes.append(
                (
                    "lesson_note_row_clearest",
                    {
                        "asked": row_label(att, kind, base_row),
                        "used": row_label(att, kind, r),
                        "margin": f"{max(option(base_row)[3], 0.0):.2f}",
                        "min": f"{MARGINS['sketch']:.2f}",
                    },
                )
            )
    else:
        r, keys, sketches, _ = option(base_row)
    real = real_all[r, keys]
    labels = [word_label(att.key_tokens, j) for j in keys]
    where = {"word": row_label(att, kind, r), "layer": layer + 1, "head": head + 1, "temp": temp}
    return dict(
        options=["A", "B", "C"][: len(order)],
        answer=closest_sketch(real, sketches),
        sketches=sketches,
        sketch_labels=labels,
        params={
            **_where_params(kind, layer, head),
            **where,
            "before": f"{w[r, keys].max():.2f}",
            "after": f"{real.max():.2f}",
        },
        reveal=[Bars(labels, real, "lesson_title_row_temp", where)],
        notes=notes,
        rule="sketch",
        margin=min(sketch_margin(real, sketches), sketches_apart(sketches)),
    )


def sketches_apart(sketches) -> float:
    """The smallest L1 distance between two of a step's sketches: the wrong ones must not look alike
    either (decoder.4's "flatter" and "same" were one flat picture, maxima 0.10 and 0.20, on a row
    that was flat already at T = 1)."""
    return min(
        (float(np.abs(np.asarray(a) - np.asarray(b)).sum()) for i, a in enumerate(sketches) for b in sketches[i + 1 :]),
        default=math.inf,
    )


@query(["choice"], params=("d_model", "h", "d_k", "sqrt"))
def head_dim(ctx):
    """d_k, the length of each head's query and key vectors (d_model / h): a structural fact."""
    c = ctx.runner.config
    d_k = c.d_model // c.num_heads
    opts = sorted({d_k, c.d_model, c.num_heads, int(math.isqrt(d_k)) or 1})
    return dict(
        options=[str(v) for v in opts],
        answer=opts.index(d_k),
        literal=True,
        params={
            "kind": "",
            "layer": "—",
            "head": "—",
            "d_model": c.d_model,
            "h": c.num_heads,
            "d_k": d_k,
            "sqrt": f"{math.sqrt(d_k):.2f}",
        },
    )


@query(["choice"], args={"also": list}, params=("out",), needs="translate")
def translation(ctx):
    """Which text the translator writes for the sentence; the other options are its translations of
    the sentences in `also` and of the sentence with positions off."""
    out = ctx.trace().output_text
    outs = {out, ctx.trace(positions=False).output_text} | {ctx.trace(s).output_text for s in ctx.args.get("also", [])}
    outs = sorted(outs)
    if len(outs) < 2:
        raise NotApplicable("too_few_options")
    return dict(
        options=outs,
        answer=outs.index(out),
        literal=True,
        params={"kind": "", "layer": "—", "head": "—", "out": out},
        rule="output",
        margin=decode_gap(ctx, ctx.sentence),
    )


@query(["yesno"], args={"other": str}, params=("a", "b", "out_a", "out_b"), needs="translate", required=("other",))
def same_output(ctx):
    """Whether the sentence and `other` get the same translation (under the view: positions off ...)."""
    a, b = ctx.trace().output_text, ctx.trace(ctx.args["other"]).output_text
    return _yesno(
        a == b,
        params={
            "kind": "",
            "layer": "—",
            "head": "—",
            "a": ctx.sentence,
            "b": ctx.args["other"],
            "out_a": a,
            "out_b": b,
        },
        rule="output",
        margin=min(decode_gap(ctx, ctx.sentence), decode_gap(ctx, ctx.args["other"])),
    )


@query(
    ["yesno"],
    args={"other": str, "word": WORD, "key": WORD, "yes_if": str},
    params=("a", "b", "wa", "wb"),
    shows=("heatmap",),
    required=("other", "word", "key"),
)
def cells_compare(ctx):
    """Whether `word` reads `key` with the same weight (within 0.01) in the sentence as in `other`;
    yes_if "same" (default) or "different" says which answer is "yes". Head "most_different": the
    head where they differ most. Equal to 1e-6 (by symmetry, e.g. positions off) is a structural
    fact; otherwise the margin is how far the difference is from SAME_WEIGHT, where the answer flips
    (weight rule; it was the difference itself, 0.01 too sure: lesson 2's 咬 -> 狗 differs by 0.106,
    0.096 from "the same")."""
    kind = ctx.kind
    ea, eb = ctx.att(), ctx.att(ctx.args["other"])
    ra, ka = _cell(ctx, ea, kind)
    rb, kb = find_row(eb, kind, ctx.args["word"]), find_key(eb, ctx.args["key"])
    wa, wb = ea.weights.astype(np.float64), eb.weights.astype(np.float64)
    if ctx.view.get("head") == "most_different":
        da, db = wa[:, :, ra, ka], wb[:, :, rb, kb]
        if ctx.view.get("layer", "any") == "any":
            layer, head = (int(x) for x in np.unravel_index(int(np.abs(da - db).argmax()), da.shape))
        else:
            layer = layer_of(ctx.view.get("layer"), ea.num_layers)
            head = int(np.abs(da[layer] - db[layer]).argmax())
    else:
        layer, head = _where(ctx, ea, ra)
    ma, mb = matrix(wa, layer, head), matrix(wb, layer, head)
    diff = abs(float(ma[ra, ka]) - float(mb[rb, kb]))
    same = diff < SAME_WEIGHT
    yes_if_same = ctx.args.get("yes_if", "same") != "different"
    exact = diff < 1e-6
    return _yesno(
        same if yes_if_same else not same,
        params={
            **_where_params(kind, layer, head),
            "a": ctx.sentence,
            "b": ctx.args["other"],
            "wa": f"{ma[ra, ka]:.3f}",
            "wb": f"{mb[rb, kb]:.3f}",
        },
        reveal=[_heat(ma, ea, kind, layer, head, ra), _heat(mb, eb, kind, layer, head, rb)],
        rule="exact" if exact else "weight",
        margin=math.inf if exact else abs(diff - SAME_WEIGHT),
    )


@query(
    ["choice"],
    args={"p": int, "near": int, "far": int},
    params=("near", "far", "d_model", "p", "q_near", "q_far"),
    shows=("pe",),
    needs="sinusoidal",
)
def pe_dot(ctx):
    """Which dot product of the sinusoidal encoding is larger: PE(p)·PE(near) or PE(p)·PE(far)."""
    d = ctx.runner.config.d_model
    p, q1, q2 = int(ctx.args.get("p", 3)), int(ctx.args.get("near", 4)), int(ctx.args.get("far", 10))
    n = max(16, p + 1, q1 + 1, q2 + 1)
    pe = experiments.pe_table(d, n).astype(np.float64)
    near, far = float(pe[p] @ pe[q1]), float(pe[p] @ pe[q2])
    return dict(
        options=["lesson_pe_near", "lesson_pe_far", "lesson_pe_equal"],
        option_params=[{"p": p, "q": q1}, {"p": p, "q": q2}, {}],
        answer=0 if near > far + PE_TIE else 1 if far > near + PE_TIE else 2,
        params={
            "kind": "",
            "layer": "—",
            "head": "—",
            "near": f"{near:.2f}",
            "far": f"{far:.2f}",
            "d_model": d,
            "p": p,
            "q_near": q1,
            "q_far": q2,
        },
        reveal=[Bars([str(i) for i in range(n)], pe[p] @ pe.T, "lesson_title_pe", {"p": p, "n": n - 1}, name="pe")],
    )


# PE(p)·PE(q) = sum of cos((p - q)·ω_i) depends on |p - q| alone: equal distances give equal
# products, which the float32 table puts up to 1.5e-5 apart (d_model 128, positions < 64), while
# two different distances there are at least 0.0128 apart: "equal" within 1e-4 (it was 1e-6, and
# p = 20, near = 19, far = 21 came out "far")
PE_TIE = 1e-4


def decode_gap(ctx, text: str) -> float:
    """The margin of a translator's output, in nats: the smallest log p(chosen) - log p(runner-up)
    over greedy decoding's decisions on text under the view's settings (the last decision writes
    </s>). Any decision that flipped would change the output, so this is how sure the answer is; on
    "I love you" it is 0.047 (its third token), where the rule "exact" promised infinity."""
    r = ctx.runner
    try:
        _, src, _ = r.ids(text)
        _, _, logits, _ = r.decode_then_read(src, r.start_token(r.direction(text)), ctx.model_settings())
    except InputError as e:
        raise NotApplicable("model_refuses", reason=str(e)) from e
    top2 = torch.log_softmax(logits[0].double(), -1).topk(2, -1).values
    return float((top2[:, 0] - top2[:, 1]).min())


def next_probs(runner, prompt: str, settings: dict) -> np.ndarray:
    """A GPT's next-token probabilities after prompt under a view's settings (Ctx.settings), heads
    off and the temperature's layer included (they were dropped: a step with heads off asked for
    the next token of the untouched model)."""
    s = {k: v for k, v in settings.items() if k in ("temperature", "use_position", "temperature_layer")}
    try:
        if settings.get("ablate"):
            s["intervention"] = intervention.build(runner, settings["ablate"], "zero")
        logits = experiments.gpt_next_token_logits(runner, prompt, **s).astype(np.float64)
    except InputError as e:
        raise NotApplicable("model_refuses", reason=str(e)) from e
    probs = np.exp(logits - logits.max())
    return probs / probs.sum()


@query(["word"], params=("prompt", "top", "p"), shows=("next",), needs="continue")
def next_token(ctx):
    """The token the model thinks most likely after the sentence, among its five likeliest
    (listed alphabetically, so the answer's place tells nothing)."""
    probs = next_probs(ctx.runner, ctx.sentence, ctx.settings())
    top5 = [int(i) for i in np.argsort(-probs)[:5]]
    labels = experiments.gpt_next_labels(ctx.runner, ctx.sentence, top5)  # each read after the sentence
    order = sorted(range(5), key=lambda i: labels[i])
    return dict(
        options=[labels[i] for i in order],
        answer=order.index(0),
        params={
            "kind": "decoder",
            "layer": "—",
            "head": "—",
            "prompt": ctx.sentence,
            "top": labels[0],
            "p": f"{probs[top5[0]]:.2f}",
        },
        reveal=[Bars(labels, probs[top5], "lesson_title_next", {"prompt": ctx.sentence}, name="next")],
        rule="prob",
        margin=float(probs[top5[0]] - probs[top5[1]]),
        certainty=float(probs[top5[0]]),  # steps.uncertain_enough
    )


def _one_in(rest: float) -> str:
    """How often sampling writes another token, as "1 / N" draws (N = 1 / rest, rounded; "—" only
    where the share is exactly 0, which a softmax gives only where it underflows)."""
    return "—" if rest <= 0 else f"1 / {max(1, round(1 / rest)):,}"


@query(["yesno"], params=("prompt", "top", "p", "rest", "draws"), shows=("next",), needs="continue")
def sample_differs(ctx):
    """Whether sampling at temperature 1 writes another token than the greedy one after the sentence
    in at least one draw in ten: yes when the other tokens share at least MARGINS["prob"] (0.10),
    else no; the margin is how far their share is from that line (|rest - 0.10|), so a share near it
    is not asked. Until issue 46 the answer was "no, it cannot" when the rest shared under 0.001,
    with the constant margin 0.10: false (gpt-alibi after "The cat sat on" writes another token
    about once in 2,100 draws), and every "no" is now only "not one draw in ten"."""
    probs = next_probs(ctx.runner, ctx.sentence, ctx.settings())
    top = int(probs.argmax())
    rest = 1 - float(probs[top])
    top5 = [int(i) for i in np.argsort(-probs)[:5]]
    label = experiments.gpt_next_labels(ctx.runner, ctx.sentence, top5)[0]  # top5[0] is top
    return _yesno(
        rest >= MARGINS["prob"],
        params={
            "kind": "decoder",
            "layer": "—",
            "head": "—",
            "prompt": ctx.sentence,
            "top": label,
            "p": f"{probs[top]:.3f}",
            "rest": f"{rest:.3f}",
            "draws": _one_in(rest),
        },
        reveal=[
            Bars(
                experiments.gpt_next_labels(ctx.runner, ctx.sentence, top5),
                probs[top5],
                "lesson_title_next",
                {"prompt": ctx.sentence},
                name="next",
            )
        ],
        rule="prob",
        margin=abs(rest - MARGINS["prob"]),
        default_show=(),
    )


@query(["yesno"], args={"pick": str}, params=("heads", "before", "after", "loss"), needs="ablate")
def switch_off_changes(ctx):
    """Whether switching heads off (output 0) changes the output (translator: the translation; GPT:
    the next token), under the view's other settings (temperature, positions). The heads: the
    view's heads_off, or `pick` "most_important" (the most important head, by intervene.importance
    on the sentence, whose output clearly changes) / "least_important" (the least important whose
    output clearly stays; translator only). Margin: change_margin, in nats. The untouched run, the
    run with the heads off and the margin all read the view's settings (the margin and a GPT's
    answer were computed at temperature 1 with positions on whatever the view said)."""
    from .steps import change_margin

    r = ctx.runner
    pick = ctx.args.get("pick")
    if pick:
        if r.kind != "translator":
            raise NotApplicable("needs_translate", query="switch_off_changes")
        imp = intervene.importance(r, ctx.sentence, how="zero", **ctx.settings(heads_off=[]))
        _, base_ids = forced_probs(ctx, [])
        ranked = [int(i) for i in np.argsort(-imp.score)]
        want = pick == "most_important"
        for i in ranked if want else ranked[::-1]:
            if bool(imp.changed[i]) != want:
                continue
            probs, _ = forced_probs(ctx, [imp.heads[i]], target=base_ids)
            margin = change_margin(probs, base_ids)
            if margin >= MARGINS["change"]:
                break
        else:
            raise NotApplicable("no_clear_head")
        kind, lyr, hd = imp.heads[i]
        return _yesno(
            bool(imp.changed[i]),
            params={
                "kind": kind,
                "layer": lyr + 1,
                "head": hd + 1,
                "heads": f"{kind}:{lyr + 1}:{hd + 1}",
                "before": ctx.trace(heads_off=[]).output_text,
                "after": imp.outputs[i],
                "loss": nats(imp.score[i]),
            },
            rule="change",
            margin=margin,
        )
    heads = list(ctx.view.get("heads_off") or [])
    if not heads:
        raise NotApplicable("needs_heads_off")
    ctx.model_settings()  # heads the model does not have: NotApplicable
    first = heads[0].split(":")
    params = {"kind": first[0], "layer": first[1], "head": first[2], "heads": ", ".join(heads)}
    if r.kind == "translator":
        before = ctx.trace(heads_off=[]).output_text
        after = ctx.trace().output_text
        base_probs, base_ids = forced_probs(ctx, [])
        probs, _ = forced_probs(ctx, heads, target=base_ids)
        gold = list(base_ids[1:]) + [EOS]
        lp, lb = (np.log(np.clip(x, 1e-30, None)) for x in (probs, base_probs))
        loss = float(np.mean([lb[t, g] - lp[t, g] for t, g in enumerate(gold[: len(probs)])]))
        changed = before != after
        margin = change_margin(probs, base_ids)
    else:
        base = next_probs(r, ctx.sentence, ctx.settings(heads_off=[]))
        off = next_probs(r, ctx.sentence, ctx.settings())
        b, o = int(base.argmax()), int(off.argmax())
        before, after = experiments.gpt_next_labels(r, ctx.sentence, [b, o])
        changed = b != o
        lo = np.log(np.clip(off, 1e-30, None))
        margin = float(lo[o] - lo[b]) if changed else float(lo[b] - np.sort(lo)[-2])
        loss = float(np.log(base[b]) - lo[b])
    return _yesno(
        changed,
        params={**params, "before": before, "after": after, "loss": nats(loss)},
        rule="change",
        margin=margin,
    )


def forced_probs(ctx, heads, target=None):
    """The translator's next-token probabilities (T, vocab) on the step's sentence under the view's
    settings with `heads` off (none: the untouched model), teacher-forced on target (start token
    first; default: its own greedy output there), and the ids read."""
    r = ctx.runner
    try:
        _, src, _ = r.ids(ctx.sentence)
        s = ctx.model_settings(heads_off=list(heads))
        _, read, logits, _ = r.decode_then_read(src, r.start_token(r.direction(ctx.sentence)), s, target=target)
    except InputError as e:
        raise NotApplicable("model_refuses", reason=str(e)) from e
    return torch.softmax(logits[0].double(), -1).numpy(), read


def nats(x: float) -> str:
    """A change in nats to 2 decimals, with no "-0.00" (a head whose removal raises the untouched
    translation's log probability by under 0.005 nats: decoder.10 printed "-0.00 nats")."""
    return f"{round(float(x), 2) + 0.0:.2f}"


@query(
    ["choice"],
    args={"word": WORD, "other": WORD},
    params=("word", "other", "h_word", "h_other"),
    shows=("heatmap",),
    required=("word", "other"),
)
def entropy_higher(ctx):
    """Which of two rows (`word`, `other`) has the higher entropy (the flatter row) in the view's
    layer and head; margin: the difference in nats (entropy rule)."""
    kind, att = ctx.kind, ctx.att()
    ra, rb = find_row(att, kind, ctx.args["word"]), find_row(att, kind, ctx.args["other"])
    if ra == rb:
        raise NotApplicable("too_few_options")
    layer, head = _where(ctx, att, ra)
    m = matrix(att.weights.astype(np.float64), layer, head)
    ha, hb = entropy(m[ra]), entropy(m[rb])
    return dict(
        options=[row_label(att, kind, ra), row_label(att, kind, rb)],
        answer=0 if ha > hb else 1,
        literal=True,
        params={
            **_where_params(kind, layer, head),
            "word": row_label(att, kind, ra),
            "other": row_label(att, kind, rb),
            "h_word": f"{ha:.2f}",
            "h_other": f"{hb:.2f}",
        },
        reveal=[_heat(m, att, kind, layer, head, ra)],
        rule="entropy",
        margin=abs(ha - hb),
    )


def question_kinds() -> tuple[str, ...]:
    return ("word", "choice", "sketch", "yesno", "slider")
