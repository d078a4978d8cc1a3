"""A report PDF read into a register record (docs/register.md#what-is-recorded): every
field from the report and the results.json attached to it, after checking that the two
agree and that the signature holds, so a record cannot claim what its report does not."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from harness.register.database import RegisterError
from harness.register.records import Artifact, Kind, Record

# The verdict that makes a certificate.
CERTIFIED = "PASS"


class Reading(msgspec.Struct, frozen=True, kw_only=True):
    """What a report says of itself: its record (numbered `stated`, or not yet), and its
    bytes, kept whole in the register."""

    stated: str | None  # the report number printed on it, if any
    record: Record
    pdf: bytes


def read_report(
    pdf: Path,
    anchors: Sequence[str],
    results: Path | None = None,
    at: datetime | None = None,
) -> Reading:
    """Read `pdf`: its attached results.json must be the one its page 1 hashes (and
    `results`, when given, the same bytes); a signature must verify against the
    register's `anchors` (PEM), at `at` (now unless given: `check` judges a kept report
    at the moment it was recorded). Raises RegisterError naming the file otherwise."""
    from harness.signing.attachment import SealError
    from harness.signing.verify import verify_report

    data = _read(pdf)  # the bytes verified are the bytes recorded, whatever the file does
    try:
        with tempfile.TemporaryDirectory(prefix="chcert-register-") as folder:
            trust = []
            for i, pem in enumerate(anchors):
                (path := Path(folder) / f"anchor{i}.pem").write_text(pem)
                trust.append(path)
            (copy := Path(folder) / "report.pdf").write_bytes(data)
            checked = verify_report(copy, trust, at=at)
    except SealError as error:
        raise RegisterError(str(error).replace(str(copy), str(pdf))) from None
    if not checked.readable or checked.embedded is None or checked.embedded_sha256 is None:
        raise RegisterError(f"{pdf}: not a chcert report: {'; '.join(checked.problems)}")
    if any(signature.problems for signature in checked.signatures):
        raise RegisterError(f"{pdf}: its signature does not verify: {'; '.join(checked.problems)}")
    if not checked.hash_matches:
        raise RegisterError(
            f"{pdf}: its results.json contradicts its PDF: {'; '.join(checked.problems)}"
        )
    if checked.signed and not checked.ok:
        raise RegisterError(f"{pdf}: its signature does not verify: {'; '.join(checked.problems)}")
    if checked.signed and not checked.trust_checked:
        raise RegisterError(
            f"{pdf}: signed, but the register trusts no signing certificate "
            "(chcert register init --trust CERT)"
        )
    attached = checked.embedded
    if results is not None:
        given = _read(results)
        if given != attached:
            raise RegisterError(
                f"{results} contradicts its PDF {pdf}: SHA-256 "
                f"{hashlib.sha256(given).hexdigest()} is not the attached results.json's "
                f"{checked.embedded_sha256}"
            )
    document = _results(pdf, attached)
    signature = checked.signatures[0] if checked.signatures else None
    record = _record(
        document,
        number="",  # the register's to give
        report_sha256=hashlib.sha256(data).hexdigest(),
        results_sha256=checked.embedded_sha256,
        signer=signature.signer if signature else None,
        signed_at=(signature.timestamp.time if signature and signature.timestamp else None)
        or (signature.signing_time if signature else None),
    )
    lab = document.get("manifest", {}).get("laboratory") or {}
    stated = lab.get("report_number") if isinstance(lab, dict) else None
    return Reading(stated=stated or None, record=record, pdf=data)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise RegisterError(f"{path}: {error.strerror or error}") from None


def _results(pdf: Path, attached: bytes) -> dict[str, Any]:
    from harness import strictjson
    from harness.results.files import results_problem

    try:
        document = strictjson.loads(attached.decode("utf-8"))
    except ValueError as error:
        raise RegisterError(f"{pdf}: its attached results.json is not JSON ({error})") from None
    problem = results_problem(document)
    if problem is not None:
        raise RegisterError(f"{pdf}: its attached file is not a results.json {problem}")
    assert isinstance(document, dict)  # results_problem holds it to the schema
    return document


def _game(hello: Any) -> str:
    if not isinstance(hello, dict):
        return "?"
    words = [str(hello.get(key)) for key in ("name", "version") if hello.get(key)]
    return " ".join(words) or "?"


def _record(
    document: dict[str, Any],
    *,
    number: str,
    report_sha256: str,
    results_sha256: str,
    signer: str | None,
    signed_at: str | None,
) -> Record:
    """The record of a results.json: a certificate only for a signed PASS naming its build."""
    manifest = document.get("manifest") or {}
    artifacts = tuple(
        Artifact(name=a["name"], sha256=a["sha256"], bytes=a["bytes"])
        for a in manifest.get("artifacts") or []
    )
    verdict = str(document.get("verdict"))
    why = []
    if verdict != CERTIFIED:
        why.append(f"its verdict is {verdict}")
    if signer is None:
        why.append("it is not signed")
    if not artifacts:
        why.append("it names no build (certify --artifact FILE)")
    lab = manifest.get("laboratory") or {}
    return Record(
        number=number,
        kind=Kind.TEST_RECORD if why else Kind.CERTIFICATE,
        verdict=verdict,
        why_not_certificate="; ".join(why),
        report_id=str(manifest.get("report_id") or ""),
        profile=str((document.get("profile") or {}).get("name", "?")),
        profile_sha256=str(manifest.get("profile_sha256") or ""),
        build_sha256=artifacts[0].sha256 if artifacts else None,
        game=_game(document.get("implementation")),
        report_sha256=report_sha256,
        results_sha256=results_sha256,
        signer=signer,
        signed_at=signed_at,
        laboratory=lab.get("name") if isinstance(lab, dict) else None,
        finished=str(manifest.get("finished") or ""),
        artifacts=artifacts,
    )
