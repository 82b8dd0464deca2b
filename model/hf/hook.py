"""How the attention settings reach a Hugging Face model: one attention function registered with
transformers' AttentionInterface that wraps the family's own eager attention and reads this call's
settings from a ContextVar (the model, shared by every session, is never changed).

How the attention settings reach the model (docs/hf.md says more):
- The model is loaded with attn_implementation="eager" (so it returns its attention weights), then
  switched to "attn_explorer", an attention function registered with transformers'
  AttentionInterface that calls the model family's own eager_attention_forward. At temperature 1
  it is that function unchanged (the tests compare with transformers' own output_attentions).
  At temperature T it divides the query (after RoPE) and T5's relative position bias by T, which
  divides every score q.k*scale + bias by T while the additive mask stays -inf: softmax(S / T).
- use_position=False zeroes the positional modules' outputs for this call: learned or sinusoidal
  position embeddings (BERT, GPT-2, Marian), T5's relative attention bias, and RoPE (cos=1,
  sin=0: no rotation). A family with none of these gets a notice, not an error.
Both are per call: they live in a ContextVar (each Streamlit session runs in its own thread), so
the model, shared by every session, is never changed after loading.
"""

from __future__ import annotations

import contextvars
import sys
from dataclasses import dataclass

import torch

from model.config import AttentionSettings
from model.errors import InputError
from model.hf import policy
from model.hf.policy import IMPL, INSTALL


# -- the per-call settings and the attention function ------------------------------------------------
@dataclass
class Call:
    settings: AttentionSettings
    layers: dict  # id(attention module) -> its layer index
    calls: int = 0  # attention calls that went through _attention
    position_hits: int = 0  # positional modules whose output was dropped
    kinds: dict | None = None  # id(attention module) -> "encoder", "decoder" or "cross" (model/intervention.py)
    # layers whose attention inputs to keep (the step page): layer -> {"q", "k", "v", "scaling"}, the
    # query after RoPE and before any temperature, the key and value as the model holds them (a
    # grouped-query model: fewer key/value heads than query heads, before repeat_kv shares them)
    keep: dict | None = None


CALL: contextvars.ContextVar[Call | None] = contextvars.ContextVar("hf_attention_call", default=None)
_EAGER: dict[type, object] = {}


def _eager_of(module):
    """The model family's own eager attention function (its modeling file's eager_attention_forward)."""
    cls = type(module)
    fn = _EAGER.get(cls)
    if fn is None:
        for klass in cls.__mro__:
            fn = getattr(sys.modules.get(klass.__module__), "eager_attention_forward", None)
            if fn is not None:
                break
        if fn is None:
            raise RuntimeError(f"{cls.__name__} has no eager_attention_forward to wrap")
        _EAGER[cls] = fn
    return fn


def _attention(module, query, key, value, attention_mask, *args, **kwargs):
    """The family's eager attention, with the scores divided by this call's temperature."""
    call = CALL.get()
    if call is not None:
        call.calls += 1
        layer = call.layers.get(id(module), -1)
        if call.keep is not None and layer in call.keep:
            call.keep[layer] = {
                "q": query.detach().float().cpu(),
                "k": key.detach().float().cpu(),
                "v": value.detach().float().cpu(),
                "scaling": scaling_of(module, query, args, kwargs),
            }
        t = call.settings.temperature_at(layer)
        if t != 1.0:
            query = query / t  # (q/T).k*scale = (q.k*scale)/T; RoPE already applied
            if kwargs.get("position_bias") is not None:  # T5: the relative bias is part of the score
                kwargs = {**kwargs, "position_bias": kwargs["position_bias"] / t}
    out = _eager_of(module)(module, query, key, value, attention_mask, *args, **kwargs)
    if call is not None and call.settings.intervention is not None:  # heads switched off, a row edited
        op = call.settings.head_op((call.kinds or {}).get(id(module)), call.layers.get(id(module), -1))
        if op is not None:
            from model.intervention import apply_hf

            out = (*apply_hf(op, out[0], out[1], value, attention_mask), *out[2:])
    return out


def scaling_of(module, query, args, kwargs) -> float:
    """The factor the eager function multiplies q.k by: its scaling argument (positional after the
    mask, or by name), else the module's own, else 1/sqrt(d_k)."""
    scaling = kwargs.get("scaling", args[0] if args else None)
    if scaling is None:
        scaling = getattr(module, "scaling", None)
    return float(scaling if scaling is not None else query.shape[-1] ** -0.5)


def drop_position(module, args, output):
    call = CALL.get()
    if call is None or call.settings.use_position:
        return None
    call.position_hits += 1
    if isinstance(output, tuple) and len(output) == 2:  # RoPE's (cos, sin): no rotation
        cos, sin = output
        return torch.ones_like(cos), torch.zeros_like(sin)
    if isinstance(output, torch.Tensor):
        return torch.zeros_like(output)
    return None


def attention_kind(name: str, family: str) -> str:
    """Which of our attention kinds a module is, from its name (T5's EncDecAttention, BART's encoder_attn)."""
    if family != "translator":
        return "decoder" if family == "gpt" else "encoder"
    low = name.lower()
    if any(w in low for w in ("encdecattention", "encoder_attn", "crossattention", "cross_attn")):
        return "cross"
    return "decoder" if "decoder" in low else "encoder"


def layer_index(name: str) -> int | None:
    for part in name.split("."):
        if part.isdigit():
            return int(part)
    return None


def require_transformers():
    if policy.mode() == "0":
        raise InputError("hf_off", "Hugging Face models are turned off on this server (ATTN_HF=0)")
    if not policy.installed():
        raise InputError("hf_no_transformers", f"Hugging Face models need the transformers package: {INSTALL}")
    import transformers
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, AttentionMaskInterface
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    if IMPL not in ALL_ATTENTION_FUNCTIONS.valid_keys():  # the registry's public view of its names
        AttentionInterface.register(IMPL, _attention)
        AttentionMaskInterface.register(IMPL, ALL_MASK_ATTENTION_FUNCTIONS["eager"])
    return transformers
