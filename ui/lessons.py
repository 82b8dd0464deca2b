"""The lessons page's state: the lesson shown (a built-in lesson file, or the teacher's own: loaded
in the editor or by upload in this session, or shared through the room), its steps (built once per
lesson text from the cached models), the step shown and the student's answers, all in the URL
(lesson, step, answers)."""

from __future__ import annotations

import hashlib

import streamlit as st

from lessons import build as build_module
from lessons import files, schema
from lessons.answers import decode_answers, encode_answers
from lessons.build import build
from lessons.schema import MAX_STEPS, LessonError, validate

from . import cache, classroom, slots, state
from .i18n import lang, t
from .safe import md
from .view import Field, count

CUSTOM = "custom"  # the link's name for the teacher's own lesson
CHOICES = (*files.BUILTIN, CUSTOM)
SESSION_KEY = "les_custom_text"  # the lesson file this session loaded (editor or upload)


def _load(device: str):
    return lambda name: cache.runner(name, device)


def offered_models() -> list[str]:
    """The models a lesson may use on this server: the lesson files' known models (lessons.schema)
    less the real pretrained ones the operator does not offer (ATTN_HF off, or their packages
    missing). The editor's model list and every check before a lesson is built read it."""
    from model import hf, registry

    offered = set(hf.pretrained_offered())
    return [n for n in schema.known_models() if n not in registry.PACKAGED or n in offered]


def check_offered(lesson) -> None:
    """LessonError("model_not_offered") for a lesson (schema.Lesson) with a step on a model this
    server does not offer: said in the reader's language, where building it raised InputError
    hf_refused (an error box after "Use on the lessons page", issue 50)."""
    here = offered_models()
    for n, step in enumerate(lesson.steps, start=1):
        if step["model"] not in here:
            raise LessonError("model_not_offered", 0, step=n, value=step["model"][:40], known=", ".join(here))


def check_cost(text: str, device: str = "auto") -> None:
    """LessonError("model_not_offered") for a step on a model not offered here, LessonError
    ("too_costly") for a lesson over lessons.build.MAX_COST (estimated, nothing built)."""
    lesson = validate(text)
    check_offered(lesson)
    build_module.check_cost(lesson, _load(device))


def steps_of(text: str, device: str = "auto"):
    """A lesson file's steps (lessons.build) for the models as loaded now. Refused with
    LessonError model_not_offered when a step's model is not offered here, asked on every call:
    the built steps are cached per text, and a cache filled where the model was offered must not
    answer where it is not."""
    check_offered(validate(text))
    return _built(text, device)


# the built steps hold heatmaps and rows: bounded in bytes with the traces (ui/cache.py), not only in
# entries; a cache hit never waits for the heavy lane
@cache.shared("lessons", 16)
def _built(text: str, device: str = "auto"):
    """One entry per lesson text. Refused (LessonError too_costly) before it waits for anything when
    over its compute bound; else built in the heavy lane (ui/slots.py), so a long build holds no run
    slot (issue 32: two tabs building a 30-step lesson took the class's p95 from 0.12 s to 37.5 s)."""
    lesson = validate(text)
    build_module.check_cost(lesson, _load(device))
    with slots.heavy():
        return build(lesson, _load(device))


steps_of.store, steps_of.clear = _built.store, _built.clear  # the cache behind it (tests, ui/memory)


@st.cache_data(show_spinner=False, max_entries=4)
def builtin_text(name: str) -> str:
    return (files.BUILTIN_DIR / f"{name}.toml").read_text(encoding="utf-8")


def custom_text() -> str | None:
    """The teacher's own lesson: in a room, the one the room shares (a student needs no file); else
    the one this session loaded."""
    shared = classroom.room_lesson()
    if shared is not None and not classroom.is_teacher():
        return shared
    return st.session_state.get(SESSION_KEY)


def use_custom(text: str) -> None:
    """Make a valid lesson file this session's own lesson (and the room's, for a teacher); a lesson
    over its compute bound is refused here (LessonError), so no room ever shares one."""
    check_cost(text)
    st.session_state[SESSION_KEY] = text
    share_custom()


def share_custom() -> None:
    """A teacher's own lesson goes into the room store once per room and text."""
    text = st.session_state.get(SESSION_KEY)
    if text and classroom.is_teacher():
        digest = hashlib.sha256(text.encode()).hexdigest()
        if st.session_state.get("_les_shared") != (classroom.code(), digest) and classroom.share_lesson(text):
            st.session_state["_les_shared"] = (classroom.code(), digest)


def text_of(lesson: str) -> str | None:
    return custom_text() if lesson == CUSTOM else builtin_text(lesson)


def title(lesson: str) -> str:
    text = text_of(lesson)
    if text is None:
        return t("lesson_name_custom")
    try:
        return validate(text).title[lang()]
    except LessonError:
        return t("lesson_name_custom")


def offered(lesson: str) -> bool:
    """Whether every model a built-in lesson uses is offered here (the real pretrained model's
    lesson needs its packages and the operator's ATTN_HF)."""
    try:
        check_offered(validate(builtin_text(lesson)))
    except LessonError:
        return False
    return True


