"""Following the teacher: the teacher opens a room, students join it and see the teacher's page,
sentence, model and view settings within about a second of each change.

The room lives in ui/rooms.py's store (SQLite by default, Redis with ATTN_ROOMS=redis://...), so a
student served by another replica follows just as well. The teacher's session publishes its page
and link parameters after every run (only when they changed); a student's banner is a fragment
that polls the store every POLL_S seconds and, on a new version, opens the teacher's view with
the student's own language and lesson answers kept. A student can detach (the banner stops
applying changes) and re-attach with one click.

The teacher's secret (the room's token) never appears in an address (issue 26): it lives in the
teacher's session, and for a reload in a cookie (COOKIE, path /, SameSite=Strict, as long as a
room lives), written by a two-line script in st.html (Streamlit has no API that sets a cookie;
st.context.cookies reads the cookies the browser sent when the session started). The teacher's
address bar shows the student link (?room=CODE). A ?teach= in a link is removed from the address
and never accepted; a stale secret (rotated from another tab, or the room closed) is refused
with a notice in the reader's language. The teacher can rotate the secret from the room panel.
A store that fails (rooms.StoreError) or is full (rooms.RoomsFull) gives a notice; the page keeps
working.
"""

from __future__ import annotations

import io
import json
import logging
import math
import secrets
import time
from urllib.parse import quote

import streamlit as st

from . import client_address, slots, state
from . import cookies as server_cookies
from .i18n import LANGS, lang, lang_from_locale, t, text_in
from .rooms import (
    MAX_STATE,
    TTL,
    RateLimited,
    RoomsFull,
    StateTooLarge,
    StoreError,
    format_code,
    normalize_code,
    rooms_from_setting,
)
from .safe import echo

_LOG = logging.getLogger(__name__)
COOKIE = "attn_teach"  # "CODE.TOKEN": the teacher's secret for a reload of the teacher's tab

POLL_S = 1.0
# never sent to students: the teacher token, the projector's presentation mode, the teacher's own
# lesson answers, the room code (the student has it), the teacher's language (each reader keeps theirs)
PRIVATE_PARAMS = ("teach", "present", "answers", "room", "lang")
# what a student keeps when the teacher's view is applied
KEEP = (
    "_room_code",
    "_room_token",
    "_room_follow",
    "_room_version",
    "_room_student",
    "_room_notice",
    "les_answers",
    "les_nick",
    "lang",
)
LESSON_S = 2.0  # seconds a room's shared lesson, once read, is used without asking the store again
# Pages a room never follows the teacher to (issue 37): the lesson editor shows the answers being
# written; the class stays on the page last published.
UNSHARED_PAGES = ("editor",)
NOTICE_S = 60  # a room notice (a refused or stale secret) stays at the top of the page this long


@st.cache_resource(show_spinner=False)
def store():
    """One connection factory per process; the rooms themselves are in the store, not here."""
    return rooms_from_setting()


