"""The laboratory's register of certificates (docs/register.md), through `chcert register`
as a laboratory's scripts use it: on SQLite in the fast tier, on the PostgreSQL server
`.ci/run` starts in the slow tier (the same tests, CHCERT_POSTGRES_URL)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness.cli import main
from harness.register import database
from tests.certs import Lab, make_lab
from tests.pdftext import pdf_pages
from tests.registers import (
    fresh_register,
    issue_many,
    postgres_url,
    raw_sql,
    report,
    results,
)

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.slow),
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    return make_lab(tmp_path_factory.mktemp("lab"), "Example Lab")


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    return make_lab(tmp_path_factory.mktemp("stranger"), "Someone Else")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgresql" and postgres_url() is None:
        if "postgresql" in os.environ.get("CHCERT_REQUIRE_TOOLS", "").split():
            pytest.fail("CHCERT_POSTGRES_URL is required here (CHCERT_REQUIRE_TOOLS)")
        pytest.skip("no PostgreSQL server (CHCERT_POSTGRES_URL)")
    return str(request.param)


class Chcert:
    """`chcert` run in-process, its exit code and what it printed."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err


@pytest.fixture
def chcert(capsys: pytest.CaptureFixture[str]) -> Chcert:
    return Chcert(capsys)


@pytest.fixture
def reg(backend: str, tmp_path: Path, lab: Lab, chcert: Chcert) -> str:
    """A new register trusting the laboratory's signing certificate."""
    given = fresh_register(backend, tmp_path)
    code, out, err = chcert("register", "init", "--register", given, "--trust", str(lab.cert))
    assert code == 0, err
    assert "created" in out and "trusts " in out and "Example Lab" in out
    return given


def _listed(chcert: Chcert, reg: str) -> list[dict[str, Any]]:
    code, out, err = chcert("register", "list", "--register", reg, "--json")
    assert code == 0, err
    listed: list[dict[str, Any]] = json.loads(out)
    return listed


def _add(chcert: Chcert, reg: str, pdf: Path, *extra: str) -> tuple[int, str, str]:
    return chcert("register", "add", str(pdf), "--register", reg, *extra)


def _check(chcert: Chcert, reg: str, *extra: str) -> tuple[int, str]:
    code, out, err = chcert("register", "check", "--register", reg, *extra)
    assert code in (0, 1), err
    return code, out


def _head(out: str) -> str:
    return next(w for w in out.split() if ":" in w and len(w.split(":")[-1]) == 64)


# ------------------------------------------------------------------ issuing


def test_a_signed_pass_naming_its_build_is_a_certificate(
    reg: str, lab: Lab, chcert: Chcert, tmp_path: Path
) -> None:
    data = results("PASS")
    pdf = report(tmp_path, lab, data)
    code, out, err = _add(chcert, reg, pdf)
    assert code == 0, err
    assert "CHC-000001: certificate issued" in out
    (entry,) = _listed(chcert, reg)
    build = json.loads(data)["manifest"]["artifacts"][0]["sha256"]
    assert entry["number"] == "CHC-000001" and entry["status"] == "issued"
    assert entry["verdict"] == "PASS" and entry["kind"] == "certificate"
    assert entry["build_sha256"] == build
    assert entry["report_sha256"] == hashlib.sha256(pdf.read_bytes()).hexdigest()
    assert entry["supersedes"] is None and "Example Lab" in entry["signer"]
    assert _check(chcert, reg)[0] == 0
    # looked up by its build's SHA-256 and by its report's, as the page does
    for key in (build, entry["report_sha256"], "CHC-000001"):
        code, out, _ = chcert("register", "show", key, "--register", reg)
        assert code == 0 and out.startswith("CHC-000001: certificate, issued")


