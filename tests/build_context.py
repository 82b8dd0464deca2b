"""The image's files, as Docker would make them: .dockerignore read with Docker's own rules, the
build context copied, the Dockerfile's instructions read, and the files the app reads at run time.

Used by tests/test_image.py (the image's contents checked without a container engine, which this
machine does not have to hand) and scripts/build-image.

Docker's rules (github.com/moby/patternmatcher, the matcher `docker build` and BuildKit use; the
format in docs.docker.com "Dockerfile reference: .dockerignore file"):
- one pattern a line; a line starting with # is a comment; blank lines and surrounding spaces go;
- a pattern is cleaned like Go's filepath.Clean ("./a//b/" -> "a/b") and a leading "/" dropped,
  so every pattern is relative to the context's root (unlike .gitignore, "foo" does not match
  "a/foo");
- "*" is any run of characters but "/", "?" one character but "/", [...] a class, "\\" escapes;
  "**" any number of directories (even none);
- a path is ignored when a pattern matches it or one of its parent directories;
- "!" makes a pattern an exception (include again); the last pattern that matches wins.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLING = ("bench", "drive", "tests")  # packages beside the app, kept out of the image


@dataclass(frozen=True)
class Pattern:
    text: str  # cleaned, without the "!"
    exception: bool
    regex: re.Pattern


def _clean(p: str) -> str:
    """Go's filepath.Clean for slash paths: no empty, "." or trailing parts; ".." folded."""
    rooted = p.startswith("/")
    out: list[str] = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and out and out[-1] != "..":
            out.pop()
        elif part == ".." and rooted:
            continue
        else:
            out.append(part)
    s = ("/" if rooted else "") + "/".join(out)
    return s or ("/" if rooted else ".")


def _compile(p: str) -> re.Pattern:
    """moby/patternmatcher's Pattern.compile, its exact / prefix / suffix shortcuts written as the
    regular expressions they amount to."""
    out, i, n = "^", 0, len(p)
    kind = "exact"
    while i < n:
        ch = p[i]
        if ch == "*" and i + 1 < n and p[i + 1] == "*":
            at_start = i == 0
            i += 2
            if i < n and p[i] == "/":  # "**/" is "**"
                i += 1
            if i >= n:  # trailing "**": everything below (.gitignore's meaning)
                out += ".*"
                kind = "prefix" if kind == "exact" else "regex"
            else:
                out += "(.*/)?"
                kind = "regex"
            if at_start:
                # a leading "**" (Docker's suffix match, until a later wildcard makes it a regex):
                # "**foo" is any path ending in "foo", and "**/foo" also "foo" itself
                kind = "suffix"
            continue
        if ch == "*":
            out += "[^/]*"
            kind = "regex"
        elif ch == "?":
            out += "[^/]"
            kind = "regex"
        elif ch == "\\":
            if i + 1 < n:
                i += 1
                out += re.escape(p[i])
                kind = "regex"
            else:
                out += "\\\\"
        elif ch in "[]":
            out += ch
            kind = "regex"
        elif ch in ".+()|{}$":  # escaped as moby's shouldEscape does (not "^": Go passes it on)
            out += "\\" + ch
        else:
            out += ch
        i += 1
    if kind == "prefix":  # strings.HasPrefix(path, pattern without its "**")
        return re.compile("^" + re.escape(p[:-2]))
    if kind == "suffix":  # strings.HasSuffix(path, pattern without its "**"), or "**/foo" == "foo"
        suffix = p[2:]
        extra = "|^" + re.escape(suffix[1:]) + "$" if suffix.startswith("/") else ""
        return re.compile(re.escape(suffix) + "$" + extra)
    return re.compile(out + "$")


