"""The exceptions of the mmds package."""
from __future__ import annotations

from typing import Optional, Sequence


class MmdsError(Exception):
    """mmds did not produce a result: ``message`` is its one-line error
    (``"mmds: …"``), ``code`` its exit status (None when mmds did not run or
    printed something this package does not read), ``args_run`` the command
    line (temporary file names replaced by what they hold)."""

    def __init__(self, message: str, code: Optional[int] = None, args_run: Sequence[str] = ()):
        super().__init__(message)
        self.message = message
        self.code = code
        self.args_run = tuple(args_run)


class InputError(MmdsError, ValueError):
    """Bad input (mmds's exit status 2): a file that cannot be read or
    parsed, a privatizer that does not fit the model, a threshold out of
    range, a module that cannot be exported. Raised before any work; the
    message names the input, the value and what is wanted, in one line."""


# Shown as mmds.MmdsError and mmds.InputError in tracebacks.
MmdsError.__module__ = InputError.__module__ = "mmds"
