"""Reading, writing and finding lesson files: the built-in ones (lessons/builtin/*.toml) and the
server's lesson folder, which the editor may save into only where the operator allows it:

    ATTN_LESSONS_DIR=/srv/lessons     the folder (unset: no folder, nothing is saved)
    ATTN_LESSONS_SAVE=1               the editor may save into it (off by default)

dumps() writes a lesson (the dicts schema.validate returns) back as TOML that validate() reads
to the same lesson. Saved names are the lesson's id (schema.ID: letters, digits, - and _), so a
file can never be written outside the folder. Only a room's teacher saves (ui/editor.py checks the
teacher's secret), and ID.owner beside ID.toml says which room: no other room replaces it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import tomllib
from pathlib import Path

from .schema import ID, MAX_BYTES, Lesson, LessonError, validate

BUILTIN_DIR = Path(__file__).with_name("builtin")


def _builtin_names() -> tuple[str, ...]:
    """Every lesson file in lessons/builtin/, so a file dropped there is offered with no list to
    edit; ordered by English title, because the menu shows titles and a title's leading number
    ("1 · ...") is how a lesson says where it comes in the course."""

    def title(path: Path) -> str:
        try:
            return str(tomllib.loads(path.read_text(encoding="utf-8")).get("title", {}).get("en", path.stem))
        except (tomllib.TOMLDecodeError, AttributeError):  # a broken file sorts by name; validate() reports it
            return path.stem

    return tuple(p.stem for p in sorted(BUILTIN_DIR.glob("*.toml"), key=lambda p: (title(p), p.stem)))


BUILTIN = _builtin_names()
DIR_ENV, SAVE_ENV = "ATTN_LESSONS_DIR", "ATTN_LESSONS_SAVE"
MAX_FOLDER_FILES = 200
MAX_PER_OWNER = 20  # lessons one room may keep in the folder
# a room's saved lesson is removed this long after it was last saved (the room itself ends 4 h after
# its teacher's last change; the teacher downloads the file to keep it): a visitor's rooms cannot
# fill the folder for good. The operator's own files (no ID.owner beside them) never expire.
SAVED_TTL_S = float(os.environ.get("ATTN_LESSONS_SAVED_TTL_S", str(7 * 24 * 3600)))


def builtin(name: str) -> Lesson:
    if name not in BUILTIN:
        raise KeyError(name)
    return validate((BUILTIN_DIR / f"{name}.toml").read_bytes())


def folder() -> Path | None:
    raw = os.environ.get(DIR_ENV, "").strip()
    return Path(raw) if raw else None


def can_save() -> bool:
    """Whether the editor may save to the server: the operator set both ATTN_LESSONS_DIR and ATTN_LESSONS_SAVE=1."""
    return folder() is not None and os.environ.get(SAVE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def saved(owner: str | None = None) -> list[str]:
    """The ids of the lessons in the server's folder that this visitor may start from: the
    operator's own (no ID.owner file) and, for the teacher of room `owner`, that room's (valid
    files only, at most MAX_FOLDER_FILES). Another room's lessons are never listed: one visitor's
    saves do not appear in every teacher's list. Expired rooms' lessons are removed first."""
    d = folder()
    if d is None or not d.is_dir():
        return []
    expire(d)
    mark = _owner_mark(owner) if owner else None
    out = []
    for p in list(d.glob("*.toml"))[:MAX_FOLDER_FILES]:
        if p.stat().st_size > MAX_BYTES:
            continue
        who = _read(p.with_suffix(".owner")) or None
        if who is None or who == mark:
            out.append(p.stem)
    return sorted(out)


def expire(d: Path, now: float | None = None) -> int:
    """Remove the rooms' lessons last saved more than SAVED_TTL_S ago; how many went."""
    now = time.time() if now is None else now
    gone = 0
    for owner_file in d.glob("*.owner"):
        lesson = owner_file.with_suffix(".toml")
        try:
            if now - max(owner_file.stat().st_mtime, lesson.stat().st_mtime if lesson.exists() else 0) > SAVED_TTL_S:
                lesson.unlink(missing_ok=True)
                owner_file.unlink(missing_ok=True)
                gone += 1
        except OSError:
            pass
    return gone


