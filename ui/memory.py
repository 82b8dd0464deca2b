"""The server's memory between the caches: what a closed tab keeps, what Python's collector and
glibc's allocator hold after a heavy run (issue 32, item 2; measured in docs/hosting.md).

ui.cache bounds the caches in bytes; three things outside them made the server's RSS grow with
the number of long texts visitors sent, each found by measuring a server under bench.attack's
Hugging Face attack (gc referrers, mallinfo2, malloc_trim):

1. A closed tab keeps its last run. Every function a page defines (a widget's on_change, a
   deferred download, a fragment) holds that run's module namespace, with its traces and figures
   (about 17 MB for one 1,100-character MiniLM text), and Streamlit keeps a disconnected session
   for server.disconnectedSessionTTL (120 s) so that a student whose Wi-Fi drops comes back to it;
   one that expires from that store is never shut down, so its deferred downloads stayed for good.
   release() drops the deferred downloads and the fragments when the session is stored, and
   deletes the heavy values (arrays, traces, figures) that no callback or format function of its
   widgets reads from the namespaces those point at (ui/streamlit_internals.drop_last_run): they
   are freed at once. The widgets, their callbacks and values stay (the first click after a
   reconnect works), and the reconnecting client's rerun makes the rest again.
2. A page run's namespace is a reference cycle (its functions point back at it), so it is freed
   by a full collection only, and .streamlit/config.toml turns Streamlit's collection after every
   run off (runner.postScriptGC: 0.15 s of CPU a request). The janitor thread collects when the
   RSS has grown GROWTH_MB since its last collection; freeze() keeps the modules and models out
   of those collections, so each walks only what the sessions made.
3. glibc raises its mmap threshold (up to 32 MB) each time a large block is freed, so the next
   19 MB traces come from the heap, whose freed pages it keeps (fordblks: 300-400 MB after the
   attack). tune_allocator() fixes the threshold at MMAP_THRESHOLD_KB: a block that large is
   mapped on its own and handed back when freed; malloc_trim(0) after a collection returns the
   rest.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import os
import threading
import time

_LOG = logging.getLogger(__name__)

MMAP_THRESHOLD_KB = int(os.environ.get("ATTN_MMAP_THRESHOLD_KB", "1024"))  # 0: glibc's own (dynamic)
GROWTH_MB = float(os.environ.get("ATTN_GC_GROWTH_MB", "128"))  # a full collection after this much RSS
CHECK_S = 1.0  # how often the janitor reads the RSS (/proc/self/statm: microseconds)
RELEASE_TABS = os.environ.get("ATTN_RELEASE_TABS", "1") != "0"  # 0: a closed tab keeps its last run (1.)
M_MMAP_THRESHOLD = -3  # glibc's malloc.h

STATS = {"collections": 0, "collect_s": 0.0, "released": 0, "values_dropped": 0, "allocator": None}
_LOCK = threading.Lock()
_STATE = {"installed": False}


def _libc():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


LIBC = _libc()


def rss_bytes() -> int:
    """This process's resident memory (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def tune_allocator(threshold_kb: int = MMAP_THRESHOLD_KB) -> bool:
    """glibc's mmap threshold fixed at threshold_kb (its dynamic raising off); False where there is
    no glibc (musl, macOS) or threshold_kb is 0."""
    mallopt = getattr(LIBC, "mallopt", None)
    if threshold_kb <= 0 or mallopt is None:
        return False
    ok = bool(mallopt(M_MMAP_THRESHOLD, int(threshold_kb) * 1024))
    STATS["allocator"] = f"mmap threshold {threshold_kb} kB" if ok else None
    return ok


def trim() -> None:
    """Hand the allocator's free pages back to the system (glibc's malloc_trim(0); milliseconds)."""
    malloc_trim = getattr(LIBC, "malloc_trim", None)
    if malloc_trim is not None:
        malloc_trim(0)


def collect() -> float:
    """A full collection and a trim; returns the seconds it took (it holds the GIL)."""
    t0 = time.perf_counter()
    gc.collect()
    trim()
    spent = time.perf_counter() - t0
    with _LOCK:
        STATS["collections"] += 1
        STATS["collect_s"] += spent
    return spent


class Janitor:
    """Decides when to collect from the RSS it is shown (a test drives it with made-up numbers):
    when the RSS has grown `growth` bytes above the lowest it has seen since the last collection."""

    def __init__(self, growth_bytes: float):
        self.growth = growth_bytes
        self.baseline: int | None = None

    def due(self, rss: int) -> bool:
        if self.baseline is None or rss < self.baseline:
            self.baseline = rss  # memory handed back (or the first look): measure growth from here
        return rss >= self.baseline + self.growth

    def collected(self, rss_after: int) -> None:
        self.baseline = rss_after


def _janitor_loop(janitor: Janitor) -> None:
    while True:
        time.sleep(CHECK_S)
        if janitor.due(rss_bytes()):
            before = rss_bytes()
            spent = collect()
            janitor.collected(rss_bytes())
            _LOG.debug("collected in %.3f s: RSS %d -> %d MB", spent, before >> 20, janitor.baseline >> 20)


def freeze() -> None:
    """Every object alive now moved out of the collector's sight (gc.freeze): the modules and models
    a server loads once, so that a full collection walks only what sessions made since (measured:
    0.18 s -> 0.00 s for 380,000 objects). Only where no session's run is under way, since a
    frozen object is never collected: ui.cache's import (the first run's own few objects are
    kept for good) and ui.serve's preload before the server listens."""
    gc.collect()
    gc.freeze()


def release(session) -> None:
    """A disconnected session, kept for its reconnect, lets go of its last run (see the module's
    docstring, 1): the dropped values are freed at once (nothing else refers to them)."""
    from . import streamlit_internals

    try:
        dropped = streamlit_internals.drop_last_run(session)
    except Exception:  # noqa: BLE001  (a Streamlit upgrade that moved a name: memory, not a broken page)
        _LOG.exception("could not release a disconnected session's last run")
        return
    if dropped < 0:  # its script had not stopped yet: it keeps its last run (until it expires)
        return
    with _LOCK:
        STATS["released"] += 1
        STATS["values_dropped"] += dropped


def install() -> None:
    """Once per process: the allocator tuned, what is loaded so far frozen, closed tabs released,
    the janitor started. ui.cache calls it on import (every server, whichever command started it, imports ui.cache before its
    first trace)."""
    with _LOCK:
        if _STATE["installed"]:
            return
        _STATE["installed"] = True
    tune_allocator()
    freeze()
    from . import streamlit_internals

    if RELEASE_TABS:
        streamlit_internals.after_disconnect(release)
    if GROWTH_MB > 0:
        threading.Thread(target=_janitor_loop, args=(Janitor(GROWTH_MB * 2**20),), name="janitor", daemon=True).start()
