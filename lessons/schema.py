"""What a lesson file may hold, checked before anything is built from it.

A lesson file is TOML (docs/lessons.md):

    id = "my-lesson"                         # letters, digits, - and _; at most 40
    title = { en = "...", zh = "..." }
    intro = { en = "...", zh = "..." }       # optional
    [[step]]
    model = "translator"                     # a shipped model, or hf:NAME the operator offers
    sentence = "The cat sat on the mat"      # or a list: the first where the margin rule passes
    question = "word"                        # word | choice | sketch | yesno | slider
    query = "top_key"                        # one of lessons.queries.QUERIES
    ask = { en = "...", zh = "..." }         # {word}, {weight} ...: the query's numbers
    reveal = { en = "...", zh = "..." }
    reveal_yes = { ... }                     # optional (yes/no questions): a reveal per answer
    show = ["heatmap"]                       # optional: which of the query's charts to reveal
    view = { kind = "encoder", layer = 2, head = "mean", temperature = 1.0, positions = true,
             heads_off = ["cross:1:1"], temperature_layer = 2, page = "attention" }
    args = { word = "cat" }                  # the query's own arguments

validate(text) returns a Lesson (plain dicts) or raises LessonError: one error, with a key for the
reader's language (ui/strings/editor.toml, lesson_error_KEY), its parameters and the line of the
file it is about. Nothing here touches a model or the disk.
"""

from __future__ import annotations

import collections
import pickle
import re
import string
import threading
import tomllib
from dataclasses import dataclass

from . import toml_bounds
from .pages import linkable
from .queries import HEAD_RULES, QUERIES, question_kinds

MAX_BYTES = 64_000  # a lesson file, as uploaded, saved or shared through a room
MAX_STEPS = 30
MAX_TEXT = 1_200  # characters of one ask / reveal / title text
MAX_SENTENCE = 300
MAX_SENTENCES = 4
MAX_LIST = 12  # heads_off, also, show, sketches
MAX_DEPTH = 6
LANGS = ("en", "zh")
KINDS = ("encoder", "decoder", "cross")
# \Z, not $: "$" also matches before a trailing newline, and an id "a\n" passed (issue 32)
ID = re.compile(r"\A[A-Za-z0-9_-]{1,40}\Z")
STEP_ID = re.compile(r"\A[A-Za-z0-9_.-]{1,60}\Z")
HEAD_OFF = re.compile(r"\A(encoder|decoder|cross):[1-9][0-9]?:[1-9][0-9]?\Z")
# markup and links have no place in a lesson's text: it is shown to a class as plain text
TAG = re.compile(r"<\s*/?\s*[A-Za-z!?][^>]*>")
ALLOWED_TAGS = {"<s>", "</s>", "<2en>", "<2zh>", "<unk>", "<pad>"}
LINK = re.compile(r"(https?:|ftp:|mailto:|javascript:|data:|www\.|\]\(|://)", re.IGNORECASE)

TOP_KEYS = {"id": str, "title": dict, "intro": dict, "step": list, "format": int}
STEP_KEYS = {
    "id": str,
    "model": str,
    "sentence": (str, list),
    "question": str,
    "query": str,
    "ask": dict,
    "reveal": dict,
    "reveal_yes": dict,
    "reveal_no": dict,
    "show": list,
    "view": dict,
    "args": dict,
    "check": dict,  # a check of an objective, before or after (lessons/checks.py)
}
VIEW_KEYS = {
    "kind": str,
    "layer": (int, str),
    "head": (int, str),
    "temperature": (float, int),
    "temperature_layer": int,
    "positions": bool,
    "heads_off": list,
    "page": str,
}
TYPE_NAMES = {str: "text", int: "integer", float: "number", bool: "true/false", list: "list", dict: "table"}


