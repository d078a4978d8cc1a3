"""Every operation on the register, each one transaction (docs/register.md): a change is
written whole or not at all, and changes are appended one after another, for each takes
the chain's head first (SQLite's write lock, PostgreSQL's row lock on the head).
"""

from __future__ import annotations

import base64
import contextlib
import getpass
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
from sqlalchemy import ColumnElement, Connection, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from harness.register import schema
from harness.register.chain import GENESIS, chain_problems, digest, holds, sealed
from harness.register.database import (
    RegisterError,
    engine_of,
    revision_of,
    schema_problem,
    schema_revisions,
    shown,
    translated,
    upgrade,
    url_of,
)
from harness.register.integrity import (
    anchor_of,
    audit_problems,
    audit_rows,
    record_digest,
    record_problems,
    reread_problems,
    setting_problems,
    status_problems,
)
from harness.register.records import (
    ALLOWED_FROM,
    STATUS_OF,
    Coverage,
    Entry,
    Event,
    EventKind,
    Head,
    Kind,
    Problem,
    Record,
    Standing,
    Status,
)
from harness.register.reports import Reading

EXPORT_FORMAT = "chcert-register"
EXPORT_VERSION = 1
DEFAULT_PREFIX = "CHC"


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def who(by: str | None) -> str:
    """Who made a change: as given (`--by`), else the account that ran chcert."""
    if by:
        return by
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def number_of(prefix: str, serial: int) -> str:
    return f"{prefix}-{serial:06d}"


class _Appender:
    """The events one change appends, after the head it locked."""

    def __init__(self, conn: Connection, by: str) -> None:
        row = conn.execute(
            select(schema.head).where(schema.head.c.id == 1).with_for_update()
        ).one_or_none()
        if row is None:
            raise RegisterError("the register has no chain head: it was not made by chcert")
        self.conn, self.by = conn, by
        self.seq, self.hash = row.seq, row.hash
        self.at = now()

    def allocate(self, report_id: str) -> str:
        """The next report number, from the numbers the history allocated (hashed, so
        never a column edited behind chcert's back), appended as allocated."""
        e = schema.events
        given = self.conn.scalar(
            select(func.count()).select_from(e).where(e.c.kind == EventKind.ALLOCATED)
        )
        created = self.conn.scalar(select(e.c.detail).where(e.c.kind == EventKind.CREATED))
        prefix = json.loads(created or "{}").get("prefix")  # as the hashed history set it
        if not prefix:
            raise RegisterError("the register's creation is missing from its history")
        number = number_of(str(prefix), int(given or 0) + 1)
        taken = self.conn.scalar(select(func.count()).select_from(e).where(e.c.number == number))
        if taken:  # an allocation deleted behind chcert's back: never hand the number out again
            raise RegisterError(
                f"the next number, {number}, was given before: the history was changed "
                "outside chcert (chcert register check)"
            )
        self.append(EventKind.ALLOCATED, number, "", report_id=report_id)
        return number

    def append(self, kind: EventKind, number: str | None, reason: str = "", **detail: Any) -> Event:
        ev = sealed(self.seq + 1, kind, number, self.at, self.by, reason, detail, self.hash)
        self.conn.execute(
            insert(schema.events).values(
                seq=ev.seq,
                kind=str(ev.kind),
                number=ev.number,
                at=ev.at,
                by=ev.by,
                reason=ev.reason,
                detail=json.dumps(detail, sort_keys=True),
                prev=ev.prev,
                hash=ev.hash,
            )
        )
        self.seq, self.hash = ev.seq, ev.hash
        return ev

    def close(self) -> None:
        self.conn.execute(
            update(schema.head).where(schema.head.c.id == 1).values(seq=self.seq, hash=self.hash)
        )