def patterns(text: str) -> list[Pattern]:
    """A .dockerignore's patterns, in order (BuildKit's dockerignore.ReadAll, then the matcher)."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        exception = line.startswith("!")
        if exception:
            line = line[1:].strip()
        if not line:
            raise ValueError('illegal exclusion pattern: "!"')
        line = _clean(line)
        if len(line) > 1 and line.startswith("/"):
            line = line[1:]
        out.append(Pattern(line, exception, _compile(line)))
    return out


def ignored(path: str, pats: list[Pattern]) -> bool:
    """Whether Docker leaves PATH (relative, with "/") out of the context: moby/patternmatcher's
    MatchesOrParentMatches (a pattern matching a parent directory matches the path too)."""
    path = _clean(path)
    parents = path.split("/")[:-1]
    matched = False
    for p in pats:
        if p.exception != matched:  # an include that already matched, or an exception with nothing to undo
            continue
        hit = bool(p.regex.search(path))
        if not hit:
            hit = any(p.regex.search("/".join(parents[: i + 1])) for i in range(len(parents)))
        if hit:
            matched = not p.exception
    return matched


def _may_reinclude(directory: str, pats: list[Pattern]) -> bool:
    """Whether an exception pattern could take back a path under an ignored DIRECTORY, so the walk
    must look inside it (as BuildKit's walker does), rather than skip it whole."""
    for p in pats:
        if not p.exception:
            continue
        fixed = re.split(r"[*?\[\\]", p.text, maxsplit=1)[0]  # the pattern's literal start
        if "**" in p.text or fixed.startswith(directory + "/") or (directory + "/").startswith(fixed):
            return True
    return False


def context_files(root: Path = ROOT, dockerignore: str | None = None) -> list[str]:
    """Every file and symlink Docker would send from ROOT (relative paths, sorted), with ROOT's
    .dockerignore or the text given. Symlinks are sent as links and never followed, as Docker does."""
    pats = patterns((root / ".dockerignore").read_text() if dockerignore is None else dockerignore)
    out = []
    for here, dirs, files in os.walk(root):
        rel = Path(here).relative_to(root).as_posix()
        rel = "" if rel == "." else rel + "/"
        keep = []
        for d in sorted(dirs):
            full = Path(here) / d
            if full.is_symlink():
                files.append(d)
            elif not ignored(rel + d, pats) or _may_reinclude(rel + d, pats):
                keep.append(d)
        dirs[:] = keep
        out += [rel + f for f in files if not ignored(rel + f, pats)]
    return sorted(out)


def copy_context(dest: Path, root: Path = ROOT, dockerignore: str | None = None) -> list[str]:
    """COPY . DEST: the context's files copied to DEST (links as links); returns their paths."""
    files = context_files(root, dockerignore)
    for rel in files:
        src, dst = root / rel, dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
    return files


# -- the Dockerfile ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Instruction:
    name: str  # upper case: FROM, ENV, RUN, WORKDIR, COPY, USER, EXPOSE, HEALTHCHECK, CMD
    args: str  # the rest of the instruction, continuations joined


def dockerfile(path: Path = ROOT / "Dockerfile") -> list[Instruction]:
    """The Dockerfile's instructions, in order. A line ending in "\\" continues on the next; comment
    lines are dropped, also inside a continuation (Docker does both)."""
    out, buf = [], ""
    for line in path.read_text().splitlines():
        if line.strip().startswith("#") or (not line.strip() and not buf):
            continue
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        full = (buf + line).strip()
        buf = ""
        if full:
            name, _, rest = full.partition(" ")
            out.append(Instruction(name.upper(), rest.strip()))
    return out


def env_of(instructions: list[Instruction]) -> dict[str, str]:
    """Every ENV's variables (KEY=VALUE form; the old "ENV KEY VALUE" form too)."""
    env: dict[str, str] = {}
    for ins in instructions:
        if ins.name != "ENV":
            continue
        words = shlex.split(ins.args)
        if words and "=" not in words[0]:
            env[words[0]] = " ".join(words[1:])
            continue
        for w in words:
            k, _, v = w.partition("=")
            env[k] = v
    return env


def exec_form(args: str) -> list[str]:
    """CMD / HEALTHCHECK CMD's JSON form as a list, or the shell form as sh -c."""
    args = args.strip()
    if args.startswith("["):
        return json.loads(args)
    return ["/bin/sh", "-c", args]


def healthcheck(instructions: list[Instruction]) -> list[str]:
    """HEALTHCHECK's command (its options, such as --interval, dropped)."""
    for ins in instructions:
        if ins.name == "HEALTHCHECK":
            _, _, cmd = ins.args.partition("CMD")
            return exec_form(cmd)
    raise LookupError("the Dockerfile has no HEALTHCHECK")


# -- what the app reads at run time -----------------------------------------------------------------
def app_reads(root: Path = ROOT) -> dict[str, list[str]]:
    """{what: [relative paths]}: every file the running app opens, from the app's own constants
    (where each module looks), so a file moved in the code moves here too. Importing these pulls in
    torch: call it once."""
    from analysis import cost
    from lessons import files as lesson_files
    from model import registry, snapshots, tokenizer
    from ui import i18n, run

    def rel(paths) -> list[str]:
        return sorted(Path(p).resolve().relative_to(root.resolve()).as_posix() for p in paths)

    shipped = registry.WEIGHTS_DIR  # the image's (ATTN_WEIGHTS_DIR unset)
    weights = [p for name in registry.NAMES for p in registry.paths(name, shipped)] + [tokenizer.DEFAULT_PATH]
    for name in registry.NAMES:  # the timeline page's snapshots, where a model has them
        index = snapshots.index_path(name, shipped)
        if index.exists():
            weights += [index, *sorted(index.parent.glob("*.safetensors"))]
    # the Python the app runs: app.py and every package it is made of; bench/, drive/ and tests/
    # are the tools around it (nothing the app imports imports them: tests/test_architecture.py)
    packages = sorted(p.parent.name for p in root.glob("*/__init__.py") if p.parent.name not in TOOLING)
    code = [root / "app.py"] + [
        p for pkg in packages for p in (root / pkg).rglob("*.py") if "__pycache__" not in p.parts
    ]
    return {
        "code": rel(code),
        "pages": rel(run._PAGES_DIR.glob("*.py")),
        "config": rel([root / ".streamlit" / "config.toml"]),
        "strings": rel(i18n.STRINGS_DIR.glob("*.toml")),
        "lessons": rel(lesson_files.BUILTIN_DIR.glob("*.toml")),
        "weights": rel(weights),
        "data": rel([cost.BENCH_FILE]),
        "build": ["requirements.txt"],  # COPY requirements.txt . (the Dockerfile's pip install -r)
    }


def missing(reads: dict[str, list[str]], files: list[str]) -> dict[str, list[str]]:
    """{what: [paths]} of the files read that the context lacks (empty when none)."""
    have = set(files)
    out = {k: [p for p in v if p not in have] for k, v in reads.items()}
    return {k: v for k, v in out.items() if v}
