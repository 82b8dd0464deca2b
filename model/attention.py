"""Scaled dot-product attention and multi-head attention, written the way the tutorial writes them.

    Attention(Q, K, V) = softmax(QK^T / sqrt(d_k) / T) V
    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O,   head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)

Additions to the tutorial's code, needed to *show* attention and to compare positional schemes:
- a temperature T (T > 1 spreads the weights out, T < 1 sharpens them towards one-hot);
- the weights are returned, never kept on the module: one model object is shared by every
  session of the app at once, so state on the module would be a race;
- an optional additive score bias (ALiBi's distance penalty) and a rotation of q and k (RoPE);
- ``record``: q, k, v, the scores softmax is given, the weights, each head's output and their
  concatenation, for the step-by-step page (into a dict the caller owns);
- weights at masked cells are set to exactly 0 after softmax, so a chart can tell them apart;
- for the intervene page, a HeadOp passed down like the temperature switches heads off or
  replaces one query's weights, per call and per batch row (the importance grid batches ablations).
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


def scaled_scores(Q, K, mask=None, bias=None):
    """The scores softmax is given: QK^T / sqrt(d_k) (+ bias), -1e9 where the mask hides a key.
    Q: (..., seq_q, d_k)   K: (..., seq_k, d_k)   -> (..., seq_q, seq_k)
    mask: broadcastable to (..., seq_q, seq_k); 0 / False where a query may not look.
    bias: added to the scores before the mask (ALiBi's linear distance penalty).
    """
    d_k = Q.size(-1)

    # dot products, scaled so their spread does not grow with d_k
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if bias is not None:
        scores = scores + bias

    # the mask: hidden positions get a score so low that softmax gives them nothing
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    return scores


def softmax_at(scores, temperature=1.0, mask=None):
    """softmax(scores / T) over the keys (the last axis): T > 1 spreads the weights out, T < 1
    sharpens them. Where mask is 0 / False the weight is exactly 0, even in a row with no key left.
    The one softmax at a temperature: the model's attention and analysis/experiments.py (the
    temperature page's curves from recorded scores) call it. The Hugging Face hook cannot (the
    family's own eager attention computes its softmax); it divides q by T, which gives the same
    softmax(S / T), and tests/test_hf.py checks its weights against this function."""
    weights = F.softmax(scores / temperature, dim=-1)
    if mask is not None:
        # exp(-1e9) already underflows to 0; this makes "exactly 0" true even for a fully masked row
        weights = weights.masked_fill(mask == 0, 0.0)
    return weights


def scaled_dot_product_attention(Q, K, V, mask=None, temperature=1.0, bias=None):
    """
    Q: (..., seq_q, d_k)   K: (..., seq_k, d_k)   V: (..., seq_k, d_v)
    mask, bias: as scaled_scores takes them.
    Returns (output (..., seq_q, d_v), attention_weights (..., seq_q, seq_k)).
    """
    scores = scaled_scores(Q, K, mask, bias)

    # softmax over the keys, at the chosen temperature
    attention_weights = softmax_at(scores, temperature, mask)

    # weighted sum of the values
    output = torch.matmul(attention_weights, V)
    return output, attention_weights


ABLATIONS = ("zero", "mean", "uniform")


@dataclass(frozen=True, eq=False)
class HeadOp:
    """What to do to some heads of one attention layer, after softmax (analysis/intervene.py builds these).

    ablate: bool (B or 1, heads), True = switch that head off in that batch row:
      "zero"    the head's output (its weighted sum of values) is 0;
      "mean"    its output at position t is replaced by `means[:, t]`: that head's mean output at
                position t over a reference set of held-out sentences (analysis/intervene.py,
                reference_means), so nothing the sentence holds after t reaches t (the usual "mean
                ablation" of the interpretability literature). Without means (a Hugging Face model)
                the mean of its own outputs at positions 0..t, which no later token changes either;
      "uniform" its weights are replaced by the uniform distribution over the keys the mask lets it see.
    edits: ((head, query, weights (seq_k,)), ...): that query row's weights are replaced by the given
      distribution (every batch row), and the output is the weighted sum of the values with them.
    """

    ablate: torch.Tensor | None = None
    how: str = "zero"
    edits: tuple = ()
    means: torch.Tensor | None = None  # (heads, positions, d_v): the reference mean output per position

    def mean_output(self, output):
        """What a "mean"-ablated head outputs, (B, h, Tq, d_v) like output: the reference mean at
        each position (the last reference position's beyond them), else the running mean over 0..t."""
        T = output.size(-2)
        if self.means is None:
            count = torch.arange(1, T + 1, device=output.device, dtype=output.dtype).view(-1, 1)
            return output.cumsum(-2) / count
        ref = self.means.to(device=output.device, dtype=output.dtype)
        if ref.size(1) < T:
            ref = torch.cat([ref, ref[:, -1:].expand(-1, T - ref.size(1), -1)], dim=1)
        return ref[:, :T].unsqueeze(0).expand_as(output)

    def apply(self, output, weights, v, mask=None):
        """output (B, h, Tq, d_v), weights (B, h, Tq, Tk), v (B, h, Tk, d_v) -> (output, weights)."""
        new_w = weights
        if self.edits:
            new_w = weights.clone()
            for head, query, row in self.edits:
                if query < weights.size(-2):  # a decoder that has not written that row yet: nothing to edit
                    r = torch.as_tensor(row, dtype=weights.dtype, device=weights.device)[: weights.size(-1)]
                    r = F.pad(r, (0, weights.size(-1) - r.numel()))  # a row for fewer keys: the caller checks
                    new_w[:, head, query] = r / r.sum().clamp_min(1e-12)
        sel = None
        if self.ablate is not None:
            sel = self.ablate.to(weights.device).view(self.ablate.size(0), -1, 1, 1)
            if self.how == "uniform":
                visible = torch.ones_like(weights) if mask is None else (mask != 0).to(weights.dtype).expand_as(weights)
                new_w = torch.where(sel, visible / visible.sum(-1, keepdim=True).clamp_min(1), new_w)
        if new_w is not weights:
            output = torch.matmul(new_w, v)
        if sel is not None and self.how == "zero":
            output = torch.where(sel, torch.zeros_like(output), output)
        elif sel is not None and self.how == "mean":
            output = torch.where(sel, self.mean_output(output), output)
        return output, new_w


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

    def forward(self, Q, K, V, mask=None, temperature=1.0, rope=None, bias=None, record=None, op=None, cache=None):
        """
        Returns (output (batch, seq_q, d_model), attention_weights (batch, heads, seq_q, seq_k)).
        rope: a RotaryEmbedding that rotates q and k by their positions (None for other schemes).
        record: an optional dict the caller owns; the intermediate tensors of this call are put in
        it (the step-by-step page shows them). Nothing is stored on the module.
        op: an optional HeadOp (switch heads off, edit a row); the weights returned are those used.
        cache: (KVCache, layer index) when generating with a KV cache (model/gpt.py): these queries
        also read the keys and values of earlier tokens, and this call's are kept for later ones.
        """
        # linear maps, then split into heads
        q = self.split_heads(self.W_q(Q))  # (B, h, Tq, d_k)
        k = self.split_heads(self.W_k(K))  # (B, h, Tk, d_k)
        v = self.split_heads(self.W_v(V))  # (B, h, Tk, d_k)
        if rope is not None:  # at the tokens' true positions: after those a cache has read
            offset = 0 if cache is None else cache[0].start
            q, k = rope(q, offset), rope(k, offset)
        if cache is not None:
            k, v = cache[0].extend(cache[1], k, v)

        attn_output, attention_weights = scaled_dot_product_attention(q, k, v, mask, temperature, bias)
        if op is not None:
            attn_output, attention_weights = op.apply(attn_output, attention_weights, v, mask)

        # merge the heads, then the output map W^O
        concat = self.merge_heads(attn_output)  # (B, Tq, d_model)
        output = self.W_o(concat)

        if record is not None:
            record.update(
                q=q,
                k=k,
                v=v,
                scores=scaled_scores(q, k, mask, bias),
                weights=attention_weights,
                head_outputs=attn_output,
                concat=concat,
                output=output,
                mask=mask,
                bias=bias,
                temperature=temperature,
            )
        return output, attention_weights
