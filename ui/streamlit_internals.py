"""The one module that reaches past Streamlit's public API, for ui/hardening.py's refusals
(and ui/memory.py's release of closed sessions).

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
- `AppSession.handle_backmsg`: every message a client sends, wrapped by ui/hardening.py's gate
  (an allowlist of message types, and a rate of reruns per session); the session's
  `_scriptrunner`, its `_script_thread` and its requests' `_state` read (is a run of this session
  still going, or stopping?);
- the running script's `ScriptRunContext.script_requests`: its `_state` read and
  `on_scriptrunner_yield` called, so a run that was asked to stop while it waits for a run slot
  ends there as it would at its next Streamlit call (StopException, RerunException);
- `Runtime.instance().uploaded_file_mgr`: its `add_file` replaced; its `file_storage` (session ->
  file id -> file, in insertion order) read, `remove_file` called;
- `Runtime.instance().stats_mgr`: `registered_families` and `get_stats` answer nothing.
- `streamlit.web.server.starlette.starlette_server._get_uvicorn_config_kwargs`: its `ws_max_size`
  replaced (the largest message a client may send, refused from the frame's header);
- `starlette.websockets.WebSocket.receive_bytes` (Streamlit's websocket loop reads every client
  message with it), wrapped so that a large message reaches Streamlit bounded and re-serialized;
- `streamlit.web.server.starlette.starlette_app.create_streamlit_routes`: the builder of the
  server's Starlette routes, wrapped so that one route of ours comes first (ui/cookies.py: the
  teacher's cookie set by the server, HttpOnly; Streamlit has no call that sets a cookie).
- `WebsocketSessionManager.disconnect_session`, wrapped, and on the session it kept for a
  reconnect: `Runtime.instance().media_file_mgr` (`clear_session_refs`, `remove_orphaned_files`),
  `AppSession._fragment_storage` and the widgets' `WidgetMetadata` in
  `session_state._new_widget_state`, read (ui/memory.py: what a closed tab keeps of its last run).
- the run's `ScriptRunContext.fragment_ids_this_run`, read (fragment_rerun: ui/context.py's sentence
  box tells its own rerun from the app's run, where it is drawn before the run's Context exists);
- the run's `ScriptRunContext.pages_manager`: `intended_page_script_hash` and
  `intended_page_name` read, `set_script_intent` called before st.navigation (ui/layout.py's
  fit_page_path: /home, /Lessons or /lessons/ open their page instead of "Page not found").
"""

from __future__ import annotations

import threading
from collections.abc import Callable


def gate_backmsgs(gate: Callable[[object, object, Callable[[object], None]], None]) -> None:
    """gate(session, msg, handle) runs instead of AppSession.handle_backmsg for every message a
    client sends on its websocket, in every session; handle(msg) is Streamlit's own handling."""
    from streamlit.runtime.app_session import AppSession

    original = getattr(AppSession.handle_backmsg, "_attn_original", AppSession.handle_backmsg)

    def handle_backmsg(self, msg) -> None:
        gate(self, msg, lambda m: original(self, m))

    handle_backmsg._attn_original = original
    AppSession.handle_backmsg = handle_backmsg


def run_going(session) -> bool:
    """Whether a script thread of this session is alive (running, or asked to stop and not there
    yet): Streamlit's fast reruns start a new thread for each rerun while the old one runs on to its
    next Streamlit call, so a flood of reruns had many threads of one session computing at once."""
    runner = getattr(session, "_scriptrunner", None)
    thread = getattr(runner, "_script_thread", None)
    return thread is not None and thread.is_alive()


def run_stopping(session) -> bool:
    """Whether the session's script thread is alive but asked to stop (a client's stop_script): it
    refuses a rerun, and Streamlit then starts another thread beside it."""
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    runner = getattr(session, "_scriptrunner", None)
    requests = getattr(runner, "_requests", None)
    return run_going(session) and getattr(requests, "_state", None) == ScriptRequestType.STOP


def _requests():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return getattr(get_script_run_ctx(suppress_warning=True), "script_requests", None)


def run_interrupted() -> bool:
    """Whether this thread's script run has been asked to stop or to rerun (read, not taken)."""
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    requests = _requests()
    return requests is not None and requests._state != ScriptRequestType.CONTINUE


def leave_interrupted_run() -> None:
    """End this script run as its next Streamlit call would when it has been asked to stop or to
    rerun (raises StopException or RerunException); returns when it has not."""
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    requests = _requests()
    request = requests.on_scriptrunner_yield() if requests is not None else None
    if request is None:
        return
    if request.type == ScriptRequestType.RERUN:
        raise RerunException(request.rerun_data)
    raise StopException()


