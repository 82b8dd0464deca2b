"""Every page is render(ctx, view) (ui/page.py): its file runs nothing when imported, and a test
draws it with a Context of its own, without app.py's sidebar or a server (tests/render.py). The
pages come from app.py's PAGES; each is drawn on a decoder and on the translator, in English and
in Chinese, and what the reader sees (the title, the link the page writes) is checked."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lessons.pages import app_pages
from tests.render import module_of, render_page
from ui.context import Context
from ui.i18n import TABLE

ROOT = Path(__file__).resolve().parents[1]
PAGES = app_pages()[0]
FILES = [f for f, _, _, _ in PAGES]
TITLE_OF = {f: key for f, _, key, _ in PAGES}
# (model, language, sentence): a decoder in English, the translator in Chinese
RUNS = [("gpt", "en", "The cat sat on the mat"), ("translator", "zh", "狗咬人")]


def test_the_pages_are_enumerated():
    assert len(FILES) >= 10, FILES


def _shown_at_import(tree: ast.Module) -> list[str]:
    """The statements of a module body that would do something when the module is imported,
    other than imports, constants, functions, classes and the `if __name__ == "__main__":` entry."""
    found = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):  # the docstring
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and not _calls_streamlit(node):
            continue
        if isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'":
            continue
        found.append(f"line {node.lineno}: {ast.unparse(node).splitlines()[0]}")
    return found


# ui/state.py's parsers build a function from their arguments (a Field's parse): no run needed
PARSERS = {"state.choice", "state.integer", "state.number", "state.clamped", "state.flag", "state.text"}


def _calls_streamlit(node: ast.AST) -> bool:
    """Whether an assignment calls Streamlit, the link state or the run (a parser it builds aside)."""
    return any(
        isinstance(n, ast.Call)
        and ast.unparse(n.func) not in PARSERS
        and ast.unparse(n.func).split(".")[0] in {"st", "state", "current"}
        for n in ast.walk(node)
    )


@pytest.mark.parametrize("file", FILES)
def test_a_page_file_is_a_view_and_a_render(file):
    tree = ast.parse((ROOT / file).read_text(encoding="utf-8"))
    assert not _shown_at_import(tree), f"{file} does this at import (move it into render): {_shown_at_import(tree)}"
    entry = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "__name__ == '__main__'"]
    assert entry, f"{file} has no `if __name__ == '__main__': page.show(render, VIEW)`"
    assert "page.show(render, VIEW" in ast.unparse(entry[0]), ast.unparse(entry[0])
    module = module_of(file)
    assert callable(module.render) and isinstance(module.VIEW, tuple)


def test_no_page_asks_for_the_run_itself():
    """ctx comes in as render's argument; a page (or its parts) calling current() would draw
    another run's settings when a test, or a later caller, hands it a Context of its own."""
    found = []
    for path in sorted((ROOT / "pages").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in {"current", "run.current"}:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


@pytest.mark.slow  # every page through AppTest on each model (the timeline 2-5 s alone)
@pytest.mark.parametrize("model,lang,text", RUNS, ids=[r[0] for r in RUNS])
@pytest.mark.parametrize("file", FILES)
def test_every_page_renders_from_a_context_of_its_own(file, model, lang, text):
    module = module_of(file)
    at = render_page(file, Context(lang, model, text, "cpu", False))
    assert not at.exception, [e.value for e in at.exception]
    titles = [x.value for x in at.title]
    assert TABLE[TITLE_OF[file]][lang] in titles or file == FILES[0], (titles, TITLE_OF[file])
    # the page writes its own view into the link and nothing else (the sidebar's keys are app.py's)
    links = {f.link for f in module.VIEW} | {f.old for f in module.VIEW if f.old}
    assert set(at.query_params) <= links, (sorted(set(at.query_params) - links), sorted(links))


@pytest.mark.slow  # every page with a view through AppTest
def test_a_given_view_is_the_view_drawn():
    """A layer and a head given to render (from 0) are what the page shows and links (from 1)."""
    checked = []
    for file in FILES:
        fields = {f.link: f for f in module_of(file).VIEW if f.one_based}
        if not fields:
            continue
        at = render_page(file, Context("en", "gpt", "The cat sat on the mat", "cpu", False), **dict.fromkeys(fields, 1))
        assert not at.exception, (file, [e.value for e in at.exception])
        for link in fields:
            if link in at.query_params:
                assert at.query_params[link] == "2", (file, link, at.query_params)
                checked.append((file, link))
    assert len({f for f, _ in checked}) >= 3, checked


def test_presentation_comes_from_the_context():
    at = render_page(FILES[0], Context("en", "gpt", "The cat sat on the mat", "cpu", True))
    assert not at.exception, [e.value for e in at.exception]
    assert at.get("flex_container") or any("present_title" in str(getattr(b, "key", "")) for b in at.main), at.main


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_empty_sentence_names_presentation_mode_only_in_it(lang):
    """Where to type a sentence; that presentation mode hides the sidebar is said only in it."""
    for presenting in (False, True):
        at = render_page(FILES[0], Context(lang, "gpt", " ", "cpu", presenting))
        assert not at.exception, [e.value for e in at.exception]
        hints = [i.value for i in at.info]
        want = TABLE["empty_text_hint_present" if presenting else "empty_text_hint"][lang]
        assert want in hints, (presenting, hints)
        said = ("presentation mode" if lang == "en" else "演示模式") in " ".join(hints)
        assert said is presenting, (presenting, hints)
