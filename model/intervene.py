"""Switching heads off and editing a row of weights: what the model writes without them.

    m.trace(text, ablate=[("cross", 1, 1)], how="zero")      # 0-based (layer, head), like temperature_layer
    m.trace(text, edit=("decoder", 1, 2, 5, weights))       # row 5 of that head reads `weights` instead
    importance(m, text)                                      # every head switched off in turn, in one batch

An Intervention travels inside AttentionSettings like the temperature; each attention layer asks it
for its HeadOp (model/attention.py), which acts after softmax. Nothing is kept on the model, and a
batch can switch a different head off in each row: that is how importance() measures every head in
one forward. In the CLI, the URL and the Trace's JSON a head is written "kind:layer:head", 1-based
as the app shows it ("cross:2:2" is layer 2, head 2 of the cross-attention).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from .attention import ABLATIONS, HeadOp
from .errors import InputError
from .tokenizer import EOS, PAD

# -- "mean" ablation: each head's mean output per position over reference sentences -------------------
REFERENCE_PAIRS, REFERENCE_SEED = 32, 2027  # held-out pairs (a translator reads each both ways)
_REFERENCE: dict = {}  # id(runner) -> (runner, means); the runner is kept so its id is not reused


def reference_means(runner, n: int = REFERENCE_PAIRS, seed: int = REFERENCE_SEED) -> dict:
    """{(kind, layer): (heads, positions, d_v) float32}: every head's output at each position, averaged
    over n held-out sentences (corpus.heldout_pairs(n, seed); a translator reads each pair in both
    directions, teacher-forced on the reference; a GPT reads 2n held-out items). A "mean"-ablated
    head outputs this at position t instead of the mean over its own sentence, which mixed the later
    positions' outputs into every earlier one (the future leaked into masked and cross-attention).
    Positions no reference sentence reaches take the last position that one reaches. Computed once per
    runner (one batched forward)."""
    hit = _REFERENCE.get(id(runner))
    if hit is not None and hit[0] is runner and hit[2] == (n, seed):
        return hit[1]
    from . import corpus
    from .tokenizer import TO_EN, TO_ZH

    tok = runner.tokenizer
    if runner.kind == "translator":
        pairs = corpus.heldout_pairs(n, seed)
        srcs = [tok.encode(p.en) for p in pairs] + [tok.encode(p.zh) for p in pairs]
        tgts = [[TO_ZH] + tok.encode(p.zh) for p in pairs] + [[TO_EN] + tok.encode(p.en) for p in pairs]
        seqs = {"encoder": srcs, "decoder": tgts, "cross": tgts}
    else:
        items = corpus.gpt_items(2 * n, seed, "heldout")
        seqs = {"decoder": [runner.prompt_ids(text)[1] for _, text in items]}
    cap = runner.config.max_seq_len
    seqs = {k: [ids[:cap] for ids in v] for k, v in seqs.items()}

    def padded(rows, dev):
        width = max(map(len, rows))
        return torch.tensor([r + [PAD] * (width - len(r)) for r in rows], device=dev)

    def fn(m, dev):
        record: dict = {}
        if runner.kind == "translator":
            m(padded(seqs["encoder"], dev), padded(seqs["decoder"], dev), record=record)
        else:
            m(padded(seqs["decoder"], dev), record=record)
        return record

    record = runner.run(fn)
    means = {}
    for kind, rows in seqs.items():
        lengths = torch.tensor([len(r) for r in rows])
        width = int(lengths.max())
        valid = (torch.arange(width).view(1, -1) < lengths.view(-1, 1)).float()  # (B, T): not padding
        stack = "encoder" if kind == "encoder" else "decoder"
        part = "cross_attn" if kind == "cross" else "self_attn"
        for layer, rec in enumerate(record[stack]):
            out = rec[part]["head_outputs"].float().cpu()  # (B, H, T, d_v)
            total = (out * valid.view(valid.size(0), 1, -1, 1)).sum(0)
            means[(kind, layer)] = total / valid.sum(0).view(1, -1, 1)  # every position has >= 1 row
    _REFERENCE[id(runner)] = (runner, means, (n, seed))
    return means


def _means_for(runner, how: str):
    """The reference means when a head is mean-ablated on one of our models, else None (a Hugging
    Face model's heads then fall back to the running mean over positions 0..t, see HeadOp)."""
    if how != "mean" or not getattr(runner, "has_tutorial_code", False) or runner.kind not in ("translator", "gpt"):
        return None
    return reference_means(runner)


# -- naming heads ------------------------------------------------------------------------------------
def head_name(kind: str, layer: int, head: int) -> str:
    """("cross", 1, 1) -> "cross:2:2" (1-based, as the app shows layers and heads)."""
    return f"{kind}:{layer + 1}:{head + 1}"


def parse_head(text: str) -> tuple[str, int, int]:
    """ "cross:2:2" -> ("cross", 1, 1). ValueError on anything else."""
    parts = str(text).strip().split(":")
    if len(parts) != 3 or parts[0] not in ("encoder", "decoder", "cross"):
        raise ValueError(f"a head is written kind:layer:head, e.g. cross:2:2, got {str(text)[:40]!r}")
    layer, head = int(parts[1]), int(parts[2])
    if layer < 1 or head < 1:
        raise ValueError(f"layers and heads count from 1, got {str(text)[:40]!r}")
    return parts[0], layer - 1, head - 1


def kinds_of(runner) -> tuple[str, ...]:
    kinds = getattr(runner, "kinds", None)
    if kinds:
        return tuple(kinds)
    return {"translator": ("encoder", "decoder", "cross"), "gpt": ("decoder",), "encoder": ("encoder",)}[runner.kind]


def all_heads(runner) -> list[tuple[str, int, int]]:
    c = runner.config
    return [(k, layer, h) for k in kinds_of(runner) for layer in range(c.num_layers) for h in range(c.num_heads)]


# -- the intervention --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Edit:
    """Row `query` of head (kind, layer, head) reads `weights` (a distribution over its keys)."""

    kind: str
    layer: int
    head: int
    query: int
    weights: tuple[float, ...]

    def to_json(self) -> dict:
        return {
            "head": head_name(self.kind, self.layer, self.head),
            "query": self.query,
            "weights": [round(float(w), 6) for w in self.weights],
        }


class Intervention:
    """Heads switched off (one set for every batch row, or `batch`: a different set per row) and
    rows edited. at(kind, layer) gives that layer's HeadOp, or None where nothing changes.
    means: {(kind, layer): (heads, positions, d_v)} reference outputs for how="mean" (reference_means)."""

    def __init__(self, num_heads: int, ablate=(), how: str = "zero", edits=(), batch=None, means=None):
        self.num_heads, self.how = num_heads, how
        self.ablate = tuple((str(k), int(la), int(h)) for k, la, h in ablate)
        self.edits = tuple(edits)
        masks = dict(batch or {})
        for kind, layer, head in self.ablate:
            m = masks.setdefault((kind, layer), torch.zeros(1, num_heads, dtype=torch.bool))
            m[:, head] = True
        rows: dict = {}
        for e in self.edits:
            rows.setdefault((e.kind, e.layer), []).append((e.head, e.query, e.weights))
        self._ops = {
            key: HeadOp(
                ablate=masks.get(key),
                how=how,
                edits=tuple(rows.get(key, ())),
                means=(means or {}).get(key) if how == "mean" else None,
            )
            for key in set(masks) | set(rows)
        }

    def at(self, kind: str, layer: int):
        return self._ops.get((kind, layer))

    def __bool__(self):
        return bool(self._ops)

    def to_json(self) -> dict:
        return {
            "how": self.how,
            "ablate": [head_name(*a) for a in self.ablate],
            "edits": [e.to_json() for e in self.edits],
        }


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, (str, Edit)) or (isinstance(x, tuple) and x and isinstance(x[0], str)):
        return [x]
    return list(x)


