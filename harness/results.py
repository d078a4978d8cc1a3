"""Contract 3: results.json, built from the outcome records of one run (docs/results.md).

Certified means tested (docs/verdict.md). Every item a clause names (its
vectors and checks under the profile, its claimed figure, a manual review) is
planned before the run; a clause passes only when every one of its items ran
and passed; an item that could not run (a capability, a selection, a harness
error, an interruption) leaves the clause not tested, unless a laboratory
attests it. Two verdicts come out: the implementation's (clauses verified by
vectors and checks) and the publication's (figures claimed by the rules source
or published by the game, against the exact mathematics); the run's verdict is
the worse of the two.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness import __version__, evidence
from harness.atomic import write_bytes_atomic
from harness.differential.plan import QUOTA, detectable_rate, feasible_strata
from harness.evidence import Minimums
from harness.outcomes import SCHEMA_VERSION, Status, verdict_of, worse
from harness.paths import SPECS_DIR, VECTORS_DIR
from harness.profiles import Profile
from harness.specs import Catalog, Clause, load_catalogs


@dataclass(frozen=True)
class PlannedItem:
    """An item the run should run under the profile: `clause/target`, as pytest names it."""

    name: str
    clause: str
    kind: str  # "vector" | "check"
    target: str


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
    needs: str = ""  # for not_tested: what would let the item run
    repro: dict[str, Any] | None = None  # a failing randomized round, as a vector file
    repro_file: str = ""  # where the controller wrote `repro`, relative to the output folder
    # Failures the item attributes to clauses (the differential's causes); the controller
    # turns each into a record of its own clause.
    findings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def item(self) -> str:
        """The item's name, `clause/target` (the last part of the pytest node id)."""
        return self.node.rpartition("::")[2]

    def to_json(self) -> str:
        # Every item's record is serialised: a plain dict beats dataclasses.asdict here.
        return json.dumps({**self.__dict__, "status": self.status.value}, default=plain_json)

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
        reason = "did not run: the game was unreachable, or no clause names it, or a selection"
        return {"status": Status.NOT_TESTED.value, "reason": reason, "decks": 0, "tests": []}
    battery = r.evidence.get("rng")
    if isinstance(battery, dict):
        return {"status": (Status.PASS if battery.get("passed") else Status.FAIL).value, **battery}
    return {"status": r.status.value, "reason": r.message, "decks": 0, "tests": [], "passed": None}


def _math_section(math: dict[str, Any], records: list[Record]) -> dict[str, Any]:
    """The exact figures, with the RTP simulation's findings from its check's record."""
    r = _check_record(records, "rtp-simulation")
    if r is None:
        reason = "did not run: the game was unreachable, or no clause names it, or a selection"
        return {**math, "simulation": {"status": Status.NOT_TESTED.value, "reason": reason}}
    found = r.evidence.get("simulation")
    if isinstance(found, dict):
        return {**math, "simulation": {"status": r.status.value, **found}}
    return {**math, "simulation": {"status": r.status.value, "reason": r.message}}


def _corpus_section(facts: RunFacts) -> dict[str, Any]:
    """The generated corpus's items summed (contract 3 `corpus`, docs/corpus.md)."""
    planned = [p for p in facts.planned if p.kind == "corpus"]
    records = [r for r in facts.records if r.kind == "corpus" and r.item.endswith("/corpus")]
    found = [r.evidence["corpus"] for r in records if "corpus" in r.evidence]
    statuses = [r.status for r in records] + [Status.NOT_TESTED] * (len(planned) - len(records))
    failed = sum(f["failed"] for f in found)  # failures attributed to other clauses count too
    status = (
        Status.FAIL
        if Status.FAIL in statuses or failed
        else Status.PASS
        if statuses and all(s is Status.PASS for s in statuses)
        else Status.NOT_TESTED
    )
    return {
        "status": status.value,
        "items": len(planned),
        "vectors": sum(f["vectors"] for f in found),
        "ran": sum(f["ran"] for f in found),
        "failed": failed,
        "not_tested": sum(f["not_tested"] for f in found),
        "failing": [v for f in found for v in f["failing"]],
        "seconds": sum(f["seconds"] for f in found),
    }


