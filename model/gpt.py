"""A decoder-only GPT: masked self-attention blocks and a next-token head, nothing else.

Each block: x = x + MaskedSelfAttention(LayerNorm(x));  x = x + FFN(LayerNorm(x)).
The LayerNorm comes *before* each sub-layer (GPT-2's choice, which trains more stably than the
original "Add & Norm" after it); the attention is the tutorial's MultiHeadAttention with a causal
mask, so token i can only read tokens 0..i.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from model.attention import MultiHeadAttention
from model.blocks import FeedForward, Position, causal_mask, position_mask, run_stack, sliding_window_mask
from model.config import AttentionSettings, ModelConfig

DEFAULT = AttentionSettings()


class Block(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads)
        self.norm2 = nn.LayerNorm(d_model)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask, temperature=1.0, extras=None, record=None, op=None, cache=None):
        attn_rec = {} if record is not None else None
        n = self.norm1(x)
        a, weights = self.attn(n, n, n, mask, temperature, record=attn_rec, op=op, cache=cache, **(extras or {}))
        h = x + self.dropout(a)
        f = self.ffn(self.norm2(h))
        out = h + self.dropout(f)
        if record is not None:
            record.update(x=x, normed=n, self_attn=attn_rec, after_attn=h, ffn=f, out=out)
        return out, weights


class GPT(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        c = self.config = config
        self.embedding = nn.Embedding(c.vocab_size, c.d_model)
        self.position = Position(c.positional, c.d_model, c.num_heads, c.max_seq_len)
        self.blocks = nn.ModuleList(Block(c.d_model, c.num_heads, c.d_ff, c.dropout) for _ in range(c.num_layers))
        self.norm = nn.LayerNorm(c.d_model)
        self.dropout = nn.Dropout(c.dropout)
        self.lm_head = nn.Linear(c.d_model, c.vocab_size, bias=False)
        self.lm_head.weight = self.embedding.weight  # weight tying, as GPT-2 does
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        # GPT-2's small normal init: with tied weights, PyTorch's default N(0, 1) embedding would
        # start the logits with a spread of sqrt(d_model) and the loss far above ln(vocab)
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, ids, settings=DEFAULT, record=None, cache=None, last_only=False):
        """ids (B, T) -> (logits (B, T, vocab), {"decoder": weights (N, B, h, T, T)}).

        cache: a KVCache holding the tokens read before ids (generation one token at a time): ids
        are read at the positions after them, and the weights cover the cached rows, (N, B, h, T, rows).
        last_only: the logits of the last position only (B, 1, vocab), all a next token needs."""
        T = ids.size(1)
        start = 0 if cache is None else cache.t
        if start + T > self.config.max_seq_len:
            raise ValueError(f"sequence of {start + T} tokens is longer than this model's {self.config.max_seq_len}")
        x = self.embedding(ids)
        x = self.dropout(self.position.add_to_embeddings(x, settings.use_position, offset=start))
        if record is not None:
            record.update(decoder_ids=ids, decoder_input=x)
        if cache is None:
            mask = causal_mask(T, ids.device)
            if self.config.window:  # gpt-local: each token sees only the last `window` positions
                mask = sliding_window_mask(T, self.config.window, ids.device)
            extras = self.position.attention_extras(T, T, ids.device, settings.use_position)
        else:
            queries, keys = cache.begin(T, ids.device)
            mask = position_mask(queries, keys, self.config.window)
            extras = self.position.attention_extras_at(queries, keys, settings.use_position)
        x, weights = run_stack(self.blocks, x, mask, "decoder", settings, extras, record, cache)
        if last_only:
            x = x[:, -1:]
        return self.lm_head(self.norm(x)), {"decoder": weights}


class KVCache:
    """The keys and values every layer has computed for the tokens read so far, so that one more
    token costs one new row of work per layer instead of re-reading the text (the "KV cache" of
    generation). Each row keeps its true position: learned and sinusoidal positions, RoPE's rotation
    and ALiBi's distance stay right. keep(positions) -> indices, if given, decides which rows stay
    (a sliding window, or StreamingLLM's first tokens + a window: analysis/cost/kv_cache.py's CachePolicy);
    it sees the old rows and this call's together."""

    def __init__(self, num_layers: int, keep=None):
        self.k: list = [None] * num_layers  # (B, h, rows, d_k) per layer
        self.v: list = [None] * num_layers
        self.positions: list[int] = []  # the true position of each kept row
        self.t = 0  # tokens read: the next token's position
        self.start = 0  # the first position of the call in progress
        self.keep = keep
        self._kept = None  # this call's kept indices into (old rows + new rows)

    def begin(self, n_new: int, device=None):
        """Before a forward of n_new tokens: choose the rows kept. Returns (query positions, key positions)."""
        self.start = self.t
        new = list(range(self.t, self.t + n_new))
        every = self.positions + new
        self._kept = list(self.keep(every)) if self.keep is not None else list(range(len(every)))
        self.positions = [every[i] for i in self._kept]
        self.t += n_new
        return torch.tensor(new, device=device), torch.tensor(self.positions, device=device)

    def extend(self, layer: int, k, v):
        """Layer `layer`'s keys and values for the call in progress: its kept old rows and the new ones."""
        if self.k[layer] is not None:
            k, v = torch.cat([self.k[layer], k], dim=-2), torch.cat([self.v[layer], v], dim=-2)
        if len(self._kept) != k.size(-2):
            idx = torch.tensor(self._kept, device=k.device)
            k, v = k.index_select(-2, idx), v.index_select(-2, idx)
        self.k[layer], self.v[layer] = k, v
        return k, v

    def rows(self) -> int:
        return len(self.positions)


@dataclass(frozen=True)
class Sampling:
    """The *sampling* temperature, top-k and top-p: they reshape the next-token distribution,
    unlike the attention temperature, which reshapes where each token looks."""

    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None

    def __post_init__(self):
        if not math.isfinite(self.temperature) or self.temperature < 0:
            raise ValueError(f"sampling temperature must be a finite number >= 0, got {self.temperature!r}")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"top-k must be at least 1, got {self.top_k}")
        if self.top_p is not None and not (0 < self.top_p <= 1):
            raise ValueError(f"top-p must be in (0, 1], got {self.top_p}")


def sampling_distribution(logits, sampling: Sampling):
    """logits (vocab,) -> (probabilities after temperature, top-k and top-p; kept mask).

    Temperature 0 means greedy: all the probability on the most likely token."""
    if sampling.temperature == 0:
        probs = torch.zeros_like(logits)
        probs[logits.argmax()] = 1.0
        return probs, probs > 0
    scaled = logits / sampling.temperature
    if not torch.isfinite(scaled).all():  # a temperature so small that logits / T overflow: greedy, its limit
        return sampling_distribution(logits, Sampling(0.0))
    probs = F.softmax(scaled, dim=-1)
    keep = torch.ones_like(probs, dtype=torch.bool)
    order = probs.argsort(descending=True)
    if sampling.top_k is not None:
        keep[order[sampling.top_k :]] = False
    if sampling.top_p is not None:
        # keep the smallest set of most likely tokens whose mass reaches top_p (at least one)
        cumulative = probs[order].cumsum(0)
        outside = (cumulative - probs[order]) >= sampling.top_p
        keep[order[outside]] = False
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return kept / kept.sum(), keep
