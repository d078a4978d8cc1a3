"""The `chcert` command line (contract 2).

    chcert certify [--adapter SPEC] [--profile NAME|PATH] [--out DIR] [-n WORKERS]
                   [--rng-decks N] [--seed S] [-k EXPR] [--timeout SECONDS]
    chcert math    --profile NAME|PATH [--json]
    chcert rng     [--adapter SPEC] [--decks N] [--json]
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import __version__
from harness.adapters import open_adapter
from harness.checks import DEFAULT_RTP_ROUNDS
from harness.coverage import check_coverage
from harness.errors import HarnessError, SpecError
from harness.gamemath import census_progress, main_game, profile_math
from harness.profiles import DEFAULT_PROFILE, available_profiles, load_profile
from harness.report import render, render_file
from harness.results import EXIT_CODES, Verdict, write_json_atomic
from harness.rng import DEFAULT_DECKS, Battery, sample_and_test
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
        "--rng-decks", type=int, default=DEFAULT_DECKS, help="decks sampled for the RNG battery"
    )
    cert.add_argument("--seed", type=int, default=None, help="seed recorded in the manifest")
    cert.add_argument(
        "-k", dest="select", default=None, help="only items matching this pytest -k expression"
    )
    cert.add_argument(
        "--rtp-rounds",
        type=int,
        default=DEFAULT_RTP_ROUNDS,
        help="rounds played optimally for the RTP simulation (0: not tested)",
    )
    cert.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each reply")
    cert.add_argument("--repeat", type=int, default=1, help="replay every vector N times (soak)")

    math = sub.add_parser("math", help="exact game mathematics of a profile, and its claims")
    math.add_argument("--profile", default=DEFAULT_PROFILE, help="profile name or path")
    math.add_argument("--json", action="store_true", help="print the figures as JSON")
    math.add_argument(
        "--strategy", default=None, help="also write the optimal strategy file (.npz) here"
    )

    rng = sub.add_parser("rng", help="run the RNG and deck-distribution battery")
    rng.add_argument("--adapter", default="reference", help="adapter spec (as for certify)")
    rng.add_argument("--profile", default=DEFAULT_PROFILE, help="profile the reference game plays")
    rng.add_argument("--decks", type=int, default=DEFAULT_DECKS, help="decks to sample")
    rng.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each reply")
    rng.add_argument("--json", action="store_true", help="print the results as JSON")

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
        if args.command == "rng":
            return rng_command(args)
        if args.command == "math":
            return math_command(args)
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
        "--chcert-rng-decks",
        str(args.rng_decks),
        "--chcert-rtp-rounds",
        str(args.rtp_rounds),
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


def math_command(args: argparse.Namespace) -> int:
    """Print a profile's exact figures and the verdict on each claim (0 none refuted, 1 not)."""
    profile = load_profile(args.profile)
    started = time.monotonic()
    figures = profile_math(profile, census_progress(quiet=False))  # on stderr: --json stays clean
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
    refuted = any(c["status"] == "not_reproducible" for c in figures["claims"])
    return 1 if refuted else 0


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
    if args.decks < 2:
        print("chcert rng: --decks must be at least 2", file=sys.stderr)
        return EXIT_USAGE
    profile = load_profile(args.profile)
    try:
        adapter = open_adapter(args.adapter, profile_path=str(profile.path), timeout=args.timeout)
        try:
            hello = adapter.request("hello")
            capabilities = set(hello.get("capabilities", []))
            if "shuffle" not in capabilities:
                print("chcert rng: not tested: the game lacks capability shuffle", file=sys.stderr)
                return EXIT_USAGE
            started = time.monotonic()
            progress = _progress(args.decks, args.json)
            battery = sample_and_test(adapter.request, args.decks, capabilities, progress)
            seconds = time.monotonic() - started
        finally:
            adapter.close()
    except (HarnessError, ValueError) as exc:
        print(f"chcert rng: {exc}", file=sys.stderr)
        return EXIT_USAGE
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
