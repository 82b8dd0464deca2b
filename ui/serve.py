"""`python -m ui.serve [streamlit options]`: `streamlit run app.py`, with torch, the app's libraries
and the default model loaded as the server starts (before it listens, or with ATTN_PRELOAD=background
in a thread beside it), so the first visitor gets the page, not only its title and a loading
message (issue 24: 7-9 s on this 2-core machine).

Streamlit runs app.py only when a visitor connects, and has no start-up hook, so this launcher
starts the preload thread and then Streamlit's own command line in the same process: the modules
and the st.cache_resource model it loads are the ones app.py's first run finds. The server answers
at once; a first visit that arrives while the preload is still running waits for it (Python's
import lock, the model cache) after ui/boot.py has shown the title. ui.boot itself is never
imported here: it must be imported by the first script run, to show that run's title.
Used by scripts/app, the Dockerfile and bench/first_visit.py; `streamlit run app.py` still works,
without the preload.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_LOG = logging.getLogger("ui.serve")
DEFAULT_MODEL = "translator"  # ui.context's default (a link without model=)
DEFAULT_TEXT = "The cat sat on the mat"  # ui.context.DEFAULT_TEXT (not imported: it imports ui.boot)
STATE = {"done": False, "seconds": None, "error": None}


def preload() -> None:
    """Import what every page imports and load the default model with its default sentence's trace."""
    start = time.perf_counter()
    try:
        import torch  # noqa: F401

        import model  # noqa: F401
        from ui import cache  # noqa: F401  (st.cache_resource: the model app.py's first run gets)

        for name in ("pandas", "plotly.graph_objects", "altair", "viz.heatmap", "viz.model_view", "viz.table"):
            __import__(name)
        if os.environ.get("ATTN_PRELOAD_MODEL", "1") != "0":
            cache.runner(DEFAULT_MODEL, os.environ.get("ATTN_DEVICE") or "auto")
            cache.trace(DEFAULT_MODEL, "auto", DEFAULT_TEXT)
    except Exception as e:  # noqa: BLE001  (a missing weights file: the page says so on the first visit)
        STATE["error"] = repr(e)
        _LOG.warning("preload stopped: %r", e)
    STATE["seconds"] = time.perf_counter() - start
    STATE["done"] = True
    print(f"ui.serve: preloaded torch, the app's libraries and {DEFAULT_MODEL} in {STATE['seconds']:.1f} s", flush=True)


def publish_graphs() -> None:
    """The in-browser model's graphs into static/models/ (ui/browser_model: exported into the cache
    on the first start, copied after), in a thread beside the server: until a model's graph is
    there its pages compute on the server."""
    try:
        from ui import browser_model

        if browser_model.enabled():
            start = time.perf_counter()
            browser_model.publish()
            print(
                f"ui.serve: the in-browser model's graphs published in {time.perf_counter() - start:.1f} s", flush=True
            )
    except Exception as e:  # noqa: BLE001  (no onnx exporter here: the pages compute on the server)
        _LOG.warning("the in-browser model's graphs were not published: %r", e)


def main(argv: list[str] | None = None) -> int:
    """ATTN_PRELOAD=wait (the default): the preload runs before the server listens, so its health
    check answers once a visitor can get the whole page (a load balancer or compose sends no one
    before); =background: the server answers at once and the preload runs beside the first visits
    (measured: the title then took 4.2 s instead of 2.2 s, the page 8.5 s; bench/first_visit.py)."""
    sys.path.insert(0, str(ROOT))
    from ui import (  # streamlit only: not ui.boot, which must be the first script's import
        cookies,
        hardening,
        said,
        streamlit_internals,
    )

    hardening.close_metrics()  # before the server answers its first request
    hardening.refuse_messages()  # likewise: a client's first messages already pass the gate
    cookies.install()  # the teacher's secret in an HttpOnly cookie, set by the server
    said.install()  # a sentence the reader's browser draws, applied without a rerun (issue 48)
    # Streamlit polls config.toml and secrets.toml five times a second for a live reload, which a
    # deployed server (a container: a change is a restart) never uses: 0.002 of a core of the
    # 0.0045 an idle replica burns (measured, no client connected); every 5 s is enough
    streamlit_internals.poll_files_every()
    if os.environ.get("ATTN_PRELOAD", "wait") == "background":
        threading.Thread(target=preload, name="preload", daemon=True).start()
    else:
        preload()
        from ui import memory

        memory.freeze()  # what the preload loaded, out of every later collection's walk (no session yet)
    if os.environ.get("ATTN_PUBLISH_GRAPHS", "1") != "0":
        threading.Thread(target=publish_graphs, name="publish-graphs", daemon=True).start()
    from streamlit.web import cli

    args = list(sys.argv[1:] if argv is None else argv)
    return cli.main(["run", str(ROOT / "app.py"), *args], prog_name="streamlit", standalone_mode=True)


if __name__ == "__main__":
    sys.exit(main())
