"""A laboratory's attestations (`chcert certify --attest FILE`, docs/verdict.md).

An attestation is the laboratory's written record that a clause was verified
outside the harness (`pass`), or does not apply to the game (`not_applicable`),
with its evidence, author and date. It turns a clause the harness could not test
into `attested`; it never covers a clause that ran and failed. The file follows
specs/schemas/attestations.schema.json; errors name the file and line.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from harness._schema import load_yaml, validate
from harness.errors import SpecError
from harness.rules.catalogs import Clause


def load_attestations(path: str | Path, clauses: list[Clause]) -> list[dict[str, Any]]:
    """The attestations of a file, each naming a clause of the profile under certification."""
    doc = load_yaml(path)
    entries = doc.data.get("attestations") if isinstance(doc.data, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        # YAML reads an unquoted 2026-11-30 as a date; the record keeps the text.
        if isinstance(entry, dict) and isinstance(entry.get("date"), datetime.date):
            entry["date"] = entry["date"].isoformat()
    validate(doc, "attestations.schema.json")
    known = {c.id for c in clauses}
    seen: set[str] = set()
    attestations = []
    for i, entry in enumerate(doc.data["attestations"]):
        line = doc.line_of(("attestations", i, "clause"))
        clause = entry["clause"]
        if clause not in known:
            raise SpecError(
                path, line, f"clause {clause!r} is not a clause of the profile under certification"
            )
        if clause in seen:
            raise SpecError(path, line, f"clause {clause!r} is attested twice")
        seen.add(clause)
        _verify_entry(doc.path, doc.line_of(("attestations", i)), entry)
        fields = {k: entry[k] for k in ("clause", "result", "evidence", "by", "date")}
        attestations.append({**fields, "laboratory": doc.data.get("laboratory")})
    return attestations


def _verify_entry(path: Path, line: int | None, entry: dict[str, Any]) -> None:
    """What the schema cannot say: the date is a real day, and not after today (a record
    of work done); the evidence and the signer are words, not blanks."""
    try:
        day = datetime.date.fromisoformat(entry["date"])
    except ValueError as exc:
        raise SpecError(path, line, f"date {entry['date']!r} is not a date: {exc}") from None
    if day > datetime.date.today():
        raise SpecError(path, line, f"date {entry['date']} is in the future")
    for field in ("evidence", "by"):
        if not entry[field].strip():
            raise SpecError(path, line, f"{field} is blank")
