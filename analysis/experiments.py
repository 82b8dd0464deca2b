"""The numbers behind the temperature, positional-encoding and generation pages.

Each function runs a model (or a positional scheme) and returns numpy; the pages only lay the
results out. Everything here is checked on the model's own numbers in tests/test_experiments.py:

- softmax(s / T) of a head's real scores: its entropy rises with T towards ln(n) (the tutorial's
  "温度越高 → 注意力分布越均匀");
- without positional encoding the encoder's attention of "人咬狗" is that of "狗咬人" with rows
  and columns permuted; with it, it is not;
- PE(p + k) = M(k) · PE(p) for one fixed block-rotation M(k);
- RoPE's score depends on the offset between q and k only;
- a GPT's loss per token on sequences longer than any it was trained on.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from data import corpus
from model import attention
from model.blocks import causal_mask, padding_mask
from model.config import settings_from
from model.gpt import Sampling, sampling_distribution
from model.positional import RotaryEmbedding, alibi_bias, alibi_slopes, sinusoidal_table
from model.tokenizer import BOS, PAD

# -------------------------------------------------------------------------------------------
# Attention temperature
# -------------------------------------------------------------------------------------------


def log_temperatures(lo: float = 0.05, hi: float = 20.0, n: int = 41) -> np.ndarray:
    """n temperatures evenly spaced on a log scale from lo to hi, with 1 exactly among them when
    it lies inside."""
    temps = np.geomspace(lo, hi, n)
    if lo < 1 < hi:
        temps[np.argmin(np.abs(np.log(temps)))] = 1.0
    return temps


def _record_of(record: dict, kind: str, layer: int) -> dict:
    if kind == "encoder":
        return record["encoder"][layer]["self_attn"]
    if kind == "cross":
        return record["decoder"][layer]["cross_attn"]
    return record["decoder"][layer]["self_attn"]


def _scores(rec: dict) -> torch.Tensor:
    """(heads, queries, keys): the scores one attention call recorded (model/attention.py's
    scaled_scores), -inf where the mask hid a key."""
    scores = rec["scores"].double()
    if scores.dim() == 4:
        scores = scores[0]
    if rec.get("mask") is not None:
        hidden = (rec["mask"] == 0).expand(1, *scores.shape)[0] if rec["mask"].dim() > 2 else rec["mask"] == 0
        scores = scores.masked_fill(hidden.expand_as(scores), float("-inf"))
    return scores


def attention_scores(runner, text: str, **settings) -> dict[str, np.ndarray]:
    """For each attention kind, the scores QK^T/sqrt(d_k) (+ ALiBi's bias) every head feeds to
    softmax, before any temperature: (layers, heads, queries, keys) float64, -inf where the mask
    hides a key. softmax_at(scores, 1) gives back the trace's weights."""
    record: dict = {}
    tr = runner.trace(text, record=record, **settings)
    out = {}
    for kind in tr.attention:
        n_layers = tr.attention[kind].num_layers
        out[kind] = torch.stack([_scores(_record_of(record, kind, i)) for i in range(n_layers)]).cpu().numpy()
    return out


def head_scores(runner, text: str, kind: str, layer: int, head: int, **settings) -> np.ndarray:
    """One head's (queries, keys) scores; see attention_scores. Only that head is turned into
    float64 (a 30-layer x 9-head model's every score is 170 MB of float64 at 256 tokens)."""
    record: dict = {}
    runner.trace(text, record=record, **settings)
    rec = _record_of(record, kind, layer)
    one = {**rec, "scores": (rec["scores"][0] if rec["scores"].dim() == 4 else rec["scores"])[head : head + 1]}
    return _scores(one)[0].cpu().numpy()


def softmax_at(scores: np.ndarray, temperature: float) -> np.ndarray:
    """model.attention.softmax_at on numpy scores (float64), -inf scores (hidden keys) getting
    exactly 0: the recorded scores re-weighted at another temperature."""
    s = torch.from_numpy(np.asarray(scores, dtype=np.float64))
    hidden = ~torch.isfinite(s)
    return attention.softmax_at(s.masked_fill(hidden, -torch.inf), float(temperature), ~hidden).numpy()


def before_cuts(probs: np.ndarray, temperature: float) -> np.ndarray:
    """The next-token distribution at sampling temperature T before top-k / top-p cut anything, from
    the model's probabilities at T = 1: softmax(log p / T), the same softmax_at (a token of
    probability 0 stays 0); T = 0 (greedy) leaves p as it is."""
    p = np.asarray(probs, dtype=np.float64)
    if temperature == 0:
        return p
    with np.errstate(divide="ignore"):
        return softmax_at(np.log(p), temperature)


def entropy_curve(scores: np.ndarray, temps) -> np.ndarray:
    """(len(temps), queries): the entropy in nats of each row of softmax(scores / T)."""
    out = []
    for t in temps:
        p = softmax_at(scores, t)
        logp = np.log(np.where(p > 0, p, 1.0))
        out.append(-(p * logp).sum(axis=-1))
    return np.array(out)


def sampling_view(logits: np.ndarray, temperature: float, top_k: int | None, top_p: float | None):
    """The next-token distribution after sampling temperature, top-k and top-p (model/gpt.py's
    sampling_distribution), the tokens those cuts keep, and the distribution at that temperature
    before any cut: (final, kept, before), numpy (vocab,)."""
    final, kept = (
        x.numpy()
        for x in sampling_distribution(torch.from_numpy(np.asarray(logits)), Sampling(float(temperature), top_k, top_p))
    )
    before = final if temperature == 0 else softmax_at(logits, temperature)
    return final, kept, before


def entropy_view(scores: np.ndarray, temps, q: int, temperature: float) -> dict:
    """What the temperature page shows of one head's (queries, keys) scores: the entropy curve of
    row q ("row") and of the mean over rows ("mean") at temps, the keys row q may see ("n_q") and
    its limit ln n_q, the rows' mean limit, the entropy of row q at T = 1 ("h1") and at
    ``temperature`` ("hT"), and a top for the entropy axis."""
    curves = entropy_curve(scores, temps)  # (temps, Q)
    allowed = np.isfinite(scores).sum(-1)  # keys each row may see
    n_q = int(allowed[q])
    return {
        "row": curves[:, q],
        "mean": curves.mean(axis=1),
        "n_q": n_q,
        "limit": math.log(max(n_q, 1)),
        "mean_limit": float(np.log(allowed).mean()),
        "top": max(math.log(max(int(allowed.max()), 1)), 1e-9) * 1.1,
        "h1": float(curves[int(np.argmin(np.abs(np.log(temps)))), q]),
        "hT": float(entropy_curve(scores[q : q + 1], [temperature])[0, 0]),
    }


def gpt_next_token_logits(runner, text: str, **settings) -> np.ndarray:
    """(vocab,) logits for the token after <s> + text, at the given attention settings."""
    _, ids, _ = runner.prompt_ids(text)
    logits, _ = runner.next_token_logits(ids, **settings)
    return logits.numpy()


def gpt_next_labels(runner, text: str, candidates) -> list[str]:
    """Labels of candidate tokens after <s> + text, each read where it would stand (a byte piece
    shows its character: model/written.py)."""
    _, ids, _ = runner.prompt_ids(text)
    return runner.next_labels(ids, [int(c) for c in candidates])


def induction_probe(runner, period: int = 10, seed: int = 0) -> tuple[np.ndarray, int]:
    """The decoder attention (layers, heads, n, n) of the model reading its start token(s), then
    r r for ``period`` fixed random ordinary tokens r; and the number of start tokens (the offset
    analysis.measures.induction_scores needs)."""
    ordinary = [i for i in range(runner.tokenizer.vocab_size) if runner.is_ordinary(i)]
    r = np.random.default_rng(seed).choice(ordinary, size=period, replace=False).tolist()
    start = runner.prompt_ids("")[1]
    return runner.trace_ids(start + r + r).attention["decoder"].weights, len(start)


# -------------------------------------------------------------------------------------------
# Word order: attention alone cannot see it
# -------------------------------------------------------------------------------------------


def token_permutation(ids_a, ids_b) -> list[int] | None:
    """perm with ids_b[i] == ids_a[perm[i]] for every i, or None when b is not a reordering of a.
    Repeated tokens are matched in order of appearance."""
    ids_a, ids_b = list(ids_a), list(ids_b)
    if sorted(ids_a) != sorted(ids_b):
        return None
    used = [False] * len(ids_a)
    perm = []
    for tok in ids_b:
        j = next(j for j, a in enumerate(ids_a) if a == tok and not used[j])
        used[j] = True
        perm.append(j)
    return perm


def permuted_differences(weights_a: np.ndarray, weights_b: np.ndarray, perm) -> np.ndarray:
    """max |W_b - P W_a P^T| for each layer and head, (layers, heads): 0 (up to rounding) when
    attention ignores word order. Weights (layers, heads, n, n) of self-attention."""
    p = np.asarray(perm)
    moved = np.asarray(weights_a, dtype=np.float64)[..., p, :][..., :, p]
    return np.abs(np.asarray(weights_b, dtype=np.float64) - moved).max(axis=(-2, -1))


def encoder_attention(runner, text: str, use_position: bool = True) -> tuple[list[str], np.ndarray]:
    """The translator's encoder self-attention of text, (layers, heads, n, n), without decoding."""
    _, ids, _ = runner.ids(text)
    settings = settings_from(use_position=use_position)

    def fn(m, dev):
        _, _, w = m.encode(torch.tensor([ids], dtype=torch.long, device=dev), settings)
        return w[:, 0].float().cpu().numpy()

    return runner.tokenizer.labels(ids), runner.run(fn)


def word_order(runner, text_a: str, text_b: str) -> dict:
    """The translator's encoder attention of two orderings of the same tokens, with and without
    positional encoding. Returns {"perm", "tokens": (a, b), True / False: {"a", "b", "diffs", "diff"}}:
    diffs is max |W_b - P W_a P^T| per (layer, head), diff the largest (None when b is not a
    reordering of a)."""
    perm = token_permutation(runner.ids(text_a)[1], runner.ids(text_b)[1])
    out: dict = {"perm": perm}
    for use in (False, True):
        ta, wa = encoder_attention(runner, text_a, use)
        tb, wb = encoder_attention(runner, text_b, use)
        out["tokens"] = (ta, tb)
        diffs = None if perm is None else permuted_differences(wa, wb, perm)
        out[use] = {"a": wa, "b": wb, "diffs": diffs, "diff": None if diffs is None else float(diffs.max())}
    return out


def masks_of(src_ids: list[int], tgt_ids: list[int]) -> dict[str, np.ndarray]:
    """The masks our models build (model/blocks.py), as (queries, keys) bool matrices:
    encoder self-attention (padding only), decoder masked self-attention (padding and causal),
    cross-attention (the source's padding)."""
    src, tgt = torch.tensor([src_ids]), torch.tensor([tgt_ids])
    S, T = len(src_ids), len(tgt_ids)
    return {
        "bidirectional": padding_mask(src, PAD).expand(1, 1, S, S)[0, 0].numpy(),
        "causal": (padding_mask(tgt, PAD) & causal_mask(T))[0, 0].numpy(),
        "cross": padding_mask(src, PAD).expand(1, 1, T, S)[0, 0].numpy(),
    }


# -------------------------------------------------------------------------------------------
# Sinusoidal encoding, RoPE and ALiBi on their own
# -------------------------------------------------------------------------------------------


def pe_table(d_model: int, length: int) -> np.ndarray:
    """The tutorial's table as (length, d_model) numpy; d_model 1 and odd sizes work."""
    return sinusoidal_table(int(d_model), int(length)).numpy()


def frequencies(d_model: int) -> np.ndarray:
    """ω_i = 1 / 10000^(2i/d_model), one per sin/cos pair (and one for an odd d_model's last sin)."""
    return np.exp(np.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))


