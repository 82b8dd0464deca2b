"""Loading models once per process and traces once per input, shared by every session.

Models: st.cache_resource (loaded and put in eval mode once, never mutated after).
Traces: bytes_cache, keyed by strings and numbers and bounded in bytes as well as in entries
(st.cache_data bounds entries only: 220 distinct 256-token texts on MiniLM, about 19 MB of
attention each, took one server 710 -> 4,461 MB), so a class typing hundreds of sentences, or one
visitor sending long ones, cannot grow the server past TRACE_CACHE_MB.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import io
import os
import pickle
import threading

import streamlit as st
import torch

import model
from model import hf
from model.errors import InputError

from . import memory, slots

# One intra-op thread per forward: the models are tiny, and a server's sessions already run in
# parallel threads. With torch's default (all cores) each translation took 2-23 s on a busy
# 2-core machine against 0.13-0.15 s with one (bench/, docs/hosting.md).
torch.set_num_threads(int(os.environ.get("ATTN_TORCH_THREADS", "1")))
# what the caches do not bound (a closed tab's last run, uncollected cycles, the allocator's free
# pages) kept in check as well, once per process (ui/memory.py)
memory.install()

TRACE_CACHE_ENTRIES = 200
TRACE_CACHE_MB = float(os.environ.get("ATTN_TRACE_CACHE_MB", "256"))  # every BytesCache together
# each BytesCache's part of TRACE_CACHE_MB: the sidebar's traces, the intervene and compare pages'
# runs, the lessons' built steps (heatmaps and rows); CACHES lists them, and the test checks the sum
SHARES = {"trace": 0.65, "intervene": 0.25, "lessons": 0.10}
CACHES: dict = {}  # share name -> its BytesCache (shared() fills it)


class _TooLarge(Exception):
    pass


class _CappedBuffer(io.BytesIO):
    def __init__(self, cap: int):
        super().__init__()
        self.cap = cap

    def write(self, b) -> int:
        if self.tell() + memoryview(b).nbytes > self.cap:
            raise _TooLarge
        return super().write(b)


def capped_pickle(value, cap: int) -> bytes | None:
    """pickle.dumps(value), or None as soon as it passes cap bytes: a value too large to keep is
    never pickled whole (one SmolLM2 trace of a 1,100-character text is 85 MB, pickled for
    nothing on every intervene run before)."""
    buf = _CappedBuffer(cap)
    try:
        pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    except _TooLarge:
        return None
    return buf.getvalue()


class BytesCache:
    """A least-recently-used cache of pickled values, bounded in entries and in bytes, shared by
    every session of the process. A hit unpickles a fresh copy (as st.cache_data does), so no
    caller can change what another one gets; a value larger than the whole bound is not kept.
    Out of reach of Streamlit's clear_cache message (ui/hardening.py refuses it anyway)."""

    def __init__(self, max_bytes: float, max_entries: int):
        self.max_bytes, self.max_entries = int(max_bytes), int(max_entries)
        self._items: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0

    def get(self, key):
        with self._lock:
            blob = self._items.get(key)
            if blob is None:
                return None
            self._items.move_to_end(key)
        return pickle.loads(blob)

    def put(self, key, value) -> None:
        blob = capped_pickle(value, self.max_bytes)
        if blob is None:
            return
        with self._lock:
            old = self._items.pop(key, None)
            self.bytes -= len(old) if old is not None else 0
            self._items[key] = blob
            self.bytes += len(blob)
            while self._items and (self.bytes > self.max_bytes or len(self._items) > self.max_entries):
                _, dropped = self._items.popitem(last=False)
                self.bytes -= len(dropped)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.bytes = 0


def bytes_cache(max_bytes: float, max_entries: int):
    """A function's results kept in a BytesCache keyed by its arguments (strings, numbers, tuples,
    named tuples: hashable, as st.cache_data's keys are); fn.clear() empties it, fn.store is it."""

    def wrap(fn):
        store = BytesCache(max_bytes, max_entries)

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items())))
            hit = store.get(key)
            if hit is not None:
                return hit
            value = fn(*args, **kwargs)
            store.put(key, value)
            return value

        cached.clear = store.clear
        cached.store = store
        return cached

    return wrap


def shared(name: str, max_entries: int):
    """bytes_cache with SHARES[name] of TRACE_CACHE_MB: every cache of traces, figures or built steps
    of any model takes its part of the one stated bound (docs/hosting.md), whatever the model's size."""

    def wrap(fn):
        cached = bytes_cache(TRACE_CACHE_MB * 2**20 * SHARES[name], max_entries)(fn)
        CACHES[name] = cached.store
        return cached

    return wrap


