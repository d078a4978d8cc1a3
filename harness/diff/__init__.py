"""`chcert diff OLD NEW`: two results.json compared; exit 1 when NEW regressed (docs/ci.md).

The comparison is compare.py's, and renders nothing; text.py writes it for a person,
and harness/report/markdown.py as a CI page's summary (`--summary-md`). The command
here is the one place that knows all three.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from harness.diff.compare import (
    DiffInputError,
    diff_results,
    load_results_file,
    status_direction,
)
from harness.diff.text import format_diff
from harness.outcomes import EXIT_USAGE
from harness.paths import output_problem

__all__ = [
    "EXIT_REGRESSED",
    "EXIT_SAME",
    "DiffInputError",
    "diff_command",
    "diff_results",
    "format_diff",
    "load_results_file",
    "status_direction",
]

EXIT_SAME = 0
EXIT_REGRESSED = 1


def diff_command(old: str, new: str, as_json: bool = False, summary_md: str | None = None) -> int:
    """`chcert diff OLD_JSON NEW_JSON [--json] [--summary-md FILE]`: 1 when NEW regressed
    against OLD, else 0; 4 with one line on stderr naming the file when either cannot be
    compared, or when FILE cannot take the Markdown summary (docs/ci.md, Exit codes)."""
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
    if not summary_md:
        raise DiffInputError("--summary-md: names no file (is the variable it was given set?)")
    problem = output_problem(Path(summary_md), inputs)
    if problem:
        raise DiffInputError(f"--summary-md {summary_md}: {problem}")
