"""What `chcert vectors check` enforces beyond the schemas: traceability and coverage.

* Every clause of every catalog is verified somehow: clauses verified by vectors
  have a vector under each profile they apply to; named checks exist; RNG,
  mathematics and manual review are named verifications reported as such.
* Every ante pay-table row of every profile is exercised against each dealer
  outcome (non-qualifying, player wins, tie, dealer wins), but a royal flush
  cannot lose.
* Every AA Bonus row of every profile wins in some vector, and some AA Bonus loses.

The row a vector exercises is read from its hand-worked expectation (the player's
category and the money), and for the AA Bonus from its hole + flop cards; the
oracle is never consulted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.checks import CHECKS
from harness.defaults import available_profiles
from harness.rules.catalogs import Catalog
from harness.rules.evaluator import Category, strength_of
from harness.rules.game import Action
from harness.rules.profiles import AABonusTable, Profile, load_profile
from harness.vectors.refusals import RefusalVector
from harness.vectors.settlement import Vector

OUTCOMES = ("nq", "win", "tie", "lose")
IMPOSSIBLE = {("royal_flush", "lose")}  # nothing beats a royal flush


@dataclass
class CoverageReport:
    problems: list[str] = field(default_factory=list)
    clauses: int = 0
    by_verification: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    vectors_per_profile: dict[str, int] = field(default_factory=dict)


def _outcome(vector: Vector, seat: int) -> str | None:
    exp = next(s for s in vector.expected_seats if s.seat == seat)
    assert vector.expected_dealer is not None
    if not vector.expected_dealer["qualifies"]:
        return "nq"
    if exp.ante.returned > exp.ante.stake:
        return "win"
    return "tie" if exp.ante.returned == exp.ante.stake else "lose"


def _ante_row(profile: Profile, hand: str) -> str:
    category = Category.from_wire(hand)
    return hand if category in profile.ante_table.odds else "other"


def ante_cells(profile: Profile, vectors: list[Vector]) -> set[tuple[str, str]]:
    """(row, outcome) pairs the profile's vectors exercise with a calling seat."""
    cells = set()
    for vector in vectors:
        if not vector.valid or profile.name not in vector.profiles:
            continue
        for seat in vector.seats:
            exp = next(s for s in vector.expected_seats if s.seat == seat.seat)
            if seat.action is Action.CALL and exp.hand:
                outcome = _outcome(vector, seat.seat)
                assert outcome is not None
                cells.add((_ante_row(profile, exp.hand), outcome))
    return cells


def aa_rows(profile: Profile, vectors: list[Vector]) -> tuple[set[str], bool]:
    """AA Bonus rows won under the profile, and whether some AA Bonus loses."""
    won: set[str] = set()
    lost = False
    for vector in vectors:
        if not vector.valid or profile.name not in vector.profiles:
            continue
        expected = {e.seat: e for e in vector.expected_seats}
        for seat in vector.seats:
            exp = expected[seat.seat]
            if not seat.aa_bonus or exp.aa_bonus is None:
                continue
            if exp.aa_bonus.returned > exp.aa_bonus.stake:
                row = AABonusTable.row_of(
                    strength_of((*vector.deal.seats[seat.seat], *vector.deal.flop))
                )
                if row is not None:
                    won.add(row)
            elif seat.action is Action.CALL:
                lost = True
    return won, lost


def check_coverage(
    catalogs: list[Catalog], vectors: list[Vector], refusals: Sequence[RefusalVector] = ()
) -> CoverageReport:
    """Traceability and coverage; a clause verified by vectors is covered by a settlement
    vector or a refusal vector (docs/refusals.md) citing it."""
    report = CoverageReport()
    profiles = {name: load_profile(name) for name in available_profiles()}
    for vector in vectors:
        for name in vector.profiles:
            if name not in profiles:
                report.problems.append(f"vector {vector.id}: unknown profile {name!r}")
    for catalog in catalogs:
        for clause in catalog.clauses:
            report.clauses += 1
            for kind in clause.verification:
                report.by_verification[kind] += 1
            for name in clause.profiles:
                if name not in profiles:
                    report.problems.append(f"{clause.id}: unknown profile {name!r}")
                elif catalog.name not in profiles[name].catalogs:
                    report.problems.append(
                        f"{clause.id}: applies to {name}, whose profile does not list catalog "
                        f"{catalog.name}"
                    )
            for check in clause.checks:
                if check not in CHECKS:
                    report.problems.append(f"{clause.id}: unknown check {check!r}")
            if "vectors" in clause.verification:
                for name in clause.profiles:
                    cited = [v.clause_for for v in vectors] + [r.clause_for for r in refusals]
                    if not any(c.get(name) == clause.id for c in cited):
                        report.problems.append(f"{clause.id}: no vector under profile {name}")
    for name, profile in profiles.items():
        if not profile.catalogs:
            continue
        report.vectors_per_profile[name] = sum(name in v.profiles for v in vectors)
        rows = [c.wire for c in profile.ante_table.odds] + ["other"]
        cells = ante_cells(profile, vectors)
        for row in rows:
            for outcome in OUTCOMES:
                if (row, outcome) not in cells and (row, outcome) not in IMPOSSIBLE:
                    report.problems.append(
                        f"profile {name}: ante row {row} never meets outcome {outcome}"
                    )
        if profile.aa_table is not None:
            won, lost = aa_rows(profile, vectors)
            for row in profile.aa_table.odds:
                if row not in won:
                    report.problems.append(f"profile {name}: AA Bonus row {row} never wins")
            if not lost:
                report.problems.append(f"profile {name}: no AA Bonus ever loses")
    return report
