"""The attention view's script: ES modules beside this file (numbers, layout, painting,
hit-testing, export, the View), joined into the one script Streamlit's component takes.

Each module imports only from "./other.js", one import a line, and exports with `export const`,
`export function` or `export class`; the join drops the imports, drops `export ` and puts the
modules in dependency order (so two modules must not define the same top-level name: node
--check on the joined script in tests/test_attention_view_js.py finds that). view.js's
`export default` stays: the component calls it.

shared.js, the colours, the temperature range, a link's longest sentence and a phone's width both
languages use, is written from Python (viz/colors.py, ui/view.py, ui/state.py, ui/layout.py) by
shared_js(); the file beside this one is that text, kept for
`node --test`, and a test fails when the two differ (`python -m ui.attention_view.bundle` writes
it again)."""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).parent
MAIN = "view.js"
_IMPORT = re.compile(r'^import \{[^}]*\} from "\./([\w.]+\.js)";\n', re.M)
_EXPORT = re.compile(r"^export (const|function|class|let) ", re.M)


def shared_js() -> str:
    """shared.js as Python's values write it: the one source of the view's colours and range."""
    from viz import colors

    from ..layout import PHONE_MAX_PX
    from ..state import TEXT_MAX
    from ..view import T_MAX, T_MIN

    stops = [p for p, _ in colors.COLORSCALE]
    assert stops == [i / (len(stops) - 1) for i in range(len(stops))], "colors.js spaces BLUES evenly"

    def js(x) -> str:
        return json.dumps(x)

    return (
        "// Written by ui/attention_view/bundle.py (shared_js) from viz/colors.py, ui/view.py, ui/state.py and ui/layout.py:\n"
        "// edit those and run `python -m ui.attention_view.bundle`; tests/test_attention_view_js.py checks it.\n"
        f"export const BLUES = {js([c for _, c in colors.COLORSCALE])};\n"
        f"export const DIVERGING = {js([[p, c] for p, c in colors.DIVERGING])};\n"
        f"export const MASKED = {js(list(colors.hex_to_rgb(colors.MASKED)))};\n"
        f"export const MASKED_HATCH = {js(colors.MASKED_HATCH)};\n"
        f"export const HIGHLIGHT = {js(colors.HIGHLIGHT)};\n"
        f"export const T_MIN = {js(T_MIN)};\n"
        f"export const T_MAX = {js(T_MAX)};\n"
        f"export const LINK_TEXT_MAX = {js(TEXT_MAX)}; // the longest sentence a link carries\n"
        f"export const PHONE_MAX_PX = {js(PHONE_MAX_PX)}; // a phone's widest screen (ui/layout.py)\n"
    )


def modules() -> list[str]:
    """The modules view.js needs, each after those it imports (view.js last)."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise ValueError(f"attention view: import circle {' -> '.join((*path, name))}")
        for dep in _IMPORT.findall((HERE / name).read_text(encoding="utf-8")):
            visit(dep, (*path, name))
        order.append(name)

    visit(MAIN, ())
    return order


def script() -> str:
    """The component's one script: the modules in order, imports and exports dropped."""
    parts = []
    for name in modules():
        text = shared_js() if name == "shared.js" else (HERE / name).read_text(encoding="utf-8")
        text = _EXPORT.sub(r"\1 ", _IMPORT.sub("", text))
        parts.append(f"// ---- {name}\n{text}")
    return "\n".join(parts)


if __name__ == "__main__":
    (HERE / "shared.js").write_text(shared_js(), encoding="utf-8")
