"""The lessons page's state: each lesson's steps (computed once per process from the cached
models), the step shown and the student's answers, all in the URL (lesson, step, answers)."""

from __future__ import annotations

import streamlit as st

from model.lessons import LESSONS, build, decode_answers, encode_answers

from . import cache, state


@st.cache_data(show_spinner=False, max_entries=8)
def steps(lesson: str, device: str = "auto"):
    """The lesson's steps for the models as loaded now (model.lessons.build)."""
    return build(lesson, lambda name: cache.runner(name, device))


def _answers_of(lesson: str) -> dict[int, int]:
    return st.session_state.setdefault("les_answers", {}).setdefault(lesson, {})


def read_url() -> tuple[str, int]:
    """(lesson, step index) from the link or this session; the link's answers join this lesson's."""
    lesson = state.url_param("lesson", LESSONS[0], state.choice(LESSONS), key="les_lesson")
    state.url_param("step", 1, state.clamped("step", 1, 12, int), key="les_step")
    linked = state.url_param("answers", "", lambda raw: (decode_answers(raw), raw)[1], key="les_answers_raw")
    if linked and st.session_state.get("_les_answers_applied") != (lesson, linked):
        _answers_of(lesson).update(decode_answers(linked))
        st.session_state["_les_answers_applied"] = (lesson, linked)
    return lesson, st.session_state["les_step"] - 1


def answers(lesson: str) -> dict[int, int]:
    return _answers_of(lesson)


def answer(lesson: str, index: int, choice: int) -> None:
    _answers_of(lesson)[index] = choice


def forget(lesson: str) -> None:
    st.session_state.setdefault("les_answers", {})[lesson] = {}


def write_url(lesson: str, index: int, n_steps: int) -> None:
    raw = encode_answers(_answers_of(lesson), n_steps)
    st.session_state["les_answers_raw"] = raw
    st.session_state["_les_answers_applied"] = (lesson, raw)
    state.set_url(lesson=lesson, step=index + 1, answers=raw or None)
