"""audit.json: what `chcert audit` found, as typed records (docs/audit.md, audit.json).

Laboratories script against it: its schema, specs/schemas/audit.schema.json, is written
from these records (`python -m harness.audit.model`; a test holds the file equal).
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum, unique
from typing import Any

import msgspec

from harness._schema import SCHEMA_DIR, write_generated
from harness.results.model import StatTest, closed_components
from harness.results.outcomes import Status, Verdict

AUDIT_SCHEMA_VERSION = 1


@unique
class AuditCheck(StrEnum):
    """The audit's checks, as audit.json names them (a finding's `check`)."""

    INTEGRITY = "integrity"
    SETTLEMENT = "settlement"
    CARDS = "cards"
    RETURN = "return"
    DRIFT = "drift"
    LEAK = "leak"
    REGISTER = "register"  # with --register: every build in the log certified


class Example(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A row that shows a finding: where it is, and what the rules owe beside what the
    log says (settlement)."""

    file: str
    row: int  # 1-based in its file (a CSV's header is not a row)
    table: str = ""
    round: str = ""
    seat: int | None = None
    detail: str
    expected: Any = None
    actual: Any = None


class Finding(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One cause: a check, a kind, and where a rule of the game is broken its clause."""

    check: AuditCheck
    kind: str
    detail: str
    clause: str | None = None
    count: int  # rows (a round's integrity faults: one row a round)
    examples: list[Example]
    by_build: dict[str, int] = {}
    by_day: dict[str, int] = {}
    vector: str | None = None  # settlement: a stacked round that replays it, beside audit.json
    reproduce: str | None = None  # the command replaying it against the game


class CheckResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A check's outcome; a statistical one (cards) with its family of tests, their alpha,
    correction and stated power."""

    name: AuditCheck
    status: Status
    rows: int  # the rows it looked at
    findings: int  # its findings' rows (a statistical check: its failed tests)
    reason: str = ""
    alpha: float | None = None  # family-wise
    correction: str = ""
    power: float | None = None  # each test's `detects` is the bias found with this power
    tests: list[StatTest] = []
    too_few: list[str] = []  # tests the counts are too small to read


class Band(msgspec.Struct, frozen=True, kw_only=True):
    """One group's return against the exact mathematics of the decisions its seats took
    (docs/audit.md, Return bands): money in minor units, returns as a share of the stakes."""

    group: str  # stake (the ante), build, channel or currency
    value: str
    seats: int
    staked: int
    returned: int  # as the log says
    rules_returned: int  # as the rules pay the cards dealt
    expected: float  # given the cards each seat saw and its decision
    rtp: float  # returned / staked
    expected_rtp: float
    band_95: tuple[float, float]
    band_99: tuple[float, float]
    outside: str  # "", "95%" or "99%": the narrowest band the log's return is outside of


class Rows(msgspec.Struct, frozen=True, kw_only=True):
    read: int  # every row of the period, malformed ones too
    malformed: int
    judged: int  # rows whose settlement was compared with the rules
    unjudged: int  # well-formed rows whose settlement could not be compared
    void: int
    rounds: int


class Period(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    since: str | None = None  # --from, as asked (UTC)
    until: str | None = None  # --to
    first: str | None = None  # the first and last rows' times read
    last: str | None = None


class Audit(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """audit.json."""

    schema_version: int = AUDIT_SCHEMA_VERSION
    tool: str
    created: str
    profile: str
    profile_sha256: str
    declared: dict[str, Any] | None = None  # the game's hello config, as given
    files: list[str]
    period: Period
    rows: Rows
    checks: list[CheckResult]
    findings: list[Finding]
    bands: list[Band] = []
    verdict: Verdict
    reasons: list[str] = []  # why the verdict is not PASS, in words


def audit_schema() -> dict[str, Any]:
    """The JSON Schema of audit.json, from the records above (closed as they are written)."""
    defs = closed_components(Audit)
    audit = defs.pop("Audit")
    audit["properties"]["schema_version"] = {"const": AUDIT_SCHEMA_VERSION}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "audit.schema.json",
        **{k: v for k, v in audit.items() if k != "title"},
        "title": "audit.json: what one `chcert audit` run found (docs/audit.md)",
        "$defs": defs,
    }


def main(argv: list[str] | None = None) -> int:
    text = json.dumps(audit_schema(), indent=2, ensure_ascii=False) + "\n"
    return write_generated(
        SCHEMA_DIR / "audit.schema.json", text, "python -m harness.audit.model", argv
    )


if __name__ == "__main__":
    sys.exit(main())