class LessonError(ValueError):
    """One problem with a lesson file: code (lesson_error_CODE), params, and the line (1-based, 0 unknown)."""

    def __init__(self, code: str, line: int = 0, **params):
        super().__init__(f"line {line}: {code} {params}")
        self.code, self.line, self.params = code, line, params


@dataclass(frozen=True)
class Lesson:
    id: str
    title: dict
    intro: dict
    steps: list  # step dicts as validated (keys of STEP_KEYS)
    text: str  # the file's text, as read

    def step_id(self, i: int) -> str:
        return self.steps[i].get("id") or f"{self.id}.{i + 1}"


def _lines(text: str) -> list[str]:
    return text.splitlines()


class _Where:
    """Finds the line a key is on: the n-th [[step]] header, then the key's own line after it."""

    def __init__(self, text: str):
        self.lines = _lines(text)
        self.steps = [i for i, ln in enumerate(self.lines) if re.match(r"^\s*\[\[\s*step\s*\]\]", ln)]

    def line(self, step: int | None = None, *path: str) -> int:
        """The line of path (e.g. "reveal", "zh") in step (None: the top of the file): the dotted
        key's own line (reveal.zh = ...), else the line that opens its first part (reveal = {...})."""
        if step is None:
            start, end = 0, self.steps[0] if self.steps else len(self.lines)
        elif step < len(self.steps):
            start = self.steps[step]
            end = self.steps[step + 1] if step + 1 < len(self.steps) else len(self.lines)
        else:
            return 0
        for n in range(len(path), 0, -1):
            dotted = r"\s*\.\s*".join(re.escape(p) for p in path[:n])
            pat = re.compile(rf"^\s*{dotted}\s*[=.]|^\s*\[\s*(step\s*\.\s*)?{dotted}\s*\]")
            for i in range(start, end):
                if pat.search(self.lines[i]):
                    return i + 1
        return start + 1 if step is not None else 1


def _depth(value, d: int = 0) -> int:
    if d > MAX_DEPTH + 1:
        return d
    if isinstance(value, dict):
        return max([_depth(v, d + 1) for v in value.values()] or [d + 1])
    if isinstance(value, list):
        return max([_depth(v, d + 1) for v in value] or [d + 1])
    return d


def _type_ok(value, want) -> bool:
    wants = want if isinstance(want, tuple) else (want,)
    if isinstance(value, bool):
        return bool in wants
    return isinstance(value, wants)


def _type_name(want) -> str:
    wants = want if isinstance(want, tuple) else (want,)
    return " / ".join(TYPE_NAMES.get(w, w.__name__) for w in wants)


def check_text(value: str, key: str, line: int, limit: int = MAX_TEXT) -> None:
    if len(value) > limit:
        raise LessonError("too_long", line, field=key, limit=limit)
    if any(ord(ch) < 32 and ch not in "\n\t" for ch in value) or "\u202e" in value or "\u202d" in value:
        raise LessonError("control_chars", line, field=key)
    for tag in TAG.findall(value):
        if tag.replace(" ", "") not in ALLOWED_TAGS:
            raise LessonError("markup", line, field=key)
    if LINK.search(value):
        raise LessonError("link", line, field=key)


def _texts(value, key: str, line: int, params: tuple[str, ...] | None, lines=None) -> dict:
    """A {en, zh} table of texts: both languages, plain text, only {placeholders} the query gives.
    lines(lang): the line of that language's text (default: line)."""
    if not isinstance(value, dict):
        raise LessonError("wrong_type", line, field=key, want=TYPE_NAMES[dict])
    for lang in value:
        if lang not in LANGS:
            raise LessonError("unknown_key", line, field=f"{key}.{lang}")
    for lang in LANGS:
        if lang not in value:
            raise LessonError("missing", line, field=f"{key}.{lang}")
        text = value[lang]
        line = lines(lang) if lines else line
        if not isinstance(text, str):
            raise LessonError("wrong_type", line, field=f"{key}.{lang}", want=TYPE_NAMES[str])
        if not text.strip():
            raise LessonError("missing", line, field=f"{key}.{lang}")
        check_text(text, f"{key}.{lang}", line)
        if params is not None:
            check_placeholders(text, f"{key}.{lang}", line, params)
    return {lang: value[lang] for lang in LANGS}


