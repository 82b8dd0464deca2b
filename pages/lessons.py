"""Lessons: predict first, then see the model's real numbers (analysis/lessons.py computes every
question and answer from the models; this page lays a step out)."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import streamlit as st

from analysis.lessons import LESSONS, Bars, Heat, score
from ui import classroom, lessons
from ui.i18n import t
from ui.layout import copy_link, page_header, present_figure
from ui.run import current
from ui.safe import md
from ui.widgets import PLOTLY_CONFIG, heatmap_labels, show_row_table
from viz.heatmap import attention_heatmap
from viz.lessons import bars, sketch

ctx = current()
lesson, index = lessons.read_url()
page_header("page_lessons", "lessons_intro")


def _go(delta: int) -> None:
    st.session_state["les_step"] = st.session_state["les_step"] + delta


def _restart() -> None:
    lessons.forget(st.session_state["les_lesson"])
    st.session_state["les_step"] = 1


def _params(params: dict) -> dict:
    """A step's numbers as text for its sentence: attention kinds translated, tokens escaped."""
    return {k: t(f"kind_{v}") if k == "kind" else md(v) if isinstance(v, str) else v for k, v in params.items()}


def option_label(step, i: int) -> str:
    opt = step.options[i]
    if step.kind == "yesno":
        return t(f"lesson_{opt}")
    if step.kind == "sketch":
        return t("lesson_sketch", label=opt)
    if step.kind == "choice" and not step.literal:
        return t(opt, **((step.option_params or [{}] * len(step.options))[i]))
    return md(opt)


def show_reveal(step, item, n: int) -> None:
    from ui.rows import ARROW  # here, not at the top: this function is the only part of the page it needs

    if isinstance(item, Heat):
        title = t(item.title, **_params(item.title_params)) if item.title else ""
        # decoder and cross rows read one token and write the next: "reads → writes", as on every page
        writes = item.query_written is not None
        q_labels = (
            [f"{r}{ARROW}{w}" for r, w in zip(item.query_tokens, item.query_written)] if writes else item.query_tokens
        )
        fig = attention_heatmap(item.weights, q_labels, item.key_tokens, mask=item.mask, labels=heatmap_labels(writes))
        left, right = st.columns([3, 2], gap="large")
        with left:
            st.markdown(f"**{title}**")
            st.plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=f"les_heat_{step.id}_{n}")
        if item.row is not None:
            with right:
                show_row_table(item, item.weights, item.row, key=f"les_table_{step.id}_{n}", with_csv=False)
    elif isinstance(item, Bars):
        title = t(item.title, **_params(item.title_params)) if item.title else ""
        hi = step.answer if step.kind == "word" and list(item.labels) == list(step.options) else None
        if hi is None and step.kind == "word" and step.answer_label in item.labels:
            hi = list(item.labels).index(step.answer_label)
        fig = bars(item.labels, item.values, title=title, highlight=hi)
        st.plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=f"les_bars_{step.id}_{n}")


@st.fragment(run_every=2)
def show_class_answers(step) -> None:
    """The teacher's view of how the room answered this step, refreshed every 2 s."""
    counts = classroom.answer_counts(step.id)
    if counts is None:
        return
    total = sum(counts.values())
    values = [counts.get(i, 0) for i in range(len(step.options))]
    st.markdown("**" + t("lesson_class_answers", n=total) + "**")
    fig = bars(
        [option_label(step, i) for i in range(len(step.options))],
        values,
        counts=True,
        highlight=step.answer if lessons.answers(lesson).get(index) is not None else None,
        height=260,
    )
    st.plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=f"les_class_{step.id}")


st.radio(
    t("lesson_pick"),
    LESSONS,
    format_func=lambda k: t(f"lesson_name_{k}"),
    key="les_lesson",
    horizontal=True,
    on_change=lambda: st.session_state.update(les_step=1),
)
lesson = st.session_state["les_lesson"]
with st.spinner():
    steps = lessons.steps(lesson, ctx.device)
lessons.fit_answers(lesson, steps)
n = len(steps)
index = min(max(st.session_state["les_step"] - 1, 0), n - 1)
st.session_state["les_step"] = index + 1
step = steps[index]
given = lessons.answers(lesson).get(index)

st.progress((index + 1) / n, text=t("lesson_step", i=index + 1, n=n))
st.markdown("### " + t(f"lesson_{step.key}_ask", **_params(step.params)))

if step.kind == "sketch":
    cols = st.columns(len(step.sketches))
    for i, (col, values) in enumerate(zip(cols, step.sketches)):
        with col:
            fig = sketch(values, step.sketch_labels, title=option_label(step, i))
            st.plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=f"les_sketch_{step.id}_{i}")


def _picked(key: str) -> None:
    choice = st.session_state.get(key)
    if choice is not None and lessons.answers(lesson).get(index) is None:
        lessons.answer(lesson, index, choice)
        classroom.record_answer(step.id, choice)


pick_key = f"les_pick_{lesson}_{index}"
if given is not None:
    st.session_state[pick_key] = given
st.pills(
    t("lesson_your_prediction"),
    list(range(len(step.options))),
    format_func=lambda i: option_label(step, i),
    key=pick_key,
    selection_mode="single",
    disabled=given is not None,
    on_change=_picked,
    args=(pick_key,),
)

if classroom.is_teacher():
    show_class_answers(step)

if given is None:
    st.caption(t("lesson_predict_first"))
else:
    if given == step.answer:
        st.success(t("lesson_right", answer=option_label(step, step.answer)), icon="✅")
    else:
        st.error(t("lesson_wrong", given=option_label(step, given), answer=option_label(step, step.answer)), icon="❌")
    st.markdown(t(f"lesson_{step.key}_reveal", **_params(step.params)))
    for k, item in enumerate(step.reveal):
        show_reveal(step, item, k)

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

st.toggle(t("lesson_share_answers"), key="les_share", help=t("lesson_share_answers_help"))
lessons.write_url(lesson, index, n)
copy_link()