@pytest.mark.parametrize(
    ("verdict", "build", "signed", "why"),
    [
        ("FAIL", b"b", True, "its verdict is FAIL"),
        ("INCOMPLETE", b"b", True, "its verdict is INCOMPLETE"),
        ("PASS", b"b", False, "it is not signed"),
        ("PASS", None, True, "it names no build"),
    ],
)
def test_anything_else_is_a_test_record_never_a_certificate(
    reg: str,
    lab: Lab,
    chcert: Chcert,
    tmp_path: Path,
    verdict: str,
    build: bytes | None,
    signed: bool,
    why: str,
) -> None:
    pdf = report(tmp_path, lab if signed else None, results(verdict, build=build))
    code, out, err = _add(chcert, reg, pdf)
    assert code == 0, err
    assert "test record, not a certificate" in out and why in out
    (entry,) = _listed(chcert, reg)
    assert entry["kind"] == "test record" and entry["status"] == "recorded"
    code, _, err = chcert(
        "register", "withdraw", entry["number"], "--reason", "x", "--register", reg
    )
    assert code == 4 and "is a test record, not a certificate" in err


def test_a_number_is_the_registers_own_and_given_once(
    reg: str, lab: Lab, chcert: Chcert, tmp_path: Path
) -> None:
    from harness.register.store import Register

    number = Register(reg).allocate("CHC-TEST")
    assert number == "CHC-000001"
    pdf = report(tmp_path, lab, results(number=number), name="a.pdf")
    assert _add(chcert, reg, pdf)[0] == 0
    # the same report again, another report stating the same number, a number from elsewhere
    again = report(tmp_path, lab, results(number=number), name="b.pdf")
    foreign = report(tmp_path, lab, results(number="EGL-2025-0417"), name="c.pdf")
    for refused, said in (
        (pdf, "already recorded"),
        (again, "already recorded, as a certificate"),
        (foreign, "was not allocated by this register"),
    ):
        code, _, err = _add(chcert, reg, refused)
        assert code == 4 and said in err and err.count("\n") == 1
    assert [e["number"] for e in _listed(chcert, reg)] == ["CHC-000001"]
    # a report stating no number takes the next
    code, out, _ = _add(chcert, reg, report(tmp_path, lab, results(), name="d.pdf"))
    assert code == 0 and out.startswith("CHC-000002")
    assert _check(chcert, reg)[0] == 0


# ------------------------------------------------------------------ status


def _issue(chcert: Chcert, reg: str, lab: Lab, folder: Path, name: str) -> str:
    code, out, err = _add(chcert, reg, report(folder, lab, results(), name=f"{name}.pdf"))
    assert code == 0, err
    return out.split(":")[0]


def test_supersede_withdraw_revoke_and_expire_by_the_rules(
    reg: str, lab: Lab, chcert: Chcert, tmp_path: Path
) -> None:
    a, b, c, d = (_issue(chcert, reg, lab, tmp_path, n) for n in "abcd")
    code, out, err = chcert(
        "register", "supersede", a, b, "--reason", "build 1.1 fixes the display", "--register", reg
    )
    assert code == 0, err
    assert f"{a}: superseded, replaced by {b}" in out
    entries = {e["number"]: e for e in _listed(chcert, reg)}
    assert entries[a]["status"] == "superseded" and entries[a]["superseded_by"] == b
    assert entries[b]["supersedes"] == a and entries[b]["status"] == "issued"
    code, out, _ = chcert("register", "show", a, "--register", reg, "--json")
    (shown,) = json.loads(out)
    assert shown["history"][-1]["reason"] == "build 1.1 fixes the display"
    refused = [
        (("supersede", b, a), "a supersession loop"),
        (("supersede", a, a), "a supersession loop"),
        (("supersede", c, b), "already replaces"),
        (("supersede", "CHC-999999", c), "no certificate or test record numbered CHC-999999"),
        (("withdraw", "CHC-999999"), "no certificate or test record numbered CHC-999999"),
        (("withdraw", a), "is superseded: it cannot be withdrawn"),
    ]
    for argv, said in refused:
        code, _, err = chcert("register", *argv, "--reason", "r", "--register", reg)
        assert code == 4 and said in err, (argv, err)
    code, _, err = chcert("register", "withdraw", c, "--reason", " ", "--register", reg)
    assert code == 4 and "give the reason" in err
    for argv in (("withdraw", c), ("revoke", c), ("expire", d), ("revoke", a)):
        code, _, err = chcert("register", *argv, "--reason", "audit finding", "--register", reg)
        assert code == 0, err
    code, _, err = chcert("register", "withdraw", c, "--reason", "again", "--register", reg)
    assert code == 4 and "is revoked" in err
    statuses = {e["number"]: e["status"] for e in _listed(chcert, reg)}
    assert statuses == {a: "revoked", b: "issued", c: "revoked", d: "expired"}
    assert _check(chcert, reg)[0] == 0


