"""ui.serve publishes the in-browser model's graphs in a child process, never in the server's own:
an export in the server held the GIL (every visitor's run waited on it) and set torch's
process-wide "exporting" state under the visitors' threads, and a page that loaded a model then
failed in torch.manual_seed (KeyError 'custom', tests/test_image.py on 2026-12-05)."""

from __future__ import annotations

import sys

from ui import browser_model, serve


def test_the_graphs_are_exported_by_a_child_process_and_a_failure_is_only_logged(monkeypatch, caplog):
    from model import onnx_export

    def in_process(*args, **kwargs):
        raise AssertionError("the server's own process exported a graph")

    monkeypatch.setattr(onnx_export, "publish", in_process)
    monkeypatch.setattr(onnx_export, "cached_all", in_process)
    monkeypatch.setattr(browser_model, "publish", in_process)
    monkeypatch.setenv(browser_model.ENV, "1")
    monkeypatch.setattr(serve, "CHILDREN", [])
    ran = []

    class Child:
        def __init__(self, cmd, **kwargs):
            ran.append(cmd)
            self.returncode = 0 if len(ran) == 1 else 1

        def communicate(self):
            return "", "no onnx exporter here"

    monkeypatch.setattr(serve.subprocess, "Popen", Child)
    serve.publish_graphs()  # the first: exit status 0
    cmd = ran[0]
    at = cmd.index(sys.executable)
    assert cmd[at:] == [sys.executable, "-m", "ui.browser_model"]
    assert cmd[:at] in ([], ["nice", "-n", "10"])
    serve.publish_graphs()  # the second: exit status 1, a warning with the child's words
    assert "no onnx exporter here" in caplog.text
    monkeypatch.setenv(browser_model.ENV, "0")  # the in-browser model off: nothing run
    serve.publish_graphs()
    assert len(ran) == 2
