"""Drawing one lesson step: its question, the student's prediction (pills, sketches or a slider),
the verdict and the reveal (texts from the lesson file with the model's numbers, charts from the
query). The lessons page and the editor's student preview both use it."""

from __future__ import annotations

import numbers

import numpy as np
import streamlit as st

from lessons.pages import file_of
from lessons.steps import Bars, Heat
from model.trace import KINDS

from .attention_view import attention_view
from .i18n import lang, t
from .layout import present_figure
from .run import current
from .safe import md, text_md
from .widgets import PLOTLY_CONFIG


class _Params(dict):
    def __missing__(self, key):  # a number this query did not give on this model: shown, not a crash
        return "?"


def params_text(params: dict, escape=md) -> dict:
    """A step's numbers as text for its sentence: attention kinds translated, tokens escaped for
    markdown (escape=str: plain text, for a chart or a table, which escape for themselves)."""
    return {
        k: (t(f"kind_{v}") if v in ("encoder", "decoder", "cross") else "")
        if k == "kind"
        else escape(v)
        if isinstance(v, str)
        else v
        for k, v in params.items()
    }


def fill(texts: dict, params: dict) -> str:
    """The lesson file's text in the reader's language with the model's numbers filled in, as plain
    text: what a table, a chart or the CSV shows (each escapes for itself). On a page, lesson_md()."""
    text = texts.get(lang()) or texts.get("en") or ""
    return text.format_map(_Params(params_text(params, str)))


def lesson_md(texts: dict, params: dict) -> str:
    """The one way a lesson's text reaches st.markdown (teacher, students, the editor's preview):
    fill()'s plain text with every character shown as typed (ui.safe.text_md). A lesson file is a
    stranger's text (an upload, a room's shared lesson), so its Markdown is not rendered: no link,
    image, reference definition, autolink or HTML, however it is spelled or encoded."""
    return text_md(fill(texts, params))


def option_text(step, i: int) -> str:
    """Option i as plain text: the results table, the CSV and charts (which escape for themselves)."""
    opt = step.options[i]
    if step.kind == "yesno":
        return t(f"lesson_{opt}")
    if step.kind == "sketch":
        return t("lesson_sketch", label=opt)
    if step.kind == "choice" and not step.literal:
        return t(opt, **((step.option_params or [{}] * len(step.options))[i]))
    return str(opt)


def option_label(step, i: int) -> str:
    """Option i for markdown (pills, the verdict): the app's own words as they are, a token or a
    model's text escaped."""
    literal = step.kind not in ("yesno", "sketch") and (step.kind != "choice" or step.literal)
    return md(step.options[i]) if literal else option_text(step, i)


def show_reveal(step, item, n: int, prefix: str = "les") -> None:
    from viz.lessons import bars

    from .rows import ARROW

    if isinstance(item, Heat):
        title = t(item.title, **params_text(item.title_params)) if item.title else ""
        writes = item.query_written is not None
        q_labels = (
            [f"{r}{ARROW}{w}" for r, w in zip(item.query_tokens, item.query_written)] if writes else item.query_tokens
        )
        st.markdown(f"**{title}**")
        # drawn in the browser (no chart library on the lessons page's heatmaps): a click, a tap
        # or an arrow key picks the row and the tutorial's table beside it follows at once; one
        # head, or the heads' mean, already chosen by the query (the title says which)
        layer = item.title_params.get("layer")
        attention_view(
            np.asarray(item.weights, dtype=np.float32)[None, None],
            item.mask,
            kind=str(item.title_params.get("kind", "encoder")),
            q_tokens=list(item.query_tokens),
            k_tokens=list(item.key_tokens),
            q_labels=list(q_labels),
            q_written=None if item.query_written is None else list(item.query_written),
            view={"tab": "heatmap", "layer": 0, "head": 0, "q": item.row or 0, "ltemp": 1.0},
            key=f"{prefix}_heat_{step.id}_{n}",
            present=current().presentation,
            temperature=False,  # a mean of heads is not one softmax; a lesson asks at its own T
            compact=True,
            mean=False,
            first_layer=layer - 1 if isinstance(layer, int) else 0,
            head_as=item.title_params.get("head", "mean"),
        )
    elif isinstance(item, Bars):
        title = t(item.title, **params_text(item.title_params, str)) if item.title else ""  # viz escapes
        hi = step.answer if step.kind == "word" and list(item.labels) == list(step.options) else None
        if hi is None and step.kind == "word" and step.answer_label in item.labels:
            hi = list(item.labels).index(step.answer_label)
        fig = bars(item.labels, item.values, title=title, highlight=hi)
        st.plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=f"{prefix}_bars_{step.id}_{n}")


