"""Registers and reports for the register's tests (docs/register.md): a fresh register on
SQLite or on the PostgreSQL server `.ci/run` starts (CHCERT_POSTGRES_URL), and signed
reports made from a real results.json without running a certification."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Any

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from harness.signing.attachment import attach_results
from harness.signing.sign import sign_pdf
from tests.certs import PASSPHRASE, Lab

FIXTURE = Path(__file__).parent / "fixtures" / "results-schema-4-mutant.json"
POSTGRES = "CHCERT_POSTGRES_URL"  # a server URL whose user may create databases


def postgres_url() -> str | None:
    return os.environ.get(POSTGRES) or None


def fresh_register(kind: str, tmp_path: Path) -> str:
    """`--register` of a register that does not exist yet: a path, or a new database on
    the server."""
    if kind == "sqlite":
        tmp_path.mkdir(parents=True, exist_ok=True)
        return str(tmp_path / "register.db")
    import psycopg

    server = postgres_url()
    assert server is not None
    name = f"chcert_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


def raw_sql(given: str, *statements: str) -> None:
    """Change the database behind chcert's back, as a tamperer with its password would."""
    from sqlalchemy import text

    from harness.register.database import engine_of, url_of

    engine = engine_of(url_of(given))
    with engine.execution_options(chcert_write=True).begin() as conn:
        for statement in statements:
            conn.execute(text(statement))
    engine.dispose()


def results(
    verdict: str = "PASS",
    *,
    build: bytes | None = b"build 1",
    number: str | None = None,
    profile: str = "standard",
) -> bytes:
    """A results.json of this harness's model (an archived one, edited): its verdict, its
    build's file (none: no --artifact), the report number it states, the profile it ran
    (its SHA-256 this chcert's), a fresh report id."""
    from harness.rules.profiles import load_profile

    document: dict[str, Any] = copy.deepcopy(json.loads(FIXTURE.read_text()))
    document["verdict"] = verdict
    document["profile"]["name"] = profile
    manifest = document["manifest"]
    manifest["profile_sha256"] = load_profile(profile).sha256
    manifest["report_id"] = f"CHC-TEST-{uuid.uuid4().hex[:8].upper()}"
    manifest["artifacts"] = (
        [
            {
                "name": "game.tgz",
                "path": "/builds/game.tgz",
                "bytes": len(build),
                "sha256": hashlib.sha256(build).hexdigest(),
            }
        ]
        if build is not None
        else []
    )
    laboratory = manifest["laboratory"]
    laboratory.pop("report_number")
    if number is not None:
        laboratory["report_number"] = number
    return (json.dumps(document, indent=1) + "\n").encode()


def report(
    folder: Path,
    lab: Lab | None,
    data: bytes,
    *,
    name: str = "report.pdf",
    printed: bytes | None = None,
) -> Path:
    """A report PDF whose page 1 prints the SHA-256 of `printed` (default: the attached
    `data`), with `data` attached and, given a laboratory, signed by it."""
    pdf = folder / name
    page = canvas.Canvas(str(pdf), pagesize=A4)
    page.setFont("Courier", 8)
    page.drawString(60, 760, f"results.json SHA-256: {hashlib.sha256(printed or data).hexdigest()}")
    page.drawString(60, 740, uuid.uuid4().hex)  # every report's bytes differ
    page.showPage()
    page.save()
    attach_results(pdf, data)
    if lab is not None:
        sign_pdf(pdf, lab.key, lab.cert, PASSPHRASE)
    return pdf


def issue_many(given: str, count: int, folder: str) -> list[str]:
    """One engineer's process: `count` numbers allocated, then their reports (unsigned
    FAILs, test records) drawn and recorded, as fast as it can (the concurrency tests)."""
    from harness.register.reports import read_report
    from harness.register.store import Register

    register = Register(given)
    numbers = []
    for _ in range(count):
        number = register.allocate("concurrent")
        pdf = report(Path(folder), None, results("FAIL", number=number), name=f"{number}.pdf")
        register.record(read_report(pdf, []), by=f"pid {os.getpid()}")
        numbers.append(number)
    register.close()
    return numbers
