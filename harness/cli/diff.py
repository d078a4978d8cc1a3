"""`chcert diff`: compare two results.json; exit 1 when anything regressed (docs/ci.md)."""

from __future__ import annotations

import argparse
from typing import Any


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
    from harness.diff import diff_command

    return diff_command(args.old, args.new, as_json=args.json, summary_md=args.summary_md)
