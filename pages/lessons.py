"""Lessons: predict first, then see the model's real numbers (lesson files in lessons/, answers
computed by lessons/queries.py; ui/lessons.py holds the state, ui/lesson_view.py draws a step)."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import streamlit as st

from lessons.answers import score
from lessons.schema import LessonError
from pages.lessons_parts import results as lesson_results
from ui import classroom, editor, lessons, page
from ui.context import still_loading
from ui.i18n import t
from ui.layout import copy_link, page_header
from ui.lesson_view import predict, show_answer, show_options, show_question, show_verdict
from ui.run import Context

# the page's view (ui/view.py): the lesson, the step and the answers a sender shared (ui/lessons.py
# declares it beside the lessons' state, which the lesson editor's "Use" fills too)
VIEW = lessons.VIEW

# what a class clicks before the page draws its main chart: the widget's key (or its start) and
# how many clicks; the screen walks click it first (tests/browser/screens.py, first_action)
FIRST_CHART_AFTER = ("les_pick_", 1)  # a prediction (a room's teacher: Reveal, keyed les_pick_..._reveal)


def _go(delta: int) -> None:
    st.session_state["les_step"] = st.session_state["les_step"] + delta


def _restart() -> None:
    lessons.forget(st.session_state["les_lesson"])
    lessons.hide_all(st.session_state["les_lesson"])
    st.session_state["les_step"] = 1


def render(ctx: Context, view: dict) -> None:
    """The page: the lesson menu, the step's question and prediction, then the verdict and the
    model's numbers once answered (the class's answers for a teacher), the buttons and the score."""
    lessons.share_custom()  # a teacher who opened a room after loading a lesson: the room gets it now
    lessons.read_url(view)  # the lesson and step into the session (a link's shared answers join them)
    page_header("page_lessons", "lessons_intro")
    lesson, progress = _pick_lesson(ctx)
    steps = _steps(ctx, lesson)
    if steps is None:
        return
    lessons.fit_answers(lesson, steps)
    n = len(steps)
    index = min(max(st.session_state["les_step"] - 1, 0), n - 1)
    st.session_state["les_step"] = index + 1
    step = steps[index]
    teacher = classroom.is_teacher()
    # a room's teacher is the projector: the step is revealed, never answered (no "you said", no score)
    given = None if teacher else lessons.answers(lesson).get(index)

    if classroom.code() and not classroom.is_teacher():
        st.text_input(
            t("lesson_nickname"),
            key="les_nick",
            max_chars=24,
            help=t("lesson_nickname_help"),
            on_change=lambda: classroom.set_nickname(st.session_state.get("les_nick", "")),
        )

    progress.progress(
        (index + 1) / n, text=t("lesson_step_short" if ctx.presentation else "lesson_step", i=index + 1, n=n)
    )
    if teacher:
        _teacher_step(ctx, lesson, index, step)
    else:
        _step(ctx, lesson, index, step, given)
    _buttons_and_score(steps, lesson, index, score_shown=not teacher)

    if teacher:
        lesson_results.class_results(lesson, steps)

    st.toggle(t("lesson_share_answers"), key="les_share", help=t("lesson_share_answers_help"))
    lessons.write_url(lesson, index, n)
    copy_link()


def _pick_lesson(ctx: Context):
    """The lesson menu; (the lesson chosen, where the step's progress goes)."""
    # on a projector the lesson menu and the step's progress share one line (the reveal gets it): a row
    # as wide as the menu's titles, the progress in what is left (columns of fixed shares wrapped one
    # language's titles or the other's "Step 1 of 9")
    menu = progress = (
        st.container(horizontal=True, wrap=False, vertical_alignment="bottom", gap="large") if ctx.presentation else st
    )
    if ctx.presentation:
        # on the projector one line whatever the number of lessons (a fifth title wrapped the row of
        # radio buttons onto a second line and pushed the reveal's first chart below the screen);
        # the lessons' titles say what they are: the label's line goes to the reveal
        menu.selectbox(
            t("lesson_pick"),
            lessons.choices(),
            format_func=lessons.title,  # a select box shows plain text
            key="les_lesson",
            on_change=lambda: st.session_state.update(les_step=1),
            label_visibility="collapsed",
            width=460,
        )
    else:
        menu.radio(
            t("lesson_pick"),
            lessons.choices(),
            format_func=lessons.title_label,
            key="les_lesson",
            horizontal=True,
            on_change=lambda: st.session_state.update(les_step=1),
        )
    lesson = st.session_state["les_lesson"]
    # the link follows the lesson chosen at once, also where the page stops below (a model loading, a refusal)
    lessons.write_url(lesson, st.session_state["les_step"] - 1, 0)
    return lesson, progress


def _steps(ctx: Context, lesson: str):
    """The lesson's steps, built for the models as loaded; None (and why, said) where there are none
    to show yet."""
    waiting = lessons.models_loading(lesson, ctx.device)
    if waiting:  # a real pretrained model's first load in this process: said, not waited for
        still_loading(waiting[0], ctx.device)
        return None
    try:
        with st.spinner():
            steps = lessons.steps(lesson, ctx.device)
    except LessonError as e:  # over its compute bound (lessons/build.py): refused before anything was built
        st.warning(editor.error_text(e), icon="⚠️")
        return None
    if not steps:
        st.info(t("lesson_no_steps"), icon="ℹ️")
        return None
    return steps


def _step(ctx: Context, lesson: str, index: int, step, given: int | None) -> None:
    """The step: its question and the prediction; once answered, the verdict and the model's numbers
    (and, for a teacher, how the class answered)."""
    # on a projector, once the step is answered: the question, the prediction, the verdict and the
    # reveal's text on the left, the model's charts and the class's answers on the right, from the top
    # (issue 37: under one another the first chart's x axis was at y 1040 of 800)
    beside = ctx.presentation and given is not None
    ask, charts = st.columns([3, 7], gap="large") if beside else (st.container(), None)
    with ask:
        show_question(step)

    def answered(choice: int) -> None:
        if lessons.answers(lesson).get(index) is None:
            lessons.answer(lesson, index, choice)
            classroom.record_answer(lessons.answer_key(lesson, step), choice)

    with ask:
        predict(step, f"les_pick_{lesson}_{index}", given, answered)
        # the verdict and the model's numbers first, then the class's answers (the teacher's)
        if given is None:
            st.caption(t("lesson_predict_first"))
        else:
            show_verdict(step, given, charts=charts)

    if classroom.is_teacher():
        with charts if charts is not None else st.container():
            lesson_results.class_answers(step, lessons.answer_key(lesson, step), given is not None)


def _teacher_step(ctx: Context, lesson: str, index: int, step) -> None:
    """A room's teacher at the projector: the question and its options (shown, not answered), a
    "Reveal" button, then the right answer, the model's numbers and the class's answers. The
    teacher's own prediction is never asked for nor shown: the projector is the class's screen."""
    revealed = lessons.is_revealed(lesson, index)
    beside = ctx.presentation and revealed
    ask, charts = st.columns([3, 7], gap="large") if beside else (st.container(), None)
    with ask:
        show_question(step)
        show_options(step, f"les_pick_{lesson}_{index}")
        if revealed:
            show_answer(step, charts=charts)
        else:
            st.button(
                t("lesson_reveal"),
                icon="👁️",
                key=f"les_pick_{lesson}_{index}_reveal",  # FIRST_CHART_AFTER: the teacher's click
                type="primary",
                on_click=lessons.reveal,
                args=(lesson, index),
                help=t("lesson_reveal_help"),
            )
    with charts if charts is not None else st.container():
        lesson_results.class_answers(step, lessons.answer_key(lesson, step), revealed)


def _buttons_and_score(steps, lesson: str, index: int, score_shown: bool = True) -> None:
    """Back, next and restart, then the score so far (the whole score at the last step, all
    answered); score_shown=False for a room's teacher, whose screen is the class's."""
    n = len(steps)
    right, answered = score(steps, lessons.answers(lesson))
    with st.container(horizontal=True):
        st.button(t("lesson_back"), icon="⬅️", disabled=index == 0, on_click=_go, args=(-1,), key="les_back")
        st.button(
            t("lesson_next"), icon="➡️", disabled=index == n - 1, on_click=_go, args=(1,), key="les_next", type="primary"
        )
        st.button(t("lesson_restart"), icon="🔄", on_click=_restart, key="les_restart")
    if not score_shown:
        return
    if index == n - 1 and answered == n:
        st.markdown("## " + t("lesson_score", right=right, n=n))
    elif answered:
        st.caption(t("lesson_score_partial", answered=answered, n=n, right=right))


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)