# ------------------------------------------------------------------ tampering


@pytest.fixture
def history(reg: str, lab: Lab, chcert: Chcert, tmp_path: Path) -> str:
    """A register with three certificates, one withdrawn: events 1 created, 2 trusted,
    3-4 the first (allocated, issued), 5-6 the second, 7-8 the third, 9 withdrawn."""
    numbers = [_issue(chcert, reg, lab, tmp_path, n) for n in "abc"]
    chcert("register", "withdraw", numbers[1], "--reason", "r", "--register", reg)
    return reg


TAMPERING = [
    (
        "an edited certificate",
        ["UPDATE certificates SET verdict = 'FAIL' WHERE number = 'CHC-000002'"],
        "CHC-000002: its record was edited",
    ),
    (
        "an edited build",
        ["UPDATE artifacts SET sha256 = '" + "a" * 64 + "' WHERE number = 'CHC-000001'"],
        "CHC-000001: its record was edited",
    ),
    (
        "an edited event",
        ["UPDATE events SET reason = 'nothing' WHERE seq = 9"],
        "event 9: edited",
    ),
    (
        "a deleted event",
        ["DELETE FROM events WHERE seq = 5"],
        "event 5: deleted",
    ),
    (
        "reordered events",
        [
            "UPDATE events SET seq = -1 WHERE seq = 5",
            "UPDATE events SET seq = 5 WHERE seq = 7",
            "UPDATE events SET seq = 7 WHERE seq = -1",
        ],
        "event 5: edited",
    ),
    (
        "the last event deleted",
        ["DELETE FROM events WHERE seq = 9"],
        "the chain's head: names event 9",
    ),
    (
        "a report that no longer matches its hash",
        [
            "UPDATE documents SET pdf = (SELECT pdf FROM documents WHERE number = 'CHC-000001')"
            " WHERE number = 'CHC-000003'"
        ],
        "CHC-000003: its kept report no longer matches its hash",
    ),
    (
        "a deleted certificate",
        [
            "DELETE FROM documents WHERE number = 'CHC-000003'",
            "DELETE FROM artifacts WHERE number = 'CHC-000003'",
            "DELETE FROM certificates WHERE number = 'CHC-000003'",
        ],
        "CHC-000003: deleted",
    ),
    (
        "a certificate inserted outside chcert",
        [
            "INSERT INTO certificates SELECT 'CHC-000099', kind, verdict, why_not_certificate,"
            " report_id, profile, profile_sha256, build_sha256, game, 'x', results_sha256,"
            " signer, signed_at, laboratory, finished FROM certificates WHERE number = "
            "'CHC-000001'"
        ],
        "CHC-000099: no event records it",
    ),
    (
        "an edited setting",
        ["UPDATE settings SET value = 'EGL' WHERE key = 'prefix'"],
        "settings: edited",
    ),
]


@pytest.mark.parametrize(("case", "statements", "named"), TAMPERING, ids=[t[0] for t in TAMPERING])
def test_check_finds_each_change_made_behind_its_back(
    history: str, chcert: Chcert, case: str, statements: list[str], named: str
) -> None:
    code, out = _check(chcert, history)
    assert code == 0 and "intact" in out
    raw_sql(history, *statements)
    code, out = _check(chcert, history)
    assert code == 1 and f"NOT intact: {named}" in out.splitlines()[0], out


def test_a_trusted_signer_swapped_is_found(history: str, stranger: Lab, chcert: Chcert) -> None:
    """A tamperer who trusts a key of their own could make any report a certificate."""
    pem = stranger.cert.read_text()
    raw_sql(history, f"UPDATE signers SET pem = '{pem}'")
    code, out = _check(chcert, history)
    assert code == 1 and "not trusted by any event" in out.splitlines()[0]