class _OutsideSlots:
    """The store, each of its calls made with the run slot handed back (ui.slots.released): a store
    that hangs (until its timeout, ui/rooms.py) holds up the session that asked, not the class."""

    def __init__(self, rooms):
        self._rooms = rooms

    def __getattr__(self, name):
        attr = getattr(self._rooms, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            with slots.released():
                return attr(*args, **kwargs)

        return call


def _store() -> _OutsideSlots:
    return _OutsideSlots(store())


def client() -> list[tuple[str, str]]:
    """Who opens a room, for its rate limit (rooms.OPENS): this browser's id and the visitor's
    address (ui/client_address.py: the peer, or behind a trusted proxy the address it forwards;
    none for this machine itself, which then counts by its browser alone)."""
    out = [("browser", student_id())]
    try:
        address = client_address.visitor(st.context.ip_address, st.context.headers)
    except Exception:  # noqa: BLE001  (no browser: a bare script run)
        address = None
    if address:
        out.append(("address", client_address.bucket(address)))  # an IPv6 visitor by its /64
    return out


def code() -> str | None:
    return st.session_state.get("_room_code")


def is_teacher() -> bool:
    return bool(code() and st.session_state.get("_room_token"))


def verified_teacher() -> str | None:
    """The room code when this session holds the live room's teacher secret, checked against the
    store now (a rotated secret or an ended room: None); StoreError when the store cannot say."""
    if not is_teacher():
        return None
    return code() if _store().check(code(), st.session_state["_room_token"]) else None


def following() -> bool:
    return bool(code() and not is_teacher() and st.session_state.get("_room_follow", True))


BROWSER_COOKIE = client_address.BROWSER_COOKIE  # a random id this browser keeps: one vote per browser and step
BROWSER_COOKIE_AGE = 180 * 24 * 3600


def student_id() -> str:
    """This browser's id for the room's answers: the attn_browser cookie it sent when the session
    started, else a new random id that write_cookie() stores in the browser. Every tab
    of one browser answers as one student (a second answer replaces the first)."""
    if "_room_student" not in st.session_state:
        kept = _cookies().get(BROWSER_COOKIE, "")
        if len(kept) == 16 and all(ch in "0123456789abcdef" for ch in kept):
            st.session_state["_room_student"] = kept
        else:
            st.session_state["_room_student"] = secrets.token_hex(8)
    return st.session_state["_room_student"]


def _reader_lang() -> str:
    """The reader's language, also in a session's first run before the sidebar set it (from_link
    runs first): the link's lang=, else the browser's locale, as ui.context's sidebar will choose."""
    if "lang" in st.session_state:
        return lang()
    linked = st.query_params.get("lang")
    return linked if linked in LANGS else lang_from_locale(getattr(st.context, "locale", None))


def _t(key: str, **params) -> str:
    """t() in _reader_lang(): for the notices from_link makes before the sidebar runs."""
    return text_in(_reader_lang(), key, **params)


def store_failed(e: Exception) -> str:
    """The notice for a store that failed; the reason goes to the server's log only."""
    _LOG.warning("room store failed: %r (cause %r)", e, e.__cause__)
    return _t("room_store_error")


STORE_TOAST_S = 10.0  # a store that failed is told once in this many seconds, however many calls failed


def toast_store_failed(e: Exception) -> None:
    """The store-failed toast, once per STORE_TOAST_S in a session: one outage fails every store
    call of a run (the lessons page made three), and the teacher read the same toast three times
    (issue 45). Every failure still goes to the server's log."""
    message = store_failed(e)
    now = time.monotonic()
    if now - st.session_state.get("_room_store_toast_at", -STORE_TOAST_S) < STORE_TOAST_S:
        return
    st.session_state["_room_store_toast_at"] = now
    st.toast(message, icon="⚠️")


def _get(room_code: str):
    """The room, or None when there is none or the store cannot be read (a notice says which)."""
    try:
        return _store().get(room_code)
    except StoreError as e:
        st.session_state["_room_error"] = store_failed(e)
        return None


def _tell(message: str) -> None:
    """A notice at the top of the page for NOTICE_S seconds: it outlives the switch to the
    teacher's view that a student's first poll makes (which clears the session's other notices)."""
    st.session_state["_room_notice"] = (message, time.time())


def _cookies() -> dict:
    """The cookies the browser sent when this session started (read only)."""
    try:
        return st.context.cookies.to_dict()
    except Exception:  # no browser (a bare script run)
        return {}


def _cookie_token(room_code: str) -> str | None:
    """The teacher secret this browser keeps for room_code."""
    raw = _cookies().get(COOKIE) or ""
    cookie_code, _, token = raw.partition(".")
    return token if cookie_code == room_code and token else None


def _remember(room_code: str | None, token: str | None) -> None:
    """Ask the next run to write (or, with None, to delete) this browser's teacher cookie."""
    st.session_state["_room_cookie"] = f"{room_code}.{token}" if room_code and token else ""
    st.session_state["_room_cookie_forgotten"] = not (room_code and token)


def write_cookie() -> None:
    """Write the teacher cookie asked for by _remember and the student's browser id (a script in
    st.html, run once in the browser). Under ui.serve the teacher cookie is set by the server,
    HttpOnly (ui.cookies: the script only fetches a one-time address), so no script in the page
    can read the secret; elsewhere the script writes it. The values are a room code and URL-safe
    tokens; json.dumps quotes them for the script."""
    cookies, fetches = [], []
    value = st.session_state.pop("_room_cookie", None)
    if value is not None:
        nonce = server_cookies.ask(COOKIE, value, 0 if not value else TTL)
        if nonce is not None:
            base = st.get_option("server.baseUrlPath")
            fetches.append(f"{server_cookies.path(base)}?n={nonce}")
        else:
            cookies.append(f"{COOKIE}={value}; path=/; max-age={0 if not value else TTL}; SameSite=Strict")
    # the browser id on every run until the browser sends it back (a new session: a reload): a
    # student who arrives by the room link is switched to the teacher's page in the same run
    # (_apply), which drops that run's script before the browser runs it, so written once it never was
    student = st.session_state.get("_room_student")
    browser = ""
    if student and _cookies().get(BROWSER_COOKIE) != student:
        browser = browser_id_script(student)
    if not cookies and not fetches and not browser:
        return
    secure = " + (location.protocol === 'https:' ? '; Secure' : '')"
    st.html(
        "<script>"
        + "".join(f"document.cookie = {json.dumps(c)}{secure};" for c in cookies)
        + "".join(f"fetch({json.dumps(u)}, {{credentials: 'same-origin', cache: 'no-store'}});" for u in fetches)
        + browser
        + "</script>",
        unsafe_allow_javascript=True,
    )


def browser_id_script(student: str) -> str:
    """The script that keeps this browser's one id: written when the browser has none; when another
    tab of the browser wrote its own meanwhile (two tabs opened before either had the cookie), this
    tab reloads, so its new session reads that id and the browser votes once (issue 45)."""
    cookie = f"{BROWSER_COOKIE}={student}; path=/; max-age={BROWSER_COOKIE_AGE}; SameSite=Lax"
    secure = " + (location.protocol === 'https:' ? '; Secure' : '')"
    return (
        "(function () {"
        f"var kept = document.cookie.match(/(?:^|; ){BROWSER_COOKIE}=([0-9a-f]{{16}})(?:;|$)/);"
        f"if (kept && kept[1] !== {json.dumps(student)}) {{ location.reload(); return; }}"
        f"if (!kept) {{ document.cookie = {json.dumps(cookie)}{secure}; }}"
        "})();"
    )


def _become_student(room_code: str, message: str | None = None) -> None:
    student_id()  # this browser's id, read from its cookie or made now (and written this run)
    st.session_state.pop("_room_token", None)
    st.session_state.pop("_room_published", None)
    st.session_state.update(_room_code=room_code, _room_follow=True, _room_version=-1)
    if message:
        st.session_state["_room_error"] = message


def _join(room_code: str) -> bool:
    if _get(room_code) is None:
        return False
    _become_student(room_code)
    return True


def from_link() -> None:
    """?room=CODE joins that room: as its teacher when this browser's cookie holds the room's
    secret, else as a student. A ?teach= in the link is taken out of the address and refused.
    Call before the sidebar."""
    raw, token = st.query_params.get("room"), st.query_params.get("teach")
    if token is not None:
        del st.query_params["teach"]  # never left in an address, never accepted
        _tell(_t("room_secret_not_in_links"))
    if raw is None or st.session_state.get("_room_link") == raw:
        return
    st.session_state["_room_link"] = raw
    room_code = normalize_code(raw)
    if room_code is not None and code() == room_code:
        return  # already in it (as its teacher or a student)
    room = _get(room_code) if room_code is not None else None
    if room is None:
        if "_room_error" not in st.session_state:
            state.notice(_t("room_not_found", code=echo(raw, 9)))
        return
    kept = _cookie_token(room_code)
    try:
        teacher = bool(kept) and _store().check(room_code, kept)
    except StoreError as e:
        teacher, st.session_state["_room_error"] = False, store_failed(e)
    if teacher:
        st.session_state.update(_room_code=room_code, _room_token=kept, _room_published=None)
    else:
        if kept:  # this browser's secret for the room no longer opens it
            _remember(None, None)
            _tell(_t("room_secret_stale", code=format_code(room_code)))
        _become_student(room_code)


def _open() -> None:
    try:
        room_code, token = _store().create(clients=client())
    except RateLimited as e:
        st.session_state["_room_error"] = t("room_rate_limited", minutes=max(1, math.ceil(e.retry_after / 60)))
        return
    except RoomsFull:
        st.session_state["_room_error"] = t("room_full")
        return
    except StoreError as e:
        st.session_state["_room_error"] = store_failed(e)
        return
    st.session_state.update(_room_code=room_code, _room_token=token, _room_published=None, _room_link=room_code)
    _remember(room_code, token)


def _rotate() -> None:
    """A new teacher secret: every other tab, browser or copy holding the old one is locked out."""
    try:
        new = _store().rotate(code(), st.session_state["_room_token"])
    except (KeyError, PermissionError):
        _tell(t("room_secret_stale", code=format_code(code())))
        _become_student(code())
        return
    except StoreError as e:
        st.session_state["_room_error"] = store_failed(e)
        return
    st.session_state["_room_token"] = new
    _remember(code(), new)
    st.session_state["_room_info"] = t("room_secret_rotated")


def _close() -> None:
    if is_teacher():
        try:
            _store().close(code(), st.session_state["_room_token"])
        except (KeyError, PermissionError):
            pass
        except StoreError as e:
            st.session_state["_room_error"] = store_failed(e)
        _remember(None, None)
    for key in ("_room_code", "_room_token", "_room_published", "_room_link"):
        st.session_state.pop(key, None)


def _join_typed() -> None:
    typed = normalize_code(st.session_state.get("_room_typed", ""))
    if typed is None or not _join(typed):
        if "_room_error" not in st.session_state:
            st.session_state["_room_error"] = t("room_not_found", code=echo(st.session_state.get("_room_typed"), 12))


def _detach() -> None:
    st.session_state["_room_follow"] = False


def _attach() -> None:
    st.session_state.update(_room_follow=True, _room_version=-1)


def room_link(room_code: str) -> str:
    """The address students open: this page of this server with ?room=CODE."""
    url = (getattr(st.context, "url", None) or "").split("?")[0].split("#")[0]
    return f"{url}?room={quote(room_code)}"


def qr_png(text: str, scale: int = 8) -> bytes:
    """A QR code of text as PNG, drawn here on the server (segno, no network)."""
    import segno

    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="png", scale=scale, border=2, dark="#000000")
    return buf.getvalue()