def show_question(step, prefix: str = "les") -> None:
    from viz.lessons import sketch

    st.markdown("### " + lesson_md(step.ask, step.params))
    for key, params in getattr(step, "notes", None) or ():  # what is asked instead of the file's
        st.caption(text_md(t(key, **params_text(params, str))))
    if step.kind == "sketch":
        cols = st.columns(len(step.sketches))
        for i, (col, values) in enumerate(zip(cols, step.sketches)):
            with col:
                fig = sketch(values, step.sketch_labels, title=option_text(step, i))
                st.plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=f"{prefix}_sketch_{step.id}_{i}")


def predict(step, key: str, given: int | None, on_answer) -> None:
    """The prediction control: pills (a click answers), or a slider and its "answer" button."""
    if given is not None:
        st.session_state[key] = given if step.kind != "slider" else step.options[given]
    if step.kind == "slider":
        # an estimate is the student's own only once they moved the slider: its first position is a
        # number too, and a click on "answer" without a move was graded as if chosen (issue 50)
        moved = f"{key}_moved"
        st.select_slider(
            t("lesson_your_estimate"),
            step.options,
            key=key,
            disabled=given is not None,
            on_change=lambda: st.session_state.update({moved: True}),
        )

        def _send():
            value = st.session_state.get(key)
            if st.session_state.get(moved) and value in step.options:
                on_answer(step.options.index(value))

        untouched = given is None and not st.session_state.get(moved)
        st.button(
            t("lesson_submit"),
            key=f"{key}_go",
            disabled=given is not None or untouched,
            on_click=_send,
            type="primary",
            help=t("lesson_move_first") if untouched else None,
        )
        if untouched:
            st.caption(t("lesson_move_first"))
        return

    def _picked():
        choice = st.session_state.get(key)
        if choice is not None:
            on_answer(choice)

    st.pills(
        t("lesson_your_prediction"),
        list(range(len(step.options))),
        format_func=lambda i: option_label(step, i),
        key=key,
        selection_mode="single",
        disabled=given is not None,
        on_change=_picked,
    )


def show_verdict(step, given: int, prefix: str = "les", charts=None) -> None:
    """The verdict, the reveal's text and its charts; charts: the container the charts go in
    (default: here, under the text; the lessons page on a projector: a column beside it)."""
    if step.is_right(given):
        st.success(t("lesson_right", answer=answer_text(step)), icon="✅")
    else:
        st.error(t("lesson_wrong", given=option_label(step, given), answer=answer_text(step)), icon="❌")
    _reveal(step, prefix, charts)


def show_options(step, key: str) -> None:
    """The step's options as the class sees them, for a room's teacher who reveals rather than
    answers: the same control, locked, with nothing chosen (no teacher's choice on the projector)."""
    st.session_state.pop(key, None)
    if step.kind == "slider":
        st.select_slider(t("lesson_class_options"), step.options, key=key, disabled=True)
        return
    st.pills(
        t("lesson_class_options"),
        list(range(len(step.options))),
        format_func=lambda i: option_label(step, i),
        key=key,
        selection_mode="single",
        disabled=True,
    )


def show_answer(step, prefix: str = "les", charts=None) -> None:
    """The reveal without a prediction (a room's teacher): the model's answer, the reveal's text and
    its charts; nobody's own answer is named."""
    st.info(t("lesson_the_answer", answer=answer_text(step)), icon="💡")
    _reveal(step, prefix, charts)


def _reveal(step, prefix: str, charts) -> None:
    st.markdown(lesson_md(step.reveal_text, step.params))
    if charts is not None:  # beside: the link stays under the text it belongs to
        explore_link(step)
    with charts if charts is not None else st.container():
        for k, item in enumerate(step.reveal):
            show_reveal(step, item, k, prefix)
    if charts is None:
        explore_link(step)


def explore_target(step) -> tuple[str, dict] | None:
    """The page file and link parameters that open a step's view where the lesson file names its
    page (view.page): the step's model and sentence, its attention kind, layer and head (1-based,
    the numbers the step used); None for a step without a page."""
    if not step.page:
        return None
    params = {"model": step.model, "text": step.params.get("text", "")}
    if step.params.get("kind") in KINDS:
        params["kind"] = step.params["kind"]
    for name in ("layer", "head"):
        value = step.params.get(name)
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            params[name] = str(int(value))
    return file_of(step.page), params


def explore_link(step) -> None:
    target = explore_target(step)
    if target is not None:
        label = t("lesson_explore", page=t(f"page_{step.page}"))
        st.page_link(target[0], label=label, icon="🔎", query_params=target[1])


def answer_text(step) -> str:
    if step.kind == "slider" and step.value is not None:
        return f"{step.value:.2f}"
    return option_label(step, step.answer)
