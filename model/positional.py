"""Ways to tell a Transformer where each token is.

Attention by itself is blind to order: permute the tokens and the weights permute with them, so
"狗咬人" and "人咬狗" would look alike. Four remedies, each selectable when a model is built:

- "sinusoidal": the original paper's fixed table, added to the embeddings (the tutorial's code);
- "learned":    one trained vector per position, added to the embeddings (GPT-2);
- "rope":       rotary embedding, rotates q and k inside attention by an angle per position (LLaMA);
- "alibi":      no embedding at all; a per-head linear penalty on distance added to the scores;
- "none":       nothing, for the word-order demonstration.
"""

import math

import torch
import torch.nn as nn

SCHEMES = ("sinusoidal", "learned", "rope", "alibi", "none")


class PositionalEncoding(nn.Module):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))"""

    def __init__(self, d_model, max_seq_len=5000):
        super().__init__()
        pe = torch.zeros(max_seq_len, d_model)
        position = torch.arange(0, max_seq_len, dtype=torch.float).unsqueeze(1)
        # the frequencies 1 / 10000^(2i/d_model), computed in log space
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])  # odd d_model: one cos fewer
        pe = pe.unsqueeze(0)  # (1, max_seq_len, d_model)
        # a buffer: moved with the model (.to(device)), never trained, and not saved in the weights file
        # (persistent=False): it is recomputed from the formula on load
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x, offset=0):
        """x: (batch, seq_len, d_model), at positions offset .. offset+seq_len-1."""
        return x + self.pe[:, offset : offset + x.size(1), :]


class LearnedPositionalEmbedding(nn.Module):
    """One trained vector per position, as GPT-2 has; cannot go past max_seq_len."""

    def __init__(self, d_model, max_seq_len):
        super().__init__()
        self.embedding = nn.Embedding(max_seq_len, d_model)

    @property
    def pe(self):
        return self.embedding.weight.unsqueeze(0)  # (1, max_seq_len, d_model), like the sinusoidal table

    def forward(self, x, offset=0):
        positions = torch.arange(offset, offset + x.size(1), device=x.device)
        return x + self.embedding(positions).unsqueeze(0)


class RotaryEmbedding(nn.Module):
    """RoPE: rotate each pair (x_2i, x_2i+1) of q and k by the angle pos * base^(-2i/d).

    A rotation of q by angle a and of k by angle b leaves q·k depending on b - a only, so the
    score sees relative position and no position vector is ever added to the embeddings.
    """

    def __init__(self, d_head, max_seq_len, base=10000.0):
        super().__init__()
        assert d_head % 2 == 0, "RoPE rotates pairs of dimensions: d_head must be even"
        freqs = base ** (-torch.arange(0, d_head, 2).float() / d_head)  # (d_head/2,)
        angles = torch.arange(max_seq_len).float().unsqueeze(1) * freqs  # (max_seq_len, d_head/2)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, x, offset=0):
        """x: (..., seq_len, d_head), rotated by positions offset .. offset+seq_len-1."""
        T = x.size(-2)
        cos, sin = self.cos[offset : offset + T], self.sin[offset : offset + T]
        x_even, x_odd = x[..., 0::2], x[..., 1::2]
        rotated = torch.stack((x_even * cos - x_odd * sin, x_even * sin + x_odd * cos), dim=-1)
        return rotated.flatten(-2)


def alibi_slopes(num_heads):
    """ALiBi's head slopes m_h = 2^(-8h/n), h = 1..n: a geometric sequence, one per head."""
    h = torch.arange(1, num_heads + 1, dtype=torch.float)
    return 2.0 ** (-8.0 * h / num_heads)


def alibi_bias(num_heads, seq_q, seq_k, device=None):
    """(heads, seq_q, seq_k) with -m_h * |i - j|: farther keys lose score linearly with distance."""
    i = torch.arange(seq_q, device=device) + (seq_k - seq_q)  # queries are the last seq_q
    return alibi_bias_at(num_heads, i, torch.arange(seq_k, device=device))


def alibi_bias_at(num_heads, q_positions, k_positions):
    """(heads, queries, keys) ALiBi bias for queries and keys at the given positions (a KV cache
    keeps keys at their true positions, also after a cache policy dropped some)."""
    distance = (q_positions.view(-1, 1) - k_positions.view(1, -1)).abs().float()
    return -alibi_slopes(num_heads).to(q_positions.device).view(-1, 1, 1) * distance


def sinusoidal_table(d_model, length):
    """The sinusoidal table as a (length, d_model) tensor, for the positional-encoding page."""
    return PositionalEncoding(d_model, length).pe[0]
