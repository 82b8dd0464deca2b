"""What the class learned (issue 50, "pre/post check"): a lesson's steps may check one of the
tutorials' objectives before (pre) or after (post) the teaching; the built-in check asks each of
six objectives twice, with different items, every answer computed from the model; the teacher sees
per objective the class's share right before and after and the gain, and both CSVs hold it."""

from __future__ import annotations

import csv
import io

import pytest

from lessons import checks, files, results
from lessons.build import build
from lessons.schema import LessonError, validate
from tests import apptest
from ui.i18n import text_in


def _built(name: str = "check"):
    from ui import cache

    return build(files.builtin(name), lambda n: cache.runner(n, "cpu"))


def test_the_built_in_check_asks_every_objective_before_and_after_with_different_items():
    lesson = files.builtin("check")
    tagged = checks.tags(lesson)
    assert tagged, "the check lesson tags no step"
    for objective in checks.OBJECTIVES:
        pre = [sid for sid, tag in tagged.items() if tag == (objective, "pre")]
        post = [sid for sid, tag in tagged.items() if tag == (objective, "post")]
        assert pre and post, (objective, pre, post)
    steps = _built()
    assert {s.id for s in steps} == set(tagged), "a check step fails the margin rule or does not apply"
    by_id = {s.id: s for s in steps}
    specs = {lesson.step_id(i): spec for i, spec in enumerate(lesson.steps)}
    for objective in checks.OBJECTIVES:
        pre, post = (next(sid for sid, tag in tagged.items() if tag == (objective, p)) for p in checks.PHASES)
        item = lambda sid: (specs[sid]["model"], tuple(specs[sid]["sentence"]), repr(specs[sid].get("args")))  # noqa: E731
        assert item(pre) != item(post), f"{objective}: the same item asked twice"
        assert by_id[pre].ask != by_id[post].ask or by_id[pre].params != by_id[post].params


def test_a_check_survives_the_editor_s_file_writer():
    """The editor writes a lesson with lessons.files.dumps: a step's check is kept (and every key a
    step may hold is written: the writer's order lists them all)."""
    from lessons.schema import STEP_KEYS

    assert set(files.STEP_ORDER) == set(STEP_KEYS)
    lesson = files.builtin("check")
    again = validate(files.dump_lesson(lesson))
    assert checks.tags(again) == checks.tags(lesson) and len(checks.tags(again)) == len(lesson.steps)


@pytest.mark.parametrize(
    "check",
    [
        '{ objective = "softmax", phase = "pre" }',
        '{ objective = "masks", phase = "during" }',
        '{ objective = "masks" }',
        '{ objective = "masks", phase = "pre", extra = 1 }',
        '"masks"',
    ],
)
def test_a_check_that_is_not_one_of_the_objectives_and_phases_is_refused(check):
    text = files.builtin("check").text.replace('{ objective = "masks", phase = "pre" }', check, 1)
    assert text != files.builtin("check").text
    with pytest.raises(LessonError) as e:
        validate(text)
    assert e.value.code in ("bad_check", "wrong_type"), e.value
    if e.value.code == "bad_check":
        for lang in ("en", "zh"):
            said = text_in(lang, "lesson_error_bad_check", **e.value.params)
            assert "masks" in said and "pre" in said


