"""The layout's rules, checked on the source (docs/architecture.md explains them):

- no import circle between the project's modules (imports inside functions count: a circle
  hidden in a function is still a circle);
- packages only import the layers below them: data <- model <- training, analysis <- viz <- ui <-
  pages / app.py (the CLI, model/__main__.py, is an entry point and may use training and analysis);
- no module uses another package's private names (`x._name`) or reaches a runner's module
  (`.module`) outside model/, where the runner is defined: pages, ui and analysis go through the
  Runner protocol (run(fn), read_cached, decode_then_read, start_token); a documented adapter
  (ADAPTERS: ui/streamlit_internals.py) is the one place a library's private names may be used;
- no project module (bench/ included) imports tests/: they share drive/.
- an entry point (`__main__.py`) does its work under its main guard: importing it runs nothing.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("data", "model", "training", "analysis", "lessons", "viz", "ui", "pages", "drive", "bench")
# what each package may import from the project (besides itself)
ALLOWED = {
    "data": set(),
    "model": {"data"},
    "training": {"data", "model"},
    "analysis": {"data", "model"},
    "lessons": {"data", "model", "analysis"},
    "viz": {"data", "model", "analysis"},
    "ui": {"data", "model", "training", "analysis", "lessons", "viz"},
    "pages": {"data", "model", "training", "analysis", "lessons", "viz", "ui"},
    "app": {"ui", "model"},
    "drive": {"model"},  # starting and driving the app (tests and bench share it): weights only
    "bench": set(PACKAGES) | {"app"},
}
ENTRY_POINTS = {"model.__main__": {"training", "analysis"}}


def project_files() -> dict[str, Path]:
    files = {"app": ROOT / "app.py"}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            rel = f.relative_to(ROOT).with_suffix("")
            if any(part.startswith(".") or part == "node_modules" for part in rel.parts):
                continue  # an environment inside a package (bench/run.sh makes bench/.venv): not ours
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            files[".".join(parts)] = f
    return files


@functools.cache
def parsed(path: Path) -> ast.Module:
    """path's syntax tree, parsed once per test process (the checks below each walk every module:
    parsing the project once per test made this file 10 s of CPU, 2026-12-04). Read, never changed."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports, anywhere in the file (TYPE_CHECKING blocks aside)."""
    tree = parsed(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def graph() -> dict[str, set[str]]:
    """{module: the project modules it imports}, a copy of the one built per test process."""
    return {n: set(deps) for n, deps in _graph().items()}


@functools.cache
def _graph() -> dict[str, set[str]]:
    files = project_files()
    known = set(files)
    g = {n: imports_of(n, p, known) for n, p in files.items()}
    # importing a package's submodule runs the package's __init__: an edge to it, unless it is the
    # module's own package (Python has run it already)
    for n, deps in g.items():
        for d in list(deps):
            parent = d.rpartition(".")[0]
            if parent in known and parent != n:
                deps.add(parent)
        # a module's own packages have been run before it (importing model.hf.hook runs model and
        # model.hf first): an import of one of them from inside is not an edge of the graph
        deps -= {d for d in deps if n.startswith(d + ".")}
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_has_no_circle():
    g = graph()
    assert len(g) > 100  # the scan sees the project, not an empty folder
    assert cycles(g) == []


def test_no_project_module_imports_the_tests():
    """bench/ shares drive/ with the tests instead of importing tests/ (it did, ten files): what the
    tests keep for themselves can change without breaking a benchmark."""
    found = []
    for name, path in project_files().items():
        for node in ast.walk(parsed(path)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            mods += [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            found += [f"{name} imports {m}" for m in mods if m == "tests" or m.startswith("tests.")]
    assert found == []


def runs_on_import(tree: ast.Module) -> list[int]:
    """Lines of a module's top-level statements that do work when it is imported: a call, a loop, a
    with or try block; not a docstring, imports, definitions, assignments, `sys.path` set-up or the
    main guard."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test).replace("'", '"') == '__name__ == "__main__"':
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)):  # a constant, a path: defined, not run
            continue
        if isinstance(node, ast.Expr) and (
            isinstance(node.value, ast.Constant)
            or ast.unparse(node.value.func if isinstance(node.value, ast.Call) else node.value).startswith("sys.path.")
        ):
            continue
        found.append(node.lineno)
    return found


def test_an_entry_point_runs_only_under_its_main_guard():
    """`python -m X` runs X/__main__.py; importing it must run nothing. tests/test_views.py imports
    every module of ui/ (a page's Field may live anywhere) and so ran ui/browser_model/__main__.py,
    which exported every shipped model's graph into the cache whenever another clone had made it
    stale: 205 s of the fast loop at load 9 (2026-12-04)."""
    mains = {name: path for name, path in project_files().items() if name.endswith("__main__")}
    assert {"model.__main__", "ui.browser_model.__main__", "bench.__main__"} <= set(mains), sorted(mains)
    assert {name: lines for name, path in mains.items() if (lines := runs_on_import(parsed(path)))} == {}


def test_the_entry_point_scan_sees_work_at_import():
    assert runs_on_import(ast.parse("from x import publish\nfor p in publish():\n    print(p)\n")) == [2]
    assert runs_on_import(ast.parse("main()\n")) == [1]
    assert runs_on_import(ast.parse("with open('x') as f:\n    f.read()\n")) == [1]
    quiet = '"""doc"""\nimport sys\nsys.path.insert(0, "x")\nA = 1\ndef main(): pass\nif __name__ == "__main__":\n    main()\n'
    assert runs_on_import(ast.parse(quiet)) == []


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_packages_import_only_the_layers_below_them():
    wrong = []
    for name, deps in graph().items():
        pkg = name.split(".")[0]
        allowed = ALLOWED[pkg] | ENTRY_POINTS.get(name, set()) | {pkg}
        wrong += [f"{name} -> {d}" for d in sorted(deps) if d.split(".")[0] not in allowed]
    assert wrong == []


# any name before the dot, a class's too (AppSession._handle_clear_cache_request), self and cls aside
PRIVATE = re.compile(r"\b(?!self\b|cls\b)([A-Za-z_][A-Za-z0-9_]*)\._[A-Za-z]\w*")
MODULE = re.compile(r"\b(?!self\b)[a-z_][a-z0-9_]*\.module\b")


# third-party private names used on purpose, each with its reason
THIRD_PARTY_PRIVATE = {
    # torch documents TorchDispatchMode (analysis/cost/scaling.py's AllocationWatch) under this module only
    "utils._python_dispatch",
}
# modules that are a documented adapter to a library's internals: private names are theirs to use,
# nowhere else. Each says in its docstring what it touches and why.
ADAPTERS = {
    # refusing clear_cache, unbounded uploads and public metrics needs Streamlit's runtime
    "ui.streamlit_internals",
}


def code_lines(path: Path):
    """(line number, code) with strings and comments blanked (tokenize: multi-line strings too,
    such as the JavaScript the browser benches send)."""
    src = path.read_text(encoding="utf-8")
    lines = src.splitlines()
    blank = [list(line) for line in lines]
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                row = blank[r - 1]
                a = c0 if r == r0 else 0
                b = c1 if r == r1 else len(row)
                row[a:b] = " " * (b - a)
    for n, row in enumerate(blank, 1):
        yield n, "".join(row)


def private_uses(name: str, path: Path, files: dict[str, Path], adapters=ADAPTERS) -> list[str]:
    """`x._name` in module `name` for an x that is not a module of its own package, and a
    runner's `.module` outside model/; nothing in an adapter module."""
    if name in adapters:
        return []
    pkg = name.split(".")[0]
    own = {m.rpartition(".")[2] for m in files if m.split(".")[0] == pkg}
    found = []
    for n, code in code_lines(path):
        for m in PRIVATE.finditer(code):
            if m.group(1) not in own and m.group(0) not in THIRD_PARTY_PRIVATE:
                found.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{n}: {m.group(0)}")
        if pkg != "model" and MODULE.search(code):
            found.append(f"{path.relative_to(ROOT)}:{n}: {MODULE.search(code).group(0)}")
    return found


def test_no_private_name_or_module_is_used_outside_its_package():
    """Every project module outside tests: `x._name` only for x the module's own package's, and a
    runner's `.module` only inside model/."""
    files = project_files()
    found = [use for name, path in files.items() for use in private_uses(name, path, files)]
    assert found == []


def test_the_scan_sees_a_private_name():
    assert PRIVATE.search("runner._start(direction)") and not PRIVATE.search("self._start(direction)")
    assert PRIVATE.search("AppSession._handle_clear_cache_request = refuse")  # a class's, upper-case
    assert MODULE.search("runner.module.position") and not MODULE.search("self.module")


def test_streamlit_internals_are_allowed_only_in_their_documented_adapter(tmp_path):
    """ui/hardening.py patched AppSession's private handler itself, which the scan (lower-case
    names only) missed; that use now fails anywhere but the adapter, which documents it."""
    files = project_files()
    before = tmp_path / "hardening.py"
    before.write_text(
        "from streamlit.runtime.app_session import AppSession\n"
        "AppSession._handle_clear_cache_request = _refuse_clear_cache\n",
        encoding="utf-8",
    )
    assert private_uses("ui.hardening", before, files)
    adapter = files["ui.streamlit_internals"]
    assert private_uses("ui.streamlit_internals", adapter, files, adapters=set())  # it does use them
    for name in ADAPTERS:
        doc = ast.get_docstring(parsed(files[name])) or ""
        assert "Why it exists" in doc and "test_architecture" in doc, name


def reached(g: dict[str, set[str]], root: str) -> set[str]:
    seen, todo = set(), [root]
    while todo:
        for d in g.get(todo.pop(), ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def single_page_modules(g: dict[str, set[str]]) -> dict[str, str]:
    """{ui module: the one page that reaches it}: a module of ui/ whose imports reach it from one page
    alone (and not from app.py, which every page runs under) belongs beside that page
    (pages/<page>_parts/, docs/architecture.md)."""
    roots = {n for n in g if n == "app" or (n.count(".") == 1 and n.startswith("pages.") and not n.endswith("_parts"))}
    by_root = {r: reached(g, r) for r in roots}
    out = {}
    for m in sorted(n for n in g if n.startswith("ui.")):
        users = {r for r, seen in by_root.items() if m in seen}
        if len(users) == 1 and "app" not in users:
            out[m] = users.pop()
    return out


def test_no_ui_module_serves_one_page_only():
    g = graph()
    assert sum(n.startswith("ui.") for n in g) > 5 and sum(n.startswith("pages.") for n in g) > 5, (
        "found nothing to check"
    )
    assert single_page_modules(g) == {}, "move these beside their page (pages/<page>_parts/)"


def test_the_single_page_check_finds_one():
    g = {
        "app": {"ui.shared"},
        "pages.a": {"ui.only_a", "ui.shared"},
        "pages.b": {"ui.shared"},
        "ui.only_a": set(),
        "ui.shared": set(),
    }
    assert single_page_modules(g) == {"ui.only_a": "pages.a"}


# -- one softmax at a temperature; no numbers computed in pages/ -----------------------------------
# The softmax at a temperature is written once per language: Python's model.attention.softmax_at
# (analysis.experiments.softmax_at is its numpy door and calls it), the browser's numbers.js
# softmaxAt. A softmax (or exp) of something divided by a temperature anywhere else is a second
# definition. Pages lay out what analysis/ and viz/ computed: no exp, log, softmax or matmul there.
SOFTMAX_HOME = {"model.attention"}
TEMPERATURE_NAMES = {"t", "temp", "temperature", "stemp", "ltemp", "tau"}
NUMERIC_CALLS = {"exp", "log", "log2", "log1p", "softmax", "log_softmax", "matmul", "einsum", "logsumexp"}
NUMERIC_OWNERS = {"np", "numpy", "torch", "math", "F", "scipy"}


def _name(node) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def softmax_at_t_calls(tree) -> list[int]:
    """Lines of softmax(x / T) or exp(x / T) (T a temperature's name), however spelled."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in {"softmax", "exp", "log_softmax"} and node.args:
            for sub in ast.walk(node.args[0]):
                if (
                    isinstance(sub, ast.BinOp)
                    and isinstance(sub.op, ast.Div)
                    and _name(sub.right).lower() in TEMPERATURE_NAMES
                ):
                    found.append(node.lineno)
                    break
    return found


def numeric_calls(tree) -> list[tuple[int, str]]:
    """Lines of np.exp, torch.softmax, F.log_softmax, x.softmax(...), np.einsum, ... (their names)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in NUMERIC_CALLS:
            owner = _name(node.func.value)
            if owner in NUMERIC_OWNERS or node.func.attr in {"softmax", "log_softmax"}:
                found.append((node.lineno, f"{owner}.{node.func.attr}"))
    return found


def test_one_softmax_at_a_temperature_per_language():
    files = project_files()
    second = [
        f"{path.relative_to(ROOT)}:{n}"
        for name, path in files.items()
        if name not in SOFTMAX_HOME
        for n in softmax_at_t_calls(parsed(path))
    ]
    assert second == [], "a second softmax at a temperature: call model.attention.softmax_at"
    homes = [
        name for name, path in files.items() if re.search(r"^def softmax_at\(", path.read_text(encoding="utf-8"), re.M)
    ]
    assert sorted(homes) == ["analysis.experiments", "model.attention"], homes
    door = (ROOT / "analysis/experiments.py").read_text(encoding="utf-8")
    assert "attention.softmax_at(" in door  # the numpy door calls the one softmax
    js = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "ui/attention_view").glob("*.js")}
    assert len(js) >= 5
    defs = [n for n, text in js.items() for _ in re.finditer(r"function \w*[sS]oftmax\w*\(", text)]
    exps = sorted(n for n, text in js.items() if "Math.exp(" in text)
    assert defs == ["numbers.js"] and exps == ["numbers.js"], (defs, exps)


def test_pages_compute_no_numbers():
    found = [
        f"{path.relative_to(ROOT)}:{n}: {what}"
        for path in sorted((ROOT / "pages").rglob("*.py"))
        for n, what in numeric_calls(parsed(path))
    ]
    assert found == [], "pages/ lays out; compute in analysis/ or viz/"


def test_the_scans_see_a_softmax_at_t_and_a_page_computing():
    code = ast.parse(
        "a = F.softmax(s / T, -1)\nb = np.exp(np.log(p) / stemp)\nc = torch.softmax(x / self.temperature, -1)\n"
        "d = F.softmax(scaled, -1)\ne = np.einsum('ij->i', m)\nf = scores.softmax(-1)\ng = math.sqrt(2)\n"
    )
    assert sorted(softmax_at_t_calls(code)) == [1, 2, 3]
    assert sorted(n for n, _ in numeric_calls(code)) == [1, 2, 2, 3, 4, 5, 6]
