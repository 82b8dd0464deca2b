"""Whatever a reader picks inside a page's attention view (its layer, head, row, temperature) is in
the page's link, and so reaches a room's students (issue 50.8: compare's row, cmp_q, was bound by
bind_view but missing from compare's VIEW, so the teacher's selected row never left the teacher's
session). Every page's bind_view(...) keys, read from the source, must each be a Field of its VIEW;
and compare's row round-trips through its link (AppTest)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests import apptest

ROOT = Path(__file__).resolve().parents[1]
TAB_ONLY = {"_att_view_tab"}  # a session's own copy of the tab (the link's is att_tab_id)


def bound_keys(path: Path) -> set[str]:
    """The session keys the page's bind_view(...) calls write."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "bind_view":
            for kw in node.keywords:
                values = kw.value.elts if isinstance(kw.value, ast.Tuple) else [kw.value]
                out |= {v.value for v in values if isinstance(v, ast.Constant)}
    return out


PAGES = sorted(p for p in (ROOT / "pages").glob("*.py") if bound_keys(p))


def test_pages_bind_a_view():
    assert len(PAGES) >= 4, PAGES  # home, attention, temperature, steps, compare


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_every_field_a_view_reports_is_in_the_link(path):
    module = importlib.import_module(f"pages.{path.stem}")
    keys = {f.key for f in module.VIEW}
    missing = bound_keys(path) - keys - TAB_ONLY
    assert not missing, f"{path.name}: bind_view writes {sorted(missing)}, which its VIEW (the link, the room) lacks"


def test_compares_row_is_in_its_link():
    at = apptest.open_page("pages/compare.py", "gpt", 180, q=3, lang="en")
    apptest.ok(at)
    assert at.session_state["cmp_q"] == 3
    assert at.query_params.get("q") in ("3", ["3"]), dict(at.query_params)
