"""Hugging Face transformers models in the explorer: ``model.load("hf:NAME_OR_PATH")``.

A local folder or (online) a hub id becomes a runner with the interface of ours (model/runner.py),
so every page can show it. The adapter, one job a module:

- policy.py   which models a server offers (ATTN_HF, the packaged MiniLM, the ATTN_HF_MODELS allow-list)
- hook.py     how the attention settings reach the model: our function in transformers' AttentionInterface
- tokens.py   a tokenizer with our labels, word ids and word labels
- sizes.py    the config summary, the family, and the size estimated before anything is allocated
- loading.py  loading (safetensors only, no remote code) and the byte-bounded cache of served runners
- runner.py   HFRunner, the Runner protocol over a transformers model
- pretrained.py the real pretrained decoders pip packages ship as GGUF (SmolLM2-135M, Gemma 3 270M),
              converted once to safetensors in a cache folder
- gguf_fast.py  reading a GGUF file's metadata in one pass, once per file, for that conversion
- gguf_convert.py the conversion itself: tensor by tensor into model.safetensors

docs/hf.md says how temperature, switched-off positions and heads reach each family.
transformers is imported only when an hf: model is loaded; without it the app and CLI work and ask
for requirements-hf.txt.
"""

from model.hf import pretrained
from model.hf.loading import SERVED, BoundedCache, load, load_served, runner_bytes
from model.hf.policy import (
    INSTALL,
    MAX_TOKENS,
    MODELS_ENV,
    PREFIX,
    REFUSED,
    allowed,
    available,
    canonical,
    check_name,
    installed,
    is_hf,
    mode,
    packaged,
    packaged_folders,
    served,
    suggestions,
)
from model.hf.runner import HFRunner
from model.hf.sizes import SIZE_LIMITS, HFConfig, count_parameters, estimate_parameters, max_parameters
from model.hf.tokens import HFTokenizer

pretrained_offered = pretrained.offered  # what the sidebar lists beside the project's own models

__all__ = [
    "INSTALL",
    "MAX_TOKENS",
    "MODELS_ENV",
    "PREFIX",
    "REFUSED",
    "SERVED",
    "SIZE_LIMITS",
    "BoundedCache",
    "HFConfig",
    "HFRunner",
    "HFTokenizer",
    "allowed",
    "available",
    "canonical",
    "check_name",
    "count_parameters",
    "estimate_parameters",
    "installed",
    "is_hf",
    "load",
    "load_served",
    "max_parameters",
    "pretrained",
    "mode",
    "packaged",
    "packaged_folders",
    "pretrained_offered",
    "runner_bytes",
    "served",
    "suggestions",
]