def build(runner, ablate=None, how: str = "zero", edit=None) -> Intervention | None:
    """Check the heads against the model and make the Intervention (None when there is nothing to do).
    ablate: (kind, layer, head) 0-based, or "kind:layer:head" 1-based; edit: Edit or
    (kind, layer, head, query, weights), 0-based. InputError for anything the model does not have."""
    if how not in ABLATIONS:
        raise InputError("ablate", f"unknown ablation {how!r}; use {', '.join(ABLATIONS)}")
    c, kinds = runner.config, kinds_of(runner)

    def check(kind, layer, head, what):
        if kind not in kinds:
            raise InputError("ablate", f"{runner.name} has no {kind} attention; it has {', '.join(kinds)}")
        if not (0 <= layer < c.num_layers and 0 <= head < c.num_heads):
            raise InputError(
                "ablate",
                f"{what} {head_name(kind, layer, head)} is outside {runner.name}'s "
                f"{c.num_layers} layers x {c.num_heads} heads",
            )

    heads = []
    for a in _as_list(ablate):
        try:
            kind, layer, head = parse_head(a) if isinstance(a, str) else (str(a[0]), int(a[1]), int(a[2]))
        except (ValueError, TypeError, IndexError) as e:
            raise InputError("ablate", str(e)) from None
        check(kind, layer, head, "head")
        if (kind, layer, head) not in heads:
            heads.append((kind, layer, head))
    edits = []
    for e in _as_list(edit):
        if not isinstance(e, Edit):
            try:
                kind, layer, head, query, weights = e
                e = Edit(str(kind), int(layer), int(head), int(query), tuple(float(w) for w in weights))
            except (ValueError, TypeError) as err:
                raise InputError("edit", f"an edit is (kind, layer, head, query, weights): {err}") from None
        check(e.kind, e.layer, e.head, "edited head")
        w = np.asarray(e.weights, dtype=np.float64)
        if w.ndim != 1 or not len(w) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
            raise InputError("edit", "the edited row must be non-negative weights with a positive sum")
        edits.append(Edit(e.kind, e.layer, e.head, e.query, tuple((w / w.sum()).tolist())))
    if not heads and not edits:
        return None
    return Intervention(c.num_heads, heads, how, edits, means=_means_for(runner, how if heads else "zero"))


