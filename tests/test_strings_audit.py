"""docs/strings-audit.md, the audit of every ui/strings entry (issue 46): its rows name entries that exist,
each once, with a verdict of the list its head defines; a fixed row names the test in
tests/test_strings_truth.py that fails on the old wording; a row says "claim" exactly where ui/marks
guards the entry with a check; and docs/architecture.md's count is the number of rows."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AUDIT = ROOT / "docs" / "strings-audit.md"
VERDICTS = ("label", "true", "true, measured", "filled", "computed", "fixed")
ROW = re.compile(r"^\| `([a-z0-9_A-Z]+)` \| ([^|]+?) \| (.*) \|$")


def load(path: Path) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def rows() -> dict[str, tuple[str, str]]:
    out, seen = {}, []
    for line in AUDIT.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            seen.append(m[1])
            out[m[1]] = (m[2], m[3])
    assert len(seen) == len(set(seen)), "an entry audited twice"
    return out


def test_every_row_names_an_entry_with_a_known_verdict():
    audited = rows()
    strings = {k for p in (ROOT / "ui" / "strings").glob("*.toml") for k in load(p)}
    marks = {k: v for p in (ROOT / "ui" / "marks").glob("*.toml") for k, v in load(p).items()}
    assert len(audited) > 1000  # the audit read every entry of its day (1,359)
    assert not set(audited) - strings, sorted(set(audited) - strings)[:10]
    for key, (verdict, _) in audited.items():
        guarded = isinstance(marks[key], dict) and "claim" in marks[key]
        if verdict.startswith("claim"):
            assert guarded and f"`{marks[key]['claim']}`" in verdict, key
        else:
            assert verdict in VERDICTS, (key, verdict)
            assert verdict == "fixed" or not guarded, key


def test_every_fixed_row_names_its_breaking_test():
    tests = (ROOT / "tests" / "test_strings_truth.py").read_text(encoding="utf-8")
    fixed = {k: note for k, (verdict, note) in rows().items() if verdict == "fixed"}
    assert len(fixed) >= 20
    for key, note in fixed.items():
        named = re.findall(r"`(test_[a-z0-9_]+)`", note)
        assert named and all(f"def {n}(" in tests for n in named), key


def test_the_architecture_doc_counts_the_rows():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    n = len(rows())
    assert f"all {n:,} entries" in text, n
