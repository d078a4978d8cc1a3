"""Run the reference game as a JSON Lines process: `python -m harness.reference`.

    python -m harness.reference [--profile NAME|PATH] [--mutant NAME]

Requests are read from stdin, replies written to stdout, one JSON object a line.
"""

from __future__ import annotations

import argparse
import sys

from harness.profiles import DEFAULT_PROFILE, load_profile
from harness.protocol import serve_json_lines
from harness.reference.engine import ReferenceGame
from harness.reference.mutants import MUTANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.reference", description=__doc__)
    parser.add_argument("--profile", default=DEFAULT_PROFILE, help="profile name or path")
    parser.add_argument(
        "--mutant", choices=sorted(MUTANTS), help="play a deliberately broken variant"
    )
    args = parser.parse_args(argv)
    profile = load_profile(args.profile)
    game = MUTANTS[args.mutant](profile) if args.mutant else ReferenceGame(profile)
    serve_json_lines(game, sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
