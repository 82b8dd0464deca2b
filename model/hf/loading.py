"""Loading a Hugging Face model: a local folder or, online, a hub id; safetensors only, no remote
code, eager attention switched to ours."""

from __future__ import annotations

import gc
import os
import re
import threading
import time
from collections import OrderedDict
from pathlib import Path

import torch

from model import device as devices
from model.errors import InputError, Notice
from model.hf.hook import require_transformers
from model.hf.policy import (
    HUB_ID,
    IMPL,
    PREFIX,
    REFUSED,
    allowed,
    canonical,
    check_name,
    env_number,
    is_hf,
    log,
    mode,
    packaged,
    served,
)
from model.hf.runner import HFRunner
from model.hf.sizes import (
    count_parameters,
    estimate_parameters,
    family_of,
    file_parameters,
    free_memory,
    max_parameters,
)
from model.hf.tokens import HFTokenizer, from_file


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


def load(
    spec: str, device: str | None = None, shown: str | None = None, max_params: int | None = None, converted=False
) -> "HFRunner":
    """Load hf:SPEC (SPEC a local folder or a hub id, or a name of allowed()) for the explorer;
    InputError with one clear line when it cannot be had (no transformers, no such folder or model,
    unreadable, no internet, needs remote code, no safetensors weights, no tokenizer, sizes out of
    range, more than max_params (default max_parameters()) or too large for this machine's memory).
    This is the owner's entry (Python, the CLI): the app uses load_served(). shown: the name the
    runner and its messages carry instead of SPEC. converted: a folder model/hf/pretrained.py wrote
    (its own tokenizer.json is the tokenizer, its one safetensors file holds every parameter once),
    read the quick way: the tokenizer built from tokenizer.json in Rust (tokens.from_file) instead
    of transformers parsing the file in Python and rebuilding it (Gemma's 33 MB: three quarters
    of its cached start), the parameters counted from the file's header instead of a model built
    on the meta device."""
    spec = check_name(spec[len(PREFIX) :] if is_hf(spec) else spec)
    name = shown or PREFIX + spec
    try:
        return _load(spec, name, device, max_parameters() if max_params is None else max_params, converted)
    except (OSError, RuntimeError) as e:  # a folder that cannot be read, ~nosuchuser, ...
        raise InputError("hf_unreadable", f"{name}: cannot be read ({_short(e)})") from None


def _load(spec: str, name: str, device, max_params: int, converted: bool = False) -> "HFRunner":
    transformers = require_transformers()
    from transformers import AutoConfig, AutoTokenizer

    path = Path(spec).expanduser()
    local = path.is_dir()
    if not local and not path.exists() and canonical(spec) in packaged():  # a packaged folder's name
        path = Path(packaged()[canonical(spec)])
        local = True
    if not local:
        if spec.startswith(("/", ".", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", spec) or path.exists():
            raise InputError("hf_no_folder", f"{name}: there is no model folder {spec}")
        if not HUB_ID.match(spec):
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

    family = family_of(cfg)
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
        n_params = file_parameters(path / "model.safetensors") if converted else count_parameters(auto_cls, cfg)
    except Exception as e:
        raise InputError(
            "hf_cannot_build", f"{name}: transformers cannot build this architecture ({_short(e)})"
        ) from None
    need = n_params * 4  # float32
    free = free_memory(dev)
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
        tok = from_file(path) if converted else AutoTokenizer.from_pretrained(source, **common)
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
            log.warning("Hugging Face model %r (%s) refused: %s", key, source, _short(e, 500))
            raise InputError("hf_refused", REFUSED) from None

    return SERVED.get((key, str(device or "auto")), build)


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
        return int(env_number("ATTN_HF_CACHE_MODELS", 2))

    @staticmethod
    def max_bytes() -> int:
        return int(env_number("ATTN_HF_CACHE_MB", 1024) * 2**20)

    @staticmethod
    def ttl() -> float:
        return env_number("ATTN_HF_CACHE_TTL", 3600)

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
