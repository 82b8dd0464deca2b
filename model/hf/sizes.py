"""What a Hugging Face model is, before and after loading: the config-like summary the pages read,
its family and positional scheme, and its size estimated from the config (a server refuses a model
larger than ATTN_HF_MAX_PARAMS before downloading or allocating it)."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from model.errors import InputError
from model.hf.policy import POSITION_SUFFIXES, ROTARY_SUFFIXES, env_number


# -- the config-like summary -------------------------------------------------------------------------
@dataclass
class HFConfig:
    """What pages read from runner.config, filled from the Hugging Face config."""

    arch: str  # "transformer" (encoder-decoder), "gpt" (decoder-only), "encoder"
    model_type: str
    vocab_size: int
    d_model: int
    num_heads: int
    num_layers: int  # per stack; the smaller one if the stacks differ (a notice says so)
    d_ff: int
    max_seq_len: int
    positional: str  # "learned", "sinusoidal", "rope", "relative" or "unknown"
    num_parameters: int = 0
    dropout: float = 0.0
    # grouped-query attention (LLaMA 2 70B, Mistral, SmolLM2): the key/value heads, each read by
    # num_heads // num_kv_heads query heads; equal to num_heads in ordinary multi-head attention
    num_kv_heads: int = 0
    # local (sliding-window) and global attention layers (Gemma 3: 15 of 18 see the last
    # sliding_window tokens only), one entry a layer, from the config's layer_types; () where every
    # layer attends globally
    layer_types: tuple[str, ...] = ()
    sliding_window: int = 0

    def kv_head(self, head: int) -> int:
        """The key/value head that query head `head` (0-based) reads."""
        kv = self.num_kv_heads or self.num_heads
        return int(head) // max(1, self.num_heads // kv)

    def sharing(self, head: int) -> list[int]:
        """The query heads (0-based) that read the same keys and values as `head`, itself included."""
        return [h for h in range(self.num_heads) if self.kv_head(h) == self.kv_head(head)]

    def to_dict(self) -> dict:
        return asdict(self)


def layer_types_of(cfg, n_layers: int) -> tuple[str, ...]:
    """Each layer "local" (sliding-window attention) or "global", from the config's layer_types
    ("sliding_attention" / "full_attention" in transformers); () when the config names none."""
    types = getattr(cfg, "layer_types", None)
    if not types or not getattr(cfg, "sliding_window", None):
        return ()
    return tuple("local" if "sliding" in str(t) else "global" for t in list(types)[:n_layers])


def first_of(cfg, *names, default=None):
    for n in names:
        v = getattr(cfg, n, None)
        if v is not None:
            return v
    return default


def family_of(cfg) -> str:
    """ "translator" (encoder-decoder), "gpt" (decoder-only) or "encoder" (encoder-only)."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    if getattr(cfg, "is_encoder_decoder", False):
        return "translator"
    archs = [a for a in (getattr(cfg, "architectures", None) or [])]
    if (
        any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in archs)
        and cfg.model_type not in MODEL_FOR_MASKED_LM_MAPPING_NAMES
    ):
        return "gpt"
    if cfg.model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and cfg.model_type not in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return "gpt"
    return "encoder"


def positional_of(cfg, model) -> str:
    names = [n for n, _ in model.named_modules()]
    if (
        any(n.endswith(ROTARY_SUFFIXES) for n in names)
        or getattr(cfg, "rope_theta", None)
        or getattr(cfg, "rope_parameters", None)
    ):
        return "rope"
    if any(n.endswith("relative_attention_bias") for n in names):
        return "relative"
    if getattr(cfg, "model_type", "") in ("marian", "fsmt") or getattr(cfg, "static_position_embeddings", False):
        return "sinusoidal"
    if any(n.endswith(POSITION_SUFFIXES) for n in names):
        return "learned"
    return "unknown"


# -- loading -----------------------------------------------------------------------------------------
def free_memory(dev: torch.device) -> int | None:
    if dev.type == "cuda":
        try:
            return int(torch.cuda.mem_get_info(dev)[0])
        except Exception:
            return None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


