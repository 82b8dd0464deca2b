"""A contributor adds a page and a lesson as CONTRIBUTING.md says, in a temporary copy of the
project, and edits nothing else: the lesson is a built-in lesson, its step may link to the new page
and its reveal links there, and the page explorer finds the page and operates its control. Every
list involved (the built-in lessons, the pages a lesson may link, the explorer's pages) must come
from the page's and the lesson's own files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".git", ".venv", "__pycache__", "screenshots", "node_modules", ".pytest_cache"}

PAGE = """
from ui import boot  # noqa: F401

# isort: split

import streamlit as st

from ui import page
from ui.i18n import t
from ui.layout import page_header
from ui.run import Context

VIEW = ()


def render(ctx: Context, view: dict) -> None:
    page_header("page_glossary", "glossary_intro")
    word = st.selectbox(t("glossary_word"), ["query", "key", "value"], key="glossary_word")
    st.markdown(word)


if __name__ == "__main__":
    page.show(render, VIEW)
"""
STRINGS = """
[page_glossary]
en = "Glossary"
zh = "术语表"

[glossary_intro]
en = "The words the tutorials use."
zh = "教程里用到的词。"

[glossary_word]
en = "Word"
zh = "词"
"""
LESSON = """
id = "glossary"
title = { en = "9 · Words", zh = "9 · 术语" }

[[step]]
id = "glossary.1"
model = "gpt"
sentence = "The cat sat on the mat"
question = "choice"
query = "token_count"
view = { kind = "decoder", page = "glossary" }
ask.en = "How many tokens does the model read?"
ask.zh = "模型读到几个词元？"
reveal.en = "It reads {n} tokens."
reveal.zh = "它读到 {n} 个。"

[[step]]
id = "glossary.2"
model = "gpt"
sentence = "The dog saw the cat"
question = "choice"
query = "token_count"
view = { kind = "decoder", page = "glossary" }
ask.en = "How many tokens does the model read?"
ask.zh = "模型读到几个词元？"
reveal.en = "It reads {n} tokens."
reveal.zh = "它读到 {n} 个。"

[[step]]
id = "glossary.3"
model = "gpt"
sentence = "A bird sat on the tree"
question = "choice"
query = "token_count"
view = { kind = "decoder", page = "glossary" }
ask.en = "How many tokens does the model read?"
ask.zh = "模型读到几个词元？"
reveal.en = "It reads {n} tokens."
reveal.zh = "它读到 {n} 个。"
"""
# CONTRIBUTING's "Mark each key": the page's strings and the lesson's texts (a step's texts are
# filled from its query, which checks them)
PAGE_MARKS = """
page_glossary = "definitional"
glossary_intro = "definitional"
glossary_word = "definitional"
"""
LESSON_MARKS = """
"title" = "definitional"
"glossary.1.ask" = { query = "token_count" }
"glossary.1.reveal" = { query = "token_count" }
"glossary.2.ask" = { query = "token_count" }
"glossary.2.reveal" = { query = "token_count" }
"glossary.3.ask" = { query = "token_count" }
"glossary.3.reveal" = { query = "token_count" }
"""
CHECK = """
from lessons import files
from lessons.build import build
from model import load
from tests import explore, test_explore
from ui.lesson_view import explore_target

assert "glossary" in files.BUILTIN, files.BUILTIN
lesson = files.builtin("glossary")  # validates: view.page names a page of app.py
steps = build(lesson, lambda name: load(name, device="cpu"))
assert len(steps) == 3, steps
target = explore_target(steps[0])
assert target is not None and target[0] == "pages/glossary.py", target
assert "pages/glossary.py" in test_explore.PAGES, test_explore.PAGES
run = explore.explore("pages/glossary.py", "gpt", "en", singles=True, walks=0, relink=False, limit=6)
assert not run and run.operated >= 3, (list(run), run.operated)
from tests import test_render
from tests.render import render_page
from ui.context import Context

assert "pages/glossary.py" in test_render.FILES, test_render.FILES
test_render.test_a_page_file_is_a_view_and_a_render("pages/glossary.py")
at = render_page("pages/glossary.py", Context("zh", "gpt", "狗咬人", "cpu", False))
assert not at.exception and [x.value for x in at.title] == ["术语表"], (at.exception, at.title)
from tests import test_marks
from tests.test_image import app_pages

# the marks check (tests/test_marks.py) on the new page's strings and the lesson's texts: every one
# marked (each step an id "ID.N", which its marks name), each step's marked with its query
ours = [(f, k) for f, k, _, _ in test_marks.every_entry() if f in ("glossary.toml", "lesson_glossary.toml")]
assert len(ours) == 3 + 1 + 6, ours
assert [fk for fk in ours if fk[1] not in test_marks.MARKED.get(fk[0], {})] == []
test_marks.test_lesson_marks_follow_each_step_query()

assert "pages/glossary.py" in [f for f, _ in app_pages()]  # the image's page list, from app.py
print("found, explored and linked")
"""


def _copy(dst: Path) -> None:
    def ignore(folder, names):
        return {n for n in names if n in SKIP}

    shutil.copytree(ROOT, dst, ignore=ignore, symlinks=True)
    shutil.rmtree(dst / "model" / "weights")
    (dst / "model" / "weights").symlink_to(ROOT / "model" / "weights", target_is_directory=True)


@pytest.mark.slow
def test_a_new_page_and_a_new_lesson_need_no_edit_elsewhere(tmp_path):
    copy = tmp_path / "project"
    _copy(copy)
    (copy / "pages" / "glossary.py").write_text(textwrap.dedent(PAGE).lstrip(), encoding="utf-8")
    (copy / "ui" / "strings" / "glossary.toml").write_text(STRINGS.lstrip(), encoding="utf-8")
    (copy / "lessons" / "builtin" / "glossary.toml").write_text(LESSON.lstrip(), encoding="utf-8")
    (copy / "ui" / "marks" / "glossary.toml").write_text(PAGE_MARKS.lstrip(), encoding="utf-8")
    (copy / "ui" / "marks" / "lesson_glossary.toml").write_text(LESSON_MARKS.lstrip(), encoding="utf-8")
    app = (copy / "app.py").read_text(encoding="utf-8")
    anchor = '    ("pages/lessons.py", "lessons", "page_lessons", "🎓"),\n'
    assert anchor in app  # CONTRIBUTING's step 3: the page's line in PAGES
    app = app.replace(anchor, '    ("pages/glossary.py", "glossary", "page_glossary", "📖"),\n' + anchor)
    (copy / "app.py").write_text(app, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=copy, capture_output=True, text=True, timeout=600, env=_env(copy)
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "found, explored and linked" in done.stdout


def test_a_pages_error_is_shown_in_tests_not_redacted(tmp_path):
    """A failing page test prints the page's own error (tests/conftest.py sets showErrorDetails
    "full"; the served app keeps "none" for strangers), not "the original error message is
    redacted"."""
    from streamlit.testing.v1 import AppTest

    (tmp_path / "app.py").write_text('raise ValueError("the page\'s own words")\n', encoding="utf-8")
    at = AppTest.from_file(str(tmp_path / "app.py"))
    at.run()
    assert [e.value for e in at.exception] == ["the page's own words"]


def _env(copy: Path) -> dict:
    import os

    return {**os.environ, "PYTHONPATH": str(copy)}
