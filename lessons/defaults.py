"""The arguments a query opens with in the lesson editor (issue 37, item 2): computed on the step's
model and sentence, so that a teacher who picks a question type sees a step that builds and passes
the margin rule before changing anything.

    args = defaults.default_args("cell_weight", runner, "The cat sat on the mat", "slider", view)

The rule, the same for every query: each argument has a short list of candidates (a word: the
sentence's content tokens in order, as positions; a number: the editor's usual values), and the
first combination whose step passes the margin rule is the default; with none, the first
combination. A combination is one run of the query on the traces already computed, so the search
costs a few milliseconds a candidate.
"""

from __future__ import annotations

import itertools

from .pick import SPECIAL, NotApplicable, row_names, word_arg
from .queries import QUERIES, Ctx, run
from .steps import passes

MAX_TRIES = 120  # combinations tried in a view at most (cells_compare: 4 sentences x 6 rows x 6 keys)
NUMBERS = {  # the editor's usual values, the first tried first
    "than": [0.3, 0.1, 0.5, 0.7],
    "tolerance": [0.10],
    "temperature": [0.2, 5.0],
    "p": [3],
    "near": [4],
    "far": [10],
    "pick": ["most_important", "least_important", None],  # None: the view's heads off
    "yes_if": ["same", "different"],
}
WORD_ARGS = ("word", "key")  # and `other` where the query takes a word (entropy_higher)


def swapped(sentence: str) -> list[str]:
    """Other sentences made of the same words: two neighbouring words swapped (last pair first),
    so a word and a key named in the sentence exist in the other one too (cells_compare)."""
    words = sentence.split()
    out = []
    for i in range(len(words) - 2, -1, -1):
        w = list(words)
        w[i], w[i + 1] = w[i + 1], w[i]
        if w != words:
            out.append(" ".join(w))
    return out[:4] or [sentence]


def _word_candidates(tokens) -> list:
    picks = [i for i, tok in enumerate(tokens) if tok not in SPECIAL]
    return [word_arg(tokens, i) for i in picks] or [word_arg(tokens, 0)]


def candidates(name: str, runner, sentence: str, question: str, view: dict) -> dict[str, list]:
    """{argument: its candidates, first tried first} for the arguments the editor asks."""
    q = QUERIES[name]
    rows = keys = []
    if any(a in WORD_ARGS or (a == "other" and q.args[a] is not str) for a in q.args):
        ctx = Ctx(runner, sentence, view, {}, question)
        att = ctx.att()
        rows, keys = row_names(att, ctx.kind), list(att.key_tokens)
    out = {}
    for arg, kind in q.args.items():
        if arg == "word":
            out[arg] = _word_candidates(rows)
        elif arg == "key":
            out[arg] = _word_candidates(keys)
        elif arg == "other":
            out[arg] = _word_candidates(rows)[1:] or _word_candidates(rows) if kind is not str else swapped(sentence)
        elif arg == "also":
            # the same words in another order, or fewer of them: a toy translator may write one
            # text for every order of words it does not know
            words = sentence.split()
            shorter = [" ".join(words[:k]) for k in range(len(words) - 1, 1, -1)]
            out[arg] = [swapped(sentence), *[[s] for s in shorter[:4]]]
        elif arg in NUMBERS:
            out[arg] = NUMBERS[arg]
    return out


def views(name: str, runner) -> list[dict]:
    """The views tried, in order: the editor's own (the mean of the last layer's heads), then each
    layer, then one head (a query that needs one: top_score, sharpen_sketch), then one head off
    (switch_off_changes on a GPT, which needs the heads named)."""
    c = runner.config
    layers = [{"layer": la} for la in range(1, c.num_layers + 1)]
    heads = [
        {"head": h, "layer": la} for la in ("last", *range(1, c.num_layers + 1)) for h in range(1, c.num_heads + 1)
    ]
    out = [{}, *layers, *heads]
    if name == "switch_off_changes":
        kinds = list(getattr(runner, "kinds", ()))
        off = [f"{k}:{la}:{h}" for k in kinds for la in range(1, c.num_layers + 1) for h in range(1, c.num_heads + 1)]
        out += [{"heads_off": [o]} for o in off]
        for k in kinds:  # a whole layer off, where no one head changes the output clearly
            layer_off = [[f"{k}:{la}:{h}" for h in range(1, c.num_heads + 1)] for la in range(1, c.num_layers + 1)]
            out += [{"heads_off": o} for o in layer_off]
            out += [{"heads_off": [h for o in layer_off for h in o]}]  # every head: the output must move
    return out


def default_step(
    name: str, runner, sentence: str, question: str, traces: dict | None = None, beginnings: bool = True
) -> tuple[str, dict, dict]:
    """(sentence, view, args) the query opens with on this model: the first view (views()) and
    arguments (candidates()) whose step passes the margin rule on the sentence; where none does,
    the same search on the sentence's beginnings (after "The cat sat on the mat" a GPT writes "."
    whatever heads are off; after "The cat sat on" it does not), unless beginnings is False (a
    sentence the teacher typed is theirs); else the editor's view and the first arguments on the
    sentence."""
    traces = {} if traces is None else traces
    words = sentence.split()
    fallback = None
    shorter = [" ".join(words[:k]) for k in range(len(words) - 1, 1, -1)] if beginnings else []
    for text in [sentence, *shorter]:
        for view in views(name, runner):
            args, ok = _search(name, runner, text, question, view, traces)
            fallback = fallback or (sentence, view, args)
            if ok:
                return text, view, args
    return fallback


def default_args(name: str, runner, sentence: str, question: str, view: dict, traces: dict | None = None) -> dict:
    """The query's default arguments in this view (the rule in the module's text)."""
    return _search(name, runner, sentence, question, view, {} if traces is None else traces)[0]


def _search(name: str, runner, sentence: str, question: str, view: dict, traces: dict) -> tuple[dict, bool]:
    try:
        cands = candidates(name, runner, sentence, question, view)
    except NotApplicable:
        return {}, False
    names = list(cands)
    first = None
    for combo in itertools.islice(itertools.product(*(cands[n] for n in names)), MAX_TRIES):
        args = {k: v for k, v in zip(names, combo) if v is not None}
        if args.get("other") is not None and args.get("other") == args.get("word"):
            continue  # two rows of entropy_higher must differ
        first = args if first is None else first
        try:
            out = run(name, runner, sentence, view, args, question, traces)
        except NotApplicable:
            continue
        if passes(_as_step(out, name, question)):
            return args, True
    return first or {}, False


def _as_step(out: dict, name: str, question: str):
    from .build import _step  # build imports queries; here only when a step is judged

    return _step({"question": question, "ask": {}, "reveal": {}, "model": "", "query": name}, out, "")
