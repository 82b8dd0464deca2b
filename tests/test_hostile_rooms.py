"""Two tabs of one browser opened before it had the browser-id cookie (issue 45, minor): each
session made its own id, each tab's script wrote its own, and the browser voted twice. The scripts
the page sends are run here in node against one shared cookie jar, as two tabs of one browser
would run them; the oracle is what the jar holds and which tab reloads.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests.test_rooms import _teacher_app

NODE = shutil.which("node")

# A browser's cookie jar and two tabs: each tab's script runs with document.cookie reading the jar
# and writing one cookie into it, location.reload recorded.
_HARNESS = r"""
const jar = {};
const scripts = JSON.parse(require("fs").readFileSync(0, "utf8"));
const reloads = [];
scripts.forEach((src, tab) => {
  const document = {
    get cookie() { return Object.entries(jar).map(([k, v]) => k + "=" + v).join("; "); },
    set cookie(s) { const [kv] = s.split(";"); const i = kv.indexOf("="); jar[kv.slice(0, i)] = kv.slice(i + 1); },
  };
  const location = { protocol: "http:", reload: () => reloads.push(tab) };
  new Function("document", "location", "fetch", src)(document, location, () => null);
});
console.log(JSON.stringify({ jar, reloads }));
"""


def _run(scripts: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([NODE, "-e", _HARNESS], input=json.dumps(scripts), capture_output=True, text=True, check=True)


def _page_script(at) -> str:
    for element in at.get("html"):
        body = element.proto.body
        if "attn_browser" in body:
            return re.search(r"<script>(.*)</script>", body, re.S).group(1)
    raise AssertionError("the page wrote no browser id")


@pytest.mark.skipif(NODE is None, reason="node runs the page's script")
def test_two_tabs_opened_before_the_cookie_vote_as_one_browser(tmp_path, monkeypatch):
    tabs = []
    for _ in range(2):
        at, classroom = _teacher_app(tmp_path, monkeypatch)
        code = classroom.store().create()[0] if not tabs else tabs[0][1]
        at.query_params["room"] = code
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        tabs.append((at, code))
    ids = [at.session_state["_room_student"] for at, _ in tabs]
    assert ids[0] != ids[1]  # two sessions, no cookie yet: two ids made
    scripts = [_page_script(at) for at, _ in tabs]
    done = json.loads(_run(scripts).stdout)
    assert done["jar"] == {"attn_browser": ids[0]}  # the first tab's id stays the browser's
    assert done["reloads"] == [1]  # the second tab reloads: its new session reads that id

    # the reloaded tab's session starts with the cookie the first tab wrote: one id, one vote
    again, classroom = _teacher_app(tmp_path, monkeypatch)
    monkeypatch.setattr(classroom, "_cookies", lambda: dict(done["jar"]))
    again.query_params["room"] = tabs[0][1]
    again.run()
    assert again.session_state["_room_student"] == ids[0]
    store = classroom.store()
    store.answer(tabs[0][1], "lesson.1", ids[0], 0)
    store.answer(tabs[0][1], "lesson.1", again.session_state["_room_student"], 2)
    assert store.answers(tabs[0][1], "lesson.1") == {2: 1}
    classroom.store.clear()


@pytest.mark.skipif(NODE is None, reason="node runs the page's script")
def test_a_lone_tab_writes_its_id_and_never_reloads(tmp_path, monkeypatch):
    at, classroom = _teacher_app(tmp_path, monkeypatch)
    at.query_params["room"] = classroom.store().create()[0]
    at.run()
    script = _page_script(at)
    done = json.loads(_run([script, script]).stdout)
    assert done == {"jar": {"attn_browser": at.session_state["_room_student"]}, "reloads": []}
    classroom.store.clear()


def _outage_store(base):
    """The room store as it is in an outage: every call but create fails."""
    from ui import rooms as R

    class Outage(type(base)):
        broken = False

        def __getattribute__(self, name):
            attr = super().__getattribute__(name)
            if (
                name != "create"
                and not name.startswith("_")
                and callable(attr)
                and object.__getattribute__(self, "broken")
            ):

                def fail(*a, **kw):
                    raise R.StoreError("connection refused")

                return fail
            return attr

    out = Outage.__new__(Outage)
    out.__dict__.update(base.__dict__)
    return out


def _teacher_run(code: str, token: str, lesson: str):
    """What the lessons page calls on the store in one run of a room's teacher: the class's answers
    for the step, the lesson shared with the room, the page published (app.py, at the end)."""
    import streamlit as st

    from ui import classroom

    st.session_state["_room_code"], st.session_state["_room_token"] = code, token
    classroom.answer_counts("attention.1")
    classroom.share_lesson(lesson)
    classroom.publish("lessons")


def test_a_store_outage_is_one_toast_on_the_lessons_page(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from lessons import files
    from ui import classroom
    from ui.i18n import TABLE

    monkeypatch.setenv("ATTN_ROOMS", f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    classroom.store.clear()
    store = _outage_store(classroom.store())
    monkeypatch.setattr(classroom, "store", lambda: store)
    code, token = store.create()
    store.broken = True
    text = files.dump_lesson(files.builtin("attention"))
    at = AppTest.from_function(_teacher_run, args=(code, token, text), default_timeout=60)
    notice = TABLE["room_store_error"]["en"]
    counts = []
    for _ in range(2):
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        counts.append(sum(notice in str(t.proto) for t in at.get("toast")))
    assert counts[0] == 1, counts  # told once, not once per failed call
    assert counts[1] == 0, counts  # and not again on the next run seconds later
