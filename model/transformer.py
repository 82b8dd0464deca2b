"""The encoder-decoder Transformer of "Attention Is All You Need", as the tutorial draws it.

Encoder layer:  x = LayerNorm(x + SelfAttention(x));  x = LayerNorm(x + FFN(x))
Decoder layer:  x = LayerNorm(x + MaskedSelfAttention(x))
                x = LayerNorm(x + CrossAttention(x, encoder output as K and V))
                x = LayerNorm(x + FFN(x))
Every forward returns the attention weights of every layer beside its result.
"""

import math

import torch
import torch.nn as nn

from model.attention import MultiHeadAttention
from model.blocks import FeedForward, Position, causal_mask, padding_mask, run_stack
from model.config import AttentionSettings, ModelConfig

DEFAULT = AttentionSettings()


class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask, temperature=1.0, extras=None, record=None, op=None):
        attn_rec = {} if record is not None else None
        a, weights = self.self_attn(x, x, x, mask, temperature, record=attn_rec, op=op, **(extras or {}))
        h = self.norm1(x + self.dropout(a))  # Add & Norm
        f = self.ffn(h)
        out = self.norm2(h + self.dropout(f))  # Add & Norm
        if record is not None:
            record.update(x=x, self_attn=attn_rec, after_attn=h, ffn=f, out=out)
        return out, weights


class DecoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads)
        self.cross_attn = MultiHeadAttention(d_model, num_heads)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(
        self, x, memory, self_mask, memory_mask, temperature=1.0, extras=None, record=None, self_op=None, cross_op=None
    ):
        self_rec = {} if record is not None else None
        cross_rec = {} if record is not None else None
        a, self_weights = self.self_attn(x, x, x, self_mask, temperature, record=self_rec, op=self_op, **(extras or {}))
        h = self.norm1(x + self.dropout(a))
        # cross-attention: queries from the decoder, keys and values from the encoder's output
        c, cross_weights = self.cross_attn(h, memory, memory, memory_mask, temperature, record=cross_rec, op=cross_op)
        h2 = self.norm2(h + self.dropout(c))
        f = self.ffn(h2)
        out = self.norm3(h2 + self.dropout(f))
        if record is not None:
            record.update(x=x, self_attn=self_rec, after_attn=h, cross_attn=cross_rec, after_cross=h2, ffn=f, out=out)
        return out, self_weights, cross_weights


class Transformer(nn.Module):
    def __init__(self, config: ModelConfig, pad_id=0):
        super().__init__()
        c = self.config = config
        self.pad_id = pad_id
        # one vocabulary for both languages, so source and target share the embedding table
        self.embedding = nn.Embedding(c.vocab_size, c.d_model, padding_idx=pad_id)
        self.position = Position(c.positional, c.d_model, c.num_heads, c.max_seq_len)
        self.encoder_layers = nn.ModuleList(
            EncoderLayer(c.d_model, c.num_heads, c.d_ff, c.dropout) for _ in range(c.num_layers)
        )
        self.decoder_layers = nn.ModuleList(
            DecoderLayer(c.d_model, c.num_heads, c.d_ff, c.dropout) for _ in range(c.num_layers)
        )
        self.dropout = nn.Dropout(c.dropout)
        self.generator = nn.Linear(c.d_model, c.vocab_size)  # the final "线性层 + Softmax"
        # The paper shares its embeddings with the output layer, so their scale is d_model^-0.5; this
        # translator does not share them (self.generator is its own layer) but keeps that scale:
        # multiplied by sqrt(d_model) below, each coordinate then has std 1, next to the positional
        # encoding's values in [-1, 1]. PyTorch's default N(0, 1) would make each row 16x longer
        # than the encoding's (norm d_model = 128 against sqrt(d_model / 2) = 8) and the first
        # layer's scores so large that softmax saturates (one-hot rows).
        nn.init.normal_(self.embedding.weight, mean=0.0, std=c.d_model**-0.5)
        with torch.no_grad():
            self.embedding.weight[pad_id].zero_()

    def embed(self, ids, settings):
        # scaled by sqrt(d_model) as in the paper (section 3.4), which undoes the d_model^-0.5 init
        x = self.embedding(ids) * math.sqrt(self.config.d_model)
        return self.dropout(self.position.add_to_embeddings(x, settings.use_position))

    def encode(self, src, settings=DEFAULT, record=None):
        """src (B, S) -> (memory (B, S, d_model), source mask (B,1,1,S), weights (N, B, h, S, S))."""
        src_mask = padding_mask(src, self.pad_id)
        x = self.embed(src, settings)
        if record is not None:
            record.update(encoder_ids=src, encoder_input=x)
        extras = self.position.attention_extras(src.size(1), src.size(1), src.device, settings.use_position)
        x, weights = run_stack(self.encoder_layers, x, src_mask, "encoder", settings, extras, record)
        return x, src_mask, weights

    def decode(self, tgt, memory, src_mask, settings=DEFAULT, record=None):
        """tgt (B, T) -> (logits (B, T, vocab), self weights (N,B,h,T,T), cross weights (N,B,h,T,S))."""
        T = tgt.size(1)
        tgt_mask = padding_mask(tgt, self.pad_id) & causal_mask(T, tgt.device)
        x = self.embed(tgt, settings)
        if record is not None:
            record.update(decoder_ids=tgt, decoder_input=x)
        extras = self.position.attention_extras(T, T, tgt.device, settings.use_position)
        self_ws, cross_ws = [], []
        for i, layer in enumerate(self.decoder_layers):
            rec = {} if record is not None else None
            x, sw, cw = layer(
                x,
                memory,
                tgt_mask,
                src_mask,
                settings.temperature_at(i),
                extras,
                rec,
                settings.head_op("decoder", i),
                settings.head_op("cross", i),
            )
            self_ws.append(sw)
            cross_ws.append(cw)
            if record is not None:
                record.setdefault("decoder", []).append(rec)
        return self.generator(x), torch.stack(self_ws), torch.stack(cross_ws)

    def forward(self, src, tgt, settings=DEFAULT, record=None):
        memory, src_mask, enc_w = self.encode(src, settings, record)
        logits, dec_w, cross_w = self.decode(tgt, memory, src_mask, settings, record)
        return logits, {"encoder": enc_w, "decoder": dec_w, "cross": cross_w}

    @torch.no_grad()
    def greedy_decode(self, src, start_ids, eos_id, max_len, settings=DEFAULT):
        """Translate a batch: start from each row's direction token, take the most likely next token
        until every row has produced eos_id or max_len tokens. Returns (B, T) ids, start token first."""
        memory, src_mask, _ = self.encode(src, settings)
        out = start_ids.view(-1, 1)
        done = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
        for _ in range(max_len - 1):
            logits, _, _ = self.decode(out, memory, src_mask, settings)
            nxt = logits[:, -1].argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, self.pad_id), nxt)
            out = torch.cat([out, nxt.unsqueeze(1)], dim=1)
            done |= nxt == eos_id
            if done.all():
                break
        return out
