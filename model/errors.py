"""Errors a user can cause, each with a one-line message and a code the app translates."""


class InputError(ValueError):
    """Bad input from a user: shown as one line, never as a traceback."""

    def __init__(self, code: str, message: str, **params):
        super().__init__(message)
        self.code, self.params = code, params


class ModelFileError(RuntimeError):
    """A shipped file is missing or unreadable; the message names the file and how to rebuild it."""

    def __init__(self, path, rebuild: str, reason: str = "missing"):
        super().__init__(f"{path} is {reason}; rebuild it with: {rebuild}")
        self.path, self.rebuild, self.reason = str(path), rebuild, reason


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