def check_placeholders(text: str, key: str, line: int, params: tuple[str, ...]) -> None:
    """Only {name} with a name the query gives: no {a.b}, {a[0]}, {a!r} or {a:>99999}."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        raise LessonError("placeholder", line, field=key, name="{") from None
    for _, name, spec, conv in parsed:
        if name is None:
            continue
        if name not in params or spec or conv:
            raise LessonError("placeholder", line, field=key, name=name[:30], known=", ".join(params))


def known_models() -> tuple[str, ...]:
    """The shipped models and the Hugging Face models the operator offers now."""
    import model
    from model import hf, registry

    names = tuple(model.NAMES) + tuple(registry.PACKAGED)  # real pretrained models: known whether installed or not
    try:
        if hf.served():
            names += tuple(hf.PREFIX + n for n in hf.allowed())
    except Exception:  # a broken setting offers no Hugging Face model here
        pass
    return names


def validate(text, untrusted: bool = False) -> Lesson:
    """The lesson in text (str or bytes), or LessonError. untrusted=True (a visitor's upload, a
    lesson a room shares): parsed in a child process with CPU and memory limits
    (lessons/toml_bounds.py); the caller waits for it with its run slot handed back."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise LessonError("too_large", 0, size=len(text), limit=MAX_BYTES)
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise LessonError("not_utf8", 0) from None
    if not isinstance(text, str):
        raise LessonError("not_toml", 0, detail="")
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise LessonError("too_large", 0, size=len(text.encode("utf-8")), limit=MAX_BYTES)
    key = (text, known_models())  # the models a step may name are the rest of what it depends on
    with _VALID_LOCK:
        blob = _VALID.get(key)
        if blob is not None:
            _VALID.move_to_end(key)
    if blob is not None:
        return pickle.loads(blob)  # a copy of its own: no caller changes what another one reads
    lesson = _validated(text, untrusted, key[1])
    with _VALID_LOCK:
        _VALID[key] = pickle.dumps(lesson, protocol=pickle.HIGHEST_PROTOCOL)
        while len(_VALID) > VALID_KEPT:
            _VALID.popitem(last=False)
    return lesson


# Lessons read before, by their text: a page run read the same built-in files several times (the
# lesson menu's titles, each lesson's models, the editor's starting points), 2-4 ms each; the
# lessons page's radio alone spent about 75 ms a run in validate (py-spy, 2026-12-05). Only a valid
# lesson is kept (a broken file is read again, and says why again); a text within MAX_BYTES each.
VALID_KEPT = 32
_VALID: collections.OrderedDict = collections.OrderedDict()
_VALID_LOCK = threading.Lock()


