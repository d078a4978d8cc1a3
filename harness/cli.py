"""The `chcert` command line (contract 2; docs/command-line.md).

    chcert certify [--adapter SPEC] [--profile NAME|PATH] [--out DIR] [-n WORKERS]
                   [--tx SPEC ...] [--dist MODE] [--rng-decks N] [--rtp-rounds N]
                   [--differential N] [--seed S] [-k EXPR] [--item NAME ...]
                   [--attest FILE] [--vectors FILE ...] [--junitxml PATH] [--summary-md FILE]
                   [--timeout SECONDS] [--repeat N] [--plan FILE | --no-plan] [--dry-run]
                   [--artifact FILE ...] [--replace-signed]
                   [--sign-key KEY --sign-cert CERT [--sign-passphrase-env VAR]
                    [--timestamp-url URL]]
    chcert math    [--profile NAME|PATH] [--json] [--strategy FILE] [--claim FIGURE=VALUE ...]
    chcert rng     [--adapter SPEC] [--profile NAME|PATH] [--decks N] [--timeout S] [--json]
    chcert vectors check | generate [--check]
    chcert report  RESULTS_JSON [--pdf PATH] [--sign-key KEY --sign-cert CERT ...]
    chcert diff    OLD_JSON NEW_JSON [--json] [--summary-md FILE]
    chcert verify  REPORT_PDF [--trust CERT ...] [--trust-tsa CERT ...]

Exit codes: 0 PASS, 1 FAIL, 2 INCOMPLETE, 4 usage or spec error (docs/verdict.md);
diff: 1 when something regressed; verify: 1 when the report is not verified.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import re
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from harness import __version__, strictjson
from harness.defaults import (
    DEFAULT_DECKS,
    DEFAULT_DIFFERENTIAL,
    DEFAULT_PROFILE,
    DEFAULT_RTP_ROUNDS,
    MAX_DECKS,
    MAX_TIMEOUT,
    MAX_WORKERS,
    RANGES,
    available_profiles,
)
from harness.errors import HarnessError, SpecError
from harness.outcomes import EXIT_CODES, EXIT_USAGE, SCHEMA_VERSION, Status, Verdict
from harness.paths import DATA_ROOT, in_data, output_problem, read_input, verify_regular
from harness.processes import Reaper, nothing_outlives

if TYPE_CHECKING:
    from harness.evidence import Minimums
    from harness.profiles import Claim, Profile
    from harness.rng import Battery
    from harness.specs import Catalog

# The modules a command needs (the numerical stack, the schemas, the report) are imported
# inside it: `chcert --help` answers without them (docs/command-line.md).

EXIT_HELP = """exit codes: 0 PASS (certified), 1 FAIL (something failed), 2 INCOMPLETE (something
applicable not tested, a sample below the certificate's minimum, a selection, the game
unreachable, an interruption, a harness error; a dry run), 4 usage or spec error (bad
arguments, invalid profile, vector or attestation file, a selection matching nothing).
See docs/verdict.md. chcert diff exits 1 when something regressed, chcert verify when the
report is not verified (docs/command-line.md)."""
OUTPUTS = ("results.json", "report.pdf", "junit.xml", "strategy.npz", "repro")
# pytest-xdist's --dist modes that share the items out: `each` would run every item on
# every worker (each counted once per host), and `no` distributes nothing.
DIST_MODES = ("load", "loadscope", "loadfile", "loadgroup", "worksteal")
GATEWAYS = ("popen", "ssh", "socket", "vagrant_ssh")  # execnet's gateway types
SPEC_KEYS = {*GATEWAYS, "python", "chdir", "nice", "dont_write_bytecode", "ssh_config"}


class UsageError(Exception):
    """Bad arguments or input files: exit 4, one line on stderr, nothing certified."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits 4 (pytest's convention), not argparse's 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chcert",
        description="Casino Hold'em certification harness",
        epilog=EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"chcert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    cert = sub.add_parser(
        "certify",
        help="certify an implementation against a profile",
        epilog=EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cert.add_argument(
        "--adapter",
        default="reference",
        help="reference | python:MODULE:CLASS | subprocess:COMMAND | http://HOST:PORT/PATH",
    )
    cert.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        help=f"profile name ({', '.join(available_profiles())}) or path",
    )
    cert.add_argument(
        "--out", default="reports", help="folder for the outputs (earlier ones are replaced)"
    )
    cert.add_argument(
        "-n",
        "--workers",
        type=int,
        default=0,
        help="parallel workers, each with its own connection (default 0: in-process)",
    )
    cert.add_argument(
        "--tx",
        action="append",
        default=[],
        metavar="SPEC",
        help="a pytest-xdist worker on an execnet gateway, e.g. ssh=HOST//python=python3 or "
        "socket=HOST:PORT (repeatable; N*SPEC starts N); every host needs chcert installed at "
        "the same path; excludes -n",
    )
    cert.add_argument(
        "--dist",
        default=None,
        metavar="MODE",
        help=f"how pytest-xdist shares the items out among -n or --tx workers: "
        f"{', '.join(DIST_MODES)} (default load)",
    )
    cert.add_argument(
        "--rng-decks", type=int, default=DEFAULT_DECKS, help="decks sampled for the RNG battery"
    )
    cert.add_argument(
        "--seed", type=int, default=None, help="seed of every randomized check (default: random)"
    )
    cert.add_argument(
        "-k",
        dest="select",
        default=None,
        help="only items matching this pytest -k expression (never a certificate: at best "
        "INCOMPLETE)",
    )
    cert.add_argument(
        "--item",
        action="append",
        default=[],
        metavar="CLAUSE/TARGET",
        help="run exactly this item (repeatable): how reproduce commands select, where -k "
        "matches every name containing its words; a selection too",
    )
    cert.add_argument(
        "--attest", default=None, help="a laboratory's attestations file (YAML, docs/verdict.md)"
    )
    cert.add_argument(
        "--vectors",
        action="append",
        default=[],
        help="a further vector file to replay, e.g. OUT/repro/*.yaml (repeatable)",
    )
    cert.add_argument(
        "--junitxml", default=None, help="where to write JUnit XML (default OUT/junit.xml)"
    )
    cert.add_argument(
        "--summary-md",
        default=None,
        metavar="FILE",
        help="append a Markdown summary to FILE, e.g. $GITHUB_STEP_SUMMARY (docs/ci.md)",
    )
    cert.add_argument(
        "--replace-signed",
        action="store_true",
        help="let this run replace a signed report.pdf in OUT (else a usage error)",
    )
    cert.add_argument(
        "--rtp-rounds",
        type=int,
        default=DEFAULT_RTP_ROUNDS,
        help="rounds played optimally for the RTP simulation (0: not tested)",
    )
    cert.add_argument(
        "--differential",
        type=int,
        default=DEFAULT_DIFFERENTIAL,
        metavar="N",
        help="seat-hands dealt as stacked rounds and compared with the rules oracle by the "
        f"differential check (default {DEFAULT_DIFFERENTIAL:,}; 0: not tested)",
    )
    cert.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each reply")
    cert.add_argument("--repeat", type=int, default=1, help="replay every vector N times (soak)")
    planned = cert.add_mutually_exclusive_group()
    planned.add_argument(
        "--plan",
        default=None,
        metavar="FILE",
        help="the laboratory's run plan (default: ./chcert.toml, else [tool.chcert] of "
        "./pyproject.toml, whose laboratory, attestations, signing and minimums are ignored); "
        "options given here override it (docs/run-plan.md)",
    )
    planned.add_argument(
        "--no-plan",
        action="store_true",
        help="read no plan from the current folder (docs/run-plan.md)",
    )
    cert.add_argument(
        "--dry-run",
        action="store_true",
        help="print every setting the run would use and where it came from, check them, "
        "and certify nothing (exit 2)",
    )
    cert.add_argument(
        "--artifact",
        action="append",
        default=[],
        metavar="FILE",
        help="a file of the build submitted, hashed (SHA-256) onto the certificate page "
        "(repeatable)",
    )
    _signing_options(cert)

    math = sub.add_parser("math", help="exact game mathematics of a profile, and its claims")
    math.add_argument("--profile", default=DEFAULT_PROFILE, help="profile name or path")
    math.add_argument("--json", action="store_true", help="print the figures as JSON")
    math.add_argument(
        "--strategy", default=None, help="also write the optimal strategy file (.npz) here"
    )
    math.add_argument(
        "--claim",
        action="append",
        default=[],
        metavar="FIGURE=VALUE",
        help="also check a figure someone claims (house_edge, rtp, raise_frequency, "
        "aa_bonus_edge; a fraction), e.g. --claim rtp=0.9875",
    )

    rng = sub.add_parser("rng", help="run the RNG and deck-distribution battery")
    rng.add_argument("--adapter", default="reference", help="adapter spec (as for certify)")
    rng.add_argument("--profile", default=DEFAULT_PROFILE, help="profile the reference game plays")
    rng.add_argument("--decks", type=int, default=DEFAULT_DECKS, help="decks to sample")
    rng.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each reply")
    rng.add_argument("--json", action="store_true", help="print the results as JSON")

    vec = sub.add_parser("vectors", help="work with the vector sets")
    vec_sub = vec.add_subparsers(dest="vectors_command", required=True, parser_class=_Parser)
    vec_sub.add_parser("check", help="validate every catalog and vector file, the corpus too")
    gen = vec_sub.add_parser(
        "generate", help="write the generated corpus, vectors/generated/ (docs/corpus.md)"
    )
    gen.add_argument(
        "--check",
        action="store_true",
        help="generate in memory and compare with the stored files; exit 1 if they differ",
    )

    rep = sub.add_parser("report", help="re-render report.pdf from an archived results.json")
    rep.add_argument("results", help="path to results.json")
    rep.add_argument("--pdf", default=None, help="output path (default: beside results.json)")
    _signing_options(rep)

    diff = sub.add_parser(
        "diff",
        help="compare two results.json; exit 1 when anything regressed (docs/ci.md)",
    )
    diff.add_argument("old", metavar="OLD_JSON", help="the earlier run's results.json")
    diff.add_argument("new", metavar="NEW_JSON", help="the later run's results.json")
    diff.add_argument("--json", action="store_true", help="print the comparison as JSON")
    diff.add_argument(
        "--summary-md",
        default=None,
        metavar="FILE",
        help="also append the comparison as Markdown to FILE (docs/ci.md)",
    )

    ver = sub.add_parser(
        "verify",
        help="check a report's signature and its attached results.json (docs/signing.md)",
    )
    ver.add_argument("report_pdf", metavar="REPORT_PDF", help="the report to verify")
    ver.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="CERT",
        help="a trust anchor the signer's certificate must chain to (repeatable)",
    )
    ver.add_argument(
        "--trust-tsa",
        action="append",
        default=[],
        metavar="CERT",
        help="a timestamp authority trusted to prove when a report was signed (repeatable)",
    )
    return parser


