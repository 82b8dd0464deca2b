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
# a seventh lesson with a long title in both languages (on a projector the lesson menu and the
# step's progress share one line: a long title must not push the reveal's chart below the screen,
# tests/browser/test_new_page_and_lesson.py), its first step revealed by a heatmap
LESSON = """
id = "glossary"
title = { en = "9 · The words the tutorials use: query, key, value, head, layer and mask", zh = "9 · 教程里用到的词：查询、键、值、头、层和掩码，一个一个看" }

[[step]]
id = "glossary.1"
model = "gpt"
sentence = "The cat sat on the mat. It was happy."
question = "word"
query = "top_key"
view = { kind = "decoder", layer = "any", head = "furthest", page = "glossary" }
args = { word = "It" }
ask.en = "In GPT layer {layer}, head {head}, which word does “{word}” read most?"
ask.zh = "在 GPT 第 {layer} 层第 {head} 个头中，“{word}” 最关注哪个词？"
reveal.en = "“{word}” reads “{top}” with weight {weight}."
reveal.zh = "“{word}” 关注 “{top}”，权重 {weight}。"

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
"glossary.1.ask" = { query = "top_key", says = [{ check = "model_is", en = "In GPT layer", zh = "在 GPT 第", args = { model = "gpt" } }], asks = ["which word does “{word}” read most?"] }
"glossary.1.reveal" = { query = "top_key" }
"glossary.2.ask" = { query = "token_count", asks = ["How many tokens does the model read?"] }
"glossary.2.reveal" = { query = "token_count" }
"glossary.3.ask" = { query = "token_count", asks = ["How many tokens does the model read?"] }
"glossary.3.reveal" = { query = "token_count" }
"""
# The suite's own checks that read every page of app.py or every built-in lesson, run in the copy:
# those with a case per page or lesson on the new ones alone (their ids name "glossary"), the others
# whole. Each file of tests/ that reads the page list or the built-in lessons is here or in
# ELSEWHERE with where its check on a new page or lesson runs (test_the_copy_runs_every_check_...).
IN_COPY = {
    "tests/test_explore.py": "glossary",  # the page for every model and language, every control
    "tests/test_render.py": "glossary",  # a view and a render; drawn from a Context of its own
    "tests/test_page_statements.py": "glossary or test_pages_declare_what_draws_their_main_chart",
    "tests/test_views.py": "",  # every page's view: link names parsed one way, 1-based layers and heads
    "tests/test_marks.py": "test_every_string_is_marked_and_every_mark_names_a_string or test_lesson_marks_follow",
    "tests/test_i18n.py": "",  # every string in both languages; the new page through AppTest in both (WHOLE)
    "tests/test_image.py": "test_the_build_context_holds_every_file_the_app_reads",
    "tests/test_lessons.py": "glossary or test_every_query_has_an_oracle or test_every_file_in_the_builtin",
    "tests/test_lesson_budget.py": "glossary",  # the lesson's compute well inside the bound
    "tests/test_hostile_cost.py": "glossary",  # no step priced under the forwards its build runs
    "tests/test_defaults.py": "glossary",  # no step asks a question the model is sure of
    "tests/test_zh_terms.py": "",  # one Chinese term per concept in every string and lesson text
    "tests/test_lesson_says.py": "glossary",  # a reveal's and a question's fixed phrases filled, defined or guarded
}
# the files run whole (IN_COPY's ""), less the cases of a walk over every page that has a case a
# page: only the new page's run (test_i18n.py's every page in both languages, 13 pages x 2 through
# AppTest, was the copy run's longest part after test_explore's)
WHOLE = "glossary or not test_every_page_in_both_languages"
# the case ids that must be among the copy's passed tests: a check that found no new page or lesson
# to run on fails here instead of passing on the old ones
NEW_CASES = (
    "tests/test_explore.py::test_every_model_and_language_opens_the_default_view[pages/glossary.py]",
    "tests/test_explore.py::test_every_control_one_at_a_time[pages/glossary.py]",
    "tests/test_render.py::test_a_page_file_is_a_view_and_a_render[pages/glossary.py]",
    "tests/test_page_statements.py::test_pages_declare_what_draws_their_main_chart",  # every page, whole
    "tests/test_lessons.py::test_every_step_of_every_lesson_file_agrees_with_an_independent_recomputation[glossary]",
    "tests/test_lessons.py::test_every_step_of_every_lesson_file_passes_the_margin_rule_on_its_model[glossary]",
    "tests/test_lessons.py::test_built_in_lessons_keep_their_steps[glossary]",
    "tests/test_lesson_budget.py::test_the_built_in_lessons_and_the_examples_are_well_inside_the_bound[glossary]",
    "tests/test_hostile_cost.py::test_no_built_in_step_is_priced_under_the_forwards_its_build_runs[glossary.1:top_key]",
    "tests/test_lesson_says.py::test_every_reveal_is_filled_defined_or_guarded[glossary]",
    "tests/test_lesson_says.py::test_every_question_is_filled_defined_guarded_or_asked[glossary]",
    "tests/test_lesson_says.py::test_every_guarded_phrase_holds_on_its_step[glossary.1.ask:model_is]",
    "tests/test_defaults.py::test_no_built_in_step_asks_a_question_the_model_is_sure_of[glossary]",
    "tests/test_i18n.py::test_every_page_in_both_languages[en-pages/glossary.py]",
    "tests/test_i18n.py::test_every_page_in_both_languages[zh-pages/glossary.py]",
    "tests/test_i18n.py::test_every_entry_has_english_and_chinese",  # a file run whole (WHOLE)
)
# the other files that read every page or lesson: where a new page's or lesson's check runs
ELSEWHERE = {
    "tests/test_new_page_and_lesson.py": "this file",
    "tests/test_suite_phases.py": "the real models' lessons marked slow: no new page or lesson",
    "tests/test_lesson_files.py": "reading, writing and saving lesson files: any lesson, no per-lesson rule",
    "tests/test_lesson_pages.py": "app.py's PAGES parsed once: no per-page rule",
    "tests/test_hf.py": "MiniLM on every page (slow): a Hugging Face model, no rule a new page must keep",
    "tests/test_checks.py": "the built-in lesson 'check' alone",
    "tests/test_editor.py": "the editor's own steps; a built-in lesson opens in it like any file",
    "tests/test_hostile_lesson_files.py": "hostile uploads; built-in lessons as the baseline",
    "tests/test_hostile_rooms.py": "a room's lesson: the first built-in",
    "tests/test_rooms.py": "a room's lesson: the first built-in",
    "tests/test_lessons_page.py": "every step that names its page links there: the copy's test_lessons and the browser walk",
    "tests/test_models_not_offered.py": "lessons on a model a server does not offer: the real ones",
    "tests/test_lesson_truth.py": "named steps of the built-in lessons and the models' records",
    "tests/test_app_gemma.py": "lesson 6 (real_zh) on Gemma as the page shows it: that lesson alone",
}