def test_a_certificate_forged_with_a_recomputed_chain_is_found_by_its_report(
    history: str, chcert: Chcert
) -> None:
    """Anyone who can write to the database can recompute SHA-256: a certificate added
    with its events re-chained holds together, even past a head kept earlier; but its
    kept report, read again, does not verify (only the laboratory's key signs one that
    does)."""
    from harness.register import schema
    from harness.register.chain import sealed
    from harness.register.integrity import record_digest
    from harness.register.records import EventKind, Record
    from harness.register.store import Register

    book = Register(history)
    genuine: Record = _records(book)[0]
    pdf = book.document(genuine.number) + b"\n% one more line\n"
    forged = msgspec.structs.replace(
        genuine,
        number="CHC-000004",
        game="Evil Slots 1.0",
        report_sha256=hashlib.sha256(pdf).hexdigest(),
    )
    head = book.head()
    at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    allocated = sealed(head.seq + 1, EventKind.ALLOCATED, forged.number, at, "x", "",
                       {"report_id": "x"}, head.hash)  # fmt: skip
    issued = sealed(head.seq + 2, EventKind.ISSUED, forged.number, at, "x", "",
                    {"record": record_digest(forged)}, allocated.hash)  # fmt: skip
    row = {k: v for k, v in msgspec.to_builtins(forged).items() if k != "artifacts"}
    with book.engine.begin() as conn:
        conn.execute(schema.certificates.insert().values(**row))
        conn.execute(schema.documents.insert().values(number=forged.number, pdf=pdf))
        for i, artifact in enumerate(forged.artifacts):
            values = {"number": forged.number, "position": i, **msgspec.to_builtins(artifact)}
            conn.execute(schema.artifacts.insert().values(**values))
        for ev in (allocated, issued):
            values = {**msgspec.to_builtins(ev), "detail": json.dumps(ev.detail)}
            conn.execute(schema.events.insert().values(**values))
        conn.execute(schema.head.update().values(seq=issued.seq, hash=issued.hash))
    book.close()
    code, out = _check(chcert, history, "--head", f"{head.seq}:{head.hash}")
    first = out.splitlines()[0]
    assert code == 1 and "NOT intact: CHC-000004: read again" in first, out
    assert "signature does not verify" in first


def _records(book: Any) -> list[Any]:
    with book._reading() as conn:
        return list(book._all_records(conn))


def test_an_event_changed_into_nonsense_is_a_finding_not_a_crash(
    history: str, chcert: Chcert
) -> None:
    raw_sql(history, "UPDATE events SET kind = 'bogus' WHERE seq = 5")
    code, out = _check(chcert, history)
    assert code == 1 and "NOT intact: event 5: unreadable" in out.splitlines()[0], out
    code, _, err = chcert("register", "list", "--register", history)
    assert code == 4 and "event 5: unreadable" in err and err.count("\n") == 1


def test_a_number_is_never_handed_out_twice_after_an_allocation_is_deleted(
    history: str,
) -> None:
    from harness.errors import UserError
    from harness.register.store import Register

    raw_sql(history, "DELETE FROM events WHERE seq = 7")  # CHC-000003's allocation
    with pytest.raises(UserError, match="CHC-000003, was given before"):
        Register(history).allocate("again")


def test_a_history_cut_short_and_rechained_is_found_by_the_head_kept(
    history: str, chcert: Chcert
) -> None:
    """Whoever deletes the last event and sets the head back leaves a register that holds
    together; only the head printed earlier, kept elsewhere, shows it."""
    code, out = _check(chcert, history)
    kept = _head(out)
    raw_sql(
        history,
        "DELETE FROM events WHERE seq = 9",
        "UPDATE chain_head SET seq = 8, hash = (SELECT hash FROM events WHERE seq = 8)",
    )
    assert _check(chcert, history)[0] == 0
    code, out = _check(chcert, history, "--head", kept)
    assert code == 1 and "NOT intact: event 9: the head given" in out


# ------------------------------------------------------------------ bad input


