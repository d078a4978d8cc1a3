"""The register's typed records: what leaves the package, for the command line, the
lookup page and the tests (docs/register.md). Words are made at those edges."""

from __future__ import annotations

from enum import StrEnum
from typing import Any
from urllib.parse import quote

import msgspec

ENTRY_PATH = "/certificates/"  # the lookup page's address of one entry: ENTRY_PATH + number


def entry_url(address: str, number: str) -> str:
    """Where the register's lookup page shows the entry `number` (the certificate page's
    QR code): `chcert register serve` answers it."""
    return address.rstrip("/") + ENTRY_PATH + quote(number, safe="")


class Kind(StrEnum):
    """What a numbered report is in the register."""

    CERTIFICATE = "certificate"  # a signed PASS, with its build named and its signer trusted
    TEST_RECORD = "test record"  # anything else: a FAIL, INCOMPLETE, or an unsigned PASS


class Status(StrEnum):
    """A certificate's status, read from its events (never from a column)."""

    ISSUED = "issued"
    SUPERSEDED = "superseded"
    WITHDRAWN = "withdrawn"
    REVOKED = "revoked"
    EXPIRED = "expired"
    RECORDED = "recorded"  # a test record's only status


class EventKind(StrEnum):
    """The events of the history, each appended, never changed (docs/register.md)."""

    CREATED = "created"  # the register itself
    TRUSTED = "trusted"  # a signing certificate the register trusts
    ALLOCATED = "allocated"  # a report number, before its report is drawn
    ISSUED = "issued"  # a certificate recorded
    RECORDED = "recorded"  # a test record recorded
    SUPERSEDED = "superseded"
    WITHDRAWN = "withdrawn"
    REVOKED = "revoked"
    EXPIRED = "expired"
    AUDITED = "audited"  # a production audit of a log, and what it found of each build


# The status each status event gives, and the statuses it may follow.
STATUS_OF = {
    EventKind.ISSUED: Status.ISSUED,
    EventKind.RECORDED: Status.RECORDED,
    EventKind.SUPERSEDED: Status.SUPERSEDED,
    EventKind.WITHDRAWN: Status.WITHDRAWN,
    EventKind.REVOKED: Status.REVOKED,
    EventKind.EXPIRED: Status.EXPIRED,
}
ALLOWED_FROM = {
    EventKind.SUPERSEDED: frozenset({Status.ISSUED}),
    EventKind.WITHDRAWN: frozenset({Status.ISSUED}),
    EventKind.EXPIRED: frozenset({Status.ISSUED}),
    # a certificate found unsound is revoked whatever became of it since
    EventKind.REVOKED: frozenset(
        {Status.ISSUED, Status.SUPERSEDED, Status.WITHDRAWN, Status.EXPIRED}
    ),
}


class Artifact(msgspec.Struct, frozen=True, kw_only=True):
    """A file of the build certified, as the report's results.json hashed it."""

    name: str
    sha256: str
    bytes: int


class Record(msgspec.Struct, frozen=True, kw_only=True):
    """One numbered report as the register keeps it: every field read from the report
    and its attached results.json (harness/register/reports.py), none typed by hand."""

    number: str
    kind: Kind
    verdict: str
    why_not_certificate: str  # empty for a certificate
    report_id: str
    profile: str
    profile_sha256: str
    build_sha256: str | None  # the first artifact: the build submitted
    game: str  # the game's name and version, as its hello gave them
    report_sha256: str
    results_sha256: str
    signer: str | None
    signed_at: str | None
    laboratory: str | None
    finished: str  # when the run ended (results.json manifest)
    artifacts: tuple[Artifact, ...] = ()

    def canonical(self) -> dict[str, Any]:
        """The record as hashed into its event: every field, plain JSON values."""
        return msgspec.to_builtins(self)  # type: ignore[no-any-return]


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """One appended event; `hash` covers every other field and the previous hash."""

    seq: int
    kind: EventKind
    number: str | None
    at: str
    by: str
    reason: str
    detail: dict[str, Any]
    prev: str
    hash: str


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One numbered report with its current status (`register list --json`, the page)."""

    number: str
    kind: Kind
    status: Status
    verdict: str
    build_sha256: str | None
    report_sha256: str
    results_sha256: str
    profile: str
    profile_sha256: str
    game: str
    signer: str | None
    laboratory: str | None
    issued: str  # when the register recorded it
    supersedes: str | None
    superseded_by: str | None
    why_not_certificate: str
    artifacts: tuple[Artifact, ...] = ()
    history: tuple[Event, ...] = ()


class Problem(msgspec.Struct, frozen=True, kw_only=True):
    """Something `register check` found: where (an event's seq or a report number) and what."""

    where: str
    what: str


class Head(msgspec.Struct, frozen=True, kw_only=True):
    """The chain's head: its last event's seq and hash. Kept outside the database (printed
    by every change, written by export), it shows a history cut short."""

    seq: int
    hash: str


class Coverage(StrEnum):
    """What the register says of a build met in a round log (docs/register.md#audits)."""

    CERTIFIED = "certified"  # an issued certificate, under the profile the log was audited
    OTHER_PROFILE = "other-profile"  # issued, but under another profile
    SUPERSEDED = "superseded"
    WITHDRAWN = "withdrawn"
    REVOKED = "revoked"
    EXPIRED = "expired"
    UNCERTIFIED = "uncertified"  # no certificate names it


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """One build's standing in the register, for the profile an audit ran under: the
    certificate that decides it (None for an uncertified build)."""

    build: str
    coverage: Coverage
    number: str | None = None
    profile: str | None = None  # that certificate's profile
    superseded_by: str | None = None