def write_copy(copy: Path) -> Path:
    """The project copied to COPY with the contributor's page and lesson added by CONTRIBUTING.md's
    steps alone; returns COPY."""
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
    return copy


def _copy(dst: Path) -> None:
    def ignore(folder, names):
        return {n for n in names if n in SKIP}

    shutil.copytree(ROOT, dst, ignore=ignore, symlinks=True)
    # the weights copied, not linked (40 MB): the image's check reads every file the app reads
    # inside the project, and a link led out of the copy
    weights = dst / "model" / "weights"
    if weights.is_symlink():
        weights.unlink()
        shutil.copytree(ROOT / "model" / "weights", weights)


@pytest.mark.slow
def test_a_new_page_and_a_new_lesson_need_no_edit_elsewhere(tmp_path):
    copy = write_copy(tmp_path / "project")
    select = " or ".join(f"({k})" for k in {k for k in IN_COPY.values() if k})
    args = [sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-rA"]
    whole = [f for f, k in IN_COPY.items() if not k]  # run whole: no -k on them
    passed = set()
    for run in ([*args, "-k", select, *[f for f, k in IN_COPY.items() if k]], [*args, "-k", WHOLE, *whole]):
        done = subprocess.run(run, **_run(copy))
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
        passed |= {line.split(" ", 1)[1].strip() for line in done.stdout.splitlines() if line.startswith("PASSED ")}
    missing = [c for c in NEW_CASES if c not in passed]
    assert not missing, f"not run on the new page or lesson: {missing}"
    # WHOLE leaves out the other pages' cases of the every-page walk alone: each whole file's other tests ran
    for f in whole:
        names = _test_names(copy / f)
        ran = {c.split("::", 1)[1].split("[", 1)[0] for c in passed if c.startswith(f + "::")}
        assert names - ran <= {"test_every_page_in_both_languages"} and ran, (f, sorted(names - ran))
    print(f"in the copy: {len(passed)} checks on the new page and lesson, {whole} whole but the old pages' walk")


def _test_names(path: Path) -> set[str]:
    """The test functions a test file defines (module level)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def test_the_copy_runs_every_check_that_reads_every_page_or_lesson():
    """A test file that reads app.py's pages or the built-in lessons is run in the copy, or says
    where its check on a new page or lesson runs: a new enumerating test cannot be left out."""
    import re

    reads = re.compile(r"app_pages|pages_of_app|test_explore\.PAGES|files\.BUILTIN|BUILTIN_DIR|builtin\(")
    found = {
        f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*.py") if reads.search(p.read_text(encoding="utf-8"))
    }
    assert found and not (set(IN_COPY) & set(ELSEWHERE))
    assert found - set(IN_COPY) - set(ELSEWHERE) == set(), "add them to IN_COPY or ELSEWHERE"
    assert not [f for f in [*IN_COPY, *ELSEWHERE] if not (ROOT / f).exists()]


def test_a_pages_error_is_shown_in_tests_not_redacted(tmp_path):
    """A failing page test prints the page's own error (tests/conftest.py sets showErrorDetails
    "full"; the served app keeps "none" for strangers), not "the original error message is
    redacted"."""
    from streamlit.testing.v1 import AppTest

    (tmp_path / "app.py").write_text('raise ValueError("the page\'s own words")\n', encoding="utf-8")
    at = AppTest.from_file(str(tmp_path / "app.py"))
    at.run()
    assert [e.value for e in at.exception] == ["the page's own words"]


def _run(copy: Path) -> dict:
    import os

    env = {**os.environ, "PYTHONPATH": str(copy)}
    return {"cwd": copy, "capture_output": True, "text": True, "timeout": 900, "env": env}
