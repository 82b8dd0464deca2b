"""A room's teacher at the projector (issue 50.1): the teacher reveals a step without answering it;
the projector shows the question, the options, the model's answer, its numbers and the class's
answers, and never a personal verdict ("you said ...") or score ("Your score ..."), in both
languages. The room is a real SQLite store; the students are played by the store itself."""

from __future__ import annotations

import pytest

from tests import apptest
from ui.i18n import text_in

PAGE = "pages/lessons.py"


def _teacher(tmp_path, monkeypatch, lang: str):
    from ui import classroom

    monkeypatch.setenv("ATTN_ROOMS", f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    classroom.store.clear()
    store = classroom.store()
    code, token = store.create()
    apptest.use_language(lang)
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(apptest.APP, default_timeout=180)
    at.query_params.update(model="translator", lang=lang)
    at.session_state["_room_code"], at.session_state["_room_token"] = code, token
    at.run()
    at.switch_page(PAGE)
    at.run()
    apptest.ok(at)
    return at, store, code


def _shown(at) -> str:
    """Every text the page shows: markdown, notices, captions, buttons' labels."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for e in (*at.success, *at.error, *at.info, *at.warning)]
    return " ".join(parts)


@pytest.mark.slow  # a teacher and a student on the lessons page through AppTest
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teacher_reveals_a_step_without_answering_and_sees_the_class(lang, tmp_path, monkeypatch):
    from lessons.files import BUILTIN
    from ui import classroom
    from ui import lessons as lesson_state

    at, store, code = _teacher(tmp_path, monkeypatch, lang)
    lesson = at.session_state["les_lesson"]
    assert lesson == BUILTIN[0]
    steps = lesson_state.steps_of(lesson_state.builtin_text(lesson))
    step = steps[0]
    key = f"les_pick_{lesson}_0"
    # the options are shown, locked, with nothing chosen: the teacher is not asked to predict
    pills = at.button_group(key=key) if step.kind != "slider" else at.select_slider(key=key)
    assert pills.disabled
    reveal = at.button(key=f"les_pick_{lesson}_0_reveal")
    assert reveal.label == text_in(lang, "lesson_reveal")
    assert not at.success and not at.error and not at.info

    # three students answer: two right, one wrong
    wrong = next(i for i in range(len(step.options)) if not step.is_right(i))
    for student, choice in (("s1", step.answer), ("s2", step.answer), ("s3", wrong)):
        store.answer(code, lesson_state.answer_key(lesson, step), student, choice)

    reveal.click().run()
    apptest.ok(at)
    shown = _shown(at)
    from ui.lesson_view import answer_text

    # the model's answer, by the same words a student's verdict uses
    assert text_in(lang, "lesson_the_answer", answer=answer_text(step)) in [i.value for i in at.info]
    # the reveal's text and the class's distribution (2 of 3 right), with its chart
    assert text_in(lang, "lesson_class_right", right=2, n=3) in shown, shown
    # nothing personal: no verdict of the teacher's own, no score, no "predict first"
    for personal in ("lesson_wrong", "lesson_right", "lesson_score", "lesson_score_partial", "lesson_predict_first"):
        head = text_in(lang, personal, given="", answer="", right=0, n=0, answered=0).split("*")[0].split("{")[0][:6]
        assert head and head not in shown, (personal, head, shown)
    assert at.session_state["les_answers"].get(lesson, {}) == {}  # the teacher answered nothing
    assert store.answers(code, lesson_state.answer_key(lesson, step)) == {step.answer: 2, wrong: 1}

    # every step to the last: revealed without a prediction, and no score at the end
    for i in range(1, len(steps)):
        at.button(key="les_next").click().run()
        apptest.ok(at)
        at.button(key=f"les_pick_{lesson}_{i}_reveal").click().run()
        apptest.ok(at)
        assert at.info, f"step {i + 1} revealed no answer"
        assert text_in(lang, "lesson_score", right=0, n=len(steps)).split("*")[0] not in _shown(at)
    classroom.store.clear()


def test_without_a_room_a_student_still_predicts_and_is_scored():
    """The reveal button is the room's teacher's only: a student alone still answers to see."""
    at = apptest.open_page(PAGE, "translator", 180, lang="en")
    lesson = at.session_state["les_lesson"]
    assert not [b for b in at.button if b.key and b.key.endswith("_reveal")]
    at.button_group(key=f"les_pick_{lesson}_0").set_value(0).run()
    apptest.ok(at)
    assert at.success or at.error
    assert "Answered 1 of" in _shown(at)