def _differential_section(facts: RunFacts) -> dict[str, Any]:
    """The differential's shards summed (contract 3 `differential`, docs/differential.md)."""
    shards = [r for r in facts.records if r.kind == "check" and r.name.startswith("differential")]
    planned = [
        p for p in facts.planned if p.kind == "check" and p.target.startswith("differential")
    ]
    found = [r.evidence["differential"] for r in shards if "differential" in r.evidence]
    counts = dict.fromkeys(feasible_strata(facts.profile), 0)
    for shard in found:
        for key, n in shard["strata"].items():
            counts[key] = counts.get(key, 0) + n
    uniform = sum(f["uniform_seat_hands"] for f in found)
    seconds = sum(f["seconds"] for f in found)
    seat_hands = sum(f["seat_hands"] for f in found)
    causes = [
        {
            "clause": r.clause,
            "kind": r.evidence.get("kind", ""),
            "detail": r.evidence.get("detail", ""),
            "count": r.evidence.get("count", 1),
            "item": r.item,
        }
        for r in facts.records
        if r.kind == "differential"
    ]
    short = {k: n for k, n in counts.items() if n < QUOTA}
    if not planned:
        status, reason = Status.NOT_TESTED, "no clause of the profile names the differential check"
    elif len(found) < len(planned):
        ran = {r.item for r in shards}
        missing = [p.name for p in planned if p.name not in ran]
        not_run = [r.message for r in shards if r.status in (Status.NOT_TESTED, Status.ERROR)]
        status = (
            Status.ERROR if any(r.status is Status.ERROR for r in shards) else Status.NOT_TESTED
        )
        reason = "; ".join(sorted(set(not_run))) or f"shards not run: {', '.join(missing)}"
    else:
        status = Status.FAIL if causes else Status.PASS
        reason = ""
    return {
        "status": status.value,
        **({"reason": reason} if reason else {}),
        "budget": found[0]["budget"] if found else 0,
        "shards_run": len(found),
        "shards": len(planned),
        "seat_hands": seat_hands,
        "uniform_seat_hands": uniform,
        "stratified_seat_hands": sum(f["stratified_seat_hands"] for f in found),
        "rounds": sum(f["rounds"] for f in found),
        "strata": {
            "quota": QUOTA,
            "total": len(counts),
            "met": len(counts) - len(short),
            "short": short,
            "counts": counts,
        },
        "disagreeing_seat_hands": sum(f["disagreeing_seat_hands"] for f in found),
        "causes": causes,
        "detectable_fault_rate": detectable_rate(uniform),
        "seconds": seconds,
        "seat_hands_per_second": seat_hands / seconds if seconds else 0.0,
    }


@dataclass
class RunFacts:
    """Everything a run knows at its end, from which results.json is built."""

    profile: Profile
    catalogs: list[Catalog]
    adapter: str
    implementation: dict[str, Any] | None
    planned: list[PlannedItem]
    records: list[Record]
    started: str
    seed: int
    math: dict[str, Any]
    collected: set[str] | None = None  # item names left after the selection (None: unknown)
    selection: dict[str, str] = field(default_factory=dict)  # {"-k": expr, "-m": expr}
    incomplete: list[str] = field(default_factory=list)  # run-level: unreachable, interrupted
    hello_fault: dict[str, Any] | None = None  # failure entry: hello broke protocol v1
    stderr_tail: str = ""
    published: list[dict[str, Any]] = field(default_factory=list)  # figures the game publishes
    attestations: list[dict[str, Any]] = field(default_factory=list)
    run_plan: dict[str, Any] = field(default_factory=dict)
    math_command: str = ""  # the command that reproduces the profile's mathematics
    run_command: str = ""  # the command that runs the whole certification again
    minimums: Minimums = field(default_factory=Minimums)  # the samples a certificate needs


def _item_row(
    name: str, kind: str, status: Status, message: str = "", needs: str = ""
) -> dict[str, Any]:
    return {"name": name, "kind": kind, "status": status.value, "message": message, "needs": needs}


