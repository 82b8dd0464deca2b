"""Claims as code: the facts pages state about the model shown, each a named check computed on it.

A page that says "the first token collects attention" or labels a cross head "align" asks the
check first and, where it fails, says what this model does instead; tests/test_claims.py runs
every check on every shipped model, so a retrain cannot silently make a page lie. Every check
returns a Claim: whether it holds, and the numbers it was decided on (what the page prints).

    from analysis import claims

    from model import load
    c = claims.check("sink", load("gpt"), text="The cat sat on the mat")
    c.holds, c.numbers["ratio"]           # False, (layers, heads) first-token share / uniform
    claims.run_all(load("translator"))    # {name: Claim} for every check that applies

The checks (CHECKS):
  sink            a head is an attention sink when, over the rows that can see more than one key,
                  its mean weight on the first token is at least SINK_FACTOR (2x) what uniform
                  weights would give it (the mean of 1 / keys visible); holds if any head of any
                  kind (encoder, decoder, cross) is one.
                  The intervene page's "knock out the first-token sink" switches off exactly these
                  heads, and the cost and generation pages only present a sink where one exists.
  sink_heldout    the same, averaged over the timeline's held-out probe sentences.
  align           a cross-attention head aligns words when its word-alignment score (analysis.timeline:
                  the weight the row writing a target word puts on that word's translation in the
                  source) is >= ALIGN_MIN on the held-out probe; peakedness alone is not alignment.
  pronoun_en/zh   a GPT head links the pronoun to its noun in that language when its mean weight on
                  the noun, over the held-out stories in that language, is >= PRONOUN_MIN.
  previous        a decoder head puts >= PREVIOUS_MIN on the token just before, on one sentence.
  induction       a decoder head gives the token after the earlier occurrence >= INDUCTION_SHARE_MIN of
                  what the keys other than the first token and the row itself get, on the induction
                  probe (start, r, r) (induction_shares).
  reach           a decoder's sliding-window ("local") layers read nearer than its global ones: mean
                  distance back, the first token left aside, on REACH_TEXTS (reach_distances); the
                  numbers say whether a text here can be longer than the window at all.
  pronoun_it      on a real English model: "it" in "The animal didn't cross the street because it
                  was too tired" puts >= PRONOUN_MIN on "animal" (and more than on "street") in a head.
The decoder checks but pronoun_en/zh read traces only, so they run on a Hugging Face decoder too (SmolLM2-135M: the
app runs them when it loads it).
  local_window, learned_tail, order_matters: the make-up the help texts name (gpt-local's window of
                  4; learned positions untrained past the longest training item; positions are what
                  tells 狗咬人 from 人咬狗).
Every string the pages and built-in lessons show is marked in ui/marks/ (docs/architecture.md, "Every
sentence true of the model shown"): a claim names its check here; tests/test_marks.py runs them.
The lessons' answers follow the same idea with their own margins (lessons/steps.py, MARGINS and
passes(); tests/test_lessons.py checks every step of every lesson file on its model).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from analysis.sink import SINK_FACTOR, first_token_share

ALIGN_MIN = 0.5  # mean weight on the source word the target word translates
PRONOUN_MIN = 0.5  # mean weight of the pronoun's row on its noun
PREVIOUS_MIN = 0.5  # mean weight on the token just before, over the rows that have one
# an induction head, on the second copy of the induction probe's 10 random tokens, with the first token
# and the row itself left aside (issue 49; the raw weight >= 0.3 decided before): the token after the
# earlier occurrence gets at least half of what the other keys get, and they at least a tenth of the row
INDUCTION_SHARE_MIN = 0.5
INDUCTION_REST_MIN = 0.1
# the pronoun on a real English model: "it" in the classic sentence (Winograd's), read left to right
PRONOUN_TEXT = "The animal didn't cross the street because it was too tired"
PRONOUN_WORDS = ("it", "animal", "street")  # the pronoun, its noun, the other noun


@dataclass(frozen=True)
class Claim:
    """One check's verdict on one model: holds, the numbers (arrays as numpy) and which heads."""

    name: str
    holds: bool
    numbers: dict = field(default_factory=dict)
    heads: list = field(default_factory=list)  # [(kind, layer, head)] 0-based, for the checks about heads

    def to_json(self) -> dict:
        def plain(v):
            return np.round(np.asarray(v, dtype=np.float64), 4).tolist() if isinstance(v, np.ndarray) else v

        return {
            "name": self.name,
            "holds": self.holds,
            "numbers": {k: plain(v) for k, v in self.numbers.items()},
            "heads": [list(h) for h in self.heads],
        }


