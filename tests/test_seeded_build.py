"""An untrained model's weights are seed 0's however many sessions load models at once: the layers'
initial weights are drawn from torch's one global generator, so model/registry.py builds one
model at a time (two threads building at once drew from each other's stream)."""

from __future__ import annotations

import shutil
import threading

import torch

from model import registry


def test_untrained_models_built_in_eight_threads_at_once_are_each_seed_0(tmp_path):
    shutil.copyfile(registry.weights_dir() / "tokenizer.model", tmp_path / "tokenizer.model")  # no weights
    alone = registry._built("gpt", None, tmp_path, random_weights=True)[0]
    assert not registry.paths("gpt", tmp_path)[0].exists()
    want = {k: v.clone() for k, v in alone.state_dict().items()}
    built, go = [None] * 8, threading.Barrier(8)

    def one(i):
        go.wait()
        built[i] = registry._built("gpt", None, tmp_path, random_weights=True)[0]

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for m in built:
        got = m.state_dict()
        assert all(torch.equal(got[k], want[k]) for k in want), "a build drew from another build's stream"
