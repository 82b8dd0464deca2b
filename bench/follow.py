"""How soon a class follows its teacher (ui/classroom.py): a teacher and N students, each in a
browser context of its own (its own Streamlit session, as a student's laptop is), in headless
Chromium on the app; the teacher opens a room on home and types M new sentences, one after another.
For each sentence: the seconds from the teacher's Ctrl+Enter to the teacher's own link holding
it, and to each student's. A student's page asks the room store every ui.classroom.POLL_S (1 s) and then runs
the page for the new sentence, so on a quiet machine a student follows within about POLL_S and
one page run.

    python -m bench.follow [--students 3] [--changes 5]
    bench/run.sh --only follow

The target (tests/browser/test_rooms.py's bound until 2026-12-05, when the room tests left the
timed phase: a bound on time is a bench's, on a quiet machine with its load stated): every
student within FOLLOW_TARGET_S of every sentence.
"""

from __future__ import annotations

import argparse
import os
import statistics

from drive.browser import goto, launch, link_sentence, open_room, settle, sidebar_text, wait_until
from drive.server import SCREENSHOTS, AppServer, app_env
from ui.i18n import TABLE

FOLLOW_TARGET_S = 2.0
SENTENCES = ("狗咬人", "人咬狗", "The cat sat on the mat", "The dog saw the cat", "猫坐在垫子上")
HANG_S = 30.0  # a student that has not followed by then never will: a failure, not a figure


def measure(students: int = 3, changes: int = 5, log=print) -> dict:
    """{"students", "changes", "rows": [{"sentence", "teacher_s", "waits": [s per student]}],
    "median_s", "max_s", "load"}: every student's follow of every sentence, in seconds from the
    teacher's Ctrl+Enter (teacher_s: the teacher's own link)."""
    from playwright.sync_api import sync_playwright

    server = AppServer(env=app_env(), log=SCREENSHOTS / "bench-follow.log").start()
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            try:
                teacher = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                goto(teacher, server.url + "/", 300)
                code = open_room(teacher, TABLE["room_open"]["en"], TABLE["room_section"]["en"])
                pupils = []
                for _ in range(students):
                    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                    goto(page, server.url + f"/?room={code}", 300)
                    pupils.append(page)
                rows = []
                for k in range(changes):
                    text = SENTENCES[k % len(SENTENCES)] + ("" if k < len(SENTENCES) else f" {k}")
                    box = sidebar_text(teacher)
                    box.fill(text)
                    box.press("Control+Enter")  # the clock starts as the teacher applies it
                    teacher_s, *waits = wait_until(
                        [teacher, *pupils], lambda p, text=text: link_sentence(p) == text, HANG_S
                    )
                    rows.append({"sentence": text, "teacher_s": teacher_s, "waits": waits})
                    log(f"  {text!r}: the teacher's link after {teacher_s:.2f} s; the students' after {waits} s")
                    for p in (teacher, *pupils):  # the next sentence starts from pages at rest
                        settle(p)
            finally:
                browser.close()
    finally:
        server.stop()
    every = [w for r in rows for w in r["waits"]]
    return {
        "students": students,
        "changes": changes,
        "rows": rows,
        "median_s": statistics.median(every),
        "max_s": max(every),
        "load": os.getloadavg()[0],
    }


def markdown(result: dict) -> tuple[str, list[tuple[str, str, bool]]]:
    """The result as a table, and its target as (target, figure, met)."""
    lines = ["| sentence | the teacher's link, s | the students' links, s |", "|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['sentence']} | {r['teacher_s']:.2f} | {', '.join(f'{w:.2f}' for w in r['waits'])} |")
    lines.append(
        f"\nMedian {result['median_s']:.2f} s, slowest {result['max_s']:.2f} s "
        f"({result['students']} students, {result['changes']} sentences, load {result['load']:.1f})."
    )
    target = (
        f"a room: every student follows a new sentence within {FOLLOW_TARGET_S:g} s",
        f"{result['max_s']:.2f} s",
        result["max_s"] <= FOLLOW_TARGET_S,
    )
    return "\n".join(lines), [target]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=3)
    ap.add_argument("--changes", type=int, default=5)
    a = ap.parse_args(argv)
    md, targets = markdown(measure(a.students, a.changes))
    print(md)
    for t, figure, met in targets:
        print(f"{t}: {figure} ({'met' if met else 'not met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
