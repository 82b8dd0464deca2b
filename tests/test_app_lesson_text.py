"""The lessons page as a class sees it (issues 32 and 37): a stranger's lesson text shown as typed,
never as a link or an image (32.5); the teacher's results table and CSV of lesson 3 in plain text,
with the same yes / no words (37.3); every CSV field quoted and defused (32.7); and the class's
bars kept off the projector until the teacher reveals the step, unless the teacher shows them live."""

from __future__ import annotations

import csv
import io

import pytest
from streamlit.testing.v1 import AppTest

from tests import apptest
from tests.test_lesson_text import ALLOWED_TAGS, HOSTILE, rendered, tags

PAGE = "pages/lessons.py"

HOSTILE_LESSON = (
    # the lesson's name as the page names a lesson it cannot read: AppTest formats the radio's
    # options outside the session, where the custom lesson is not to be found
    'id = "phish"\ntitle = { en = "Your own lesson", zh = "Your own lesson" }\n\n[[step]]\nmodel = "translator"\n'
    'sentence = "The cat sat on the mat"\nquestion = "choice"\nquery = "token_count"\nview = { kind = "encoder" }\n'
    f'ask.en = """{HOSTILE[0]}"""\nask.zh = """{HOSTILE[1]}"""\n'
    f'reveal.en = """{{n}} tokens. {HOSTILE[2]}"""\nreveal.zh = "{{n}}"\n'
)


@pytest.fixture
def room(tmp_path, monkeypatch):
    """A room in a store of this test's own, its code and teacher token."""
    from ui import classroom

    monkeypatch.setenv("ATTN_ROOMS", f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    classroom.store.clear()
    store = classroom.store()
    code, token = store.create()
    yield store, code, token
    classroom.store.clear()


def open_lessons(lesson: str, state: dict, lang: str = "en") -> AppTest:
    at = AppTest.from_file(apptest.APP, default_timeout=180)
    at.query_params["model"], at.query_params["lang"] = "translator", lang
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    at.switch_page(PAGE)
    at.query_params["lesson"] = lesson
    at.run()
    apptest.ok(at)
    return at


def test_a_hostile_lesson_shows_no_link_and_no_image_on_the_page():
    """The issue's lesson (reference definitions, a protocol-relative image, an entity-encoded
    address): the question, the reveal and the lesson's name render to text only."""
    at = open_lessons("custom", {"les_custom_text": HOSTILE_LESSON})
    assert at.session_state["les_lesson"] == "custom"
    at.button_group(key="les_pick_custom_0").set_value(0).run()
    apptest.ok(at)
    shown = [m.value for m in at.markdown] + [o for r in at.radio for o in r.options]
    assert any("tracker" in s for s in shown), shown  # the text is on the page, as text
    for s in shown:
        assert tags(rendered(s)) <= ALLOWED_TAGS | {"strong", "/strong", "h2", "/h2"}, s


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lesson_3_results_table_and_csv_are_plain_text(room, lang, page_language):
    """Steps 2-5 of lesson 3 showed `&lt;s&gt;` and `mat\\. It was happy\\.`; the table said
    true / false where the CSV said Yes / No."""
    from ui.i18n import text_in

    page_language(lang)
    store, code, token = room
    store.answer(code, "decoder.2", "s1", 0)
    store.set_nickname(code, "s1", "x;=1+1")
    at = open_lessons("decoder", {"_room_code": code, "_room_token": token}, lang)
    table = at.dataframe[0].value
    cells = [str(v) for v in table.to_numpy().ravel()] + list(table.columns)
    assert not [c for c in cells if "&lt;" in c or "&gt;" in c or "\\" in c], cells
    assert any("<s>" in c for c in cells) and any("It was happy." in c for c in cells), cells
    yes, no = text_in(lang, "lesson_yes"), text_in(lang, "lesson_no")
    right = table[text_in(lang, "lesson_results_col_right")]
    assert set(right) == {yes, no}

    def download():
        import streamlit as st

        from pages.lessons_parts import results as lesson_results
        from ui import lessons

        steps = lessons.steps("decoder")
        maker = lesson_results.table_maker("decoder", steps)
        st.text(lesson_results.csv_bytes(maker, lesson_results.words()).decode("utf-8-sig"))

    dl = AppTest.from_function(download, default_timeout=180)
    for k, v in {"_room_code": code, "_room_token": token, "lang": lang}.items():
        dl.session_state[k] = v
    dl.run()
    apptest.ok(dl)
    raw = dl.text[0].value
    assert "&lt;" not in raw and "\\" not in raw, raw
    rows = list(csv.reader(io.StringIO(raw)))
    assert {r[4] for r in rows[1:]} == {yes, no}  # the same words as the table
    assert all(line.startswith('"') for line in raw.splitlines() if line), raw  # every field quoted
    assert any(r[5] == "x;'=1+1" for r in rows), rows  # a formula after a separator, defused


def test_the_class_bars_wait_for_the_reveal_unless_shown_live(room):
    store, code, token = room
    store.answer(code, "decoder.1", "s1", 0)
    store.answer(code, "decoder.1", "s2", 1)
    at = open_lessons("decoder", {"_room_code": code, "_room_token": token})
    assert not at.get("plotly_chart"), "the class's bars are on the projector before the reveal"
    assert any("2 answered" in m.value for m in at.markdown)
    at.toggle(key="les_class_live").set_value(True).run()
    assert len(at.get("plotly_chart")) == 1
    at.toggle(key="les_class_live").set_value(False).run()
    at.button(key="les_pick_decoder_0_reveal").click().run()  # the teacher reveals the step, not answering it
    assert at.get("plotly_chart"), "after the reveal the class's bars show"
