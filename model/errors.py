"""Errors a user can cause, each with a one-line message and a code the app translates."""

import os
from pathlib import Path


class InputError(ValueError):
    """Bad input from a user: shown as one line, never as a traceback."""

    def __init__(self, code: str, message: str, **params):
        super().__init__(message)
        self.code, self.params = code, params


class ModelFileError(RuntimeError):
    """A shipped file is missing or unreadable; the message names the file and how to rebuild it.

    str(e) (the CLI, for the machine's owner) has the full path; ``e.path`` is what a visitor may
    see: the path inside the project (model/weights/gpt.json) or, for a weights folder elsewhere
    (ATTN_WEIGHTS_DIR), the file's name inside that folder, never the server's absolute path."""

    def __init__(self, path, rebuild: str, reason: str = "missing"):
        super().__init__(f"{path} is {reason}; rebuild it with: {rebuild}")
        self.full_path, self.rebuild, self.reason = str(path), rebuild, reason
        self.path = shown_path(path)


_ROOT = Path(__file__).resolve().parent.parent


def shown_path(path) -> str:
    """A file's path as a visitor may see it: relative to the project, else to the weights folder
    (ATTN_WEIGHTS_DIR), else only its name."""
    p = Path(path)
    bases = [_ROOT]
    if os.environ.get("ATTN_WEIGHTS_DIR"):
        bases.append(Path(os.environ["ATTN_WEIGHTS_DIR"]))
    for base in bases:
        try:
            return p.resolve().relative_to(base.resolve()).as_posix()
        except (ValueError, OSError, RuntimeError):
            continue
    return p.name


class Notice(str):
    """A one-line notice that reads as plain English text (the CLI prints it as is) and carries a
    code and its values, so the app can show it in the reader's language."""

    def __new__(cls, code: str, message: str, **params):
        self = super().__new__(cls, message)
        self.code, self.params = code, params
        return self

    def __reduce__(self):  # the app's trace cache pickles traces, notices included
        return _notice, (self.code, str(self), self.params)


def _notice(code: str, message: str, params: dict) -> Notice:
    return Notice(code, message, **params)
