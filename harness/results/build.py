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
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from harness import __version__
from harness.paths import SPECS_DIR, VECTORS_DIR
from harness.protocol.declaration import Declaration
from harness.results import evidence
from harness.results.evidence import Minimums, defaults
from harness.results.model import (
    Attestation,
    Capabilities,
    ClauseKind,
    ClauseRow,
    CorpusSection,
    DifferentialSection,
    Failure,
    FailureKind,
    Fault,
    Figure,
    FoundBy,
    Gap,
    Item,
    ItemKind,
    Manifest,
    MathSection,
    Model,
    OutOfScope,
    PlannedItem,
    ProfileInfo,
    Protocol,
    ProtocolCheck,
    Publication,
    Reason,
    ReasonCode,
    Record,
    Results,
    RngSection,
    Sample,
    Selection,
    Shares,
    Simulation,
    Source,
    TableSection,
    VariedField,
    VectorCounts,
)
from harness.results.outcomes import SCHEMA_VERSION, Status, Verdict, clause_status
from harness.results.verdict import decide
from harness.rules.catalogs import Catalog, Clause, applicable, load_catalogs, varied
from harness.rules.profiles import Profile, Varied
from harness.rules.table import stakes_kind

S = TypeVar("S", bound=Model)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def tree_sha256(root: Path) -> str:
    """One digest of every file under a folder: relative paths and contents, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def missing_capabilities(profile: Profile, declared: Declaration | None) -> list[str]:
    """Capabilities the profile requires (a jurisdiction's demand) that the game lacks."""
    have = declared.capabilities if declared is not None else frozenset()
    return [c for c in profile.required_capabilities if c not in have]


@dataclass
class RunFacts:
    """Everything a run knows at its end, from which results.json is built."""

    profile: Profile
    catalogs: list[Catalog]
    adapter: str
    declared: Declaration | None  # the game's hello; None when it never answered
    planned: list[PlannedItem]
    records: list[Record]
    started: str
    seed: int
    math: MathSection  # the exact mathematics and its claims; `simulation` the run's
    # Each results section's merge, by its name (harness/checks/registry.py `section`).
    merges: Mapping[str, Callable[[Shares], Model]]
    collected: set[str] | None = None  # item names left after the selection (None: unknown)
    selection: dict[str, str] = field(default_factory=dict)  # {"-k": expr, "-m": expr}
    incomplete: list[Reason] = field(default_factory=list)  # unreachable, interrupted
    hello_fault: Failure | None = None  # hello broke protocol v1
    stderr_tail: str = ""
    published: list[Figure] = field(default_factory=list)  # figures the game publishes
    attestations: list[Attestation] = field(default_factory=list)
    run_plan: dict[str, Any] = field(default_factory=dict)
    math_command: str = ""  # the command that reproduces the profile's mathematics
    run_command: str = ""  # the command that runs the whole certification again
    minimums: Minimums = field(default_factory=defaults)  # the samples a certificate needs


def clause_items(
    clause: Clause,
    facts: RunFacts,
    by_name: dict[str, Record],
    samples: list[Sample] | None = None,
) -> list[Item]:
    """What verifies a clause under the profile, and whether each ran: vectors and checks
    (planned before the run), the claimed figure, the laboratory's manual review. A check
    that passed on a sample below the certificate's minimum (`samples`) is not tested:
    its pass proves too little (docs/verdict.md#evidence); a failure stands."""
    items = [
        Item(name=p.name, kind=p.kind, **_outcome(p, facts, by_name.get(p.name), samples or []))
        for p in facts.planned
        if p.clause == clause.id
    ]
    planned_names = {p.name for p in facts.planned}
    for record in facts.records:  # failures attributed here by another item (differential)
        if record.clause == clause.id and record.item not in planned_names:
            items.append(
                Item(
                    name=record.item,
                    kind=ItemKind(record.kind),
                    status=record.status,
                    message=record.message,
                )
            )
    if clause.claim:
        items.append(_claim_item(clause, facts))
    if "manual" in clause.verification:
        items.append(
            Item(
                name="manual review",
                kind=ItemKind.MANUAL,
                status=Status.NOT_TESTED,
                message="verified by the laboratory's review, outside the harness",
                needs="an attestation",
            )
        )
    return items


def _outcome(
    planned: PlannedItem, facts: RunFacts, record: Record | None, samples: list[Sample]
) -> dict[str, Any]:
    """A planned item's status, message and needs: as its record says, unless it passed
    on too small a sample, or did not run (left out by a selection, or never reached)."""
    short = (
        evidence.short_sample(record.name, samples)
        if record is not None and record.kind is ItemKind.CHECK and record.status is Status.PASS
        else None
    )
    if short is not None:
        message, needs = evidence.shortfall(short) or "", f"{short.option} {short.minimum}"
        return {"status": Status.NOT_TESTED, "message": message, "needs": needs}
    if record is not None:
        return {"status": record.status, "message": record.message, "needs": record.needs}
    if facts.collected is not None and planned.name not in facts.collected:
        message, needs = "left out by the selection", "a run without a selection"
    else:
        message, needs = "did not run", "a complete run"
    return {"status": Status.NOT_TESTED, "message": message, "needs": needs}


def _claim_item(clause: Clause, facts: RunFacts) -> Item:
    name = f"claim:{clause.claim}"
    if facts.math.status is Status.ERROR:
        message = f"game mathematics failed: {facts.math.reason}"
        return Item(name=name, kind=ItemKind.CLAIM, status=Status.ERROR, message=message)
    claim = next((c for c in facts.math.claims if c.figure == clause.claim), None)
    if claim is None:
        return Item(
            name=name,
            kind=ItemKind.CLAIM,
            status=Status.NOT_TESTED,
            message=f"profile {facts.profile.name} claims no {clause.claim}",
            needs="an attestation (not_applicable)",
        )
    return Item(
        name=name,
        kind=ItemKind.CLAIM,
        status=claim.status,
        message=_claim_message(claim),
    )


def _claim_message(claim: Figure) -> str:
    if claim.computed is None:
        return f"claimed {claim.claimed}; nothing computed to compare with"
    word = "confirmed by" if claim.status is Status.PASS else "not reproducible; nearest"
    return (
        f"claimed {claim.claimed}, {word} {claim.definition}: {claim.computed:.6f} "
        f"(difference {claim.difference or 0.0:+.6f})"
    )


def clause_row(
    clause: Clause,
    items: list[Item],
    attestation: Attestation | None,
    changed: list[Varied] | None = None,
) -> ClauseRow:
    """A clause's row in the traceability matrix: pass only when every item passed;
    `changed`, what an approved variation changes of its statement."""
    status = clause_status((i.status for i in items), attested=attestation is not None)
    notes: list[Reason] = []
    if attestation:
        by = attestation.by
        notes.append(
            {
                Status.FAIL: Reason(code=ReasonCode.ATTESTATION_REJECTED, subject=by),
                Status.PASS: Reason(code=ReasonCode.ALSO_ATTESTED, subject=by),
            }.get(
                status,
                Reason(
                    code=ReasonCode.ATTESTED,
                    subject=by,
                    detail=f"{attestation.result} ({attestation.date})",
                ),
            )
        )
    gaps = [i for i in items if i.status in (Status.NOT_TESTED, Status.ERROR)]
    if status in (Status.NOT_TESTED, Status.ATTESTED) or (status is Status.FAIL and gaps):
        notes += [
            Reason(code=ReasonCode.NOT_TESTED, detail=message)
            for message in sorted({i.message for i in gaps})
        ]
    if not items:
        notes.append(Reason(code=ReasonCode.NOTHING_APPLIES))
    return ClauseRow(
        id=clause.id,
        title=clause.title,
        statement=clause.statement,
        kind=ClauseKind.PUBLICATION if clause.claim else ClauseKind.IMPLEMENTATION,
        category=clause.category,
        severity=clause.severity,
        sources=list(clause.sources),
        interpretation=clause.interpretation,
        varied=[
            VariedField(field=v.field, base=v.base, approved=v.approved) for v in changed or []
        ],
        status=status,
        items=items,
        vectors=sum(i.kind is ItemKind.VECTOR for i in items),
        checks=sum(i.kind is ItemKind.CHECK for i in items),
        passed=sum(i.status is Status.PASS for i in items),
        failed=[i.name for i in items if i.status is Status.FAIL],
        notes=notes,
        to_close=sorted({i.needs for i in gaps if i.needs}) if status is Status.NOT_TESTED else [],
    )


def _record_failure(r: Record) -> Failure:
    return Failure(
        kind=FailureKind.IMPLEMENTATION,
        clause=r.clause,
        item=r.item,
        item_kind=r.kind,
        node=r.node,
        expected=r.expected,
        actual=r.actual,
        message=r.message,
        evidence=r.evidence,
        reproduce=r.reproduce,
        repro=r.repro_file or None,
        fault=r.fault or Fault(clause=r.clause, kind=r.name, found_by=FoundBy.CHECK),
    )


def failure_entry(
    kind: FailureKind, fault: Fault, item: str, message: str, reproduce: str, **more: Any
) -> Failure:
    """A failure no item's record makes (hello, a capability, a figure)."""
    return Failure(
        kind=kind,
        clause=fault.clause,
        item=item,
        item_kind=more.pop("item_kind", item),  # hello, required-capabilities: as named
        message=message,
        reproduce=reproduce,
        fault=fault,
        **more,
    )


def _publication_failures(facts: RunFacts, rows: list[ClauseRow]) -> list[Failure]:
    """Refuted figures: claimed by the profile's source (a claim clause), or published by
    the game in hello (config.published)."""
    claims = {c.figure: c for c in facts.math.claims}
    by_id = {c.id: c for cat in facts.catalogs for c in cat.clauses}
    found = []
    for row in rows:
        figure = by_id[row.id].claim if row.id in by_id else None
        failed = any(i.kind is ItemKind.CLAIM and i.status is Status.FAIL for i in row.items)
        if figure and failed:
            claim = claims[figure]
            said = f"{figure} {claim.claimed} claimed by {claim.source}"
            found.append(_refuted(claim, row.id, "claim", said, facts.math_command))
    for claim in _unstated_claims(facts, rows):
        if claim.status is Status.FAIL:
            said = f"{claim.figure} {claim.claimed} claimed by {claim.source}"
            found.append(_refuted(claim, None, "claim", said, facts.math_command))
    for published in facts.published:
        if published.status is Status.FAIL:
            said = f"the game publishes {published.figure} {published.claimed}"
            reproduce = published.reproduce or ""
            found.append(_refuted(published, published.clause, "published", said, reproduce))
    return found


def _unstated_claims(facts: RunFacts, rows: list[ClauseRow]) -> list[Figure]:
    """Figures the profile claims that no clause of its catalogs states: judged all the
    same, so a profile cannot carry a refuted figure past the verdict."""
    stated = {i.name for r in rows for i in r.items if i.kind is ItemKind.CLAIM}
    return [c for c in facts.math.claims if f"claim:{c.figure}" not in stated]


def _refuted(figure: Figure, clause: str | None, kind: str, said: str, reproduce: str) -> Failure:
    """The failure of a refuted figure (`kind` claim or published), with the nearest
    reading as evidence."""
    found_by = FoundBy.CLAIM if kind == "claim" else FoundBy.PUBLISHED
    return failure_entry(
        FailureKind.PUBLICATION,
        Fault(clause=clause, kind=kind, detail=figure.figure, found_by=found_by),
        f"{kind}:{figure.figure}",
        f"{said}: {_claim_message(figure)}",
        reproduce,
        item_kind=kind,
        expected=figure.claimed,
        actual=figure.computed,
        evidence={
            "reading": figure.definition,
            "difference": figure.difference,
            "readings": figure.readings,
        },
    )


def _attestation_entries(
    attestations: list[Attestation], rows: list[ClauseRow]
) -> list[Attestation]:
    status = {r.id: r.status for r in rows}
    notes = {
        Status.ATTESTED: "closes the gap: the clause was not tested here",
        Status.PASS: "not needed: the clause was tested and passed here",
        Status.FAIL: "rejected: the clause ran and failed here; the failure stands",
    }
    return [
        msgspec.structs.replace(
            a,
            applied=status.get(a.clause) is Status.ATTESTED,
            note=notes.get(held, "") if (held := status.get(a.clause)) is not None else "",
        )
        for a in attestations
    ]


def _selection(facts: RunFacts) -> Selection | None:
    left_out = (
        [p.name for p in facts.planned if p.name not in facts.collected]
        if facts.collected is not None
        else []
    )
    if not facts.selection and not left_out:
        return None
    return Selection(
        expressions=dict(facts.selection),
        left_out=left_out,
        ran=len(facts.planned) - len(left_out),
        planned=len(facts.planned),
    )


def _shares(facts: RunFacts, section: str) -> Shares:
    """What the merge of `section` is given: its items' records, its planned items, and
    the causes those items found."""
    planned = [p for p in facts.planned if p.section == section]
    items = {p.name for p in planned}
    return Shares(
        records=[r for r in facts.records if r.section == section],
        planned=planned,
        found=[r for r in facts.records if r.found_by_item in items],
        profile=facts.profile,
    )


def _made(made: Mapping[str, Model], name: str, kind: type[S]) -> S | None:
    """Section `name` as its merge made it, if one did."""
    section = made.get(name)
    return section if isinstance(section, kind) else None


def build_results(facts: RunFacts) -> Results:
    """Assemble results.json from what the run knows at its end (contract 3)."""
    profile = facts.profile
    found = applicable(facts.catalogs, profile)
    clauses = found.clauses
    by_name = {r.item: r for r in facts.records}
    attested = {a.clause: a for a in facts.attestations}
    made = {name: merge(_shares(facts, name)) for name, merge in facts.merges.items()}
    rng = _made(made, "rng", RngSection)
    differential = _made(made, "differential", DifferentialSection)
    corpus = _made(made, "corpus", CorpusSection) or CorpusSection()
    simulation = _made(made, "simulation", Simulation) or Simulation(
        status=Status.NOT_TESTED, reason="no check made the RTP simulation"
    )
    math = msgspec.structs.replace(facts.math, simulation=simulation)
    sampled = {"rng": rng, "simulation": simulation, "differential": differential}
    samples = evidence.samples(sampled, facts.minimums)
    rows = [
        clause_row(
            c, clause_items(c, facts, by_name, samples), attested.get(c.id), varied(c, profile)
        )
        for c in clauses
    ]
    vectors = [p for p in facts.planned if p.kind == "vector"]
    vector_records = [by_name[p.name] for p in vectors if p.name in by_name]
    harness_errors = [r for r in facts.records if r.status is Status.ERROR]
    missing = missing_capabilities(profile, facts.declared)
    sent = facts.declared.sent if facts.declared is not None else {}
    failures = [_record_failure(r) for r in facts.records if r.status is Status.FAIL]
    if facts.hello_fault:
        failures.insert(0, facts.hello_fault)
    if missing:
        failures.insert(
            0,
            failure_entry(
                FailureKind.IMPLEMENTATION,
                Fault(
                    clause=None,
                    kind="missing-capability",
                    detail=", ".join(missing),
                    found_by=FoundBy.CAPABILITIES,
                ),
                "required-capabilities",
                f"profile {profile.name} requires capabilities {', '.join(missing)}",
                facts.run_command,
                expected=list(profile.required_capabilities),
                actual=sent.get("capabilities"),
            ),
        )
    failures += _publication_failures(facts, rows)
    selection = _selection(facts)

    implementation_rows = [r for r in rows if r.kind is ClauseKind.IMPLEMENTATION]
    publication_rows = [r for r in rows if r.kind is ClauseKind.PUBLICATION]
    reasons = list(facts.incomplete)
    reasons += [
        Reason(code=ReasonCode.HARNESS_ERROR, subject=r.item, detail=r.message)
        for r in harness_errors
    ]
    if selection:
        shown = " ".join(f"{k} {v!r}" for k, v in selection.expressions.items())
        reasons.append(
            Reason(
                code=ReasonCode.SELECTION,
                subject=shown or "(paths)",
                detail=f"{selection.ran} of {selection.planned}",
            )
        )
    untested = [r.id for r in implementation_rows if r.status is Status.NOT_TESTED]
    if untested:
        reasons.append(Reason(code=ReasonCode.CLAUSES_NOT_TESTED, subject=", ".join(untested)))
    # An attested clause is closed whatever its checks sampled: only the open ones say why.
    open_checks = {
        item.name
        for r in implementation_rows
        if r.status is Status.NOT_TESTED
        for item in r.items
        if item.kind is ItemKind.CHECK and item.status is Status.NOT_TESTED
    }
    reasons += [
        Reason(code=ReasonCode.SHORT_SAMPLE, subject=name, detail=text)
        for name, text in evidence.shortfalls(samples, open_checks)
    ]
    publication_reasons = []
    if facts.math.status is Status.ERROR:
        publication_reasons.append(Reason(code=ReasonCode.MATH_FAILED, detail=facts.math.reason))
    untested_figures = [r.id for r in publication_rows if r.status is Status.NOT_TESTED]
    unstated = _unstated_claims(facts, rows)
    untested_figures += [
        f"{origin} {f.figure}"
        for origin, figures in (("claimed", unstated), ("published", facts.published))
        for f in figures
        if f.status not in (Status.PASS, Status.FAIL)
    ]
    if untested_figures:
        publication_reasons.append(
            Reason(code=ReasonCode.FIGURES_NOT_CHECKED, subject=", ".join(untested_figures))
        )
    if facts.declared is None:
        publication_reasons.append(Reason(code=ReasonCode.NO_HELLO))
    results = Results(
        schema_version=SCHEMA_VERSION,
        verdict=Verdict.INCOMPLETE,  # decided below, from these records
        incomplete_reasons=reasons + publication_reasons,
        gaps=[
            Gap(clause=r.id, title=r.title, kind=r.kind, why=r.notes, to_close=r.to_close)
            for r in rows
            if r.status is Status.NOT_TESTED
        ],
        selection=selection,
        implementation=facts.declared.sent if facts.declared is not None else None,
        implementation_stderr=facts.stderr_tail,
        adapter=facts.adapter,
        profile=ProfileInfo(
            name=profile.name,
            title=profile.title,
            sources=profile_sources(profile),
            resolved=profile.raw,
            extends=profile.extends,
            clauses_from=profile.clauses_from if profile.base is not None else None,
            variations=[
                VariedField(field=v.field, base=v.base, approved=v.approved)
                for v in profile.variations
            ],
            not_applicable=[c.id for c in found.claims_not_restated],
            not_offered=[c.id for c in found.not_offered],
        ),
        table=table_section(facts, [r for r in facts.records if r.kind is ItemKind.VECTOR], corpus),
        clauses=rows,
        attestations=_attestation_entries(facts.attestations, rows),
        vectors=VectorCounts(
            total=len(vectors),
            passed=sum(r.status is Status.PASS for r in vector_records),
            failed=sum(r.status is Status.FAIL and not r.protocol_fault for r in vector_records),
            errors=sum(r.protocol_fault or r.status is Status.ERROR for r in vector_records),
            not_tested=len(vectors)
            - sum(r.status is not Status.NOT_TESTED for r in vector_records),
        ),
        capabilities=Capabilities(
            declared=sent.get("capabilities"),
            required_by_profile=list(profile.required_capabilities),
            missing_required=missing,
        ),
        failures=failures,
        publication=Publication(claimed_by_source=math.claims, published_by_game=facts.published),
        protocol=Protocol(
            checks=[
                ProtocolCheck(name=r.name, clause=r.clause, status=r.status, message=r.message)
                for r in facts.records
                if r.kind == "check"
            ]
        ),
        rng=rng,
        corpus=corpus,
        differential=differential,
        math=math,
        evidence=evidence.section(samples, facts.minimums),
        out_of_scope=[
            OutOfScope(catalog=cat.name, source=cat.source_file, ref=ref, reason=reason)
            for cat in facts.catalogs
            for ref, reason in cat.out_of_scope
        ],
        manifest=Manifest(
            harness_version=__version__,
            profile_sha256=profile.sha256,
            spec_sha256=tree_sha256(SPECS_DIR),
            vectors_sha256=tree_sha256(VECTORS_DIR),
            started=facts.started,
            finished=now(),
            seed=facts.seed,
            run_plan=facts.run_plan,
        ),
    )
    decided = decide(results)
    if decided.verdict is Verdict.INCOMPLETE and not results.incomplete_reasons:
        # Nothing failed and nothing was left untested, yet the run's own records bar a
        # PASS (a sample's minimum lowered by no run plan, say): the reason is written.
        barred = Reason(code=ReasonCode.NOT_BORNE_OUT, detail=decided.why)
        results = msgspec.structs.replace(results, incomplete_reasons=[barred])
        decided = decide(results)
    return msgspec.structs.replace(
        results,
        verdict=decided.verdict,
        implementation_verdict=decided.implementation,
        publication_verdict=decided.publication,
        publication=msgspec.structs.replace(
            results.publication or Publication(), verdict=decided.publication
        ),
    )


def table_section(
    facts: RunFacts, vector_records: list[Record], corpus: CorpusSection
) -> TableSection:
    """The table the game declared, what the profile demands of one, and how the vectors'
    stakes were fitted to it (contract 3 `table`, docs/profiles.md)."""
    table = facts.declared.table if facts.declared is not None else None
    played = [r.evidence.get("stakes") for r in vector_records]
    stakes = Counter(stakes_kind(how).value for how in played if isinstance(how, str))
    stakes.update(corpus.stakes)
    required = facts.profile.required_limits
    return TableSection(
        ante=list(table.ante) if table else None,
        aa_bonus=list(table.aa_bonus) if table and table.aa_bonus else None,
        house_rules=table.house_rules if table else {},
        unknown_house_rules=list(table.unknown_house_rules) if table else [],
        required_limits=None
        if required is None
        else {
            wager: list(bounds)
            for wager, bounds in (("ante", required.ante), ("aa_bonus", required.aa_bonus))
            if bounds is not None
        },
        house_rules_allowed=list(facts.profile.house_rules_allowed),
        stakes=dict(sorted(stakes.items())),
    )


def profile_sources(profile: Profile) -> list[Source]:
    """The profile's rules sources by title (from the clause catalogs that quote them),
    so a reader sees which documents were certified against, not opaque file names."""
    titles = {c.source_file: c.source_title for c in load_catalogs()}
    return [
        Source(
            file=str(given.get("file")),
            title=titles.get(str(given.get("file")), ""),
            ref=str(given.get("ref", "")),
        )
        for given in profile.raw.get("sources") or []
    ]
