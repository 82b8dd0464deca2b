"""Following the teacher: the teacher opens a room, students join it and see the teacher's page,
sentence, model and view settings within about a second of each change.

The room lives in ui/rooms.py's store (SQLite by default, Redis with ATTN_ROOMS=redis://...), so a
student served by another replica follows just as well. The teacher's session publishes its page
and link parameters after every run (only when they changed); a student's banner is a fragment
that polls the store every POLL_S seconds and, on a new version, opens the teacher's view with
the student's own language and lesson answers kept. A student can detach (the banner stops
applying changes) and re-attach with one click. Only the session holding the teacher token
(?teach=..., never in copied links) can change the room.
"""

from __future__ import annotations

import io
import secrets
from urllib.parse import quote

import streamlit as st

from . import state
from .i18n import t
from .rooms import format_code, normalize_code, rooms_from_setting

POLL_S = 1.0
# never sent to students: the teacher token, the projector's presentation mode, the teacher's own
# lesson answers, the room code (the student has it), the teacher's language (each reader keeps theirs)
PRIVATE_PARAMS = ("teach", "present", "answers", "room", "lang")
# what a student keeps when the teacher's view is applied
KEEP = ("_room_code", "_room_token", "_room_follow", "_room_version", "_room_student", "les_answers", "lang")


@st.cache_resource(show_spinner=False)
def store():
    """One connection factory per process; the rooms themselves are in the store, not here."""
    return rooms_from_setting()


def code() -> str | None:
    return st.session_state.get("_room_code")


def is_teacher() -> bool:
    return bool(code() and st.session_state.get("_room_token"))


def following() -> bool:
    return bool(code() and not is_teacher() and st.session_state.get("_room_follow", True))


def student_id() -> str:
    return st.session_state.setdefault("_room_student", secrets.token_hex(8))


def _join(room_code: str) -> bool:
    if store().get(room_code) is None:
        return False
    st.session_state.update(_room_code=room_code, _room_follow=True, _room_version=-1)
    st.session_state.pop("_room_token", None)
    return True


def from_link() -> None:
    """?room=CODE joins that room (as its teacher when ?teach= holds its token). Call before the sidebar."""
    raw, token = st.query_params.get("room"), st.query_params.get("teach")
    if raw is None or st.session_state.get("_room_link") == (raw, token):
        return
    st.session_state["_room_link"] = (raw, token)
    room_code = normalize_code(raw)
    if room_code is None or store().get(room_code) is None:
        state.notice(t("room_not_found", code=format_code(raw[:8])))
        return
    if token and store().check(room_code, token):
        st.session_state.update(_room_code=room_code, _room_token=token)
    elif code() != room_code:
        _join(room_code)


def _open() -> None:
    room_code, token = store().create()
    st.session_state.update(_room_code=room_code, _room_token=token, _room_published=None)


def _close() -> None:
    if is_teacher():
        try:
            store().close(code(), st.session_state["_room_token"])
        except (KeyError, PermissionError):
            pass
    for key in ("_room_code", "_room_token", "_room_published", "_room_link"):
        st.session_state.pop(key, None)


def _join_typed() -> None:
    typed = normalize_code(st.session_state.get("_room_typed", ""))
    if typed is None or not _join(typed):
        st.session_state["_room_error"] = t("room_not_found", code=(st.session_state.get("_room_typed") or "")[:12])


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


def sidebar_panel() -> None:
    """The sidebar's classroom section: open / close a room (teacher), join one (student)."""
    with st.expander(t("room_section"), icon="🏫", expanded=bool(code())):
        if is_teacher():
            st.markdown(t("room_teacher_open", code=format_code(code())))
            st.image(qr_png(room_link(code())), width=160, caption=room_link(code()))
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
            error = st.session_state.pop("_room_error", None)
            if error:
                st.warning(error, icon="⚠️")


def banner(pages) -> None:
    """At the top of every page: the teacher's room code (and its QR code on demand); a student's
    follow / detach line, with the fragment that keeps the student on the teacher's view."""
    if is_teacher():
        with st.container(horizontal=True, vertical_alignment="center", key="room_banner"):  # ui.layout: 56 px code
            st.markdown(t("room_banner_teacher", code=format_code(code())))
            with st.popover(t("room_show_qr"), icon="📱"):
                st.image(qr_png(room_link(code()), scale=12), width=420)
                st.markdown(t("room_join_at", code=format_code(code()), link=room_link(code())))
    elif following():
        pending = store().get(code()) if st.session_state.pop("_room_pending", False) else None
        if pending is not None and "page" in pending.state:
            _apply(pending, pages)  # in the full run, not in the fragment: switch_page from here
        _follow(pages)
    elif code():
        # detached: no polling; the button reruns the whole app, whose banner then follows again at once
        with st.container(horizontal=True, vertical_alignment="center"):
            st.markdown(t("room_detached", code=format_code(code())))
            st.button(t("room_attach"), on_click=_attach, key="_room_attach_btn", icon="👀", type="primary")


@st.fragment(run_every=POLL_S)
def _follow(pages) -> None:
    room = store().get(code()) if code() else None
    if room is None:
        st.warning(t("room_ended"), icon="🏁")
        return
    if not following():  # detached by the button below: the next full run shows the detached line
        st.rerun(scope="app")
    with st.container(horizontal=True, vertical_alignment="center"):
        st.markdown(t("room_following", code=format_code(room.code)))
        st.button(t("room_detach"), on_click=_detach, key="_room_detach_btn", icon="🧭")
    if room.version != st.session_state.get("_room_version") and "page" in room.state:
        st.session_state["_room_pending"] = True
        st.rerun(scope="app")


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
    st.session_state["_room_link"] = (room.code, None)
    st.switch_page(target, query_params=params)


def publish(url_path: str | None) -> None:
    """The teacher's view of the page at url_path ("" is the home page) into the room, after the
    page wrote its settings into the URL."""
    if not is_teacher() or url_path is None:
        return
    link = getattr(state, "link_params", None)  # the keys this run's page knows, when ui/state has it
    params = link() if link else st.query_params.to_dict()
    params = {k: v for k, v in params.items() if k not in PRIVATE_PARAMS}
    view = {"page": url_path, "params": params}
    if st.session_state.get("_room_published") == view:
        return
    try:
        store().publish(code(), st.session_state["_room_token"], view)
        st.session_state["_room_published"] = view
    except (KeyError, PermissionError):  # the room expired or was closed elsewhere
        _close()


def publish_again() -> None:
    """After a partial rerun (ui.context.partial: app.py's own publish does not run), the
    teacher's changed view on the page last published."""
    last = st.session_state.get("_room_published")
    if last:
        publish(last["page"])


def link_params() -> dict:
    """The room parameters the address bar keeps (so a reload stays in the room)."""
    if not code():
        return {"room": None, "teach": None}
    return {"room": code(), "teach": st.session_state.get("_room_token")}


def record_answer(step_id: str, choice: int) -> None:
    if code() and not is_teacher():
        try:
            store().answer(code(), step_id, student_id(), choice)
        except KeyError:
            pass


def answer_counts(step_id: str) -> dict[int, int] | None:
    """How the room's students answered this step ({choice: count}); None outside a teacher's room."""
    if not is_teacher():
        return None
    return store().answers(code(), step_id)
