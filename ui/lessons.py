"""The lessons page's state: each lesson's steps (computed once per process from the cached
models), the step shown and the student's answers, all in the URL (lesson, step, answers)."""

from __future__ import annotations

import streamlit as st

from analysis.lessons import LESSONS, build, decode_answers, encode_answers

from . import cache, state
from .i18n import t


@st.cache_data(show_spinner=False, max_entries=8)
def steps(lesson: str, device: str = "auto"):
    """The lesson's steps for the models as loaded now (analysis.lessons.build)."""
    return build(lesson, lambda name: cache.runner(name, device))


def _answers_of(lesson: str) -> dict[int, int]:
    return st.session_state.setdefault("les_answers", {}).setdefault(lesson, {})


def read_url() -> tuple[str, int]:
    """(lesson, step index) from the link or this session. A link's answers (only a link whose
    sender chose to share them carries any) belong to the lesson that link names: they are read
    once, when the link brings them, never carried into another lesson."""
    fresh = state.from_link("answers", "les_answers_raw")
    linked_lesson = st.query_params.get("lesson")
    lesson = state.url_param("lesson", LESSONS[0], state.choice(LESSONS), key="les_lesson")
    state.url_param("step", 1, state.clamped("step", 1, 12, int), key="les_step")
    linked = state.url_param("answers", "", lambda raw: (decode_answers(raw), raw)[1], key="les_answers_raw")
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


def forget(lesson: str) -> None:
    st.session_state.setdefault("les_answers", {})[lesson] = {}


def write_url(lesson: str, index: int, n_steps: int) -> None:
    """Lesson and step always; the answers only when the student ticked "share my answers", so a
    copied link does not reveal a class's answers to whoever opens it."""
    raw = encode_answers(_answers_of(lesson), n_steps) if st.session_state.get("les_share") else ""
    st.session_state["les_answers_raw"] = raw
    state.set_url(lesson=lesson, step=index + 1, answers=raw or None)