def test_a_signature_that_does_not_verify_is_refused_whole(
    reg: str, lab: Lab, stranger: Lab, chcert: Chcert, tmp_path: Path
) -> None:
    _, out = _check(chcert, reg)
    before = _head(out)
    broken = report(tmp_path, lab, results(), name="broken.pdf")
    data = bytearray(broken.read_bytes())
    at = data.index(b"results.json SHA-256") if b"results.json SHA-256" in data else len(data) // 3
    data[at + 5] ^= 1
    broken.write_bytes(bytes(data))
    cases = [
        (broken, "its signature does not verify"),
        (
            report(tmp_path, stranger, results(), name="stranger.pdf"),
            "its signature does not verify",
        ),
        (report(tmp_path, lab, results(), name="lie.pdf", printed=b"other"), "contradicts its PDF"),
        (tmp_path / "missing.pdf", "missing.pdf"),
    ]
    for pdf, said in cases:
        code, _, err = _add(chcert, reg, pdf)
        assert code == 4 and said in err and err.count("\n") == 1, (pdf, err)
    pdf = report(tmp_path, lab, results(), name="good.pdf")
    other = tmp_path / "other.json"
    other.write_bytes(results())
    code, _, err = _add(chcert, reg, pdf, "--results", str(other))
    assert code == 4 and "contradicts its PDF" in err
    code, out = _check(chcert, reg)
    assert code == 0 and _head(out) == before and _listed(chcert, reg) == []


def test_a_register_of_a_newer_schema_is_refused(reg: str, chcert: Chcert) -> None:
    raw_sql(reg, "UPDATE alembic_version SET version_num = 'r9999'")
    for argv in (("list",), ("check",), ("init",)):
        code, _, err = chcert("register", *argv, "--register", reg)
        assert code == 4 and "its schema (r9999) is newer than this chcert's" in err, err


def test_a_register_of_an_older_schema_is_upgraded_by_init_only(
    history: str, chcert: Chcert
) -> None:
    from alembic import command

    from harness.register.database import alembic_config, engine_of, url_of

    engine = engine_of(url_of(history))
    with engine.execution_options(chcert_write=True).begin() as conn:
        command.downgrade(alembic_config(conn), "r0001")  # as the first register chcert made
    engine.dispose()
    code, _, err = chcert("register", "list", "--register", history)
    assert code == 4 and "its schema (r0001) is older than this chcert's" in err
    code, out, err = chcert("register", "init", "--register", history)
    assert code == 0 and "schema upgraded from r0001 to r0002" in out, err
    assert len(_listed(chcert, history)) == 3 and _check(chcert, history)[0] == 0


def test_no_register_an_unreachable_server_and_a_bad_url(tmp_path: Path, chcert: Chcert) -> None:
    cases = [
        (str(tmp_path / "none.db"), "no such file (chcert register init"),
        ("postgresql://chcert@127.0.0.1:9/none", "unreachable"),
        ("mysql://h/db", "a path (SQLite) or a postgresql:// URL is expected"),
    ]
    for given, said in cases:
        code, _, err = chcert("register", "list", "--register", given)
        assert code == 4 and said in err and err.count("\n") == 1, err
    not_sqlite = tmp_path / "notes.db"
    not_sqlite.write_text("not a database, just notes\n" * 100)
    code, _, err = chcert("register", "list", "--register", str(not_sqlite))
    assert code == 4 and "not an SQLite database" in err


