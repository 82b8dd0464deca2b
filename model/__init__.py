"""The tutorial's Transformer and GPT, runnable on a user's sentence.

import model
m = model.load("translator")          # or "gpt", "gpt-rope", "gpt-alibi", "gpt-local"
tr = m.trace("The cat sat on the mat")
tr.attention["cross"].weights        # (layers, heads, queries, keys), float32 numpy
"""

from model.config import AttentionSettings, ModelConfig
from model.errors import InputError, ModelFileError
from model.trace import KINDS, Attention, Trace

__all__ = [
    "load",
    "snapshots_of",
    "NAMES",
    "PRESETS",
    "Trace",
    "Attention",
    "KINDS",
    "ModelConfig",
    "AttentionSettings",
    "InputError",
    "ModelFileError",
]


def __getattr__(name):
    # the registry pulls in the tokenizer and corpus; `import model.attention` should not need them
    if name in ("load", "snapshots_of", "NAMES", "PRESETS"):
        from model import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'model' has no attribute {name!r}")