# -- the attention sink -----------------------------------------------------------------------------
def sink_claim(weights, mask=None, kind: str = "decoder", name: str = "sink") -> Claim:
    return _sink_verdict(*first_token_share(weights, mask), kind, name)


def _sink_verdict(share, uniform, kind: str, name: str) -> Claim:
    """The heads whose first-token share is at least SINK_FACTOR times what uniform weights give."""
    ratio = share / uniform
    heads = [(kind, int(la), int(h)) for la, h in zip(*np.nonzero(ratio >= SINK_FACTOR))]
    return Claim(
        name,
        bool(heads),
        {
            "share": share,
            "uniform": uniform,
            "ratio": ratio,
            "factor": SINK_FACTOR,
            # None where no row sees more than one key (a one-word text): no share to compare, and
            # nanmax of nothing but NaN is NaN, which the intervene page printed ("the most is nan x")
            "max_ratio": float(np.nanmax(ratio)) if np.isfinite(ratio).any() else None,
        },
        heads,
    )


def _sink_kinds(runner, kind: str | None) -> tuple[str, ...]:
    """The kinds a sink check measures: the one asked for, else every kind the runner has (encoder,
    decoder, cross: the first key is <s> / the direction token for a decoder, the source's first
    token for the encoder and cross-attention). Only the decoder was measured until issue 31, while
    the translator's cross L1 H3 (1.75x) and encoder L1 H4 (1.68x) gave the first token more."""
    return (kind,) if kind else tuple(getattr(runner, "kinds", ()) or ("decoder",))


def _merge(verdicts: dict[str, Claim], name: str) -> Claim:
    """One Claim over several kinds: holds if any kind has a sink head; numbers per kind
    ({"ratio": {kind: (layers, heads)}, ...}), the largest ratio and where it is."""

    def top(k):  # None (no row sees more than one key) sorts below every ratio
        r = verdicts[k].numbers["max_ratio"]
        return -1.0 if r is None else r

    best = max(verdicts, key=top)
    ratio = verdicts[best].numbers["ratio"]
    numbers = {k: {kind: c.numbers[k] for kind, c in verdicts.items()} for k in ("share", "uniform", "ratio")}
    numbers.update(factor=SINK_FACTOR, max_ratio=verdicts[best].numbers["max_ratio"], max_at=None)
    if numbers["max_ratio"] is not None:
        where = np.unravel_index(int(np.nanargmax(ratio)), ratio.shape)
        numbers["max_at"] = (best, int(where[0]), int(where[1]))
    heads = [h for c in verdicts.values() for h in c.heads]
    return Claim(name, bool(heads), numbers, heads)


def sink(runner, text: str = "The cat sat on the mat", kind: str | None = None) -> Claim:
    """First-token share against uniform, per head, on one text (the page's sentence); with kind, that
    kind alone (numbers (layers, heads) arrays), else every kind (numbers {kind: array}, _merge)."""
    tr = runner.trace(text)
    kinds = [k for k in _sink_kinds(runner, kind) if k in tr.attention]
    verdicts = {k: sink_claim(tr.attention[k].weights, tr.attention[k].mask, k) for k in kinds}
    return verdicts[kind] if kind else _merge(verdicts, "sink")