def test_a_locked_register_waits_then_refuses_whole(
    reg: str,
    backend: str,
    lab: Lab,
    chcert: Chcert,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another engineer's change, unfinished: this one waits LOCK_WAIT, then gives up
    with one line, having written nothing."""
    monkeypatch.setattr(database, "LOCK_WAIT", 0.5)
    if backend == "sqlite":
        holder: Any = sqlite3.connect(reg, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        said = "locked by another process"
    else:
        import psycopg

        holder = psycopg.connect(reg)
        holder.execute("SELECT * FROM chain_head FOR UPDATE")
        said = "locked by another change"
    try:
        code, _, err = _add(chcert, reg, report(tmp_path, lab, results()))
        assert code == 4 and said in err and err.count("\n") == 1, err
    finally:
        holder.close()  # its transaction rolled back
    assert _listed(chcert, reg) == [] and _check(chcert, reg)[0] == 0


# ------------------------------------------------------------------ backing up


def test_export_then_import_restores_it_and_a_tampered_export_is_refused(
    history: str, backend: str, chcert: Chcert, tmp_path: Path
) -> None:
    exported = tmp_path / "backup.json"
    code, out, err = chcert("register", "export", str(exported), "--register", history)
    assert code == 0, err
    head = _head(out)
    restored = fresh_register(backend, tmp_path / "restored")
    code, out, err = chcert("register", "import", str(exported), "--register", restored)
    assert code == 0, err
    assert _head(out) == head
    assert _listed(chcert, restored) == _listed(chcert, history)
    assert _check(chcert, restored, "--head", head)[0] == 0
    code, _, err = chcert("register", "import", str(exported), "--register", restored)
    assert code == 4 and "already holds a history" in err
    document = json.loads(exported.read_text())
    document["events"][8]["reason"] = "quietly changed"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(document))
    again = fresh_register(backend, tmp_path / "again")
    code, _, err = chcert("register", "import", str(tampered), "--register", again)
    assert code == 4 and "not imported: event 9: edited" in err
    for key, value in (("audits", [{}]), ("signers", [{"sha256": 1}]), ("events", [[]])):
        broken = json.loads(exported.read_text())
        broken[key] = value
        tampered.write_text(json.dumps(broken))
        code, _, err = chcert("register", "import", str(tampered), "--register", again)
        assert code == 4 and "not a register export" in err and err.count("\n") == 1, err


def _rechained(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events whose hashes are worked out again, as anyone can: a chain that holds."""
    from harness.register.chain import GENESIS, event_hash
    from harness.register.records import Event

    prev, out = GENESIS, []
    for ev in events:
        ev = {**ev, "prev": prev}
        ev["hash"] = prev = event_hash(msgspec.convert(ev, Event))
        out.append(ev)
    return out


def test_an_export_forged_and_rechained_is_refused_by_its_reports(
    history: str, backend: str, chcert: Chcert, tmp_path: Path
) -> None:
    """A FAIL's test record made an issued PASS in a backup, every hash worked out again:
    its kept report, read again, says otherwise."""
    from harness.register.integrity import record_digest
    from harness.register.records import Record

    failed = report(tmp_path, None, results("FAIL"), name="failed.pdf")
    code, out, _ = _add(chcert, history, failed)
    number = out.split(":")[0]
    exported = tmp_path / "backup.json"
    assert chcert("register", "export", str(exported), "--register", history)[0] == 0
    document = json.loads(exported.read_text())
    (kept,) = [r for r in document["records"] if r["number"] == number]
    kept.update(kind="certificate", verdict="PASS", why_not_certificate="", signer="CN=Lab")
    record = msgspec.convert({k: v for k, v in kept.items() if k != "pdf"}, Record)
    events = document["events"]
    (recorded,) = [e for e in events if e["number"] == number and e["kind"] == "recorded"]
    recorded.update(kind="issued", reason="", detail={"record": record_digest(record)})
    document["events"] = _rechained(document["events"])
    document["head"] = {"seq": len(document["events"]), "hash": document["events"][-1]["hash"]}
    exported.write_text(json.dumps(document))
    fresh = fresh_register(backend, tmp_path / "restored")
    code, _, err = chcert("register", "import", str(exported), "--register", fresh)
    assert code == 4 and f"not imported: {number}: its record says what its kept report" in err


def test_a_prefix_edited_behind_its_back_numbers_nothing(history: str) -> None:
    from harness.register.store import Register

    raw_sql(history, "UPDATE settings SET value = 'EVIL' WHERE key = 'prefix'")
    assert Register(history).allocate("x") == "CHC-000004"  # as the history created it


# ------------------------------------------------------------------ concurrency


@pytest.mark.slow  # processes started from scratch, on both databases
def test_engineers_issuing_at_once_never_share_a_number(
    reg: str, backend: str, tmp_path: Path
) -> None:
    processes, each = (6, 8) if backend == "postgresql" else (4, 6)
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        given = pool.starmap(issue_many, [(reg, each, str(tmp_path))] * processes)
    numbers = sorted(n for batch in given for n in batch)
    assert len(set(numbers)) == processes * each
    assert numbers == [f"CHC-{i:06d}" for i in range(1, processes * each + 1)]
    from harness.register.store import Register

    problems, head = Register(reg).check()
    assert problems == [] and head.seq == 2 + 2 * processes * each


# ------------------------------------------------------------------ schema


def test_the_migrations_build_the_schema_the_queries_use(reg: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from harness.register.database import engine_of, url_of
    from harness.register.schema import metadata

    engine = engine_of(url_of(reg))
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
    engine.dispose()
    assert differences == []


# ------------------------------------------------------------------ certify --register


def _signing(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from tests.certs import PASSPHRASE

    monkeypatch.setenv("LAB_PASSPHRASE", PASSPHRASE.decode())
    return [
        "--sign-key", str(lab.key), "--sign-cert", str(lab.cert),
        "--sign-passphrase-env", "LAB_PASSPHRASE",
    ]  # fmt: skip


def test_certify_numbers_its_report_before_drawing_it_and_records_the_run(
    tmp_path: Path, lab: Lab, chcert: Chcert, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A selection never certifies: the run's report is numbered, printed with its number,
    signed, and recorded as a test record."""
    from tests import runs

    reg = fresh_register("sqlite", tmp_path / "lab")
    chcert("register", "init", "--register", reg, "--trust", str(lab.cert),
           "--address", "https://register.lab.example")  # fmt: skip
    build = tmp_path / "game.tgz"
    build.write_bytes(b"the vendor's build")
    code, document = runs.certify(
        tmp_path / "out", "-k", "declared", "--artifact", str(build), "--register", reg,
        *_signing(lab, monkeypatch), *runs.QUICK_SAMPLES,
    )  # fmt: skip
    out = chcert.capsys.readouterr().out
    assert code == 2, out
    laboratory = document["manifest"]["laboratory"]
    assert laboratory["report_number"] == "CHC-000001"
    entry_url = "https://register.lab.example/certificates/CHC-000001"
    assert laboratory["register"] == entry_url
    page = pdf_pages(tmp_path / "out" / "report.pdf")[0]
    assert "Report number\nCHC-000001" in page and entry_url in page  # beside its QR code
    assert "register: CHC-000001: test record, not a certificate: its verdict is INCOMPLETE" in out
    (entry,) = _listed(chcert, reg)
    assert entry["kind"] == "test record" and entry["verdict"] == "INCOMPLETE"
    assert (
        entry["signer"] and entry["build_sha256"] == document["manifest"]["artifacts"][0]["sha256"]
    )
    assert _check(chcert, reg)[0] == 0


def test_certify_refuses_a_register_it_cannot_use_before_the_run(
    tmp_path: Path, lab: Lab, chcert: Chcert, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = fresh_register("sqlite", tmp_path / "bare")
    assert chcert("register", "init", "--register", bare)[0] == 0
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'register = "{bare}"\n[laboratory]\nname = "L"\nreport_number = "L-1"\n'
        'signatory = "S"\nstandard = "T"\n'
    )
    cases = [
        (["--register", str(tmp_path / "none.db")], "no such file"),
        (["--register", bare, *_signing(lab, monkeypatch)], "trusts no signing certificate"),
        (["--plan", str(plan)], "leave report_number out of the run plan"),
    ]
    for argv, said in cases:
        code, _, err = chcert("certify", "--dry-run", "--out", str(tmp_path / "o"), *argv)
        assert code == 4 and said in err, err
    assert _check(chcert, bare)[1].count("head: 1:") == 1  # nothing allocated


@pytest.mark.slow  # a whole certification, signed
@pytest.mark.timeout(900)
def test_a_certified_run_is_issued_as_a_certificate(
    tmp_path: Path, lab: Lab, chcert: Chcert, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests import runs
    from tests.games import served

    reg = fresh_register("sqlite", tmp_path / "lab")
    chcert("register", "init", "--register", reg, "--trust", str(lab.cert))
    build = tmp_path / "game.tgz"
    build.write_bytes(b"the vendor's build")
    code, document = runs.certify(
        tmp_path / "out", "--adapter", served("Seeded"), "--artifact", str(build),
        "--register", reg, *_signing(lab, monkeypatch), *runs.QUICK_SAMPLES,
        "--differential", "2000", "--rtp-rounds", "200", "--rng-decks", "3000",
    )  # fmt: skip
    out = chcert.capsys.readouterr().out
    assert code == 0 and document["verdict"] == "PASS", out
    assert "register: CHC-000001: certificate issued" in out
    (entry,) = _listed(chcert, reg)
    assert entry["status"] == "issued" and entry["kind"] == "certificate"
    assert (
        entry["report_sha256"]
        == hashlib.sha256((tmp_path / "out" / "report.pdf").read_bytes()).hexdigest()
    )


# ------------------------------------------------------------------ audit --register


def _log_of_builds(path: Path, builds: list[str]) -> Path:
    """A correct generated log whose rounds are played by `builds`, in turn, a share each."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from harness.audit.generate import generate

    generate(path, 2_400, seats=3, days=8)
    table = pq.read_table(path)
    share = np.arange(table.num_rows) // 3 * len(builds) // (table.num_rows // 3)
    column = pa.array([builds[i] for i in share], pa.string())
    pq.write_table(table.set_column(table.schema.get_field_index("build"), "build", column), path)
    return path


def test_an_audit_names_each_build_no_valid_certificate_covers(
    reg: str, lab: Lab, chcert: Chcert, tmp_path: Path
) -> None:
    """Certified, uncertified, withdrawn, superseded, certified under another profile:
    each build of the log is judged by the register for the profile audited, and the
    audit is recorded against each."""
    sha = {n: hashlib.sha256(f"build {n}".encode()).hexdigest() for n in "ABCDE"}
    for n, profile in (("A", "standard"), ("C", "standard"), ("D", "table2"), ("E", "standard")):
        pdf = report(
            tmp_path, lab, results(build=f"build {n}".encode(), profile=profile), name=f"{n}.pdf"
        )
        assert _add(chcert, reg, pdf)[0] == 0
    numbers = {e["build_sha256"]: e["number"] for e in _listed(chcert, reg)}
    chcert("register", "withdraw", numbers[sha["C"]], "--reason", "r", "--register", reg)
    replacement = report(tmp_path, lab, results(build=b"build F"), name="F.pdf")
    assert _add(chcert, reg, replacement)[0] == 0
    replaced_by = _listed(chcert, reg)[-1]["number"]
    chcert(
        "register", "supersede", numbers[sha["E"]], replaced_by, "--reason", "r", "--register", reg
    )
    log = _log_of_builds(tmp_path / "log.parquet", [sha[n] for n in "ABCDE"])
    out = tmp_path / "audit"
    code, printed, err = chcert(
        "audit", str(log), "--out", str(out), "--quiet", "--jobs", "1", "--register", reg
    )
    assert code == 1, err
    document = json.loads((out / "audit.json").read_text())
    found = {(f["kind"], next(iter(f["by_build"]))) for f in document["findings"]}
    assert found == {
        ("build-uncertified", sha["B"]),
        ("build-withdrawn", sha["C"]),
        ("build-other-profile", sha["D"]),
        ("build-superseded", sha["E"]),
    }
    (check,) = [c for c in document["checks"] if c["name"] == "register"]
    assert check["status"] == "fail" and "5 build(s) in the log, 1 certified" in check["reason"]
    assert all(f["check"] == "register" for f in document["findings"])  # nothing else found
    assert "register: recorded against 5 build(s)" in printed
    from harness.register.store import Register

    assert {f["count"] for f in document["findings"]} == {480}  # rows: 160 rounds of 3 seats
    code, shown, _ = chcert("register", "show", sha["B"], "--register", reg)
    assert code == 0 and "no certificate or test record names it" in shown
    assert "160 rounds of the build, uncertified" in shown
    code, shown, _ = chcert("register", "show", numbers[sha["A"]], "--register", reg)
    assert code == 0 and "audited: " in shown and "FAIL under standard" in shown
    ((event, row),) = Register(reg).audits_of(sha["A"])
    assert row["coverage"] == "certified" and row["number"] == numbers[sha["A"]]
    assert event.detail["audit"] == hashlib.sha256((out / "audit.json").read_bytes()).hexdigest()
    assert _check(chcert, reg)[0] == 0
    raw_sql(reg, "UPDATE audits SET coverage = 'certified'")
    code, said = _check(chcert, reg)
    assert code == 1 and "its audit's builds were edited" in said


def test_an_audit_without_a_register_judges_no_build(tmp_path: Path, chcert: Chcert) -> None:
    log = _log_of_builds(tmp_path / "log.parquet", ["anything"])
    out = tmp_path / "audit"
    chcert("audit", str(log), "--out", str(out), "--quiet", "--jobs", "1")
    document = json.loads((out / "audit.json").read_text())
    assert "register" not in {c["name"] for c in document["checks"]}
