"""Each page declares its view once (ui/view.py): no page reads or writes a link key by hand, and a
link name has one parser on every page."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import ui
from ui import view

ROOT = Path(__file__).resolve().parents[1]
HAND_WRITTEN = re.compile(r"\burl_param\(|\bst\.query_params\b")  # (st.page_link's query_params= builds a link)
# pages that still read or write their link by hand (state.url_param, st.query_params): this list
# may only shrink. A page that no longer does must leave it (the test says so), so it stays true.
NOT_YET_DECLARED = {
    "attention",
    "compare",
    "cost",
    "generation",
    "home",
    "intervene",
    "positional",
    "steps",
    "temperature",
}


def test_no_page_reads_or_writes_a_link_key_by_hand():
    pages = sorted((ROOT / "pages").glob("*.py"))
    assert pages
    by_hand = {p.stem for p in pages if HAND_WRITTEN.search(p.read_text(encoding="utf-8"))}
    assert by_hand - NOT_YET_DECLARED == set(), "declare these pages' views in ui/ (ui/view.py)"
    assert NOT_YET_DECLARED - by_hand == set(), "these pages declare their view now: remove them from the list"


def _declarations() -> list[view.Field]:
    for info in pkgutil.iter_modules(ui.__path__):  # every ui module, so every view is declared
        if info.name not in ("serve",):  # serve starts a server
            importlib.import_module(f"ui.{info.name}")
    return list(view.DECLARED)


def test_each_link_key_has_one_parser():
    fields = _declarations()
    assert any(f.link == "layer" for f in fields)  # the timeline's view at least
    parsers: dict[str, set] = {}
    for f in fields:
        parsers.setdefault(f.link, set()).add((getattr(f.parse, "options", f.parse), f.one_based))
    assert {name: p for name, p in parsers.items() if len(p) > 1} == {}


def test_layers_and_heads_are_one_based_in_every_view():
    fields = [f for f in _declarations() if f.link in ("layer", "head")]
    assert fields and all(f.one_based for f in fields)
    assert view.layer("x").from_link("3") == 2 and view.layer("x").to_link(2) == 3
