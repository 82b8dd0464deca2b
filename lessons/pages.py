"""The pages a lesson step may open (view.page): app.py's PAGES, the navigation itself, so a page
added there can be linked from a lesson with no second list to edit.

app.py is read as text, not imported: importing it would start Streamlit and pull in every layer
above lessons/ (ui/, pages/), which the layering forbids and a notebook does not want.

It is parsed once per file, under a lock, and kept: CPython 3.11's ast.parse is not safe in two
threads at once (its validator's recursion counter is shared: "SystemError: AST constructor
recursion depth mismatch", seen in a room's server log about once in 110 reveal links, issue 50),
and Streamlit serves each session on its own thread.
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app.py"

_LOCK = threading.Lock()
_PARSED: dict[Path, tuple[list[tuple], int]] = {}


def _parse(app: Path) -> tuple[list[tuple], int]:
    tree = ast.parse(app.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PAGES" for t in node.targets):
            return [tuple(p) for p in ast.literal_eval(node.value)], node.end_lineno
    raise LookupError(f"{app} has no PAGES list")


def app_pages(app: Path = APP) -> tuple[list[tuple], int]:
    """app.py's PAGES as written (file, url path, title key, icon), and the line its assignment ends
    on; parsed once per file (under the lock: no two threads parse at once), then read from memory."""
    app = Path(app)
    with _LOCK:
        if app not in _PARSED:
            _PARSED[app] = _parse(app)
        pages, end = _PARSED[app]
    return list(pages), end


def linkable() -> tuple[str, ...]:
    """The url paths a lesson's view.page may name: every page of the navigation."""
    return tuple(path for _, path, _, _ in app_pages()[0])


def file_of(path: str) -> str:
    """The page file that app.py serves at a url path ("attention" -> "pages/attention.py")."""
    return {p: f for f, p, _, _ in app_pages()[0]}[path]


app_pages()  # at import, which Python serializes: a page's first run parses nothing
