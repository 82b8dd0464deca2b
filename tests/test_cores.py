"""drive/cores.py: the whole suite's work in core-seconds, phase by phase, which scripts/test prints
at its end (the least wall time that work allows on the machine's cores)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from drive import cores
from drive.server import ROOT

# /proc/stat's first line: user nice system idle iowait irq softirq steal guest guest_nice
LINE = "cpu  8000 100 1000 3000 50 0 20 7 400 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n"


def test_busy_is_the_machines_own_work_and_total_every_tick():
    busy, total = cores.ticks(LINE)
    assert busy == 8000 + 100 + 1000 + 0 + 20  # user, nice, system, irq, softirq (guest is inside user)
    assert total == busy + 3000 + 50 + 7  # and idle, iowait, steal


def test_the_report_gives_each_phase_and_the_least_wall_time_of_the_whole():
    marks = [
        "start 1000.0 0 0",
        "the setup (.venv, browsers) 1030.0 3000 6000",  # 30 s, 30 core-s of 60
        "phase 1 (no server) 1330.0 60000 66000",  # 300 s, 570 core-s of 600
        "phase 2 (browsers and servers) 2030.0 180000 206000",  # 700 s, 1200 core-s of 1400
    ]
    out = cores.report(marks, hz=100, cores=2)
    assert out[0] == "the setup (.venv, browsers): 30 s of wall, 30 core-seconds of work (50% of 2 cores busy)"
    assert out[1] == "phase 1 (no server): 300 s of wall, 570 core-seconds of work (95% of 2 cores busy)"
    assert out[2] == "phase 2 (browsers and servers): 700 s of wall, 1200 core-seconds of work (86% of 2 cores busy)"
    assert out[3] == "the whole run: 1030 s of wall, 1800 core-seconds of work (87% of 2 cores busy)"
    assert out[4] == "its work on 2 cores takes at least 900 s however the tests are scheduled"
    assert cores.report(marks[:1], hz=100, cores=2) == []  # one mark: no interval, nothing said


@pytest.mark.skipif(not cores.STAT.exists(), reason="no /proc/stat (not Linux): scripts/test reports nothing")
def test_the_command_marks_and_reports_this_machine(tmp_path):
    log = tmp_path / "marks"
    run = [sys.executable, "-m", "drive.cores"]
    for label in ("start", "a phase with spaces"):
        subprocess.run([*run, "mark", str(log), label], cwd=ROOT, check=True)
    assert [line.rsplit(maxsplit=3)[0] for line in log.read_text().splitlines()] == ["start", "a phase with spaces"]
    out = subprocess.run([*run, "report", str(log)], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    assert re.match(
        r"a phase with spaces: \d+ s of wall, \d+ core-seconds of work \(\d+% of \d+ cores busy\)\n", out
    ), out
    assert "takes at least" in out


def test_scripts_test_marks_every_phase_of_the_whole_suite_and_reports():
    """Every pytest run of the whole suite (no arguments) is followed by a mark, so a phase added to
    scripts/test is counted; the report follows the last."""
    script = (ROOT / "scripts" / "test").read_text()
    whole = script[script.index("status=0") :]  # the whole suite's path, after the one-process exec
    lines = [line.strip() for line in whole.splitlines() if line.strip() and not line.strip().startswith("#")]
    runs = [i for i, line in enumerate(lines) if line.startswith(".venv/bin/python -m pytest")]
    assert len(runs) >= 3, lines  # the phases
    marks = [i for i, line in enumerate(lines) if line.startswith('python3 -m drive.cores mark "$CORES_LOG"')]
    for i in runs:
        if lines[i].endswith("&"):  # a lane in the background: waited for before the phase's mark
            mark = next(m for m in marks if m > i)
            assert any(line.startswith("wait ") for line in lines[i + 1 : mark]), lines[i : mark + 1]
        else:  # in the foreground: its mark next, or the wait for its phase's lane, then the mark
            after = lines[i + 1 : i + 3]
            assert after[0].startswith('python3 -m drive.cores mark "$CORES_LOG"') or (
                after[0].startswith("wait ") and after[1].startswith('python3 -m drive.cores mark "$CORES_LOG"')
            ), after
    assert lines.index('python3 -m drive.cores report "$CORES_LOG" || true') > runs[-1]
    assert 'python3 -m drive.cores mark "$CORES_LOG" start' in script[: script.index("scripts/venv")]
