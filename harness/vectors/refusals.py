"""Refusal vectors: requests the game must refuse, and the moment of a round they come in.

Files vectors/refusals/*.yaml follow specs/schemas/refusal-vectors.schema.json,
laid out like the settlement vectors (harness/vectors/settlement.py): groups sharing their
profiles, tests citing the clause they protect in every catalog that states it,
exactly one applying under each profile. Loading lints what the schema cannot say:
unique ids, clauses that exist and apply, flags explained, placeholders known.
How each is played and judged: harness/checks/refusals.py, docs/refusals.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._schema import load_yaml, validate
from harness.errors import SpecError
from harness.paths import VECTORS_DIR
from harness.rules.catalogs import Clause
from harness.vectors.settlement import clause_for, verify_unique_ids

REFUSAL_DIR = VECTORS_DIR / "refusals"

# The '$' values a test may use; harness/checks/refusals.py fills them in.
PLACEHOLDERS = frozenset(
    {"$ante", "$aa", "$ante_over", "$ante_under", "$aa_over", "$aa_under", "$aa_over_cap",
     "$seat_over", "$too_many_seats", "$round", "$absent_seat"}
)  # fmt: skip


@dataclass(frozen=True)
class RefusalVector:
    """One bad request, when it comes, and the error codes that fit it."""

    id: str
    clauses: tuple[str, ...]
    clause_for: dict[str, str]  # profile -> the cited clause that applies under it
    comment: str
    flags: tuple[str, ...]
    profiles: tuple[str, ...]
    moment: str  # none | open | half-decided | settled
    needs: tuple[str, ...]
    op: str | None
    params: dict[str, Any]
    text: str | None
    text_op: str | None
    refuse_with: tuple[str, ...]
    path: Path
    line: int | None


def load_refusal_file(path: str | Path, clauses: dict[str, Clause]) -> list[RefusalVector]:
    """Load, validate and lint one refusal vector file against the clause catalogs."""
    doc = load_yaml(path)
    validate(doc, "refusal-vectors.schema.json")
    notes = doc.data["notes"]
    found: list[RefusalVector] = []
    for g, group in enumerate(doc.data["groups"]):
        for t, test in enumerate(group["tests"]):
            key = ("groups", g, "tests", t)
            line = doc.line_of(key)
            for flag in test.get("flags", []):
                if flag not in notes:
                    raise SpecError(path, line, f"flag {flag!r} is not explained in notes")
            used = _placeholders(test.get("params", {}))
            unknown = sorted(used - PLACEHOLDERS)
            if unknown:
                raise SpecError(
                    path, line, f"test {test['id']}: unknown placeholder {unknown[0]!r}"
                )
            if test["moment"] == "none" and used & {"$round", "$absent_seat"}:
                raise SpecError(path, line, f"test {test['id']}: moment none has no round to name")
            found.append(
                RefusalVector(
                    id=test["id"],
                    clauses=tuple(test["clauses"]),
                    clause_for=clause_for(
                        path, doc.line_of((*key, "clauses")), test, group, clauses
                    ),
                    comment=test["comment"].strip(),
                    flags=tuple(test.get("flags", [])),
                    profiles=tuple(group["profiles"]),
                    moment=test["moment"],
                    needs=_needs(test, used),
                    op=test.get("op"),
                    params=test.get("params", {}),
                    text=test.get("text"),
                    text_op=test.get("text_op"),
                    refuse_with=tuple(test["refuse_with"]),
                    path=Path(path),
                    line=line,
                )
            )
    return found


def _needs(test: dict[str, Any], used: set[str]) -> tuple[str, ...]:
    """What the test needs: as listed, and what its form implies whether listed or not."""
    needs = list(test.get("needs", []))
    implied = {
        "text": "text" in test,
        "seats:2": test["moment"] == "half-decided" or "$absent_seat" in used,
    }
    needs += [need for need, wanted in implied.items() if wanted and need not in needs]
    return tuple(needs)


def _placeholders(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if value.startswith("$") else set()
    if isinstance(value, dict):
        return set().union(*(_placeholders(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_placeholders(v) for v in value)) if value else set()
    return set()


def refusal_files(root: Path = REFUSAL_DIR) -> list[Path]:
    """Every refusal vector file, in a fixed order (xdist workers collect identically)."""
    return sorted(root.glob("*.yaml"))


def load_all_refusals(clauses: dict[str, Clause], root: Path = REFUSAL_DIR) -> list[RefusalVector]:
    """Every refusal vector; ids unique across the files."""
    found = [r for path in refusal_files(root) for r in load_refusal_file(path, clauses)]
    verify_unique_ids(found)
    return found
