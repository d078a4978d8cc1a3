"""Clause catalogs: every rule clause of each rules source, from specs/clauses/*.yaml.

A catalog encodes one rules source document (NNN_*.txt, named by file): each clause
has a stable id, a one-line statement, the source's own reference, category,
severity, the profiles it applies to and how it is verified. Text that is not
about this game is listed as out of scope, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness._schema import load_yaml, validate
from harness.errors import SpecError
from harness.paths import SPECS_DIR
from harness.rules.profiles import Profile, Varied

CLAUSE_DIR = SPECS_DIR / "clauses"


@dataclass(frozen=True)
class Clause:
    id: str
    title: str
    statement: str
    source_file: str
    ref: str
    category: str
    severity: str
    profiles: tuple[str, ...]
    verification: tuple[str, ...]
    checks: tuple[str, ...]
    interpretation: str | None
    claim: str | None
    catalog: str
    line: int | None
    differential: tuple[str, ...] = ()  # fault kinds the decision table attributes here
    # Kinds another clause owns that this clause's own vectors are judged on too: a rule
    # that is part of another's (the turn and river of the deal), so its items can fail.
    judges: tuple[str, ...] = ()
    # The profile fields the statement depends on: a variation changing one varies it.
    parameters: tuple[str, ...] = ()
    side_bet: bool = False  # about the AA Bonus: no clause of a profile offering none

    @property
    def sources(self) -> list[str]:
        """Source references as results.json lists them: 'file: ref'."""
        return [f"{self.source_file}: {self.ref}"]


@dataclass(frozen=True)
class Catalog:
    name: str
    path: Path
    source_file: str
    source_title: str
    clauses: tuple[Clause, ...]
    out_of_scope: tuple[tuple[str, str], ...]

    def for_profile(self, profile: str) -> list[Clause]:
        return [c for c in self.clauses if profile in c.profiles]


def fault_owners(clauses: list[Clause]) -> dict[str, str]:
    """Which clause each differential fault kind is attributed to (docs/differential.md):
    the clauses' `differential:` lists, unique per profile (load_catalog checks)."""
    return {kind: c.id for c in clauses for kind in c.differential}


def load_catalog(path: str | Path) -> Catalog:
    """Load and validate one catalog; duplicate clause ids are an error with their line."""
    doc = load_yaml(path)
    validate(doc, "clauses.schema.json")
    data = doc.data
    if Path(path).stem != data["catalog"]:
        raise SpecError(path, doc.line_of(("catalog",)), "catalog name must match the file name")
    clauses: list[Clause] = []
    seen: set[str] = set()
    for i, entry in enumerate(data["clauses"]):
        line = doc.line_of(("clauses", i))
        if entry["id"] in seen:
            raise SpecError(path, line, f"duplicate clause id {entry['id']!r}")
        if not entry["id"].startswith(data["catalog"] + "-"):
            raise SpecError(
                path, line, f"clause id {entry['id']!r} must start with '{data['catalog']}-'"
            )
        if ("checks" in entry["verification"]) != bool(entry.get("checks")):
            raise SpecError(
                path, line, "verification 'checks' and a non-empty 'checks' list go together"
            )
        seen.add(entry["id"])
        clauses.append(
            Clause(
                id=entry["id"],
                title=entry["title"],
                statement=entry["statement"],
                source_file=data["source"]["file"],
                ref=entry["ref"],
                category=entry["category"],
                severity=entry["severity"],
                profiles=tuple(entry["profiles"]),
                verification=tuple(entry["verification"]),
                checks=tuple(entry.get("checks", [])),
                interpretation=entry.get("interpretation"),
                claim=entry.get("claim"),
                catalog=data["catalog"],
                line=line,
                differential=tuple(entry.get("differential", [])),
                judges=tuple(entry.get("judges", [])),
                parameters=tuple(entry.get("parameters", [])),
                side_bet=entry.get("side_bet", False),
            )
        )
    for profile in sorted({p for c in clauses for p in c.profiles}):
        owners: dict[str, str] = {}
        for clause in (c for c in clauses if profile in c.profiles):
            for kind in clause.differential:
                if kind in owners:
                    raise SpecError(
                        path,
                        clause.line,
                        f"fault kind {kind!r} belongs to {owners[kind]} already under profile "
                        f"{profile}: the differential attributes each kind to one clause",
                    )
                owners[kind] = clause.id
    for clause in clauses:  # a vector item is judged on its clause's kinds: it needs one
        if "vectors" in clause.verification and not (clause.differential or clause.judges):
            raise SpecError(
                path,
                clause.line,
                f"{clause.id} is verified by vectors but owns and judges no fault kind of the "
                "decision table (docs/differential.md): its vectors could never fail",
            )
    return Catalog(
        name=data["catalog"],
        path=Path(path),
        source_file=data["source"]["file"],
        source_title=data["source"]["title"],
        clauses=tuple(clauses),
        out_of_scope=tuple((o["ref"], o["reason"]) for o in data["out_of_scope"]),
    )


@dataclass(frozen=True)
class Applicable:
    """The clauses certified under a profile, and those of its catalogs that are not: a
    variation's are its base's, but for the claimed figures it does not restate (the base
    source's describe the base's tables) and, when it removes the AA Bonus, the clauses
    about it (docs/profiles.md)."""

    clauses: list[Clause]
    claims_not_restated: list[Clause]
    not_offered: list[Clause]


def applicable(catalogs: Iterable[Catalog], profile: Profile) -> Applicable:
    """The profile's clauses (see Applicable)."""
    mine = [c for cat in catalogs for c in cat.for_profile(profile.clauses_from)]
    claimed = {c.figure for c in profile.claims}
    unclaimed = [c for c in mine if profile.base is not None and c.claim and c.claim not in claimed]
    not_offered = [c for c in mine if c.side_bet and profile.aa_table is None]
    dropped = {c.id for c in (*unclaimed, *not_offered)}
    return Applicable([c for c in mine if c.id not in dropped], unclaimed, not_offered)


def varied(clause: Clause, profile: Profile) -> list[Varied]:
    """What the profile, an approved variation, changes of the fields the clause states."""
    stated = {*clause.parameters, *([f"claims.{clause.claim}"] if clause.claim else [])}
    return [v for v in profile.variations if v.parameter in stated]


def unstated_variations(clauses: Iterable[Clause], profile: Profile) -> list[Varied]:
    """The variation's changes no clause states: nothing could certify them."""
    stated = {p for c in clauses for p in c.parameters}
    return [
        v
        for v in profile.variations
        if not v.field.startswith("claims.") and v.parameter not in stated
    ]


def clause_index(catalogs: list[Catalog]) -> dict[str, Clause]:
    """Every clause of the catalogs by id."""
    return {c.id: c for cat in catalogs for c in cat.clauses}


def load_catalogs(names: list[str] | tuple[str, ...] | None = None) -> list[Catalog]:
    """The named catalogs (all under specs/clauses when None), in name order."""
    if names is None:
        return [load_catalog(p) for p in sorted(CLAUSE_DIR.glob("*.yaml"))]
    missing = [n for n in names if not (CLAUSE_DIR / f"{n}.yaml").exists()]
    if missing:
        raise SpecError(CLAUSE_DIR, None, f"no catalog named {', '.join(missing)}")
    return [load_catalog(CLAUSE_DIR / f"{n}.yaml") for n in sorted(names)]