def clause_items(
    clause: Clause,
    facts: RunFacts,
    by_name: dict[str, Record],
    samples: list[evidence.Sample] | None = None,
) -> list[dict[str, Any]]:
    """What verifies a clause under the profile, and whether each ran: vectors and checks
    (planned before the run), the claimed figure, the laboratory's manual review. A check
    that passed on a sample below the certificate's minimum (`samples`) is not tested:
    its pass proves too little (docs/verdict.md#evidence); a failure stands."""
    items = []
    for planned in (p for p in facts.planned if p.clause == clause.id):
        record = by_name.get(planned.name)
        short = (
            evidence.short_sample(record.name, samples or [])
            if record is not None and record.kind == "check" and record.status is Status.PASS
            else None
        )
        if short is not None:
            needs = f"{short.option} {short.minimum}"
            outcome = (Status.NOT_TESTED, short.shortfall() or "", needs)
        elif record is not None:
            outcome = (record.status, record.message, record.needs)
        elif facts.collected is not None and planned.name not in facts.collected:
            outcome = (Status.NOT_TESTED, "left out by the selection", "a run without a selection")
        else:
            outcome = (Status.NOT_TESTED, "did not run", "a complete run")
        items.append(_item_row(planned.name, planned.kind, *outcome))
    planned_names = {p.name for p in facts.planned}
    for record in facts.records:  # failures attributed here by another item (differential)
        if record.clause == clause.id and record.item not in planned_names:
            items.append(_item_row(record.item, record.kind, record.status, record.message))
    if clause.claim:
        items.append(_claim_item(clause, facts))
    if "manual" in clause.verification:
        items.append(
            _item_row(
                "manual review",
                "manual",
                Status.NOT_TESTED,
                "verified by the laboratory's review, outside the harness",
                "an attestation",
            )
        )
    return items


def _claim_item(clause: Clause, facts: RunFacts) -> dict[str, Any]:
    name = f"claim:{clause.claim}"
    if facts.math.get("status") == Status.ERROR:
        return _item_row(
            name, "claim", Status.ERROR, f"game mathematics failed: {facts.math.get('reason')}"
        )
    claim = next((c for c in facts.math.get("claims", []) if c["figure"] == clause.claim), None)
    if claim is None:
        return _item_row(
            name,
            "claim",
            Status.NOT_TESTED,
            f"profile {facts.profile.name} claims no {clause.claim}",
            "an attestation (not_applicable)",
        )
    return _item_row(name, "claim", Status(claim["status"]), _claim_message(claim))


def _claim_message(claim: dict[str, Any]) -> str:
    if claim["computed"] is None:
        return f"claimed {claim['claimed']}; nothing computed to compare with"
    word = "confirmed by" if claim["status"] == Status.PASS else "not reproducible; nearest"
    return (
        f"claimed {claim['claimed']}, {word} {claim['definition']}: {claim['computed']:.6f} "
        f"(difference {claim['difference']:+.6f})"
    )


def clause_row(
    clause: Clause, items: list[dict[str, Any]], attestation: dict[str, Any] | None
) -> dict[str, Any]:
    """A clause's row in the traceability matrix: pass only when every item passed."""
    statuses = [Status(i["status"]) for i in items]
    notes: list[str] = []
    if Status.FAIL in statuses:
        status = Status.FAIL
        if attestation:
            notes.append(f"attestation by {attestation['by']} rejected: the clause failed here")
    elif statuses and all(s is Status.PASS for s in statuses):
        status = Status.PASS
        if attestation:
            notes.append(f"also attested by {attestation['by']}")
    elif attestation:
        status = Status.ATTESTED
        notes.append(
            f"{attestation['result']}, attested by {attestation['by']} ({attestation['date']})"
        )
    else:
        status = Status.NOT_TESTED
    gaps = [i for i in items if i["status"] in (Status.NOT_TESTED, Status.ERROR)]
    if status in (Status.NOT_TESTED, Status.ATTESTED) or (status is Status.FAIL and gaps):
        notes += sorted({f"not tested: {i['message']}" for i in gaps})
    if not items:
        notes.append("no vector or check applies under this profile")
    to_close = sorted({i["needs"] for i in gaps if i["needs"]})
    return {
        "id": clause.id,
        "title": clause.title,
        "statement": clause.statement,
        "kind": "publication" if clause.claim else "implementation",
        "category": clause.category,
        "severity": clause.severity,
        "sources": clause.sources,
        "interpretation": clause.interpretation,
        "status": status.value,
        "items": items,
        "vectors": sum(i["kind"] == "vector" for i in items),
        "checks": sum(i["kind"] == "check" for i in items),
        "passed": sum(i["status"] == Status.PASS for i in items),
        "failed": [i["name"] for i in items if i["status"] == Status.FAIL],
        "notes": notes,
        "to_close": _to_close(to_close) if status is Status.NOT_TESTED else [],
    }