def check_edits(intervention, attention: dict) -> None:
    """After the forward: every edited row exists and its weights cover exactly that row's keys."""
    for e in intervention.edits if intervention is not None else ():
        att = attention[e.kind]
        if not 0 <= e.query < len(att.query_tokens):
            raise InputError("edit", f"row {e.query} is outside the {len(att.query_tokens)} {e.kind} rows")
        if len(e.weights) != len(att.key_tokens):
            raise InputError("edit", f"the edited row has {len(e.weights)} weights for {len(att.key_tokens)} keys")
        if att.mask is not None and any(w > 0 and not v for w, v in zip(e.weights, att.mask[e.query])):
            raise InputError("edit", "the edited row puts weight on a key the mask hides (a later token)")


def moved(row, src: int, dst: int) -> np.ndarray:
    """A row with key src's weight moved onto key dst (the edit mode's "look at dog, not cat")."""
    out = np.array(row, dtype=np.float64)
    out[dst] += out[src]
    out[src] = 0.0
    return out


def onto(row, dst: int) -> np.ndarray:
    """All of the row's weight on key dst."""
    out = np.zeros(len(row), dtype=np.float64)
    out[dst] = 1.0
    return out


# -- Hugging Face: the same HeadOp on the family's eager attention output ----------------------------
def apply_hf(op: HeadOp, attn_output, attn_weights, value, attention_mask):
    """attn_output (B, Tq, H, d) as transformers' eager_attention_forward returns it, attn_weights
    (B, H, Tq, Tk), value (B, H_kv, Tk, d), attention_mask additive (B, 1, Tq, Tk) or None."""
    H = attn_weights.size(1)
    v = value.repeat_interleave(H // value.size(1), dim=1) if value.size(1) != H else value
    mask = None
    if attention_mask is not None:
        m = attention_mask[..., : attn_weights.size(-1)]
        mask = m if m.dtype == torch.bool else m > torch.finfo(m.dtype).min / 2
    out, w = op.apply(attn_output.transpose(1, 2), attn_weights, v.to(attn_weights.dtype), mask)
    return out.transpose(1, 2).contiguous().to(attn_output.dtype), w


# -- head importance ---------------------------------------------------------------------------------
def _batch(runner, heads, how):
    """Row 0 untouched, row i + 1 with heads[i] switched off: one Intervention for the whole batch."""
    H = runner.config.num_heads
    masks = {}
    for i, (kind, layer, head) in enumerate(heads):
        m = masks.setdefault((kind, layer), torch.zeros(len(heads) + 1, H, dtype=torch.bool))
        m[i + 1, head] = True
    return Intervention(H, how=how, batch=masks, means=_means_for(runner, how))


def _settings(intervention, **settings):
    from .runner import settings_from  # runner imports this module

    return settings_from(**settings, intervention=intervention)


def translator_scores(runner, src_ids: list[int], start: int, intervention, rows: int, tgt_ids=None, **settings):
    """For `rows` copies of the source under `intervention` (batched): the teacher-forced log-prob of
    tgt_ids (start token first; </s> is scored after it) and each row's greedy output ids."""
    s = _settings(intervention, **settings)

    def fn(m, dev):
        src = torch.tensor([src_ids], dtype=torch.long, device=dev).expand(rows, -1)
        out = m.greedy_decode(src, torch.full((rows,), start, device=dev), EOS, runner.config.max_seq_len, s)
        greedy = []
        for row in out.cpu().tolist():
            body = row[1:]
            body = body[: body.index(EOS)] if EOS in body else body
            greedy.append(row[:1] + [i for i in body if i != PAD])
        target = greedy[0] if tgt_ids is None else tgt_ids
        tgt = torch.tensor([target], dtype=torch.long, device=dev).expand(rows, -1)
        logits, _ = m(src, tgt, s)
        gold = torch.tensor([target[1:] + [EOS]], device=dev).expand(rows, -1)
        logp = torch.log_softmax(logits.float(), -1).gather(-1, gold.unsqueeze(-1))[..., 0]
        return logp.sum(-1).cpu().numpy(), greedy, target

    return runner.run(fn, [])


def gpt_scores(runner, ids: list[int], intervention, rows: int, **settings):
    """Next-token log-probabilities (rows, T, vocab) for `rows` copies of ids under `intervention`."""
    s = _settings(intervention, **settings)

    def fn(m, dev):
        x = torch.tensor([ids], dtype=torch.long, device=dev).expand(rows, -1)
        logits, _ = m(x, s)
        return torch.log_softmax(logits.float(), -1).cpu()

    return runner.run(fn, [])


def kl_per_position(logp_base, logp) -> np.ndarray:
    """KL(base || ablated) of the next-token distributions, per position: (..., T)."""
    return (logp_base.exp() * (logp_base - logp)).sum(-1).numpy()


@dataclass(frozen=True)
class Importance:
    """One number per head: how much switching it off changes the output (model.kind decides which).

    translator: delta_logp = log p(unablated translation | head off) - log p(it | all heads), teacher-
    forced, in nats (<= 0 when the head helped); changed = the greedy translation is different.
    gpt: kl = KL(untouched || head off) of the next-token distributions, mean over the positions."""

    model: str
    text: str
    how: str
    heads: list  # [(kind, layer, head)] 0-based, in grid order
    score: np.ndarray  # (n,): -delta_logp (translator) or kl (gpt); larger = matters more
    output: str  # the untouched output (translation; for a GPT: its greedy next tokens)
    outputs: list  # what each ablated run writes
    changed: np.ndarray  # (n,) bool
    delta_logp: np.ndarray | None = None
    kl: np.ndarray | None = None
    seconds: float = 0.0

    def grid(self, kind: str, num_layers: int, num_heads: int) -> np.ndarray:
        g = np.full((num_layers, num_heads), np.nan)
        for (k, layer, head), v in zip(self.heads, self.score):
            if k == kind:
                g[layer, head] = v
        return g

    def to_json(self) -> dict:
        rows = []
        for i, (k, layer, head) in enumerate(self.heads):
            row = {
                "head": head_name(k, layer, head),
                "kind": k,
                "layer": layer + 1,
                "head_index": head + 1,
                "score": round(float(self.score[i]), 6),
                "changed": bool(self.changed[i]),
                "output": self.outputs[i],
            }
            if self.delta_logp is not None:
                row["delta_logp"] = round(float(self.delta_logp[i]), 6)
            if self.kl is not None:
                row["kl"] = round(float(self.kl[i]), 6)
            rows.append(row)
        return {
            "model": self.model,
            "text": self.text,
            "how": self.how,
            "output": self.output,
            "measure": "kl" if self.kl is not None else "delta_logp",
            "heads": rows,
            "seconds": round(self.seconds, 4),
        }


def importance(
    runner, text: str, how: str = "zero", direction: str | None = None, heads=None, **settings
) -> Importance:
    """Switch each head off in turn (all of them in one batched forward) and measure the change."""
    if how not in ABLATIONS:
        raise InputError("ablate", f"unknown ablation {how!r}; use {', '.join(ABLATIONS)}")
    if not getattr(runner, "has_tutorial_code", hasattr(runner, "module")) or runner.kind not in ("translator", "gpt"):
        raise InputError(
            "model",
            f"head importance is computed for the shipped models (translator, gpt, "
            f"gpt-rope, gpt-alibi), not {runner.name}",
        )
    t0 = time.perf_counter()
    heads = list(heads) if heads is not None else all_heads(runner)
    iv, rows = _batch(runner, heads, how), len(heads) + 1
    tok = runner.tokenizer
    if runner.kind == "translator":
        text, src_ids, _ = runner.ids(text)
        start = runner._start(direction or runner.direction(text))
        logp, greedy, target = translator_scores(runner, src_ids, start, iv, rows, **settings)
        outs = [tok.decode(g[1:]) for g in greedy]
        delta = logp[1:] - logp[0]
        return Importance(
            runner.name,
            text,
            how,
            heads,
            -delta,
            outs[0],
            outs[1:],
            np.array([o != outs[0] for o in outs[1:]]),
            delta_logp=delta,
            seconds=time.perf_counter() - t0,
        )
    text, ids, _ = runner.prompt_ids(text)
    logp = gpt_scores(runner, ids, iv, rows, **settings)
    kl = kl_per_position(logp[:1], logp[1:]).mean(-1)
    top = logp.argmax(-1)  # (rows, T): the greedy next token at each position
    outs = [tok.decode(r.tolist()) for r in top]
    return Importance(
        runner.name,
        text,
        how,
        heads,
        kl,
        outs[0],
        outs[1:],
        (top[1:] != top[:1]).any(-1).numpy(),
        kl=kl,
        seconds=time.perf_counter() - t0,
    )


# -- what the page shows beside the untouched run ----------------------------------------------------
def continuation(runner, text: str, intervention=None, max_new_tokens: int = 8):
    """A GPT's greedy continuation under `intervention` (the whole sequence re-read at each step, so a
    switched-off head's mean and an edited row stay where they were). Returns (ids, written text,
    next-token probabilities at the text's last position (vocab,))."""
    _, ids, _ = runner.prompt_ids(text)
    s = _settings(intervention)
    first = None
    out = list(ids)
    for _ in range(max_new_tokens):
        if len(out) >= runner.config.max_seq_len:
            break
        logits, _ = runner.run(lambda m, dev: m(torch.tensor([out], device=dev), s))
        p = torch.softmax(logits[0, -1].float(), -1).cpu().numpy()
        first = p if first is None else first
        nxt = int(p.argmax())
        if nxt == EOS:
            break
        out.append(nxt)
    return ids, runner.tokenizer.decode(out[len(ids) :]), first


def step_probs(runner, text: str, intervention=None, target: list[int] | None = None, direction=None):
    """The next-token probabilities at every decoder position, (T, vocab): a translator teacher-forced
    on `target` (start token first; default: its own greedy output under the intervention), a GPT on
    the text. Returns (probs, the ids read)."""
    if runner.kind == "translator":
        _, src, _ = runner.ids(text)
        start = runner._start(direction or runner.direction(text))
        s = _settings(intervention)

        def fn(m, dev):
            x = torch.tensor([src], device=dev)
            tgt = target
            if tgt is None:
                row = m.greedy_decode(x, torch.tensor([start], device=dev), EOS, runner.config.max_seq_len, s)[0]
                tgt = row.tolist()
                tgt = tgt[: tgt.index(EOS, 1)] if EOS in tgt[1:] else tgt
            logits, _ = m(x, torch.tensor([tgt], device=dev), s)
            return torch.softmax(logits[0].float(), -1).cpu().numpy(), tgt

        return runner.run(fn)
    _, ids, _ = runner.prompt_ids(text)
    return np.exp(gpt_scores(runner, ids, intervention, 1)[0].numpy()), ids


def sink_heads(
    weights: np.ndarray, mask: np.ndarray | None = None, factor: float | None = None
) -> list[tuple[int, int]]:
    """(layer, head) of the attention-sink heads: over the rows that can see more than one key, their
    mean weight on the first token is at least `factor` (default model.sink.SINK_FACTOR, 2) times
    what uniform weights would give it. A fixed share (30 %) picked heads that gave the first token
    less than uniform does on short sentences, where uniform is itself 25-50 %."""
    from .sink import SINK_FACTOR, first_token_share

    share, uniform = first_token_share(weights, mask)
    ratio = share / uniform
    f = SINK_FACTOR if factor is None else factor
    return [(int(la), int(h)) for la, h in zip(*np.nonzero(ratio >= f))]


def align(a: np.ndarray, b: np.ndarray, mask_a=None, mask_b=None):
    """Two (..., Q, K) weight arrays cut to their common rows and columns (aligned by position).
    Returns (a, b, mask or None, cut: whether either lost rows or columns)."""
    q, k = min(a.shape[-2], b.shape[-2]), min(a.shape[-1], b.shape[-1])
    cut = a.shape[-2:] != (q, k) or b.shape[-2:] != (q, k)
    mask = None
    if mask_a is not None or mask_b is not None:
        ma = np.ones((q, k), bool) if mask_a is None else np.asarray(mask_a)[:q, :k]
        mb = np.ones((q, k), bool) if mask_b is None else np.asarray(mask_b)[:q, :k]
        mask = ma & mb
    return a[..., :q, :k], b[..., :q, :k], mask, cut


# -- held-out exact match with a head switched off -----------------------------------------------------
def exact_match(runner, n: int = 200, seed: int = 1234, ablate=None, how: str = "zero", batch: int = 100) -> dict:
    """Exact match on n held-out pairs (as `python -m model evaluate`), both directions, with `ablate` off."""
    from . import corpus

    iv = build(runner, ablate, how)
    pairs = corpus.heldout_pairs(n, seed)
    out = {}
    for direction, src, ref in (("en-zh", "en", "zh"), ("zh-en", "zh", "en")):
        hyps = []
        for i in range(0, len(pairs), batch):
            hyps += runner.translate(
                [getattr(p, src) for p in pairs[i : i + batch]], direction=direction, intervention=iv
            )
        out[direction] = float(np.mean([h == getattr(p, ref) for h, p in zip(hyps, pairs)]))
    return out


__all__ = [
    "reference_means",
    "Edit",
    "Intervention",
    "Importance",
    "build",
    "importance",
    "head_name",
    "parse_head",
    "moved",
    "onto",
    "exact_match",
    "continuation",
    "step_probs",
    "sink_heads",
    "align",
]
