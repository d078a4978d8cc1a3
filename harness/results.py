"""Contract 3: results.json, built from the outcome records of one run.

The verdict is PASS when the run completed and every clause that was tested
passed; FAIL when any clause failed; INCOMPLETE when the run could not finish
(interrupted, the implementation unreachable, an error inside the harness) and
nothing failed. A clause without a test for lack of a capability is listed as
not_tested and does not change the verdict by itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum, unique
from pathlib import Path
from typing import Any

from harness import __version__
from harness.profiles import Profile
from harness.specs import Catalog, Clause

ROOT = Path(__file__).resolve().parent.parent


@unique
class Status(StrEnum):
    """The outcome of one item (a vector or a check), and of a clause."""

    PASS = "pass"
    FAIL = "fail"
    NOT_TESTED = "not_tested"
    ERROR = "error"  # the harness itself could not judge: makes the run INCOMPLETE


@unique
class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCOMPLETE = "INCOMPLETE"


EXIT_CODES = {Verdict.PASS: 0, Verdict.FAIL: 1, Verdict.INCOMPLETE: 2}


@dataclass
class Record:
    """One item's outcome, as it crosses from an xdist worker to the controller."""

    node: str
    clause: str
    kind: str  # "vector" | "check"
    name: str
    status: Status
    message: str = ""
    expected: Any = None
    actual: Any = None
    evidence: dict[str, Any] = field(default_factory=dict)
    protocol_fault: bool = False
    reproduce: str = ""

    def to_json(self) -> str:
        # Every item's record is serialised: a plain dict beats dataclasses.asdict here.
        return json.dumps({**self.__dict__, "status": self.status.value}, default=str)

    @classmethod
    def from_json(cls, text: str) -> Record:
        data = json.loads(text)
        data["status"] = Status(data["status"])
        return cls(**data)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def tree_sha256(root: Path) -> str:
    """One digest of every file under a folder: relative paths and contents, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def clause_status(
    clause: Clause, records: list[Record], claims: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A clause's row in the traceability matrix; a claim clause takes the math's verdict."""
    mine = [r for r in records if r.clause == clause.id]
    vectors = [r for r in mine if r.kind == "vector"]
    failed = [r.name for r in mine if r.status is Status.FAIL]
    passed = [r for r in mine if r.status is Status.PASS]
    errors = [r for r in mine if r.status is Status.ERROR]
    notes: list[str] = []
    claim = next((c for c in claims or [] if c["figure"] == clause.claim), None)
    if claim is not None and claim["status"] != "not_computed":
        confirmed = claim["status"] == "confirmed"
        notes.append(f"claimed {claim['claimed']}, computed {claim['computed']:.6f}")
        return _row(
            clause,
            Status.PASS if confirmed else Status.FAIL,
            0,
            0,
            [] if confirmed else [clause.claim or ""],
            notes,
            mine,
        )
    untested = sorted({f"{r.name}: {r.message}" for r in mine if r.status is Status.NOT_TESTED})
    if failed:
        status = Status.FAIL
    elif passed and not errors:
        status = Status.PASS
        notes += [f"not tested: {u}" for u in untested]  # passed on what could run
    else:
        status = Status.NOT_TESTED
        reasons = sorted({r.message for r in mine if r.status in (Status.NOT_TESTED, Status.ERROR)})
        notes += reasons or ["no vector or check ran"]
    if "math" in clause.verification:
        notes.append("no claimed figure checked: the profile claims none, or the math failed")
    if "manual" in clause.verification:
        notes.append("manual review by the laboratory")
    return _row(clause, status, len(vectors), len(passed), failed, notes, mine)


def _row(
    clause: Clause,
    status: Status,
    vectors: int,
    passed: int,
    failed: list[str],
    notes: list[str],
    records: list[Record],
) -> dict[str, Any]:
    return {
        "id": clause.id,
        "title": clause.title,
        "statement": clause.statement,
        "category": clause.category,
        "severity": clause.severity,
        "sources": clause.sources,
        "interpretation": clause.interpretation,
        "status": status.value,
        "vectors": vectors,
        "checks": len(records) - vectors,
        "passed": passed,
        "failed": failed,
        "notes": notes,
    }


def missing_capabilities(profile: Profile, implementation: dict[str, Any] | None) -> list[str]:
    """Capabilities the profile requires (a jurisdiction's demand) that the game lacks."""
    declared = (implementation or {}).get("capabilities")
    have = set(declared) if isinstance(declared, list) else set()
    return [c for c in profile.required_capabilities if c not in have]


def _check_record(records: list[Record], name: str) -> Record | None:
    return next((r for r in records if r.kind == "check" and r.name == name), None)


def _rng_section(records: list[Record]) -> dict[str, Any]:
    """The deck battery's table, from the rng-battery check's record (contract 3 `rng`)."""
    r = _check_record(records, "rng-battery")
    if r is None:
        reason = "no clause of this profile's catalogs is verified by the RNG battery"
        return {"status": "not_tested", "reason": reason, "decks": 0, "tests": [], "passed": None}
    battery = r.evidence.get("rng")
    if isinstance(battery, dict):
        return {"status": "pass" if battery.get("passed") else "fail", **battery}
    return {"status": r.status.value, "reason": r.message, "decks": 0, "tests": [], "passed": None}


