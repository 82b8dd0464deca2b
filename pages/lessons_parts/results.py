"""The teacher's view of the class: how the room answered this step (a chart refreshed every 2 s)
and the results of every step (a table and a CSV download). Students are anonymous unless they
typed a nickname; the answers live in the room store and end with the room."""

from __future__ import annotations

import streamlit as st

from lessons import checks, results
from lessons.schema import LessonError, validate
from ui import classroom
from ui import lessons as lesson_state
from ui.i18n import lang, t, text_in
from ui.layout import present_figure
from ui.lesson_view import fill, option_text
from ui.rooms import StoreError
from ui.widgets import PLOTLY_CONFIG

LIVE_KEY = "les_class_live"  # the teacher's choice: the class's bars shown before the reveal


@st.fragment(run_every=2)
def class_answers(step, key: str, revealed: bool) -> None:
    """The teacher's view of how the room answered this step, refreshed every 2 s. The teacher's
    screen is the projector: until the teacher reveals the step (answers it), the class sees only
    how many answered, not which option leads, unless the teacher chose to show the bars live."""
    from viz.lessons import bars

    counts = classroom.answer_counts(key)
    if counts is None:
        return
    total = sum(counts.values())
    live = st.toggle(t("lesson_class_live"), key=LIVE_KEY, help=t("lesson_class_live_help"))
    if not (revealed or live):
        st.markdown("**" + t("lesson_class_answers", n=total) + "** · " + t("lesson_class_hidden"))
        return
    right = sum(c for i, c in counts.items() if step.is_right(i))
    st.markdown("**" + t("lesson_class_answers", n=total) + "** · " + t("lesson_class_right", right=right, n=total))
    shown = [i for i in range(len(step.options)) if step.kind != "slider" or counts.get(i)]
    if not shown:
        return
    fig = bars(
        [option_text(step, i) for i in shown],  # viz escapes for the chart
        [counts.get(i, 0) for i in shown],
        counts=True,
        highlight=(shown.index(step.answer) if step.answer in shown else None) if revealed else None,
        height=260,
    )
    st.plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=f"les_class_{step.id}")


def table_maker(lesson: str, steps):
    """A function of no arguments that returns the results table from the room's answers as they
    are when it is called (None outside a teacher's room). The texts are written now, in the
    reader's language: the download calls it on Streamlit's thread, outside the session. Plain
    text (fill, option_text): the table and the CSV show what the students read, not markdown."""
    read = classroom.results_reader()
    if read is None:
        return None
    language = lang()
    asks = {s.id: fill(s.ask, s.params) for s in steps}
    labels = {(s.id, i): option_text(s, i) for s in steps for i in range(len(s.options))}
    tagged = check_tags(lesson)
    checked = {sid: check_label(*tag) for sid, tag in tagged.items()}

    def make() -> list[dict]:
        answers, nicks = read()
        return results.rows(
            steps,
            answers,
            nicks,
            key=lambda s: lesson_state.answer_key(lesson, s),
            ask=lambda s: asks[s.id],
            label=lambda s, i: labels[(s.id, i)],
            anonymous=lambda n: text_in(language, "lesson_results_anonymous", n=n),
            check=lambda s: checked.get(s.id, ""),
        )

    return make


def check_tags(lesson: str) -> dict[str, tuple[str, str]]:
    """{step id: (objective, phase)} of the lesson's check steps (lessons/checks.py); {} for none."""
    try:
        return checks.tags(validate(lesson_state.text_of(lesson) or ""))
    except LessonError:
        return {}


def check_label(objective: str, phase: str) -> str:
    return t(f"check_objective_{objective}") + " · " + t(f"check_phase_{phase}")


def gain_maker(lesson: str, steps):
    """A function of no arguments that returns what the class learned (results.gain_table: per
    objective the share right before and after, and the gain) from the room's answers as they are
    when it is called; None outside a teacher's room or for a lesson that checks nothing."""
    read = classroom.results_reader()
    tagged = check_tags(lesson)
    if read is None or not tagged:
        return None
    names = {o: t(f"check_objective_{o}") for o in checks.OBJECTIVES}

    def make() -> list[dict]:
        answers, _ = read()
        gains = checks.gains(steps, answers, lambda s: lesson_state.answer_key(lesson, s), tagged)
        return results.gain_table(gains, objective=names.get)

    return make


def gain_csv_bytes(make, header: dict) -> bytes:
    return results.gain_csv(make(), header).encode("utf-8-sig")


def class_gains(lesson: str, steps) -> None:
    """What the class learned: per objective the share right before (pre) and after (post), the
    gain, and its CSV (anonymous: counts only, as the answers are)."""
    make = gain_maker(lesson, steps)
    if make is None:
        return
    try:
        table = make()
    except StoreError as e:
        st.toast(classroom.store_failed(e), icon="⚠️")
        return
    header = {c: t(f"lesson_gain_col_{c}") for c in results.GAIN_COLUMNS}
    with st.expander(t("lesson_gains"), icon="📈", expanded=True):
        st.caption(t("lesson_gains_help"))
        st.dataframe([{header[c]: row[c] for c in results.GAIN_COLUMNS} for row in table], hide_index=True)
        st.download_button(
            t("lesson_gains_csv"),
            lambda: gain_csv_bytes(make, header),
            file_name="class-learning.csv",
            mime="text/csv",
            key="les_gains_csv",
            icon="⬇️",
            on_click="ignore",
        )


def words() -> tuple[dict, str, str]:
    """The results' column names and yes / no words in the reader's language: the same for the
    table and the CSV (results.shown formats both)."""
    return {c: t(f"lesson_results_col_{c}") for c in results.COLUMNS}, t("lesson_yes"), t("lesson_no")


def csv_bytes(make, named: tuple[dict, str, str]) -> bytes:
    """The CSV the teacher downloads: make()'s rows when it is called, as results.to_csv writes them
    (with a BOM, so a spreadsheet reads the Chinese as UTF-8)."""
    header, yes, no = named
    return results.to_csv(make(), header, yes=yes, no=no).encode("utf-8-sig")


@st.fragment(run_every=3)
def class_results(lesson: str, steps) -> None:
    """Every step's results (the table refreshed every 3 s): per option how many chose it and
    whether it is right, with the nicknames of who chose it; the CSV for the teacher to keep, read
    from the room store when the teacher clicks (so it holds every answer given until then)."""
    make = table_maker(lesson, steps)
    if make is None:
        return
    try:
        rows = make()
    except StoreError as e:
        classroom.toast_store_failed(e)
        return
    named = words()
    class_gains(lesson, steps)
    with st.expander(t("lesson_results"), icon="📊"):
        per = results.per_step(rows, len(steps))
        st.caption(" · ".join(t("lesson_results_step", i=i + 1, answered=a, right=r) for i, (a, r) in enumerate(per)))
        if rows:
            header, yes, no = named
            st.dataframe(results.shown(rows, header, yes=yes, no=no), hide_index=True)
        st.download_button(
            t("lesson_results_csv"),
            lambda: csv_bytes(make, named),
            file_name="class-results.csv",
            mime="text/csv",
            key="les_results_csv",
            icon="⬇️",
            on_click="ignore",
        )
