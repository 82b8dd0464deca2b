"""Streamlit's watcher of config.toml and secrets.toml looks every CONFIG_POLL_S (5 s), not every
0.2 s, under a bare `streamlit run app.py` as under ui.serve: app.py's run sets it
(ui/hardening.apply), and Streamlit's watcher reads the period at each look, so a period set
after the server started holds from the next look on."""

from __future__ import annotations

import threading
import time

from streamlit.testing.v1 import AppTest
from streamlit.watcher import polling_path_watcher

from tests.apptest import APP
from ui.streamlit_internals import CONFIG_POLL_S


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
