"""Lessons: predict first, then see the model's real numbers (lesson files in lessons/, answers
computed by lessons/queries.py; ui/lessons.py holds the state, ui/lesson_view.py draws a step)."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import streamlit as st

from lessons.answers import score
from lessons.schema import LessonError
from pages.lessons_parts import results as lesson_results
from ui import classroom, editor, lessons
from ui.context import still_loading
from ui.i18n import t
from ui.layout import copy_link, page_header
from ui.lesson_view import predict, show_question, show_verdict
from ui.run import current

ctx = current()
lessons.share_custom()  # a teacher who opened a room after loading a lesson: the room gets it now
lesson, index = lessons.read_url()
page_header("page_lessons", "lessons_intro")


def _go(delta: int) -> None:
    st.session_state["les_step"] = st.session_state["les_step"] + delta


def _restart() -> None:
    lessons.forget(st.session_state["les_lesson"])
    st.session_state["les_step"] = 1


# on a projector the lesson menu and the step's progress share one line (the reveal gets it): a row
# as wide as the menu's titles, the progress in what is left (columns of fixed shares wrapped one
# language's titles or the other's "Step 1 of 9")
menu = progress = (
    st.container(horizontal=True, wrap=False, vertical_alignment="bottom", gap="large") if ctx.presentation else st
)
menu.radio(
    t("lesson_pick"),
    lessons.choices(),
    format_func=lessons.title_label,
    key="les_lesson",
    horizontal=True,
    on_change=lambda: st.session_state.update(les_step=1),
    # on the projector the lessons' titles say what they are: the label's line goes to the reveal
    label_visibility="collapsed" if ctx.presentation else "visible",
)
lesson = st.session_state["les_lesson"]
# the link follows the lesson chosen at once, also where the page stops below (a model loading, a refusal)
lessons.write_url(lesson, st.session_state["les_step"] - 1, 0)
waiting = lessons.models_loading(lesson, ctx.device)
if waiting:  # a real pretrained model's first load in this process: said, not waited for
    still_loading(waiting[0], ctx.device)
    st.stop()
try:
    with st.spinner():
        steps = lessons.steps(lesson, ctx.device)
except LessonError as e:  # over its compute bound (lessons/build.py): refused before anything was built
    st.warning(editor.error_text(e), icon="⚠️")
    st.stop()
if not steps:
    st.info(t("lesson_no_steps"), icon="ℹ️")
    st.stop()
lessons.fit_answers(lesson, steps)
n = len(steps)
index = min(max(st.session_state["les_step"] - 1, 0), n - 1)
st.session_state["les_step"] = index + 1
step = steps[index]
given = lessons.answers(lesson).get(index)

if classroom.code() and not classroom.is_teacher():
    st.text_input(
        t("lesson_nickname"),
        key="les_nick",
        max_chars=24,
        help=t("lesson_nickname_help"),
        on_change=lambda: classroom.set_nickname(st.session_state.get("les_nick", "")),
    )

progress.progress((index + 1) / n, text=t("lesson_step_short" if ctx.presentation else "lesson_step", i=index + 1, n=n))
# on a projector, once the step is answered: the question, the prediction, the verdict and the
# reveal's text on the left, the model's charts and the class's answers on the right, from the top
# (issue 37: under one another the first chart's x axis was at y 1040 of 800)
beside = ctx.presentation and given is not None
ask, charts = st.columns([3, 7], gap="large") if beside else (st.container(), None)
with ask:
    show_question(step)


def _answered(choice: int) -> None:
    if lessons.answers(lesson).get(index) is None:
        lessons.answer(lesson, index, choice)
        classroom.record_answer(lessons.answer_key(lesson, step), choice)


with ask:
    predict(step, f"les_pick_{lesson}_{index}", given, _answered)
    # the verdict and the model's numbers first, then the class's answers (the teacher's)
    if given is None:
        st.caption(t("lesson_predict_first"))
    else:
        show_verdict(step, given, charts=charts)

if classroom.is_teacher():
    with charts if charts is not None else st.container():
        lesson_results.class_answers(step, lessons.answer_key(lesson, step), given is not None)

right, answered = score(steps, lessons.answers(lesson))
with st.container(horizontal=True):
    st.button(t("lesson_back"), icon="⬅️", disabled=index == 0, on_click=_go, args=(-1,), key="les_back")
    st.button(
        t("lesson_next"), icon="➡️", disabled=index == n - 1, on_click=_go, args=(1,), key="les_next", type="primary"
    )
    st.button(t("lesson_restart"), icon="🔄", on_click=_restart, key="les_restart")
if index == n - 1 and answered == n:
    st.markdown("## " + t("lesson_score", right=right, n=n))
elif answered:
    st.caption(t("lesson_score_partial", answered=answered, n=n, right=right))

if classroom.is_teacher():
    lesson_results.class_results(lesson, steps)

st.toggle(t("lesson_share_answers"), key="les_share", help=t("lesson_share_answers_help"))
lessons.write_url(lesson, index, n)
copy_link()