def title_label(lesson: str) -> str:
    """title() for a label that renders markdown (the lessons page's radio): shown as typed."""
    return md(title(lesson))


def models_loading(lesson: str, device: str = "auto") -> list[str]:
    """The real pretrained models this lesson uses that are not loaded yet (their load is started
    here, in its own thread, so the page can say "loading" instead of holding a run slot)."""
    from model import hf

    try:
        names = sorted({s["model"] for s in validate(text_of(lesson)).steps})
    except (LessonError, TypeError):
        return []
    offered = hf.pretrained_offered()
    return [n for n in names if n in offered and cache.pretrained_ready(n, device) is None]


def choices() -> list[str]:
    built_in = [n for n in files.BUILTIN if offered(n)]
    return [*built_in, CUSTOM] if custom_text() is not None else built_in


def steps(lesson: str, device: str = "auto"):
    return steps_of(text_of(lesson), device)


def answer_key(lesson: str, step) -> str:
    """What the room records a step's answers under: built-in steps by their id, a teacher's own by
    "~" and its id (a teacher's copy of a built-in lesson may keep its ids)."""
    return step.id if lesson != CUSTOM else "~" + step.id


def _answers_of(lesson: str) -> dict[int, int]:
    return st.session_state.setdefault("les_answers", {}).setdefault(lesson, {})


def _answers_parse(raw: str) -> str:
    decode_answers(raw)  # ValueError for answers that cannot be read: the notice, and none are taken
    return raw


# the lessons page's view as its link carries it (ui/view.py): ?step= is the step as the page
# numbers it to a reader ("Step 3 of 9"), a whole number as on every page that has steps (the
# page fits it to the lesson's steps); ?answers= only where the sender shared them
VIEW = (
    Field("lesson", "les_lesson", files.BUILTIN[0], state.choice(CHOICES)),
    Field("step", "les_step", 1, count),
    Field("answers", "les_answers_raw", "", _answers_parse),
)


def read_url(got: dict) -> tuple[str, int]:
    """(lesson, step index) from the view read from the link or this session (got: read_view(VIEW),
    which page.show reads before the page draws). A link's answers (only a link whose sender chose
    to share them carries any) belong to the lesson that link names: they are taken once, when the
    link brings them, never carried into another lesson."""
    fresh = state.linked("les_answers_raw")
    linked_lesson = st.query_params.get("lesson")
    lesson, linked = got["lesson"], got["answers"]
    if lesson not in choices():  # a teacher's own lesson that is gone, or a model not offered here
        st.session_state["les_lesson"] = lesson = files.BUILTIN[0]
        state.notice(t("lesson_custom_missing"))
    st.session_state["les_step"] = min(max(st.session_state["les_step"], 1), MAX_STEPS)
    if fresh and linked and linked_lesson == lesson:
        st.session_state["_les_linked"] = (lesson, decode_answers(linked))
        st.session_state["les_share"] = True  # the sender shared them: keep sharing until unticked
    return lesson, st.session_state["les_step"] - 1


def fit_answers(lesson: str, steps) -> None:
    """Keep the answers that fit this lesson's steps (a step that exists, an option it offers);
    a link's answers join here, once, with a notice for those that do not fit."""
    mine = _answers_of(lesson)
    linked = st.session_state.pop("_les_linked", None)
    if linked is not None and linked[0] == lesson:
        fits = {i: c for i, c in linked[1].items() if i < len(steps) and 0 <= c < len(steps[i].options)}
        if len(fits) < len(linked[1]):
            st.warning(t("lesson_answers_dropped", n=len(linked[1]) - len(fits)), icon="⚠️")
        mine.update(fits)
    for i in [i for i, c in mine.items() if not (i < len(steps) and 0 <= c < len(steps[i].options))]:
        del mine[i]


def answers(lesson: str) -> dict[int, int]:
    return _answers_of(lesson)


def answer(lesson: str, index: int, choice: int) -> None:
    _answers_of(lesson)[index] = choice


def _revealed_of(lesson: str) -> set[int]:
    return st.session_state.setdefault("les_revealed", {}).setdefault(lesson, set())


def is_revealed(lesson: str, index: int) -> bool:
    """Whether a room's teacher revealed this step (the teacher reveals, never answers)."""
    return index in _revealed_of(lesson)


def reveal(lesson: str, index: int) -> None:
    _revealed_of(lesson).add(index)


def hide_all(lesson: str) -> None:
    st.session_state.setdefault("les_revealed", {})[lesson] = set()


def forget(lesson: str) -> None:
    st.session_state.setdefault("les_answers", {})[lesson] = {}


def write_url(lesson: str, index: int, n_steps: int) -> None:
    """Lesson and step always; the answers only when the student ticked "share my answers", so a
    copied link does not reveal a class's answers to whoever opens it."""
    raw = encode_answers(_answers_of(lesson), n_steps) if st.session_state.get("les_share") else ""
    st.session_state["les_answers_raw"] = raw
    state.write_view(VIEW, lesson=lesson, step=index + 1, answers=raw or None)