def _math_section(math: dict[str, Any], records: list[Record]) -> dict[str, Any]:
    """The exact figures, with the RTP simulation's findings from its check's record."""
    r = _check_record(records, "rtp-simulation")
    if r is None:
        reason = "no clause of this profile's catalogs is verified by the RTP simulation"
        return {**math, "simulation": {"status": "not_tested", "reason": reason}}
    found = r.evidence.get("simulation")
    if isinstance(found, dict):
        return {**math, "simulation": {"status": r.status.value, **found}}
    return {**math, "simulation": {"status": r.status.value, "reason": r.message}}


def _record_failure(r: Record) -> dict[str, Any]:
    return {
        "vector": r.name if r.kind == "vector" else None,
        "check": r.name if r.kind == "check" else None,
        "node": r.node,
        "clause": r.clause,
        "expected": r.expected,
        "actual": r.actual,
        "message": r.message,
        "evidence": r.evidence,
        "reproduce": r.reproduce,
    }


def _capability_failure(
    profile: Profile, implementation: dict[str, Any] | None, missing: list[str]
) -> dict[str, Any]:
    return {
        "vector": None,
        "check": "required-capabilities",
        "node": None,
        "clause": None,
        "expected": list(profile.required_capabilities),
        "actual": (implementation or {}).get("capabilities"),
        "message": f"profile {profile.name} requires capabilities {', '.join(missing)}",
        "evidence": {},
        "reproduce": "",
    }


def build_results(
    *,
    profile: Profile,
    catalogs: list[Catalog],
    implementation: dict[str, Any] | None,
    adapter: str,
    records: list[Record],
    incomplete: str | None,
    started: str,
    seed: int,
    math: dict[str, Any],
) -> dict[str, Any]:
    """Assemble results.json from the run's records and the profile's mathematics (contract 3)."""
    clauses = [c for cat in catalogs for c in cat.for_profile(profile.name)]
    rows = [clause_status(c, records, math.get("claims", [])) for c in clauses]
    known = {c.id for c in clauses}
    orphans = [r for r in records if r.clause not in known]
    vectors = [r for r in records if r.kind == "vector"]
    harness_errors = [r for r in records if r.status is Status.ERROR]
    any_fail = any(row["status"] == Status.FAIL for row in rows) or any(
        r.status is Status.FAIL for r in orphans
    )
    missing = missing_capabilities(profile, implementation)
    failures = [_record_failure(r) for r in records if r.status is Status.FAIL]
    if missing:
        failures.insert(0, _capability_failure(profile, implementation, missing))
    any_fail = any_fail or bool(missing)
    reasons = [incomplete] if incomplete else []
    reasons += [f"{r.node}: {r.message}" for r in harness_errors]
    if math.get("status") == "error":  # claims and figures could not be checked
        reasons.append(f"game mathematics failed: {math.get('reason')}")
    if any_fail:
        verdict = Verdict.FAIL
    elif reasons:
        verdict = Verdict.INCOMPLETE
    else:
        verdict = Verdict.PASS
    return {
        "verdict": verdict.value,
        "incomplete_reasons": reasons,
        "implementation": implementation,
        "adapter": adapter,
        "profile": {"name": profile.name, "title": profile.title, "resolved": profile.raw},
        "clauses": rows,
        "vectors": {
            "total": len(vectors),
            "passed": sum(r.status is Status.PASS for r in vectors),
            "failed": sum(r.status is Status.FAIL and not r.protocol_fault for r in vectors),
            "errors": sum(r.protocol_fault or r.status is Status.ERROR for r in vectors),
            "not_tested": sum(r.status is Status.NOT_TESTED for r in vectors),
        },
        "capabilities": {
            "declared": (implementation or {}).get("capabilities"),
            "required_by_profile": list(profile.required_capabilities),
            "missing_required": missing,
        },
        "failures": failures,
        "protocol": {
            "checks": [
                {"name": r.name, "clause": r.clause, "status": r.status.value, "message": r.message}
                for r in records
                if r.kind == "check"
            ]
        },
        "rng": _rng_section(records),
        "math": _math_section(math, records),
        "out_of_scope": [
            {"catalog": cat.name, "source": cat.source_file, "ref": ref, "reason": reason}
            for cat in catalogs
            for ref, reason in cat.out_of_scope
        ],
        "manifest": {
            "harness_version": __version__,
            "profile_sha256": hashlib.sha256(profile.path.read_bytes()).hexdigest(),
            "spec_sha256": tree_sha256(ROOT / "specs"),
            "vectors_sha256": tree_sha256(ROOT / "vectors"),
            "started": started,
            "finished": now(),
            "seed": seed,
        },
    }


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON so that a reader never sees half a file, even after Ctrl-C."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, default=str)
        fh.write("\n")
    os.replace(tmp, path)
