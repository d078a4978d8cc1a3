"""Run the reference game: `python -m harness.reference`.

    python -m harness.reference [--profile NAME|PATH] [--mutant NAME | --game MODULE:CLASS]
                                [--db FILE [--recovery resume|void]] [--http PORT [--host H]]
                                [--ante-limits MIN:MAX] [--aa-limits MIN:MAX] [--aa-cap M]

By default it speaks JSON Lines: requests read from stdin, replies written to
stdout, one JSON object a line. With `--http PORT` it serves HTTP instead
(`POST /<op>`, keep-alive; certify it with `--adapter http://127.0.0.1:PORT/`),
printing its URL on stdout once it listens; port 0 takes any free port.

`--ante-limits`, `--aa-limits` and `--aa-cap` set the table it declares and enforces
(docs/profiles.md): its limits in minor units (default 100:50000 and 100:25000) and
the house rule `aa_bonus_max_ante_multiple` (an AA Bonus at most M times the ante).

`--game MODULE:CLASS` serves another Python game class the same way (constructed
with no arguments, as the python: adapter does, or with the profile `--profile`
names). Certified so, it meets the requests a python: adapter does not send, lines
that are not JSON, which this module's server answers (docs/refusals.md).

Over JSON Lines, stdin and stdout are taken for the protocol before the game is
built (harness/protocol/__init__.py `take_stdio`): what a `--game` class prints, at import
or in a call, goes to stderr and cannot corrupt a reply.

`--db FILE` keeps the rounds in an SQLite file (created when missing; write-ahead
log, one transaction per change of state, harness/reference/store.py) instead
of in memory only, and declares capability `recovery`: kill the process at any
moment and start it again with the same command, and every answer it gave and
every decision it acknowledged still holds. A round interrupted while it awaited
decisions is resumed on its original cards (`--recovery resume`) or voided with
every stake returned (`--recovery void`); without `--recovery`, the first the
profile allows (void for source-002, resume otherwise). See
docs/adapter-protocol.md, "Interrupted rounds". A file that is not such a store,
was written by a newer version, by another game or under another profile, or is
held by another running game is refused: one line on stderr, exit status 1.
With `--mutant` the mutant keeps its rounds there; a `--game` class cannot.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import sys
from typing import Any

from harness import __version__
from harness.collector import collect_cycles_less_often
from harness.defaults import DEFAULT_PROFILE
from harness.protocol import serve_http, serve_json_lines, take_stdio
from harness.reference.engine import ReferenceGame
from harness.reference.mutants import MUTANTS
from harness.reference.roundlog import RoundLog
from harness.reference.store import RoundStore, StoreError
from harness.rules.profiles import load_profile
from harness.rules.table import REFERENCE_TABLE

# What protocol v1 lets a hello declare (specs/schemas/protocol-v1.schema.json): a
# `limit` up to 2^53 - 1, the largest integer every JSON reader keeps exact, and an
# `aa_bonus_max_ante_multiple` house rule up to 1,000,000. An option beyond either would
# make the game declare a hello that does not conform, so it is refused at start-up.
MAX_LIMIT = 2**53 - 1
MAX_AA_CAP = 1_000_000


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
    parser.add_argument(
        "--db", metavar="FILE", help="keep the rounds in this SQLite file (capability recovery)"
    )
    parser.add_argument(
        "--recovery",
        choices=("resume", "void"),
        help="an interrupted round is resumed or voided (with --db; default: the profile's)",
    )
    parser.add_argument(
        "--ante-limits", type=_limits, metavar="MIN:MAX", help="the table's ante limits"
    )
    parser.add_argument(
        "--aa-limits", type=_limits, metavar="MIN:MAX", help="the table's AA Bonus limits"
    )
    parser.add_argument(
        "--aa-cap",
        type=_cap,
        metavar="M",
        help="house rule: an AA Bonus at most M times the ante (declared in hello; "
        f"1 <= M <= {MAX_AA_CAP:,})",
    )
    parser.add_argument(
        "--log",
        metavar="FILE",
        help="append every round it ends to this round log v1 (JSON Lines; docs/audit.md)",
    )
    args = parser.parse_args(argv)
    collect_cycles_less_often()  # it serves many rounds of short-lived objects, few cycles
    table = dataclasses.replace(
        REFERENCE_TABLE,
        ante=args.ante_limits or REFERENCE_TABLE.ante,
        aa_bonus=args.aa_limits or REFERENCE_TABLE.aa_bonus,
        aa_bonus_max_ante_multiple=args.aa_cap,
    )
    if args.recovery and not args.db:
        parser.error("--recovery needs --db: without it no round survives the process")
    if args.db and args.game:
        parser.error("--db keeps the reference game's rounds (or a mutant's), not a --game's")
    profile = load_profile(args.profile or DEFAULT_PROFILE)
    channel = take_stdio() if args.http is None else None  # before the game can print
    with contextlib.ExitStack() as cleanup:
        game: Any
        if args.game:
            module, _, name = args.game.partition(":")
            cls = getattr(importlib.import_module(module), name)
            game = cls(profile) if args.profile else cls()
        else:
            factory = MUTANTS[args.mutant] if args.mutant else ReferenceGame
            store = None
            try:
                if args.db:
                    store = cleanup.enter_context(RoundStore(args.db))
                log = (
                    RoundLog(args.log, build=f"{factory.__name__} {__version__}")
                    if args.log
                    else None
                )
                if log is not None:
                    cleanup.callback(log.close)
                game = factory(
                    profile, store=store, recovery=args.recovery, table=table, round_log=log
                )
            except StoreError as exc:
                print(f"python -m harness.reference: {exc}", file=sys.stderr)
                return 1
        if channel is not None:
            serve_json_lines(game, *channel, native=not args.game)  # ours hold JSON's types
            return 0
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends the server quietly
            serve_http(game, args.host, args.http, ready=lambda url: print(url, flush=True))
    return 0


def _limits(text: str) -> tuple[int, int]:
    """MIN:MAX in minor units, 1 <= MIN <= MAX <= MAX_LIMIT (protocol v1's `limit`)."""
    lo, sep, hi = text.partition(":")
    try:
        bounds = int(lo), int(hi)
    except ValueError:
        bounds = (0, 0)
    if not sep or not 1 <= bounds[0] <= bounds[1] <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not MIN:MAX with 1 <= MIN <= MAX <= {MAX_LIMIT:,} (2^53 - 1, "
            "protocol v1's largest limit)"
        )
    return bounds


def _cap(text: str) -> int:
    """M of --aa-cap: 1 <= M <= MAX_AA_CAP, as protocol v1's house rule allows."""
    try:
        cap = int(text)
    except ValueError:
        cap = 0
    if not 1 <= cap <= MAX_AA_CAP:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number M with 1 <= M <= {MAX_AA_CAP:,} "
            "(protocol v1's aa_bonus_max_ante_multiple)"
        )
    return cap


if __name__ == "__main__":
    sys.exit(main())
