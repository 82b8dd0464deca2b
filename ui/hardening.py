"""What a visitor's own client could ask of Streamlit that this app never offers, refused in one
place. app.py calls apply() on every run; it patches once per process.

- The clear_cache message: Streamlit's developer menu sends it, and any client speaking the
  websocket protocol can (hiding the menu, client.toolbarMode = "minimal", does not stop it).
  Streamlit obeys it by clearing every st.cache_data and st.cache_resource for every session
  (runtime/app_session.py, AppSession._handle_clear_cache_request): the loaded models and the
  class's traces, so every student waits for them again. Here it is refused and logged.
- /_stcore/upload_file: the app has no file uploader, but Streamlit accepts uploads into any
  session's memory (300 x 1 MB took one server +302 MB). Every upload is dropped.
- /_stcore/metrics: sessions, cache names and sizes, compute times, public by default. It
  answers with no metrics.
Streamlit has no setting for any of these (server.maxUploadSize only bounds one file);
deploy/nginx.conf also closes both routes in front of the app.
"""

from __future__ import annotations

import logging

_LOG = logging.getLogger(__name__)
_DONE: set[str] = set()


def _refuse_clear_cache(self) -> None:
    _LOG.warning("refused a clear_cache message from session %s", getattr(self, "id", "?"))


def refuse_clear_cache() -> None:
    """AppSession's clear_cache handler replaced for every session of this process."""
    from streamlit.runtime.app_session import AppSession

    AppSession._handle_clear_cache_request = _refuse_clear_cache


def _drop_upload(session_id, file) -> None:
    _LOG.warning("dropped an upload of %d bytes (this app has no uploader)", len(getattr(file, "data", b"")))


def close_routes() -> bool:
    """Uploads dropped and metrics emptied on the running server's runtime; False when there is
    none yet (a bare script run, a test without a server)."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return False
    runtime = Runtime.instance()
    runtime.uploaded_file_mgr.add_file = _drop_upload
    runtime.stats_mgr.registered_families = lambda: []
    runtime.stats_mgr.get_stats = lambda family_names=None: {}
    return True


def apply() -> None:
    if "clear_cache" not in _DONE:
        refuse_clear_cache()
        _DONE.add("clear_cache")
    if "routes" not in _DONE and close_routes():
        _DONE.add("routes")
