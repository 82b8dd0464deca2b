"""Model sizes and inference settings, as plain dataclasses (saved next to the weights as JSON)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from model.errors import InputError


@dataclass
class ModelConfig:
    arch: str = "gpt"  # "transformer" (encoder-decoder) or "gpt" (decoder only)
    vocab_size: int = 1000
    d_model: int = 128
    num_heads: int = 4  # h
    num_layers: int = 3  # N: per stack (the translator has N encoder and N decoder layers)
    d_ff: int = 512  # the feed-forward's hidden width
    max_seq_len: int = 64
    positional: str = "learned"  # see positional.SCHEMES
    window: int = 0  # sliding-window attention: each token sees itself and the window-1
    # tokens before it (Longformer / Mistral style); 0 = all earlier tokens
    dropout: float = 0.0  # the corpus is practically endless: nothing to overfit, and
    # dropout costs a fifth of a CPU training step

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "ModelConfig":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass(frozen=True)
class AttentionSettings:
    """What a user may change at inference without retraining.

    temperature: divides the scores inside softmax; temperature_layer: None = every layer, else
    only that layer (0-based) in each stack; use_position: False drops the positional information
    (embedding added, RoPE rotation or ALiBi bias) to show that attention alone ignores word order;
    intervention: heads switched off or a row of weights replaced (model/intervention.py), or None.
    """

    temperature: float = 1.0
    temperature_layer: int | None = None
    use_position: bool = True
    intervention: object = None  # a model.intervention.Intervention: heads switched off, rows edited

    def __post_init__(self):
        checked_temperature(self.temperature)

    def temperature_at(self, layer: int) -> float:
        if self.temperature_layer is None or self.temperature_layer == layer:
            return float(self.temperature)
        return 1.0

    def head_op(self, kind: str, layer: int):
        """The HeadOp for attention `kind` ("encoder", "decoder", "cross") in `layer`, or None."""
        return None if self.intervention is None else self.intervention.at(kind, layer)


def settings_from(temperature=1.0, temperature_layer=None, use_position=True, intervention=None) -> AttentionSettings:
    return AttentionSettings(
        checked_temperature(temperature), temperature_layer, bool(use_position), intervention or None
    )


TEMPERATURE_MIN, TEMPERATURE_MAX = 1e-3, 1e3  # beyond: the scores overflow to NaN


def checked_temperature(value) -> float:
    """The one check of an attention temperature (the settings of every run, ours and Hugging
    Face's, and the CLI's --temperature): a finite number from TEMPERATURE_MIN to TEMPERATURE_MAX,
    as a float; InputError("temperature") otherwise."""
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise InputError("temperature", f"attention temperature must be a number, got {str(value)[:40]!r}") from None
    if not (math.isfinite(t) and TEMPERATURE_MIN <= t <= TEMPERATURE_MAX):
        raise InputError(
            "temperature",
            f"attention temperature must be a finite number from {TEMPERATURE_MIN:g} to {TEMPERATURE_MAX:g}, got {t:g}",
        )
    return t
