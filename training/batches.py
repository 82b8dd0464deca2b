"""Batches for training and for measuring a model during training: padding, the model inputs of a
batch, and its mean next-token loss."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from model.tokenizer import PAD


def pad(rows, width=None):
    width = width or max(len(r) for r in rows)
    out = torch.full((len(rows), width), PAD, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(r)
    return out


def batch_loss(model, arch, batch, label_smoothing=0.0) -> torch.Tensor:
    """Mean next-token cross-entropy of a batch (teacher forcing for the translator)."""
    if arch == "transformer":
        src, tgt = pad([b[0] for b in batch]), pad([b[1] for b in batch])
        logits, _ = model(src, tgt[:, :-1])
        target = tgt[:, 1:]
    else:
        ids = pad(batch)
        logits, _ = model(ids[:, :-1])
        target = ids[:, 1:]
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=PAD, label_smoothing=label_smoothing
    )


def inputs(arch, batch):
    """Model inputs for a batch (what the snapshot check runs the model on)."""
    if arch == "transformer":
        tgt = pad([b[1] for b in batch])
        return (pad([b[0] for b in batch]), tgt[:, :-1])
    return (pad(batch)[:, :-1],)
