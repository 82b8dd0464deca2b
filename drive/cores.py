"""What a run of the suite costs the machine's cores: the busy CPU time between marks, read from
Linux's /proc/stat (every process on the machine, the tests' browsers and servers included).

scripts/test marks the start and the end of each phase and prints the report at its end, so every
run of the whole suite says its work in core-seconds beside its wall time. The work divided by
the cores is the least wall time the run could take on this machine, however its tests were
scheduled: 1,865 core-seconds on 2 cores (a clean clone, 2026-12-06) can take no less than 933 s.
A run over its time budget then says whether the schedule or the work is over it.

    python3 -m drive.cores mark FILE LABEL   # appends "LABEL EPOCH BUSY TOTAL" (ticks) to FILE
    python3 -m drive.cores report FILE       # each interval and the whole: wall, work, cores busy

Standard library only: scripts/test marks its start before .venv exists. Where /proc/stat is
absent (not Linux) both commands do nothing.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

STAT = Path("/proc/stat")


def ticks(stat_text: str) -> tuple[int, int]:
    """(busy, total) clock ticks since boot from /proc/stat's text. Its first line sums every core:
    user, nice, system, idle, iowait, irq, softirq, steal (then guest time, already counted in user
    and nice). Busy is this machine's own work: neither idle nor iowait, nor steal (time a
    virtual machine's host gave to another)."""
    user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in stat_text.splitlines()[0].split()[1:9])
    busy = user + nice + system + irq + softirq
    return busy, busy + idle + iowait + steal


def mark(path: Path, label: str) -> None:
    if not STAT.exists():
        return
    busy, total = ticks(STAT.read_text())
    with open(path, "a") as f:
        f.write(f"{label} {time.time():.3f} {busy} {total}\n")


def report(lines: list[str], hz: int, cores: int) -> list[str]:
    """The report's lines for marks read back: each interval from one mark to the next (named by the
    later mark), then the whole run and the least wall time its work allows on these cores."""
    marks = []
    for line in lines:
        label, epoch, busy, total = line.rsplit(maxsplit=3)
        marks.append((label, float(epoch), int(busy), int(total)))
    out = []

    def row(name, a, b):
        wall, work = b[1] - a[1], (b[2] - a[2]) / hz
        share = (b[2] - a[2]) / (b[3] - a[3]) if b[3] > a[3] else 0.0  # of every core's ticks between the marks
        return f"{name}: {wall:.0f} s of wall, {work:.0f} core-seconds of work ({share:.0%} of {cores} cores busy)"

    for a, b in zip(marks, marks[1:]):
        out.append(row(b[0], a, b))
    if len(marks) > 1:
        whole = marks[-1][2] - marks[0][2]
        out.append(row("the whole run", marks[0], marks[-1]))
        out.append(
            f"its work on {cores} cores takes at least {whole / hz / cores:.0f} s however the tests are scheduled"
        )
    return out


def main(argv: list[str]) -> int:
    command, path = argv[0], Path(argv[1])
    if command == "mark":
        mark(path, " ".join(argv[2:]))
    elif command == "report":
        if STAT.exists() and path.exists():
            for line in report(path.read_text().splitlines(), os.sysconf("SC_CLK_TCK"), os.cpu_count() or 1):
                print(line)
    else:
        raise SystemExit(f"drive.cores: unknown command {command!r} (mark FILE LABEL, report FILE)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
