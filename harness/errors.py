"""The harness's own error types.

One base class, one subclass per kind of failure, each saying what to try next.
An implementation's faults are not errors of the harness: they are recorded as
failed clauses (see results.py).
"""

from __future__ import annotations

from pathlib import Path


class HarnessError(Exception):
    """Base class of every error the harness raises on purpose."""


class SpecError(HarnessError):
    """A spec, profile or vector file is malformed.

    Carries the file and line so the author can fix it; the message names the
    field, the value found and what is allowed.
    """

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class InvalidBet(HarnessError):
    """A wager breaks the table rules (no ante, a non-integer amount, over the limit...)."""


class InvalidCards(HarnessError):
    """Cards that cannot come from one 52-card deck (bad notation, a card twice...)."""


class ErrorReply(HarnessError):
    """An error reply of protocol v1: `{"error": {"code": CODE, "message": TEXT}}`.

    Implementations raise it (a `python:` game may raise any exception with a
    `code` attribute); adapters raise it when the game answers with an error.
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


class ProtocolViolation(HarnessError):
    """The implementation hung, died or answered something that is not protocol v1.

    This is the game's fault: the clause the request exercised fails, with the
    evidence (request, reply, stderr tail) kept in `evidence`.
    """

    def __init__(self, message: str, evidence: dict[str, object] | None = None) -> None:
        self.evidence = evidence or {}
        super().__init__(message)


class Unreachable(HarnessError):
    """The implementation could not be started or reached at all; check the adapter spec."""