# what config.json may ask for before anything is built (building on the meta device still costs
# time and memory per layer: 20,000 layers of width 8 took 124 s and 1.7 GB)
SIZE_LIMITS = {"layers": 128, "heads": 256, "width": 32_768, "ffn": 131_072, "vocab": 1_048_576, "positions": 1_048_576}
DEFAULT_MAX_PARAMS = 1_000_000_000


def max_parameters() -> int:
    """ATTN_HF_MAX_PARAMS, else DEFAULT_MAX_PARAMS (1 billion)."""
    return int(env_number("ATTN_HF_MAX_PARAMS", DEFAULT_MAX_PARAMS))


def _sizes(cfg) -> dict[str, list]:
    """The config's sizes by kind, as written (config.json of any family), each field once: an alias
    (GPT-2's num_hidden_layers for n_layer) is read under the name it stands for."""
    aliases = getattr(cfg, "attribute_map", None) or {}

    def values(*names):
        out = []
        for n in names:
            v, field = getattr(cfg, n, None), aliases.get(n, n)
            if v is not None and field not in [f for f, _ in out]:
                out.append((field, v))
        return out

    return {
        "layers": values(
            "num_hidden_layers", "n_layer", "num_layers", "encoder_layers", "num_decoder_layers", "decoder_layers"
        ),
        "heads": values(
            "num_attention_heads",
            "n_head",
            "num_heads",
            "encoder_attention_heads",
            "decoder_attention_heads",
            "num_key_value_heads",
        ),
        "width": values("hidden_size", "n_embd", "d_model", "d_kv", "head_dim"),
        "ffn": values("intermediate_size", "n_inner", "d_ff", "encoder_ffn_dim", "decoder_ffn_dim"),
        "vocab": values("vocab_size"),
        "positions": values("max_position_embeddings", "n_positions"),
    }


def estimate_parameters(cfg) -> int:
    """A config's parameter count from its sizes alone, before anything is built: InputError when
    a size is not a whole number from 1 to SIZE_LIMITS, or the hidden size does not split into the
    heads. Embeddings plus, per layer, attention (4 d^2, 8 d^2 with cross-attention) and feed-forward (3 d f)."""
    sizes = _sizes(cfg)
    for kind, found in sizes.items():
        for field, v in found:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= SIZE_LIMITS[kind]:
                raise InputError(
                    "hf_config_size",
                    f"config.json: {field} = {str(v)[:20]} must be a whole number from 1 to {SIZE_LIMITS[kind]:,}",
                    field=field,
                    value=str(v)[:20],
                    most=f"{SIZE_LIMITS[kind]:,}",
                )
    first = {k: (v[0][1] if v else 0) for k, v in sizes.items()}
    d, heads = first["width"], first["heads"]
    if d and heads and getattr(cfg, "model_type", "") != "t5" and not getattr(cfg, "head_dim", None) and d % heads:
        raise InputError(
            "hf_heads_split",
            f"config.json: the hidden size {d} does not split into {heads} heads",
            width=d,
            heads=heads,
        )
    layers = sum(v for _, v in sizes["layers"][:2]) or 1
    f = first["ffn"] or 4 * d
    cross = 2 if getattr(cfg, "is_encoder_decoder", False) else 1
    return first["vocab"] * d + first["positions"] * d + layers * (4 * d * d * cross + 3 * d * f)


def count_parameters(auto_cls, cfg) -> int:
    """Parameters of the architecture, counted on the meta device: nothing is allocated."""
    with torch.device("meta"):
        m = auto_cls.from_config(cfg)
    return sum(p.numel() for p in m.parameters())


def file_parameters(path) -> int:
    """Values in a safetensors file, read from its header alone (nothing loaded): a model's
    parameter count where the file holds each parameter once (tied weights once) and nothing else,
    as the folders model/hf/pretrained.py converts do."""
    import json
    import struct

    with open(path, "rb") as fh:
        (n,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(n))
    total = 0
    for key, entry in header.items():
        if key != "__metadata__":
            count = 1
            for d in entry["shape"]:
                count *= int(d)
            total += count
    return total
