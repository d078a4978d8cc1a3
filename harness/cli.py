"""The `chcert` command line (contract 2).

    chcert certify [--adapter SPEC] [--profile NAME|PATH] [--out DIR] [-n WORKERS]
                   [--rng-decks N] [--seed S] [-k EXPR] [--timeout SECONDS]
    chcert vectors check
    chcert report RESULTS_JSON [--pdf PATH]

`certify` exits 0 when certified, 1 when any clause fails, 2 when the run itself
could not complete (bad arguments, implementation unreachable, invalid spec).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness import __version__
from harness.coverage import check_coverage
from harness.errors import SpecError
from harness.profiles import DEFAULT_PROFILE, available_profiles, load_profile
from harness.report import render, render_file
from harness.results import EXIT_CODES, Verdict, write_json_atomic
from harness.specs import CLAUSE_DIR, clause_index, load_catalogs
from harness.vectors import VECTOR_DIR, load_all_vectors, vector_files

ROOT = Path(__file__).resolve().parent.parent
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chcert", description="Casino Hold'em certification harness"
    )
    parser.add_argument("--version", action="version", version=f"chcert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    cert = sub.add_parser("certify", help="certify an implementation against a profile")
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
    cert.add_argument("--out", default="reports", help="folder for results.json and report.pdf")
    cert.add_argument(
        "-n",
        "--workers",
        type=int,
        default=0,
        help="parallel workers, each with its own connection (default 0: in-process)",
    )
    cert.add_argument(
        "--rng-decks", type=int, default=None, help="decks to sample for the RNG section"
    )
    cert.add_argument("--seed", type=int, default=None, help="seed recorded in the manifest")
    cert.add_argument(
        "-k", dest="select", default=None, help="only items matching this pytest -k expression"
    )
    cert.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each reply")
    cert.add_argument("--repeat", type=int, default=1, help="replay every vector N times (soak)")

    vec = sub.add_parser("vectors", help="work with the vector sets")
    vec_sub = vec.add_subparsers(dest="vectors_command", required=True)
    vec_sub.add_parser("check", help="validate every catalog and vector file")

    rep = sub.add_parser("report", help="re-render report.pdf from an archived results.json")
    rep.add_argument("results", help="path to results.json")
    rep.add_argument("--pdf", default=None, help="output path (default: beside results.json)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "certify":
            return certify(args)
        if args.command == "vectors":
            return vectors_check()
        return report(args)
    except SpecError as exc:
        print(f"chcert: invalid spec: {exc}", file=sys.stderr)
        return EXIT_USAGE


def certify(args: argparse.Namespace) -> int:
    if args.workers < 0 or args.timeout <= 0:
        print("chcert: -n must be >= 0 and --timeout > 0", file=sys.stderr)
        return EXIT_USAGE
    profile = load_profile(args.profile)  # SpecError -> exit 2 before anything runs
    catalogs = load_catalogs(profile.catalogs)
    load_all_vectors(clause_index(load_catalogs()))
    if args.rng_decks is not None:
        print(f"chcert: note: no RNG battery in harness {__version__}; --rng-decks is ignored")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.json"
    results_path.unlink(missing_ok=True)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    pytest_args = [
        "-c",
        os.devnull,
        "--rootdir",
        str(ROOT),
        "-p",
        "no:cacheprovider",
        "--assert=plain",  # nothing here relies on assertion rewriting; it costs start-up time
        "-q",
        "--chcert-profile",
        str(profile.path),
        "--chcert-adapter",
        args.adapter,
        "--chcert-out",
        str(out),
        "--chcert-seed",
        str(seed),
        "--chcert-timeout",
        str(args.timeout),
        "--chcert-repeat",
        str(args.repeat),
        "--junitxml",
        str(out / "junit.xml"),
        "-n",
        str(args.workers),
        str(CLAUSE_DIR),
        str(VECTOR_DIR),
    ]
    if args.select:
        pytest_args += ["-k", args.select]
    print(
        f"chcert {__version__}: certifying {args.adapter} against profile {profile.name} "
        f"({sum(len(c.for_profile(profile.name)) for c in catalogs)} clauses)"
    )
    started = time.monotonic()
    code = pytest.main(pytest_args)
    if not results_path.exists():
        write_json_atomic(
            results_path,
            {
                "verdict": Verdict.INCOMPLETE.value,
                "incomplete_reasons": [
                    f"the test runner stopped before writing results (exit {int(code)})"
                ],
                "profile": {"name": profile.name},
                "clauses": [],
                "vectors": {},
                "failures": [],
            },
        )
    with results_path.open(encoding="utf-8") as fh:
        results = json.load(fh)
    pdf = render(results, out / "report.pdf")
    _print_summary(results, results_path, pdf, time.monotonic() - started)
    return EXIT_CODES[Verdict(results["verdict"])]


def _print_summary(results: dict[str, Any], results_path: Path, pdf: Path, seconds: float) -> None:
    clauses = results.get("clauses", [])
    vectors = results.get("vectors", {})
    by_status = {
        s: [c["id"] for c in clauses if c["status"] == s] for s in ("pass", "fail", "not_tested")
    }
    print()
    print(f"VERDICT: {results['verdict']}  ({seconds:.1f} s)")
    print(
        f"  clauses: {len(clauses)} - {len(by_status['pass'])} passed, "
        f"{len(by_status['fail'])} failed, {len(by_status['not_tested'])} not tested"
    )
    print(
        f"  vectors: {vectors.get('total', 0)} - {vectors.get('passed', 0)} passed, "
        f"{vectors.get('failed', 0)} failed, {vectors.get('errors', 0)} errors"
    )
    if by_status["fail"]:
        print(f"  failed clauses: {', '.join(by_status['fail'])}")
    for reason in results.get("incomplete_reasons", []):
        print(f"  incomplete: {reason}")
    print(f"  results: {results_path}")
    print(f"  report:  {pdf}")


def vectors_check() -> int:
    """Validate every catalog and vector file; print the counts."""
    catalogs = load_catalogs()
    clauses = clause_index(catalogs)
    vectors = load_all_vectors(clauses)
    report = check_coverage(catalogs, vectors)
    out_of_scope = sum(len(c.out_of_scope) for c in catalogs)
    print(
        f"{len(catalogs)} catalogs: {report.clauses} clauses, {out_of_scope} passages out of scope"
    )
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(report.by_verification.items()))
    print(f"  clauses verified by: {kinds}")
    print(f"{len(vectors)} vectors in {len(vector_files())} files")
    for name, count in sorted(report.vectors_per_profile.items()):
        print(f"  {name}: {count} vectors")
    for problem in report.problems:
        print(f"PROBLEM: {problem}")
    print("OK" if not report.problems else f"{len(report.problems)} problems")
    return 0 if not report.problems else 1


def report(args: argparse.Namespace) -> int:
    results = Path(args.results)
    pdf = Path(args.pdf) if args.pdf else results.with_name("report.pdf")
    print(render_file(results, pdf))
    return 0


if __name__ == "__main__":
    sys.exit(main())
