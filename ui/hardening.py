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
- Every other message a client may send on its websocket: only those a visitor's page needs pass
  (ALLOWED_MESSAGES: reruns, heartbeats, stop, upload urls, and the backend operations of
  downloads and tables). `load_git_info` ran git subprocesses on the server's event loop: 40 a
  second from one socket froze every session (another's rerun 0.33 -> 4.44 s); `set_run_on_save`,
  `debug_*` and the "install skills" operation are a developer's. Refused, logged once a session.
- Reruns: at most RERUN_RATE (10) a second per session after a burst of RERUN_BURST (30). A rerun message
  carries every widget's state, so the newest one waiting replaces the older and is handled when
  the session's rate allows: a flood costs the server RERUN_RATE runs a second and the visitor
  loses no input (4 sockets x 50 reruns a second had served the class 0-1 sentence in 30 s).
Streamlit has no setting for any of these (server.maxUploadSize only bounds one file);
deploy/nginx.conf also closes both routes in front of the app. What is refused, and the limits,
are here; how Streamlit's runtime is reached to refuse them is ui/streamlit_internals.py, the one
module allowed past Streamlit's public API.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
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


ALLOWED_MESSAGES = frozenset(
    {"rerun_script", "app_heartbeat", "stop_script", "file_urls_request", "backend_operation_request"}
)
ALLOWED_OPERATIONS = frozenset({"deferred_file", "dataframe_chunk"})  # st.download_button, st.dataframe
RERUN_RATE = 10.0  # reruns a second a session may ask for, sustained (a person clicks far fewer)
RERUN_BURST = 30  # and at once, after a quiet while (a slider dragged, a test driving a page)


class RerunGate:
    """One session's rerun rate: a token bucket, and the newest rerun that waits for a token."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.tokens = float(RERUN_BURST)
        self.at = clock()
        self.waiting = None  # the newest rerun message not handled yet
        self.timer = None

    def take(self) -> float:
        """0 when a rerun may run now (a token taken), else the seconds until the next token."""
        now = self.clock()
        self.tokens = min(float(RERUN_BURST), self.tokens + (now - self.at) * RERUN_RATE)
        self.at = now
        if self.tokens >= 1 - 1e-9:  # a token refilled by the clock's own float sums counts as one
            self.tokens = max(0.0, self.tokens - 1)
            return 0.0
        return (1 - self.tokens) / RERUN_RATE


def _refused_once(session, kind: str) -> None:
    told = session.__dict__.setdefault("_attn_refused", set())
    if kind not in told and len(told) < 32:
        told.add(kind)
        _LOG.warning("refused a %s message from session %s (and any more of them)", kind, getattr(session, "id", "?"))


def gate(session, msg, handle) -> None:
    """What ui/streamlit_internals.gate_backmsgs runs for every message a client sends."""
    kind = msg.WhichOneof("type")
    if kind not in ALLOWED_MESSAGES:
        return _refused_once(session, str(kind))
    if kind == "backend_operation_request":
        payload = msg.backend_operation_request.WhichOneof("payload")
        if payload not in ALLOWED_OPERATIONS:
            return _refused_once(session, f"backend operation {payload}")
    if kind != "rerun_script":
        return handle(msg)
    bound_widget_states(msg.rerun_script.widget_states)
    rate = session.__dict__.get("_attn_reruns")
    if rate is None:
        rate = session.__dict__["_attn_reruns"] = RerunGate()
    wait = rate.take() if rate.waiting is None else None  # one is waiting: this one replaces it
    if wait == 0.0:
        return handle(msg)
    rate.waiting = msg if rate.waiting is None else merged(rate.waiting, msg)
    if rate.timer is None:
        rate.timer = _later(wait if wait is not None else 1 / RERUN_RATE, lambda: _flush(rate, handle))


WIDGET_TEXT_MAX = 8_000  # characters of one widget's text (the sentence box takes 2,000, a lesson text 1,200)
WIDGET_LIST_MAX = 512  # items of one widget's list value (a multiselect of heads: 30 x 9 at most)
WIDGET_ITEM_MAX = 256  # characters of one item of a list (an option's label)


def bound_widget_states(states) -> None:
    """Each widget's value as the server keeps it, bounded here: a text input's max_chars is the
    browser's alone, and Streamlit keeps up to server.maxWidgetStateSize (1 MB) a widget in the
    session (700 idle sockets with 950,000 characters in the room-code box: 417 -> 1,742 MB).
    A text is cut (the page then says what it kept), a JSON value past the bound (a component's
    report) becomes null, a list keeps its first WIDGET_LIST_MAX items of WIDGET_ITEM_MAX characters,
    bytes are dropped."""
    for w in states.widgets:
        which = w.WhichOneof("value")
        if which in ("string_value", "string_trigger_value"):
            value = getattr(w, which)
            text = value if which == "string_value" else value.data
            if len(text) > WIDGET_TEXT_MAX:
                if which == "string_value":
                    w.string_value = text[:WIDGET_TEXT_MAX]
                else:
                    w.string_trigger_value.data = text[:WIDGET_TEXT_MAX]
        elif which in ("json_value", "json_trigger_value") and len(getattr(w, which)) > WIDGET_TEXT_MAX:
            setattr(w, which, "null")
        elif which == "chat_input_value" and len(w.chat_input_value.data) > WIDGET_TEXT_MAX:
            w.chat_input_value.data = w.chat_input_value.data[:WIDGET_TEXT_MAX]
        elif which in ("double_array_value", "int_array_value", "string_array_value"):
            data = getattr(w, which).data
            if len(data) > WIDGET_LIST_MAX:
                del data[WIDGET_LIST_MAX:]
            if which == "string_array_value":
                for i, item in enumerate(data):
                    if len(item) > WIDGET_ITEM_MAX:
                        data[i] = item[:WIDGET_ITEM_MAX]
        elif which in ("bytes_value", "arrow_value") and w.ByteSize() > 64 * WIDGET_TEXT_MAX:
            w.ClearField(which)  # no widget of this app sends either


TRIGGERS = ("trigger_value", "string_trigger_value", "json_trigger_value", "chat_input_value")  # one-shot values


def merged(older, newer):
    """One rerun message that loses nothing of two: the newer's widget states (the client sends
    every widget's state with each rerun), a one-shot click of the older's that the newer lacks
    (a button pressed, then a slider moved), and a full rerun where either asked for one (or the
    two named different fragments)."""
    out = type(newer)()
    out.CopyFrom(newer)
    a, b = older.rerun_script, out.rerun_script
    if a.fragment_id != b.fragment_id:
        b.fragment_id = ""
        b.is_auto_rerun = False
    have = {w.id for w in b.widget_states.widgets}
    for w in a.widget_states.widgets:
        if w.WhichOneof("value") in TRIGGERS and w.id not in have:
            b.widget_states.widgets.add().CopyFrom(w)
    return out


def _flush(rate: RerunGate, handle) -> None:
    rate.timer = None
    if rate.waiting is None:
        return
    wait = rate.take()
    if wait:
        rate.timer = _later(wait, lambda: _flush(rate, handle))
        return
    msg, rate.waiting = rate.waiting, None
    handle(msg)


def _later(seconds: float, fn):
    """fn on the server's event loop after seconds (handle_backmsg runs on that loop)."""
    try:
        return asyncio.get_running_loop().call_later(seconds, fn)
    except RuntimeError:  # no loop (a test calling gate directly): a thread timer
        timer = threading.Timer(seconds, fn)
        timer.daemon = True
        timer.start()
        return timer


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


def refuse_messages() -> None:
    """clear_cache refused and every client message through gate(), for every session of this
    process; once (ui.serve calls it before the server answers, app.py's apply() on its first run)."""
    if "clear_cache" not in _DONE:
        refuse_clear_cache()
        internals.gate_backmsgs(gate)
        _DONE.add("clear_cache")


def apply() -> None:
    refuse_messages()
    if "routes" not in _DONE and close_routes():
        _DONE.add("routes")
