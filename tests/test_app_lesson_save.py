"""Issue 32 item 8: saving a lesson on the server (ATTN_LESSONS_DIR + ATTN_LESSONS_SAVE=1) takes the
teacher's secret: a visitor without a room saves nothing; a saved lesson belongs to the room that
saved it, so another room's teacher cannot replace it; and no room can fill the folder."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from lessons import files, schema
from tests import apptest
from tests.test_app_lesson_text import room  # noqa: F401  (the fixture)

PAGE = "pages/editor.py"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    d = tmp_path / "lessons"
    monkeypatch.setenv(files.DIR_ENV, str(d))
    monkeypatch.setenv(files.SAVE_ENV, "1")
    return d


def editor_with(state: dict, lesson_id: str = "week-3") -> AppTest:
    """The editor with one step (token_count) in a lesson called lesson_id, as a session with state."""
    at = AppTest.from_file(apptest.APP, default_timeout=180)
    at.query_params["model"], at.query_params["lang"] = "translator", "en"
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    at.switch_page(PAGE)
    at.run()
    at.text_input(key="ed_lesson_id").set_value(lesson_id).run()
    at.selectbox(key="ed_query").set_value("token_count").run()
    at.button(key="ed_add").click().run()
    apptest.ok(at)
    return at


def notes(at) -> str:
    return " ".join(w.value for w in at.warning) + " ".join(s.value for s in at.success)


def test_a_visitor_without_a_room_saves_nothing(folder):
    at = editor_with({})
    at.button(key="ed_save").click().run()
    assert "Open a room as its teacher" in notes(at), notes(at)
    assert not folder.exists() or not list(folder.glob("*.toml"))


def test_a_saved_lesson_belongs_to_its_room(folder, room):  # noqa: F811
    store, code, token = room
    at = editor_with({"_room_code": code, "_room_token": token})
    at.button(key="ed_save").click().run()
    assert (folder / "week-3.toml").is_file(), notes(at)
    kept = (folder / "week-3.toml").read_bytes()
    other_code, other_token = store.create()
    stranger = editor_with({"_room_code": other_code, "_room_token": other_token})
    stranger.button(key="ed_save").click().run()
    assert "already saved on this server by another room" in notes(stranger), notes(stranger)
    assert (folder / "week-3.toml").read_bytes() == kept

    # the room's code is on the projector: a session that claims it with a made-up secret saves nothing
    # (the editor's save, called as its button does; a full run would turn that session into a student)
    def forged_save():
        import streamlit as st

        from tests.test_app_lesson_save import MINIMAL
        from ui import editor

        editor.save(MINIMAL.format(id="forged"))
        st.text(st.session_state["_ed_note"][1])

    forged = AppTest.from_function(forged_save, default_timeout=60)
    forged.session_state["_room_code"], forged.session_state["_room_token"] = code, "not-the-secret"
    forged.run()
    assert "Open a room as its teacher" in forged.text[0].value and not (folder / "forged.toml").exists()
    at.button(key="ed_save").click().run()  # the room that saved it may save it again
    assert "Saved as week\\-3\\.toml" in notes(at), notes(at)


MINIMAL = (
    'id = "{id}"\ntitle = {{ en = "t", zh = "t" }}\n\n[[step]]\nmodel = "translator"\n'
    'sentence = "The cat sat on the mat"\nquestion = "choice"\nquery = "token_count"\n'
    'ask.en = "x"\nask.zh = "x"\nreveal.en = "x"\nreveal.zh = "x"\n'
)


def test_no_room_fills_the_folder_and_the_operators_files_stay(folder):
    for i in range(files.MAX_PER_OWNER):
        files.save(MINIMAL.format(id=f"l{i}"), owner="ROOMAAAA")
    with pytest.raises(schema.LessonError) as got:
        files.save(MINIMAL.format(id="one-more"), owner="ROOMAAAA")
    assert got.value.code == "owner_full"
    files.save(MINIMAL.format(id="l0"), owner="ROOMAAAA")  # replacing its own is not one more
    (folder / "operators.toml").write_text(MINIMAL.format(id="operators"), encoding="utf-8")
    with pytest.raises(schema.LessonError) as got:
        files.save(MINIMAL.format(id="operators"), owner="ROOMBBBB")
    assert got.value.code == "not_yours"
    with pytest.raises(schema.LessonError) as got:
        files.save(MINIMAL.format(id="x"), owner="")
    assert got.value.code == "save_needs_room"
    assert "operators" in files.saved() and files.owner_of("operators") is None


def test_a_rooms_lessons_are_listed_to_that_rooms_teacher_alone(folder):
    """Issue 45, item 6: one visitor's saves appeared in every teacher's "Start from" list."""
    files.save(MINIMAL.format(id="spam"), owner="ROOMAAAA")
    files.save(MINIMAL.format(id="week-3"), owner="ROOMBBBB")
    (folder / "operators.toml").write_text(MINIMAL.format(id="operators"), encoding="utf-8")
    assert files.saved() == ["operators"]
    assert files.saved(owner="ROOMBBBB") == ["operators", "week-3"]
    assert files.saved(owner="ROOMAAAA") == ["operators", "spam"]


def test_a_rooms_lessons_expire_and_free_the_folder_but_the_operators_stay(folder, monkeypatch):
    for i in range(files.MAX_PER_OWNER):
        files.save(MINIMAL.format(id=f"l{i}"), owner="ROOMAAAA")
    (folder / "operators.toml").write_text(MINIMAL.format(id="operators"), encoding="utf-8")
    with pytest.raises(schema.LessonError):
        files.save(MINIMAL.format(id="one-more"), owner="ROOMAAAA")
    import os
    import time

    old = time.time() - files.SAVED_TTL_S - 60
    for p in folder.iterdir():
        os.utime(p, (old, old))
    files.save(MINIMAL.format(id="one-more"), owner="ROOMAAAA")  # the old ones expired first
    assert files.saved(owner="ROOMAAAA") == ["one-more", "operators"]
    assert sorted(p.name for p in folder.iterdir()) == ["one-more.owner", "one-more.toml", "operators.toml"]