def runner(name: str, device: str = "auto"):
    """A shipped model (cached below), or a Hugging Face model "hf:NAME" a visitor chose: only a
    name the operator offers, from model/hf/'s own cache, bounded in models, bytes and idle time."""
    if hf.is_hf(name):
        r = hf.load_served(name, device=device)
        claims_of(r)  # at load: what the pages may say about a model this project did not train
        return r
    if hf.pretrained.is_packaged(name):  # SmolLM2: once per process (model/hf/pretrained.py), if offered
        if name not in hf.pretrained_offered():
            raise InputError("hf_refused", hf.REFUSED)
        return hf.pretrained.load(name, device=device)
    return _shipped(name, device)


def real(name: str) -> bool:
    """A real pretrained model (the packaged SmolLM2, or a Hugging Face model "hf:NAME"): its
    forward pass costs tens to hundreds of times our models' (bench/smollm.py), so its uncached
    traces run in the heavy lane, charged to the session's CPU budget (ui/slots.py): a visitor
    with ten tabs of long sentences on SmolLM2 waits behind the heavy lane, the class does not."""
    return hf.is_hf(name) or hf.pretrained.is_packaged(name)


def lane(name: str):
    """The heavy lane for a real model's computation (see real()), none for our small models."""
    return slots.heavy() if real(name) else contextlib.nullcontext()


def pretrained_ready(name: str, device: str = "auto"):
    """A real pretrained model's runner when it is loaded, else None after starting its load in a
    thread (the page says it is loading and looks again): its first load in a process takes
    seconds (from the safetensors cache) to a minute or two (dequantizing), and no run slot or
    other visitor waits for it."""
    if name not in hf.pretrained_offered():
        raise InputError("hf_refused", hf.REFUSED)
    runner = hf.pretrained.ready(name, device)
    if runner is None:
        hf.pretrained.start(name, device, after=lambda r: measured_claims(r.name, device))
    return runner


def measured_claims(name: str, device: str = "auto") -> dict:
    """{check: Claim} of analysis/claims.py's checks that apply, measured once per process on a
    real pretrained model (in its loading thread: the sink, a previous-token head, an induction
    head with the first token aside, "it" -> "animal", how far back its layers read), so what a page
    says about it is computed on it."""
    return claims_of(runner(name, device))


_CLAIMS: dict = {}  # id(runner) -> (runner, {check: Claim}); the runner is kept so its id is not reused
_CLAIMS_LOCK = threading.Lock()


def claims_of(r) -> dict:
    """The claims registry's verdicts on a loaded model (analysis.claims.at_load: the general checks,
    the sink on every kind among them, through its own traces), computed once per loaded runner. The
    shipped models' are run by the tests (tests/test_marks.py); a Hugging Face model's here."""
    from analysis import claims

    from . import claims_store

    hit = _CLAIMS.get(id(r))
    if hit is not None and hit[0] is r:
        return hit[1]
    # a packaged model's (SmolLM2, Gemma): measured once per conversion, device and code, kept on disk
    found = claims_store.load(r.name, r.device)
    if found is None:
        found = claims.at_load(r)
        claims_store.save(r.name, r.device, found)
    with _CLAIMS_LOCK:
        if len(_CLAIMS) >= 8:  # a few models at once; SERVED bounds the models themselves
            _CLAIMS.pop(next(iter(_CLAIMS)))
        _CLAIMS[id(r)] = (r, found)
    return found


@st.cache_resource(show_spinner=False, max_entries=16)
def _shipped(name: str, device: str = "auto"):
    return model.load(name, device=device)


@shared("trace", TRACE_CACHE_ENTRIES)
def trace(
    name: str,
    device: str,
    text: str,
    temperature: float = 1.0,
    temperature_layer: int | None = None,
    use_position: bool = True,
    direction: str | None = None,
    ablate: tuple = (),
    how: str = "zero",
):
    """ablate: heads switched off, (kind, layer, head) from 0, in `how` (the attention view's knobs)."""
    with lane(name):  # a real model's uncached trace: the heavy lane (a cache hit never waits)
        return runner(name, device).trace(
            text,
            direction=direction,
            temperature=temperature,
            temperature_layer=temperature_layer,
            use_position=use_position,
            **({"ablate": [tuple(h) for h in ablate], "how": how} if ablate else {}),
        )
