"""What a visitor's own client could ask of Streamlit that this app never offers, refused in one
place. app.py calls apply() on every run; it patches once per process.

- The clear_cache message: Streamlit's developer menu sends it, and any client speaking the
  websocket protocol can (hiding the menu, client.toolbarMode = "minimal", does not stop it).
  Streamlit obeys it by clearing every st.cache_data and st.cache_resource for every session
  (runtime/app_session.py, AppSession._handle_clear_cache_request): the loaded models and the
  class's traces, so every student waits for them again. Here it is refused and logged.
- /_stcore/upload_file: Streamlit accepts uploads into any session's memory (300 x 1 MB took one
  server +302 MB). The app's one uploader is the lesson editor's (a lesson file, at most
  UPLOAD_MAX bytes): an upload is kept only for a session that drew that uploader
  (allow_uploads), only up to UPLOAD_MAX bytes, at most UPLOAD_FILES per session (the oldest go)
  and UPLOAD_TOTAL bytes in the process. Every other upload is dropped.
- /_stcore/metrics: sessions, cache names and sizes, compute times, public by default. It
  answers with no metrics, from the server's start when it is started by `python -m ui.serve`
  (close_metrics(); a bare `streamlit run app.py` from its first page run).
Streamlit has no setting for any of these (server.maxUploadSize only bounds one file);
deploy/nginx.conf also closes both routes in front of the app. What is refused, and the limits,
are here; how Streamlit's runtime is reached to refuse them is ui/streamlit_internals.py, the one
module allowed past Streamlit's public API.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

from . import streamlit_internals as internals

_LOG = logging.getLogger(__name__)
_DONE: set[str] = set()
UPLOAD_MAX = 64_000  # bytes of one upload kept (lessons.schema.MAX_BYTES: a lesson file)
UPLOAD_FILES = 2  # files one session keeps
UPLOAD_TOTAL = 16 * 2**20  # bytes every session together keeps
UPLOAD_SESSIONS = 2_000  # sessions that drew the uploader, remembered (the oldest forgotten)
_UPLOADERS: OrderedDict[str, bool] = OrderedDict()
_LOCK = threading.Lock()


def allow_uploads(session_id: str | None) -> None:
    """This session drew the lesson editor's uploader: its lesson-sized uploads are kept."""
    if not session_id:
        return
    with _LOCK:
        _UPLOADERS[session_id] = True
        _UPLOADERS.move_to_end(session_id)
        while len(_UPLOADERS) > UPLOAD_SESSIONS:
            _UPLOADERS.popitem(last=False)


def _refuse_clear_cache(self) -> None:
    _LOG.warning("refused a clear_cache message from session %s", getattr(self, "id", "?"))


def refuse_clear_cache() -> None:
    """The clear_cache handler replaced for every session of this process."""
    internals.replace_clear_cache_handler(_refuse_clear_cache)


def _drop_upload(session_id, file) -> None:
    _LOG.warning("dropped an upload of %d bytes (no uploader in that session)", len(getattr(file, "data", b"")))


def bounded_upload(manager):
    """manager.add_file that keeps only what allow_uploads and the limits above allow."""
    original = manager.add_file

    def add_file(session_id, file) -> None:
        size = len(getattr(file, "data", b""))
        with _LOCK:
            allowed = session_id in _UPLOADERS
        if not allowed or size > UPLOAD_MAX or internals.stored_bytes(manager) + size > UPLOAD_TOTAL:
            _LOG.warning("dropped an upload of %d bytes (allowed: %s, at most %d)", size, allowed, UPLOAD_MAX)
            return
        original(session_id, file)
        for file_id in internals.file_ids(manager, session_id)[:-UPLOAD_FILES]:  # the oldest go
            manager.remove_file(session_id, file_id)

    return add_file


def close_metrics() -> None:
    """Every StatsManager of this process answers with no metrics, the one the runtime makes later
    included: ui.serve calls this before Streamlit starts, so the route is empty from the server's
    first request (apply() on the first page run did it only then; until a visitor came, the route
    told anyone the sessions and caches)."""
    internals.empty_every_stats_manager()


def close_routes() -> bool:
    """Uploads bounded and metrics emptied on the running server's runtime; False when there is
    none yet (a bare script run, a test without a server)."""
    runtime = internals.running_runtime()
    if runtime is None:
        return False
    mgr = internals.upload_manager(runtime)
    internals.replace_add_file(mgr, bounded_upload(mgr) if internals.keeps_files(mgr) else _drop_upload)
    close_metrics()
    return True


def apply() -> None:
    if "clear_cache" not in _DONE:
        refuse_clear_cache()
        _DONE.add("clear_cache")
    if "routes" not in _DONE and close_routes():
        _DONE.add("routes")
