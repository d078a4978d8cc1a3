"""Run the reference game: `python -m harness.reference`.

    python -m harness.reference [--profile NAME|PATH] [--mutant NAME | --game MODULE:CLASS]
                                [--http PORT [--host H]]

By default it speaks JSON Lines: requests read from stdin, replies written to
stdout, one JSON object a line. With `--http PORT` it serves HTTP instead
(`POST /<op>`, keep-alive; certify it with `--adapter http://127.0.0.1:PORT/`),
printing its URL on stdout once it listens; port 0 takes any free port.

`--game MODULE:CLASS` serves another Python game class the same way (constructed
with no arguments, as the python: adapter does, or with the profile `--profile`
names). Certified so, it meets the requests a python: adapter cannot send, lines
that are not JSON, which this module's server answers (docs/refusals.md).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys

from harness.defaults import DEFAULT_PROFILE
from harness.profiles import load_profile
from harness.protocol import serve_http, serve_json_lines
from harness.reference.engine import ReferenceGame
from harness.reference.mutants import MUTANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.reference", description=__doc__)
    parser.add_argument(
        "--profile",
        help=f"profile name or path (default {DEFAULT_PROFILE}; given with --game, the class "
        "is constructed with it)",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--mutant", choices=sorted(MUTANTS), help="play a deliberately broken variant"
    )
    which.add_argument("--game", metavar="MODULE:CLASS", help="serve this Python game class")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve HTTP on this port")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (--http)")
    args = parser.parse_args(argv)
    profile = load_profile(args.profile or DEFAULT_PROFILE)
    if args.game:
        module, _, name = args.game.partition(":")
        cls = getattr(importlib.import_module(module), name)
        game = cls(profile) if args.profile else cls()
    else:
        game = MUTANTS[args.mutant](profile) if args.mutant else ReferenceGame(profile)
    if args.http is None:
        serve_json_lines(game, sys.stdin.buffer, sys.stdout.buffer)
        return 0
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends the server quietly
        serve_http(game, args.host, args.http, ready=lambda url: print(url, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