@torch.no_grad()
def sink_heldout(runner, kind: str | None = None) -> Claim:
    """The sink check on the timeline's held-out probe (analysis.timeline: the translator teacher-forced
    on the reference, both directions; a GPT on held-out items; any other runner, a Hugging Face
    model among them, on the same held-out items through its own trace): shares averaged over the
    sentences, for every kind (or the one asked for)."""
    from analysis import timeline
    from model.blocks import sliding_window_mask
    from model.tokenizer import BOS, EOS

    kinds = _sink_kinds(runner, kind)
    shares = {k: [] for k in kinds}
    uniforms = {k: [] for k in kinds}

    def add(k, w, mask):
        s, u = first_token_share(w, mask)
        shares[k].append(s)
        uniforms[k].append(u)

    def fn(module, dev):
        if runner.kind == "translator":
            for src, tgt, _ in timeline.translator_probe(runner.tokenizer):
                _, w = module(torch.tensor([src], device=dev), torch.tensor([tgt], device=dev))
                causal = np.tril(np.ones((len(tgt), len(tgt)), bool))
                for k in kinds:
                    add(k, w[k][:, 0].float().cpu().numpy(), causal if k == "decoder" else None)
        else:
            for text in timeline.gpt_probe():
                ids = [BOS] + runner.tokenizer.encode(text) + [EOS]
                _, w = module(torch.tensor([ids], device=dev))
                mask = sliding_window_mask(len(ids), runner.config.window or 0)[0, 0].numpy()
                add("decoder", w["decoder"][:, 0].float().cpu().numpy(), mask)

    if getattr(runner, "has_tutorial_code", False):
        runner.run(fn)
    else:  # a runner we only know by its protocol: its traces of the same held-out items
        for text in timeline.gpt_probe():
            tr = runner.trace(text)
            for k in kinds:
                if k in tr.attention:
                    add(k, tr.attention[k].weights, tr.attention[k].mask)
    verdicts = {
        k: _sink_verdict(np.nanmean(shares[k], 0), np.nanmean(uniforms[k], 0), k, "sink_heldout")
        for k in kinds
        if shares[k]
    }
    return verdicts[kind] if kind else _merge(verdicts, "sink_heldout")


# -- cross-attention: word alignment, not peakedness ------------------------------------------------
@torch.no_grad()
def alignment(runner) -> np.ndarray:
    """(layers, heads) word-alignment score of every cross head on the timeline's held-out probe."""
    from analysis import timeline

    def fn(module, dev):
        scores = []
        for src, tgt, links in timeline.translator_probe(runner.tokenizer):
            _, w = module(torch.tensor([src], device=dev), torch.tensor([tgt], device=dev))
            scores.append(timeline.alignment_scores(w["cross"][:, 0].float().cpu().numpy(), links))
        return np.nanmean(scores, axis=0)

    return runner.run(fn)


def sentence_alignment(att, src_text_ids, tgt_ids, tokenizer, to_zh: bool) -> np.ndarray | None:
    """(layers, heads) word-alignment score on one sentence (the attention page's), or None when no
    target word's translation is in the source. att: the trace's cross attention; src_text_ids: the
    source ids; tgt_ids: the ids the decoder rows write (row r writes tgt_ids[r])."""
    from analysis import timeline

    links = timeline.alignment_links(
        tokenizer.labels(src_text_ids),
        tokenizer.word_labels(src_text_ids),
        tokenizer.word_ids(src_text_ids),
        tokenizer.word_labels(tgt_ids),
        tokenizer.word_ids(tgt_ids),
        to_zh,
    )
    links = [(r, src) for r, src in links if r < att.weights.shape[2]]
    if not links:
        return None
    return timeline.alignment_scores(np.asarray(att.weights, dtype=np.float64), links)


def page_alignment(runner, text: str, output_text: str, att) -> np.ndarray | None:
    """(layers, heads) word-alignment score of the cross heads on the sentence a page shows (att: its
    trace's cross attention; output_text: the translation its rows write, re-encoded for its
    words). None for a model without our tokenizer's word labels, or when no word of the output
    translates a word of the source: the page then gives no head the "align" label."""
    tok = runner.tokenizer
    if not getattr(runner, "has_tutorial_code", False) or runner.kind != "translator":
        return None
    src, tgt = runner.ids(text)[1], tok.encode(output_text)
    return sentence_alignment(att, src, tgt, tok, to_zh=runner.direction(text) == "en-zh")


def align(runner) -> Claim:
    scores = alignment(runner)
    heads = [("cross", int(la), int(h)) for la, h in zip(*np.nonzero(scores >= ALIGN_MIN))]
    return Claim("align", bool(heads), {"alignment": scores, "min": ALIGN_MIN}, heads)


# -- the pronoun head, per language ------------------------------------------------------------------
@torch.no_grad()
def pronoun_scores(runner) -> dict[str, np.ndarray]:
    """{"en": (layers, heads), "zh": ...}: the pronoun's mean weight on its noun over the held-out
    stories of that language (analysis.timeline.pronoun_probe(lang=...), as the timeline scores them)."""
    from analysis import timeline

    def fn(module, dev):
        out = {}
        for lang in ("en", "zh"):
            per = []
            for ids, row, cols in timeline.pronoun_probe(runner.tokenizer, lang=lang):
                _, w = module(torch.tensor([ids], device=dev))
                per.append(w["decoder"][:, 0, :, row, cols].float().cpu().numpy().sum(-1))
            out[lang] = np.mean(per, axis=0) if per else None
        return out

    return runner.run(fn)


