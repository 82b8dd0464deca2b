"""lessons/pages.py reads app.py's PAGES once (issue 50.3): CPython 3.11's ast.parse is not safe in
two threads at once ("SystemError: AST constructor recursion depth mismatch" in a room's server
log), so no page run parses: the file is parsed once, under a lock, at import, then read from
memory, however many sessions' threads ask at once."""

from __future__ import annotations

import shutil
import threading
import time

from lessons import pages


def test_many_threads_asking_at_once_parse_app_py_once(tmp_path, monkeypatch):
    app = tmp_path / "app.py"
    shutil.copy(pages.APP, app)
    parses = []
    real = pages.ast.parse

    def slow_parse(*args, **kwargs):  # a parse that takes long enough for the threads to meet in it
        parses.append(threading.get_ident())
        time.sleep(0.05)
        return real(*args, **kwargs)

    monkeypatch.setattr(pages.ast, "parse", slow_parse)
    got, start = [], threading.Barrier(12)

    def ask():
        start.wait()
        got.append(pages.app_pages(app))

    threads = [threading.Thread(target=ask) for _ in range(12)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    monkeypatch.undo()  # pytest's own reports parse too
    assert len(parses) == 1, f"app.py parsed {len(parses)} times by 12 threads"
    assert len(got) == 12 and all(g == got[0] for g in got)
    assert [p[1] for p in got[0][0]][0] == "home"  # the real PAGES, read from the copy


def test_a_page_run_parses_nothing(monkeypatch):
    """After import, the links a lesson's steps open are answered from memory: ast.parse is never
    called on a page's thread."""

    calls = []
    real = pages.ast.parse
    monkeypatch.setattr(pages.ast, "parse", lambda *a, **k: calls.append(1) or real(*a, **k))
    paths = pages.linkable() + pages.linkable()
    pages.file_of("attention")
    monkeypatch.undo()
    assert not calls, f"ast.parse called {len(calls)} times after import"
    assert "lessons" in paths and "attention" in paths
    assert pages.file_of("attention") == "pages/attention.py"
    assert all(pages.file_of(p).startswith("pages/") for p in paths)