def _validated(text: str, untrusted: bool, models: tuple[str, ...]) -> Lesson:
    try:
        toml_bounds.check(text)  # structure before any parser: tomllib is quadratic in dotted keys
        data = toml_bounds.parse(text) if untrusted else tomllib.loads(text)
    except toml_bounds.Unbounded as e:
        raise LessonError("too_complex" if e.what in ("keys", "parser") else "too_deep", e.line) from None
    except (tomllib.TOMLDecodeError, toml_bounds.ParseError) as e:
        m = re.search(r"line (\d+)", str(e))
        raise LessonError("not_toml", int(m.group(1)) if m else 0, detail=str(e).split(" (at")[0][:120]) from None
    except RecursionError:
        raise LessonError("too_deep", 0) from None
    where = _Where(text)
    if _depth(data) > MAX_DEPTH:
        raise LessonError("too_deep", 0)
    for key, value in data.items():
        if key not in TOP_KEYS:
            raise LessonError("unknown_key", where.line(None, key), field=key[:40])
        if not _type_ok(value, TOP_KEYS[key]):
            raise LessonError("wrong_type", where.line(None, key), field=key, want=_type_name(TOP_KEYS[key]))
    for key in ("id", "title", "step"):
        if key not in data:
            raise LessonError("missing", 1 if key != "step" else len(where.lines), field=key)
    if not ID.match(data["id"]):
        raise LessonError("bad_id", where.line(None, "id"), field="id")
    if data.get("format", 1) != 1:
        raise LessonError("bad_value", where.line(None, "format"), field="format", value=str(data["format"])[:20])
    title = _texts(data["title"], "title", where.line(None, "title"), (), lambda lg: where.line(None, "title", lg))
    for lang in LANGS:
        if len(title[lang]) > 120:
            raise LessonError("too_long", where.line(None, "title"), field=f"title.{lang}", limit=120)
    intro = _texts(data["intro"], "intro", where.line(None, "intro"), ()) if "intro" in data else {}
    steps = data["step"]
    if not steps:
        raise LessonError("no_steps", len(where.lines))
    if len(steps) > MAX_STEPS:
        raise LessonError("too_many_steps", where.line(MAX_STEPS), n=len(steps), limit=MAX_STEPS)
    out, ids = [], set()
    for i, step in enumerate(steps):
        s = validate_step(step, i, where, models)
        sid = s.get("id") or f"{data['id']}.{i + 1}"
        if sid in ids:
            raise LessonError("bad_id", where.line(i, "id"), field=f"step {i + 1}: id")
        ids.add(sid)
        out.append(s)
    return Lesson(data["id"], title, intro, out, text)


def _check(check: dict, n: int, line: int) -> None:
    """A step's `check = { objective = ..., phase = "pre" | "post" }` (lessons/checks.py)."""
    from .checks import OBJECTIVES, PHASES

    if set(check) != {"objective", "phase"} or check["objective"] not in OBJECTIVES or check["phase"] not in PHASES:
        raise LessonError("bad_check", line, step=n, objectives=", ".join(OBJECTIVES), phases=", ".join(PHASES))