class Register:
    """One register, by `--register PATH|URL`."""

    def __init__(self, given: str, *, create: bool = False, read_only: bool = False) -> None:
        self.url = url_of(given)
        self.where = shown(self.url)
        sqlite = self.url.drivername == "sqlite"
        if sqlite and not create and not Path(str(self.url.database)).is_file():
            raise RegisterError(
                f"register {self.where}: no such file (chcert register init --register "
                f"{given} creates it)"
            )
        self.engine = engine_of(self.url, read_only)
        self.last_head: Head | None = None  # the head this object's last change left
        if not create:
            with self._reading() as conn:
                problem = schema_problem(revision_of(conn))
            if problem is not None:
                raise RegisterError(f"register {self.where}: {problem}")

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------ transactions

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Connection]:
        with translated(self.where), self.engine.begin() as conn:
            yield conn

    @contextlib.contextmanager
    def _changing(self, by: str | None) -> Iterator[_Appender]:
        writer = self.engine.execution_options(chcert_write=True)
        with translated(self.where), writer.begin() as conn:
            appender = _Appender(conn, who(by))
            yield appender
            appender.close()
        self.last_head = Head(seq=appender.seq, hash=appender.hash)  # committed

    # ------------------------------------------------------------ creating

    def init(
        self,
        *,
        prefix: str | None,
        address: str | None,
        trust: Sequence[str],
        by: str | None,
    ) -> tuple[Head, list[str]]:
        """Create the register (its number prefix and address set once, here), or bring
        an older schema up to date; trust each PEM signing certificate not yet trusted.
        The head, and what was done, in words."""
        done: list[str] = []
        anchors = [(pem, *anchor_of(pem)) for pem in trust]  # all read before anything
        writer = self.engine.execution_options(chcert_write=True)
        with translated(self.where), writer.begin() as conn:
            revision, problem = self._upgraded(conn)
            if revision is None:
                conn.execute(insert(schema.head).values(id=1, seq=0, hash=GENESIS))
                done.append(f"created (schema {revision_of(conn)})")
            elif problem is not None:
                done.append(f"schema upgraded from {revision} to {revision_of(conn)}")
            appender = _Appender(conn, who(by))
            if revision is None:
                settings = {"prefix": prefix or DEFAULT_PREFIX, "address": address or ""}
                conn.execute(
                    insert(schema.settings),
                    [{"key": k, "value": v} for k, v in settings.items()],
                )
                appender.append(EventKind.CREATED, None, "", **settings)
            else:
                settings = self._settings(conn)
                for key, given in (("prefix", prefix), ("address", address)):
                    if given is not None and given != settings[key]:
                        raise RegisterError(
                            f"register {self.where}: exists, with {key} {settings[key]!r}; "
                            "its prefix and address are set once, when it is created"
                        )
            known = set(conn.scalars(select(schema.signers.c.sha256)))
            for pem, fingerprint, subject in anchors:
                if fingerprint in known:
                    continue
                conn.execute(
                    insert(schema.signers).values(sha256=fingerprint, subject=subject, pem=pem)
                )
                appender.append(EventKind.TRUSTED, None, "", sha256=fingerprint, subject=subject)
                known.add(fingerprint)
                done.append(f"trusts {subject} (SHA-256 {fingerprint})")
            appender.close()
            return Head(seq=appender.seq, hash=appender.hash), done

    def _upgraded(self, conn: Connection) -> tuple[str | None, str | None]:
        """The schema brought to this chcert's revision: the revision it had, and why it
        could not be used as it was. A newer schema is refused, never downgraded."""
        revision = revision_of(conn)
        problem = schema_problem(revision)
        if revision is not None and revision not in schema_revisions():
            raise RegisterError(f"register {self.where}: {problem}")
        upgrade(conn)
        return revision, problem

    def _settings(self, conn: Connection) -> dict[str, str]:
        rows = conn.execute(select(schema.settings.c.key, schema.settings.c.value))
        return {key: value for key, value in rows}

    def settings(self) -> dict[str, str]:
        with self._reading() as conn:
            return self._settings(conn)

    def anchors(self) -> list[str]:
        """The PEM signing certificates whose reports may be certificates."""
        with self._reading() as conn:
            return list(
                conn.scalars(select(schema.signers.c.pem).order_by(schema.signers.c.sha256))
            )

    # ------------------------------------------------------------ numbering and recording

    def allocate(self, report_id: str, by: str | None = None) -> str:
        """A new report number, never given before, for a report about to be drawn."""
        with self._changing(by) as chain:
            return chain.allocate(report_id)

    def record(self, reading: Reading, by: str | None = None) -> Entry:
        """Record a report read by harness/register/reports.py under the number it states
        (one this register allocated and has not used), or a new one if it states none."""
        with self._changing(by) as chain:
            conn = chain.conn
            number = reading.stated
            if number is None:
                number = chain.allocate(reading.record.report_id)
            else:
                self._check_allocated(conn, number)
            same = conn.scalar(
                select(schema.certificates.c.number).where(
                    schema.certificates.c.report_sha256 == reading.record.report_sha256
                )
            )
            if same is not None:
                raise RegisterError(f"this report is already recorded, as {same}")
            record = msgspec.structs.replace(reading.record, number=number)
            self._insert(conn, record, reading.pdf)
            kind = EventKind.ISSUED if record.kind is Kind.CERTIFICATE else EventKind.RECORDED
            chain.append(kind, number, record.why_not_certificate, record=record_digest(record))
        return self.entry(number)

    def _check_allocated(self, conn: Connection, number: str) -> None:
        allocated = conn.scalar(
            select(func.count())
            .select_from(schema.events)
            .where(schema.events.c.number == number, schema.events.c.kind == EventKind.ALLOCATED)
        )
        if not allocated:
            raise RegisterError(
                f"report number {number} was not allocated by this register (a report "
                "numbered elsewhere cannot take a number here: certify --register numbers it)"
            )
        used = conn.scalar(
            select(schema.certificates.c.kind).where(schema.certificates.c.number == number)
        )
        if used is not None:
            raise RegisterError(f"report number {number} is already recorded, as a {used}")

    def _insert(self, conn: Connection, record: Record, pdf: bytes) -> None:
        row = {k: v for k, v in msgspec.to_builtins(record).items() if k != "artifacts"}
        try:
            conn.execute(insert(schema.certificates).values(**row))
        except IntegrityError:
            raise RegisterError(f"report number {record.number} is already recorded") from None
        if record.artifacts:
            conn.execute(
                insert(schema.artifacts),
                [
                    {"number": record.number, "position": i, **msgspec.to_builtins(a)}
                    for i, a in enumerate(record.artifacts)
                ],
            )
        conn.execute(insert(schema.documents).values(number=record.number, pdf=pdf))

    # ------------------------------------------------------------ status

    def change(
        self,
        number: str,
        kind: EventKind,
        reason: str,
        by: str | None = None,
        replacement: str | None = None,
    ) -> Entry:
        """Supersede, withdraw, revoke or expire a certificate, with the reason; a
        superseded one names the certificate that replaces it."""
        if not reason.strip():
            raise RegisterError(f"{kind}: give the reason (--reason TEXT)")
        with self._changing(by) as chain:
            conn = chain.conn
            records = self._records(conn, number, replacement)
            history = self._events(conn)
            state = _state(history)
            old = records[number]
            if old.kind is not Kind.CERTIFICATE:
                raise RegisterError(
                    f"{number} is a test record, not a certificate: only a certificate is {kind}"
                )
            detail: dict[str, Any] = {}
            if kind is EventKind.SUPERSEDED:
                assert replacement is not None
                loop = _supersession_loop(state.supersedes, number, replacement)
                if loop:
                    raise RegisterError(f"a supersession loop: {' -> '.join(loop)}")
                new = records[replacement]
                if (
                    new.kind is not Kind.CERTIFICATE
                    or state.status[replacement] is not Status.ISSUED
                ):
                    raise RegisterError(
                        f"{replacement} cannot replace {number}: it is a "
                        f"{state.status[replacement]} {new.kind}, not an issued certificate"
                    )
                if replacement in state.supersedes:
                    raise RegisterError(
                        f"{replacement} already replaces {state.supersedes[replacement]}"
                    )
                detail["by"] = replacement
            current = state.status[number]
            if current not in ALLOWED_FROM[kind]:
                raise RegisterError(f"{number} is {current}: it cannot be {kind}")
            chain.append(kind, number, reason.strip(), **detail)
        return self.entry(number)

    def _records(self, conn: Connection, *numbers: str | None) -> dict[str, Record]:
        found = {r.number: r for r in self._all_records(conn)}
        for number in numbers:
            if number is not None and number not in found:
                raise RegisterError(f"no certificate or test record numbered {number}")
        return found

    # ------------------------------------------------------------ reading

    def _all_records(
        self,
        conn: Connection,
        unreadable: list[Problem] | None = None,
        where: ColumnElement[bool] | None = None,
    ) -> list[Record]:
        """Every record (`where` the certificates' rows say so); one changed into
        something no record can be is a problem in `unreadable` (check), or without it a
        RegisterError."""
        c, a = schema.certificates, schema.artifacts
        files: dict[str, list[dict[str, Any]]] = defaultdict(list)
        chosen = select(a).order_by(a.c.number, a.c.position)
        if where is not None:
            chosen = chosen.where(a.c.number.in_(select(c.c.number).where(where)))
        for row in conn.execute(chosen):
            files[row.number].append({"name": row.name, "sha256": row.sha256, "bytes": row.bytes})
        rows = select(c).order_by(c.c.number)
        records = []
        for row in conn.execute(rows if where is None else rows.where(where)):
            try:
                data = {**_plain(row), "artifacts": files.get(row.number, [])}
                records.append(msgspec.convert(data, Record))
            except msgspec.ValidationError as error:
                _unreadable(str(row.number), error, unreadable)
        return records

    def _events(
        self,
        conn: Connection,
        unreadable: list[Problem] | None = None,
        where: ColumnElement[bool] | None = None,
    ) -> list[Event]:
        """The history in order (`where` it says so); an event changed into something no
        event can be is a problem in `unreadable` (check), or without it a RegisterError."""
        e = schema.events
        history = []
        rows = select(e).order_by(e.c.seq)
        for row in conn.execute(rows if where is None else rows.where(where)):
            try:
                history.append(
                    msgspec.convert({**_plain(row), "detail": json.loads(row.detail)}, Event)
                )
            except (ValueError, TypeError, msgspec.ValidationError) as error:
                _unreadable(f"event {row.seq}", error, unreadable)
        return history

    def entries(self) -> list[Entry]:
        """Every numbered report, with its status and history, in number order."""
        with self._reading() as conn:
            records, history = self._all_records(conn), self._events(conn)
        state = _state(history)
        by_number: dict[str, list[Event]] = defaultdict(list)
        for ev in history:
            if ev.number is not None:
                by_number[ev.number].append(ev)
        return [_entry(r, state, tuple(by_number[r.number])) for r in records]

    def entry(self, number: str) -> Entry:
        """One entry, read by its number alone (a register of any size answers at once)."""
        found = self._entries_of([number])
        if not found:
            raise RegisterError(f"no certificate or test record numbered {number}")
        return found[0]

    def lookup(self, key: str) -> list[Entry]:
        """The entries a report number, a build's SHA-256 (any of its files) or a report's
        SHA-256 names."""
        key = key.strip()
        folded = key.lower()
        c, a = schema.certificates, schema.artifacts
        with self._reading() as conn:
            numbers = set(
                conn.scalars(
                    select(c.c.number).where(
                        (func.upper(c.c.number) == key.upper()) | (c.c.report_sha256 == folded)
                    )
                )
            )
            numbers |= set(conn.scalars(select(a.c.number).where(a.c.sha256 == folded)))
        return self._entries_of(sorted(numbers))

    def _entries_of(self, numbers: Sequence[str]) -> list[Entry]:
        """The entries of `numbers`: their rows and events, and the supersessions that
        name them, read by number, never the whole register."""
        if not numbers:
            return []
        c, e = schema.certificates, schema.events
        with self._reading() as conn:
            records = self._all_records(conn, where=c.c.number.in_(numbers))
            history = self._events(conn, where=e.c.number.in_(numbers))
            replacing = [
                ev
                for ev in self._events(conn, where=e.c.kind == EventKind.SUPERSEDED)
                if ev.detail.get("by") in numbers
            ]
        state = _state(sorted({ev.seq: ev for ev in [*history, *replacing]}.values(), key=_seq))
        by_number: dict[str, list[Event]] = defaultdict(list)
        for ev in history:
            by_number[str(ev.number)].append(ev)
        return [_entry(r, state, tuple(by_number[r.number])) for r in records]

    def document(self, number: str) -> bytes:
        with self._reading() as conn:
            pdf = conn.scalar(
                select(schema.documents.c.pdf).where(schema.documents.c.number == number)
            )
        if pdf is None:
            raise RegisterError(f"no report is kept for {number}")
        return bytes(pdf)

    def _documents(self, conn: Connection) -> dict[str, bytes]:
        d = schema.documents
        return {n: bytes(pdf) for n, pdf in conn.execute(select(d.c.number, d.c.pdf))}

    def head(self) -> Head:
        with self._reading() as conn:
            row = conn.execute(select(schema.head).where(schema.head.c.id == 1)).one()
        return Head(seq=row.seq, hash=row.hash)

    # ------------------------------------------------------------ audits

    def standings(self, builds: Iterable[str], profile_sha256: str) -> dict[str, Standing]:
        """What the register says of each build a round log names, for the profile the
        log is audited under (`chcert audit --register`)."""
        certificates = [e for e in self.entries() if e.kind is Kind.CERTIFICATE]
        return {
            build: standing_of(
                build,
                [e for e in certificates if e.build_sha256 == build.strip().lower()],
                profile_sha256,
            )
            for build in builds
        }

    def record_audit(
        self,
        *,
        audit_sha256: str,
        verdict: str,
        profile: str,
        profile_sha256: str,
        rounds: dict[str, int],
        standings: dict[str, Standing],
        by: str | None = None,
    ) -> Head:
        """Record a production audit against each build it met, in one transaction."""
        rows = audit_rows(rounds, standings)
        with self._changing(by) as chain:
            ev = chain.append(
                EventKind.AUDITED,
                None,
                "",
                audit=audit_sha256,
                verdict=verdict,
                profile=profile,
                profile_sha256=profile_sha256,
                builds=digest(rows),
            )
            if rows:
                chain.conn.execute(insert(schema.audits), [{"seq": ev.seq, **r} for r in rows])
        return Head(seq=chain.seq, hash=chain.hash)

    def _audits(self, conn: Connection) -> list[dict[str, Any]]:
        a = schema.audits
        return [_plain(r) for r in conn.execute(select(a).order_by(a.c.seq, a.c.build))]

    def audits_of(self, build: str) -> list[tuple[Event, dict[str, Any]]]:
        """The audits that met `build`: each audit's event and its row for the build."""
        with self._reading() as conn:
            events = {ev.seq: ev for ev in self._events(conn) if ev.kind is EventKind.AUDITED}
            rows = [r for r in self._audits(conn) if r["build"] == build]
        return [(events[r["seq"]], r) for r in rows if r["seq"] in events]

    # ------------------------------------------------------------ checking

    def check(
        self,
        expected: Head | None = None,
        progress: Callable[[int, int], None] = lambda done, total: None,
    ) -> tuple[list[Problem], Head]:
        """Every way the register may have been changed outside chcert, found: the chain
        (edited, deleted or reordered events, a head that does not end it, a head printed
        earlier that it no longer holds), each record against the hash its event carries,
        each kept report against its hash and read again (its signature verified against
        the trusted signers as of when it was recorded, its record what it says), the
        trusted signers and settings against their events, and each status change against
        the rules. `progress`: the reports read again so far, of how many."""
        problems: list[Problem] = []
        with self._reading() as conn:
            history = self._events(conn, problems)
            row = conn.execute(select(schema.head).where(schema.head.c.id == 1)).one_or_none()
            records = self._all_records(conn, problems)
            documents = self._documents(conn)
            signers = conn.execute(select(schema.signers)).all()
            settings = self._settings(conn)
            audits = self._audits(conn)
            anchors = list(conn.scalars(select(schema.signers.c.pem)))
        head = Head(seq=row.seq, hash=row.hash) if row is not None else None
        problems += chain_problems(history, head)
        if expected is not None and not holds(history, expected):
            problems.append(
                Problem(
                    where=f"event {expected.seq}",
                    what=f"the head given ({expected.hash[:16]}...) is not in the history: "
                    "it was cut short or rewritten since",
                )
            )
        problems += record_problems(records, history, documents)
        problems += setting_problems(settings, signers, history)
        problems += audit_problems(audits, history)
        problems += status_problems(history)
        problems += reread_problems(records, history, documents, anchors, progress)
        last = (
            Head(seq=history[-1].seq, hash=history[-1].hash)
            if history
            else Head(seq=0, hash=GENESIS)
        )
        return problems, last

    # ------------------------------------------------------------ export and import

    def export(self) -> bytes:
        """The whole register as one JSON document, reports included (docs/register.md
        #backing-up-and-restoring): what `import` restores, after checking every hash."""
        with self._reading() as conn:
            history, records = self._events(conn), self._all_records(conn)
            documents = self._documents(conn)
            signers = [_plain(r) for r in conn.execute(select(schema.signers))]
            settings = self._settings(conn)
            audits = self._audits(conn)
            revision = revision_of(conn)
        last = history[-1] if history else None
        document = {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "schema": revision,
            "exported": now(),
            "head": {"seq": last.seq, "hash": last.hash} if last else None,
            "settings": settings,
            "signers": signers,
            "events": [msgspec.to_builtins(ev) for ev in history],
            "audits": audits,
            "records": [
                {
                    **msgspec.to_builtins(r),
                    "pdf": base64.b64encode(documents.get(r.number, b"")).decode(),
                }
                for r in records
            ],
        }
        return json.dumps(document, indent=1, sort_keys=True).encode()

    def restore(
        self,
        data: bytes,
        source: str,
        progress: Callable[[int, int], None] = lambda done, total: None,
    ) -> Head:
        """Write an export into this register, which must hold no history yet; the export
        is checked first as `check` checks a register (each report read again:
        `progress`), and written in one transaction."""
        backup = _read_export(data, source)
        history, signers = backup.events, backup.signers
        problems = chain_problems(history, backup.head)
        problems += record_problems(backup.records, history, backup.documents)
        problems += setting_problems(
            backup.settings, [msgspec.convert(s, _Signer) for s in signers], history
        )
        problems += audit_problems(backup.audits, history)
        problems += status_problems(history)
        anchors = [str(s["pem"]) for s in signers]
        problems += reread_problems(backup.records, history, backup.documents, anchors, progress)
        if problems:
            first = problems[0]
            raise RegisterError(
                f"{source}: not imported: {first.where}: {first.what}"
                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
            )
        writer = self.engine.execution_options(chcert_write=True)
        with translated(self.where), writer.begin() as conn:
            self._upgraded(conn)
            if conn.scalar(select(func.count()).select_from(schema.events)):
                raise RegisterError(
                    f"register {self.where}: already holds a history; import into a new one"
                )
            conn.execute(schema.head.delete())
            head = backup.head
            conn.execute(insert(schema.head).values(id=1, seq=head.seq, hash=head.hash))
            conn.execute(schema.settings.delete())
            conn.execute(
                insert(schema.settings),
                [{"key": k, "value": v} for k, v in backup.settings.items()],
            )
            if signers:
                conn.execute(insert(schema.signers), signers)
            for ev in history:
                conn.execute(
                    insert(schema.events).values(
                        **{
                            **msgspec.to_builtins(ev),
                            "detail": json.dumps(ev.detail, sort_keys=True),
                        }
                    )
                )
            for record in backup.records:
                self._insert(conn, record, backup.documents[record.number])
            if backup.audits:
                conn.execute(insert(schema.audits), backup.audits)
        return head