def fragment_rerun() -> bool:
    """Whether the run going on is one or more fragments rerunning alone, not the whole script
    (Streamlit's ScriptRunContext.fragment_ids_this_run, empty or None in a full run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return bool(getattr(get_script_run_ctx(suppress_warning=True), "fragment_ids_this_run", None))


def _pages_manager():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return getattr(get_script_run_ctx(suppress_warning=True), "pages_manager", None)


def requested_page() -> str | None:
    """The URL path this run's browser asked for by name (a typed or shared link), or None: no
    run, or a page asked for by its hash (a click in the menu)."""
    pm = _pages_manager()
    if pm is None or pm.intended_page_script_hash:
        return None
    return pm.intended_page_name


def ask_for_page(url_path: str) -> None:
    """This run resolves the page at url_path instead ("" the default page); before st.navigation."""
    pm = _pages_manager()
    if pm is not None:
        pm.set_script_intent("", url_path)


def bound_inbound_frames(max_bytes: int) -> None:
    """The websocket server (uvicorn, websockets' sans-I/O protocol) refuses a client message over
    max_bytes from its frame header, before reading it (close 1009). Streamlit gives uvicorn
    server.maxMessageSize (50 MB) for both directions and checks its own 1 MB inbound bound only
    once the whole message is in memory. Call before Streamlit starts."""
    from streamlit.web.server.starlette import starlette_server

    build = getattr(starlette_server._get_uvicorn_config_kwargs, "_attn_original", None)
    build = build or starlette_server._get_uvicorn_config_kwargs

    def kwargs() -> dict:
        return {**build(), "ws_max_size": max_bytes}

    kwargs._attn_original = build
    starlette_server._get_uvicorn_config_kwargs = kwargs


def filter_inbound(fn: Callable[[bytes], bytes]) -> None:
    """fn(data) -> the bytes Streamlit's websocket loop gets for each client message, instead of
    data. That loop keeps a message's bytes and its parse until the client's next message, so what
    an idle socket holds is what fn returned."""
    from starlette.websockets import WebSocket

    original = getattr(WebSocket.receive_bytes, "_attn_original", WebSocket.receive_bytes)

    async def receive_bytes(self) -> bytes:
        return fn(await original(self))

    receive_bytes._attn_original = original
    WebSocket.receive_bytes = receive_bytes


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


def add_middleware_first(make: Callable[[str | None], tuple[type, dict]]) -> None:
    """make(server.baseUrlPath) -> (an ASGI middleware class, its keyword arguments), put first in
    the middleware of every app this process builds (inside Starlette's own error handler, before
    Streamlit's path check, sessions and compression). Call before Streamlit starts."""
    from starlette.middleware import Middleware
    from streamlit import config
    from streamlit.web.server.starlette import starlette_app

    build = starlette_app.create_streamlit_middleware

    def create_streamlit_middleware():
        cls, kwargs = make(config.get_option("server.baseUrlPath"))
        return [Middleware(cls, **kwargs), *build()]

    starlette_app.create_streamlit_middleware = create_streamlit_middleware


# how often Streamlit looks at its config and secrets files for a live reload (its default: 0.2 s),
# which a running server never needs (a container: a change is a restart; `streamlit run`: a change
# of config.toml needs a restart anyway). Every 0.2 s it cost an idle replica 0.002 of a core and a
# test server 12.6 % of its CPU in a walk of the projector and a lesson (py-spy, 2026-12-05)
CONFIG_POLL_S = 5.0


def poll_files_every(seconds: float = CONFIG_POLL_S) -> None:
    """Streamlit's polling file watcher (it watches config.toml and secrets.toml for a live reload,
    whatever server.fileWatcherType says) looks every `seconds` instead of every 0.2 s. Its task
    reads the period each time it waits, so a call takes effect from the next look on: ui.serve
    calls it before Streamlit starts, app.py's first run (hardening.apply) under a bare
    `streamlit run app.py`.

    Each wait is a daemon timer, not Streamlit's sleep in a pool thread: Python's exit joins the
    pool's threads, so a server asked to stop waited out the sleep under way (a test server that
    had served one page took 4.4 s to stop, an idle one 0.4 s, 2026-12-05; a replica's restart as
    long), while a daemon timer ends with the process."""
    from streamlit.watcher import polling_path_watcher

    polling_path_watcher._POLLING_PERIOD_SECS = float(seconds)
    watcher = polling_path_watcher.PollingPathWatcher
    if getattr(watcher._schedule, "wrapped_by_attention_explorer", False):
        return

    def _schedule(self) -> None:
        timer = threading.Timer(polling_path_watcher._POLLING_PERIOD_SECS, self._check_if_path_changed)
        timer.daemon = True
        timer.start()

    _schedule.wrapped_by_attention_explorer = True
    watcher._schedule = _schedule


def after_disconnect(hook: Callable[[object], None]) -> None:
    """hook(session) runs after Streamlit has kept a disconnected session for its reconnect
    (server.disconnectedSessionTTL): `WebsocketSessionManager.disconnect_session` wrapped, in
    every session manager of this process; a session shut down instead (logged out, not
    resumable) is left alone."""
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    original = WebsocketSessionManager.disconnect_session
    if getattr(original, "wrapped_by_attention_explorer", False):
        return

    def disconnect_session(self, session_id: str) -> None:
        info = self._active_session_info_by_id.get(session_id)
        original(self, session_id)
        if info is not None and self._session_storage.get(session_id) is not None:
            hook(info.session)

    disconnect_session.wrapped_by_attention_explorer = True
    WebsocketSessionManager.disconnect_session = disconnect_session


def _page_functions(roots, depth: int = 5) -> list[tuple[dict, list]]:
    """(namespace, [the functions reachable from roots that were defined in it]) for each module
    namespace of a script run among them (`__name__ == "__main__"`: app.py's and the pages', a
    fresh one each run)."""
    import gc
    import types

    found, seen, level = {}, set(), list(roots)
    for _ in range(depth):
        nxt = []
        for o in level:
            if id(o) in seen or isinstance(o, (types.ModuleType, type)):
                continue
            seen.add(id(o))
            if isinstance(o, types.FunctionType):
                g = o.__globals__
                if g.get("__name__") == "__main__":
                    found.setdefault(id(g), (g, []))[1].append(o)
                nxt.extend(o.__closure__ or ())
                nxt.extend(o.__defaults__ or ())
                continue
            nxt.extend(gc.get_referents(o))
        level = nxt
    return list(found.values())


def _names_read(functions, namespace: dict) -> set[str]:
    """Every global name the functions read (their code's and nested code's co_names), and the
    names those read in turn through the namespace's own functions: what a kept callback or format
    function may still look up there."""
    import types

    names, todo, seen = set(), [f.__code__ for f in functions], set()
    while todo:
        code = todo.pop()
        if id(code) in seen:
            continue
        seen.add(id(code))
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        for name in code.co_names:
            names.add(name)
            v = namespace.get(name)
            if isinstance(v, types.FunctionType) and v.__globals__ is namespace:
                todo.append(v.__code__)
    return names


def _light(v, depth: int = 2) -> bool:
    """A value a namespace may keep for a format function: numbers, short strings and small
    containers of them, functions, classes and modules; not a trace, an array or a figure."""
    import types

    if v is None or isinstance(v, (bool, int, float, complex)):
        return True
    if isinstance(v, (str, bytes)):
        return len(v) <= 4096
    if isinstance(v, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return True
    if depth > 0 and isinstance(v, (tuple, list, set, frozenset)) and len(v) <= 256:
        return all(_light(x, depth - 1) for x in v)
    if depth > 0 and isinstance(v, dict) and len(v) <= 256:
        return all(_light(k, depth - 1) and _light(x, depth - 1) for k, x in v.items())
    return False


def drop_last_run(session) -> int:
    """What a disconnected session holds of its last script run and does not need to reconnect,
    dropped: its deferred downloads (`media_file_mgr`: the callables, kept until the session is
    shut down, which a session that expires from the reconnect store never is), its fragments
    (`AppSession._fragment_storage`: their functions and the arguments of the last full run), and,
    from the run's module namespaces that its widgets' callbacks and format functions
    (`WidgetMetadata` in `SessionState._new_widget_state`) still point at, every value that is not
    light (traces, arrays, figures) and that none of those functions reads (their code's global
    names, followed through the namespace's own functions). Each of these kept that run's traces
    and figures alive. The widgets, their callbacks and values and the session's own keys stay,
    so the first click after a reconnect works as before; the reconnecting client's rerun makes
    the rest again. A session whose script is still running (asked to stop, not yet stopped) is
    left as it is: its run uses that namespace. Returns how many values were dropped, or -1 for a
    session left alone."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.app_session import AppSessionState

    if session._state != AppSessionState.APP_NOT_RUNNING:
        return -1
    if Runtime.exists():
        files = Runtime.instance().media_file_mgr
        files.clear_session_refs(session.id)
        files.remove_orphaned_files()
    session._fragment_storage.clear()
    widgets = list(session.session_state._new_widget_state.widget_metadata.values())
    dropped = 0
    for namespace, functions in _page_functions(widgets):
        read = _names_read(functions, namespace)
        for k in [k for k, v in namespace.items() if not k.startswith("__") and k not in read and not _light(v)]:
            del namespace[k]
            dropped += 1
    return dropped
