"""A lesson file from a visitor, read safely: its structure bounded before any parser sees it, and
parsed in a child process with CPU and memory limits.

Why both. Python's tomllib is quadratic in a key's dotted parts (`a.a.a...` 32,000 parts, a 64 KB
file, took 12 s of CPU and 3.9 GB), and a byte limit does not bound that: structure does. So
`check()` scans the text once, as a TOML lexer would (strings, comments, brackets), and refuses a
line whose unquoted dots could make a key of more than MAX_KEY_PARTS parts, more than MAX_KEYS
keys, or brackets nested deeper than MAX_NESTING, before parsing. Then `parse()` runs tomllib in a
child process under RLIMIT_CPU and RLIMIT_AS, so a parser cost we have not thought of costs the
child, not the server that serves the class; the caller waits for it with its run slot handed back
(ui/editor.py, ui.slots.released).
"""

from __future__ import annotations

import json
import subprocess
import sys

MAX_KEY_PARTS = 16  # a lesson's deepest key is step.view.x (schema.MAX_DEPTH 6): 16 is generous
MAX_KEYS = 3_000  # "=" outside strings: 30 steps of about 30 keys, translations included, is 900
MAX_NESTING = 10  # [ and { open at once outside strings ([[step]] is 2)
CHILD_CPU_S = 2  # seconds of CPU the parsing child may use
CHILD_MEMORY = 512 * 2**20  # its address space: the interpreter (about 30 MB) and a 64 KB file's tables
CHILD_TIMEOUT_S = 5.0  # wall clock, for a machine busy with the class


class Unbounded(ValueError):
    """The text's structure passes a bound: `what` is "key_parts", "keys", "nesting" or "parser"
    (the child ran out of CPU or memory, or did not answer), `line` 1-based (0: the whole file)."""

    def __init__(self, what: str, line: int = 0):
        super().__init__(f"{what} at line {line}")
        self.what = what
        self.line = line


def check(text: str) -> None:
    """Unbounded if the text's structure passes a bound; linear in the text, never recursive."""
    i, n, line = 0, len(text), 1
    depth, keys, dots = 0, 0, 0  # dots: unquoted "." on this line
    while i < n:
        c = text[i]
        if c == "\n":
            line, dots = line + 1, 0
        elif c == "#":  # a comment, to the end of the line
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c in "\"'":
            i, line = _skip_string(text, i, line)
            continue
        elif c in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise Unbounded("nesting", line)
        elif c in "]}":
            depth = max(0, depth - 1)
        elif c == "=":
            keys += 1
            if keys > MAX_KEYS:
                raise Unbounded("keys", line)
        elif c == ".":
            # a key cannot span lines in TOML, so a line's unquoted dots bound its keys' parts (a
            # float's dot counts too: a line of 16 floats is no lesson's either)
            dots += 1
            if dots >= MAX_KEY_PARTS:
                raise Unbounded("key_parts", line)
        i += 1


def _skip_string(text: str, i: int, line: int) -> tuple[int, int]:
    """The index after the string that starts at i, and the line it ends on. An unterminated
    string runs to the end of its line (one-line) or of the text (multi-line): tomllib reports it."""
    q = text[i]
    if text.startswith(q * 3, i):  # multi-line: """ or '''
        j = i + 3
        while True:
            k = text.find(q * 3, j)
            if k < 0:
                return len(text), line + text.count("\n", i)
            if q == '"' and _escaped(text, k, i + 3):
                j = k + 1
                continue
            while text.startswith(q, k + 3):  # up to two quotes may end the string's content
                k += 1
            return k + 3, line + text.count("\n", i, k)
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if text[j] == "\\" and q == '"':
            j += 2
            continue
        if text[j] == q:
            return j + 1, line
        j += 1
    return j, line


def _escaped(text: str, k: int, start: int) -> bool:
    """An odd number of backslashes right before text[k]."""
    b = 0
    while k - 1 - b >= start and text[k - 1 - b] == "\\":
        b += 1
    return b % 2 == 1


_CHILD = r"""
import datetime, json, resource, sys, tomllib
cpu, memory = (int(x) for x in sys.argv[1:3])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
def plain(v):
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, (datetime.date, datetime.time)):
        raise TypeError("a date or time")
    if isinstance(v, float) and v != v:
        return {"__nan__": True}
    return v
try:
    out = {"ok": plain(tomllib.loads(sys.stdin.read()))}
except tomllib.TOMLDecodeError as e:
    out = {"error": str(e)}
except (TypeError, RecursionError) as e:
    out = {"error": "not a lesson's value: " + str(e)}
sys.stdout.write(json.dumps(out, allow_nan=True))
"""


class ParseError(ValueError):
    """tomllib's own message, as the child reported it."""


def parse(text: str) -> dict:
    """tomllib.loads(text) in a child process with CPU and memory limits, after check(). A date or
    time value (no lesson has one) is a ParseError; so is tomllib's TOMLDecodeError."""
    check(text)
    try:
        done = subprocess.run(
            # isolated (-I -S: no site, no user paths), its limits set by itself as it starts (a
            # preexec_fn is not safe in a threaded server)
            [sys.executable, "-I", "-S", "-c", _CHILD, str(CHILD_CPU_S), str(CHILD_MEMORY)],
            input=text.encode("utf-8"),
            capture_output=True,
            timeout=CHILD_TIMEOUT_S,
            env={},
        )
    except subprocess.TimeoutExpired:
        raise Unbounded("parser") from None
    if done.returncode != 0:
        raise Unbounded("parser")  # killed by RLIMIT_CPU (SIGXCPU) or out of memory
    out = json.loads(done.stdout, object_hook=lambda d: float("nan") if d == {"__nan__": True} else d)
    if "error" in out:
        raise ParseError(out["error"])
    return out["ok"]
