"""Lesson files from outside (an upload, a file in the server's folder, a room's shared lesson):
each hostile file (wrong types, unknown queries and models, huge, deeply nested, markup, links,
format-string tricks, bytes that are not text) gives exactly one clear error naming its line, in
the reader's language, and changes nothing on the server (the lesson folder, the room store, the
session's lesson)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from lessons import files, schema
from ui import i18n

GOOD = files.BUILTIN_DIR.joinpath("attention.toml").read_text(encoding="utf-8")
MINIMAL = """\
id = "mine"
title = { en = "Mine", zh = "我的" }

[[step]]
model = "translator"
sentence = "The cat sat on the mat"
question = "word"
query = "top_key"
view = { kind = "encoder", layer = 1, head = "mean" }
args = { word = "cat" }
ask.en = "Which word does {word} read most?"
ask.zh = "{word} 最关注哪个词？"
reveal.en = "{top}, {weight}."
reveal.zh = "{top}，{weight}。"
"""


def swap(old: str, new: str) -> str:
    assert old in MINIMAL, old
    return MINIMAL.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    return next(i + 1 for i, ln in enumerate(text.splitlines()) if needle in ln)


HOSTILE = {
    # wrong types
    "title a number": (swap('title = { en = "Mine", zh = "我的" }', "title = 3"), "wrong_type", "title = 3"),
    "model a number": (swap('model = "translator"', "model = 5"), "wrong_type", "model = 5"),
    "layer true": (swap("layer = 1,", "layer = true,"), "wrong_type", "layer = true"),
    # a word may be a table naming a position ({word, occurrence} or {position}); not another table
    "args word a table": (swap('args = { word = "cat" }', "args = { word = { a = 1 } }"), "unknown_key", "args ="),
    "args word a list": (swap('args = { word = "cat" }', "args = { word = [1] }"), "wrong_type", "args ="),
    "ask a list": (
        swap('ask.en = "Which word does {word} read most?"', 'ask.en = ["x"]'),
        "wrong_type",
        'ask.en = ["x"]',
    ),
    "steps a table": ('id = "x"\ntitle = { en = "a", zh = "b" }\nstep = { model = "gpt" }\n', "wrong_type", "step ="),
    # unknown names
    "unknown query": (swap('query = "top_key"', "query = \"__import__('os').system\""), "unknown_query", "query ="),
    "code as query": (swap('query = "top_key"', 'query = "eval"'), "unknown_query", "query ="),
    "unknown model": (swap('model = "translator"', 'model = "../../etc/passwd"'), "unknown_model", "model ="),
    "hub model not offered": (swap('model = "translator"', 'model = "hf:gpt2"'), "unknown_model", "model ="),
    "unknown key": (swap('query = "top_key"', 'query = "top_key"\nrun = "rm -rf /"'), "unknown_key", "run ="),
    "unknown arg": (swap('args = { word = "cat" }', 'args = { word = "cat", exec = "x" }'), "unknown_arg", "args ="),
    "wrong question": (swap('question = "word"', 'question = "slider"'), "wrong_question", "question ="),
    "bad head rule": (swap('head = "mean"', 'head = "__class__"'), "bad_value", "view ="),
    # sizes
    "huge": (MINIMAL + "# " + "x" * 70_000 + "\n", "too_large", None),
    "long text": (
        swap('ask.en = "Which word does {word} read most?"', f'ask.en = "{"a" * 5000}"'),
        "too_long",
        "ask.en",
    ),
    "too many steps": (MINIMAL + "\n".join([MINIMAL.split("\n\n", 1)[1]] * 40), "too_many_steps", None),
    "deeply nested arrays": ('id = "x"\nx = ' + "[" * 3000 + "]" * 3000 + "\n", "too_deep", None),
    "nested tables": (
        swap('args = { word = "cat" }', "args = { a = { b = { c = { d = { e = { f = { g = 1 } } } } } } }"),
        "too_deep",
        None,
    ),
    # markup and links
    "script tag": (
        swap('ask.en = "Which word does {word} read most?"', 'ask.en = "<script>alert(1)</script>"'),
        "markup",
        "ask.en",
    ),
    "img onerror": (
        swap('reveal.zh = "{top}，{weight}。"', 'reveal.zh = "<img src=x onerror=alert(1)>"'),
        "markup",
        "reveal.zh",
    ),
    "http link": (
        swap('ask.en = "Which word does {word} read most?"', 'ask.en = "see https://evil.example"'),
        "link",
        "ask.en",
    ),
    "markdown link": (swap('ask.en = "Which word does {word} read most?"', 'ask.en = "[click](/x)"'), "link", "ask.en"),
    "javascript": (swap('reveal.en = "{top}, {weight}."', 'reveal.en = "javascript:alert(1)"'), "link", "reveal.en"),
    "www": (swap('reveal.en = "{top}, {weight}."', 'reveal.en = "go to www.evil.example"'), "link", "reveal.en"),
    "link in title": (
        swap('title = { en = "Mine", zh = "我的" }', 'title = { en = "http://x", zh = "我的" }'),
        "link",
        "title =",
    ),
    # format strings and odd characters
    "attribute placeholder": (
        swap('ask.en = "Which word does {word} read most?"', 'ask.en = "{word.__class__}"'),
        "placeholder",
        "ask.en",
    ),
    "index placeholder": (
        swap('ask.en = "Which word does {word} read most?"', 'ask.en = "{word[0]}"'),
        "placeholder",
        "ask.en",
    ),
    "huge width": (
        swap('ask.en = "Which word does {word} read most?"', 'ask.en = "{word:>99999999}"'),
        "placeholder",
        "ask.en",
    ),
    "unknown placeholder": (
        swap('reveal.en = "{top}, {weight}."', 'reveal.en = "{secret}"'),
        "placeholder",
        "reveal.en",
    ),
    "control characters": (
        swap('ask.en = "Which word does {word} read most?"', 'ask.en = "a\\u0007b"'),
        "control_chars",
        "ask.en",
    ),
    "right-to-left override": (
        swap('ask.en = "Which word does {word} read most?"', 'ask.en = "a\\u202eb"'),
        "control_chars",
        "ask.en",
    ),
    "not toml": ("<html><body>hello</body></html>", "not_toml", None),
    "missing language": (swap('ask.zh = "{word} 最关注哪个词？"\n', ""), "missing", None),
    "no steps": ('id = "x"\ntitle = { en = "a", zh = "b" }\nstep = []\n', "no_steps", None),
    "bad id": (swap('id = "mine"', 'id = "../../../tmp/evil"'), "bad_id", "id ="),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_file_gives_one_clear_error_on_its_line(name):
    text, code, needle = HOSTILE[name]
    with pytest.raises(schema.LessonError) as got:
        schema.validate(text)
    e = got.value
    assert e.code == code, (name, e.code, e.params)
    if needle is not None:
        assert e.line == line_of(text, needle), (name, e.line, line_of(text, needle))
    # the message exists in both languages, formats with its numbers, and the Chinese is Chinese
    for lang in ("en", "zh"):
        entry = i18n.TABLE[f"lesson_error_{e.code}"][lang]
        message = entry.format(**e.params)
        assert "{" not in message.replace("{{", "") or e.code == "placeholder", message
        if lang == "zh":
            assert re.search("[\u4e00-\u9fff]", message), message


def test_bytes_that_are_not_utf8_and_bytes_over_the_limit():
    with pytest.raises(schema.LessonError) as got:
        schema.validate(b"\xff\xfe\x00id")
    assert got.value.code == "not_utf8"
    with pytest.raises(schema.LessonError) as got:
        schema.validate(b"#" * (schema.MAX_BYTES + 1))
    assert got.value.code == "too_large" and got.value.params["size"] == schema.MAX_BYTES + 1


def test_the_good_files_pass():
    for text in (GOOD, MINIMAL):
        schema.validate(text)


def test_a_hostile_file_changes_nothing_in_the_servers_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(files.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(files.SAVE_ENV, "1")
    files.save(MINIMAL, owner="ROOMAAAA")
    before = sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir())
    for text, _, _ in HOSTILE.values():
        with pytest.raises(schema.LessonError):
            files.save(text, owner="ROOMAAAA")
    assert sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir()) == before
    assert files.saved(owner="ROOMAAAA") == ["mine"] and files.saved() == []


def test_saving_is_off_unless_the_operator_allows_it(tmp_path, monkeypatch):
    monkeypatch.delenv(files.SAVE_ENV, raising=False)
    monkeypatch.setenv(files.DIR_ENV, str(tmp_path))
    assert not files.can_save()
    with pytest.raises(schema.LessonError) as got:
        files.save(MINIMAL, owner="ROOMAAAA")
    assert got.value.code == "save_off" and not list(tmp_path.iterdir())
    monkeypatch.setenv(files.SAVE_ENV, "1")
    monkeypatch.delenv(files.DIR_ENV)
    assert not files.can_save()


def test_a_hostile_room_lesson_is_bounded_and_a_failed_upload_keeps_the_session_as_it_was(tmp_path):
    from ui.rooms import MAX_LESSON, SQLiteRooms, StateTooLarge

    store = SQLiteRooms(tmp_path / "rooms.sqlite3")
    code, token = store.create()
    store.set_lesson(code, token, MINIMAL)
    with pytest.raises(StateTooLarge):
        store.set_lesson(code, token, "#" * (MAX_LESSON + 1))
    with pytest.raises(PermissionError):
        store.set_lesson(code, "not-the-token", GOOD)
    assert store.lesson(code) == MINIMAL


def _upload_script(raw: bytes):
    import streamlit as st

    from ui import editor

    st.session_state.setdefault("ed_steps", [{"kept": True}])
    st.session_state.setdefault("les_custom_text", "before")
    editor.load_text(raw)


@pytest.mark.parametrize("name", ["unknown query", "script tag", "huge", "deeply nested arrays", "http link"])
def test_a_hostile_upload_shows_one_error_and_changes_nothing_in_the_session(name):
    text = HOSTILE[name][0]
    at = AppTest.from_function(_upload_script, args=(text.encode(),))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1, [e.value for e in at.error]
    assert at.session_state["ed_steps"] == [{"kept": True}]
    assert at.session_state["les_custom_text"] == "before"


def test_uploads_are_kept_only_for_the_lesson_uploader_and_bounded():
    """ui/hardening.py: a session that drew the editor's uploader keeps lesson-sized files (at most
    UPLOAD_FILES, the newest); any other session, or a file over UPLOAD_MAX, keeps nothing.
    tests/test_protocol.py sends 200 x 500 kB to a session without the uploader over the wire."""
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    from ui import hardening

    mgr = MemoryUploadedFileManager("/_stcore/upload_file")
    add = hardening.bounded_upload(mgr)
    rec = lambda i, n: UploadedFileRec(f"f{i}", "x.toml", "text/plain", b"#" * n)  # noqa: E731
    add("stranger", rec(0, 100))
    hardening.allow_uploads("teacher")
    add("teacher", rec(1, hardening.UPLOAD_MAX + 1))
    assert mgr.file_storage.get("stranger", {}) == {} and mgr.file_storage.get("teacher", {}) == {}
    for i in range(2, 7):
        add("teacher", rec(i, 1_000))
    assert list(mgr.file_storage["teacher"]) == ["f5", "f6"]
    assert mgr._total_bytes == 2_000