def _signing_options(parser: argparse.ArgumentParser) -> None:
    """--sign-key/--sign-cert: sign report.pdf with the laboratory's key (docs/signing.md)."""
    parser.add_argument(
        "--sign-key",
        default=None,
        metavar="KEY",
        help="private key (PEM, DER, or a PKCS#12 bundle)",
    )
    parser.add_argument(
        "--sign-cert", default=None, metavar="CERT", help="the signer's certificate"
    )
    parser.add_argument(
        "--sign-passphrase-env",
        default=None,
        metavar="VAR",
        help="environment variable holding the key's passphrase (never the passphrase itself)",
    )
    parser.add_argument(
        "--timestamp-url",
        default=None,
        metavar="URL",
        help="RFC 3161 timestamp authority that stamps the signature (http:// or https://)",
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "certify":
            return certify(_planned(parser, argv, args))
        if args.command == "vectors":
            return vectors_generate(args) if args.vectors_command == "generate" else vectors_check()
        if args.command == "rng":
            return rng_command(args)
        if args.command == "math":
            return math_command(args)
        if args.command == "diff":
            from harness.diff import diff_command

            return diff_command(args.old, args.new, as_json=args.json, summary_md=args.summary_md)
        if args.command == "verify":
            from harness.report.seal import verify_command

            return verify_command(args.report_pdf, args.trust, args.trust_tsa)
        return report(args)
    except SpecError as exc:
        print(f"chcert: invalid spec: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"chcert: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # before a run started, or during a command without one
        print("chcert: interrupted", file=sys.stderr)
        return EXIT_CODES[Verdict.INCOMPLETE]


def _planned(
    parser: argparse.ArgumentParser, argv: list[str], args: argparse.Namespace
) -> argparse.Namespace:
    """The certify options with the run plan's settings for those not typed."""
    from harness.plan import apply_plan, explicit_options, find_plan, plan_line

    plan = find_plan(args.plan, search=not args.no_plan)
    if plan is not None:
        print(f"chcert: {plan_line(plan.to_json())}")
    typed = explicit_options(parser, argv)
    applied = apply_plan(args, plan, typed)
    applied.typed = frozenset(typed)  # for --dry-run: where each setting came from
    return applied


def _artifacts(paths: list[str]) -> list[dict[str, Any]]:
    """Each file of the build submitted: its name, size and SHA-256, read before the run
    (a missing file is a usage error, not a certificate with a gap)."""
    records = []
    for given in paths:
        path = Path(given)
        try:
            digest, size = hashlib.sha256(), 0
            verify_regular(path)  # streamed, not read whole: a build may be large
            with path.open("rb") as fh:
                while chunk := fh.read(1 << 20):
                    digest.update(chunk)
                    size += len(chunk)
        except OSError as exc:
            raise UsageError(f"--artifact {given}: {exc.strerror or exc}") from exc
        records.append(
            {
                "name": path.name,
                "path": str(path.resolve()),
                "bytes": size,
                "sha256": digest.hexdigest(),
            }
        )
    return records


@dataclasses.dataclass(frozen=True)
class _Signing:
    """The laboratory's key and certificate, loaded before the run so that a wrong path
    or passphrase stops it at once, and the timestamp authority, asked once before the
    run for the same reason (docs/signing.md)."""

    key: Path
    cert: Path
    passphrase: bytes | None = dataclasses.field(repr=False)
    timestamp_url: str | None = None

    def sign(self, pdf: Path, drawn_sha256: str) -> None:
        """Sign `pdf`, which must still be the PDF chcert drew (its SHA-256): never a
        report changed since."""
        from harness.report.seal import sign_pdf

        sign_pdf(
            pdf,
            self.key,
            self.cert,
            self.passphrase,
            timestamp_url=self.timestamp_url,
            drawn_sha256=drawn_sha256,
        )


def _signing(args: argparse.Namespace) -> _Signing | None:
    from harness.report.seal import SealError, check_signer, check_timestamp_authority

    timestamp_url = getattr(args, "timestamp_url", None)
    if not args.sign_key and not args.sign_cert:
        if timestamp_url:
            raise UsageError("--timestamp-url stamps a signature: give --sign-key and --sign-cert")
        return None
    if not (args.sign_key and args.sign_cert):
        raise UsageError("--sign-key and --sign-cert go together")
    passphrase = None
    if args.sign_passphrase_env:
        value = os.environ.get(args.sign_passphrase_env)
        if value is None:
            raise UsageError(f"--sign-passphrase-env: {args.sign_passphrase_env} is not set")
        passphrase = value.encode("utf-8")
    try:
        check_signer(Path(args.sign_key), Path(args.sign_cert), passphrase)
        if timestamp_url:
            authority = check_timestamp_authority(timestamp_url)
            print(f"chcert: timestamp authority {timestamp_url} answers ({authority})")
    except SealError as exc:
        raise UsageError(str(exc)) from exc
    return _Signing(Path(args.sign_key), Path(args.sign_cert), passphrase, timestamp_url or None)


def _annotated(
    results: dict[str, Any], args: argparse.Namespace, artifacts: list[dict[str, Any]]
) -> dict[str, Any]:
    """results.json's manifest with what the command line knows and the runner does not:
    the report id, the build submitted, the laboratory and the run plan (docs/results.md)."""
    manifest = results.setdefault("manifest", {})
    started = str(manifest.get("started") or "")  # the run's day (a stub has no manifest)
    stamp = started[:10].replace("-", "") or time.strftime("%Y%m%d", time.gmtime())
    manifest["report_id"] = f"CHC-{stamp}-{secrets.token_hex(4).upper()}"
    manifest["artifacts"] = artifacts
    plan = getattr(args, "applied_plan", None)
    if plan is not None:
        manifest["laboratory"] = dict(plan.laboratory)
        manifest["plan"] = plan.to_json()
    return results


def _verify_selection(expression: str) -> None:
    """A -k expression that does not parse is a usage error, before anything runs."""
    from _pytest.mark.expression import Expression  # pytest's own parser for -k

    try:
        Expression.compile(expression)
    except Exception as exc:  # SyntaxError in pytest 9, ParseError before
        raise UsageError(f"-k {expression!r} is not a valid selection: {exc}") from exc


def _check_distribution(args: argparse.Namespace) -> None:
    """-n, --tx and --dist, checked before anything runs (pytest-xdist would let -n
    silently replace the --tx workers, and run in-process a --tx without --dist)."""
    for spec in args.tx:
        problem = _tx_problem(spec)
        if problem:
            raise UsageError(
                f"--tx {spec!r} is not an execnet gateway spec: {problem} "
                "(e.g. ssh=HOST//python=python3, socket=HOST:PORT)"
            )
    if args.tx and args.workers:
        raise UsageError(
            "-n and --tx exclude each other: -n starts local workers, --tx one worker per "
            "spec (add local workers with --tx N*popen)"
        )
    if args.dist is not None and args.dist not in DIST_MODES:
        why = {
            "each": " (each runs every item on every worker; results.json holds one outcome "
            "per item)",
            "no": " (to run in-process, leave out -n and --tx)",
        }.get(args.dist, "")
        raise UsageError(f"--dist {args.dist!r}: use one of {', '.join(DIST_MODES)}{why}")
    if args.dist is not None and not (args.tx or args.workers):
        raise UsageError(f"--dist {args.dist} needs workers to share the items: -n N or --tx SPEC")


def _tx_problem(spec: str) -> str | None:
    """What makes `spec` no execnet gateway spec pytest-xdist can start ([N*]KEY[=VALUE]//...),
    or None."""
    count, star, body = spec.partition("*")
    if not star:
        body = spec
    elif not count.isdigit() or not 1 <= int(count) <= MAX_WORKERS:
        return f"{count!r} before '*' is no count of workers (1 to {MAX_WORKERS})"
    keys: dict[str, str | None] = {}
    for part in body.split("//"):
        key, eq, value = part.partition("=")
        if key not in SPEC_KEYS and not key.startswith("env:"):
            return f"unknown key {key!r}" if key else "an empty part"
        if key in keys:
            return f"{key} given twice"
        if eq and not value:
            return f"{key}= without a value"
        keys[key] = value if eq else None
    gateways = [k for k in keys if k in GATEWAYS]
    if len(gateways) != 1:
        return f"it needs exactly one of {', '.join(GATEWAYS)}"
    gateway, where = gateways[0], keys[gateways[0]]
    if gateway == "popen":
        return "popen takes no value" if where is not None else None
    if where is None:
        return f"{gateway} needs a value"
    if gateway == "socket":
        host, _, port = where.partition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            return f"socket={where}: use socket=HOST:PORT"
        if "python" in keys:
            return "a socket server runs its own python: python= does not apply"
    return None


def _check_adapter(spec: str) -> None:
    from harness.adapters.base import check_spec

    try:
        check_spec(spec)
    except ValueError as exc:
        raise UsageError(f"--adapter: {exc}") from None


def _check_ranges(args: argparse.Namespace) -> None:
    """Every whole number of the run within its range (harness/defaults.py RANGES)."""
    for dest, (option, least, most) in RANGES.items():
        value = getattr(args, dest)
        if value is not None and not least <= value <= most:
            raise UsageError(f"{option} {value}: a whole number from {least:,} to {most:,}")


def _check_timeout(seconds: float) -> None:
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT):
        raise UsageError(
            f"--timeout {seconds}: a number of seconds above 0 and at most {MAX_TIMEOUT:,.0f}"
        )


def _check_decks(decks: int, option: str) -> None:
    from harness.rng import MIN_DECKS, MIN_EXPECTED

    if decks < MIN_DECKS:
        raise UsageError(
            f"{option} {decks}: the RNG battery judges samples of at least {MIN_DECKS:,} decks "
            f"(each cell of its chi-square tests expects {MIN_EXPECTED} or more; harness/rng.py)"
        )
    if decks > MAX_DECKS:
        raise UsageError(f"{option} {decks}: at most {MAX_DECKS:,} decks")


def certify(args: argparse.Namespace) -> int:
    artifacts = _artifacts(args.artifact)
    signing = _signing(args)
    from harness.attestations import load_attestations
    from harness.profiles import load_profile
    from harness.specs import clause_index, load_catalogs
    from harness.vectors import load_all_vectors

    _check_ranges(args)
    _check_timeout(args.timeout)
    _check_decks(args.rng_decks, "--rng-decks")
    _check_adapter(args.adapter)
    _check_distribution(args)
    profile = load_profile(args.profile)  # SpecError -> exit 4 before anything runs
    minimums = _minimums(args, profile)
    catalogs = load_catalogs(profile.catalogs)
    if not any(cat.for_profile(profile.name) for cat in catalogs):
        raise UsageError(
            f"no clause of the catalogs {list(profile.catalogs)} applies to profile "
            f"{profile.name!r}: nothing could be certified (clauses name their profiles)"
        )
    index = clause_index(load_catalogs())
    load_all_vectors(index, extra=[Path(p) for p in args.vectors])
    if args.attest:
        load_attestations(
            args.attest, [c for cat in catalogs for c in cat.for_profile(profile.name)]
        )
    if args.select is not None:
        _verify_selection(args.select)
    if in_data(Path(args.out)):
        raise UsageError(f"--out {args.out}: is in chcert's own data, which every run reads")
    out = Path(args.out) if args.dry_run else _output_folder(Path(args.out))
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    _check_replaceable(out, args.replace_signed)
    inputs = _input_files(args, profile.path)
    outputs = {out / name for name in OUTPUTS}
    junit = out / "junit.xml"
    if args.junitxml:
        junit = _output_target("--junitxml", args.junitxml, out, inputs, outputs - {junit})
    if args.summary_md is not None:
        _output_target("--summary-md", args.summary_md, out, inputs, outputs | {junit})
    if args.dry_run:  # everything a run checks is checked: nothing is written
        return _dry_run(args, profile, minimums)
    with _staged(out) as stage, nothing_outlives() as reaper:
        code, drawn = _run_certification(
            args, profile, catalogs, out, stage, junit, reaper, artifacts
        )
    if signing is not None:  # the outputs are published: a failed signature loses none
        return _signed(signing, out / "report.pdf", drawn, code)
    return code


def _minimums(args: argparse.Namespace, profile: Profile) -> Minimums:
    """The sample sizes this certificate needs (docs/verdict.md#evidence): chcert's
    defaults, raised by the profile's, set by a named plan's [minimums]; checked before
    the run."""
    from harness.evidence import resolve

    plan = getattr(args, "applied_plan", None)
    stated = dict(plan.minimums) if plan is not None else {}
    try:
        return resolve(
            profile.name,
            profile.raw.get("evidence_minimums"),
            stated,
            f"run plan {plan.path}" if plan is not None else "",
        )
    except ValueError as exc:
        raise UsageError(f"minimum sample sizes: {exc}") from exc


# What --dry-run does not show as a setting: the plan's bookkeeping and the command itself.
NOT_SETTINGS = frozenset({"command", "applied_plan", "typed", "dry_run", "plan", "no_plan"})


def _dry_run(args: argparse.Namespace, profile: Profile, minimums: Minimums) -> int:
    """Every setting the run would use and where it came from; certifies nothing, so it
    exits 2 (INCOMPLETE): a pipeline given --dry-run by mistake never passes its gate."""
    plan = getattr(args, "applied_plan", None)
    typed: frozenset[str] = getattr(args, "typed", frozenset())
    planned = set(plan.settings) - set(plan.overridden) if plan is not None else set()

    def origin(dest: str) -> str:
        if dest in typed:
            return "command line"
        if dest in planned:
            return f"run plan {plan.path}" if plan is not None else "run plan"
        return "default"

    print(f"chcert certify --dry-run: profile {profile.name} ({profile.path})")
    if plan is None:  # a plan's own line was printed as it was read
        print("  run plan: none" + (" (--no-plan)" if args.no_plan else ""))
    for dest, value in sorted(vars(args).items()):
        if dest in NOT_SETTINGS:
            continue
        shown = value
        if dest == "seed" and value is None:
            shown = "drawn at random when the run starts"
        print(f"  {dest} = {shown!r}  ({origin(dest)})")
    print(
        f"  minimum samples ({minimums.source}): {minimums.rng_decks:,} decks, "
        f"{minimums.rtp_rounds:,} RTP rounds, {minimums.differential:,} seat-hands"
    )
    print("nothing certified (a dry run): exit 2")
    return EXIT_CODES[Verdict.INCOMPLETE]


def _input_files(args: argparse.Namespace, profile: Path) -> list[Path]:
    """The files a certification reads that a user named (and its profile's, and the run
    plan, found or named): never one of its outputs."""
    plan = getattr(args, "applied_plan", None)
    named = [args.attest, plan and plan.path, args.sign_key, args.sign_cert, *args.vectors]
    return [profile, *(Path(p) for p in [*named, *args.artifact] if p)]


def _output_target(
    option: str, given: str, out: Path, inputs: list[Path], others: set[Path]
) -> Path:
    """A file the user names for one of the run's outputs (--junitxml, --summary-md),
    refused before the run when it would overwrite an input or another output (inside
    OUT/repro or a stage folder too), or could not be written: the run's outputs and
    inputs are never lost for it."""
    if not given:
        raise UsageError(f"{option}: names no file (is the variable it was given set?)")
    path = Path(given)
    target = path.resolve()
    inside = [(out / "repro").resolve(), *out.resolve().glob(f"{STAGE_PREFIX}*")]
    if target in {p.resolve() for p in others} or any(f in target.parents for f in inside):
        raise UsageError(f"{option} {given}: is another of this run's outputs in {out}")
    problem = output_problem(path, inputs, "this run")
    if problem:
        raise UsageError(f"{option} {given}: {problem}")
    return path


# What a run writes into repro/ (harness/runner.py, harness/publication.py): only these are
# ever removed with the earlier run's outputs.
REPRO_FILES = re.compile(r"repro-[^/]*\.yaml|declared-profile\.yaml")


def _check_replaceable(out: Path, replace_signed: bool) -> None:
    """OUT's earlier outputs are replaced only when chcert wrote them: a repro/ holding
    anything else (a user's own folder of that name) is a usage error, and so is a signed
    report.pdf unless --replace-signed says to replace it."""
    from harness.report.seal import is_signed

    repro = out / "repro"
    if repro.is_symlink() or (repro.exists() and not repro.is_dir()):
        strangers = [repro]
    elif repro.is_dir():
        strangers = [
            p
            for p in sorted(repro.iterdir())
            if not (p.is_file() and REPRO_FILES.fullmatch(p.name))
        ]
    else:
        strangers = []
    if strangers:
        raise UsageError(
            f"--out {out}: {strangers[0]} was not written by chcert, and a run replaces "
            "repro/: choose another --out"
        )
    pdf = out / "report.pdf"
    if not replace_signed and pdf.is_file() and is_signed(pdf):
        raise UsageError(
            f"--out {out}: report.pdf is a signed report; keep it elsewhere, or give "
            "--replace-signed"
        )


def _signed(signing: _Signing, pdf: Path, drawn_sha256: str, code: int) -> int:
    """Sign the published report, as drawn (its SHA-256); a signature that fails is a
    usage error (exit 4), the report stays as written, unsigned."""
    from harness.report.seal import SealError

    try:
        signing.sign(pdf, drawn_sha256)
    except SealError as exc:
        print(f"chcert: the report was not signed: {exc}", file=sys.stderr)
        return EXIT_USAGE
    stamped = f", timestamped by {signing.timestamp_url}" if signing.timestamp_url else ""
    print(f"  signed:  {pdf}{stamped} (chcert verify {pdf})")
    return code


STAGE_PREFIX = ".chcert-run-"


def _output_folder(out: Path) -> Path:
    """--out, created if need be: a usage error when it cannot be a folder of outputs."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create the folder: {exc.strerror}") from exc
    if not os.access(out, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: the folder is not writable")
    return out


@contextlib.contextmanager
def _staged(out: Path) -> Iterator[Path]:
    """A folder inside OUT where the run writes its outputs, so that OUT keeps the
    previous run's until this one has written all of its own (_publish); removed at the
    end whatever happens. One that a killed run left behind is removed by the next."""
    for left in out.glob(f"{STAGE_PREFIX}*"):
        pid = left.name.removeprefix(STAGE_PREFIX).partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(left, ignore_errors=True)
    stage = Path(tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{os.getpid()}-", dir=out))
    try:
        yield stage
    except _NotPublished:
        raise  # the stage holds the run's outputs: kept, and named in the message
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    shutil.rmtree(stage, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _NotPublished(UsageError):
    """The outputs could not be moved into OUT; they stay in the stage, which is named."""


def _publish(stage: Path, out: Path, junit: Path) -> None:
    """Replace OUT's outputs by the run's. results.json is the first to go and the last to
    come: a results.json in OUT always stands beside the outputs of its own run, and a run
    killed at any moment leaves the previous run's or none (docs/robustness.md)."""
    try:
        elsewhere = junit.resolve() != (out / "junit.xml").resolve()
        if elsewhere:
            _copy_atomic(stage / "junit.xml", junit)
        (out / "results.json").unlink(missing_ok=True)
        for name in OUTPUTS[1:]:
            old = out / name
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
            else:
                old.unlink(missing_ok=True)
            if (stage / name).exists() and not (name == "junit.xml" and elsewhere):
                (stage / name).rename(old)
        (stage / "results.json").rename(out / "results.json")
    except OSError as exc:
        raise _NotPublished(
            f"--out {out}: the outputs could not be put in place ({exc}); "
            f"this run's outputs are in {stage}"
        ) from exc


def _copy_atomic(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    shutil.copyfile(source, tmp)
    shutil.copymode(source, tmp)  # the source's, as the umask made it; not mkstemp's 0600
    os.replace(tmp, target)


class _Handover:
    """Takes the run's results from the plugin in memory, as pytest unconfigures: never
    read back from results.json in the output folder, which a process the game left
    behind could replace before it is ended (docs/robustness.md)."""

    def __init__(self) -> None:
        self.results: dict[str, Any] | None = None

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        run = config.pluginmanager.get_plugin("chcert-run")
        built = getattr(run, "results", None)
        if isinstance(built, dict):
            self.results = built


class _Signals:
    """SIGTERM and SIGHUP during a run stop it as Ctrl-C (SIGINT) does: the items stop,
    the test workers are interrupted too, and results.json and the PDF are written,
    INCOMPLETE, with the signal named. Once the items are over (`armed` off, by the hook
    below: results are being written), or after the first signal, a signal is ignored:
    the outputs are still completed. A signal ignored when chcert started (nohup) stays
    ignored."""

    HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    WORKERS_GRACE = 2.0  # seconds

    def __init__(self, reaper: Reaper) -> None:
        self.reaper = reaper
        self.armed = True
        self.interrupted_by = ""  # the signal that stopped the run, as results.json names it
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
            for sig in self.HANDLED:
                if signal.getsignal(sig) is not signal.SIG_IGN:
                    self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self.armed = False

    def _handle(self, signum: int, frame: object) -> None:
        if not self.armed:
            return
        self.armed = False
        if signum == signal.SIGINT:
            self.interrupted_by = "Ctrl-C"  # a terminal sent it to the workers too
        else:
            self.interrupted_by = signal.Signals(signum).name
            self.reaper.interrupt_workers()
        # The workers get a moment to close their games; then whatever the run started is
        # ended, so that the test runner's wait for its workers is short.
        ender = threading.Timer(self.WORKERS_GRACE, self.reaper.end_all)
        ender.daemon = True
        ender.start()
        raise KeyboardInterrupt(self.interrupted_by)


def _run_certification(
    args: argparse.Namespace,
    profile: Profile,
    catalogs: list[Catalog],
    out: Path,
    stage: Path,
    junit: Path,
    reaper: Reaper,
    artifacts: list[dict[str, Any]],
) -> tuple[int, str]:
    """Run the items, then write, draw and publish the outputs: the exit code and the
    SHA-256 of report.pdf as drawn (what may be signed)."""
    from harness.report import render
    from harness.report.junit import write_junit
    from harness.results import json_bytes, write_bytes_atomic

    results_path = stage / "results.json"
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    # Each option is one `--name=VALUE` token and every path is absolute, and no path is
    # given as a test path: pytest-xdist forwards this command line to each worker, which
    # may run on another host, in another directory (--tx). There the plugin collects the
    # catalogs and vectors of its own installed package (harness/plugin.py); xdist would
    # refuse to forward a token that is a local path outside its rsync roots.
    pytest_args = [
        f"--config-file={os.devnull}",
        f"--rootdir={DATA_ROOT}",
        "-p",
        "no:cacheprovider",
        "--assert=plain",  # nothing here relies on assertion rewriting; it costs start-up time
        "-q",
        f"--chcert-profile={profile.path.resolve()}",
        f"--chcert-adapter={args.adapter}",
        f"--chcert-out={out.resolve()}",
        f"--chcert-stage={stage.resolve()}",
        f"--chcert-seed={seed}",
        f"--chcert-timeout={args.timeout}",
        f"--chcert-repeat={args.repeat}",
        f"--chcert-rng-decks={args.rng_decks}",
        f"--chcert-rtp-rounds={args.rtp_rounds}",
        f"--chcert-differential={args.differential}",
    ]
    if args.tx:  # -n would replace these workers by local ones; -n 0 would drop them
        pytest_args += [f"--tx={spec}" for spec in args.tx]
        pytest_args.append(f"--dist={args.dist or 'load'}")
    else:
        pytest_args.append(f"--numprocesses={args.workers}")
        if args.dist is not None:
            pytest_args.append(f"--dist={args.dist}")
    pytest_args += [f"--chcert-vectors={Path(path).resolve()}" for path in args.vectors]
    plan = getattr(args, "applied_plan", None)
    if plan is not None and plan.minimums:  # the laboratory's policy (docs/verdict.md#evidence)
        stated = {**plan.minimums, "source": f"run plan {plan.path}"}
        pytest_args.append(f"--chcert-minimums={json.dumps(stated)}")
    if args.attest:
        pytest_args.append(f"--chcert-attest={Path(args.attest).resolve()}")
    if args.select is not None:
        pytest_args.append(f"-k{args.select}")
    pytest_args += [f"--chcert-item={name}" for name in args.item]
    print(
        f"chcert {__version__}: certifying {args.adapter} against profile {profile.name} "
        f"({sum(len(c.for_profile(profile.name)) for c in catalogs)} clauses, seed {seed})"
    )
    started = time.monotonic()
    handover = _Handover()
    with _Signals(reaper) as signals:
        try:
            code = pytest.main(pytest_args, plugins=[signals, handover])
        except KeyboardInterrupt:  # before or after pytest's own handling of it
            code = pytest.ExitCode.INTERRUPTED
        signals.armed = False
        reaper.end_all()  # the items are over: any worker or game still alive is a leftover
        if code == pytest.ExitCode.USAGE_ERROR:
            raise UsageError("the test runner refused its arguments (see above)")
        if code == pytest.ExitCode.NO_TESTS_COLLECTED and (args.select is not None or args.item):
            shown = f"-k {args.select!r}" if args.select is not None else f"--item {args.item}"
            raise UsageError(f"{shown} matches no item of profile {profile.name}")
        built = handover.results
        if built is None:  # the test runner stopped before the plugin could build them
            hint = f"; interrupted ({signals.interrupted_by})" if signals.interrupted_by else ""
            if args.tx and code == pytest.ExitCode.INTERNAL_ERROR:
                hint = "; could every --tx gateway be reached (socket server listening, ssh login)?"
            built = _stub_results(profile.name, int(code), hint)
        # From memory, as JSON reads it back: what is written, drawn and summed is what the
        # plugin built, whatever a leftover process did to the files in the meantime
        results = _annotated(json.loads(json_bytes(built)), args, artifacts)
        data = json_bytes(results)
        write_bytes_atomic(results_path, data)  # the bytes the report attaches and hashes
        write_junit(results, stage / "junit.xml")
        render(results, stage / "report.pdf", data)
        drawn = hashlib.sha256((stage / "report.pdf").read_bytes()).hexdigest()
        _publish(stage, out, junit)
    seconds = time.monotonic() - started
    _print_summary(results, out / "results.json", out / "report.pdf", junit, seconds)
    if args.summary_md:  # checked before the run (_summary_target)
        from harness.report.markdown import append_markdown, certify_markdown

        append_markdown(Path(args.summary_md), certify_markdown(results))
    return EXIT_CODES[Verdict(results["verdict"])], drawn


def _stub_results(profile: str, code: int, hint: str = "") -> dict[str, Any]:
    """results.json when the test runner stopped before the plugin could write it."""
    reason = f"the test runner stopped before writing results (exit {code}){hint}"
    return {
        "schema_version": SCHEMA_VERSION,
        "verdict": Verdict.INCOMPLETE.value,
        "implementation_verdict": Verdict.INCOMPLETE.value,
        "publication_verdict": Verdict.INCOMPLETE.value,
        "incomplete_reasons": [reason],
        "gaps": [],
        "selection": None,
        "profile": {"name": profile},
        "clauses": [],
        "attestations": [],
        "vectors": {},
        "failures": [],
    }


SHOWN = 10  # failures and gaps printed on screen; results.json and the PDF hold them all


def _print_summary(
    results: dict[str, Any], results_path: Path, pdf: Path, junit: Path, seconds: float
) -> None:
    clauses = results.get("clauses", [])
    vectors = results.get("vectors", {})
    count = {s.value: [c["id"] for c in clauses if c["status"] == s] for s in Status}
    print()
    print(f"VERDICT: {results['verdict']}  ({seconds:.1f} s)")
    print(
        f"  implementation: {results.get('implementation_verdict', '?')}   "
        f"published figures: {results.get('publication_verdict', '?')}"
    )
    print(
        f"  clauses: {len(clauses)} - {len(count['pass'])} passed, {len(count['fail'])} failed, "
        f"{len(count['not_tested'])} not tested, {len(count['attested'])} attested"
    )
    print(
        f"  vectors: {vectors.get('total', 0)} - {vectors.get('passed', 0)} passed, "
        f"{vectors.get('failed', 0)} failed, {vectors.get('errors', 0)} errors, "
        f"{vectors.get('not_tested', 0)} not tested"
    )
    print(f"  {_samples_line(results)}")
    plan = (results.get("manifest") or {}).get("plan")
    if plan:
        from harness.plan import plan_line

        print(f"  {plan_line(plan)}")
    if count["fail"]:
        print(f"  failed clauses: {', '.join(count['fail'])}")
    for reason in results.get("incomplete_reasons", []):
        print(f"  incomplete: {reason}")
    gaps = results.get("gaps", [])
    for gap in gaps[:SHOWN]:
        print(f"  not tested: {gap['clause']} - to close: {' '.join(gap['to_close'])}")
    if len(gaps) > SHOWN:
        print(f"  ... and {len(gaps) - SHOWN} more clauses not tested (see the report)")
    failures = results.get("failures", [])
    for f in failures[:SHOWN]:
        print(f"  FAIL [{f['kind']}] {f.get('clause') or '-'} {f.get('item')}: {f['message']}")
        if f.get("reproduce"):
            print(f"       reproduce: {f['reproduce']}")
        if f.get("repro"):
            print(f"       repro vector: {results_path.parent / f['repro']}")
    if len(failures) > SHOWN:
        print(f"  ... and {len(failures) - SHOWN} more failures (see the report)")
    stderr = _stderr_shown(results)
    if stderr:
        print("  the game's stderr (last lines):")
        for line in stderr:
            print(f"    | {line}")
    print(f"  results: {results_path}")
    print(f"  junit:   {junit}")
    print(f"  report:  {pdf}")


def _samples_line(results: dict[str, Any]) -> str:
    """The samples the verdict rests on, and the seed that drew them, on one line."""
    evidence = results.get("evidence") or {}
    shown = [
        f"{s['size']:,}/{s['minimum']:,} {s['name'].replace('_', ' ')}"
        + ("" if s["judged"] else " (not run)")
        for s in evidence.get("samples", [])
    ]
    source = (evidence.get("minimums") or {}).get("source", "not recorded")
    seed = (results.get("manifest") or {}).get("seed", "?")
    return f"samples (run/minimum): {', '.join(shown) or 'none'} (minimums: {source}); seed {seed}"


def _stderr_shown(results: dict[str, Any], lines: int = 20) -> list[str]:
    """The last lines of the game's stderr, when it exited or misbehaved."""
    text = results.get("implementation_stderr") or next(
        (
            f["evidence"]["stderr_tail"]
            for f in results.get("failures", [])
            if isinstance(f.get("evidence"), dict) and f["evidence"].get("stderr_tail")
        ),
        "",
    )
    return str(text).rstrip().splitlines()[-lines:]


def math_command(args: argparse.Namespace) -> int:
    """Print a profile's exact figures and the verdict on each claim (0 none refuted, 1 not)."""
    from harness.gamemath import census_progress, check_claims, main_game, profile_math
    from harness.profiles import load_profile

    profile = load_profile(args.profile)
    extra = [_parse_claim(text) for text in args.claim]
    started = time.monotonic()
    figures = profile_math(profile, census_progress(quiet=False))  # on stderr: --json stays clean
    figures["claims"] += check_claims(extra, profile)
    elapsed = time.monotonic() - started
    if args.strategy:
        main_game(profile).strategy.save(Path(args.strategy))
    if args.json:
        print(json.dumps({"profile": profile.name, **figures}, indent=2))
    else:
        _print_math(profile.name, profile.title, figures)
        print(f"computed in {elapsed:.1f} s")
        if args.strategy:
            print(f"strategy written to {args.strategy}")
    refuted = any(c["status"] == Status.FAIL for c in figures["claims"])
    return 1 if refuted else 0


FIGURES = ("house_edge", "rtp", "raise_frequency", "aa_bonus_edge")


def _parse_claim(text: str) -> Claim:
    """`--claim rtp=0.9875`: a figure someone claims, checked like a source's claim."""
    from harness.profiles import Claim

    figure, _, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if figure not in FIGURES or number != number:
        raise UsageError(f"--claim {text!r}: use FIGURE=FRACTION with FIGURE one of {FIGURES}")
    return Claim(figure, number, "command line", f"--claim {text}")


def _print_math(name: str, title: str, figures: dict[str, Any]) -> None:
    print(f"profile {name}: {title}")
    print(f"method: {figures['method']}")
    print(f"  {'':30} {'optimal':>12} {'always call':>12}")
    opt, always = figures["optimal"], figures["always_call"]
    for key, label in (
        ("house_edge", "house edge per ante"),
        ("rtp", "RTP per ante"),
        ("element_of_risk", "element of risk"),
        ("rtp_per_total_wager", "RTP per total wager"),
        ("raise_frequency", "raise frequency"),
        ("average_wager", "average wager (antes)"),
    ):
        print(f"  {label:30} {_pct(opt[key], key):>12} {_pct(always[key], key):>12}")
    print("  outcome probabilities:")
    for key in opt["outcomes"]:
        print(f"    {key:28} {opt['outcomes'][key]:12.6f} {always['outcomes'][key]:12.6f}")
    print("  ante pay rows (optimal): odds, probability paid, contribution per ante")
    for row in opt["rows"]:
        print(
            f"    {row['row']:28} {row['odds']:>4} {row['probability']:12.8f} "
            f"{row['contribution']:12.8f}"
        )
    print("  return per ante by source (optimal):")
    for key, value in opt["breakdown"].items():
        print(f"    {key:28} {value:+12.8f}")
    print(f"strategy: {figures['strategy']['rule']}")
    for row in figures["strategy"]["summary"]:
        print(f"    {row['hand']:42} {row['share']:7.2%} of deals, called {row['call_rate']:7.2%}")
    if figures["aa_bonus_edge"] is None:
        print("AA Bonus: none in this profile")
    else:
        print(
            f"AA Bonus house edge {100 * figures['aa_bonus_edge']:.4f}% "
            f"(exact over all 2,598,960 hole + flop hands)"
        )
        print(f"  {'row':22} {'hands':>9} {'probability':>12} {'pays':>5} {'contribution':>13}")
        for row in figures["aa_bonus_rows"]:
            pays = "lose" if row["pays"] is None else str(row["pays"])
            print(
                f"  {row['row']:22} {row['hands']:9,} {row['probability']:12.6f} "
                f"{pays:>5} {row['contribution']:13.6f}"
            )
    for claim in figures["claims"]:
        computed = "-" if claim["computed"] is None else f"{claim['computed']:.6f}"
        print(
            f"claim {claim['figure']} {claim['claimed']}: {claim['status']} "
            f"(computed {computed}, {claim['definition']}) [{claim['source']}]"
        )


def _pct(value: float, key: str) -> str:
    return f"{value:.4f}" if key == "average_wager" else f"{100 * value:.5f}%"


def rng_command(args: argparse.Namespace) -> int:
    """Sample the game's shuffle (and raw RNG) and run the battery (exit 0, 1, or 2)."""
    from harness.adapters import open_adapter
    from harness.profiles import load_profile
    from harness.rng import sample_and_test

    _check_decks(args.decks, "--decks")
    _check_timeout(args.timeout)
    _check_adapter(args.adapter)
    profile = load_profile(args.profile)
    try:
        adapter = open_adapter(args.adapter, profile_path=str(profile.path), timeout=args.timeout)
        try:
            hello = adapter.request("hello")
            capabilities = set(hello.get("capabilities", []))
            if "shuffle" not in capabilities:
                print("chcert rng: not tested: the game lacks capability shuffle", file=sys.stderr)
                return EXIT_CODES[Verdict.INCOMPLETE]
            started = time.monotonic()
            progress = _progress(args.decks, args.json)
            battery = sample_and_test(adapter.request, args.decks, capabilities, progress)
            seconds = time.monotonic() - started
        finally:
            adapter.close()
    except HarnessError as exc:
        print(f"chcert rng: {exc}", file=sys.stderr)
        return EXIT_CODES[Verdict.INCOMPLETE]
    if args.json:
        print(json.dumps({"implementation": hello.get("name"), **battery.to_json()}, indent=2))
    else:
        _print_battery(battery, str(hello.get("name")), seconds)
    return 0 if battery.passed else 1


def _print_battery(battery: Battery, name: str, seconds: float) -> None:
    raw = f" and {battery.raw_bytes:,} bytes of raw RNG output" if battery.raw_bytes else ""
    print(f"{battery.decks:,} decks{raw} from {name}, sampled and analysed in {seconds:.1f} s")
    print(f"family-wise alpha {battery.alpha}, {battery.correction} correction; 'detects' is the")
    print("smallest bias each test finds with 80% power at this sample size")
    print(f"{'test':24} {'statistic':>12} {'p':>10} {'p (Holm)':>10}  result")
    for t in battery.tests:
        verdict = "pass" if t.passed else "FAIL"
        print(f"{t.name:24} {t.statistic:12.4g} {t.p_value:10.3g} {t.p_adjusted:10.3g}  {verdict}")
        print(f"{'':24}   detects {t.detects}")
    die = battery.dieharder
    if die.get("ran"):
        shown = ", ".join(f"{t['name']} {t.get('assessment')}" for t in die["tests"])
        print(f"dieharder (informational, outside the corrected family): {shown}")
    else:
        print(f"dieharder: not run ({die.get('reason')})")
    print(f"RNG: {'PASS' if battery.passed else 'FAIL'}")


def _progress(total: int, quiet: bool) -> Callable[[int], None]:
    def show(done: int) -> None:
        if not quiet:
            print(
                f"\rsampling decks: {done:,}/{total:,}",
                end="" if done < total else "\n",
                file=sys.stderr,
                flush=True,
            )

    return show


def vectors_generate(args: argparse.Namespace) -> int:
    """Write the generated corpus, or (--check) compare it with a fresh generation."""
    from harness.corpus import CorpusError, CorpusMismatch, generate_corpus

    started = time.perf_counter()

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        summary = generate_corpus(check=args.check, progress=progress)
    except (CorpusError, CorpusMismatch) as exc:
        print(f"chcert: {exc}", file=sys.stderr)
        return 1
    for name, counts in summary["profiles"].items():
        clauses = ", ".join(f"{c} {n}" for c, n in counts["clauses"].items())
        print(f"  {name}: {counts['vectors']} vectors ({clauses})")
    verb = "reproduced exactly" if args.check else "written"
    print(
        f"{summary['vectors']} vectors {verb} ({summary['generator']}, seed {summary['seed']}) "
        f"in {time.perf_counter() - started:.0f} s"
    )
    return 0


def vectors_check() -> int:
    """Validate every catalog and vector file; print the counts."""
    from harness.corpus import CORPUS_DIR
    from harness.coverage import check_coverage
    from harness.refusals import load_all_refusals, refusal_files
    from harness.specs import clause_index, load_catalogs
    from harness.vectors import load_all_vectors, load_vector_file, vector_files

    catalogs = load_catalogs()
    clauses = clause_index(catalogs)
    vectors = load_all_vectors(clauses)
    refusals = load_all_refusals(clauses)
    report = check_coverage(catalogs, vectors, refusals)
    out_of_scope = sum(len(c.out_of_scope) for c in catalogs)
    print(
        f"{len(catalogs)} catalogs: {report.clauses} clauses, {out_of_scope} passages out of scope"
    )
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(report.by_verification.items()))
    print(f"  clauses verified by: {kinds}")
    print(f"{len(vectors)} vectors in {len(vector_files())} files")
    for name, count in sorted(report.vectors_per_profile.items()):
        print(f"  {name}: {count} vectors")
    print(f"{len(refusals)} refusal vectors in {len(refusal_files())} files (docs/refusals.md)")
    corpus = [
        v for path in sorted(CORPUS_DIR.glob("*.json")) for v in load_vector_file(path, clauses)
    ]
    print(f"{len(corpus)} generated vectors in {CORPUS_DIR.name}/ (docs/corpus.md)")
    for problem in report.problems:
        print(f"PROBLEM: {problem}")
    print("OK" if not report.problems else f"{len(report.problems)} problems")
    return 0 if not report.problems else 1


def report(args: argparse.Namespace) -> int:
    """Re-render the PDF of an archived results.json; a missing or invalid file is a usage
    error (one line, exit 4)."""
    from harness._schema import validator
    from harness.report import render
    from harness.report.seal import is_signed

    results = Path(args.results)
    try:
        raw = read_input(results)
        data = strictjson.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise UsageError(f"report: cannot read {results}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise UsageError(f"report: {results} is not JSON: {exc}") from exc
    problem = next(iter(validator("results.schema.json").iter_errors(data)), None)
    if problem is not None:
        where = "/".join(str(p) for p in problem.absolute_path) or "(top level)"
        raise UsageError(
            f"report: {results} is not a results.json of this harness "
            f"(specs/schemas/results.schema.json) at {where}: {problem.message}"
        )
    signing = _signing(args)
    pdf = Path(args.pdf) if args.pdf else results.with_name("report.pdf")
    if pdf.resolve() == results.resolve():
        raise UsageError(f"report: --pdf {pdf} is the results file it reads")
    if pdf.is_dir() or not pdf.parent.is_dir():
        where = "is a folder" if pdf.is_dir() else f"the folder {pdf.parent} does not exist"
        raise UsageError(f"report: --pdf {pdf}: {where}")
    if pdf.exists() and is_signed(pdf):  # a laboratory's signed original is never replaced
        raise UsageError(f"report: {pdf} is a signed report: give another --pdf PATH")
    # Drawn apart, then put in place whole: an earlier report is replaced, never half.
    with tempfile.TemporaryDirectory(prefix="chcert-report-") as folder:
        drawn = render(data, Path(folder) / pdf.name, raw)
        digest = hashlib.sha256(drawn.read_bytes()).hexdigest()
        _copy_atomic(drawn, pdf)
    print(pdf)
    return _signed(signing, pdf, digest, 0) if signing is not None else 0


if __name__ == "__main__":
    sys.exit(main())
