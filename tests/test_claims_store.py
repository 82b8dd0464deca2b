"""ui/claims_store.py: a real model's measured claims kept on disk, given back exactly as measured,
measured again when the weights' conversion, the device or the code that measures them changes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from analysis import claims
from analysis.claims import Claim
from ui import cache, claims_store


def same(a, b) -> bool:
    """Equal values of equal types all the way down (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and (a == b or (math.isnan(a) and math.isnan(b)))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) and type(k) is type(j) for k, j in zip(a, b))
    if isinstance(a, Claim):
        return (a.name, a.holds) == (b.name, b.holds) and same(a.numbers, b.numbers) and same(a.heads, b.heads)
    return a == b


def through_disk(v):
    return claims_store.decode(json.loads(json.dumps(claims_store.encode(v))))


def test_every_kind_of_value_comes_back_with_its_type():
    values = [
        np.arange(6, dtype=np.float32).reshape(2, 3) / 7,
        np.array([[1.0, np.nan], [np.inf, -0.0]]),
        np.array([1, 2, 3], dtype=np.int64),
        np.array([True, False]),
        np.float32(1 / 3),
        np.int64(7),
        np.bool_(True),
        (("decoder", 0, 3), ("decoder", 2, 1)),
        {0: "a", "k": [1, 2.5, None], (1, 2): {"x": float("nan")}},
        Claim("sink", True, {"share": np.ones((2, 2), dtype=np.float32), "min": 3.0}, [("decoder", 1, 2)]),
    ]
    for v in values:
        assert same(through_disk(v), v), v
    with pytest.raises(TypeError):
        claims_store.encode(object())  # a value it cannot give back exactly is not kept


def test_a_real_models_claims_are_measured_once_and_read_back_exactly(smollm, tmp_path, monkeypatch):
    measured, original = [], claims.at_load

    def at_load(r):
        measured.append(r.name)
        return original(r)

    monkeypatch.setattr(claims_store, "path_of", lambda name, device: tmp_path / f"{name}-{device.type}.json")
    monkeypatch.setattr(cache, "_CLAIMS", {})  # nothing in this process's memory
    monkeypatch.setattr(claims, "at_load", at_load)
    first = cache.claims_of(smollm)
    assert measured == [smollm.name] and (tmp_path / f"{smollm.name}-cpu.json").is_file()
    assert first and all(isinstance(c, Claim) for c in first.values())
    cache._CLAIMS.clear()  # a new process: nothing in memory
    again = cache.claims_of(smollm)
    assert measured == [smollm.name], "measured again instead of read"
    assert same(again, first)
    assert any(c.heads for c in again.values()) and all(type(h) is tuple for c in again.values() for h in c.heads)


def test_the_key_follows_the_conversion_the_device_and_the_code(monkeypatch):
    from model.hf import pretrained

    name = next(iter(pretrained.MODELS))
    import torch

    here = claims_store.path_of(name, torch.device("cpu"))
    assert here is not None and here.parent == pretrained.cache_dir() / "claims"
    assert claims_store.path_of(name, torch.device("cuda")) != here
    assert claims_store.path_of("gpt", torch.device("cpu")) is None  # our own models: measured by the tests
    stamp = pretrained.stamp(name)
    monkeypatch.setattr(pretrained, "stamp", lambda n: {**stamp, "transformers": "another"})
    assert claims_store.path_of(name, torch.device("cpu")) != here
    monkeypatch.undo()
    monkeypatch.setattr(claims_store, "code_digest", lambda: "another")
    assert claims_store.path_of(name, torch.device("cpu")) != here
