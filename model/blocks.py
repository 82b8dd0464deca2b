"""The pieces every Transformer layer shares: the feed-forward network, the position plumbing, the
stack of layers and the masks."""

import torch
import torch.nn as nn

from model.positional import (
    SCHEMES,
    LearnedPositionalEmbedding,
    PositionalEncoding,
    RotaryEmbedding,
    alibi_bias,
    alibi_bias_at,
)


class FeedForward(nn.Module):
    """FFN(x) = W_2 ReLU(W_1 x + b_1) + b_2, applied to each position on its own."""

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(torch.relu(self.linear1(x))))


class Position(nn.Module):
    """One positional scheme, and the two places it can act: on the embeddings, or inside attention."""

    def __init__(self, scheme, d_model, num_heads, max_seq_len):
        super().__init__()
        if scheme not in SCHEMES:
            raise ValueError(f"unknown positional scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
        self.scheme, self.num_heads = scheme, num_heads
        self.table = (
            PositionalEncoding(d_model, max_seq_len)
            if scheme == "sinusoidal"
            else LearnedPositionalEmbedding(d_model, max_seq_len)
            if scheme == "learned"
            else None
        )
        self.rope = RotaryEmbedding(d_model // num_heads, max_seq_len) if scheme == "rope" else None

    def add_to_embeddings(self, x, use_position=True, offset=0):
        """x at positions offset .. offset+T-1 (offset: the tokens a KV cache has read before x)."""
        return self.table(x, offset) if (self.table is not None and use_position) else x

    def attention_extras(self, seq_q, seq_k, device, use_position=True):
        """Keyword arguments for MultiHeadAttention: RoPE's rotation or ALiBi's bias, if any."""
        if not use_position:
            return {}
        if self.rope is not None:
            return {"rope": self.rope}
        if self.scheme == "alibi":
            return {"bias": alibi_bias(self.num_heads, seq_q, seq_k, device)}
        return {}

    def attention_extras_at(self, q_positions, k_positions, use_position=True):
        """As attention_extras, for queries and keys at given positions (a KV cache's rows)."""
        if use_position and self.scheme == "alibi":
            return {"bias": alibi_bias_at(self.num_heads, q_positions, k_positions)}
        return self.attention_extras(len(q_positions), len(k_positions), q_positions.device, use_position)


def run_stack(layers, x, mask, kind, settings, extras, record=None, cache=None):
    """x through a stack of N identical self-attention layers, one after the other (the encoder, or
    a GPT's blocks: "由 N 个相同的层堆叠而成"). Layer i runs at settings' temperature and head
    switches for (kind, i). Returns (x, weights (N, B, h, T, T)); with record, each layer's
    record is appended to record[kind]. cache: a KVCache (model/gpt.py) the layers read past keys and
    values from and add theirs to."""
    all_weights = []
    for i, layer in enumerate(layers):
        rec = {} if record is not None else None
        past = {} if cache is None else {"cache": (cache, i)}
        x, w = layer(x, mask, settings.temperature_at(i), extras, rec, settings.head_op(kind, i), **past)
        all_weights.append(w)
        if record is not None:
            record.setdefault(kind, []).append(rec)
    return x, torch.stack(all_weights)


def causal_mask(seq_len, device=None):
    """(1, 1, T, T) lower triangle: position i may look at positions 0..i, never ahead."""
    return torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device)).view(1, 1, seq_len, seq_len)


def sliding_window_mask(seq_len, window, device=None):
    """(1, 1, T, T) causal band: position i may look at positions i-window+1..i (window 0 = all of 0..i)."""
    mask = causal_mask(seq_len, device)
    if window:
        mask = mask & ~torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device), diagonal=-window)
    return mask


def position_mask(q_positions, k_positions, window=0):
    """(1, 1, queries, keys): a query sees the keys at its position or before (and within `window`
    of it, if window): the causal mask for rows at any positions, as a KV cache keeps them."""
    q, k = q_positions.view(-1, 1), k_positions.view(1, -1)
    mask = k <= q
    if window:
        mask = mask & (k > q - window)
    return mask.view(1, 1, *mask.shape)


def padding_mask(ids, pad_id):
    """(B, 1, 1, T): keys that are padding are hidden from every query."""
    return (ids != pad_id).unsqueeze(1).unsqueeze(2)