def _seq(ev: Event) -> int:
    return ev.seq


def _plain(row: Any) -> dict[str, Any]:
    """A row as a dict of plain `str` keys (SQLAlchemy's are a subclass msgspec refuses)."""
    return {str(key): value for key, value in row._mapping.items()}


class _Signer(msgspec.Struct, frozen=True):
    """A trusted signer's row, as an export holds it."""

    sha256: str
    subject: str
    pem: str


class _AuditRow(msgspec.Struct, frozen=True):
    """An audit's row for one build, as an export holds it."""

    seq: int
    build: str
    rounds: int
    coverage: str
    number: str | None


class _State(msgspec.Struct):
    """What the history says now: each number's status, and who replaced whom."""

    status: dict[str, Status]
    supersedes: dict[str, str]  # the replacement -> the one it replaced
    superseded_by: dict[str, str]


def _state(history: Sequence[Event]) -> _State:
    state = _State(status={}, supersedes={}, superseded_by={})
    for ev in history:
        if ev.number is None or ev.kind not in STATUS_OF:
            continue
        state.status[ev.number] = STATUS_OF[ev.kind]
        if ev.kind is EventKind.SUPERSEDED:
            state.supersedes[ev.detail["by"]] = ev.number
            state.superseded_by[ev.number] = ev.detail["by"]
    return state


