"""A server that does not offer the real pretrained model (ATTN_HF off, the default; issue 50.2):
the editor offers neither that model nor its lesson, and a lesson that names it anyway (a copy made
on another server, a room's shared lesson, an upload) is refused with a notice in the reader's
language at every door (the editor's "Use on the lessons page", the lessons page, an upload),
never with InputError hf_refused's error box."""

from __future__ import annotations

import pytest

from lessons import files
from model import hf, registry
from tests import apptest
from ui.i18n import text_in

EDITOR, LESSONS = "pages/editor.py", "pages/lessons.py"


@pytest.fixture(autouse=True)
def _nothing_pretrained_offered(monkeypatch):
    monkeypatch.setattr(hf, "pretrained_offered", lambda: [])


def _real_lessons() -> list[str]:
    """The built-in lessons with a step on a packaged pretrained model (lesson 4): found, not named."""
    from lessons.schema import validate

    found = [
        n for n in files.BUILTIN if any(s["model"] in registry.PACKAGED for s in validate(files.builtin(n).text).steps)
    ]
    assert found, "no built-in lesson uses a packaged pretrained model: nothing to check"
    return found


def _refusal(lang: str) -> str:
    return text_in(lang, "lesson_error_model_not_offered", step="\x00", value="", known="").split("\x00")[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_editor_offers_only_what_the_server_offers(lang):
    at = apptest.open_page(EDITOR, "translator", 180, lang=lang)
    models = at.selectbox(key="ed_model").options
    assert models and not [m for m in models if any(p in m for p in registry.PACKAGED)], models
    starts = at.selectbox(key="ed_builtin").options
    titles = [files.builtin(n).title[lang] for n in _real_lessons()]
    assert not [s for s in starts if s in titles], starts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_copied_real_lesson_is_refused_with_a_notice_not_an_error_box(lang):
    at = apptest.open_page(EDITOR, "translator", 180, lang=lang)
    real = files.builtin(_real_lessons()[0])
    at.session_state["ed_steps"] = [dict(s) for s in real.steps]  # copied into the editor elsewhere
    at.run()
    apptest.ok(at)
    assert any(_refusal(lang) in w.value for w in at.warning), [w.value for w in at.warning]
    assert "ed_use" not in [b.key for b in at.button]  # nothing to use: the lesson does not build here


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lessons_page_refuses_a_shared_lesson_on_a_model_not_offered(lang):
    from streamlit.testing.v1 import AppTest

    apptest.use_language(lang)
    at = AppTest.from_file(apptest.APP, default_timeout=180)
    at.query_params.update(model="translator", lang=lang)
    at.session_state["les_custom_text"] = files.builtin(_real_lessons()[0]).text  # a room's shared lesson
    at.run()
    at.switch_page(LESSONS)
    at.query_params["lesson"] = "custom"
    at.run()
    apptest.ok(at)
    assert at.session_state["les_lesson"] == "custom"
    assert any(_refusal(lang) in w.value for w in at.warning), [w.value for w in at.warning]


def test_use_on_the_lessons_page_of_a_lesson_no_longer_offered_is_a_notice(monkeypatch):
    """The lesson was checked when the page drew its button and its model is not offered when the
    teacher clicks (the operator changed the setting): the callback says so instead of raising."""
    import ui.lessons as lesson_state

    at = apptest.open_page(EDITOR, "translator", 180, lang="en")
    at.session_state["ed_steps"] = [dict(s) for s in files.builtin(files.BUILTIN[0]).steps]
    at.run()
    assert "ed_use" in [b.key for b in at.button]
    monkeypatch.setattr(lesson_state, "offered_models", lambda: ["gpt"])
    at.button(key="ed_use").click().run()
    apptest.ok(at)
    assert any(_refusal("en") in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.session_state["les_lesson"] != lesson_state.CUSTOM if "les_lesson" in at.session_state else True