def validate_step(step, i: int, where: _Where, models=None) -> dict:
    """One [[step]] table, checked; i is its place (0-based) for the line numbers and messages."""
    n = i + 1
    line = where.line(i)
    if not isinstance(step, dict):
        raise LessonError("wrong_type", line, field=f"step {n}", want=TYPE_NAMES[dict])
    for key, value in step.items():
        if key not in STEP_KEYS:
            raise LessonError("unknown_key", where.line(i, key), field=f"step {n}: {key[:40]}")
        if not _type_ok(value, STEP_KEYS[key]):
            raise LessonError(
                "wrong_type", where.line(i, key), field=f"step {n}: {key}", want=_type_name(STEP_KEYS[key])
            )
    for key in ("model", "sentence", "question", "query", "ask", "reveal"):
        if key not in step:
            raise LessonError("missing", line, field=f"step {n}: {key}")
    if "id" in step and not STEP_ID.match(step["id"]):
        raise LessonError("bad_id", where.line(i, "id"), field=f"step {n}: id")
    models = known_models() if models is None else models
    if step["model"] not in models:
        raise LessonError(
            "unknown_model", where.line(i, "model"), step=n, value=step["model"][:40], known=", ".join(models)
        )
    sentences = step["sentence"] if isinstance(step["sentence"], list) else [step["sentence"]]
    if not sentences or len(sentences) > MAX_SENTENCES:
        raise LessonError(
            "bad_value", where.line(i, "sentence"), field=f"step {n}: sentence", value=str(len(sentences))
        )
    for s in sentences:
        if not isinstance(s, str):
            raise LessonError(
                "wrong_type", where.line(i, "sentence"), field=f"step {n}: sentence", want=TYPE_NAMES[str]
            )
        if not s.strip():
            raise LessonError("missing", where.line(i, "sentence"), field=f"step {n}: sentence")
        check_text(s, f"step {n}: sentence", where.line(i, "sentence"), MAX_SENTENCE)
    q = QUERIES.get(step["query"])
    if q is None:
        raise LessonError(
            "unknown_query", where.line(i, "query"), step=n, value=step["query"][:40], known=", ".join(QUERIES)
        )
    if step["question"] not in question_kinds():
        raise LessonError(
            "bad_value", where.line(i, "question"), field=f"step {n}: question", value=step["question"][:20]
        )
    if step["question"] not in q.questions:
        raise LessonError(
            "wrong_question",
            where.line(i, "question"),
            step=n,
            query=q.name,
            question=step["question"],
            allowed=", ".join(q.questions),
        )
    view = _view(step.get("view", {}), i, where)
    args = _args(step.get("args", {}), q, i, where)
    for key in ("ask", "reveal", "reveal_yes", "reveal_no"):
        if key in step:
            if key.startswith("reveal_") and step["question"] != "yesno":
                raise LessonError("unknown_key", where.line(i, key), field=f"step {n}: {key}")
            _texts(step[key], f"step {n}: {key}", where.line(i, key), q.params, lambda lg, k=key: where.line(i, k, lg))
    show = step.get("show", list(q.shows))
    if len(show) > MAX_LIST or any(not isinstance(x, str) or x not in q.shows for x in show):
        raise LessonError("bad_show", where.line(i, "show"), step=n, known=", ".join(q.shows) or "—")
    if "check" in step:
        _check(step["check"], n, where.line(i, "check"))
    out = {k: step[k] for k in STEP_KEYS if k in step}
    out.update(view=view, args=args, sentence=sentences)
    if "show" in step:
        out["show"] = list(show)
    return out


def _view(view: dict, i: int, where: _Where) -> dict:
    n = i + 1
    for key, value in view.items():
        line = where.line(i, "view", key)
        if key not in VIEW_KEYS:
            raise LessonError("unknown_key", line, field=f"step {n}: view.{key[:40]}")
        if not _type_ok(value, VIEW_KEYS[key]):
            raise LessonError("wrong_type", line, field=f"step {n}: view.{key}", want=_type_name(VIEW_KEYS[key]))
    bad = None
    if "kind" in view and view["kind"] not in KINDS:
        bad = "kind"
    elif isinstance(view.get("layer"), str) and view["layer"] not in ("last", "auto", "any"):
        bad = "layer"
    elif isinstance(view.get("layer"), int) and not 1 <= view["layer"] <= 64:
        bad = "layer"
    elif isinstance(view.get("head"), str) and view["head"] not in HEAD_RULES:
        bad = "head"
    elif isinstance(view.get("head"), int) and not 1 <= view["head"] <= 64:
        bad = "head"
    elif "temperature" in view and not 0.05 <= float(view["temperature"]) <= 20:
        bad = "temperature"
    elif "temperature_layer" in view and not 1 <= view["temperature_layer"] <= 64:
        bad = "temperature_layer"
    elif "page" in view and view["page"] not in linkable():
        bad = "page"
    elif "heads_off" in view and (
        len(view["heads_off"]) > MAX_LIST
        or any(not isinstance(h, str) or not HEAD_OFF.match(h) for h in view["heads_off"])
    ):
        bad = "heads_off"
    if bad:
        raise LessonError(
            "bad_value", where.line(i, "view", bad), field=f"step {n}: view.{bad}", value=str(view[bad])[:40]
        )
    return dict(view)


