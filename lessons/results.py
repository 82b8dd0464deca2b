"""The class's results for a lesson: per step, how many students chose each option, whether that
option is right, and who chose it (students are anonymous unless they typed a nickname).

rows(steps, answers, nicknames, key) reads the room's raw answers [(answer key, student, choice)]
(key(step) -> the answer key the page records a step under); to_csv() writes them for the
teacher's download. Nothing here is stored: the room's answers end with the room.
"""

from __future__ import annotations

import csv
import io

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


def to_csv(table: list[dict], header: dict[str, str] | None = None, yes: str = "yes", no: str = "no") -> str:
    """The rows as CSV (header: the column names in the reader's language). A cell that a
    spreadsheet would run as a formula (= + - @ first) is quoted with a leading apostrophe."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([(header or {}).get(c, c) for c in COLUMNS])
    for row in table:
        w.writerow([_cell((yes if row[c] else no) if isinstance(row[c], bool) else row[c]) for c in COLUMNS])
    return buf.getvalue()


def _cell(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    s = str(v)
    return "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s
