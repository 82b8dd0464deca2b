"""The lesson editor: build a lesson step by step with the answers computed from the model, preview
it as a student, download it, load one by upload, save it where the operator allows, use it on the
lessons page (ui/editor.py holds the logic, lessons/ the engine)."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import streamlit as st

from lessons import files
from lessons.queries import QUERIES
from ui import editor, page
from ui.i18n import t
from ui.layout import page_header
from ui.run import Context
from ui.safe import md

# the page's view (ui/view.py): none, the lesson being written lives in the session (and its file)
VIEW = ()


def render(ctx: Context, view: dict) -> None:
    """The page: load a lesson, its title, the step being written with its computed answer, the
    steps so far, then the finished lesson's download, use, save and preview."""
    editor.go_to_lessons()
    page_header("page_editor", "ed_intro")
    editor.init(ctx)

    note = st.session_state.pop("_ed_note", None)
    if note:
        (st.success if note[0] == "ok" else st.warning)(note[1], icon="✅" if note[0] == "ok" else "⚠️")

    _load()
    _lesson_fields()
    _step_form(ctx)
    _step_list(ctx)
    _finished(ctx)


def _load() -> None:
    """An uploaded lesson file, or one to start from."""
    with st.expander(t("ed_load"), icon="📂", expanded=not editor.steps()):
        editor.uploader()
        with st.container(horizontal=True, vertical_alignment="bottom"):
            if editor.start_picker():
                st.button(
                    t("ed_load_builtin"),
                    key="ed_load_builtin",
                    on_click=lambda: editor.load_builtin(st.session_state["ed_builtin"]),
                )


def _lesson_fields() -> None:
    """The lesson's id and its title in each language."""
    st.subheader(t("ed_lesson"))
    c1, c2, c3 = st.columns([1, 2, 2])
    c1.text_input(t("ed_lesson_id"), key="ed_lesson_id", max_chars=40, help=t("ed_lesson_id_help"))
    c2.text_input(t("ed_title_en"), key="ed_title_en", max_chars=120)
    c3.text_input(t("ed_title_zh"), key="ed_title_zh", max_chars=120)


def _step_form(ctx: Context) -> None:
    """The step being written (a new one, or one of the steps being edited): model, sentence, query,
    then the answer computed from the model and the button that adds it."""
    editing = editor.editing()
    st.subheader(t("ed_new_step") if editing is None else t("ed_editing_step", i=editing + 1))
    c1, c2, c3 = st.columns([1, 2, 2])
    c1.selectbox(
        t("ed_model"),
        editor.offered_models(),
        key="ed_model",  # a select box shows its options as plain text: no Markdown escapes ("gpt\\-rope")
        on_change=editor.want_defaults,
    )
    c2.text_input(t("ed_sentence"), key="ed_sentence", max_chars=300)
    c3.selectbox(
        t("ed_query"),
        list(QUERIES),
        key="ed_query",
        format_func=lambda q: t(f"ed_query_{q}"),
        on_change=editor.default_texts,
        help=t("ed_query_help"),
    )
    spec = editor.draft(ctx)
    spec.update(editor.texts())
    spec = editor.with_unedited(spec)
    checked, problem = editor.check(spec)
    if problem:
        st.warning(problem, icon="⚠️")
    if editor.suggestion():  # the typed sentence stays; a beginning that passes is offered, not imposed
        st.button(
            t("ed_suggest_sentence", sentence=editor.suggestion()),
            key="ed_suggest",
            icon="✂️",
            on_click=editor.take_suggestion,
        )
    ok = checked is not None and editor.show_answer(checked, ctx)
    with st.container(horizontal=True):
        st.button(
            t("ed_add") if editing is None else t("ed_replace", i=editing + 1),
            key="ed_add",
            icon="➕" if editing is None else "💾",
            disabled=not ok,
            on_click=editor.add,
            args=(checked,),
            type="primary",
        )
        if editing is not None:
            st.button(t("ed_cancel_edit"), key="ed_cancel_edit", on_click=editor.stop_editing)


def _step_list(ctx: Context) -> None:
    """The steps so far, each with its buttons: up, down, edit, delete; a step the class will not
    see (it fails the margin rule, or its query does not apply) is marked so on its line."""
    st.subheader(t("ed_steps", n=len(editor.steps())))
    hidden = editor.hidden_steps(ctx.device)
    if hidden:
        st.warning(t("ed_steps_hidden", steps=", ".join(str(i + 1) for i in hidden)), icon="⚠️")
    for i, s in enumerate(editor.steps()):
        with st.container(horizontal=True, vertical_alignment="center"):
            st.markdown(
                t(
                    "ed_step_line",
                    i=i + 1,
                    query=t(f"ed_query_{s['query']}"),
                    model=md(s["model"]),
                    sentence=md(s["sentence"][0]),
                )
                + (" · **" + t("ed_step_hidden") + "**" if i in hidden else "")
            )
            st.button("↑", key=f"ed_up_{i}", disabled=i == 0, on_click=editor.move, args=(i, -1), help=t("ed_up"))
            st.button(
                "↓",
                key=f"ed_down_{i}",
                disabled=i == len(editor.steps()) - 1,
                on_click=editor.move,
                args=(i, 1),
                help=t("ed_down"),
            )
            st.button("✎", key=f"ed_edit_{i}", on_click=editor.edit, args=(i,), help=t("ed_edit"))
            st.button("✕", key=f"ed_del_{i}", on_click=editor.remove, args=(i,), help=t("ed_delete"))


def _finished(ctx: Context) -> None:
    """The lesson as a file, once it checks: download, use on the lessons page, save, preview."""
    text, problem = editor.checked_lesson()
    if problem and editor.steps():
        st.warning(problem, icon="⚠️")
    if text is not None:
        with st.container(horizontal=True):
            st.download_button(
                t("ed_download"),
                text.encode("utf-8"),
                file_name=f"{st.session_state['ed_lesson_id'] or 'lesson'}.toml",
                mime="application/toml",
                key="ed_download",
                icon="⬇️",
                on_click="ignore",
            )
            st.button(t("ed_use"), key="ed_use", icon="🎓", on_click=editor.use, args=(text,), help=t("ed_use_help"))
            if files.can_save():
                st.button(
                    t("ed_save"), key="ed_save", icon="💾", on_click=editor.save, args=(text,), help=t("ed_save_help")
                )
        if not files.can_save():
            st.caption(t("ed_save_off"))
        st.toggle(t("ed_preview"), key="ed_preview")
        if st.session_state.get("ed_preview"):
            with st.container(border=True):
                editor.preview(text, ctx.device)


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)
