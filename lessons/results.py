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

COLUMNS = ("step", "question", "option", "students", "right", "names", "check")
# what the class learned (lessons/checks.gains), one row per objective
GAIN_COLUMNS = ("objective", "before", "after", "gain", "before_answers", "after_answers")


def rows(
    steps,
    answers,
    nicknames: dict[str, str],
    key,
    ask=lambda s: "",
    label=lambda s, i: str(i),
    anonymous=None,
    check=lambda s: "",
) -> list[dict]:
    """One row per (step, option): the step's number, its question (ask(step)), the option's label,
    how many chose it, whether it is right, the nicknames of those who chose it ("3 anonymous") and
    the objective and phase the step checks (check(step): "" for a step that checks none)."""
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
                    "check": check(step),
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


def percent(share: float | None) -> str:
    """A share as a whole percentage ("67 %"), "—" for no answers."""
    return "—" if share is None else f"{100 * share:.0f} %"


def gain_text(gain: float | None) -> str:
    """A gain in percentage points: "+75 pp" written "75 pp", a loss with the minus sign "−12 pp"
    (U+2212: no spreadsheet reads either as a formula, so the CSV needs no apostrophe), "—" for none."""
    if gain is None:
        return "—"
    points = round(100 * gain)
    return f"−{-points} pp" if points < 0 else f"{points} pp"


def gain_table(gains: list[dict], objective=lambda o: o) -> list[dict]:
    """lessons/checks.gains' rows as the teacher reads them and the CSV holds them: the objective's
    name (objective(id)), the shares right before and after, the gain in percentage points, and
    "right of answered" before and after."""
    return [
        {
            "objective": objective(g["objective"]),
            "before": percent(g["before"]),
            "after": percent(g["after"]),
            "gain": gain_text(g["gain"]),
            "before_answers": f"{g['before_right']}/{g['before_n']}",
            "after_answers": f"{g['after_right']}/{g['after_n']}",
        }
        for g in gains
    ]


def gain_csv(table: list[dict], header: dict[str, str] | None = None) -> str:
    """gain_table()'s rows as CSV, quoted and defused as to_csv() writes the results."""
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL)
    w.writerow([defuse((header or {}).get(c, c)) for c in GAIN_COLUMNS])
    for row in table:
        w.writerow([defuse(row[c]) for c in GAIN_COLUMNS])
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