def _word_table(value: dict, field: str, line: int) -> None:
    """A word argument as a table names one position (issue 37): {word = "the", occurrence = 2}
    (occurrence counted from 1, default 1) or {position = 5} (the token's place, from 1)."""
    keys = set(value)
    if keys == {"position"}:
        pos = value["position"]
        if isinstance(pos, bool) or not isinstance(pos, int) or not 1 <= pos <= 512:
            raise LessonError("bad_value", line, field=f"{field}.position", value=str(pos)[:20])
        return
    if "word" not in keys or not keys <= {"word", "occurrence"}:
        extra = sorted(keys - {"word", "occurrence"})
        if extra:
            raise LessonError("unknown_key", line, field=f"{field}.{extra[0][:40]}")
        raise LessonError("missing", line, field=f"{field}.word")
    if not isinstance(value["word"], str):
        raise LessonError("wrong_type", line, field=f"{field}.word", want=TYPE_NAMES[str])
    check_text(value["word"], f"{field}.word", line, MAX_SENTENCE)
    occ = value.get("occurrence", 1)
    if isinstance(occ, bool) or not isinstance(occ, int) or not 1 <= occ <= 512:
        raise LessonError("bad_value", line, field=f"{field}.occurrence", value=str(occ)[:20])


def _args(args: dict, q, i: int, where: _Where) -> dict:
    n = i + 1
    for key, value in args.items():
        line = where.line(i, "args", key)
        if key not in q.args:
            raise LessonError("unknown_arg", line, step=n, query=q.name, field=key[:40], known=", ".join(q.args) or "—")
        want = q.args[key]
        want = (float, int) if want is float else want
        if not _type_ok(value, want):
            raise LessonError("wrong_type", line, field=f"step {n}: args.{key}", want=_type_name(want))
        if isinstance(value, str):
            check_text(value, f"step {n}: args.{key}", line, MAX_SENTENCE)
        if isinstance(value, dict):
            _word_table(value, f"step {n}: args.{key}", line)
        if isinstance(value, list):
            if len(value) > MAX_LIST or any(not isinstance(x, str) for x in value):
                raise LessonError("bad_value", line, field=f"step {n}: args.{key}", value=str(len(value)))
            for x in value:
                check_text(x, f"step {n}: args.{key}", line, MAX_SENTENCE)
        if isinstance(value, float) and not -1e6 < value < 1e6:
            raise LessonError("bad_value", line, field=f"step {n}: args.{key}", value=str(value)[:20])

    def within(key, lo, hi):  # a number the query takes only in [lo, hi]
        if key in args and not lo <= args[key] <= hi:
            raise LessonError(
                "bad_value", where.line(i, "args", key), field=f"step {n}: args.{key}", value=str(args[key])
            )

    if q.name == "sharpen_sketch":
        sk = args.get("sketches", [])
        if sk and (len(sk) != 3 or sorted(sk) != ["flatter", "same", "sharper"]):
            raise LessonError(
                "bad_value",
                where.line(i, "args", "sketches"),
                field=f"step {n}: args.sketches",
                value=", ".join(sk)[:40],
            )
        if "row" in args and args["row"] != "clearest":
            raise LessonError(
                "bad_value", where.line(i, "args", "row"), field=f"step {n}: args.row", value=args["row"][:40]
            )
        within("temperature", 0.05, 20)
    if q.name == "cell_weight":
        within("step", 0.05, 0.5)
        within("tolerance", 0, 0.5)
    if q.name == "pe_dot":
        for k in ("p", "near", "far"):
            within(k, 0, 512)
    if q.name == "switch_off_changes" and "pick" in args and args["pick"] not in ("most_important", "least_important"):
        raise LessonError(
            "bad_value", where.line(i, "args", "pick"), field=f"step {n}: args.pick", value=args["pick"][:40]
        )
    if q.name == "cells_compare" and "yes_if" in args and args["yes_if"] not in ("same", "different"):
        raise LessonError(
            "bad_value", where.line(i, "args", "yes_if"), field=f"step {n}: args.yes_if", value=args["yes_if"][:40]
        )
    for key in q.required:
        if key not in args:
            raise LessonError("missing", where.line(i, "args"), field=f"step {n}: args.{key}")
    return dict(args)
