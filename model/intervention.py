"""Switching heads off and editing a row of weights: the Intervention a run carries.

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

from dataclasses import dataclass

import numpy as np
import torch

from model.attention import ABLATIONS, HeadOp
from model.errors import InputError
from model.tokenizer import PAD
from model.trace import KINDS

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
    from data import corpus
    from model.tokenizer import TO_EN, TO_ZH

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


def has_reference(runner) -> bool:
    """Whether "mean" ablation uses the held-out reference set on this runner (our models), or falls
    back to the running mean over positions 0..t (a Hugging Face model): the page says which."""
    return bool(getattr(runner, "has_tutorial_code", False)) and runner.kind in ("translator", "gpt")


def reference_sentences(runner) -> int:
    """How many held-out sentences the reference means average over: a translator reads each of the
    REFERENCE_PAIRS pairs both ways, a GPT reads 2 x REFERENCE_PAIRS items."""
    return 2 * REFERENCE_PAIRS


def means_for(runner, how: str):
    """The reference means when a head is mean-ablated on one of our models, else None (a Hugging
    Face model's heads then fall back to the running mean over positions 0..t, see HeadOp)."""
    if how != "mean" or not has_reference(runner):
        return None
    return reference_means(runner)


# -- naming heads ------------------------------------------------------------------------------------
def head_name(kind: str, layer: int, head: int) -> str:
    """("cross", 1, 1) -> "cross:2:2" (1-based, as the app shows layers and heads)."""
    return f"{kind}:{layer + 1}:{head + 1}"


def parse_head(text: str) -> tuple[str, int, int]:
    """ "cross:2:2" -> ("cross", 1, 1). ValueError on anything else."""
    parts = str(text).strip().split(":")
    if len(parts) != 3 or parts[0] not in KINDS:
        raise ValueError(f"a head is written kind:layer:head, e.g. cross:2:2, got {str(text)[:40]!r}")
    layer, head = int(parts[1]), int(parts[2])
    if layer < 1 or head < 1:
        raise ValueError(f"layers and heads count from 1, got {str(text)[:40]!r}")
    return parts[0], layer - 1, head - 1


def kinds_of(runner) -> tuple[str, ...]:
    kinds = getattr(runner, "kinds", None)
    if kinds:
        return tuple(kinds)
    return {"translator": KINDS, "gpt": ("decoder",), "encoder": ("encoder",)}[runner.kind]


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
    return Intervention(c.num_heads, heads, how, edits, means=means_for(runner, how if heads else "zero"))


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
