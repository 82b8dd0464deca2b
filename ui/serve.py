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

import atexit
import logging
import os
import shutil
import subprocess
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


CHILDREN: list[subprocess.Popen] = []  # publish_graphs' export, ended with the server (stop_children)


def stop_children() -> None:
    """The export still running when the server stops (a SIGTERM, Ctrl+C) ends with it, as the thread
    it replaced did, instead of exporting on for a minute with no server to serve its graphs."""
    for child in CHILDREN:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()


def publish_graphs() -> None:
    """The in-browser model's graphs into static/models/ (ui/browser_model: exported into the cache
    on the first start, copied after), beside the server: until a model's graph is there its pages
    compute on the server.

    In a child process (`python -m ui.browser_model`, at lower priority where
    `nice` exists), never in the server's own: an export there held the GIL for about 17 s of CPU a
    graph, so every visitor's run waited on it, and it shared torch's process-wide export state with
    the visitors' threads: while torch.export ran, torch.compiler.is_exporting() was true for every
    thread, and a page that loaded a model then failed in torch.manual_seed (KeyError 'custom' in
    torch.fx.traceback.annotate; tests/test_image.py, whose fresh cache makes the image's server
    export, on 2026-12-05)."""
    from ui import browser_model

    if not browser_model.enabled():
        return
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "ui.browser_model"]  # one export at a time, beside the visitors
    if shutil.which("nice"):
        cmd = ["nice", "-n", "10", *cmd]
    try:
        child = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    except OSError as e:  # no such interpreter or nice: the pages compute on the server
        _LOG.warning("the in-browser model's graphs were not published: %r", e)
        return
    CHILDREN.append(child)
    _, err = child.communicate()
    if child.returncode < 0:  # ended by a signal: the server stopping (stop_children)
        return
    if child.returncode != 0:  # no onnx exporter here, a damaged weights file: the pages compute on the server
        _LOG.warning("the in-browser model's graphs were not published: %s", (err or "").strip()[-500:])
        return
    print(f"ui.serve: the in-browser model's graphs published in {time.perf_counter() - start:.1f} s", flush=True)


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
        atexit.register(stop_children)
        threading.Thread(target=publish_graphs, name="publish-graphs", daemon=True).start()
    from streamlit.web import cli

    args = list(sys.argv[1:] if argv is None else argv)
    return cli.main(["run", str(ROOT / "app.py"), *args], prog_name="streamlit", standalone_mode=True)


if __name__ == "__main__":
    sys.exit(main())
