"""Every query type of the lesson editor (lessons.queries.QUERIES), its answer, rule and margin
checked against an independent recomputation on at least 10 distinct steps (issue 31, item 4).

The steps are made here from data.corpus's held-out pairs and stories, in English and Chinese, on
every shipped model a query applies to (translator, gpt, gpt-rope, gpt-alibi, gpt-local), over
kinds, layers, heads, head rules, temperatures, positions on and off, heads switched off, and
repeated words named by their occurrence or position. Each oracle recomputes from the model's own
trace arrays, its recorded q and k, its logits (numpy, torch's log-softmax) or a greedy decoding
loop of its own, never by calling lessons/ code, and states what the issue's rule says the margin
is: a model output (a translation, the tokens the decoder writes, the next token) is as sure as its
least sure decision (log-probability gap in nats; the next token's gap in probability, the prob
rule); a choice among numbers or a number against a threshold is graded by the distance of the true
number to the edge where the answer flips; only a structural fact (a count of the input, the mask,
d_k, the sinusoidal formula, equality by symmetry) is "exact".

Slow-marked like tests/test_margins.py: 245 steps (10-15 per query type) and their oracles took
6.7 s of CPU (7.0 s of pytest, load average 2.6 on the shared 2 cores, 2026-12-03), one torch
thread. Against lessons/queries.py before this file's fixes it failed 7 of the 21 query types:
token_count on the translator's decoder was "exact" (its keys are what the translator wrote),
cells_compare's margin was the difference itself rather than its distance to the 0.01 that flips
the answer, pe_dot called equal distances unequal (float32 rounding), next_token and
sample_differs dropped the view's heads_off, switch_off_changes measured its margin (and a GPT
its answer) at T = 1 with positions on whatever the view said, and sharpen_sketch compared the
translator's rows with rows of another translation (the output at T) or indexed past them.
"""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import pytest
import torch

import model
from data import corpus
from lessons import queries
from lessons.pick import NotApplicable
from model import intervention
from model.config import settings_from
from model.tokenizer import BOS, EOS

pytestmark = pytest.mark.slow

SPECIAL = ("</s>", "<2en>", "<2zh>", "<s>")
WEIGHT, PROB, CHANGE = 0.10, 0.10, 1.0  # the rules' thresholds, as issue 23 states them
SAME = 0.01  # cells_compare: two weights closer than this are "the same" (its docstring)
# held-out pairs and stories (another seed than tests/test_margins.py's), both languages
PAIRS = corpus.heldout_pairs(10, seed=3131)
EN, ZH = [p.en for p in PAIRS], [p.zh for p in PAIRS]
STORIES = [p for p in PAIRS if p.kind == "story"]
GPTS = ("gpt", "gpt-rope", "gpt-alibi", "gpt-local")
RULES = ("decided", "sharpest", "furthest")


@functools.cache
def load(name):
    # one intra-op thread, as the app runs (ui/cache.py; tests/conftest.py's smollm says why)
    torch.set_num_threads(1)
    return model.load(name, device="cpu")


# -- the view, as a lesson file states it ------------------------------------------------------------


def settings(view: dict, **over) -> dict:
    """runner.trace's settings for a view (temperature, temperature_layer 1-based, positions, heads_off)."""
    v = {**view, **over}
    s = {"temperature": float(v.get("temperature", 1.0)), "use_position": bool(v.get("positions", True))}
    if v.get("temperature_layer") is not None:
        s["temperature_layer"] = int(v["temperature_layer"]) - 1
    if v.get("heads_off"):
        s["ablate"] = list(v["heads_off"])
    return s


def model_settings(runner, view: dict, **over):
    """The same as the module's AttentionSettings (heads_off as the model's own intervention)."""
    s = settings(view, **over)
    iv = intervention.build(runner, s.pop("ablate"), "zero") if s.get("ablate") else None
    return settings_from(**s, intervention=iv)


_TRACES: dict = {}


def trace(runner, text, view, **over):
    key = (runner.name, text, json.dumps(settings(view, **over), sort_keys=True))
    if key not in _TRACES:
        _TRACES[key] = runner.trace(text, **settings(view, **over))
    return _TRACES[key]


def kind_of(runner, view):
    return view.get("kind") or runner.kinds[0]


def plain(tok) -> str:
    return str(tok).strip("▁ ").lower()


def label(tokens, i) -> str:
    """Token i as the lesson names it: with its occurrence as a subscript where its word repeats."""
    same = [j for j, t in enumerate(tokens) if plain(t) == plain(tokens[i])]
    if len(same) == 1:
        return str(tokens[i])
    return str(tokens[i]) + str(same.index(i) + 1).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def position(tokens, word) -> int:
    """Where a step's word is: its first occurrence, {word, occurrence} or {position} (1-based)."""
    if isinstance(word, dict) and "position" in word:
        return int(word["position"]) - 1
    w, n = (word["word"], word.get("occurrence", 1)) if isinstance(word, dict) else (word, 1)
    return [i for i, t in enumerate(tokens) if plain(t) == plain(w)][n - 1]


def word_arg(tokens, i):
    """How a step names token i: the word where it occurs once, else the word and its occurrence."""
    same = [j for j, t in enumerate(tokens) if plain(t) == plain(tokens[i])]
    return plain(tokens[i]) if len(same) == 1 else {"word": plain(tokens[i]), "occurrence": same.index(i) + 1}


def row_names(att, kind):
    """Cross-attention rows are named by the token they write, the others by the token they read."""
    return list(att.query_written) if kind == "cross" else list(att.query_tokens)


def own_mask(runner, att, kind) -> np.ndarray:
    """Which keys each row may read, from the architecture: all of them in the encoder and cross-
    attention; in a decoder the row itself and those before it, within gpt-local's window."""
    q, k = len(att.query_tokens), len(att.key_tokens)
    if kind != "decoder":
        return np.ones((q, k), bool)
    i, j = np.arange(q)[:, None], np.arange(k)[None, :]
    window = getattr(runner.config, "window", 0) or 0
    return (j <= i) & ((i - j < window) if window else True)