def rotation_matrix(d_model: int, k: int) -> np.ndarray:
    """M(k): a 2x2 rotation by k·ω_i on each (sin, cos) pair, so PE(p + k) = M(k) PE(p) for
    every p. An odd d_model's last dimension has no cos partner: its row is left 0."""
    m = np.zeros((d_model, d_model))
    for i, w in enumerate(frequencies(d_model)[: d_model // 2]):
        c, s = math.cos(k * w), math.sin(k * w)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return m


def rotation_check(d_model: int, p: int, k: int) -> dict:
    """PE(p), PE(p + k) and M(k)·PE(p) in float64 (the formula, not the float32 buffer), and the
    largest difference over the paired dimensions."""
    w = frequencies(d_model)

    def pe(pos):
        v = np.zeros(d_model)
        v[0::2] = np.sin(pos * w)
        v[1::2] = np.cos(pos * w[: d_model // 2])
        return v

    pe_p, pe_pk = pe(p), pe(p + k)
    predicted = rotation_matrix(d_model, k) @ pe_p
    paired = 2 * (d_model // 2)
    err = float(np.abs(predicted[:paired] - pe_pk[:paired]).max()) if paired else 0.0
    return {
        "pe_p": pe_p,
        "pe_pk": pe_pk,
        "predicted": predicted,
        "max_error": err,
        "paired": paired,
        "matrix": rotation_matrix(d_model, k),
    }


def dot_products(rows: np.ndarray) -> np.ndarray:
    """(n, n) float64 dot products between the rows of a (n, d) matrix: PE(p)·PE(q) for a table."""
    x = np.asarray(rows, dtype=np.float64)
    return x @ x.T


def cosine_similarity(rows: np.ndarray) -> np.ndarray:
    """(n, n) cosine similarity between the rows of a (n, d) matrix."""
    x = np.asarray(rows, dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    x = x / np.where(norms > 0, norms, 1.0)
    return x @ x.T


def learned_positions(runner) -> np.ndarray | None:
    """(max_seq_len, d_model) trained position vectors of a GPT with learned positions."""
    if not runner.has_tutorial_code or runner.config.positional != "learned":
        return None

    def fn(module, dev):
        table = getattr(module.position, "table", None)
        return None if table is None else table.pe[0].detach().float().cpu().numpy()

    return runner.run(fn)


def rope_scores(d_head: int, offsets, starts=(0,), seed: int = 0, length: int | None = None) -> np.ndarray:
    """(len(starts), len(offsets)): q·k after RoPE, with the same vector as q at position s and as
    k at s + offset. Equal rows: the score sees the offset only."""
    offsets = np.asarray(offsets, dtype=int)
    length = length or int(max(starts) + offsets.max() + 1)
    rope = RotaryEmbedding(d_head, length)
    v = torch.randn(d_head, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    rotated = rope(v.expand(length, d_head).float().unsqueeze(0)).double()[0]  # (length, d_head)
    return np.array([[float(rotated[s] @ rotated[s + o]) for o in offsets] for s in starts])


def alibi(num_heads: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """ALiBi's (heads, n, n) bias -m_h·|i - j| and its slopes m_h."""
    return alibi_bias(num_heads, n, n).numpy(), alibi_slopes(num_heads).numpy()


# -------------------------------------------------------------------------------------------
# Longer than trained on: loss per position
# -------------------------------------------------------------------------------------------


def long_pieces(tokenizer, lang: str = "en", n_tokens: int = 120, seed: int = 0) -> list[str]:
    """Held-out corpus items, stories first, in one language, whose token count adds up to about
    n_tokens (never more): read one after another they make one long text."""
    pieces, total = [], 0
    pairs = corpus.heldout_pairs(400, seed)
    for p in sorted(pairs, key=lambda p: p.kind != "story"):
        text = p.en if lang == "en" else p.zh
        n = len(tokenizer.encode(text))
        if total + n > n_tokens:
            continue
        pieces.append(text)
        total += n
        if total >= n_tokens - 3:
            break
    return pieces


def token_losses(runner, rows: list[list[int]]) -> list[np.ndarray]:
    """For each id sequence, -log p(ids[i] | ids[:i]) in nats for i = 1 .. len-1, all rows in one
    batch (right padding: a causal model's earlier positions never see it)."""
    rows = [r[: runner.config.max_seq_len] for r in rows]
    width = max(len(r) for r in rows)

    def fn(m, dev):
        batch = torch.zeros((len(rows), width), dtype=torch.long, device=dev)
        for i, r in enumerate(rows):
            batch[i, : len(r)] = torch.tensor(r, device=dev)
        logits, _ = m(batch)
        logp = torch.log_softmax(logits[:, :-1].float(), -1)
        nll = -logp.gather(2, batch[:, 1:].unsqueeze(-1))[..., 0]
        return nll.cpu().numpy()

    nll = runner.run(fn)
    return [nll[i, : len(r) - 1] for i, r in enumerate(rows)]


def long_sequence_loss(runner, pieces: list[str]) -> dict:
    """Per-token loss of the pieces read as one long sequence after one <s>, and of the same
    tokens with each piece read alone after its own <s> (the lengths the model was trained on).

    Returns {"position": (N,) position of each predicted token (1 = the first after <s>),
    "long": (N,), "alone": (N,), "first": (N,) True for each piece's first token (what comes
    next after a finished story is anyone's guess), "tokens": labels}."""
    tok = runner.tokenizer
    chunks = [c for c in (tok.encode(p) for p in pieces) if c]
    ids = ([BOS] + [i for c in chunks for i in c])[: runner.config.max_seq_len]
    n = len(ids) - 1
    if n < 1:
        empty = np.zeros(0)
        return {"position": empty.astype(int), "long": empty, "alone": empty, "first": empty.astype(bool), "tokens": []}
    losses = token_losses(runner, [ids] + [[BOS] + c for c in chunks])
    first = np.zeros(n, bool)
    first[np.cumsum([0] + [len(c) for c in chunks[:-1]])[np.cumsum([0] + [len(c) for c in chunks[:-1]]) < n]] = True
    return {
        "position": np.arange(1, n + 1),
        "long": losses[0],
        "alone": np.concatenate(losses[1:])[:n],
        "first": first,
        "tokens": tok.labels(ids[1:]),
    }


def bucket_means(position: np.ndarray, values: np.ndarray, edges) -> np.ndarray:
    """Mean of values whose position p satisfies edges[i] < p <= edges[i+1]; NaN where empty."""
    position, values = np.asarray(position), np.asarray(values, dtype=np.float64)
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (position > lo) & (position <= hi)
        out.append(values[sel].mean() if sel.any() else np.nan)
    return np.array(out)


def length_buckets(
    runner, lang: str = "en", edges=(0, 20, 40, 60, 80, 100, 127), n_texts: int = 4, n_tokens: int = 126
) -> dict:
    """Mean loss per position bucket over n_texts long texts (held-out stories read one after
    another), each piece's first token left out; beside it the same tokens read alone.
    Returns {"long": (buckets,), "alone": (buckets,), "pieces": the first text's pieces}."""
    longs, alones, first_pieces = [], [], None
    for seed in range(n_texts):
        pieces = long_pieces(runner.tokenizer, lang, n_tokens, seed)
        first_pieces = pieces if first_pieces is None else first_pieces
        r = long_sequence_loss(runner, pieces)
        keep = ~r["first"]
        longs.append(bucket_means(r["position"][keep], r["long"][keep], edges))
        alones.append(bucket_means(r["position"][keep], r["alone"][keep], edges))
    with np.errstate(all="ignore"):
        return {"long": np.nanmean(longs, axis=0), "alone": np.nanmean(alones, axis=0), "pieces": first_pieces or []}