def qr_alt() -> str:
    """The QR code's text alternative: what it opens, for a screen reader (and the code to type)."""
    return t("room_qr_alt", code=format_code(code()), link=room_link(code()))


def sidebar_panel() -> None:
    """The sidebar's classroom section: open / close a room and rotate its secret (teacher), join
    one (student); the store's notices."""
    write_cookie()
    error = st.session_state.pop("_room_error", None)
    info = st.session_state.pop("_room_info", None)
    with st.expander(t("room_section"), icon="🏫", expanded=bool(code() or error or info)):
        if is_teacher():
            st.markdown(t("room_teacher_open", code=format_code(code())))
            st.image(qr_png(room_link(code())), width=160, caption=room_link(code()), alt=qr_alt())
            st.button(t("room_rotate"), on_click=_rotate, key="_room_rotate_btn", help=t("room_rotate_help"))
            st.button(t("room_close"), on_click=_close, key="_room_close_btn")
        elif code():
            st.markdown(t("room_student_in", code=format_code(code())))
            st.button(t("room_leave"), on_click=_close, key="_room_leave_btn")
        else:
            st.button(t("room_open"), on_click=_open, key="_room_open_btn", help=t("room_open_help"))
            st.text_input(
                t("room_code"), key="_room_typed", max_chars=12, placeholder="ABCD-EFGH", on_change=_join_typed
            )
            st.button(t("room_join"), on_click=_join_typed, key="_room_join_btn")
        if error:
            st.warning(error, icon="⚠️")
        if info:
            st.success(info, icon="🔑")


