"""Head importance and what the intervene page shows beside the untouched run: every head switched
off in turn (one batched forward), the continuation and next-token probabilities under an
intervention, the sink heads, and the exact-match cost of switching heads off. The Intervention
itself (what a run carries, how heads are named) is model/intervention.py."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from model.attention import ABLATIONS
from model.config import settings_from
from model.errors import InputError
from model.intervention import (
    Edit,
    Intervention,
    all_heads,
    build,
    head_name,
    means_for,
    moved,
    onto,
    parse_head,
    reference_means,
)
from model.tokenizer import EOS


# -- head importance ---------------------------------------------------------------------------------
def _batch(runner, heads, how):
    """Row 0 untouched, row i + 1 with heads[i] switched off: one Intervention for the whole batch."""
    H = runner.config.num_heads
    masks = {}
    for i, (kind, layer, head) in enumerate(heads):
        m = masks.setdefault((kind, layer), torch.zeros(len(heads) + 1, H, dtype=torch.bool))
        m[i + 1, head] = True
    return Intervention(H, how=how, batch=masks, means=means_for(runner, how))


def _settings(intervention, **settings):
    return settings_from(**settings, intervention=intervention)


def translator_scores(runner, src_ids: list[int], start: int, intervention, rows: int, tgt_ids=None, **settings):
    """For `rows` copies of the source under `intervention` (batched): the teacher-forced log-prob of
    tgt_ids (start token first; </s> is scored after it; default: row 0's greedy output) and each
    row's greedy output ids."""
    s = _settings(intervention, **settings)
    greedy, target, logits, _ = runner.decode_then_read(src_ids, start, s, rows, tgt_ids)
    gold = torch.tensor([target[1:] + [EOS]]).expand(rows, -1)
    logp = torch.log_softmax(logits, -1).gather(-1, gold.unsqueeze(-1))[..., 0]
    return logp.sum(-1).numpy(), greedy, target


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
        start = runner.start_token(direction or runner.direction(text))
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
        start = runner.start_token(direction or runner.direction(text))
        _, read, logits, _ = runner.decode_then_read(src, start, _settings(intervention), target=target)
        return torch.softmax(logits[0], -1).numpy(), read
    _, ids, _ = runner.prompt_ids(text)
    return np.exp(gpt_scores(runner, ids, intervention, 1)[0].numpy()), ids


def sink_heads(
    weights: np.ndarray, mask: np.ndarray | None = None, factor: float | None = None
) -> list[tuple[int, int]]:
    """(layer, head) of the attention-sink heads: over the rows that can see more than one key, their
    mean weight on the first token is at least `factor` (default analysis.sink.SINK_FACTOR, 2) times
    what uniform weights would give it. A fixed share (30 %) picked heads that gave the first token
    less than uniform does on short sentences, where uniform is itself 25-50 %."""
    from analysis.sink import SINK_FACTOR, first_token_share

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
    from data import corpus

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
