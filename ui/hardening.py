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
- A rerun's whole client state, not only its widgets' values (bound_client_state): Streamlit keeps the
  last one in the session (AppSession._client_state) and its cached-message hashes as a frozenset
  (about 14 bytes of Python per byte sent), so 30 idle sockets that each sent one 950 kB rerun of
  hashes took a server 379 -> 590 MB, of query string 379 -> 438 MB, of context url 379 -> 462 MB,
  of 20,000 unknown widgets 379 -> 479 MB (the 1 MB server.maxWidgetStateSize is per message).
- file_urls_request: Streamlit makes an upload url per file name on the event loop; one 1 MB
  message of 300,000 one-letter names took 11 s and answered 50 MB. Only a session that drew the
  lesson uploader may ask, for at most UPLOAD_FILES names, URL_REQUEST_RATE a second.
- A client's message over INBOUND_MAX bytes closes its websocket before it is read (under
  `python -m ui.serve`): Streamlit's server read up to server.maxMessageSize (50 MB) before its
  own 1 MB check, and its receive loop keeps the last message's bytes and parse until the next
  one, so 60 idle sockets that each sent 950 kB held 105 MB (379 -> 484 MB) however it was bounded.
- Reruns: at most RERUN_RATE (10) a second per session after a burst of RERUN_BURST (30). A rerun message
  carries every widget's state, so the newest one waiting replaces the older and is handled when
  the session's rate allows: a flood costs the server RERUN_RATE runs a second and the visitor
  loses no input (4 sockets x 50 reruns a second had served the class 0-1 sentence in 30 s). One
  script thread per session: a rerun while the session's run goes is handed to that run
  (.streamlit/config.toml runner.fastReruns = false: it restarts at its next Streamlit call or
  slot wait, ui/slots.py), and a rerun while a stopped run has not ended yet waits for it here;
  a stop_script costs a rerun's token (a stop and a rerun, 50 pairs a second, started a thread
  each). The whole run is in a run slot (app.py), so what a session's runs cost is counted by the
  fair slots.
