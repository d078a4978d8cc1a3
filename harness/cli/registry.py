"""`chcert register`: the laboratory's register of certificates (docs/register.md).

    chcert register init      --register DB [--prefix P] [--address URL] [--trust CERT ...]
    chcert register add       REPORT_PDF --register DB [--results JSON]
    chcert register show      NUMBER|SHA256 --register DB [--json]
    chcert register list      --register DB [--json]
    chcert register supersede OLD NEW --reason TEXT --register DB
    chcert register withdraw | revoke | expire  NUMBER --reason TEXT --register DB
    chcert register check     --register DB [--head SEQ:HASH] [--json]
    chcert register export    FILE --register DB
    chcert register import    FILE --register DB
    chcert register serve     --register DB [--host H] [--port P]

Every change is one transaction, prints the chain's new head, and exits 0; `check` exits 1
naming the first problem it finds; anything refused is one line and exit 4, nothing written.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.common import Parser, UsageError
from harness.results.outcomes import EXIT_USAGE

if TYPE_CHECKING:
    from harness.register.records import Entry, Event, Head
    from harness.register.store import Register

PREFIX = re.compile(r"^[A-Z0-9][A-Z0-9-]{0,23}$")
HEAD = re.compile(r"^(\d+):([0-9a-f]{64})$")
PROGRESS_FROM = 20  # kept reports: fewer are read again without a progress line


def register(sub: Any) -> None:
    reg = sub.add_parser(
        "register",
        help="the laboratory's register of certificates (docs/register.md)",
        description="The laboratory's register of certificates: a path is an SQLite file, "
        "a postgresql:// URL the laboratory's server (docs/register.md).",
    )
    verbs = reg.add_subparsers(dest="verb", required=True, parser_class=Parser)

    def verb(name: str, help: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = verbs.add_parser(name, help=help)
        parser.add_argument(
            "--register",
            required=True,
            metavar="PATH|URL",
            help="the register: an SQLite file, or postgresql://USER@HOST/DB",
        )
        return parser

    def changing(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument(
            "--by", metavar="NAME", help="who makes the change (default: this account)"
        )
        return parser

    init = changing(verb("init", "create the register, or upgrade its schema"))
    init.add_argument("--prefix", help="report numbers' prefix, set once (default CHC)")
    init.add_argument(
        "--address", metavar="URL", help="the register's public address, printed on reports"
    )
    init.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="CERT",
        help="a signing certificate (PEM or DER) whose reports may be certificates (repeatable)",
    )
    init.set_defaults(func=_init)

    add = changing(verb("add", "record a report: a signed PASS as a certificate"))
    add.add_argument("report_pdf", metavar="REPORT_PDF")
    add.add_argument(
        "--results", metavar="JSON", help="its results.json, which must be the attached one"
    )
    add.set_defaults(func=_add)

    show = verb("show", "a certificate or test record, by number or SHA-256, with its history")
    show.add_argument("key", metavar="NUMBER|SHA256")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=_show)

    listing = verb("list", "every certificate and test record with its status")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(func=_list)

    supersede = changing(verb("supersede", "mark a certificate replaced by another"))
    supersede.add_argument("number", metavar="OLD")
    supersede.add_argument("replacement", metavar="NEW")
    supersede.add_argument("--reason", required=True)
    supersede.set_defaults(func=_change, kind="superseded")
    for name, kind, help in (
        ("withdraw", "withdrawn", "withdraw a certificate"),
        ("revoke", "revoked", "revoke a certificate"),
        ("expire", "expired", "mark a certificate expired"),
    ):
        status = changing(verb(name, help))
        status.add_argument("number", metavar="NUMBER")
        status.add_argument("--reason", required=True)
        status.set_defaults(func=_change, kind=kind, replacement=None)

    check = verb("check", "check every record and the history's hash chain")
    check.add_argument(
        "--head", metavar="SEQ:HASH", help="a head printed earlier, that the history must hold"
    )
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=_check)

    export = verb("export", "write the whole register, reports included, to one file")
    export.add_argument("file", metavar="FILE")
    export.set_defaults(func=_export)

    serve = verb("serve", "the read-only lookup page: by number or SHA-256, or a PDF uploaded")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    serve.add_argument("--port", type=int, default=8080, help="the port (0: any free one)")
    serve.add_argument("--quiet", action="store_true", help="no line per request")
    serve.set_defaults(func=_serve)

    restore = verb("import", "restore an export into a new register, checked first")
    restore.add_argument("file", metavar="FILE")
    restore.set_defaults(func=_import)


def _open(args: argparse.Namespace, *, create: bool = False) -> Register:
    from harness.register.store import Register

    return Register(args.register, create=create)


def _head_line(head: Head) -> str:
    return f"head: {head.seq}:{head.hash} (keep it: chcert register check --head checks it)"


def _init(args: argparse.Namespace) -> int:
    if args.prefix is not None and not PREFIX.match(args.prefix):
        raise UsageError(f"--prefix {args.prefix}: capitals, digits and '-', up to 24")
    if args.address is not None and not re.match(r"^https?://\S+$", args.address):
        raise UsageError(f"--address {args.address}: an http:// or https:// URL is expected")
    pems = [_certificate_text(Path(p)) for p in args.trust]
    reg = _open(args, create=True)
    head, done = reg.init(prefix=args.prefix, address=args.address, trust=pems, by=args.by)
    print(f"register {reg.where}: " + ("; ".join(done) or "up to date, nothing to do"))
    print(_head_line(head))
    return 0


def _certificate_text(path: Path) -> str:
    """The PEM text of a signing certificate file (the first, for a chain)."""
    from cryptography.hazmat.primitives.serialization import Encoding

    from harness.signing.attachment import SealError
    from harness.signing.keys import load_certificates

    try:
        return load_certificates(path)[0].public_bytes(Encoding.PEM).decode()
    except SealError as exc:
        raise UsageError(f"--trust {path}: {exc}") from None


def _add(args: argparse.Namespace) -> int:
    from harness.register.reports import read_report

    reg = _open(args)
    results = Path(args.results) if args.results else None
    reading = read_report(Path(args.report_pdf), reg.anchors(), results)
    entry = reg.record(reading, args.by)
    print(_recorded(entry))
    print(_head_line(reg.last_head or reg.head()))
    return 0


def _recorded(entry: Entry) -> str:
    from harness.register.records import Kind

    if entry.kind is Kind.CERTIFICATE:
        return f"{entry.number}: certificate issued, build {entry.build_sha256}"
    return f"{entry.number}: test record, not a certificate: {entry.why_not_certificate}"


def record_run(given: str, pdf: Path) -> int:
    """`certify --register`: record the report the run just published (and signed, if it
    was asked); 0, or 4 with one line when the register refuses it."""
    from harness.errors import UserError
    from harness.register.reports import read_report
    from harness.register.store import Register

    try:
        reg = Register(given)
        entry = reg.record(read_report(pdf, reg.anchors()))
        head = reg.last_head or reg.head()
    except UserError as exc:
        print(f"chcert: the report was not recorded in the register: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"  register: {_recorded(entry)} ({reg.where}; head {head.seq}:{head.hash})")
    return 0


def _entry_json(entry: Entry, history: bool) -> dict[str, Any]:
    import msgspec

    data: dict[str, Any] = msgspec.to_builtins(entry)
    if not history:
        data.pop("history")
    return data


def _show(args: argparse.Namespace) -> int:
    from harness.register.database import RegisterError

    reg = _open(args)
    found = reg.lookup(args.key)
    audited = reg.audits_of(args.key.strip().lower()) if not found else []
    if audited and not args.json:  # a build no certificate names, met by audits
        print(f"build {args.key.strip().lower()}: no certificate or test record names it")
        _print_audits(audited)
        return 0
    if not found:
        raise RegisterError(f"no certificate or test record is numbered or hashed {args.key}")
    if args.json:
        print(json.dumps([_entry_json(e, True) for e in found], indent=1))
        return 0
    for entry in found:
        _print_entry(entry)
        _print_audits(reg.audits_of(entry.build_sha256) if entry.build_sha256 else [])
    return 0


def _print_audits(audits: list[tuple[Event, dict[str, Any]]]) -> None:
    for ev, row in audits:
        print(
            f"  audited: {ev.at}, {ev.detail.get('verdict')} under {ev.detail.get('profile')}, "
            f"{row['rounds']:,} rounds of the build, {row['coverage']} (event {ev.seq})"
        )


def _print_entry(entry: Entry) -> None:
    print(f"{entry.number}: {entry.kind}, {entry.status}")
    rows = [
        ("verdict", entry.verdict),
        ("not a certificate", entry.why_not_certificate or None),
        ("game", entry.game),
        ("build SHA-256", entry.build_sha256),
        ("profile", f"{entry.profile} (SHA-256 {entry.profile_sha256})"),
        ("report SHA-256", entry.report_sha256),
        ("results.json SHA-256", entry.results_sha256),
        ("signed by", entry.signer),
        ("laboratory", entry.laboratory),
        ("recorded", entry.issued),
        ("supersedes", entry.supersedes),
        ("superseded by", entry.superseded_by),
    ]
    for label, value in rows:
        if value:
            print(f"  {label}: {value}")
    for artifact in entry.artifacts:
        print(f"  file: {artifact.name} ({artifact.bytes:,} bytes, SHA-256 {artifact.sha256})")
    print("  history:")
    for ev in entry.history:
        why = f": {ev.reason}" if ev.reason else ""
        print(f"    {ev.seq:>5}  {ev.at}  {ev.kind}{why} (by {ev.by})")


def _list(args: argparse.Namespace) -> int:
    entries = _open(args).entries()
    if args.json:
        print(json.dumps([_entry_json(e, False) for e in entries], indent=1))
        return 0
    print(f"{'number':<14} {'kind':<12} {'status':<10} {'verdict':<10} {'build':<16} game")
    for e in entries:
        build = (e.build_sha256 or "-")[:16]
        print(f"{e.number:<14} {e.kind:<12} {e.status:<10} {e.verdict:<10} {build:<16} {e.game}")
    print(f"{len(entries)} report(s)")
    return 0


def _change(args: argparse.Namespace) -> int:
    from harness.register.records import EventKind

    reg = _open(args)
    entry = reg.change(args.number, EventKind(args.kind), args.reason, args.by, args.replacement)
    replaced = f", replaced by {entry.superseded_by}" if entry.superseded_by else ""
    print(f"{entry.number}: {entry.status}{replaced}")
    print(_head_line(reg.last_head or reg.head()))
    return 0


def _check(args: argparse.Namespace) -> int:
    from harness.register.records import Head

    expected = None
    if args.head is not None:
        matched = HEAD.match(args.head.strip().lower())
        if matched is None:
            raise UsageError(f"--head {args.head}: SEQ:HASH expected, as a change prints it")
        expected = Head(seq=int(matched[1]), hash=matched[2])
    reg = _open(args)
    problems, head = reg.check(expected, _reading_again)
    if args.json:
        import msgspec

        print(
            json.dumps(
                {
                    "intact": not problems,
                    "head": msgspec.to_builtins(head),
                    "problems": msgspec.to_builtins(problems),
                },
                indent=1,
            )
        )
    elif problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        print(f"register {reg.where}: NOT intact: {first.where}: {first.what}{more}")
        for problem in problems[1:]:
            print(f"  {problem.where}: {problem.what}")
    else:
        held = f"holds the head given (event {expected.seq}); " if expected else ""
        print(f"register {reg.where}: intact; {held}{_head_line(head)}")
        from harness.register.integrity import anchor_of

        for pem in reg.anchors():  # a signer appended behind its back is a key it never chose
            fingerprint, subject = anchor_of(pem)
            print(f"  trusts: {subject} (SHA-256 {fingerprint})")
    return 1 if problems else 0


def _reading_again(done: int, total: int) -> None:
    """The kept reports read again by `check` (about 0.06 s a certification report), on stderr."""
    if total >= PROGRESS_FROM:
        end = "" if done < total else "\n"
        print(f"\rreading the kept reports again: {done:,}/{total:,}", end=end, file=sys.stderr)


def _export(args: argparse.Namespace) -> int:
    from harness.atomic import write_bytes_atomic

    reg = _open(args)
    problems, head = reg.check(progress=_reading_again)
    if problems:
        first = problems[0]
        raise UsageError(
            f"register {reg.where}: not exported, it is not intact: {first.where}: {first.what}"
        )
    data = reg.export()
    try:
        write_bytes_atomic(Path(args.file), data)
    except OSError as exc:
        raise UsageError(f"{args.file}: {exc.strerror or exc}") from None
    print(f"exported register {reg.where} to {args.file} ({len(data):,} bytes)")
    print(_head_line(head))
    return 0


def _serve(args: argparse.Namespace) -> int:
    from harness.register.serve import LookupServer
    from harness.register.store import Register

    book = Register(args.register, read_only=True)
    try:
        server = LookupServer((args.host, args.port), book, args.quiet)
    except OSError as exc:
        raise UsageError(f"--host {args.host} --port {args.port}: {exc.strerror or exc}") from None
    host, port = server.server_address[:2]
    print(
        f"chcert: register {book.where}, read-only, at http://{host!s}:{port}/ (Ctrl-C stops it)",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def _import(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    reg = _open(args, create=True)
    head = reg.restore(data, str(path), _reading_again)
    print(f"imported {path} into register {reg.where}, every hash checked")
    print(_head_line(head))
    return 0
