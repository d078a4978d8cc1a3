"""`chcert verify`: check a report's signature and its attached results.json
(docs/signing.md)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
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
    ver.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.signing.verify import verify_command

    return verify_command(args.report_pdf, args.trust, args.trust_tsa)
