"""What each training snapshot is measured on (training/snapshots.py keeps the figures beside it)."""

from __future__ import annotations

import random

import numpy as np
import torch

from data import corpus
from model.runner import TranslatorRunner
from model.tokenizer import BOS, EOS, TO_EN, TO_ZH
from training.batches import batch_loss, inputs

CHECK_SENTENCES = 40  # held-out sentences the snapshots' storing tolerance is checked on


class Probe:
    """What each snapshot is measured on: fixed training and held-out examples, and for the
    translator 100 held-out pairs per direction translated greedily (exact match)."""

    def __init__(self, name, arch, tok, train_data, seed):
        self.name, self.arch, self.tok = name, arch, tok
        self.train = random.Random(seed + 7).sample(train_data, min(256, len(train_data)))
        if arch == "transformer":
            self.pairs = corpus.heldout_pairs(256, seed=4321)
            self.heldout = [(tok.encode(p.en), [TO_ZH] + tok.encode(p.zh) + [EOS]) for p in self.pairs[:128]]
            self.heldout += [(tok.encode(p.zh), [TO_EN] + tok.encode(p.en) + [EOS]) for p in self.pairs[128:]]
        else:
            self.heldout = [[BOS] + tok.encode(t) + [EOS] for _, t in corpus.gpt_items(256, 4321, split="heldout")]
        check = self.heldout[:CHECK_SENTENCES]
        self.check_batches = [inputs(arch, check[i : i + 20]) for i in range(0, len(check), 20)]

    @torch.no_grad()
    def measure(self, model, step) -> dict:
        was_training = model.training
        model.eval()
        out = {
            "step": step,
            "train_loss": round(float(batch_loss(model, self.arch, self.train)), 4),
            "heldout_loss": round(float(batch_loss(model, self.arch, self.heldout)), 4),
        }
        if self.arch == "transformer":
            runner = TranslatorRunner(self.name, model, self.tok, torch.device("cpu"), trained=True, notices=[])
            pairs = self.pairs[:100]
            for direction, src, ref in (("en-zh", "en", "zh"), ("zh-en", "zh", "en")):
                hyps = runner.translate([getattr(p, src) for p in pairs], direction=direction)
                out[f"exact_match_{direction}"] = round(
                    float(np.mean([h == getattr(p, ref) for h, p in zip(hyps, pairs)])), 3
                )
        model.train(was_training)
        return out
