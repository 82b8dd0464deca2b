"""The class's results for a lesson: per step, how many students chose each option, whether that
option is right, and who chose it (students are anonymous unless they typed a nickname).

rows(steps, answers, nicknames, key) reads the room's raw answers [(answer key, student, choice)]
(key(step) -> the answer key the page records a step under); to_csv() writes them for the
teacher's download. Nothing here is stored: the room's answers end with the room.
"""

from __future__ import annotations

import csv
import io
import re

COLUMNS = ("step", "question", "option", "students", "right", "names")


def rows(
    steps, answers, nicknames: dict[str, str], key, ask=lambda s: "", label=lambda s, i: str(i), anonymous=None
) -> list[dict]:
    """One row per (step, option): the step's number, its question (ask(step)), the option's label,
    how many chose it, whether it is right, and the nicknames of those who chose it ("3 anonymous")."""
    anonymous_label = anonymous
    by_key: dict[str, dict[int, list[str]]] = {}
    for step_key, student, choice in answers:
        by_key.setdefault(step_key, {}).setdefault(int(choice), []).append(student)
    out = []
    for n, step in enumerate(steps, start=1):
        chosen = by_key.get(key(step), {})
        for i in range(len(step.options)):
            who = chosen.get(i, [])
            if not who and step.kind == "slider":
                continue  # a slider's unchosen numbers are no news
            named = sorted(nicknames[s] for s in who if nicknames.get(s))
            n_anon = sum(1 for s in who if not nicknames.get(s))
            out.append(
                {
                    "step": n,
                    "question": ask(step),
                    "option": label(step, i),
                    "students": len(who),
                    "right": bool(step.is_right(i)),
                    "names": "; ".join(named + ([(anonymous_label or _anonymous)(n_anon)] if n_anon else [])),
                }
            )
    return out


def _anonymous(n: int) -> str:
    return f"{n} anonymous"


def per_step(table: list[dict], n_steps: int) -> list[tuple[int, int]]:
    """(answered, right) for each of the n_steps steps, from rows()' table."""
    answered, right = [0] * n_steps, [0] * n_steps
    for r in table:
        answered[r["step"] - 1] += r["students"]
        right[r["step"] - 1] += r["students"] if r["right"] else 0
    return list(zip(answered, right))


def shown(table: list[dict], header: dict[str, str] | None = None, yes: str = "yes", no: str = "no") -> list[dict]:
    """The one formatter of the results for the teacher's table and the CSV: the columns named in
    the reader's language (header), "right" as the same yes / no words in both, every other cell as
    rows() wrote it (plain text: the question and options unescaped, as the students read them)."""
    names = header or {}
    return [
        {names.get(c, c): (yes if row[c] else no) if isinstance(row[c], bool) else row[c] for c in COLUMNS}
        for row in table
    ]


def to_csv(table: list[dict], header: dict[str, str] | None = None, yes: str = "yes", no: str = "no") -> str:
    """shown()'s rows as CSV, every field quoted and every field a spreadsheet could run as a
    formula defused (defuse()), whatever list separator the spreadsheet splits on."""
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL)
    w.writerow([defuse((header or {}).get(c, c)) for c in COLUMNS])
    for row in shown(table, header, yes, no):
        w.writerow([defuse(v) for v in row.values()])
    return buf.getvalue()


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A cell starts after a separator when the spreadsheet's list separator is not the comma (Excel and
# LibreOffice in German or French use ";") or when it ignores the quotes (a text import on tabs or
# "|"): a formula character there, spaces before it allowed, is a formula of its own.
_AFTER_SEPARATOR = re.compile(r"([,;\t|\r\n]\s*)([=+\-@])")


def defuse(v) -> str:
    """A cell that no spreadsheet runs as a formula: an apostrophe before a leading = + - @ (or tab,
    carriage return) and before each of them that follows a separator (, ; tab | or a line break). The apostrophe
    is the spreadsheets' own "this is text" mark (OWASP's advice for CSV injection)."""
    s = _AFTER_SEPARATOR.sub(r"\1'\2", str(v))
    return "'" + s if s.startswith(FORMULA_START) else s
