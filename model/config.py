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
        t = self.temperature
        if not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
            raise ValueError(f"attention temperature must be a finite number > 0, got {t!r}")

    def temperature_at(self, layer: int) -> float:
        if self.temperature_layer is None or self.temperature_layer == layer:
            return float(self.temperature)
        return 1.0

    def head_op(self, kind: str, layer: int):
        """The HeadOp for attention `kind` ("encoder", "decoder", "cross") in `layer`, or None."""
        return None if self.intervention is None else self.intervention.at(kind, layer)


def settings_from(temperature=1.0, temperature_layer=None, use_position=True, intervention=None) -> AttentionSettings:
    try:
        settings = AttentionSettings(float(temperature), temperature_layer, bool(use_position), intervention or None)
    except (TypeError, ValueError) as e:
        raise InputError("temperature", str(e)) from None
    if not TEMPERATURE_MIN <= settings.temperature <= TEMPERATURE_MAX:  # beyond: scores overflow to NaN
        raise InputError(
            "temperature",
            f"attention temperature must be from {TEMPERATURE_MIN:g} to "
            f"{TEMPERATURE_MAX:g}, got {settings.temperature:g}",
        )
    return settings


TEMPERATURE_MIN, TEMPERATURE_MAX = 1e-3, 1e3
