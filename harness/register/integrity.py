"""What `chcert register check` finds (docs/register.md#the-history): each record against
the hash its event carries and against its kept report read again, the trusted signers
and settings against their events, each audit's rows, each status change against the
rules. Pure functions over the records the store reads; `import` applies them to an
export before writing it."""

from __future__ import annotations

import hashlib
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from harness.register.chain import digest
from harness.register.database import RegisterError
from harness.register.records import (
    ALLOWED_FROM,
    STATUS_OF,
    Event,
    EventKind,
    Problem,
    Record,
    Standing,
    Status,
)


def record_digest(record: Record) -> str:
    """The hash of a record as its issuing event carries it (its number included)."""
    return digest(record.canonical())


def anchor_of(pem: str) -> tuple[str, str]:
    """A signing certificate's SHA-256 (of its DER) and subject; RegisterError if the
    text holds no certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    try:
        cert = x509.load_pem_x509_certificate(pem.encode())
    except ValueError as error:
        raise RegisterError(f"not a PEM certificate ({error})") from None
    fingerprint = hashlib.sha256(cert.public_bytes(Encoding.DER)).hexdigest()
    return fingerprint, cert.subject.rfc4514_string()


def record_problems(
    records: Sequence[Record], history: Sequence[Event], documents: dict[str, bytes]
) -> list[Problem]:
    """Each record against the hash its issuing event carries, each kept report against
    the record's hash of it; a record no event issued, an issued record gone."""
    problems: list[Problem] = []
    issued = {
        ev.number: ev
        for ev in history
        if ev.kind in (EventKind.ISSUED, EventKind.RECORDED) and ev.number is not None
    }
    allocated = [ev.number for ev in history if ev.kind is EventKind.ALLOCATED]
    for number in sorted({n for n in allocated if allocated.count(n) > 1 and n}):
        problems.append(Problem(where=number, what="allocated twice"))
    present = set()
    for record in records:
        present.add(record.number)
        ev = issued.get(record.number)
        if ev is None:
            problems.append(
                Problem(where=record.number, what="no event records it: written outside chcert")
            )
            continue
        if ev.detail.get("record") != record_digest(record):
            problems.append(
                Problem(
                    where=record.number,
                    what="its record was edited: it no longer matches the hash "
                    f"event {ev.seq} carries",
                )
            )
        pdf = documents.get(record.number)
        if pdf is None:
            problems.append(Problem(where=record.number, what="its report is no longer kept"))
        elif hashlib.sha256(bytes(pdf)).hexdigest() != record.report_sha256:
            problems.append(
                Problem(where=record.number, what="its kept report no longer matches its hash")
            )
    for number, ev in sorted(issued.items()):
        if number not in present:
            problems.append(
                Problem(
                    where=number, what=f"deleted: event {ev.seq} recorded it, no record is left"
                )
            )
    return problems


def reread_problems(
    records: Sequence[Record],
    history: Sequence[Event],
    documents: dict[str, bytes],
    anchors: Sequence[str],
    progress: Callable[[int, int], None],
) -> list[Problem]:
    """Each kept report read again as `add` read it, at the moment it was recorded: a
    record written with recomputed hashes still needs a report the laboratory's key
    signed and that says what the record says."""
    from harness.register.reports import read_report

    recorded = {
        ev.number: ev.at
        for ev in history
        if ev.kind in (EventKind.ISSUED, EventKind.RECORDED) and ev.number is not None
    }
    problems: list[Problem] = []
    kept = [r for r in records if r.number in documents and r.number in recorded]
    with tempfile.TemporaryDirectory(prefix="chcert-check-") as folder:
        for done, record in enumerate(kept, start=1):
            path = Path(folder) / "report.pdf"
            path.write_bytes(documents[record.number])
            at = datetime.fromisoformat(recorded[record.number].replace("Z", "+00:00"))
            try:
                reading = read_report(path, anchors, at=at)
            except RegisterError as error:
                said = str(error).replace(str(path), "the kept report")
                problems.append(Problem(where=record.number, what=f"read again: {said}"))
                continue
            finally:
                progress(done, len(kept))
            again = msgspec.structs.replace(reading.record, number=record.number)
            if record_digest(again) != record_digest(record):
                differ = [
                    name
                    for name in record.__struct_fields__
                    if getattr(again, name) != getattr(record, name)
                ]
                problems.append(
                    Problem(
                        where=record.number,
                        what=f"its record says what its kept report does not ({', '.join(differ)})",
                    )
                )
            elif reading.stated not in (None, record.number):
                problems.append(
                    Problem(
                        where=record.number,
                        what=f"its kept report is numbered {reading.stated}",
                    )
                )
    return problems


def setting_problems(
    settings: dict[str, str], signers: Sequence[Any], history: Sequence[Event]
) -> list[Problem]:
    """The settings as the register's creation set them; each trusted signer as an event
    trusted it (a swapped certificate would let anyone's reports be certificates)."""
    problems: list[Problem] = []
    created = next((ev for ev in history if ev.kind is EventKind.CREATED), None)
    if created is not None and settings != created.detail:
        problems.append(
            Problem(where="settings", what=f"edited: event {created.seq} set {created.detail}")
        )
    trusted = {
        (ev.detail.get("sha256"), ev.detail.get("subject"))
        for ev in history
        if ev.kind is EventKind.TRUSTED
    }
    for signer in signers:
        try:
            read = anchor_of(signer.pem)
        except RegisterError:
            read = ("", "")
        if read != (signer.sha256, signer.subject) or read not in trusted:
            problems.append(
                Problem(
                    where=f"trusted signer {signer.subject}",
                    what="not trusted by any event: added or changed outside chcert",
                )
            )
    return problems


def audit_rows(rounds: dict[str, int], standings: dict[str, Standing]) -> list[dict[str, Any]]:
    return [
        {
            "build": build,
            "rounds": rounds[build],
            "coverage": str(standings[build].coverage),
            "number": standings[build].number,
        }
        for build in sorted(rounds)
    ]


def audit_problems(audits: Sequence[dict[str, Any]], history: Sequence[Event]) -> list[Problem]:
    """Each audit's rows against the hash its `audited` event carries."""
    problems: list[Problem] = []
    by_seq: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for row in audits:
        by_seq[row["seq"]].append({k: v for k, v in row.items() if k != "seq"})
    audited = {ev.seq: ev for ev in history if ev.kind is EventKind.AUDITED}
    for seq in sorted(set(by_seq) | set(audited)):
        ev = audited.get(seq)
        rows = sorted(by_seq.get(seq, []), key=lambda r: str(r["build"]))
        if ev is None or ev.detail.get("builds") != digest(rows):
            problems.append(
                Problem(where=f"event {seq}", what="its audit's builds were edited or deleted")
            )
    return problems


def status_problems(history: Sequence[Event]) -> list[Problem]:
    """Each status change against the rules, replayed in order."""
    problems: list[Problem] = []
    status: dict[str, Status] = {}
    for ev in history:
        if ev.number is None or ev.kind not in STATUS_OF:
            continue
        current = status.get(ev.number)
        allowed = ALLOWED_FROM.get(ev.kind)
        fresh = ev.kind in (EventKind.ISSUED, EventKind.RECORDED)
        if (fresh and current is not None) or (
            not fresh and (allowed is None or current not in allowed)
        ):
            problems.append(
                Problem(where=f"event {ev.seq}", what=f"{ev.number} {ev.kind} when {current}")
            )
        status[ev.number] = STATUS_OF[ev.kind]
    return problems