def _pronoun(lang: str):
    def check(runner) -> Claim:
        scores = pronoun_scores(runner)[lang]
        if scores is None:
            return Claim(f"pronoun_{lang}", False, {"stories": 0})
        heads = [("decoder", int(la), int(h)) for la, h in zip(*np.nonzero(scores >= PRONOUN_MIN))]
        return Claim(f"pronoun_{lang}", bool(heads), {"pronoun": scores, "min": PRONOUN_MIN}, heads)

    check.__doc__ = f"A GPT head reads the noun from the pronoun in {lang} stories (mean >= PRONOUN_MIN)."
    return check


# -- heads any decoder can be asked about through the Runner protocol ---------------------------------
def previous(runner, text: str = "The cat sat on the mat and the dog sat on the rug") -> Claim:
    """A previous-token head: mean weight on key i-1 over rows 1.. is >= PREVIOUS_MIN."""
    w = runner.trace(text).attention["decoder"].weights.astype(np.float64)
    scores = np.diagonal(w, offset=-1, axis1=2, axis2=3).mean(-1)
    heads = [("decoder", int(la), int(h)) for la, h in zip(*np.nonzero(scores >= PREVIOUS_MIN))]
    return Claim("previous", bool(heads), {"previous": scores, "min": PREVIOUS_MIN, "max": float(scores.max())}, heads)


def induction_shares(w: np.ndarray, period: int, offset: int) -> dict:
    """What each head of w (layers, heads, n, n: the induction probe, `offset` start tokens then a
    block of `period` tokens twice) gives, on the second copy's rows, to the token after the earlier
    occurrence with the first token (a sink takes much of many rows) and the row itself left aside:
    "share" (layers, heads) its weight over what the other keys get, averaged over the rows; "rest"
    what those other keys get; "top" in how many rows it is the largest of them; "sink" the first
    token's weight. The lesson's induction query measures one row the same way."""
    w = np.asarray(w, dtype=np.float64)
    q = np.arange(offset + period, offset + 2 * period)
    target = w[..., q, q - period + 1]
    rest = 1.0 - w[..., q, 0] - w[..., q, q]
    share = np.where(rest > 1e-12, target / np.maximum(rest, 1e-12), 0.0)
    others = w[..., q, :].copy()  # (L, H, period, n): the rows' keys but the first token and the row itself
    others[..., 0] = -1.0
    others[..., np.arange(period), q] = -1.0
    top = (others.argmax(-1) == (q - period + 1)).sum(-1)
    return {"share": share.mean(-1), "rest": rest.mean(-1), "top": top, "sink": w[..., q, 0].mean(-1)}


def induction(runner, period: int = 10) -> Claim:
    """An induction head on the attention page's probe (start, r, r for 10 random tokens r), measured
    with the first token and the row itself left aside (induction_shares): a head whose rows give the
    token after the earlier occurrence at least INDUCTION_SHARE_MIN of what the other keys get, on
    average, while those keys get at least INDUCTION_REST_MIN (a head that gives the sink everything
    reads nothing). Until issue 49 the raw weight (analysis.measures.induction_scores, still in the
    numbers as "induction") decided, which a sink's share lowers: SmolLM2's best head gives the first
    token 0.49 of those rows."""
    from analysis.experiments import induction_probe
    from analysis.measures import induction_scores

    w, offset = induction_probe(runner, period)
    scores = induction_scores(w, period, offset=offset)
    m = induction_shares(w, period, offset)
    ok = (m["share"] >= INDUCTION_SHARE_MIN) & (m["rest"] >= INDUCTION_REST_MIN)
    heads = [("decoder", int(la), int(h)) for la, h in zip(*np.nonzero(ok))]
    best = np.unravel_index(int(np.argmax(np.where(m["rest"] >= INDUCTION_REST_MIN, m["share"], -1.0))), ok.shape)
    return Claim(
        "induction",
        bool(heads),
        {
            "induction": scores,
            "max": float(scores.max()),
            **m,
            "min": INDUCTION_SHARE_MIN,
            "rest_min": INDUCTION_REST_MIN,
            "period": period,
            "best": (int(best[0]), int(best[1])),
            "best_share": float(m["share"][best]),
            "best_top": int(m["top"][best]),
            "best_sink": float(m["sink"][best]),
        },
        heads,
    )


