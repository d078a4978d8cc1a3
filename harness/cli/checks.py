"""What `chcert certify` checks of its options before anything runs: each problem is a
usage error (exit 4) with one line saying what to write instead."""

from __future__ import annotations

import argparse

from harness.cli.common import UsageError
from harness.defaults import MAX_WORKERS
from harness.run.settings import DIST_MODES, range_problems

GATEWAYS = ("popen", "ssh", "socket", "vagrant_ssh")  # execnet's gateway types


SPEC_KEYS = {*GATEWAYS, "python", "chdir", "nice", "dont_write_bytecode", "ssh_config"}


def check_selection(expression: str) -> None:
    """A -k expression that does not parse is a usage error, before anything runs."""
    from _pytest.mark.expression import Expression  # pytest's own parser for -k

    try:
        Expression.compile(expression)
    except Exception as exc:  # SyntaxError in pytest 9, ParseError before
        raise UsageError(f"-k {expression!r} is not a valid selection: {exc}") from exc


def check_distribution(args: argparse.Namespace) -> None:
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


def check_ranges(args: argparse.Namespace) -> None:
    """Every number of the run within its declared range (harness/run/settings.py)."""
    problems = range_problems(vars(args))
    if problems:
        raise UsageError(problems[0])
