"""model/hf/ modules talk to each other through public names only (issue 34): a module of the
adapter that imports another's _private name depends on what that module may change at will."""

import ast
from pathlib import Path

HF = Path(__file__).resolve().parent.parent / "model" / "hf"


def private_imports(source: str) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("model.hf"):
            out += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_") and a.name != "__all__"]
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            if isinstance(base, ast.Name) and base.id in {"policy", "hook", "sizes", "tokens", "loading", "runner"}:
                out.append(f"{base.id}.{node.attr}")
    return out


def test_the_check_sees_a_private_import():
    assert private_imports("from model.hf.policy import _log, IMPL\nx = policy._HUB_ID") == [
        "model.hf.policy._log",
        "policy._HUB_ID",
    ]


def test_hf_modules_import_no_private_name_of_each_other():
    found = {p.name: private_imports(p.read_text(encoding="utf-8")) for p in sorted(HF.glob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}