def pronoun_it(runner, text: str = PRONOUN_TEXT) -> Claim:
    """ "it" -> "animal", measured: the heads whose row of "it" puts >= PRONOUN_MIN on "animal" and
    more on it than on "street". Holds when there is one; with the numbers every head gives both
    nouns (a decoder's "it" row cannot see "tired", which comes after it)."""
    att = runner.trace(text).attention["decoder"]
    tokens = [t.strip().lower() for t in att.key_tokens]
    if not all(w in tokens for w in PRONOUN_WORDS):  # the sentence's words are not single tokens here
        return Claim("pronoun_it", False, {"found": False})
    it, noun, other = (tokens.index(w) for w in PRONOUN_WORDS)
    w = att.weights.astype(np.float64)
    on_noun, on_other = w[:, :, it, noun], w[:, :, it, other]
    ok = (on_noun >= PRONOUN_MIN) & (on_noun > on_other)
    heads = [("decoder", int(la), int(h)) for la, h in zip(*np.nonzero(ok))]
    return Claim(
        "pronoun_it",
        bool(heads),
        {
            "found": True,
            "noun": on_noun,
            "other": on_other,
            "min": PRONOUN_MIN,
            "mean_noun": float(on_noun.mean()),
            "mean_other": float(on_other.mean()),
        },
        heads,
    )


# -- how far back each layer reads: sliding-window ("local") and global layers ----------------------
# two texts of 40-50 tokens on the real models, one English, one Chinese (held out: no page's default)
REACH_TEXTS = (
    "Once upon a time there was a little cat who lived in a small house near the river. Every morning she "
    "walked to the market, bought some fish, and came back home to sleep in the sun.",
    "小猫每天早上都去河边散步。它喜欢看水里的鱼，也喜欢在阳光下睡觉。有一天，一只小狗跟着它回家了，它们成了好朋友。",
)


def layer_types(runner) -> tuple[tuple[str, ...], int]:
    """Each layer "local" (it reads only the last `window` tokens) or "global", and the window: a Hugging
    Face model's from its config (layer_types, sliding_window: Gemma's 15 of 18 layers, 512), one of
    ours from its window (gpt-local: every layer, 4; the others 0, every layer global)."""
    c = runner.config
    types = tuple(getattr(c, "layer_types", ()) or ())
    if types:
        return types, int(getattr(c, "sliding_window", 0) or 0)
    window = int(getattr(c, "window", 0) or 0)
    return ("local" if window else "global",) * int(c.num_layers), window


def reach_distances(w: np.ndarray) -> np.ndarray:
    """(layers, heads) how far back a head reads, in tokens: for each row that gives the keys j >= 1 up
    to it any weight, sum_j w[i, j] (i - j) / sum_j w[i, j] over those keys (the first token, a sink,
    left aside: its pile-up would put every head at the far end), averaged over those rows (NaN where
    there are none)."""
    w = np.asarray(w, dtype=np.float64)
    n = w.shape[-1]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    keep = (j >= 1) & (j <= i)
    wk = np.where(keep, w, 0.0)
    total = wk.sum(-1)
    d = (wk * np.where(keep, i - j, 0)).sum(-1) / np.maximum(total, 1e-12)
    counted = total > 1e-9
    with np.errstate(invalid="ignore"):  # NaN for a head with no such row (a one-token text)
        return np.where(counted, d, 0.0).sum(-1) / counted.sum(-1)