def _supersession_loop(supersedes: dict[str, str], old: str, new: str) -> list[str]:
    """The loop `new` replacing `old` would close (new, ..., new), or []: `old` or a
    certificate it replaced, back along the line, is `new`."""
    line, current = [new, old], old
    while current != new:
        if current not in supersedes:
            return []
        current = supersedes[current]
        line.append(current)
    return line


def _entry(record: Record, state: _State, history: tuple[Event, ...]) -> Entry:
    issued = next(
        (ev.at for ev in history if ev.kind in (EventKind.ISSUED, EventKind.RECORDED)), ""
    )
    return Entry(
        number=record.number,
        kind=record.kind,
        status=state.status.get(record.number, Status.RECORDED),
        verdict=record.verdict,
        build_sha256=record.build_sha256,
        report_sha256=record.report_sha256,
        results_sha256=record.results_sha256,
        profile=record.profile,
        profile_sha256=record.profile_sha256,
        game=record.game,
        signer=record.signer,
        laboratory=record.laboratory,
        issued=issued,
        supersedes=state.supersedes.get(record.number),
        superseded_by=state.superseded_by.get(record.number),
        why_not_certificate=record.why_not_certificate,
        artifacts=record.artifacts,
        history=history,
    )


def standing_of(build: str, certificates: Sequence[Entry], profile_sha256: str) -> Standing:
    """A build's standing, from the certificates naming it (in number order): an issued
    one under the audit's profile certifies it; else an issued one under another profile;
    else the latest one's status; else none."""
    issued = [e for e in certificates if e.status is Status.ISSUED]
    here = [e for e in issued if e.profile_sha256 == profile_sha256]
    if here:
        decides, coverage = here[-1], Coverage.CERTIFIED
    elif issued:
        decides, coverage = issued[-1], Coverage.OTHER_PROFILE
    elif certificates:
        decides = certificates[-1]
        coverage = Coverage(str(decides.status))
    else:
        return Standing(build=build, coverage=Coverage.UNCERTIFIED)
    return Standing(
        build=build,
        coverage=coverage,
        number=decides.number,
        profile=decides.profile,
        superseded_by=decides.superseded_by,
    )


