"""The sidebar's sentence box (issue 50.3, 50.4): a paste longer than the models read is cut with a
notice in the reader's language (it vanished without a word: the box's max_chars made the browser
drop the paste whole and rerun the old sentence), and a box a room's move cleared while a student
typed applies nothing instead of raising KeyError '_text_box_5_0' in the server log."""

from __future__ import annotations

import pytest

from tests import apptest
from ui.i18n import text_in
from ui.state import TEXT_KEY, TEXT_READ_MAX


def _box(at):
    boxes = [ta for ta in at.sidebar.text_area if str(ta.key).startswith("_text_box_")]
    assert len(boxes) == 1, [ta.key for ta in at.sidebar.text_area]
    return boxes[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_paste_over_the_limit_is_cut_with_a_notice(lang):
    at = apptest.open_alone("pages/home.py", model="gpt", lang=lang)
    box = _box(at)
    assert not box.max_chars  # 0: none, so no browser drops a long paste whole
    pasted = ("猫坐在垫子上。" if lang == "zh" else "The cat sat on the mat. ") * 400
    assert len(pasted) > TEXT_READ_MAX
    box.set_value(pasted).run()
    apptest.ok(at)
    assert at.session_state[TEXT_KEY] == pasted[:TEXT_READ_MAX]
    want = text_in(lang, "sentence_cut", n=len(pasted), max=TEXT_READ_MAX)
    assert want in [w.value for w in at.warning], [w.value for w in at.warning]
    assert _box(at).value == pasted[:TEXT_READ_MAX]  # the box shows what the models read
    # a text within the limit: no notice
    _box(at).set_value("The dog bit the man").run()
    assert at.session_state[TEXT_KEY] == "The dog bit the man"
    assert want not in [w.value for w in at.warning]


def test_a_box_cleared_by_a_room_move_applies_nothing():
    """ui.classroom._apply clears the session's keys (the box's among them) and switches page; a
    student's typing that arrives in that run calls the box's on_change for a key that is gone."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from ui import context
        from ui.state import TEXT_KEY

        st.session_state.setdefault(TEXT_KEY, "The teacher's sentence")
        context._typed("_text_box_5_0")  # the box's key went with the room's move
        st.write(st.session_state[TEXT_KEY])

    at = AppTest.from_function(script)
    at.run()
    apptest.ok(at)
    assert at.markdown[0].value == "The teacher's sentence"
