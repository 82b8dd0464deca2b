"""Classroom rooms: what the teacher shows, and the students' answers, in a store every replica reaches.

One small interface (RoomStore), two stores behind it:
- SQLiteRooms: a file (WAL mode, so readers never wait for the writer): the default, right for
  one server or several replicas on one host;
- RedisRooms: a Redis server, for replicas on several machines.
rooms_from_setting() picks one from ATTN_ROOMS: unset or "sqlite:///path/to/file", or
"redis://host:port/db". No room lives in a Python global: a replica that never saw the room
reads it from the store.

A room has a short code to type or scan (8 characters from an alphabet without look-alikes,
40 bits, drawn by `secrets`) and a separate teacher token (128 bits) that only the teacher's
session holds; only the token can change what the room shows, and the teacher can rotate it
(rotate(): the old token stops working at once). Rooms expire TTL seconds after the teacher last
changed them; expiry reads an index on the expiry time (SQLite: an index on rooms.expires; Redis:
the sorted set rooms:expires), never every room. At most MAX_ROOMS rooms are open in a store and
MAX_ROOMS_PROCESS opened by one process (create() raises RoomsFull). A store that fails (a
corrupt, read-only or missing file, a full disk, Redis down or hung) raises StoreError, one
exception the page catches to show the teacher a notice and keep working. Redis calls time out
after TIMEOUT s (connect and socket: without a timeout a SIGSTOPped redis-server held every
caller for as long as it was stopped), and after a timeout or a refused connection the store
answers StoreError at once for HOLD_OFF s instead of making each visitor wait again. Opening
rooms is rate-limited per client (create(clients=...)): each (kind, id) pair may open at most
OPENS[kind] rooms in OPENS_WINDOW s, counted in the store itself so every replica shares the
count; past it RateLimited says when the next one may open. No Streamlit here.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import wraps
from pathlib import Path

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L
CODE_LENGTH = 8
TTL = 4 * 3600  # a room lives 4 hours after the teacher's last change
MAX_STATE = 20_000  # bytes of JSON a room may hold
MAX_ANSWER = 64
MAX_LESSON = 64_000  # bytes of the lesson file a teacher shares with the room (its own key, not the state)
MAX_NICK = 24  # characters of a student's nickname
MAX_ROOMS = int(os.environ.get("ATTN_MAX_ROOMS", "2000"))  # open rooms in one store (every replica together)
MAX_ROOMS_PROCESS = int(os.environ.get("ATTN_MAX_ROOMS_PROCESS", "500"))  # rooms one process opened and that are live
TIMEOUT = float(os.environ.get("ATTN_ROOMS_TIMEOUT", "1.0"))  # seconds a Redis connect or reply may take
HOLD_OFF = 5.0  # seconds a store that timed out or refused answers StoreError without being asked
# rooms one client may open per OPENS_WINDOW s: a browser (its attn_browser id) and an address
# (many teachers of one school may share one behind NAT, so it gets more). A loop of fresh websockets
# had opened 497 rooms in 75 s from one machine (issue 32), filling the store for 4 hours.
OPENS_WINDOW = float(os.environ.get("ATTN_ROOM_OPENS_WINDOW", "3600"))
OPENS = {
    "browser": int(os.environ.get("ATTN_ROOM_OPENS_BROWSER", "5")),
    "address": int(os.environ.get("ATTN_ROOM_OPENS_ADDRESS", "20")),
}


class StoreError(RuntimeError):
    """The room store cannot be read or written (file damaged, read-only or missing, disk full,
    Redis unreachable). The original error is the __cause__ (for the server's log)."""


class RoomsFull(RuntimeError):
    """No room can be opened now: MAX_ROOMS are open in the store, or MAX_ROOMS_PROCESS from this process."""


class RateLimited(RuntimeError):
    """This client opened its OPENS rooms in the last OPENS_WINDOW s; retry_after: seconds until
    the oldest of them leaves the window (and another may open)."""

    def __init__(self, retry_after: float):
        super().__init__(f"too many rooms opened; retry in {retry_after:.0f} s")
        self.retry_after = max(1.0, float(retry_after))


class StateTooLarge(ValueError):
    """A room state whose JSON is over MAX_STATE bytes (or a lesson over MAX_LESSON)."""


def _lesson_text(text: str) -> str:
    if not isinstance(text, str) or len(text.encode()) > MAX_LESSON:
        raise StateTooLarge(f"a room's lesson is at most {MAX_LESSON} bytes")
    return text


def _nick(nick) -> str:
    return " ".join(str(nick or "").split())[:MAX_NICK]


def _store_errors(method):
    """The store's own errors (sqlite3.Error, OSError, redis's errors) as StoreError; KeyError,
    PermissionError, RoomsFull, RateLimited and StateTooLarge pass unchanged. A store that timed
    out or refused a connection raises StoreError at once for HOLD_OFF s (no caller waits TIMEOUT
    again while it is hung)."""

    @wraps(method)
    def wrapper(self, *args, **kwargs):
        if time.monotonic() < self.__dict__.get("_down_until", 0.0):
            raise StoreError("the room store timed out or refused a moment ago")
        try:
            return method(self, *args, **kwargs)
        except (KeyError, PermissionError, RoomsFull, RateLimited, StateTooLarge):
            raise
        except Exception as e:  # sqlite3.Error, OSError, redis.RedisError, a damaged row's JSON ...
            redis_error = type(e).__module__.startswith("redis")
            if redis_error and type(e).__name__ in ("TimeoutError", "ConnectionError"):
                self.__dict__["_down_until"] = time.monotonic() + HOLD_OFF
            if isinstance(e, (sqlite3.Error, OSError, json.JSONDecodeError)) or redis_error:
                raise StoreError(str(e)) from e
            raise

    return wrapper


@dataclass(frozen=True)
class Room:
    code: str
    version: int  # grows by one with every change the teacher publishes
    state: dict  # what the teacher shows: {"page": ..., "params": {...}}
    expires: float  # unix time


def _client_keys(clients) -> list[tuple[str, int]]:
    """(store key, limit) for each (kind, id) pair of a known kind with an id."""
    out = []
    for kind, ident in clients or ():
        if kind in OPENS and ident:
            out.append((f"{kind}:{_hash(str(ident))[:32]}", OPENS[kind]))
    return out


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(raw: str) -> str | None:
    """A typed code: case, spaces and dashes ignored; None if it cannot be a code."""
    code = "".join(ch for ch in (raw or "").upper() if ch not in " -")
    return code if len(code) == CODE_LENGTH and all(ch in ALPHABET for ch in code) else None


def format_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _state_json(state: dict) -> str:
    text = json.dumps(state, ensure_ascii=False, sort_keys=True)
    if len(text.encode()) > MAX_STATE:
        raise StateTooLarge(f"room state is larger than {MAX_STATE} bytes")
    return text


class RoomStore:
    """create() -> (code, teacher token); get(code) -> Room | None; publish(code, token, state) ->
    version (PermissionError for a wrong token, KeyError for no such room); check(code, token) ->
    bool; rotate(code, token) -> a new token (the old one stops working); answer(code, step,
    student, choice); answers(code, step) -> {choice: count}; close(code, token); count() -> open
    rooms; set_lesson(code, token, text) / lesson(code): the lesson file the teacher shares (at most
    MAX_LESSON bytes, its own key, expiring with the room); set_nickname(code, student, nick) /
    results(code) -> [(step, student, choice)] / nicknames(code) -> {student: nick}: the class's
    results, which end with the room. Every method raises StoreError when the store itself fails."""

    ttl: float = TTL
    # the store's clock (seconds, as time.time): a test sets its own and moves it past an expiry
    # instead of sleeping. Redis expires its keys by its own clock, so its tests still wait.
    clock = staticmethod(time.time)
    max_rooms: int = MAX_ROOMS
    max_rooms_process: int = MAX_ROOMS_PROCESS

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in (
            "__init__",
            "create",
            "get",
            "publish",
            "rotate",
            "answer",
            "answers",
            "close",
            "_check",
            "count",
            "set_lesson",
            "lesson",
            "set_nickname",
            "results",
            "nicknames",
        ):
            if name in cls.__dict__:
                setattr(cls, name, _store_errors(cls.__dict__[name]))

    def _mine(self) -> dict[str, float]:
        """code -> expiry of the rooms this object (this process) opened."""
        mine = self.__dict__.setdefault("_opened", {})
        now = self.clock()
        for code in [c for c, exp in mine.items() if exp < now]:
            del mine[code]
        return mine

    def _room_allowed(self, open_now: int) -> None:
        if open_now >= self.max_rooms or len(self._mine()) >= self.max_rooms_process:
            raise RoomsFull(
                f"{open_now} rooms are open (at most {self.max_rooms}; {self.max_rooms_process} per process)"
            )

    def count(self) -> int:
        raise NotImplementedError

    def rotate(self, code: str, token: str) -> str:
        raise NotImplementedError

    def create(self, state: dict | None = None, clients=()) -> tuple[str, str]:
        """A new room; clients: (kind, id) pairs (kind a key of OPENS) whose opens are counted and
        capped (RateLimited), none for the owner's own scripts and the tests."""
        raise NotImplementedError

    def get(self, code: str) -> Room | None:
        raise NotImplementedError

    def publish(self, code: str, token: str, state: dict) -> int:
        raise NotImplementedError

    def answer(self, code: str, step: str, student: str, choice: int) -> None:
        raise NotImplementedError

    def answers(self, code: str, step: str) -> dict[int, int]:
        raise NotImplementedError

    def close(self, code: str, token: str) -> None:
        raise NotImplementedError

    def _check(self, code: str, token: str) -> None:
        raise NotImplementedError

    def set_lesson(self, code: str, token: str, text: str) -> None:
        raise NotImplementedError

    def lesson(self, code: str) -> str | None:
        raise NotImplementedError

    def set_nickname(self, code: str, student: str, nick: str) -> None:
        raise NotImplementedError

    def results(self, code: str) -> list[tuple[str, str, int]]:
        raise NotImplementedError

    def nicknames(self, code: str) -> dict[str, str]:
        raise NotImplementedError

    def check(self, code: str, token: str) -> bool:
        """Whether token is this live room's teacher token."""
        try:
            self._check(code, token)
            return True
        except (KeyError, PermissionError):
            return False


class SQLiteRooms(RoomStore):
    def __init__(self, path: str | os.PathLike, ttl: float = TTL):
        self.path, self.ttl = str(path), ttl
        self._local = threading.local()  # one connection per thread (Streamlit runs sessions in threads)
        self._db()

    @staticmethod
    def _schema(db: sqlite3.Connection) -> None:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, token TEXT NOT NULL, "
            "state TEXT NOT NULL, version INTEGER NOT NULL, expires REAL NOT NULL)"
        )
        db.execute(
            "CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, step TEXT NOT NULL, "
            "student TEXT NOT NULL, choice INTEGER NOT NULL, PRIMARY KEY (code, step, student))"
        )
        db.execute("CREATE INDEX IF NOT EXISTS rooms_expires ON rooms (expires)")
        db.execute("CREATE TABLE IF NOT EXISTS lessons (code TEXT PRIMARY KEY, text TEXT NOT NULL)")
        db.execute(
            "CREATE TABLE IF NOT EXISTS nicknames (code TEXT NOT NULL, student TEXT NOT NULL, "
            "nick TEXT NOT NULL, PRIMARY KEY (code, student))"
        )
        db.execute("CREATE TABLE IF NOT EXISTS opens (client TEXT NOT NULL, at REAL NOT NULL)")
        db.execute("CREATE INDEX IF NOT EXISTS opens_client ON opens (client, at)")

    def _file(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
            return st.st_dev, st.st_ino
        except OSError:
            return None

    def _db(self) -> sqlite3.Connection:
        """This thread's connection, to the file at self.path as it is now: a file deleted (or replaced)
        since the connection opened it means a new connection and the tables made again, so the store
        recovers at the next call. An open connection would go on writing into the deleted file,
        unseen by every other thread and replica, while new ones found a file without tables: "try
        again in a moment" until the server restarted."""
        db, opened = getattr(self._local, "db", None), getattr(self._local, "file", None)
        if db is not None and opened is not None and self._file() == opened:
            return db
        if db is not None:
            db.close()
            self._local.db = None
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.execute("PRAGMA busy_timeout=10000")
        self._schema(db)  # IF NOT EXISTS: a no-op on a file that has them
        self._local.db, self._local.file = db, self._file()
        return db

    def _expire(self, db) -> None:
        """Drop expired rooms: both statements find them through the rooms_expires index."""
        now = self.clock()
        for table in ("answers", "lessons", "nicknames"):
            db.execute(f"DELETE FROM {table} WHERE code IN (SELECT code FROM rooms WHERE expires < ?)", (now,))
        db.execute("DELETE FROM rooms WHERE expires < ?", (now,))
        db.execute("DELETE FROM opens WHERE at < ?", (now - OPENS_WINDOW,))

    def _count_opens(self, db, clients) -> None:
        """RateLimited when one of clients opened its share in the window; else each open recorded."""
        now, keys = self.clock(), _client_keys(clients)
        for key, limit in keys:
            n, oldest = db.execute(
                "SELECT COUNT(*), MIN(at) FROM opens WHERE client = ? AND at >= ?", (key, now - OPENS_WINDOW)
            ).fetchone()
            if n >= limit:
                raise RateLimited(oldest + OPENS_WINDOW - now)
        db.executemany("INSERT INTO opens VALUES (?, ?)", [(key, now) for key, _ in keys])

    def count(self):
        return self._db().execute("SELECT COUNT(*) FROM rooms WHERE expires >= ?", (self.clock(),)).fetchone()[0]

    def create(self, state=None, clients=()):
        token = secrets.token_urlsafe(16)
        text = _state_json(state or {})
        db = self._db()
        self._expire(db)
        self._room_allowed(self.count())
        db.execute("BEGIN IMMEDIATE")  # the count and the insert as one: two replicas cannot both pass
        try:
            self._count_opens(db, clients)
            while True:
                code = new_code()
                expires = self.clock() + self.ttl
                try:
                    db.execute("INSERT INTO rooms VALUES (?, ?, ?, 0, ?)", (code, _hash(token), text, expires))
                    break
                except sqlite3.IntegrityError:  # a live room has this code: draw again
                    continue
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._mine()[code] = expires
        return code, token

    def rotate(self, code, token):
        new = secrets.token_urlsafe(16)
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            self._check(code, token, db)
            db.execute("UPDATE rooms SET token = ? WHERE code = ?", (_hash(new), code))
            db.execute("COMMIT")
            return new
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def get(self, code):
        row = (
            self._db()
            .execute("SELECT state, version, expires FROM rooms WHERE code = ? AND expires >= ?", (code, self.clock()))
            .fetchone()
        )
        return None if row is None else Room(code, row[1], json.loads(row[0]), row[2])

    def _check(self, code, token, db=None) -> None:
        row = (
            (db or self._db())
            .execute("SELECT token FROM rooms WHERE code = ? AND expires >= ?", (code, self.clock()))
            .fetchone()
        )
        if row is None:
            raise KeyError(code)
        if not hmac.compare_digest(row[0], _hash(token or "")):
            raise PermissionError("only the teacher's session can change this room")

    def publish(self, code, token, state):
        text = _state_json(state)
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            self._check(code, token, db)
            db.execute(
                "UPDATE rooms SET state = ?, version = version + 1, expires = ? WHERE code = ?",
                (text, self.clock() + self.ttl, code),
            )
            version = db.execute("SELECT version FROM rooms WHERE code = ?", (code,)).fetchone()[0]
            db.execute("COMMIT")
            return version
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def answer(self, code, step, student, choice):
        if self.get(code) is None:
            raise KeyError(code)
        self._db().execute(
            "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)",
            (code, str(step)[:MAX_ANSWER], str(student)[:MAX_ANSWER], int(choice)),
        )

    def answers(self, code, step):
        rows = (
            self._db()
            .execute(
                "SELECT choice, COUNT(*) FROM answers WHERE code = ? AND step = ? GROUP BY choice",
                (code, str(step)[:MAX_ANSWER]),
            )
            .fetchall()
        )
        return {int(c): int(n) for c, n in rows}

    def close(self, code, token):
        db = self._db()
        self._check(code, token, db)
        for table in ("answers", "lessons", "nicknames", "rooms"):
            db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
        self._mine().pop(code, None)

    def set_lesson(self, code, token, text):
        text = _lesson_text(text)
        db = self._db()
        self._check(code, token, db)
        db.execute("INSERT OR REPLACE INTO lessons VALUES (?, ?)", (code, text))

    def lesson(self, code):
        if self.get(code) is None:
            return None
        row = self._db().execute("SELECT text FROM lessons WHERE code = ?", (code,)).fetchone()
        return None if row is None else row[0]

    def set_nickname(self, code, student, nick):
        if self.get(code) is None:
            raise KeyError(code)
        nick, student = _nick(nick), str(student)[:MAX_ANSWER]
        if nick:
            self._db().execute("INSERT OR REPLACE INTO nicknames VALUES (?, ?, ?)", (code, student, nick))
        else:
            self._db().execute("DELETE FROM nicknames WHERE code = ? AND student = ?", (code, student))

    def results(self, code):
        if self.get(code) is None:
            return []
        rows = self._db().execute("SELECT step, student, choice FROM answers WHERE code = ?", (code,)).fetchall()
        return [(str(a), str(b), int(c)) for a, b, c in rows]

    def nicknames(self, code):
        if self.get(code) is None:
            return {}
        rows = self._db().execute("SELECT student, nick FROM nicknames WHERE code = ?", (code,)).fetchall()
        return {str(a): str(b) for a, b in rows}


class RedisRooms(RoomStore):
    """room:{code} a hash (token, state, version) and answers:{code}:{step} a hash student -> choice,
    both expiring with the room, with steps:{code} the set of that room's answer keys; rooms:expires a sorted set code -> expiry time, the index that
    counts open rooms (entries past their time are removed by score, not by a scan)."""

    INDEX = "rooms:expires"

    def __init__(self, url: str, ttl: float = TTL):
        import redis  # only needed when ATTN_ROOMS names a Redis server

        self.r = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT
        )
        self.ttl = ttl

    def count(self):
        pipe = self.r.pipeline()
        pipe.zremrangebyscore(self.INDEX, "-inf", self.clock())
        pipe.zcard(self.INDEX)
        return int(pipe.execute()[1])

    def _count_opens(self, clients) -> None:
        """opens:{client}, a sorted set of open times: this open added to each in one MULTI, taken
        back (and RateLimited raised) when one of them is then over its limit."""
        now, keys = self.clock(), _client_keys(clients)
        if not keys:
            return
        member = f"{now}:{secrets.token_hex(4)}"
        pipe = self.r.pipeline()
        for key, _ in keys:
            pipe.zremrangebyscore(f"opens:{key}", "-inf", now - OPENS_WINDOW)
            pipe.zadd(f"opens:{key}", {member: now})
            pipe.zcard(f"opens:{key}")
            pipe.zrange(f"opens:{key}", 0, 0, withscores=True)
            pipe.expire(f"opens:{key}", int(OPENS_WINDOW) + 1)
        out = pipe.execute()
        for i, (_key, limit) in enumerate(keys):
            n, oldest = out[5 * i + 2], out[5 * i + 3]
            if n > limit:
                undo = self.r.pipeline()
                for k, _ in keys:
                    undo.zrem(f"opens:{k}", member)
                undo.execute()
                raise RateLimited((oldest[0][1] if oldest else now) + OPENS_WINDOW - now)

    def create(self, state=None, clients=()):
        token = secrets.token_urlsafe(16)
        text = _state_json(state or {})
        self._room_allowed(self.count())
        self._count_opens(clients)
        while True:
            code = new_code()
            key = f"room:{code}"
            if self.r.hsetnx(key, "token", _hash(token)):
                expires = self.clock() + self.ttl
                pipe = self.r.pipeline()
                pipe.hset(key, mapping={"state": text, "version": 0})
                pipe.expire(key, int(self.ttl))
                pipe.zadd(self.INDEX, {code: expires})
                pipe.execute()
                self._mine()[code] = expires
                return code, token

    def rotate(self, code, token):
        self._check(code, token)
        new = secrets.token_urlsafe(16)
        self.r.hset(f"room:{code}", "token", _hash(new))
        return new

    def get(self, code):
        key = f"room:{code}"
        pipe = self.r.pipeline()
        pipe.hmget(key, "state", "version")
        pipe.ttl(key)
        (state, version), ttl = pipe.execute()
        if state is None or ttl == -2:
            return None
        return Room(code, int(version), json.loads(state), self.clock() + max(ttl, 0))

    def _check(self, code, token) -> None:
        stored = self.r.hget(f"room:{code}", "token")
        if stored is None:
            raise KeyError(code)
        if not hmac.compare_digest(stored, _hash(token or "")):
            raise PermissionError("only the teacher's session can change this room")

    def publish(self, code, token, state):
        text = _state_json(state)
        self._check(code, token)
        key = f"room:{code}"
        pipe = self.r.pipeline()
        pipe.hset(key, "state", text)
        pipe.hincrby(key, "version", 1)
        pipe.expire(key, int(self.ttl))
        pipe.zadd(self.INDEX, {code: self.clock() + self.ttl})
        for step_key in self.r.smembers(f"steps:{code}"):  # this room's answer keys, not a scan of all keys
            pipe.expire(step_key, int(self.ttl))
        for key in (f"steps:{code}", f"lesson:{code}", f"nicks:{code}"):
            pipe.expire(key, int(self.ttl))
        return int(pipe.execute()[1])

    def answer(self, code, step, student, choice):
        if self.get(code) is None:
            raise KeyError(code)
        key = f"answers:{code}:{str(step)[:MAX_ANSWER]}"
        pipe = self.r.pipeline()
        pipe.hset(key, str(student)[:MAX_ANSWER], int(choice))
        pipe.expire(key, int(self.ttl))
        pipe.sadd(f"steps:{code}", key)
        pipe.expire(f"steps:{code}", int(self.ttl))
        pipe.execute()

    def answers(self, code, step):
        out: dict[int, int] = {}
        for choice in self.r.hvals(f"answers:{code}:{str(step)[:MAX_ANSWER]}"):
            out[int(choice)] = out.get(int(choice), 0) + 1
        return out

    def close(self, code, token):
        self._check(code, token)
        keys = [f"room:{code}", f"steps:{code}", f"lesson:{code}", f"nicks:{code}", *self.r.smembers(f"steps:{code}")]
        self.r.delete(*keys)
        self.r.zrem(self.INDEX, code)
        self._mine().pop(code, None)

    def set_lesson(self, code, token, text):
        text = _lesson_text(text)
        self._check(code, token)
        self.r.set(f"lesson:{code}", text, ex=max(1, int(self.r.ttl(f"room:{code}") or self.ttl)))

    def lesson(self, code):
        if self.get(code) is None:
            return None
        return self.r.get(f"lesson:{code}")

    def set_nickname(self, code, student, nick):
        room = self.get(code)
        if room is None:
            raise KeyError(code)
        nick, student, key = _nick(nick), str(student)[:MAX_ANSWER], f"nicks:{code}"
        pipe = self.r.pipeline()
        if nick:
            pipe.hset(key, student, nick)
        else:
            pipe.hdel(key, student)
        pipe.expire(key, max(1, int(room.expires - self.clock())))
        pipe.execute()

    def results(self, code):
        if self.get(code) is None:
            return []
        out, prefix = [], f"answers:{code}:"
        for key in sorted(self.r.smembers(f"steps:{code}")):
            step = key[len(prefix) :] if key.startswith(prefix) else key
            out += [(step, student, int(choice)) for student, choice in self.r.hgetall(key).items()]
        return out

    def nicknames(self, code):
        if self.get(code) is None:
            return {}
        return dict(self.r.hgetall(f"nicks:{code}"))


DEFAULT_SQLITE = Path(tempfile.gettempdir()) / "attention-explorer-rooms.sqlite3"


def rooms_from_setting(setting: str | None = None) -> RoomStore:
    """The store ATTN_ROOMS names: "redis://..." / "rediss://...", "sqlite:///path", or (unset) a
    SQLite file in the temp folder shared by every replica on this host."""
    setting = (os.environ.get("ATTN_ROOMS", "") if setting is None else setting).strip()
    if setting.startswith(("redis://", "rediss://", "unix://")):
        return RedisRooms(setting)
    if setting.startswith("sqlite:///"):
        return SQLiteRooms(setting[len("sqlite:///") :])
    if setting:
        raise ValueError(f"ATTN_ROOMS must be sqlite:///PATH or redis://HOST:PORT/DB, not {setting!r}")
    return SQLiteRooms(DEFAULT_SQLITE)
