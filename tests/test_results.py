"""lessons/results.py: the CSV a teacher downloads (issue 32 item 7). A spreadsheet splits a line on
its own list separator (";" in German or French Excel and LibreOffice, a tab or "|" on a text
import), so a formula may start after any separator inside a field, not only at its start."""

import csv
import io

import pytest

from lessons import results
from lessons.steps import Step

FORMULAS = [
    "x;=1+1",
    "alice; x;=1+1",
    "a,=1+1",
    'a, =HYPERLINK("//evil")',
    "a\t=1+1",
    "tab\tinside",
    "a|=1",
    "=1+1",
    "+1+1",
    "-1+1",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
    "b; -2",
]


@pytest.mark.parametrize("nick", FORMULAS)
def test_every_field_is_quoted_and_no_cell_starts_a_formula_whatever_the_separator(nick):
    steps = [Step("a.1", "yesno", ["yes", "no"], 0)]
    table = results.rows(steps, [("a.1", "s1", 0)], {"s1": nick}, key=lambda s: s.id)
    text = results.to_csv(table)
    again = io.StringIO()
    csv.writer(again, quoting=csv.QUOTE_ALL).writerows(csv.reader(io.StringIO(text)))
    assert again.getvalue() == text  # every field quoted
    for sep in (",", ";", "\t", "|"):
        # the file as a spreadsheet with this list separator and no regard for quotes would split it
        for line in text.replace('"', "").splitlines():
            for cell in line.split(sep):
                assert not cell.lstrip(" ").startswith(("=", "+", "-", "@")), (sep, cell)
    assert list(csv.reader(io.StringIO(text)))[1][5] == results.defuse(nick)  # one cell, read back whole


def test_defused_text_still_reads_as_written():
    assert results.defuse("alice; x;=1+1") == "alice; x;'=1+1"
    assert results.defuse("=1") == "'=1"
    assert results.defuse("Ann Lee") == "Ann Lee" and results.defuse("0.50") == "0.50"


def test_table_and_csv_share_the_yes_no_words():
    steps = [Step("a.1", "yesno", ["yes", "no"], 0)]
    table = results.rows(steps, [], {}, key=lambda s: s.id)
    shown = results.shown(table, {"right": "正确"}, yes="是", no="否")
    assert [r["正确"] for r in shown] == ["是", "否"]
    rows = list(csv.reader(io.StringIO(results.to_csv(table, {"right": "正确"}, yes="是", no="否"))))
    assert [r[4] for r in rows] == ["正确", "是", "否"]
