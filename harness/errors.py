"""Whose fault it is: every error chcert raises derives from one of three roots.

The verdict rules read the root, never a message (docs/verdict.md):

- `GameFault`: the game broke a rule of the protocol or the game; the clause the request
  exercised fails, with the evidence. A game's fault is never hidden as a harness error.
- `HarnessFault`: chcert could not judge (its own bug, the environment, a game it could not
  reach); the item is an error and the run INCOMPLETE. Never the game's fault.
- `UserError`: what the user gave is wrong (a spec, profile, vector, plan, option or
  file); the command ends with exit 4 before anything is certified, the file and line
  named where there is one.
"""

from __future__ import annotations

from enum import StrEnum, unique
from pathlib import Path


class ChcertError(Exception):
    """Base of the three roots below; nothing is raised as this class itself."""


class GameFault(ChcertError):
    """The game under test broke a rule: the clause being checked fails."""


class HarnessFault(ChcertError):
    """chcert could not judge: an error of the item or the run, never the game's fault."""


class UserError(ChcertError):
    """The user's input is wrong: exit 4, one line saying what to write instead."""


# ------------------------------------------------------------------ the user's


class UsageError(UserError):
    """Bad arguments or input files: exit 4, one line on stderr, nothing certified."""


class SpecError(UserError):
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


class InvalidBet(UserError):
    """A wager breaks the table rules (no ante, a non-integer amount, over the limit...).

    Raised on what the rules oracle or the reference game is given; a check that meets
    it in a game's reply fails the clause instead (CheckFailure).
    """


class InvalidCards(UserError):
    """Cards that cannot come from one 52-card deck (bad notation, a card twice...).

    Raised by the card parser on what it is given; a check that meets it in a game's
    reply fails the clause instead (CheckFailure).
    """


# ------------------------------------------------------------------ the game's


@unique
class Violation(StrEnum):
    """How a game broke protocol v1 (docs/adapter-protocol.md)."""

    NO_REPLY = "no-reply"  # it hung past the timeout
    EXITED = "exited"  # its process ended, or closed the connection
    NOT_JSON = "not-json"  # a reply that is not one strict JSON object
    MALFORMED = "malformed"  # JSON, but not the reply protocol v1 defines for the request
    BAD_SAMPLE = "bad-sample"  # a shuffle that is not a permutation of one deck


class ErrorReply(GameFault):
    """An error reply of protocol v1: `{"error": {"code": CODE, "message": TEXT}}`.

    The game refused. That is its fault where the request was valid; where the rules
    want a refusal, the check that asked catches it and judges its code. Games written
    in Python raise it (a `python:` game may raise any exception with a `code`
    attribute); adapters raise it when the game answers with an error.
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


class ProtocolViolation(GameFault):
    """The game hung, died or answered something that is not protocol v1.

    The clause the request exercised fails, with the evidence (request, reply, stderr
    tail) kept in `evidence`, the violation's kind in `kind`, the request's op in `op`
    and what is wrong, without the op, in `detail`.
    """

    def __init__(
        self,
        message: str,
        evidence: dict[str, object] | None = None,
        *,
        kind: Violation = Violation.MALFORMED,
        op: str | None = None,
        detail: str | None = None,
    ) -> None:
        self.evidence = evidence or {}
        self.kind = kind
        self.op = op
        self.detail = message if detail is None else detail
        super().__init__(message)

    def ok_body(self) -> dict[str, object] | None:
        """The `ok` object of the reply the violation is about, when it has one."""
        reply = self.evidence.get("reply")
        body = reply.get("ok") if isinstance(reply, dict) else None
        return body if isinstance(body, dict) else None

    def request_param(self, name: str) -> object:
        """A parameter of the request the violation answered, as sent."""
        request = self.evidence.get("request")
        return request.get(name) if isinstance(request, dict) else None


# ------------------------------------------------------------------ the harness's


class Unreachable(HarnessFault):
    """The game could not be started or reached at all: nothing about it was judged
    (check the adapter spec; the game's stderr is kept)."""
