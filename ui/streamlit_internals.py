"""The one module that reaches past Streamlit's public API, for ui/hardening.py's refusals.

Why it exists: a visitor's client can ask a Streamlit server to clear every cache, to keep uploads
in any session's memory and to read its metrics, and Streamlit has no setting that stops any of
them (docs/hosting.md, "Security: what a visitor can and cannot do"). Refusing them means replacing one private method and three
attributes of the running server's runtime. Kept here, in one file, so that a Streamlit upgrade
that moves them breaks in one place that says what it needs, and so that
tests/test_architecture.py's private-name scan can allow private names in this module alone
(ADAPTERS there) while it fails on any other use. Checked against Streamlit 1.67;
tests/test_protocol.py drives a real server through each of these and fails when one stops
holding.

What it touches, each by name:
- `AppSession._handle_clear_cache_request` (runtime/app_session.py): the clear_cache message's
  handler, replaced for every session of the process;
- `Runtime.instance().uploaded_file_mgr`: its `add_file` replaced; its `file_storage` (session ->
  file id -> file, in insertion order) read, `remove_file` called;
- `Runtime.instance().stats_mgr`: `registered_families` and `get_stats` answer nothing.
- `streamlit.web.server.starlette.starlette_app.create_streamlit_routes`: the builder of the
  server's Starlette routes, wrapped so that one route of ours comes first (ui/cookies.py: the
  teacher's cookie set by the server, HttpOnly; Streamlit has no call that sets a cookie).
"""

from __future__ import annotations

from collections.abc import Callable


def replace_clear_cache_handler(handler: Callable[[object], None]) -> None:
    """handler(session) runs instead of Streamlit's clear_cache handler, in every session."""
    from streamlit.runtime.app_session import AppSession

    AppSession._handle_clear_cache_request = handler


def running_runtime():
    """The server's Runtime, or None in a bare script run or a test without a server."""
    from streamlit.runtime import Runtime

    return Runtime.instance() if Runtime.exists() else None


def upload_manager(runtime):
    return runtime.uploaded_file_mgr


def keeps_files(manager) -> bool:
    """Whether the manager keeps uploads in memory (file_storage), as the default one does."""
    return hasattr(manager, "file_storage")


def replace_add_file(manager, add_file: Callable[[str, object], None]) -> None:
    manager.add_file = add_file


def stored_bytes(manager) -> int:
    """The bytes of every upload the manager holds."""
    return sum(len(getattr(f, "data", b"")) for files in manager.file_storage.values() for f in files.values())


def file_ids(manager, session_id: str) -> list[str]:
    """The ids of one session's uploads, the oldest first (dicts keep insertion order)."""
    return list(manager.file_storage.get(session_id, {}))


def _no_families(self) -> list:
    return []


def _no_stats(self, family_names=None) -> dict:
    return {}


def empty_every_stats_manager() -> None:
    """/_stcore/metrics answers with no metrics: StatsManager's class is patched, so the manager
    the runtime makes later (after ui.serve calls this, before Streamlit starts) is empty too."""
    from streamlit.runtime.stats import StatsManager

    StatsManager.registered_families = _no_families
    StatsManager.get_stats = _no_stats


def add_route_first(make_route: Callable[[str | None], object]) -> None:
    """make_route(server.baseUrlPath) -> a Starlette route, put before Streamlit's own (its last
    route answers every other path with the page) in every app this process builds. Call before
    Streamlit starts."""
    from streamlit import config
    from streamlit.web.server.starlette import starlette_app

    build = starlette_app.create_streamlit_routes

    def create_streamlit_routes(runtime):
        return [make_route(config.get_option("server.baseUrlPath")), *build(runtime)]

    starlette_app.create_streamlit_routes = create_streamlit_routes
