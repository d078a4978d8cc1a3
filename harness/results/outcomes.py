"""One vocabulary for every outcome a run reports (docs/verdict.md).

`Status` is the outcome of anything judged: an item (a vector, a check, a
claimed or published figure), a clause, a section of results.json (rng, math,
the RTP simulation). `Verdict` is the run's: PASS only when everything that
applies was tested and passed, or attested by the laboratory.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum, unique

# The version of results.json this harness writes (specs/schemas/results.schema.json), in
# this light module so that `chcert diff` knows it without the run's machinery.
SCHEMA_VERSION = 8


@unique
class Status(StrEnum):
    """The outcome of an item, a clause or a section (the exact results.json strings)."""

    PASS = "pass"
    FAIL = "fail"
    NOT_TESTED = "not_tested"  # could not run: a capability, a selection, a declaration
    ERROR = "error"  # the harness itself could not judge: never the game's fault
    ATTESTED = "attested"  # not tested here; a laboratory's attestation closes the gap


@unique
class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCOMPLETE = "INCOMPLETE"


# pytest's convention: 4 is a usage error (bad arguments, spec, attestation file, selection).
EXIT_CODES = {Verdict.PASS: 0, Verdict.FAIL: 1, Verdict.INCOMPLETE: 2}
EXIT_USAGE = 4

RANK = {Verdict.PASS: 0, Verdict.INCOMPLETE: 1, Verdict.FAIL: 2}  # worse is higher


def worse(*verdicts: Verdict) -> Verdict:
    """The worst of some verdicts: FAIL over INCOMPLETE over PASS."""
    return max(verdicts, key=RANK.__getitem__, default=Verdict.PASS)


def verdict_of(failed: bool, gaps: bool) -> Verdict:
    """FAIL when anything failed; else INCOMPLETE when anything is untested; else PASS."""
    if failed:
        return Verdict.FAIL
    return Verdict.INCOMPLETE if gaps else Verdict.PASS


def clause_status(items: Iterable[Status], attested: bool = False) -> Status:
    """A clause's status from its items' (docs/verdict.md): FAIL when any failed; PASS
    only when it has items and every one passed; else ATTESTED when the laboratory
    attests it; else NOT_TESTED. The run's results and the report's check of a file's
    verdict both judge by it."""
    statuses = list(items)
    if Status.FAIL in statuses:
        return Status.FAIL
    if statuses and all(s is Status.PASS for s in statuses):
        return Status.PASS
    return Status.ATTESTED if attested else Status.NOT_TESTED