def banner(pages, here: str) -> None:
    """At the top of every page: the teacher's room code (and its QR code on demand); a student's
    follow / detach line, with the fragment that keeps the student on the teacher's view. here:
    the url_path of the page this run shows."""
    note = st.session_state.get("_room_notice")
    if note and time.time() - note[1] < NOTICE_S:
        st.warning(note[0], icon="🔒")
    elif note:
        del st.session_state["_room_notice"]
    if is_teacher():
        if st.session_state.get("present"):
            return  # on the projector: one line in the title row (title_badge, from ui.layout.page_header)
        title_badge()
    elif following():
        _follow(pages, here)
    elif code():
        # detached: no polling; the button reruns the whole app, whose banner then follows again at once
        with st.container(horizontal=True, vertical_alignment="center"):
            st.markdown(t("room_detached", code=format_code(code())))
            st.button(t("room_attach"), on_click=_attach, key="_room_attach_btn", icon="👀", type="primary")


def title_badge() -> None:
    """The teacher's room code (ui.layout: 32 px, 48 px on the projector) and its QR code one
    click away; in presentation mode drawn inside the title row, so a room pushes nothing down
    (issue 37: the banner above the title took about 85 px of a 1280 x 800 projector)."""
    if not is_teacher():
        return
    with st.container(horizontal=True, vertical_alignment="center", key="room_banner", width="content"):
        # on the projector the title row holds the title, this, the page menu and the way out
        # (1280 px): the short texts, so the row stays one line
        present = bool(st.session_state.get("present"))
        st.markdown(t("room_badge" if present else "room_banner_teacher", code=format_code(code())), width="content")
        with st.popover(t("room_qr_short" if present else "room_show_qr"), icon="📱", help=t("room_show_qr")):
            st.image(qr_png(room_link(code()), scale=12), width=420, alt=qr_alt())
            st.markdown(t("room_join_at", code=format_code(code()), link=room_link(code())))


