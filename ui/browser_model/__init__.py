"""What the in-browser model needs under static/ (Streamlit serves it at /app/static/), and whether
a page may hand a chart to it.

    python -m ui.browser_model            # every shipped model's graph and the tokenizer, published
    python -m ui.browser_model --jobs 2   # two exports at once (each about 17 s of CPU)

The graphs are exported from PyTorch once into the cache (model/onnx_export.cached: ATTN_CACHE_DIR
or ~/.cache/attention-explorer/onnx, made again only when the weights or the export's FORMAT
change, as SmolLM2's conversion is cached) and copied into static/models/ beside the tokenizer;
the runtime (static/ort/) and our ES modules (static/browser_model/) are install.sh's. Who
publishes: ui.serve in a child process after its preload (scripts/app, the container), scripts/test before
the tests, bench/browser_model.publish. Until a model's graph is there, its pages compute on the
server, as they do for a browser that cannot run it (the attention view says which one computed).

ATTN_BROWSER_MODEL=0 turns the in-browser model off for a server (every chart from the server)."""

from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"
MODELS = STATIC / "models"
ENV = "ATTN_BROWSER_MODEL"
# what a page loads besides a model's graph: the runtime, our modules, the tokenizer
NEEDED = ("ort/ort.wasm.min.mjs", "browser_model/model.js", "models/tokenizer.model")


def shipped() -> tuple[str, ...]:
    """The models whose graphs are published: every shipped model of ours (not the timeline's snapshots)."""
    from model.registry import NAMES

    return tuple(NAMES)


def publish(names=None, static: Path = STATIC, jobs: int = 1) -> list[Path]:
    """NAMES' graphs (default: every shipped model) and the tokenizer in static/models/, each
    exported into the cache first unless the cache holds a current one (`jobs` exports at once);
    returns the graphs' paths. One publisher (model/onnx_export.publish) and one command that runs
    it, `python -m ui.browser_model`: scripts/test, scripts/app, the Dockerfile and ui.serve's child."""
    from model import onnx_export

    return onnx_export.publish(Path(static) / "models", list(names or shipped()), jobs=jobs)


def enabled() -> bool:
    return os.environ.get(ENV, "1") != "0"


def available(name: str, static: Path = STATIC) -> bool:
    """Whether the browser can be handed NAME: in-browser model on, its graph published whole (its
    JSON's byte count equals the file's, the export's FORMAT current), the runtime and tokenizer there."""
    from model import onnx_export

    if not enabled() or "@" in name or name.startswith("hf:"):
        return False
    static = Path(static)
    graph = static / "models" / onnx_export.file_name(name)
    try:
        meta = json.loads(graph.with_suffix(".json").read_text(encoding="utf-8"))
        whole = meta.get("format") == onnx_export.FORMAT and meta.get("bytes") == graph.stat().st_size
    except (OSError, ValueError):
        return False
    return whole and all((static / f).exists() for f in NEEDED)
