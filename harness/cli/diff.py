"""`chcert diff`: compare two results.json; exit 1 when anything regressed (docs/ci.md)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness.paths import output_problem
from harness.results.outcomes import EXIT_USAGE


def register(sub: Any) -> None:
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
    diff.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return diff_command(args.old, args.new, as_json=args.json, summary_md=args.summary_md)


def diff_command(old: str, new: str, as_json: bool = False, summary_md: str | None = None) -> int:
    """`chcert diff OLD_JSON NEW_JSON [--json] [--summary-md FILE]`: 1 when NEW regressed
    against OLD, else 0; 4 with one line on stderr naming the file when either cannot be
    compared, or when FILE cannot take the Markdown summary (docs/ci.md, Exit codes)."""
    from harness.diff import (
        EXIT_REGRESSED,
        EXIT_SAME,
        DiffInputError,
        diff_results,
        format_diff,
        load_results_file,
    )

    try:
        if summary_md is not None:
            _check_summary(summary_md, [Path(old), Path(new)])
        before = load_results_file(old)
        after = load_results_file(new)
    except DiffInputError as exc:
        print(f"chcert: diff: {exc}", file=sys.stderr)
        return EXIT_USAGE
    d = diff_results(before, after)
    if as_json:
        payload = {"old_file": old, "new_file": new, "changed": d.changed, **asdict(d)}
        print(json.dumps(payload, indent=2))
    else:
        print(format_diff(d, old, new), end="")
    if summary_md:
        from harness.report.markdown import append_markdown, diff_markdown

        append_markdown(Path(summary_md), diff_markdown(d, old, new))
    return EXIT_REGRESSED if d.regressed else EXIT_SAME


def _check_summary(summary_md: str, inputs: list[Path]) -> None:
    """--summary-md, checked before anything is compared: never OLD or NEW (appended to,
    either would no longer be JSON), never a folder, a missing folder or a file that
    cannot be written. The Markdown module, and the report package it is in, are
    imported only when a summary is asked for: a plain diff stays light."""
    from harness.diff import DiffInputError

    if not summary_md:
        raise DiffInputError("--summary-md: names no file (is the variable it was given set?)")
    problem = output_problem(Path(summary_md), inputs)
    if problem:
        raise DiffInputError(f"--summary-md {summary_md}: {problem}")
