"""Each page declares its view once (ui/view.py): no page reads or writes a link key by hand, and a
link name has one parser on every page."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ui import view

ROOT = Path(__file__).resolve().parents[1]
HAND_WRITTEN = re.compile(r"\burl_param\(|\bst\.query_params\b")  # (st.page_link's query_params= builds a link)


def page_of(path: Path) -> str:
    """The page a file of pages/ belongs to: pages/NAME.py and pages/NAME_parts/*.py are NAME."""
    first = path.relative_to(ROOT / "pages").parts[0]
    return first.removesuffix(".py").removesuffix("_parts")


def test_no_page_reads_or_writes_a_link_key_by_hand():
    pages = sorted((ROOT / "pages").rglob("*.py"))  # a page's parts too (pages/NAME_parts/)
    assert pages
    by_hand = {page_of(p) for p in pages if HAND_WRITTEN.search(p.read_text(encoding="utf-8"))}
    assert by_hand == set(), "these pages touch the link by hand: declare their view (ui/view.py)"


def fields() -> list[tuple[str, str, str, bool, str | None]]:
    """(file, link name, its parser as written, 1-based, old link name) for every Field(...) in
    pages/ and ui/ (a page's view runs only with the page, so the source is read)."""
    out = []
    for path in [*sorted((ROOT / "pages").rglob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Field" and node.args:
                link = ast.literal_eval(node.args[0])
                # the parser as written, whichever module it is reached through (view.KIND or KIND;
                # state.choice(...) or choice(...), imported by name where a page's VIEW may not call state.X)
                parse = re.sub(r"^(view|state)\.", "", ast.unparse(node.args[3])) if len(node.args) > 3 else "?"
                words = {k.arg: k.value for k in node.keywords}
                one = "one_based" in words and ast.literal_eval(words["one_based"])
                old = ast.literal_eval(words["old"]) if "old" in words else None
                out.append((path.stem, link, parse, bool(one), old))
    return out


def declarations() -> dict[str, set]:
    """{link name: {(its parser as written, 1-based)}} over every Field(...) in pages/ and ui/."""
    found: dict[str, set] = {}
    for _, link, parse, one, _ in fields():
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


def test_an_old_link_name_is_read_only_where_it_was_that_pages_name():
    """A renamed setting keeps its old links (Field.old): the old name is then read on that one
    page, never as a current name there, and it is said in docs/architecture.md which page it
    belongs to, so a reader of the link section knows why ?step= means two things."""
    found = fields()
    olds = [(page, link, old) for page, link, _, _, old in found if old]
    assert ("steps", "stage", "step") in olds  # the walkthrough's ?step=N, now ?stage=NAME
    for page, link, old in olds:
        current_here = {name for p, name, *_ in found if p == page}
        assert old not in current_here, f"{page} reads ?{old}= both as {link}'s old name and as a setting"
        assert [o for _, _, o in olds].count(old) == 1, f"?{old}= is an old name on two pages"
    links = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert all(f"?{old}=" in links and f"?{link}=" in links for _, link, old in olds)


def test_the_shared_temperature_fields_keep_a_link_within_the_sliders_range():
    """?temp= and ?ltemp= are read one way on every page: any T from 0.05 to 20 as it is (the
    attention view's slider is continuous), past an end that end, NaN and words refused."""
    for f, name in ((view.temperature("x"), "temp"), (view.layer_temperature("y"), "ltemp")):
        assert (f.link, f.default, f.omit_default) == (name, 1.0, True)
        for raw, want in (("1", 1.0), ("2.347", 2.347), ("0.05", 0.05), ("0.001", 0.05), ("-3", 0.05), ("1e9", 20.0)):
            assert f.from_link(raw) == want, raw
        for bad in ("nan", "abc", ""):
            try:
                f.from_link(bad)
            except ValueError:
                continue
            raise AssertionError(f"{bad!r} was read as a temperature")


# what a link may carry for a setting: numbers in and out of any page's bounds, words, marks
PROBES = ("0", "1", "2", "3", "7", "-1", "0.5", "2.5", "12", "64", "1000", "1e9", "nan", "mean", "abc", "", " 3 ", "３")


def _parsed(f) -> tuple:
    """What a Field makes of every probe: its value (as the page holds it), or the error's kind."""
    out = []
    for raw in PROBES:
        try:
            out.append(repr(f.from_link(raw)))
        except Exception as e:  # a value the link may not carry: read_view falls back, with a notice
            out.append(type(e).__name__)
    return tuple(out)


def test_each_link_key_reads_every_value_alike_on_every_page():
    """The same link name gives the same value on every page that declares it, for every probe:
    compared by what the parsers do, not by how they are written (two pages writing
    clamped("stemp", 0.0, STEMP_MAX) with their own STEMP_MAX read ?stemp=4 two ways)."""
    import importlib

    from ui.view import Field

    seen: dict[str, dict[tuple, list[str]]] = {}
    files = sorted((ROOT / "pages").rglob("*.py")) + sorted((ROOT / "ui").rglob("*.py"))
    for path in files:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)  # a page runs nothing when imported (tests/test_render.py)
        for value in vars(module).values():
            for f in value if isinstance(value, tuple) else (value,):
                if isinstance(f, Field):
                    seen.setdefault(f.link, {}).setdefault(_parsed(f), []).append(name)
    assert {"layer", "head", "temp", "stemp", "sec", "step"} <= set(seen), sorted(seen)
    two_ways = {link: list(ways.values()) for link, ways in seen.items() if len(ways) > 1}
    assert not two_ways, two_ways