def reach(runner, texts=REACH_TEXTS) -> Claim:
    """Mean distance back (reach_distances) per layer, averaged over texts and heads, and per layer type:
    holds where the model has both types and its local layers read nearer on average than its global
    ones. "window_cuts": whether a text here (at most config.max_seq_len tokens) can be longer than the
    window at all; where it cannot (Gemma: 256 against 512), every layer sees the whole text here,
    which the sidebar says."""
    types, window = layer_types(runner)
    traces = [runner.trace(t).attention["decoder"] for t in texts]
    per = np.nanmean([reach_distances(a.weights) for a in traces], axis=0)
    layer = per.mean(-1)
    means = {
        k: float(layer[[i for i, x in enumerate(types) if x == k]].mean()) if k in types else None
        for k in ("local", "global")
    }
    max_len = int(getattr(runner.config, "max_seq_len", 0) or 0)
    both = None not in means.values()
    return Claim(
        "reach",
        bool(both and means["local"] < means["global"]),
        {
            "distance": per,
            "layer": layer,
            "types": types,
            "window": window,
            "local": means["local"],
            "global": means["global"],
            "n_local": types.count("local"),
            "n_global": types.count("global"),
            "max_len": max_len,
            "window_cuts": bool(window and max_len > window),
            "tokens": [len(a.key_tokens) for a in traces],
        },
    )


# -- facts the help texts state about a model's make-up ---------------------------------------------
LOCAL_WINDOW = 4  # "gpt-local: only the 3 just before it", "GPT, local attention (window 4)"
LEARNED_ITEM_MAX = 24  # "trained on items of at most about 20 tokens"


def local_window(runner) -> Claim:
    """gpt-local has the window the strings name (LOCAL_WINDOW: itself and the 3 before it) and every
    other GPT attends to every earlier token (window 0). A window of 0 on gpt-local, or of 4 on another
    GPT, makes the strings false ("gpt-local: only the 3 just before it"), so the check fails there
    (it passed for either window on either model until issue 46)."""
    w = int(getattr(runner.config, "window", 0) or 0)
    named = LOCAL_WINDOW if str(getattr(runner, "name", "")).split("@")[0] == "gpt-local" else 0
    return Claim("local_window", w == named, {"window": w, "named": named})


RANDOM_START_STD = 0.02  # model/gpt.py _init_weights: GPT-2's N(0, 0.02) start of every embedding
INSIDE_MIN = 0.3  # trained neighbours are related: mean cosine of adjacent positions inside the items
TAIL_MAX = 0.2  # untrained neighbours are not: mean |cosine| of adjacent positions past the items


@torch.no_grad()
def learned_tail(runner, n: int = 2000) -> Claim:
    """A learned position table's positions past the longest training item were never trained
    (pos_learned_help): each premise of the sentence is measured and any one false fails it.
      - the longest of n training items (<s> and </s> counted) is at most LEARNED_ITEM_MAX tokens;
      - the vectors past it are "still the random start": their entries' spread is within a factor
        1.5 of RANDOM_START_STD (the start's) and their mean within a tenth of it;
      - "unrelated to their neighbours": mean |cosine| of adjacent vectors past it < TAIL_MAX,
        while inside (trained) adjacent vectors are related, mean cosine >= INSIDE_MIN.
    (Until issue 46 only the tail's cosine was tested: a table of random vectors everywhere passed.)"""
    from data import corpus

    table = runner.run(lambda module, dev: getattr(getattr(module, "position", None), "table", None))
    pe = getattr(table, "pe", None)
    if pe is None:  # no learned table (sinusoidal, RoPE, ALiBi): nothing to claim
        return Claim("learned_tail", True, {"learned": False})
    longest = max(len(runner.tokenizer.encode(t)) + 2 for _, t in corpus.gpt_items(n, 0))
    raw = pe.detach().float().cpu().numpy().reshape(-1, pe.shape[-1]).astype(np.float64)
    v = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    adjacent = (v[1:] * v[:-1]).sum(-1)
    tail = float(np.abs(adjacent[longest:]).mean()) if len(adjacent) > longest else float("nan")
    inside = float(adjacent[1:longest].mean())
    tail_std = float(raw[longest:].std()) if len(raw) > longest else float("nan")
    tail_mean = float(raw[longest:].mean()) if len(raw) > longest else float("nan")
    holds = (
        longest <= LEARNED_ITEM_MAX
        and tail < TAIL_MAX
        and inside >= INSIDE_MIN
        and RANDOM_START_STD / 1.5 <= tail_std <= RANDOM_START_STD * 1.5
        and abs(tail_mean) <= RANDOM_START_STD / 10
    )
    return Claim(
        "learned_tail",
        bool(holds),
        {
            "learned": True,
            "longest": longest,
            "tail_cosine": tail,
            "inside_cosine": inside,
            "tail_std": tail_std,
            "tail_mean": tail_mean,
            "start_std": RANDOM_START_STD,
        },
    )


