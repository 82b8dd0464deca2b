"""Streamlit's watcher of config.toml and secrets.toml looks every CONFIG_POLL_S (5 s), not every
0.2 s, under a bare `streamlit run app.py` as under ui.serve: app.py's run sets it
(ui/hardening.apply), and Streamlit's watcher reads the period at each look, so a period set
after the server started holds from the next look on."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest
from streamlit.watcher import polling_path_watcher

from tests.apptest import APP
from ui.streamlit_internals import CONFIG_POLL_S

ROOT = Path(__file__).resolve().parents[1]


def test_the_apps_run_slows_streamlits_config_watcher(monkeypatch, random_where_untrained):
    monkeypatch.setattr(polling_path_watcher, "_POLLING_PERIOD_SECS", 0.2)  # Streamlit's own
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert polling_path_watcher._POLLING_PERIOD_SECS == CONFIG_POLL_S == 5.0


def test_the_watcher_reads_its_period_at_each_look(tmp_path, monkeypatch):
    """So that the period a run sets reaches the watchers Streamlit started before that run."""
    path = tmp_path / "config.toml"
    path.write_text("a = 1\n")
    changed = threading.Event()
    monkeypatch.setattr(polling_path_watcher, "_POLLING_PERIOD_SECS", 0.05)
    watcher = polling_path_watcher.PollingPathWatcher(str(path), lambda _: changed.set())
    try:
        time.sleep(0.2)
        path.write_text("a = 2\n")
        assert changed.wait(3), "the watcher did not see a change every 0.05 s"
        changed.clear()
        monkeypatch.setattr(polling_path_watcher, "_POLLING_PERIOD_SECS", 5.0)
        time.sleep(0.3)  # the look under way ends; the next waits 5 s
        path.write_text("a = 3\n")
        assert not changed.wait(1.5), "the watcher kept its old period"
    finally:
        watcher.close()


def test_a_process_watching_its_config_exits_without_waiting_out_the_period(tmp_path):
    """A server asked to stop (a test's teardown, a replica's restart) ends at once: with
    Streamlit's own wait, a sleep in a pool thread that Python's exit joins, it took up to a period
    (4.4 s of a test server's stop at 5 s). Here the period is 30 s, so a process that waited it
    out could not pass."""
    path = tmp_path / "config.toml"
    path.write_text("a = 1\n")
    code = (
        "import time\n"
        "from streamlit.watcher import polling_path_watcher\n"
        "from ui.streamlit_internals import poll_files_every\n"
        "poll_files_every(30)\n"
        f"polling_path_watcher.PollingPathWatcher({str(path)!r}, lambda _: None)\n"
        "time.sleep(0.3)\n"  # the first look's wait is under way
        "print('watching', flush=True)\n"
    )
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - start
    assert done.returncode == 0 and "watching" in done.stdout, done.stderr[-2000:]
    assert took < 20, f"the process took {took:.1f} s to exit: it waited out the watcher's 30 s"