def _unreadable(where: str, error: Exception, into: list[Problem] | None) -> None:
    said = f"unreadable, changed outside chcert ({error})"
    if into is None:
        raise RegisterError(f"{where}: {said} (chcert register check)")
    into.append(Problem(where=where, what=said))


class _Backup(msgspec.Struct, frozen=True, kw_only=True):
    """An export, read back."""

    events: list[Event]
    records: list[Record]
    documents: dict[str, bytes]
    signers: list[dict[str, Any]]
    settings: dict[str, str]
    audits: list[dict[str, Any]]
    head: Head


def _read_export(data: bytes, source: str) -> _Backup:
    try:
        document = json.loads(data)
        if document.get("format") != EXPORT_FORMAT:
            raise ValueError(f"not a {EXPORT_FORMAT} export")
        if document.get("version") != EXPORT_VERSION:
            raise ValueError(
                f"export version {document.get('version')}, this chcert reads {EXPORT_VERSION}"
            )
        history = [msgspec.convert(ev, Event) for ev in document["events"]]
        records, documents = [], {}
        for item in document["records"]:
            pdf = base64.b64decode(item.pop("pdf"), validate=True)
            record = msgspec.convert(item, Record)
            records.append(record)
            documents[record.number] = pdf
        return _Backup(
            events=history,
            records=records,
            documents=documents,
            signers=msgspec.to_builtins(msgspec.convert(document["signers"], list[_Signer])),
            settings=msgspec.convert(document["settings"], dict[str, str]),
            audits=msgspec.to_builtins(msgspec.convert(document["audits"], list[_AuditRow])),
            head=msgspec.convert(document["head"], Head),
        )
    except (ValueError, KeyError, TypeError, AttributeError, msgspec.ValidationError) as error:
        raise RegisterError(f"{source}: not a register export: {error}") from None
