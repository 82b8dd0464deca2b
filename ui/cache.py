"""Loading models once per process and traces once per input, shared by every session.

Models: st.cache_resource (loaded and put in eval mode once, never mutated after).
Traces: st.cache_data keyed by strings and numbers, bounded by max_entries so a class typing
hundreds of sentences cannot grow the server without limit.
"""

from __future__ import annotations

import os

import streamlit as st
import torch

import model
from model import hf

# One intra-op thread per forward: the models are tiny, and a server's sessions already run in
# parallel threads. With torch's default (all cores) each translation took 2-23 s on a busy
# 2-core machine against 0.13-0.15 s with one (bench/, docs/hosting.md).
torch.set_num_threads(int(os.environ.get("ATTN_TORCH_THREADS", "1")))

TRACE_CACHE_ENTRIES = 200


def runner(name: str, device: str = "auto"):
    """A shipped model (cached below), or a Hugging Face model "hf:NAME" a visitor chose: only a
    name the operator offers, from model/hf/'s own cache, bounded in models, bytes and idle time."""
    if hf.is_hf(name):
        return hf.load_served(name, device=device)
    return _shipped(name, device)


@st.cache_resource(show_spinner=False, max_entries=16)
def _shipped(name: str, device: str = "auto"):
    return model.load(name, device=device)


@st.cache_data(show_spinner=False, max_entries=TRACE_CACHE_ENTRIES)
def trace(
    name: str,
    device: str,
    text: str,
    temperature: float = 1.0,
    temperature_layer: int | None = None,
    use_position: bool = True,
    direction: str | None = None,
):
    return runner(name, device).trace(
        text,
        direction=direction,
        temperature=temperature,
        temperature_layer=temperature_layer,
        use_position=use_position,
    )