def to_apply(version: int, applied: int | None, arriving: str | None, here: str) -> bool:
    """Whether a poll opens the room's view: a version this student has not applied, or one applied
    whose page switch never arrived (arriving: the page _apply switched to, until a run shows it).
    The version is marked applied as the switch is asked for (the sentence box's key is built from
    it, ui/context.py), so a switch that a rerun took the place of would otherwise leave the student
    on the old page until the teacher's next change."""
    return version != applied or (arriving is not None and arriving != here)


@st.fragment(run_every=POLL_S)
def _follow(pages, here: str) -> None:
    try:
        room = _store().get(code()) if code() else None
    except StoreError as e:  # the store is down for a moment: say so, keep polling, keep the page
        store_failed(e)
        st.warning(t("room_store_error"), icon="⚠️")
        return
    if room is None:
        st.warning(t("room_ended"), icon="🏁")
        return
    if not following():  # detached by the button below: the next full run shows the detached line
        st.rerun(scope="app")
    with st.container(horizontal=True, vertical_alignment="center"):
        st.markdown(t("room_following", code=format_code(room.code)))
        st.button(t("room_detach"), on_click=_detach, key="_room_detach_btn", icon="🧭")
    if st.session_state.get("_room_arriving") == here:
        st.session_state.pop("_room_arriving", None)  # the switch arrived (or none was pending)
    applied, arriving = st.session_state.get("_room_version"), st.session_state.get("_room_arriving")
    if to_apply(room.version, applied, arriving, here) and "page" in room.state:
        # the room this poll read, applied from here: st.switch_page asks for one full rerun on the
        # teacher's page (a rerun of the app first, then a second store read, cost two more)
        _apply(room, pages)


def _apply(room, pages) -> None:
    """Open the teacher's view: their page with their parameters, this student's own keys kept."""
    target = next((p for p in pages if p.url_path == room.state["page"]), None)
    if target is None:
        return
    kept = {k: st.session_state[k] for k in KEEP if k in st.session_state}
    params = {k: v for k, v in room.state.get("params", {}).items() if k not in PRIVATE_PARAMS}
    params["room"] = room.code
    if "lang" in kept:
        params["lang"] = kept["lang"]
    for key in list(st.session_state.keys()):
        del st.session_state[key]
    st.session_state.update(kept)
    st.session_state["_room_version"] = room.version
    st.session_state["_room_arriving"] = target.url_path  # cleared by the poll of the page it opens
    st.session_state["_room_link"] = room.code
    st.switch_page(target, query_params=params)