Streamlit has no setting for any of these (server.maxUploadSize only bounds one file);
deploy/nginx.conf also closes both routes in front of the app. What is refused, and the limits,
are here; how Streamlit's runtime is reached to refuse them is ui/streamlit_internals.py, the one
module allowed past Streamlit's public API.
"""

from __future__ import annotations

import asyncio
import json
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
INBOUND_MAX = 128 * 1024  # bytes of one client message (the largest a page sends, a 2,000-character
# Chinese sentence in the link, the box and the context's url with the widgets: about 45 kB)
RERUN_RATE = 10.0  # reruns a second a session may ask for, sustained (a person clicks far fewer)
RERUN_BURST = 30  # and at once, after a quiet while (a slider dragged, a test driving a page)
STOPPING_LOOK = 0.02  # seconds between looks at a stopped run that has not ended yet (a rerun waits for it)


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
    if kind == "file_urls_request" and not _file_urls_allowed(session, msg.file_urls_request):
        return _refused_once(session, "file_urls_request")
    if kind == "backend_operation_request":
        payload = msg.backend_operation_request.WhichOneof("payload")
        if payload not in ALLOWED_OPERATIONS:
            return _refused_once(session, f"backend operation {payload}")
    if kind == "stop_script":  # a stop and a rerun start a thread each: a stop costs a rerun's token
        if _rate(session).take() != 0.0:
            return _refused_once(session, "stop_script (over the rerun rate)")
        return handle(msg)
    if kind != "rerun_script":
        return handle(msg)
    msg = bounded_rerun(msg)
    rate = _rate(session)
    stopping = internals.run_stopping(session)  # Streamlit would start a second thread beside it
    wait = rate.take() if rate.waiting is None and not stopping else None  # one is waiting: this replaces it
    if wait == 0.0:
        return handle(msg)
    rate.waiting = msg if rate.waiting is None else merged(rate.waiting, msg)
    if rate.timer is None:
        after = STOPPING_LOOK if stopping else wait if wait is not None else 1 / RERUN_RATE
        rate.timer = _later(after, lambda: _flush(rate, handle, session))


def _rate(session) -> RerunGate:
    rate = session.__dict__.get("_attn_reruns")
    if rate is None:
        rate = session.__dict__["_attn_reruns"] = RerunGate()
    return rate


WIDGET_TEXT_MAX = 8_000  # characters of one widget's text (the sentence box takes 2,000, a lesson text 1,200)
WIDGET_LIST_MAX = 512  # items of one widget's list value (a multiselect of heads: 30 x 9 at most)
WIDGET_ITEM_MAX = 256  # characters of one item of a list (an option's label)


def bound_widget_states(states) -> None:
    """Each widget's value as the server keeps it, bounded here: a text input's max_chars is the
    browser's alone, and Streamlit keeps up to server.maxWidgetStateSize (1 MB) a widget in the
    session (700 idle sockets with 950,000 characters in the room-code box: 417 -> 1,742 MB).
    A text is cut (the page then says what it kept), a JSON value past the bound or not JSON (a
    component's report) becomes null, a list keeps its first WIDGET_LIST_MAX items of WIDGET_ITEM_MAX characters,
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
        elif which in ("json_value", "json_trigger_value") and not _strict_json(getattr(w, which)):
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


QUERY_MAX = 24_000  # characters of a link's query (a 2,000-character Chinese text percent-encoded: 18,000)
NAME_MAX = 256  # characters of a page name, page hash, fragment id or widget id
CONTEXT_MAX = 64  # characters of the browser's timezone, locale and colour scheme
HASHES_MAX = 1_000  # cached-message hashes a rerun may name (the browser's cache holds a page's elements)
WIDGETS_MAX = 1_000  # widget states one rerun carries (the editor draws 32 at its start, ids of at most 58 characters)
CLIENT_STATE_MAX = 200_000  # bytes of a whole rerun's client state, once each part is bounded (700 idle tabs: 140 MB)


def _cut_query(query: str) -> str:
    if len(query) <= QUERY_MAX:
        return query
    cut = query[:QUERY_MAX]
    return cut[: cut.rfind("&")] if "&" in cut else ""


def bound_client_state(rs) -> None:
    """Every part of a rerun message the session keeps, bounded: the widgets' values
    (bound_widget_states), their ids and number, the query, page and fragment names, the browser's
    context, the cached-message hashes (hex digests; dropping one only makes the server send that
    element again), and the whole at CLIENT_STATE_MAX bytes (the last widgets dropped past it)."""
    rs.query_string = _cut_query(rs.query_string)
    for name in ("page_name", "page_script_hash", "fragment_id"):
        if len(getattr(rs, name)) > NAME_MAX:
            setattr(rs, name, "")
    hashes = [h for h in rs.cached_message_hashes[:HASHES_MAX] if len(h) <= 64]
    if len(hashes) != len(rs.cached_message_hashes):
        del rs.cached_message_hashes[:]
        rs.cached_message_hashes.extend(hashes)
    if rs.HasField("context_info"):
        ci = rs.context_info
        for name in ("timezone", "locale", "color_scheme"):
            if len(getattr(ci, name)) > CONTEXT_MAX:
                setattr(ci, name, "")
        if len(ci.url) > QUERY_MAX + 2 * NAME_MAX:
            ci.url = ""
    widgets = rs.widget_states.widgets
    keep = [w for w in widgets[:WIDGETS_MAX] if len(w.id) <= NAME_MAX]
    if len(keep) != len(widgets):
        kept = [type(w)() for w in keep]
        for new, old in zip(kept, keep):
            new.CopyFrom(old)
        del widgets[:]
        widgets.extend(kept)
    bound_widget_states(rs.widget_states)
    total = rs.ByteSize() - rs.widget_states.ByteSize()
    for i, w in enumerate(widgets):
        total += w.ByteSize() + 8  # its tag and length
        if total > CLIENT_STATE_MAX:
            del widgets[i:]
            break


def bounded_rerun(msg):
    """A new message holding the bounded client state: protobuf's C runtime keeps a message's
    memory in one arena, freed only with the whole message, so a field cut in place still held the
    950 kB it was parsed from for as long as the session kept the message (12 idle sessions: +80 MB
    with the parts cut, +101 MB without)."""
    if msg.ByteSize() <= CLIENT_STATE_MAX // 2:
        bound_client_state(msg.rerun_script)  # only the widgets' values can be over: cut in place
        return msg
    bound_client_state(msg.rerun_script)
    out = type(msg)()
    out.CopyFrom(msg)
    return out


SHRINK_OVER = 16_000  # bytes of a client message past which it is parsed, bounded and re-serialized


def shrink_inbound(data):
    """A client message as Streamlit's websocket loop gets it: over SHRINK_OVER bytes, parsed here,
    its client state bounded (bound_client_state), an upload-url request's names cut, unknown fields
    dropped, and serialized again. The loop keeps the last message and its parse until the next
    one, and a parse of many small strings is about 8 bytes of memory a byte sent (one 120 kB rerun
    of 20,000 cached-message hashes: 1 MB per idle socket), so the gate's bound alone left it."""
    if not isinstance(data, (bytes, bytearray)) or len(data) <= SHRINK_OVER:
        return data
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    try:
        msg.ParseFromString(data)
    except Exception:  # noqa: BLE001  (not a BackMsg: Streamlit closes the socket for it)
        return data
    kind = msg.WhichOneof("type")
    if kind == "rerun_script":
        bound_client_state(msg.rerun_script)
    elif kind == "file_urls_request":
        del msg.file_urls_request.file_names[UPLOAD_FILES:]
    msg.DiscardUnknownFields()
    return msg.SerializeToString()


URL_REQUEST_RATE = 1.0  # upload-url requests a second a session may make, after a burst of URL_REQUEST_BURST
URL_REQUEST_BURST = 5


def _file_urls_allowed(session, request) -> bool:
    """An upload-url request from a session that drew the lesson uploader, within its rate; its
    names cut to UPLOAD_FILES (the uploader takes one file)."""
    with _LOCK:
        drew = getattr(session, "id", None) in _UPLOADERS
    if not drew:
        return False
    bucket = session.__dict__.get("_attn_url_requests")
    now = time.monotonic()
    tokens, at = bucket if bucket else (float(URL_REQUEST_BURST), now)
    tokens = min(float(URL_REQUEST_BURST), tokens + (now - at) * URL_REQUEST_RATE)
    if tokens < 1:
        session.__dict__["_attn_url_requests"] = (tokens, now)
        return False
    session.__dict__["_attn_url_requests"] = (tokens - 1, now)
    if len(request.file_names) > UPLOAD_FILES:
        del request.file_names[UPLOAD_FILES:]
    return True


def _no_constant(name: str):
    raise ValueError(name)


def _strict_json(text: str) -> bool:
    """Within WIDGET_TEXT_MAX and JSON as a browser's JSON.stringify writes it (no NaN, no
    Infinity). Streamlit parses a component's value on every later run of the session, on any page:
    one report that was not JSON put its JSONDecodeError box on every page until the tab closed."""
    if len(text) > WIDGET_TEXT_MAX:
        return False
    try:
        json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return False
    return True


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


def _flush(rate: RerunGate, handle, session=None) -> None:
    rate.timer = None
    if rate.waiting is None:
        return
    if session is not None and internals.run_stopping(session):  # its stopped run has not ended yet
        rate.timer = _later(STOPPING_LOOK, lambda: _flush(rate, handle, session))
        return
    wait = rate.take()
    if wait:
        rate.timer = _later(wait, lambda: _flush(rate, handle, session))
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
    """clear_cache refused, every client message through gate() and none over INBOUND_MAX, for every session of this
    process; once (ui.serve calls it before the server answers, app.py's apply() on its first run)."""
    if "clear_cache" not in _DONE:
        internals.bound_inbound_frames(INBOUND_MAX)
        internals.filter_inbound(shrink_inbound)
        refuse_clear_cache()
        internals.gate_backmsgs(gate)
        _DONE.add("clear_cache")


def apply() -> None:
    refuse_messages()
    internals.poll_files_every()  # a bare `streamlit run app.py` too (ui.serve's servers before they start)
    if "routes" not in _DONE and close_routes():
        _DONE.add("routes")
