"""Each page declares its view once (ui/view.py): no page reads or writes a link key by hand, and a
link name has one parser on every page."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ui import view

ROOT = Path(__file__).resolve().parents[1]
HAND_WRITTEN = re.compile(r"\burl_param\(|\bst\.query_params\b")  # (st.page_link's query_params= builds a link)
# pages that still read or write their link by hand (state.url_param, st.query_params): this list
# may only shrink. A page that no longer does must leave it (the test says so), so it stays true.
NOT_YET_DECLARED = {
    "attention",
    "home",
    "steps",
}


def test_no_page_reads_or_writes_a_link_key_by_hand():
    pages = sorted((ROOT / "pages").glob("*.py"))
    assert pages
    by_hand = {p.stem for p in pages if HAND_WRITTEN.search(p.read_text(encoding="utf-8"))}
    assert by_hand - NOT_YET_DECLARED == set(), "these pages touch the link by hand: declare their view (ui/view.py)"
    assert NOT_YET_DECLARED - by_hand == set(), "these pages declare their view now: remove them from the list"


def declarations() -> dict[str, set]:
    """{link name: {(its parser as written, 1-based)}} over every Field(...) in pages/ and ui/ (a
    page's view runs only with the page, so the source is read)."""
    found: dict[str, set] = {}
    for path in [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Field" and node.args:
                link = ast.literal_eval(node.args[0])
                parse = ast.unparse(node.args[3]).removeprefix("view.") if len(node.args) > 3 else "?"
                one = any(k.arg == "one_based" and ast.literal_eval(k.value) for k in node.keywords)
                found.setdefault(link, set()).add((parse, one))
    return found


def test_each_link_key_has_one_parser():
    found = declarations()
    assert {"step", "prompt", "layer", "head"} <= set(found)  # ui/view.py's, the timeline's, generation's
    assert {name: p for name, p in found.items() if len(p) > 1} == {}


def test_layers_and_heads_are_one_based_in_every_view():
    found = declarations()
    assert all(one for name in ("layer", "head") for _, one in found[name])
    assert view.layer("x").from_link("3") == 2 and view.layer("x").to_link(2) == 3
