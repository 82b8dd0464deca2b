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