def order_matters(runner) -> Claim:
    """With positions the translator tells 狗咬人 from 人咬狗 (different translations); without them it
    cannot (the same translation: its attention is only permuted)."""
    a, b = ("狗咬人", "人咬狗")
    on = [runner.trace(x).output_text for x in (a, b)]
    off = [runner.trace(x, use_position=False).output_text for x in (a, b)]
    return Claim("order_matters", on[0] != on[1] and off[0] == off[1], {"with": on, "without": off})


# -- the registry -------------------------------------------------------------------------------------
# name -> (check(runner) -> Claim, the model kinds it applies to)
CHECKS = {
    "sink": (sink, ("translator", "gpt")),
    "sink_heldout": (sink_heldout, ("translator", "gpt")),
    "align": (align, ("translator",)),
    "pronoun_en": (_pronoun("en"), ("gpt",)),
    "pronoun_zh": (_pronoun("zh"), ("gpt",)),
    "previous": (previous, ("gpt",)),
    "induction": (induction, ("gpt",)),
    "reach": (reach, ("gpt",)),
    "pronoun_it": (pronoun_it, ("gpt",)),
    "local_window": (local_window, ("gpt",)),
    "learned_tail": (learned_tail, ("gpt",)),
    "order_matters": (order_matters, ("translator",)),
}
GENERAL = ("sink", "sink_heldout")  # run through the Runner protocol alone: on any model, a Hugging Face one too
# decoder checks that read only what the Runner protocol gives (traces), so they run on a Hugging
# Face decoder too (SmolLM2-135M: the app runs them when it loads it); the others read our modules
PROTOCOL_ONLY = ("previous", "induction", "pronoun_it", "reach")


def applies(name: str, runner) -> bool:
    """Whether a check applies: the general ones (GENERAL) to every runner with attention, whatever its
    kinds, layers and heads; the decoder ones of PROTOCOL_ONLY to every decoder; the others to our own
    models of the kinds they name."""
    if name in GENERAL:
        return bool(getattr(runner, "kinds", ()))
    if name in PROTOCOL_ONLY:
        return runner.kind in CHECKS[name][1]
    return runner.kind in CHECKS[name][1] and getattr(runner, "has_tutorial_code", False)


def check(name: str, runner, **kwargs) -> Claim:
    """Run one named check on runner (KeyError for an unknown name)."""
    fn, _ = CHECKS[name]
    return fn(runner, **kwargs)


def run_all(runner, skip=()) -> dict[str, Claim]:
    """Every check that applies to this runner's kind (but those in skip)."""
    return {name: check(name, runner) for name in CHECKS if applies(name, runner) and name not in skip}


def at_load(runner) -> dict[str, Claim]:
    """What the app runs when it loads a model it did not train (a Hugging Face model): every check that
    applies, the general ones through the runner's own traces (ui/cache.claims_of keeps the verdicts)."""
    return run_all(runner)


__all__ = [
    "sink_table",
    "at_load",
    "GENERAL",
    "Claim",
    "CHECKS",
    "SINK_FACTOR",
    "ALIGN_MIN",
    "PRONOUN_MIN",
    "PREVIOUS_MIN",
    "INDUCTION_SHARE_MIN",
    "PRONOUN_TEXT",
    "first_token_share",
    "sink_claim",
    "sentence_alignment",
    "page_alignment",
    "pronoun_scores",
    "check",
    "run_all",
    "applies",
]


def sink_table(names=None) -> list[tuple[str, str, int, int, float]]:
    """(model, kind, layer, head, ratio) 1-based: each shipped model's and kind's largest held-out
    first-token share over uniform (docs/measurements.md quotes it)."""
    from model.registry import NAMES, load

    out = []
    for name in names or NAMES:
        c = sink_heldout(load(name, device="cpu"))
        for kind, ratio in c.numbers["ratio"].items():
            la, h = np.unravel_index(int(np.nanargmax(ratio)), ratio.shape)
            out.append((name, kind, int(la) + 1, int(h) + 1, float(ratio[la, h])))
    return out


if __name__ == "__main__":  # python -m analysis.claims: the sink table of docs/measurements.md
    for row in sink_table():
        print("%-11s %-8s L%d H%d  %.2fx uniform" % row)
