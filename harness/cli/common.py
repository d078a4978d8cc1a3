"""What every `chcert` command shares: the usage error, the parser class, the exit help."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import NoReturn

from harness.errors import UsageError
from harness.results.outcomes import EXIT_USAGE

__all__ = ["EXIT_HELP", "Parser", "UsageError", "check_adapter", "deck_progress"]

EXIT_HELP = """exit codes: 0 PASS (certified), 1 FAIL (something failed), 2 INCOMPLETE (something
applicable not tested, a sample below the certificate's minimum, a selection, the game
unreachable, an interruption, a harness error; a dry run), 4 usage or spec error (bad
arguments, invalid profile, vector or attestation file, a selection matching nothing).
See docs/verdict.md. chcert diff exits 1 when something regressed, chcert verify when the
report is not verified (docs/command-line.md)."""


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits 4 (pytest's convention), not argparse's 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def deck_progress(total: int, quiet: bool) -> Callable[[int], None]:
    """A one-line count of the decks sampled so far, on stderr (stdout may be JSON)."""

    def show(done: int) -> None:
        if not quiet:
            print(
                f"\rsampling decks: {done:,}/{total:,}",
                end="" if done < total else "\n",
                file=sys.stderr,
                flush=True,
            )

    return show


def check_adapter(spec: str) -> None:
    """An adapter spec that names no adapter is a usage error, before anything starts."""
    from harness.adapters import check_spec

    try:
        check_spec(spec)
    except ValueError as exc:
        raise UsageError(f"--adapter: {exc}") from None