def publish(url_path: str | None) -> None:
    """The teacher's view of the page at url_path ("" is the home page) into the room, after the
    page wrote its settings into the URL."""
    if not is_teacher() or url_path is None or url_path in UNSHARED_PAGES:
        return
    link = getattr(state, "link_params", None)  # the keys this run's page knows, when ui/state has it
    params = link() if link else st.query_params.to_dict()
    params = {k: v for k, v in params.items() if k not in PRIVATE_PARAMS}
    view = {"page": url_path, "params": params}
    if st.session_state.get("_room_published") == view:
        return
    shared, dropped = _fit(view)
    try:
        _store().publish(code(), st.session_state["_room_token"], shared)
        st.session_state["_room_published"] = view
        if dropped:
            st.toast(t("room_state_trimmed", keys=echo(", ".join(dropped), 80)), icon="✂️")
    except PermissionError:  # the secret was rotated from another tab or browser
        room_code = code()
        _remember(None, None)
        _become_student(room_code)
        _tell(t("room_secret_stale", code=format_code(room_code)))
        st.toast(t("room_secret_stale", code=format_code(room_code)), icon="🔒")
    except KeyError:  # the room expired or was closed elsewhere
        _close()
        st.toast(t("room_ended"), icon="🏁")
    except StoreError as e:  # a full disk, a broken store: the teacher's page keeps working
        toast_store_failed(e)


def _size(view: dict) -> int:
    return len(json.dumps(view, ensure_ascii=False, sort_keys=True).encode())


def _fit(view: dict) -> tuple[dict, list[str]]:
    """The view as the room can hold it (at most rooms.MAX_STATE bytes): the largest parameters
    dropped until it fits (students then keep their own value of those), and their names."""
    params, dropped = dict(view["params"]), []
    while _size({**view, "params": params}) > MAX_STATE - 64 and params:
        largest = max(params, key=lambda k: len(json.dumps(params[k], ensure_ascii=False).encode()) + len(k))
        dropped.append(largest)
        del params[largest]
    return {**view, "params": params}, dropped


def publish_again() -> None:
    """After a partial rerun (ui.context.partial: app.py's own publish does not run), the
    teacher's changed view on the page last published."""
    last = st.session_state.get("_room_published")
    if last:
        publish(last["page"])


def link_params() -> dict:
    """The room parameters the address bar keeps (so a reload stays in the room)."""
    return {"room": code() or None, "teach": None}  # the secret never goes into the address


def record_answer(step_id: str, choice: int) -> None:
    if code() and not is_teacher():
        try:
            _store().answer(code(), step_id, student_id(), choice)
        except KeyError:
            pass
        except StoreError as e:
            toast_store_failed(e)


def answer_counts(step_id: str) -> dict[int, int] | None:
    """How the room's students answered this step ({choice: count}); None outside a teacher's room."""
    if not is_teacher():
        return None
    try:
        return _store().answers(code(), step_id)
    except StoreError as e:  # the teacher is told (a hung store too: it timed out), the page goes on
        toast_store_failed(e)
        return {}


# -- a lesson the teacher shares, and the class's results (lessons page) ---------------------------------


def room_lesson() -> str | None:
    """The lesson file the room's teacher shared (None outside a room or when none is shared)."""
    if not code():
        return None
    # one read per LESSON_S: the lessons page asks several times a run (the picker's titles, the steps)
    kept = st.session_state.get("_room_lesson")
    if kept and kept[0] == code() and time.monotonic() - kept[2] < LESSON_S:
        return kept[1]
    try:
        text = _store().lesson(code())
    except StoreError as e:
        store_failed(e)
        text = kept[1] if kept and kept[0] == code() else None  # the last one read, while the store is away
    st.session_state["_room_lesson"] = (code(), text, time.monotonic())
    return text


def share_lesson(text: str) -> bool:
    """The teacher's own lesson into the room store (its own bounded key, gone with the room)."""
    if not is_teacher():
        return False
    try:
        _store().set_lesson(code(), st.session_state["_room_token"], text)
        return True
    except StateTooLarge:
        st.toast(t("room_lesson_too_large"), icon="✂️")
    except (KeyError, PermissionError):
        pass
    except StoreError as e:
        toast_store_failed(e)
    return False


def set_nickname(nick: str) -> None:
    """A student's nickname for the teacher's results (empty: anonymous again)."""
    if code() and not is_teacher():
        try:
            _store().set_nickname(code(), student_id(), nick)
        except KeyError:
            pass
        except StoreError as e:
            toast_store_failed(e)


def results_reader():
    """A function of no arguments that reads the room's answers and nicknames when it is called,
    also outside this session's script run (a download made when the teacher clicks it, on
    Streamlit's own thread, holds the answers given up to the click); None outside a teacher's room."""
    if not is_teacher():
        return None
    rooms, room = store(), code()
    return lambda: (rooms.results(room), rooms.nicknames(room))