def test_gains_are_the_shares_right_before_and_after_per_objective():
    steps = _built()
    tagged = checks.tags(files.builtin("check"))
    step = {tagged[s.id]: s for s in steps}
    wrong = lambda s: next(i for i in range(len(s.options)) if not s.is_right(i))  # noqa: E731
    answers = []
    # masks: 1 of 4 right before, 3 of 3 after; heads: 2 of 2 before, nobody after yet
    for student, right in (("a", True), ("b", False), ("c", False), ("d", False)):
        s = step[("masks", "pre")]
        answers.append((s.id, student, s.answer if right else wrong(s)))
    for student in ("a", "b", "c"):
        s = step[("masks", "post")]
        answers.append((s.id, student, s.answer))
    for student in ("a", "b"):
        s = step[("heads", "pre")]
        answers.append((s.id, student, s.answer))
    answers.append(("another.step", "a", 0))  # a step of another lesson: not counted
    gains = {g["objective"]: g for g in checks.gains(steps, answers, lambda s: s.id, tagged)}
    assert list(gains) == list(checks.OBJECTIVES)  # every objective the lesson checks, in order
    assert (gains["masks"]["before"], gains["masks"]["after"]) == (0.25, 1.0)
    assert gains["masks"]["gain"] == pytest.approx(0.75)
    assert (gains["heads"]["before"], gains["heads"]["after"], gains["heads"]["gain"]) == (1.0, None, None)
    assert gains["cross"]["before_n"] == gains["cross"]["after_n"] == 0
    table = results.gain_table(list(gains.values()))
    masks = next(r for r in table if r["objective"] == "masks")
    assert masks == {
        "objective": "masks",
        "before": "25 %",
        "after": "100 %",
        "gain": "75 pp",
        "before_answers": "1/4",
        "after_answers": "3/3",
    }
    assert results.gain_text(-0.125) == "−12 pp" and results.gain_text(0.0) == "0 pp"
    rows = list(csv.reader(io.StringIO(results.gain_csv(table))))
    assert rows[0] == list(results.GAIN_COLUMNS) and ["masks", "25 %", "100 %", "75 pp", "1/4", "3/3"] in rows


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teacher_sees_what_the_class_learned_and_the_csvs_hold_it(lang, tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from pages.lessons_parts import results as part
    from ui import classroom

    monkeypatch.setenv("ATTN_ROOMS", f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    classroom.store.clear()
    store = classroom.store()
    code, token = store.create()
    steps = _built()
    tagged = checks.tags(files.builtin("check"))
    step = {tagged[s.id]: s for s in steps}
    wrong = next(i for i in range(len(step[("masks", "pre")].options)) if i != step[("masks", "pre")].answer)
    store.answer(code, step[("masks", "pre")].id, "s1", wrong)
    store.answer(code, step[("masks", "pre")].id, "s2", step[("masks", "pre")].answer)
    store.answer(code, step[("masks", "post")].id, "s1", step[("masks", "post")].answer)
    store.answer(code, step[("masks", "post")].id, "s2", step[("masks", "post")].answer)

    apptest.use_language(lang)
    at = AppTest.from_file(apptest.APP, default_timeout=180)
    at.query_params.update(model="translator", lang=lang, lesson="check")
    at.session_state["_room_code"], at.session_state["_room_token"] = code, token
    at.run()
    at.switch_page("pages/lessons.py")
    at.run()
    apptest.ok(at)
    assert at.session_state["les_lesson"] == "check"
    frames = [d.value for d in at.dataframe]
    col = text_in(lang, "lesson_gain_col_objective")
    gains = next(f for f in frames if col in f.columns)
    masks = gains[gains[col] == text_in(lang, "check_objective_masks")].iloc[0]
    assert masks[text_in(lang, "lesson_gain_col_before")] == "50 %"
    assert masks[text_in(lang, "lesson_gain_col_after")] == "100 %"
    assert masks[text_in(lang, "lesson_gain_col_gain")] == "50 pp"
    assert len(gains) == len(checks.OBJECTIVES)
    # the results CSV names the check each answer belongs to
    with monkeypatch.context() as m:
        m.setattr(classroom, "results_reader", lambda: lambda: (store.results(code), {}))
        rows = [r for r in part.table_maker("check", steps)() if r["students"]]
    masks_name = text_in(lang, "check_objective_masks")
    want = {f"{masks_name} · {text_in(lang, 'check_phase_' + p)}" for p in checks.PHASES}
    assert {r["check"] for r in rows} == want, rows
    classroom.store.clear()