def seen(runner, att, kind, r) -> list[int]:
    m = own_mask(runner, att, kind)
    if att.mask is not None:  # the trace's mask is the architecture's
        assert np.array_equal(np.asarray(att.mask, bool), m)
    return [int(j) for j in np.nonzero(m[r])[0]]


def where(w, view, row, rows=None):
    """(layer, head or None) 0-based: the view's layer and head, each head rule recomputed here."""
    L, H = w.shape[:2]
    lv, hv = view.get("layer", "last"), view.get("head", "mean")
    layers = range(L) if lv == "any" else [L - 1 if lv in ("last", None) else lv - 1]
    cells = [(la, h) for la in layers for h in range(H)]
    if hv == "decided":
        return max(cells, key=lambda x: w[x[0], x[1], row].max())
    if hv == "sharpest":
        return max(cells, key=lambda x: w[x[0], x[1], rows].max(-1).mean())
    if hv == "furthest":

        def far(x):
            r = w[x[0], x[1], row].copy()
            r[[0, row, max(row - 1, 0)]] = 0  # not the first token, the row itself or the one before
            return r.max()

        return max(cells, key=far)
    return layers[0], None if hv in ("mean", None) else hv - 1


def mat(w, layer, head):
    return w[layer].mean(0) if head is None else w[layer, head]


def top2(values) -> float:
    v = np.sort(np.asarray(values, dtype=np.float64))[::-1]
    return float(v[0] - v[1]) if len(v) > 1 else math.inf


def numeric(value: float, options: list[float]) -> tuple[int, float]:
    """(the option nearest the true number, how far the number may move before another is nearest,
    less how far the nearest already is)."""
    d = np.abs(np.asarray(options, dtype=np.float64) - value)
    order = np.argsort(d, kind="stable")
    return int(order[0]), float((d[order[1]] - d[order[0]]) / 2 - d[order[0]])


def entropy(p) -> float:
    p = np.asarray(p, dtype=np.float64)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


# -- model outputs, by loops of our own ------------------------------------------------------------


@functools.cache
def _greedy(name, text, view_json, forced=None):
    """The translator's greedy decoding under the view, one full forward per token on the prefix so
    far, log-softmax in numpy: (ids read: start token first, without </s>; each decision's
    log-probabilities). forced: follow these ids instead (teacher forcing), to the same length + 1."""
    runner, view = load(name), json.loads(view_json)
    _, src, _ = runner.ids(text)
    out = [runner.start_token(runner.direction(text))]
    s = model_settings(runner, view)
    logps = []
    with torch.no_grad():
        src_t = torch.tensor([src])
        while len(out) < runner.config.max_seq_len:
            logits, _ = runner.module(src_t, torch.tensor([out]), s)
            z = logits[0, -1].double().numpy()
            logp = z - (z.max() + np.log(np.exp(z - z.max()).sum()))
            logps.append(logp)
            if forced is not None:
                if len(out) == len(forced):
                    break
                out.append(forced[len(out)])
                continue
            nxt = int(logp.argmax())
            if nxt == EOS:
                break
            out.append(nxt)
    return out, logps


def greedy(runner, text, view=None, forced=None):
    return _greedy(runner.name, text, json.dumps(view or {}, sort_keys=True), forced)


def greedy_output(runner, text, view=None) -> tuple[str, float, int]:
    """(the text written, the smallest top-1 minus top-2 log-probability over its decisions, tokens read)."""
    ids, logps = greedy(runner, text, view)
    return runner.tokenizer.decode(ids[1:]), min(top2(lp) for lp in logps), len(ids)


def next_logp(runner, text, view) -> np.ndarray:
    """A GPT's log-probabilities for the token after <s> + text, under the view (heads off included)."""
    ids = [BOS] + runner.tokenizer.encode(text)
    with torch.no_grad():
        logits, _ = runner.module(torch.tensor([ids]), model_settings(runner, view))
    return torch.log_softmax(logits[0, -1].double(), -1).numpy()


# -- what a step's right answer is ------------------------------------------------------------------


class Want(dict):
    """label: the right option; rule; margin (inf where the rule is exact); value / certainty."""


def want(label, rule="exact", margin=math.inf, **rest) -> Want:
    return Want(label=label, rule=rule, margin=margin, **rest)