def _to_close(needs: list[str]) -> list[str]:
    """What would close a clause's gap; a laboratory's attestation always would."""
    if any("attestation" in n for n in needs):
        return needs
    return [*needs, "or an attestation"] if needs else ["an attestation"]


def _record_failure(r: Record) -> dict[str, Any]:
    return {
        "kind": "implementation",
        "clause": r.clause,
        "item": r.item,
        "item_kind": r.kind,
        "node": r.node,
        "expected": r.expected,
        "actual": r.actual,
        "message": r.message,
        "evidence": r.evidence,
        "reproduce": r.reproduce,
        "repro": r.repro_file or None,
    }


def failure_entry(
    kind: str, clause: str | None, item: str, message: str, reproduce: str, **more: Any
) -> dict[str, Any]:
    """An entry of failures[] that no item's record makes (hello, a capability, a figure)."""
    entry = {
        "kind": kind,
        "clause": clause,
        "item": item,
        "item_kind": more.pop("item_kind", item),  # hello, required-capabilities: as named
        "node": None,
        "expected": None,
        "actual": None,
        "message": message,
        "evidence": {},
        "reproduce": reproduce,
        "repro": None,
    }
    return {**entry, **more}


def _publication_failures(facts: RunFacts, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Refuted figures: claimed by the profile's source (a claim clause), or published by
    the game in hello (config.published)."""
    found = []
    for row in rows:
        for item in row["items"] if row["kind"] == "publication" else []:
            if item["kind"] == "claim" and item["status"] == Status.FAIL:
                figure = item["name"].removeprefix("claim:")
                claim = next(c for c in facts.math["claims"] if c["figure"] == figure)
                said = f"{figure} {claim['claimed']} claimed by {claim['source']}"
                found.append(_refuted(claim, row["id"], item["name"], said, facts.math_command))
    for claim in _unstated_claims(facts, rows):
        if claim["status"] == Status.FAIL:
            said = f"{claim['figure']} {claim['claimed']} claimed by {claim['source']}"
            item = f"claim:{claim['figure']}"
            found.append(_refuted(claim, None, item, said, facts.math_command))
    for finding in facts.published:
        if finding["status"] == Status.FAIL:
            said = f"the game publishes {finding['figure']} {finding['claimed']}"
            item = f"published:{finding['figure']}"
            found.append(
                _refuted(finding, finding.get("clause"), item, said, finding.get("reproduce", ""))
            )
    return found


def _unstated_claims(facts: RunFacts, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Figures the profile claims that no clause of its catalogs states: judged all the
    same, so a profile cannot carry a refuted figure past the verdict."""
    stated = {i["name"] for r in rows for i in r["items"] if i["kind"] == "claim"}
    return [c for c in facts.math.get("claims", []) if f"claim:{c['figure']}" not in stated]


def _refuted(
    figure: dict[str, Any], clause: str | None, item: str, said: str, reproduce: str
) -> dict[str, Any]:
    """The failure entry of a refuted figure, with the nearest reading as evidence."""
    return failure_entry(
        "publication",
        clause,
        item,
        f"{said}: {_claim_message(figure)}",
        reproduce,
        item_kind=item.partition(":")[0],
        expected=figure["claimed"],
        actual=figure["computed"],
        evidence={
            "reading": figure["definition"],
            "difference": figure["difference"],
            "readings": figure.get("readings"),
        },
    )


def _attestation_entries(
    attestations: list[dict[str, Any]], rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    status = {r["id"]: r["status"] for r in rows}
    entries = []
    for a in attestations:
        applied = status.get(a["clause"]) == Status.ATTESTED
        note = {
            Status.ATTESTED.value: "closes the gap: the clause was not tested here",
            Status.PASS.value: "not needed: the clause was tested and passed here",
            Status.FAIL.value: "rejected: the clause ran and failed here; the failure stands",
        }.get(status.get(a["clause"], ""), "")
        entries.append({**a, "applied": applied, "note": note})
    return entries


def _selection(facts: RunFacts) -> dict[str, Any] | None:
    left_out = (
        [p.name for p in facts.planned if p.name not in facts.collected]
        if facts.collected is not None
        else []
    )
    if not facts.selection and not left_out:
        return None
    return {
        "expressions": dict(facts.selection),
        "left_out": left_out,
        "ran": len(facts.planned) - len(left_out),
        "planned": len(facts.planned),
    }


def build_results(facts: RunFacts) -> dict[str, Any]:
    """Assemble results.json from what the run knows at its end (contract 3)."""
    profile = facts.profile
    clauses = [c for cat in facts.catalogs for c in cat.for_profile(profile.name)]
    by_name = {r.item: r for r in facts.records}
    attested = {a["clause"]: a for a in facts.attestations}
    sections = {
        "rng": _rng_section(facts.records),
        "differential": _differential_section(facts),
        "math": _math_section(facts.math, facts.records),
    }
    samples = evidence.samples(sections, facts.minimums)
    rows = [
        clause_row(c, clause_items(c, facts, by_name, samples), attested.get(c.id)) for c in clauses
    ]
    vectors = [p for p in facts.planned if p.kind == "vector"]
    vector_records = [by_name[p.name] for p in vectors if p.name in by_name]
    harness_errors = [r for r in facts.records if r.status is Status.ERROR]
    missing = missing_capabilities(profile, facts.implementation)
    failures = [_record_failure(r) for r in facts.records if r.status is Status.FAIL]
    if facts.hello_fault:
        failures.insert(0, facts.hello_fault)
    if missing:
        failures.insert(
            0,
            failure_entry(
                "implementation",
                None,
                "required-capabilities",
                f"profile {profile.name} requires capabilities {', '.join(missing)}",
                facts.run_command,
                expected=list(profile.required_capabilities),
                actual=(facts.implementation or {}).get("capabilities"),
            ),
        )
    failures += _publication_failures(facts, rows)
    selection = _selection(facts)

    implementation_rows = [r for r in rows if r["kind"] == "implementation"]
    publication_rows = [r for r in rows if r["kind"] == "publication"]
    reasons = list(facts.incomplete)
    reasons += [f"harness error in {r.item}: {r.message}" for r in harness_errors]
    if selection:
        shown = " ".join(f"{k} {v!r}" for k, v in selection["expressions"].items())
        reasons.append(
            f"selection {shown or '(paths)'}: {selection['ran']} of {selection['planned']} "
            "items selected; a selection is never a certificate"
        )
    untested = [r["id"] for r in implementation_rows if r["status"] == Status.NOT_TESTED]
    if untested:
        reasons.append(f"{len(untested)} clauses not tested: {', '.join(untested)}")
    # An attested clause is closed whatever its checks sampled: only the open ones say why.
    open_checks = {
        item["name"]
        for r in implementation_rows
        if r["status"] == Status.NOT_TESTED
        for item in r["items"]
        if item["kind"] == "check" and item["status"] == Status.NOT_TESTED
    }
    reasons += evidence.shortfalls(samples, open_checks)
    implementation_verdict = verdict_of(
        failed=any(r["status"] == Status.FAIL for r in implementation_rows)
        # Every failing record is in failures[]: none may leave the verdict a PASS,
        # whether or not its item was planned.
        or any(r.status is Status.FAIL for r in facts.records)
        or bool(missing)
        or facts.hello_fault is not None,
        gaps=bool(reasons),
    )
    publication_reasons = []
    if facts.math.get("status") == Status.ERROR:
        publication_reasons.append(f"game mathematics failed: {facts.math.get('reason')}")
    untested_figures = [r["id"] for r in publication_rows if r["status"] == Status.NOT_TESTED]
    unstated = _unstated_claims(facts, rows)
    untested_figures += [
        f"{origin} {f['figure']}"
        for origin, figures in (("claimed", unstated), ("published", facts.published))
        for f in figures
        if f["status"] not in (Status.PASS, Status.FAIL)
    ]
    if untested_figures:
        publication_reasons.append(f"figures not checked: {', '.join(untested_figures)}")
    if facts.implementation is None:
        publication_reasons.append(
            "the figures the game publishes are unknown: no conforming hello"
        )
    publication_verdict = verdict_of(
        failed=any(r["status"] == Status.FAIL for r in publication_rows)
        or any(c["status"] == Status.FAIL for c in unstated)
        or any(f["status"] == Status.FAIL for f in facts.published),
        gaps=bool(publication_reasons),
    )
    verdict = worse(implementation_verdict, publication_verdict)
    return {
        "schema_version": SCHEMA_VERSION,
        "verdict": verdict.value,
        "implementation_verdict": implementation_verdict.value,
        "publication_verdict": publication_verdict.value,
        "incomplete_reasons": reasons + publication_reasons,
        "gaps": [
            {
                "clause": r["id"],
                "title": r["title"],
                "kind": r["kind"],
                "why": r["notes"],
                "to_close": r["to_close"],
            }
            for r in rows
            if r["status"] == Status.NOT_TESTED
        ],
        "selection": selection,
        "implementation": facts.implementation,
        "implementation_stderr": facts.stderr_tail,
        "adapter": facts.adapter,
        "profile": {
            "name": profile.name,
            "title": profile.title,
            "sources": profile_sources(profile),
            "resolved": profile.raw,
        },
        "clauses": rows,
        "attestations": _attestation_entries(facts.attestations, rows),
        "vectors": {
            "total": len(vectors),
            "passed": sum(r.status is Status.PASS for r in vector_records),
            "failed": sum(r.status is Status.FAIL and not r.protocol_fault for r in vector_records),
            "errors": sum(r.protocol_fault or r.status is Status.ERROR for r in vector_records),
            "not_tested": len(vectors)
            - sum(r.status is not Status.NOT_TESTED for r in vector_records),
        },
        "capabilities": {
            "declared": (facts.implementation or {}).get("capabilities"),
            "required_by_profile": list(profile.required_capabilities),
            "missing_required": missing,
        },
        "failures": failures,
        "publication": {
            "verdict": publication_verdict.value,
            "claimed_by_source": facts.math.get("claims", []),
            "published_by_game": facts.published,
        },
        "protocol": {
            "checks": [
                {"name": r.name, "clause": r.clause, "status": r.status.value, "message": r.message}
                for r in facts.records
                if r.kind == "check"
            ]
        },
        "rng": sections["rng"],
        "corpus": _corpus_section(facts),
        "differential": sections["differential"],
        "math": sections["math"],
        "evidence": evidence.section(samples, facts.minimums),
        "out_of_scope": [
            {"catalog": cat.name, "source": cat.source_file, "ref": ref, "reason": reason}
            for cat in facts.catalogs
            for ref, reason in cat.out_of_scope
        ],
        "manifest": {
            "harness_version": __version__,
            "profile_sha256": hashlib.sha256(profile.path.read_bytes()).hexdigest(),
            "spec_sha256": tree_sha256(SPECS_DIR),
            "vectors_sha256": tree_sha256(VECTORS_DIR),
            "started": facts.started,
            "finished": now(),
            "seed": facts.seed,
            "run_plan": facts.run_plan,
        },
    }


def plain_json(value: Any) -> Any:
    """`default=` for json.dump: a Decimal (a game's number with a fraction, see
    harness/adapters/base.py) as a float when finite, anything else as its text."""
    if isinstance(value, Decimal) and value.is_finite() and math.isfinite(float(value)):
        return float(value)
    return str(value)


def strict_json(value: Any) -> Any:
    """`value` with every float that is not finite (NaN, infinities) as null: RFC 8259
    has no such numbers, and a strict parser refuses a file that holds one."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    return value


def profile_sources(profile: Profile) -> list[dict[str, str]]:
    """The profile's rules sources by title (from the clause catalogs that quote them),
    so a reader sees which documents were certified against, not opaque file names."""
    titles = {c.source_file: c.source_title for c in load_catalogs()}
    sources: list[dict[str, str]] = []
    for given in profile.raw.get("sources") or []:
        file = str(given.get("file"))
        sources.append({"file": file, "title": titles.get(file, ""), "ref": given.get("ref", "")})
    return sources


# A list of numbers as json.dumps(indent=2) writes it, one per line. A newline never
# occurs inside a JSON string, so the opening "[\n" marks a list, never text.
_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_NUMBER_LIST = re.compile(rf"\[\n\s*({_NUMBER}(?:,\n\s*{_NUMBER})*)\n\s*\]")


def json_bytes(data: Any) -> bytes:
    """results.json exactly as written: the bytes whose SHA-256 the report prints.
    Indented for people, but a list of numbers (the RNG's 52 x 52 table) on one line."""
    text = json.dumps(strict_json(data), indent=2, default=plain_json, allow_nan=False)
    text = _NUMBER_LIST.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text)
    return (text + "\n").encode("utf-8")


def write_json_atomic(path: Path, data: Any) -> None:
    """Write strict JSON so that a reader never sees half a file, even after a kill
    (harness/atomic.py), readable as the umask allows, like any other output."""
    write_bytes_atomic(path, json_bytes(data))
