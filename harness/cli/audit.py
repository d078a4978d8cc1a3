"""`chcert audit`: every round a game played, from its round log, re-settled and tested
(docs/audit.md)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.common import UsageError
from harness.defaults import DEFAULT_PROFILE
from harness.results.outcomes import EXIT_CODES, EXIT_USAGE

if TYPE_CHECKING:
    from harness.audit.model import Audit
    from harness.register.records import Standing
    from harness.register.store import Register


def register(sub: Any) -> None:
    audit = sub.add_parser("audit", help="re-settle and test every round of a production round log")
    audit.add_argument("logs", nargs="+", metavar="LOG", help="round-log files, folders or globs")
    audit.add_argument(
        "--profile", default=DEFAULT_PROFILE, help="the profile or approved variation the game runs"
    )
    audit.add_argument(
        "--declared", metavar="FILE", help="the game's declaration: its hello config (JSON or YAML)"
    )
    audit.add_argument("--from", dest="since", metavar="DATE", help="first day or instant (UTC)")
    audit.add_argument(
        "--to", dest="until", metavar="DATE", help="the day or instant it ends before"
    )
    audit.add_argument("--out", default="audit", metavar="DIR", help="where audit.json goes")
    audit.add_argument(
        "--adapter", metavar="SPEC", help="the game's adapter, for the commands replaying a finding"
    )
    audit.add_argument(
        "--jobs",
        type=_jobs,
        default=os.cpu_count() or 1,
        metavar="N",
        help="processes judging the log's pieces at once (default: the machine's cores)",
    )
    audit.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="judge the pieces on the Dask scheduler at ADDRESS, or on local:N workers here",
    )
    audit.add_argument(
        "--spill",
        metavar="DIR",
        help="where the round ids go while the log is read (default: the system's temporary "
        "folder; on a cluster, a folder every worker reaches)",
    )
    audit.add_argument(
        "--convert-to",
        metavar="FILE",
        help="convert the CSV or JSON Lines log to one Parquet file and stop: later audits "
        "of FILE read it at Parquet's rate (docs/audit.md, Speed)",
    )
    audit.add_argument(
        "--register",
        metavar="PATH|URL",
        help="the laboratory's register: every build in the log must be certified for the "
        "profile, and the audit is recorded against each build (docs/register.md)",
    )
    audit.add_argument("--quiet", action="store_true", help="no progress line")
    audit.set_defaults(func=run)


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of processes, 1 or more")
    return int(text)


def _moment(text: str | None, flag: str) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"{flag} {text!r}: not a date (2026-01-31) or an ISO 8601 instant"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _declared(path: str | None) -> dict[str, object] | None:
    if path is None:
        return None
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise UsageError(f"--declared {path}: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("config"), dict):
        data = data["config"]  # a whole hello reply: its config
    if not isinstance(data, dict):
        raise UsageError(f"--declared {path}: not a hello config (an object)")
    return data


def run(args: argparse.Namespace) -> int:
    from harness.audit.log import log_files
    from harness.audit.run import (
        Progress,
        Request,
        audit,
        differences,
        expected_rows,
        record,
        write,
    )
    from harness.gamemath.census import census_progress
    from harness.rules.profiles import load_profile

    profile = load_profile(args.profile)
    declared = _declared(args.declared)
    if declared is not None:
        differ = differences(profile, declared)
        if differ:
            raise UsageError(
                f"--declared {args.declared} differs from profile {profile.name} in "
                f"{', '.join(differ)}: audit under the profile (or approved variation) the "
                "game runs"
            )
    files = log_files(args.logs)
    if args.convert_to is not None:
        return _convert(files, Path(args.convert_to), args.quiet)
    out = Path(args.out)
    for path in files:
        if out.resolve() in path.resolve().parents:
            raise UsageError(
                f"--out {out}: it holds the log file {path}; nothing is written over an input"
            )
    request = Request(
        files=files,
        profile=profile,
        profile_sha256=profile.sha256,
        declared=declared,
        since=_moment(args.since, "--from"),
        until=_moment(args.until, "--to"),
        adapter=args.adapter,
    )
    progress = Progress(expected_rows(files), args.quiet)
    if args.dask is not None and not (
        args.dask.startswith(("tcp://", "tls://", "ucx://", "inproc://"))
        or re.fullmatch(r"local:\d*", args.dask)
        or re.fullmatch(r"[\w.-]+:\d+", args.dask)
    ):
        raise UsageError(
            f"--dask {args.dask}: not a scheduler address (tcp://HOST:PORT) or local:N"
        )
    spill = Path(args.spill) if args.spill else None
    if spill is not None and not spill.is_dir():
        raise UsageError(f"--spill {spill}: no such folder")
    book = None
    if args.register is not None:  # opened now: a register it cannot use stops it at once
        from harness.register.store import Register

        book = Register(args.register)
    partial = audit(request, progress, census_progress(args.quiet), args.jobs, args.dask, spill)
    progress.done(partial.rows)
    standings = None
    if book is not None:
        standings = book.standings(sorted(partial.build_rounds), profile.sha256)
    result = record(request, partial, out, standings)
    write(result, out)
    print(
        f"chcert audit: {result.verdict.value}: {result.rows.read:,} rows, "
        f"{len(result.findings)} finding(s); {out / 'audit.json'}"
    )
    for f in result.findings:
        print(f"  {f.check.value} {f.kind} {f.clause or ''} ({f.detail}): {f.count:,} row(s)")
    if book is not None and standings is not None:
        return (
            _recorded(book, result, partial.build_rounds, standings, out)
            or EXIT_CODES[result.verdict]
        )
    return EXIT_CODES[result.verdict]


def _recorded(
    book: Register,
    result: Audit,
    rounds: dict[str, int],
    standings: dict[str, Standing],
    out: Path,
) -> int:
    """The audit recorded against each build it met: 0, or 4 with one line when the
    register refuses (audit.json is written all the same)."""
    import hashlib

    from harness.errors import UserError

    try:
        head = book.record_audit(
            audit_sha256=hashlib.sha256((out / "audit.json").read_bytes()).hexdigest(),
            verdict=result.verdict.value,
            profile=result.profile,
            profile_sha256=result.profile_sha256,
            rounds=rounds,
            standings=standings,
        )
    except UserError as exc:
        print(f"chcert audit: not recorded in the register: {exc}", file=sys.stderr)
        return EXIT_USAGE
    builds = f"{len(rounds)} build(s)"
    print(f"  register: recorded against {builds} ({book.where}; head {head.seq}:{head.hash})")
    return 0


def _convert(files: list[Path], out: Path, quiet: bool) -> int:
    """The log converted to Parquet: exit 0, or 2 where a line could not be taken apart
    (each named; the audit of the source finds them, the converted file has no row)."""
    from harness.audit.convert import convert
    from harness.audit.run import Progress, expected_rows

    already = [p for p in files if p.suffix.lower() == ".parquet"]
    if already:
        raise UsageError(f"--convert-to: {already[0]} is Parquet already")
    if out.suffix.lower() != ".parquet":
        raise UsageError(f"--convert-to {out}: a Parquet file's name ends in .parquet")
    if out.resolve() in {p.resolve() for p in files}:
        raise UsageError(f"--convert-to {out}: it is a log file; nothing is written over an input")
    progress = Progress(expected_rows(files), quiet)
    done = convert(files, out, progress)
    progress.done(done.rows)
    typed = ", ".join(done.typed) or "none"
    print(f"chcert audit: {done.rows:,} rows converted to {out} (typed columns: {typed})")
    for line in done.left_out[:20]:
        print(f"  left out: {line.file} line {line.row}: {line.why}", file=sys.stderr)
    if done.left_out:
        print(
            f"chcert audit: {len(done.left_out):,} line(s) not taken apart are not in {out}: "
            "the source's audit names them",
            file=sys.stderr,
        )
        return 2
    return 0
