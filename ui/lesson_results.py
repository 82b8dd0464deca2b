"""The teacher's view of the class: how the room answered this step (a chart refreshed every 2 s)
and the results of every step (a table and a CSV download). Students are anonymous unless they
typed a nickname; the answers live in the room store and end with the room."""

from __future__ import annotations

import streamlit as st

from lessons import results

from . import classroom
from . import lessons as lesson_state
from .i18n import t
from .layout import present_figure
from .lesson_view import fill, option_label
from .widgets import PLOTLY_CONFIG


@st.fragment(run_every=2)
def class_answers(step, key: str, revealed: bool) -> None:
    """The teacher's view of how the room answered this step, refreshed every 2 s."""
    from viz.lessons import bars

    counts = classroom.answer_counts(key)
    if counts is None:
        return
    total = sum(counts.values())
    right = sum(c for i, c in counts.items() if step.is_right(i))
    st.markdown("**" + t("lesson_class_answers", n=total) + "** · " + t("lesson_class_right", right=right, n=total))
    shown = [i for i in range(len(step.options)) if step.kind != "slider" or counts.get(i)]
    if not shown:
        return
    fig = bars(
        [option_label(step, i) for i in shown],
        [counts.get(i, 0) for i in shown],
        counts=True,
        highlight=(shown.index(step.answer) if step.answer in shown else None) if revealed else None,
        height=260,
    )
    st.plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=f"les_class_{step.id}")


def table(lesson: str, steps) -> list[dict] | None:
    got = classroom.results()
    if got is None:
        return None
    answers, nicks = got
    return results.rows(
        steps,
        answers,
        nicks,
        key=lambda s: lesson_state.answer_key(lesson, s),
        ask=lambda s: fill(s.ask, s.params),
        label=option_label,
        anonymous=lambda n: t("lesson_results_anonymous", n=n),
    )


@st.fragment(run_every=3)
def class_results(lesson: str, steps) -> None:
    """Every step's results (refreshed every 3 s, so the CSV holds the answers given since): per option how many chose it and whether it is right, with the
    nicknames of who chose it; the CSV for the teacher to keep."""
    rows = table(lesson, steps)
    if rows is None:
        return
    with st.expander(t("lesson_results"), icon="📊"):
        per = results.per_step(steps, classroom.results()[0], key=lambda s: lesson_state.answer_key(lesson, s))
        st.caption(" · ".join(t("lesson_results_step", i=i + 1, answered=a, right=r) for i, (a, r) in enumerate(per)))
        header = {c: t(f"lesson_results_col_{c}") for c in results.COLUMNS}
        if rows:
            st.dataframe([{header[c]: r[c] for c in results.COLUMNS} for r in rows], hide_index=True)
        st.download_button(
            t("lesson_results_csv"),
            results.to_csv(rows, header, yes=t("lesson_yes"), no=t("lesson_no")).encode("utf-8-sig"),
            file_name="class-results.csv",
            mime="text/csv",
            key="les_results_csv",
            icon="⬇️",
            on_click="ignore",
        )