def o_token_count(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    if r.kind == "translator" and kind == "decoder":  # the decoder's keys are what it wrote
        _, gap, read = greedy_output(r, text, view)
        assert read == len(att.key_tokens)
        return want(str(read), "output", gap)
    n = len(r.tokenizer.encode(text)) + (r.kind == "gpt")  # a GPT reads <s> first
    assert n == len(att.key_tokens)
    return want(str(n))


def o_row_count(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    if r.kind == "translator" and kind != "encoder":  # one row per token the decoder read
        _, gap, read = greedy_output(r, text, view)
        assert read == len(att.query_tokens)
        return want(str(read), "output", gap)
    n = len(r.tokenizer.encode(text)) + (r.kind == "gpt")
    assert n == len(att.query_tokens)
    return want(str(n))


def o_row_sum(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    row = position(row_names(att, kind), args["word"])
    la, h = where(w, view, row)
    total = mat(w, la, h)[row].sum()
    i, margin = numeric(total, [0.5, 1.0, float(len(att.key_tokens))])
    return want(["lesson_sum_half", "lesson_sum_one", "lesson_sum_n"][i], "weight", margin)


def o_top_key(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    names = row_names(att, kind)
    rows = [i for i, t in enumerate(names) if t not in SPECIAL]
    word = args.get("word")
    row = None if word in (None, "surest") else position(names, word)
    la, h = where(w, view, row if row is not None else rows[0], rows)
    m = mat(w, la, h)
    if row is None:  # "surest": the row the head is surest of
        row = max(rows, key=lambda i: m[i].max())
    keys = seen(r, att, kind, row)
    top = keys[int(np.argmax(m[row, keys]))]
    return want(label(att.key_tokens, top), "weight", top2(m[row, keys]))


def o_top_key_again(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    names = [plain(x) for x in row_names(att, kind)]
    word = args["word"]
    if isinstance(word, dict):
        word = names[position(row_names(att, kind), word)]
    row = max(i for i, x in enumerate(names) if x == plain(word))  # its last occurrence
    la, h = where(w, view, row)
    m = mat(w, la, h)
    keys = seen(r, att, kind, row)
    top = keys[int(np.argmax(m[row, keys]))]
    return want(label(att.key_tokens, top), "weight", top2(m[row, keys]))


def o_induction(r, text, view, args):
    """The second occurrence's row without the first token and itself, as shares; its top must be
    the token after the previous occurrence (else the query says it does not apply)."""
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    names = [plain(x) for x in row_names(att, kind)]
    occ = [i for i, x in enumerate(names) if x == plain(args["word"])]
    row, prev = occ[-1], occ[-2]
    la, h = where(w, view, row)
    m = mat(w, la, h)
    keys = [k for k in seen(r, att, kind, row) if k not in (0, row)]
    share = m[row, keys] / m[row, keys].sum()
    assert keys[int(np.argmax(share))] == prev + 1
    return want(label(att.key_tokens, prev + 1), "weight", top2(share))


def o_top_score(r, text, view, args):
    """The highest q·k / √d_k (+ ALiBi's bias) from the q and k the model recorded, by numpy."""
    kind = kind_of(r, view)
    record: dict = {}
    att = r.trace(text, record=record, **settings(view)).attention[kind]
    w = att.weights.astype(np.float64)
    row = position(row_names(att, kind), args["word"])
    la, h = where(w, view, row)
    part, name = {"encoder": ("encoder", "self_attn"), "decoder": ("decoder", "self_attn")}.get(
        kind, ("decoder", "cross_attn")
    )
    rec = record[part][la][name]
    q, k = (rec[x].double().numpy()[0, h] for x in ("q", "k"))
    scores = q @ k.T / math.sqrt(q.shape[-1])
    if rec.get("bias") is not None:  # ALiBi adds each head's distance penalty (heads, queries, keys)
        scores = scores + rec["bias"].double().numpy()[h]
    keys = seen(r, att, kind, row)
    temp = view.get("temperature", 1.0) if view.get("temperature_layer") in (None, la + 1) else 1.0
    soft = torch.softmax(torch.tensor(scores[row, keys] / temp), -1).numpy()
    np.testing.assert_allclose(soft, w[la, h, row, keys], atol=2e-5)  # the scores are the model's
    top = int(np.argmax(scores[row, keys]))
    values = w[la, h, row, keys]
    return want(label(att.key_tokens, keys[top]), "weight", float(values[top] - np.delete(values, top).max()))


def o_cell_above(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    row, key = position(row_names(att, kind), args["word"]), position(att.key_tokens, args["key"])
    than = float(args["than"])
    if view.get("layer") == "auto":  # the last layer where the cell is clear of `than`
        hv = view.get("head", "mean")
        h = None if hv in ("mean", *RULES) else hv - 1
        la = next(
            (x for x in range(att.num_layers - 1, -1, -1) if abs(mat(w, x, h)[row, key] - than) >= WEIGHT),
            att.num_layers - 1,
        )
    else:
        la, h = where(w, view, row)
    value = mat(w, la, h)[row, key]
    return want("yes" if value > than else "no", "weight", abs(value - than))


def o_cell_weight(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    row, key = position(row_names(att, kind), args["word"]), position(att.key_tokens, args["key"])
    la, h = where(w, view, row)
    value = float(mat(w, la, h)[row, key])
    step, tol = float(args.get("step", 0.05)), float(args.get("tolerance", 0.10))
    grid = np.arange(int(round(1 / step)) + 1) * step
    nearest = grid[int(np.argmin(np.abs(grid - value)))]
    # the slider is graded right within the tolerance: how far the nearest option to an edge of "right" is
    edge = float(np.min(np.abs(np.abs(grid - value) - tol)))
    return want(f"{round(nearest, 4):g}", "estimate", edge, value=value)


def o_can_read(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    row, key = position(row_names(att, kind), args["word"]), position(att.key_tokens, args["key"])
    allowed = bool(own_mask(r, att, kind)[row, key])
    w = att.weights.astype(np.float64)[:, :, row, key]
    assert allowed or np.all(w == 0)  # a hidden key gets exactly 0
    return want("yes" if allowed else "no")


def o_first_token_weight(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    n = len(att.key_tokens)
    if kind == "decoder":  # under the causal mask the first row sees itself alone
        assert np.allclose(w[:, :, 0, 0], 1.0)
        return want("1")
    i, margin = numeric(w[:, :, 0, 0].mean(), [1.0, 1.0 / n, 0.0])
    return want(["1", f"1/{n}", "0"][i], "weight", margin)


def o_heads_agree(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    la = att.num_layers - 1 if view.get("layer", "last") == "last" else view["layer"] - 1
    row = position(row_names(att, kind), args["word"])  # the file's row, never another (issue 46)
    keys = seen(r, att, kind, row)
    tops = [keys[int(np.argmax(w[la, h, row, keys]))] for h in range(att.num_heads)]
    margin = min(top2(w[la, h, row, keys]) for h in range(att.num_heads))
    return want("yes" if len(set(tops)) == 1 else "no", "weight", margin)


def o_sharpen_sketch(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    temp = float(args.get("temperature", 0.2))
    row = position(row_names(att, kind), args["word"])
    la, h = where(w, view, row)
    over = {"temperature": temp} if args.get("every_layer") else {"temperature": temp, "temperature_layer": la + 1}
    if r.kind == "translator" and kind != "encoder":  # the rows at T read the T = 1 output
        tr = r.trace(text, target=trace(r, text, view).output_text, **settings(view, **over))
        assert tr.attention[kind].query_tokens == att.query_tokens
        real = tr.attention[kind].weights.astype(np.float64)[la, h]
    else:
        real = trace(r, text, view, **over).attention[kind].weights.astype(np.float64)[la, h]
    order = args.get("sketches", ["same", "sharper", "flatter"])
    # scores divided by T make the weights w^(1/T), normalised; sharper is T < 1 whichever side temp is on
    power = {"same": 1.0, "sharper": max(temp, 1 / temp), "flatter": min(temp, 1 / temp)}

    def pictures(x):
        keys = seen(r, att, kind, x)
        pics = [w[la, h, x, keys] ** power[s] / (w[la, h, x, keys] ** power[s]).sum() for s in order]
        d = sorted(np.abs(p - real[x, keys]).sum() for p in pics)
        apart = min(np.abs(a - b).sum() for i, a in enumerate(pics) for b in pics[i + 1 :])
        return keys, pics, min(d[1] - d[0], apart)  # the wrong sketches must not look alike either

    if args.get("row") == "clearest":
        rows = [x for x in range(len(att.query_tokens)) if len(seen(r, att, kind, x)) > 1]
        row = max(rows, key=lambda x: pictures(x)[2])
    keys, pics, margin = pictures(row)
    return want("ABC"[int(np.argmin([np.abs(p - real[row, keys]).sum() for p in pics]))], "sketch", margin)


def o_head_dim(r, text, view, args):
    record: dict = {}
    r.trace(text, record=record)
    part = "encoder" if "encoder" in record else "decoder"
    q = record[part][0]["self_attn"]["q"]  # (batch, heads, tokens, d_k) as the model computed it
    return want(str(q.shape[-1]))


def o_translation(r, text, view, args):
    out, gap, _ = greedy_output(r, text, view)
    return want(out, "output", gap)


def o_same_output(r, text, view, args):
    a, gap_a, _ = greedy_output(r, text, view)
    b, gap_b, _ = greedy_output(r, args["other"], view)
    return want("yes" if a == b else "no", "output", min(gap_a, gap_b))


def o_cells_compare(r, text, view, args):
    kind = kind_of(r, view)
    ea, eb = trace(r, text, view).attention[kind], trace(r, args["other"], view).attention[kind]
    wa, wb = ea.weights.astype(np.float64), eb.weights.astype(np.float64)
    ra, ka = position(row_names(ea, kind), args["word"]), position(ea.key_tokens, args["key"])
    rb, kb = position(row_names(eb, kind), args["word"]), position(eb.key_tokens, args["key"])
    if view.get("head") == "most_different":
        d = np.abs(wa[:, :, ra, ka] - wb[:, :, rb, kb])
        if view.get("layer", "any") == "any":
            la, h = np.unravel_index(int(d.argmax()), d.shape)
        else:
            la = view["layer"] - 1
            h = int(d[la].argmax())
    else:
        la, h = where(wa, view, ra)
    diff = abs(mat(wa, la, h)[ra, ka] - mat(wb, la, h)[rb, kb])
    same = diff < SAME
    yes = same if args.get("yes_if", "same") == "same" else not same
    if diff < 1e-6:  # equal by symmetry (positions off, the same words in another order)
        return want("yes" if yes else "no")
    # "the same" is within SAME: the answer flips where the difference crosses it
    return want("yes" if yes else "no", "weight", abs(diff - SAME))


def o_pe_dot(r, text, view, args):
    d = r.config.d_model
    p, a, b = int(args.get("p", 3)), int(args.get("near", 4)), int(args.get("far", 10))

    def pe(pos):  # the tutorial's formula: sin at even dimensions, cos at odd, 10000^(2i/d)
        i = np.arange(0, d, 2)
        angle = pos / np.power(10000.0, i / d)
        return np.stack([np.sin(angle), np.cos(angle)], -1).reshape(-1)

    near, far = pe(p) @ pe(a), pe(p) @ pe(b)
    return want("lesson_pe_near" if near > far + 1e-6 else "lesson_pe_far" if far > near + 1e-6 else "lesson_pe_equal")


def o_next_token(r, text, view, args):
    p = np.exp(next_logp(r, text, view))
    top = np.argsort(-p)
    return want(r.tokenizer.labels([int(top[0])])[0], "prob", float(p[top[0]] - p[top[1]]), certainty=float(p[top[0]]))


def o_sample_differs(r, text, view, args):
    rest = 1 - float(np.exp(next_logp(r, text, view)).max())
    # "another token in at least one draw in ten": yes from a 0.10 share for the other tokens, as
    # surely as the share is from 0.10 (a constant 0.10 for any "no" until issue 46)
    return want("yes" if rest >= PROB else "no", "prob", abs(rest - PROB))


def o_switch_off_changes(r, text, view, args, params=None):
    """Greedy decoding with the heads off follows the untouched output until the first decision
    that writes another token: there the output changes, as surely as that decision's log-probability
    gap; where none does, as surely as its least sure decision. GPT: the next token, the same way."""
    heads = list(view.get("heads_off") or []) or [params["heads"]]  # `pick`: the head the model chose
    on = {k: v for k, v in view.items() if k != "heads_off"}
    off = {**on, "heads_off": heads}
    if r.kind == "translator":
        base, _ = greedy(r, text, on)
        _, logps = greedy(r, text, off, forced=tuple(base))
        gold = list(base[1:]) + [EOS]
        for t, lp in enumerate(logps):
            best = int(lp.argmax())
            if best != gold[t]:
                return want("yes", "change", float(lp[best] - lp[gold[t]]))
        return want("no", "change", min(top2(lp) for lp in logps))
    b = int(next_logp(r, text, on).argmax())
    lp = next_logp(r, text, off)
    o = int(lp.argmax())
    return want("yes" if o != b else "no", "change", float(lp[o] - lp[b]) if o != b else top2(lp))


def o_entropy_higher(r, text, view, args):
    kind = kind_of(r, view)
    att = trace(r, text, view).attention[kind]
    w = att.weights.astype(np.float64)
    names = row_names(att, kind)
    ra, rb = position(names, args["word"]), position(names, args["other"])
    la, h = where(w, view, ra)
    m = mat(w, la, h)
    ha, hb = entropy(m[ra]), entropy(m[rb])
    return want(label(names, ra if ha > hb else rb), "entropy", abs(ha - hb))


ORACLES = {name[2:]: fn for name, fn in globals().items() if name.startswith("o_")}


# -- the steps ---------------------------------------------------------------------------------------


def tokens(name, text, kind="encoder", view=None):
    """The row names of a kind on a sentence (the model's trace, to pick words the steps name)."""
    r = load(name)
    att = trace(r, text, view or {}).attention[kind]
    return row_names(att, kind), list(att.key_tokens)


def content(names):
    return [i for i, t in enumerate(names) if t not in SPECIAL and plain(t) not in (".", "。")]


def repeated(names):
    """The positions of a word that comes twice or more (case ignored), the later ones."""
    seen_, out = {}, []
    for i, t in enumerate(names):
        if plain(t) in seen_ and t not in SPECIAL:
            out.append(i)
        seen_.setdefault(plain(t), i)
    return out


def s_token_count():
    for t in EN[:3] + ZH[:3]:
        yield "translator", t, {"kind": "encoder"}, {}
    yield "translator", EN[3], {"kind": "cross"}, {}
    yield "translator", EN[4], {"kind": "decoder"}, {}  # the decoder's keys: what it wrote
    yield "translator", ZH[4], {"kind": "decoder", "positions": False}, {}
    for i, g in enumerate(GPTS):
        yield g, (EN if i % 2 else ZH)[5 + i], {"kind": "decoder"}, {}


def s_row_count():
    for kind in ("encoder", "decoder", "cross"):
        yield "translator", EN[1], {"kind": kind}, {}
        yield "translator", ZH[2], {"kind": kind}, {}
    yield "translator", EN[6], {"kind": "cross", "heads_off": ["cross:2:1", "cross:2:2"]}, {}
    for i, g in enumerate(GPTS):
        yield g, (EN if i % 2 else ZH)[i], {"kind": "decoder"}, {}


def s_row_sum():
    views = [
        {"kind": "encoder"},
        {"kind": "encoder", "layer": 1, "head": 2},
        {"kind": "decoder", "head": "decided"},
        {"kind": "cross", "layer": 1, "head": 3},
    ]
    for i, view in enumerate(views):
        for text in (EN[i], ZH[i + 1]):
            names, _ = tokens("translator", text, view["kind"])
            yield "translator", text, view, {"word": word_arg(names, content(names)[-1])}
    for i, g in enumerate(GPTS):
        names, _ = tokens(g, EN[i], "decoder")
        yield (
            g,
            EN[i],
            {"kind": "decoder", "layer": 1 + i % 3, "head": 1 + i},
            {"word": word_arg(names, len(names) - 1)},
        )


def s_top_key():
    views = [
        ({"kind": "encoder"}, 1),
        ({"kind": "encoder", "layer": 1, "head": 1}, 2),
        ({"kind": "cross", "head": "decided"}, 1),
        ({"kind": "cross", "layer": "any", "head": "sharpest"}, None),  # the row it is surest of
        ({"kind": "decoder", "layer": 1, "head": "furthest"}, -1),
        ({"kind": "encoder", "temperature": 0.5, "head": 4}, -1),
        ({"kind": "cross", "positions": False}, 2),
    ]
    for i, (view, at) in enumerate(views):
        text = (EN if i % 2 == 0 else ZH)[i]
        names, _ = tokens("translator", text, view["kind"], view)
        word = "surest" if at is None else word_arg(names, content(names)[at])
        yield "translator", text, view, {"word": word}
    # repeated words: "the₂" in English, the second "。" of a Chinese story
    names, _ = tokens("translator", EN[0], "encoder")
    yield "translator", EN[0], {"kind": "encoder", "layer": 2}, {"word": word_arg(names, repeated(names)[0])}
    for i, g in enumerate(GPTS):
        text = STORIES[i % len(STORIES)].en if i % 2 == 0 else STORIES[i % len(STORIES)].zh
        names, _ = tokens(g, text, "decoder")
        yield (
            g,
            text,
            {"kind": "decoder", "layer": 2 + i % 2, "head": 1 + i},
            {"word": word_arg(names, repeated(names)[0])},
        )
    yield "gpt", EN[2], {"kind": "decoder", "head": "decided"}, {"word": {"position": 4}}


def s_top_key_again():
    for i, g in enumerate((*GPTS, *GPTS)):
        story = STORIES[i % len(STORIES)]
        text = story.en if i < 4 else story.zh
        names, _ = tokens(g, text, "decoder")
        word = plain(names[repeated(names)[0]])
        view = {"kind": "decoder", "layer": 1 + i % 3, "head": 1 + (i * 3) % 4} if i % 3 else {"kind": "decoder"}
        yield g, text, view, {"word": word}
    names, _ = tokens("translator", EN[3], "encoder")
    yield "translator", EN[3], {"kind": "encoder", "head": "decided"}, {"word": plain(names[repeated(names)[0]])}
    yield "gpt", EN[1], {"kind": "decoder", "layer": 3, "head": 2}, {"word": {"position": 2}}


def s_induction():
    """Steps where a head of our GPTs does read the token after the previous occurrence (found by
    scanning every layer and head on repeated sentences, 2026-12-04): English and Chinese, each GPT,
    single heads and the mean."""
    yield (
        "gpt",
        "The cat sat on the mat. The cat sat on the mat",
        {"kind": "decoder", "layer": 2, "head": 4},
        {"word": "cat"},
    )
    yield (
        "gpt",
        "The cat sat on the mat. The cat sat on the mat",
        {"kind": "decoder", "layer": 3, "head": 2},
        {"word": "mat"},
    )
    yield (
        "gpt",
        "The cat sat on the mat. The cat sat on the mat",
        {"kind": "decoder", "layer": 3, "head": "mean"},
        {"word": "mat"},
    )
    yield (
        "gpt",
        "The dog saw the cat and the dog saw the bird",
        {"kind": "decoder", "layer": 2, "head": 4},
        {"word": "dog"},
    )
    yield "gpt", "狗咬人。狗咬人", {"kind": "decoder", "layer": 2, "head": 1}, {"word": "人"}
    yield "gpt", "狗咬人。狗咬人", {"kind": "decoder", "layer": 3, "head": 3}, {"word": "人"}
    yield "gpt", "狗咬人。狗咬人", {"kind": "decoder", "layer": 1, "head": 3}, {"word": "狗"}
    yield "gpt", "The brother was kind. He was lazy.", {"kind": "decoder", "layer": 3, "head": 3}, {"word": "was"}
    yield "gpt", "鸟慢慢地住在桌子下面。它飞快地躺在山上。", {"kind": "decoder", "layer": 3, "head": 2}, {"word": "在"}
    yield "gpt-rope", "The brother was kind. He was lazy.", {"kind": "decoder", "layer": 2, "head": 2}, {"word": "was"}
    yield (
        "gpt",
        "The dog saw the cat and the dog saw the bird",
        {"kind": "decoder", "layer": 2, "head": "mean"},
        {"word": "dog"},
    )


def s_top_score():
    for i, kind in enumerate(("encoder", "decoder", "cross", "encoder")):
        text = (EN if i % 2 == 0 else ZH)[i]
        names, _ = tokens("translator", text, kind)
        view = {"kind": kind, "layer": 1 + i % 2, "head": 1 + i}
        yield "translator", text, view, {"word": word_arg(names, content(names)[-1])}
    yield "translator", ZH[5], {"kind": "encoder", "head": "decided", "temperature": 2.0}, {"word": "在"}
    for i, g in enumerate((*GPTS, "gpt-alibi", "gpt-rope")):
        text = (EN if i % 2 else ZH)[i + 2]
        names, _ = tokens(g, text, "decoder")
        yield (
            g,
            text,
            {"kind": "decoder", "layer": 1 + i % 3, "head": 1 + i % 4},
            {"word": word_arg(names, len(names) - 2)},
        )


def s_cell_above():
    cases = [
        ("translator", EN[1], {"kind": "encoder", "layer": "auto"}, 0.2),
        ("translator", ZH[1], {"kind": "encoder", "layer": "auto", "head": 2}, 0.3),
        ("translator", EN[2], {"kind": "cross", "layer": 2, "head": 4}, 0.5),
        ("translator", ZH[3], {"kind": "cross", "layer": "auto"}, 0.1),
        ("translator", EN[4], {"kind": "decoder", "layer": 1, "head": "decided"}, 0.25),
        ("gpt", EN[5], {"kind": "decoder", "layer": "auto"}, 0.2),
        ("gpt-rope", ZH[5], {"kind": "decoder", "layer": 2, "head": 3}, 0.3),
        ("gpt-alibi", EN[6], {"kind": "decoder", "layer": "auto", "head": "decided"}, 0.15),
        ("gpt-local", ZH[7], {"kind": "decoder", "layer": 3}, 0.2),
        ("gpt", STORIES[0].en, {"kind": "decoder", "layer": 2, "head": 3}, 0.4),
    ]
    for name, text, view, than in cases:
        names, keys = tokens(name, text, view["kind"])
        rows = content(names)
        row = rows[-1]
        key = row - 1 if view["kind"] == "decoder" else (len(keys) - 1 - row) % len(keys)
        yield name, text, view, {"word": word_arg(names, row), "key": word_arg(keys, key), "than": than}


def s_cell_weight():
    cases = [
        ("translator", EN[0], {"kind": "encoder"}, {}),
        ("translator", ZH[0], {"kind": "encoder", "layer": 1, "head": 3}, {"step": 0.1}),
        ("translator", EN[1], {"kind": "cross", "layer": 2, "head": 1}, {"tolerance": 0.15}),
        ("translator", ZH[2], {"kind": "cross", "head": "decided"}, {"step": 0.02, "tolerance": 0.05}),
        ("translator", EN[3], {"kind": "decoder", "layer": 2}, {}),
        ("gpt", EN[4], {"kind": "decoder", "layer": 1, "head": 2}, {"step": 0.1, "tolerance": 0.2}),
        ("gpt-rope", ZH[4], {"kind": "decoder"}, {}),
        ("gpt-alibi", EN[5], {"kind": "decoder", "layer": 3, "head": 4}, {"step": 0.25}),
        ("gpt-local", ZH[6], {"kind": "decoder", "layer": 2, "head": 1}, {}),
        ("gpt", STORIES[1].zh, {"kind": "decoder", "layer": 3, "head": 2}, {"tolerance": 0.05}),
    ]
    for name, text, view, extra in cases:
        names, keys = tokens(name, text, view["kind"])
        row = content(names)[-1]
        key = 0 if view["kind"] == "decoder" else content(keys)[0]
        yield name, text, view, {"word": word_arg(names, row), "key": word_arg(keys, key), **extra}


def s_can_read():
    for i, name in enumerate(("translator", *GPTS)):
        text = (EN if i % 2 == 0 else ZH)[i]
        kind = "encoder" if name == "translator" else "decoder"
        names, keys = tokens(name, text, kind)
        row = content(names)[1]
        later = len(keys) - 1  # after the row: hidden in a decoder
        yield name, text, {"kind": kind}, {"word": word_arg(names, row), "key": word_arg(keys, later)}
        first = 1 if name != "translator" else 0  # far before the row: outside gpt-local's window
        far = len(names) - 1
        yield name, text, {"kind": kind}, {"word": word_arg(names, far), "key": word_arg(keys, first)}
    for kind in ("decoder", "cross"):
        names, keys = tokens("translator", EN[7], kind)
        yield "translator", EN[7], {"kind": kind}, {"word": word_arg(names, 1), "key": word_arg(keys, len(keys) - 1)}


def s_first_token_weight():
    for i in range(4):
        yield "translator", EN[i], {"kind": "encoder"}, {}
        yield "translator", ZH[i], {"kind": "cross"}, {}
    yield "translator", "狗咬人", {"kind": "encoder"}, {}  # the audit's case: 0.47, not clearly "1/3"
    yield "translator", EN[5], {"kind": "encoder", "temperature": 3.0}, {}
    yield "translator", EN[6], {"kind": "decoder"}, {}
    for i, g in enumerate(GPTS):
        yield g, ZH[i + 4], {"kind": "decoder"}, {}


def s_heads_agree():
    for i, name in enumerate(("translator", "translator", "translator", *GPTS, "translator", "gpt", "gpt-local")):
        kind = ("encoder", "cross", "decoder")[i % 3] if name == "translator" else "decoder"
        text = (EN if i % 2 == 0 else ZH)[i % 10]
        names, _ = tokens(name, text, kind)
        yield name, text, {"kind": kind, "layer": 1 + i % 2}, {"word": word_arg(names, content(names)[-1])}


def s_sharpen_sketch():
    cases = [
        ("translator", EN[0], {"kind": "encoder", "layer": 1, "head": 1}, {"temperature": 0.2}),
        ("translator", ZH[0], {"kind": "encoder", "layer": 2, "head": 3}, {"temperature": 3.0}),
        ("translator", EN[1], {"kind": "cross", "layer": 2, "head": 2}, {"temperature": 0.5, "row": "clearest"}),
        ("translator", ZH[2], {"kind": "cross", "head": "decided"}, {"temperature": 2.0, "every_layer": True}),
        ("translator", EN[3], {"kind": "decoder", "layer": 1, "head": 2}, {"sketches": ["flatter", "same", "sharper"]}),
        ("gpt", EN[4], {"kind": "decoder", "layer": 2, "head": 3}, {"temperature": 0.3}),
        ("gpt-rope", ZH[4], {"kind": "decoder", "layer": 1, "head": 1}, {"temperature": 4.0, "row": "clearest"}),
        ("gpt-alibi", EN[5], {"kind": "decoder", "layer": 3, "head": 4}, {"temperature": 0.25, "every_layer": True}),
        ("gpt-local", ZH[6], {"kind": "decoder", "layer": 2, "head": 2}, {"temperature": 2.5}),
        ("gpt", STORIES[2].en, {"kind": "decoder", "layer": 3, "head": 1}, {"temperature": 0.4, "row": "clearest"}),
    ]
    for name, text, view, extra in cases:
        names, _ = tokens(name, text, view["kind"])
        yield name, text, view, {"word": word_arg(names, content(names)[-1]), **extra}


def s_head_dim():
    for i, name in enumerate(("translator", *GPTS) * 2):
        yield name, (EN if i < 5 else ZH)[i], {}, {}


def s_translation():
    for i in range(5):
        yield "translator", EN[i], {}, {"also": [EN[i + 1]]}
        yield "translator", ZH[i], {}, {"also": [ZH[i + 1], ZH[i + 2]]}
    yield "translator", "I love you", {}, {"also": [EN[0]]}  # the audit's case: 0.047 nats
    yield "translator", EN[6], {"positions": False}, {"also": [EN[7]]}
    yield "translator", ZH[7], {"temperature": 2.0}, {"also": [ZH[8]]}


def s_same_output():
    for i in range(5):
        yield "translator", EN[i], {"positions": i % 2 == 0}, {"other": EN[i + 1]}
        yield "translator", ZH[i], {"positions": i % 2 == 1}, {"other": ZH[i + 1]}
    yield "translator", "狗咬人", {"positions": False}, {"other": "人咬狗"}  # the same words, no positions
    yield "translator", "狗咬人", {}, {"other": "人咬狗"}
    yield "translator", EN[7], {"heads_off": ["cross:2:1"]}, {"other": EN[7].lower()}


def s_cells_compare():
    swaps = [("狗咬人", "人咬狗"), ("The dog bit the man", "The man bit the dog"), ("猫看见了狗。", "狗看见了猫。")]
    for a, b in swaps:
        names, keys = tokens("translator", a, "encoder")
        word, key = word_arg(names, content(names)[0]), word_arg(keys, content(keys)[-1])
        args = {"other": b, "word": word, "key": key}
        yield "translator", a, {"kind": "encoder", "layer": 1, "positions": False}, args  # equal by symmetry
        yield (
            "translator",
            a,
            {"kind": "encoder", "layer": "any", "head": "most_different"},
            {
                **args,
                "yes_if": "different",
            },
        )
        yield "translator", a, {"kind": "encoder", "layer": 2, "head": "most_different"}, args
    yield (
        "translator",
        "狗咬人",
        {"kind": "encoder", "layer": "any", "head": "most_different"},
        {
            "other": "人咬狗",
            "word": "咬",
            "key": "狗",
            "yes_if": "different",
        },
    )  # lesson 2's positions.7
    for i in range(3):  # two held-out sentences that share their first and last words
        yield "translator", EN[i], {"kind": "encoder", "head": 1 + i}, {"other": EN[i + 1], "word": "the", "key": "the"}
    yield "gpt", EN[2], {"kind": "decoder", "layer": 2, "head": 2}, {"other": EN[3], "word": "the", "key": "the"}


def s_pe_dot():
    for p, near, far in [(3, 4, 10), (0, 1, 2), (5, 6, 40), (10, 12, 11), (7, 3, 70), (2, 20, 30), (1, 0, 63)]:
        yield "translator", EN[0], {}, {"p": p, "near": near, "far": far}
    yield "translator", ZH[0], {}, {}
    yield "translator", EN[1], {}, {"p": 20, "near": 19, "far": 21}  # equal distances: equal products
    yield "translator", ZH[1], {}, {"p": 30, "near": 30, "far": 31}


def prefixes():
    """GPT prompts: held-out sentences cut before their last word, both languages."""
    out = []
    for i in range(5):
        en = EN[i].rstrip(".").split(" ")
        out += [" ".join(en[: max(2, len(en) - 2)]), ZH[i][: max(2, len(ZH[i]) - 3)]]
    return out


def s_next_token():
    views = [{}, {"temperature": 0.5}, {"positions": False}, {"heads_off": ["decoder:3:2"]}, {"temperature": 2.0}]
    for i, text in enumerate(prefixes()):
        yield GPTS[i % 4], text, views[i % 5], {}
    yield "gpt", "The cat sat on the", {}, {}
    yield "gpt-local", STORIES[0].en.split(".")[0] + ". It", {"heads_off": ["decoder:1:1", "decoder:2:2"]}, {}


def s_sample_differs():
    views = [{}, {"temperature": 0.5}, {"positions": False}, {"heads_off": ["decoder:2:3"]}, {"temperature": 3.0}]
    for i, text in enumerate(prefixes()):
        yield GPTS[(i + 1) % 4], text, views[i % 5], {}
    yield "gpt", "The cat sat on the", {}, {}
    yield "gpt", EN[0], {}, {}  # a whole sentence: "." or </s> next


def s_switch_off_changes():
    off = [["cross:1:1"], ["cross:2:1", "cross:2:2", "cross:2:3", "cross:2:4"], ["encoder:2:1"], ["decoder:1:2"]]
    for i in range(4):
        yield "translator", (EN if i % 2 == 0 else ZH)[i], {"heads_off": off[i]}, {}
    yield "translator", ZH[4], {"heads_off": ["cross:1:1"], "positions": False}, {}
    yield "translator", EN[5], {"heads_off": ["cross:2:4"], "temperature": 0.5}, {}
    # the head the model picks by importance (sentences where a clear one exists)
    yield "translator", EN[0], {}, {"pick": "most_important"}
    yield "translator", ZH[1], {}, {"pick": "most_important"}
    yield "translator", ZH[1], {}, {"pick": "least_important"}
    for i, g in enumerate(GPTS):
        yield g, prefixes()[i], {"heads_off": [f"decoder:{1 + i % 3}:{1 + i}"]}, {}
    yield "gpt", prefixes()[5], {"heads_off": ["decoder:1:1", "decoder:2:1", "decoder:3:1"], "temperature": 2.0}, {}


def s_entropy_higher():
    cases = [
        ("translator", EN[0], {"kind": "encoder", "layer": 1, "head": 1}),
        ("translator", ZH[1], {"kind": "encoder"}),
        ("translator", EN[2], {"kind": "cross", "layer": 2, "head": 3}),
        ("translator", ZH[3], {"kind": "cross", "head": "decided"}),
        ("translator", EN[4], {"kind": "decoder", "layer": 2, "head": 2}),
        ("gpt", EN[5], {"kind": "decoder", "layer": 1, "head": 4}),
        ("gpt-rope", ZH[5], {"kind": "decoder", "layer": 3}),
        ("gpt-alibi", EN[6], {"kind": "decoder", "layer": 2, "head": 1, "temperature": 2.0}),
        ("gpt-local", ZH[7], {"kind": "decoder", "layer": 3, "head": 3}),
        ("gpt", STORIES[0].zh, {"kind": "decoder", "layer": 2, "head": 3}),
    ]
    for name, text, view in cases:
        names, _ = tokens(name, text, view["kind"])
        rows = content(names)
        yield name, text, view, {"word": word_arg(names, rows[0]), "other": word_arg(names, rows[-1])}


STEPS = {name[2:]: fn for name, fn in globals().items() if name.startswith("s_")}
QUESTION = {name: q.questions[0] for name, q in queries.QUERIES.items()}


def steps_of(name) -> list[tuple]:
    """The query's steps, each once (a step repeated would not count twice)."""
    out, keys = [], set()
    for step in STEPS[name]():
        key = json.dumps(step, sort_keys=True, ensure_ascii=False)
        if key not in keys:
            keys.add(key)
            out.append(step)
    return out


def test_every_query_type_has_an_oracle_and_ten_distinct_steps():
    assert len(queries.QUERIES) >= 20  # the registry enumerated at all
    assert set(queries.QUERIES) - set(ORACLES) == set(), "a query type has no oracle here"
    assert set(queries.QUERIES) - set(STEPS) == set(), "a query type has no steps here"
    assert set(ORACLES) <= set(queries.QUERIES), "an oracle for a query that no longer exists"
    for name in queries.QUERIES:
        steps = steps_of(name)
        assert len(steps) >= 10, (name, len(steps))
        assert len({s[0] for s in steps}) >= 2 or queries.QUERIES[name].needs in ("translate", "sinusoidal"), name
    # both languages: every query that reads text has Chinese steps beside English ones
    for name in set(queries.QUERIES) - {"pe_dot"}:
        texts = [s[1] for s in steps_of(name)]
        assert any(corpus.has_cjk(t) for t in texts) and any(not corpus.has_cjk(t) for t in texts), name


@pytest.mark.parametrize("name", sorted(queries.QUERIES))
def test_answer_rule_and_margin_agree_with_an_independent_recomputation(name):
    steps = steps_of(name)
    assert len(steps) >= 10
    wrong, rules = [], set()
    for model_name, text, view, args in steps:
        runner = load(model_name)
        try:
            got = queries.run(name, runner, text, view, args, QUESTION[name])
        except NotApplicable as e:
            wrong.append((model_name, text, view, args, f"not applicable: {e.key} {e.params}"))
            continue
        extra = {"params": got["params"]} if name == "switch_off_changes" else {}
        w = ORACLES[name](runner, text, view, args, **extra)
        rule, margin = got.get("rule", "exact"), got.get("margin", math.inf)
        label = got["options"][got["answer"]]
        rules.add(w["rule"])
        ok = label == w["label"] and rule == w["rule"]
        if w["rule"] == "exact":
            ok = ok and margin == math.inf
        else:  # nats from a loop of our own and float32 weights: agree to 1e-4
            ok = ok and math.isfinite(margin) and abs(margin - w["margin"]) < 1e-4
        if "value" in w:
            ok = ok and abs(got["value"] - w["value"]) < 1e-9
        if "certainty" in w:
            ok = ok and abs(got["certainty"] - w["certainty"]) < 1e-4
        if not ok:
            wrong.append((model_name, text, view, args, (label, rule, margin), (w["label"], w["rule"], w["margin"])))
    assert not wrong, "\n".join(map(str, wrong))
