"""A page drawn by calling its render(ctx, view) (ui/page.py) in AppTest: no app.py, no sidebar, no
server. The test makes the Context (model, sentence, language, device, presentation) and gives the
view's values by link name as the page holds them (layers and heads from 0); the link the page
writes back, its widgets and its text are then AppTest's to read."""

from __future__ import annotations

import importlib
import itertools
import tempfile
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from lessons.pages import app_pages
from tests.apptest import use_language
from ui.context import Context

ROOT = Path(__file__).resolve().parents[1]


def module_of(file: str):
    """The page module of a page file ("pages/home.py" -> pages.home), imported: nothing runs."""
    return importlib.import_module(file.removesuffix(".py").replace("/", "."))


def render_page(file: str, ctx: Context, timeout: float = 120, **view: Any) -> AppTest:
    """The page of `file` drawn with ctx and the view's values given (the others: the link's
    defaults), run once; AppTest's exceptions are the caller's to check."""
    use_language(ctx.lang)
    token = f"r{next(_COUNT)}"
    _PENDING[token] = (file, ctx, view)
    at = AppTest.from_file(str(_script(token)), default_timeout=timeout)
    at.run()
    return at


_PENDING: dict[str, tuple] = {}  # token -> (file, ctx, view): what the script of that token draws
_COUNT = itertools.count()


def _script(token: str) -> Path:
    """A one-line script beside a link to pages/ (st.page_link's "pages/..." are relative to the
    script, as to app.py), which draws what _PENDING[token] holds: the script runs in this
    process (AppTest), so ctx reaches it as the object the test made."""
    folder = Path(tempfile.mkdtemp(prefix="render_"))
    (folder / "pages").symlink_to(ROOT / "pages", target_is_directory=True)
    script = folder / "page.py"
    script.write_text(f"from tests.render import _PENDING, draw\n\ndraw(*_PENDING[{token!r}])\n", encoding="utf-8")
    return script


def draw(file: str, ctx, view: dict) -> None:
    """One run of a page as app.py would run it, with ctx in place of the sidebar's: the app's
    pages registered (hidden) so the page's links resolve, the view's values in the session,
    then render(ctx, view) with the whole view as read_view gives it."""
    import streamlit as st

    from ui import run, state

    st.session_state["lang"] = ctx.lang
    state.begin_run()
    run.begin_run(ctx)
    pages, _ = app_pages()
    st.navigation(
        [st.Page(f, url_path=path, default=i == 0) for i, (f, path, _, _) in enumerate(pages)],
        position="hidden",
    )
    module = module_of(file)
    for f in module.VIEW:
        if f.link in view:
            st.session_state[f.key] = view[f.link]
    try:
        module.render(ctx, state.read_view(module.VIEW))
    finally:
        run.end_run()