def load_saved(lesson_id: str) -> Lesson:
    d = folder()
    if d is None or not ID.match(lesson_id):
        raise LessonError("no_folder")
    return validate((d / f"{lesson_id}.toml").read_bytes())


def _owner_mark(owner: str) -> str:
    """What an ID.owner file holds: a hash of the owner's key (the room code), not the key."""
    return hashlib.sha256(("attn-lesson-owner:" + owner).encode()).hexdigest()


def owner_of(lesson_id: str) -> str | None:
    """The mark of the room that saved lesson_id (None: no such file, or one the operator put there)."""
    d = folder()
    if d is None or not ID.match(lesson_id):
        return None
    try:
        return (d / f"{lesson_id}.owner").read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def save(text: str, owner: str) -> Path:
    """Write a valid lesson into the server's folder as ID.toml (atomically) for owner (the room
    whose teacher saves it: the caller checked the teacher's secret); LessonError when the operator
    does not allow it, the text is not a valid lesson, ID.toml belongs to another room or to the
    operator (a file without ID.owner), the owner has MAX_PER_OWNER lessons there already or the
    folder MAX_FOLDER_FILES. So a visitor can neither replace a teacher's lesson nor fill the folder
    without opening rooms (which are bounded and rate-limited)."""
    if not can_save():
        raise LessonError("save_off")
    if not owner:
        raise LessonError("save_needs_room")
    lesson = validate(text)
    d = folder()
    d.mkdir(parents=True, exist_ok=True)
    expire(d)
    target, mark = d / f"{lesson.id}.toml", _owner_mark(owner)
    if target.exists() and owner_of(lesson.id) != mark:
        raise LessonError("not_yours", id=lesson.id)
    if not target.exists():
        if len(list(d.glob("*.toml"))) >= MAX_FOLDER_FILES:
            raise LessonError("folder_full", limit=MAX_FOLDER_FILES)
        mine = sum(1 for p in d.glob("*.owner") if _read(p) == mark)
        if mine >= MAX_PER_OWNER:
            raise LessonError("owner_full", limit=MAX_PER_OWNER)
    _write(d / f"{lesson.id}.owner", mark + "\n")  # first: a lesson on disk always has its owner
    _write(target, text)
    return target


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def _write(target: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, target)


# -- writing TOML (the few types a lesson holds) ---------------------------------------------------------


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


STEP_ORDER = (
    "id",
    "check",
    "model",
    "sentence",
    "question",
    "query",
    "view",
    "args",
    "ask",
    "reveal",
    "reveal_yes",
    "reveal_no",
    "show",
)


def dumps(lesson_id: str, title: dict, steps: list[dict], intro: dict | None = None) -> str:
    """A lesson as TOML text."""
    lines = [f"id = {_value(lesson_id)}", f"title = {_value(title)}"]
    if intro:
        lines.append(f"intro = {_value(intro)}")
    for step in steps:
        lines += ["", "[[step]]"]
        for key in STEP_ORDER:
            if key not in step:
                continue
            v = step[key]
            if key == "sentence" and isinstance(v, list) and len(v) == 1:
                v = v[0]
            if key in ("view", "args") and not v:
                continue
            if key in ("ask", "reveal", "reveal_yes", "reveal_no"):
                lines.append(f"{key}.en = {_value(v['en'])}")
                lines.append(f"{key}.zh = {_value(v['zh'])}")
            else:
                lines.append(f"{key} = {_value(v)}")
    return "\n".join(lines) + "\n"


def dump_lesson(lesson: Lesson) -> str:
    return dumps(lesson.id, lesson.title, lesson.steps, lesson.intro)
