"""Scaled dot-product attention and multi-head attention, written the way the tutorial writes them.

    Attention(Q, K, V) = softmax(QK^T / sqrt(d_k) / T) V
    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,   head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)

Two additions to the tutorial's code, both needed to *show* attention:
- a temperature T (T > 1 spreads the weights out, T < 1 sharpens them towards one-hot);
- the weights are returned, never kept on the module: one model object is shared by every
  session of the app at once, so state on the module would be a race.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def scaled_dot_product_attention(Q, K, V, mask=None, temperature=1.0, bias=None):
    """
    Q: (..., seq_q, d_k)   K: (..., seq_k, d_k)   V: (..., seq_k, d_v)
    mask: broadcastable to (..., seq_q, seq_k); 0 / False where a query may not look.
    bias: added to the scores before the mask (ALiBi's linear distance penalty).
    Returns (output (..., seq_q, d_v), attention_weights (..., seq_q, seq_k)).
    """
    d_k = Q.size(-1)

    # dot products, scaled so their spread does not grow with d_k
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if bias is not None:
        scores = scores + bias

    # the mask: hidden positions get a score so low that softmax gives them nothing
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)

    # softmax over the keys, at the chosen temperature
    attention_weights = F.softmax(scores / temperature, dim=-1)
    if mask is not None:
        # exp(-1e9) already underflows to 0; this makes "exactly 0" true even for a fully masked row
        attention_weights = attention_weights.masked_fill(mask == 0, 0.0)

    # weighted sum of the values
    output = torch.matmul(attention_weights, V)
    return output, attention_weights


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads

        # the four linear maps W^Q, W^K, W^V, W^O
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        """(batch, seq_len, d_model) -> (batch, heads, seq_len, d_k)"""
        batch_size, seq_len, _ = x.size()
        x = x.view(batch_size, seq_len, self.num_heads, self.d_k)
        return x.permute(0, 2, 1, 3)

    def merge_heads(self, x):
        """(batch, heads, seq_len, d_k) -> (batch, seq_len, d_model): the tutorial's "合并多头"."""
        batch_size = x.size(0)
        x = x.permute(0, 2, 1, 3).contiguous()
        return x.view(batch_size, -1, self.d_model)

    def forward(self, Q, K, V, mask=None, temperature=1.0, rope=None, bias=None, record=None):
        """
        Returns (output (batch, seq_q, d_model), attention_weights (batch, heads, seq_q, seq_k)).
        rope: a RotaryEmbedding that rotates q and k by their positions (None for other schemes).
        record: an optional dict the caller owns; the intermediate tensors of this call are put in
        it (the step-by-step page shows them). Nothing is stored on the module.
        """
        # linear maps, then split into heads
        q = self.split_heads(self.W_q(Q))  # (B, h, Tq, d_k)
        k = self.split_heads(self.W_k(K))  # (B, h, Tk, d_k)
        v = self.split_heads(self.W_v(V))  # (B, h, Tk, d_k)
        if rope is not None:
            q, k = rope(q), rope(k)

        attn_output, attention_weights = scaled_dot_product_attention(q, k, v, mask, temperature, bias)

        # merge the heads, then the output map W^O
        concat = self.merge_heads(attn_output)  # (B, Tq, d_model)
        output = self.W_o(concat)

        if record is not None:
            record.update(q=q, k=k, v=v, weights=attention_weights, head_outputs=attn_output,
                          concat=concat, output=output, mask=mask, bias=bias, temperature=temperature)
        return output, attention_weights
