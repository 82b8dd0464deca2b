"""A widget's on_change callback never reads st.session_state[KEY] (a KeyError there is a traceback
in the server's log and an error box): Streamlit runs callbacks before the script, from the widget
values the browser sends, and a student's room follow (ui/classroom.py's _apply) clears the whole
session state before switching to the teacher's page. The browser may then still send the old
widget's value: its callback runs with its own key gone. Found by the class's walk with the real
models offered (2026-12-04: `KeyError: st.session_state has no key "model"` in ui/context.py's
_model_picked after a follow). Callbacks read with .get() or take the value as an argument.

The scan enumerates every `on_change=` in app.py, ui/ and pages/ (a lambda, a function of the same
module, or a module's function such as editor.want_defaults) and fails when it finds none."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py"))]


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _module_functions(module: str) -> dict[str, ast.FunctionDef]:
    for path in (ROOT / "ui" / f"{module}.py", ROOT / "pages" / f"{module}.py"):
        if path.exists():
            return _functions(ast.parse(path.read_text(encoding="utf-8")))
    return {}


def _reads_of_state(node: ast.AST) -> list[int]:
    """Line numbers where node reads st.session_state[...] (a subscript in a load, not a store)."""
    lines = []
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Subscript)
            and isinstance(sub.ctx, ast.Load)
            and isinstance(sub.value, ast.Attribute)
            and sub.value.attr == "session_state"
        ):
            lines.append(sub.lineno)
    return lines


def callbacks(path: Path, root: Path = ROOT) -> list[tuple[str, ast.AST | None]]:
    """(where, the callback's code) for every on_change= in the file; None where it cannot be resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _functions(tree)
    found = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        for kw in call.keywords:
            if kw.arg != "on_change" or (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)):
                continue  # on_change="rerun" / "ignore": no callback
            where = f"{path.relative_to(root)}:{kw.value.lineno}"
            v = kw.value
            if isinstance(v, ast.Lambda):
                found.append((where, v))
            elif isinstance(v, ast.Name):
                found.append((where, here.get(v.id)))
            elif isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name):
                found.append((where, _module_functions(v.value.id).get(v.attr)))
            else:
                found.append((where, None))
    return found


def test_no_widget_callback_reads_a_key_a_follow_may_have_cleared():
    every = [c for path in SOURCES for c in callbacks(path)]
    assert len(every) >= 10, every  # the app has about 20: a scan that finds none is broken
    unresolved = [where for where, code in every if code is None]
    assert not unresolved, f"callbacks the scan cannot read (write them as a lambda or a named function): {unresolved}"
    bad = [(where, _reads_of_state(code)) for where, code in every if _reads_of_state(code)]
    assert not bad, f"callbacks reading st.session_state[KEY] (use .get(KEY)): {bad}"


def test_the_scan_sees_a_callback_reading_the_state(tmp_path):
    page = tmp_path / "page.py"
    page.write_text(
        "import streamlit as st\n"
        "def picked():\n    st.session_state['x'] = st.session_state['model']\n"
        "st.selectbox('m', [1], key='model', on_change=picked)\n"
        "st.toggle('t', key='t', on_change=lambda: st.session_state.update(d=st.session_state['t']))\n"
        "st.toggle('u', key='u', on_change=lambda: st.session_state.update(d=st.session_state.get('u')))\n",
        encoding="utf-8",
    )
    got = callbacks(page, tmp_path)
    assert [bool(_reads_of_state(code)) for _, code in got] == [True, True, False]
