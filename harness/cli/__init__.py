"""The `chcert` command line (contract 2; docs/command-line.md).

    chcert certify [--adapter SPEC] [--profile NAME|PATH] [--out DIR] [-n WORKERS]
                   [--tx SPEC ...] [--dist MODE] [--rng-decks N] [--rtp-rounds N]
                   [--differential N] [--seed S] [-k EXPR] [--item NAME ...]
                   [--attest FILE] [--vectors FILE ...] [--junitxml PATH] [--summary-md FILE]
                   [--timeout SECONDS] [--repeat N] [--plan FILE | --no-plan] [--dry-run]
                   [--artifact FILE ...] [--replace-signed] [--register PATH|URL]
                   [--sign-key KEY --sign-cert CERT [--sign-passphrase-env VAR]
                    [--timestamp-url URL]]
    chcert math    [--profile NAME|PATH] [--json] [--strategy FILE] [--claim FIGURE=VALUE ...]
    chcert rng     [--adapter SPEC] [--profile NAME|PATH] [--decks N] [--timeout S] [--json]
    chcert vectors check | generate [--check]
    chcert report  RESULTS_JSON [--pdf PATH] [--sign-key KEY --sign-cert CERT ...]
    chcert diff    OLD_JSON NEW_JSON [--json] [--summary-md FILE]
    chcert verify  REPORT_PDF [--trust CERT ...] [--trust-tsa CERT ...]
    chcert audit   LOG... [--profile NAME|PATH] [--declared FILE] [--from DATE] [--to DATE]
                   [--out DIR] [--adapter SPEC] [--register PATH|URL]
    chcert register init | add | show | list | supersede | withdraw | revoke | expire
                    | check | export | import | serve  --register PATH|URL ...

Exit codes: 0 PASS, 1 FAIL, 2 INCOMPLETE, 4 usage or spec error (docs/verdict.md);
diff: 1 when something regressed; verify: 1 when the report is not verified.
"""

from __future__ import annotations

import argparse
import sys

from harness import __version__
from harness.cli import audit, certify, diff, math, registry, report, rng, vectors, verify
from harness.cli.common import EXIT_HELP, Parser
from harness.errors import SpecError, UserError
from harness.results.outcomes import EXIT_CODES, EXIT_USAGE, Verdict

# One module per command, each adding its parser and the function that runs it. The
# modules a command needs (the numerical stack, the schemas, the report) are imported
# inside it: `chcert --help` answers without them (docs/command-line.md).
COMMANDS = (certify, math, rng, vectors, report, diff, verify, audit, registry)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="chcert",
        description="Casino Hold'em certification harness",
        epilog=EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"chcert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    args.argv = argv[argv.index(args.command) + 1 :]  # as typed: a run plan yields to them
    try:
        code: int = args.func(args)
        return code
    except SpecError as exc:
        print(f"chcert: invalid spec: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except UserError as exc:  # UsageError, a plan, a signing key, a results file...
        print(f"chcert: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # before a run started, or during a command without one
        print("chcert: interrupted", file=sys.stderr)
        return EXIT_CODES[Verdict.INCOMPLETE]


if __name__ == "__main__":
    sys.exit(main())
