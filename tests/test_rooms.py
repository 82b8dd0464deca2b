"""The classroom room store (ui/rooms.py) against a real SQLite file and a real Redis server.

Redis: a redis-server started on a free port for this module (scripts/test installs it with
apt); the Redis cases are skipped when no redis-server binary is on PATH.
"""

from __future__ import annotations

import math
import shutil
import socket
import sqlite3
import subprocess
import threading
import time

import pytest

from ui import rooms as R


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/test installs it with apt)")
    port = free_port()
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path_factory.mktemp("redis")),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    import redis

    client = redis.Redis.from_url(url)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail("redis-server did not start")
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request, tmp_path):
    """make_store(ttl=...) -> a new store object on the same backing store (as a second replica
    would open it)."""
    if request.param == "sqlite":
        path = tmp_path / "rooms.sqlite3"
        return lambda ttl=R.TTL: R.SQLiteRooms(path, ttl=ttl)
    url = request.getfixturevalue("redis_url")
    import redis

    redis.Redis.from_url(url).flushdb()
    return lambda ttl=R.TTL: R.RedisRooms(url, ttl=ttl)


def test_a_room_is_created_with_a_short_unguessable_code_and_a_secret_token(make_store):
    store = make_store()
    code, token = store.create()
    assert len(code) == R.CODE_LENGTH and set(code) <= set(R.ALPHABET)
    assert not set(code) & set("01IOL")  # nothing that reads as another character
    assert len(token) >= 20 and token not in code
    room = store.get(code)
    assert room.version == 0 and room.state == {}
    assert math.log2(len(R.ALPHABET)) * R.CODE_LENGTH >= 39  # about 40 bits: 10^12 codes
    assert store.get(R.new_code()) is None


def test_another_replica_sees_what_the_teacher_published(make_store):
    teacher_side, student_side = make_store(), make_store()
    code, token = teacher_side.create()
    view = {"page": "attention", "params": {"text": "狗咬人", "layer": "2", "head": "3"}}
    assert teacher_side.publish(code, token, view) == 1
    room = student_side.get(code)
    assert room.state == view and room.version == 1
    view2 = {**view, "params": {**view["params"], "head": "mean"}}
    assert teacher_side.publish(code, token, view2) == 2
    assert student_side.get(code).state["params"]["head"] == "mean"


def test_a_student_cannot_drive_the_room(make_store):
    store = make_store()
    code, token = store.create()
    store.publish(code, token, {"page": "home", "params": {}})
    for wrong in ("", "x" * len(token), token[:-1], token + "x", None):
        with pytest.raises(PermissionError):
            store.publish(code, wrong, {"page": "lessons", "params": {}})
        assert not store.check(code, wrong)
    assert store.check(code, token)
    other_code, other_token = store.create()
    with pytest.raises(PermissionError):  # one room's token does not open another
        store.publish(code, other_token, {"page": "lessons", "params": {}})
    with pytest.raises(PermissionError):
        store.close(code, other_token)
    assert store.get(code).state == {"page": "home", "params": {}} and store.get(code).version == 1
    with pytest.raises(KeyError):
        store.publish("ZZZZZZZZ", token, {})


def test_rooms_expire(make_store):
    store = make_store(ttl=1)
    code, token = store.create()
    store.answer(code, "lesson.1", "s1", 0)
    assert store.get(code) is not None
    time.sleep(2.2)
    assert store.get(code) is None
    with pytest.raises(KeyError):
        store.publish(code, token, {})
    with pytest.raises(KeyError):
        store.answer(code, "lesson.1", "s2", 0)


def test_answers_are_counted_once_per_student_and_per_step(make_store):
    store = make_store()
    code, token = store.create()
    store.answer(code, "attention.3", "s1", 2)
    store.answer(code, "attention.3", "s2", 2)
    store.answer(code, "attention.3", "s3", 0)
    store.answer(code, "attention.3", "s3", 1)  # a student's second answer replaces the first
    store.answer(code, "attention.4", "s1", 1)
    assert store.answers(code, "attention.3") == {2: 2, 1: 1}
    assert store.answers(code, "attention.4") == {1: 1}
    assert store.answers(code, "attention.9") == {}
    other, _ = store.create()
    assert store.answers(other, "attention.3") == {}
    store.close(code, token)
    assert store.get(code) is None and store.answers(code, "attention.3") == {}


def test_state_size_is_limited(make_store):
    store = make_store()
    code, token = store.create()
    with pytest.raises(ValueError):
        store.publish(code, token, {"page": "home", "params": {"text": "x" * (R.MAX_STATE + 1)}})


def test_sqlite_store_is_a_wal_file_shared_by_threads(tmp_path):
    path = tmp_path / "rooms.sqlite3"
    store = R.SQLiteRooms(path)
    code, token = store.create()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    errors, versions = [], []

    def teacher():
        try:
            for i in range(50):
                versions.append(store.publish(code, token, {"page": "home", "params": {"i": str(i)}}))
        except Exception as e:  # any error fails the test below
            errors.append(e)

    def student(n):
        try:
            for _ in range(50):
                store.get(code)
                store.answer(code, "s", f"student{n}", n % 3)
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=teacher)] + [threading.Thread(target=student, args=(n,)) for n in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert versions == list(range(1, 51))
    assert R.SQLiteRooms(path).get(code).state["params"]["i"] == "49"
    assert sum(store.answers(code, "s").values()) == 4


def test_codes_typed_by_students_and_the_setting_that_picks_the_store(tmp_path):
    assert R.normalize_code("abcd-efgh") == "ABCDEFGH"
    assert R.normalize_code(" AbCd EfGh ") == "ABCDEFGH"
    assert R.normalize_code("ABCDEFG") is None and R.normalize_code("ABCDEFG0") is None
    assert R.format_code("ABCDEFGH") == "ABCD-EFGH"
    assert isinstance(R.rooms_from_setting(f"sqlite:///{tmp_path}/r.sqlite3"), R.SQLiteRooms)
    assert isinstance(R.rooms_from_setting("redis://127.0.0.1:1/0"), R.RedisRooms)
    with pytest.raises(ValueError):
        R.rooms_from_setting("postgres://x")
    codes = {R.new_code() for _ in range(5000)}
    assert len(codes) == 5000
