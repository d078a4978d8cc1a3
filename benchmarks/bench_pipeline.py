"""Stacked rounds against the reference game over JSON Lines: sequential or pipelined.

Run on demand (not a test):

    python3 benchmarks/bench_pipeline.py [--rounds N] [--window K] [--seed S] [--profile]
                                         [--adapter SPEC]

Plays N stacked rounds with one seat and N with seven (capability `inject`: distinct
random cards, the minimum ante, each seat calls four times in five) against the
reference game (adapter spec `reference`, i.e. `open_adapter("reference")`; `--adapter`
names another game speaking JSON Lines), three ways:

(a) sequential: every request waits for its reply (`request`);
(b) pipelined within a round: `round`, then its acts and `result` in one `exchange`
    (what the harness does for a game without capability `pipeline`);
(c) pipelined across rounds (capability `pipeline`): K `round` requests in one
    `exchange`, then all their acts and results in a second.

and prints rounds/s and seat-hands/s for each (start-up excluded: the game has
answered `hello` and played one round before the clock starts), with the CPU time per round of the
harness's process and of the game's (Linux, from /proc): on a busy machine these
say more than the wall-clock rates. `--profile` runs the game under cProfile in
mode (c) and prints where its time goes. A game without capability `pipeline`
is not measured in mode (c).
"""

from __future__ import annotations

import argparse
import os
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from reference_workload import bracketed

from harness.adapters import Adapter, open_adapter
from harness.adapters.subprocess import SubprocessAdapter
from harness.errors import ErrorReply
from harness.protocol import Capability
from harness.rules.cards import DECK_SIZE, Card

Deal = dict[str, Any]  # the `cards` param of a stacked `round`


def deals(count: int, seats: int, rng: random.Random) -> list[Deal]:
    """`count` stacked deals for `seats` seats, each from a freshly shuffled deck."""
    out = []
    for _ in range(count):
        cards = [str(Card(i)) for i in rng.sample(range(DECK_SIZE), 2 * seats + 9)]
        out.append(
            {
                "seats": {str(n): cards[2 * n - 2 : 2 * n] for n in range(1, seats + 1)},
                "dealer": cards[-9:-7],
                "flop": cards[-7:-4],
                "turn": cards[-4],
                "river": cards[-3],
            }
        )
    return out


def wagers(deal: Deal, ante: int) -> list[dict[str, int]]:
    return [{"seat": int(n), "ante": ante} for n in deal["seats"]]


def actions(deal: Deal, rng: random.Random) -> list[tuple[int, str]]:
    return [(int(n), "call" if rng.random() < 0.8 else "fold") for n in deal["seats"]]


def _ok(answer: dict[str, Any] | ErrorReply) -> dict[str, Any]:
    if isinstance(answer, ErrorReply):
        sys.exit(f"the reference refused a request: {answer}")
    return answer


def sequential(adapter: Adapter, rounds: list[Deal], ante: int, rng: random.Random) -> None:
    for deal in rounds:
        ident = adapter.request("round", seats=wagers(deal, ante), cards=deal)["round"]
        for seat, action in actions(deal, rng):
            adapter.request("act", round=ident, seat=seat, action=action)
        adapter.request("result", round=ident)


def within_round(adapter: Adapter, rounds: list[Deal], ante: int, rng: random.Random) -> None:
    for deal in rounds:
        ident = adapter.request("round", seats=wagers(deal, ante), cards=deal)["round"]
        batch: list[tuple[str, dict[str, Any]]] = [
            ("act", {"round": ident, "seat": seat, "action": action})
            for seat, action in actions(deal, rng)
        ]
        batch.append(("result", {"round": ident}))
        for answer in adapter.exchange(batch):
            _ok(answer)


def across_rounds(window: int) -> Callable[[Adapter, list[Deal], int, random.Random], None]:
    def play(adapter: Adapter, rounds: list[Deal], ante: int, rng: random.Random) -> None:
        for start in range(0, len(rounds), window):
            chunk = rounds[start : start + window]
            opened = adapter.exchange(
                [("round", {"seats": wagers(d, ante), "cards": d}) for d in chunk]
            )
            batch: list[tuple[str, dict[str, Any]]] = []
            for deal, reply in zip(chunk, opened, strict=True):
                ident = _ok(reply)["round"]
                batch += [
                    ("act", {"round": ident, "seat": seat, "action": action})
                    for seat, action in actions(deal, rng)
                ]
                batch.append(("result", {"round": ident}))
            for answer in adapter.exchange(batch):
                _ok(answer)

    return play


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU time a process has used so far (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(
    play: Callable[[Adapter, list[Deal], int, random.Random], None],
    rounds: list[Deal],
    seed: int,
    adapter: Adapter,
) -> tuple[float, float, float]:
    """Wall seconds, harness CPU seconds and game CPU seconds to play `rounds` on a
    fresh game (one that has answered hello and played a round)."""
    try:
        hello = adapter.request("hello")
        ante = int(hello["config"]["limits"]["ante"][0])
        sequential(adapter, rounds[:1], ante, random.Random(seed))  # loads the evaluator
        pid = getattr(adapter, "pid", None)
        game0, harness0, t0 = cpu_seconds(pid), time.process_time(), time.perf_counter()
        play(adapter, rounds, ante, random.Random(seed))
        wall, harness = time.perf_counter() - t0, time.process_time() - harness0
        return wall, harness, cpu_seconds(pid) - game0
    finally:
        adapter.close()


def profile_reference(rounds: list[Deal], window: int, seed: int) -> None:
    """Play `rounds` in mode (c) on the reference run under cProfile; print its top functions."""
    with tempfile.TemporaryDirectory() as tmp:
        stats = str(Path(tmp) / "reference.prof")
        argv = [sys.executable, "-m", "cProfile", "-o", stats, "-m", "harness.reference"]
        adapter = SubprocessAdapter(argv, timeout=60, spec="profiled reference")
        measure(across_rounds(window), rounds, seed, adapter)  # close() ends it: stats written
        pstats.Stats(stats).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5_000, help="rounds per seat count")
    parser.add_argument("--window", type=int, default=32, help="rounds in flight in (c)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="profile the game in (c)")
    parser.add_argument("--adapter", default="reference", help="the game (default: reference)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.profile:
        profile_reference(deals(args.rounds, 7, rng), args.window, args.seed)
        return
    modes = {
        "(a) sequential": sequential,
        "(b) pipelined within a round": within_round,
        f"(c) pipelined across {args.window} rounds": across_rounds(args.window),
    }
    with closing(open_adapter(args.adapter)) as adapter:
        if Capability.PIPELINE not in adapter.request("hello")["capabilities"]:
            del modes[f"(c) pipelined across {args.window} rounds"]
    print(f"{args.adapter} over JSON Lines, {args.rounds:,} stacked rounds per line")
    for seats in (1, 7):
        rounds = deals(args.rounds, seats, rng)
        for name, play in modes.items():
            wall, harness, game = measure(play, rounds, args.seed, open_adapter(args.adapter))
            n = len(rounds)
            print(
                f"{seats} seat{'s' if seats > 1 else ' '} {name:34s} "
                f"{n / wall:7,.0f} rounds/s {seats * n / wall:7,.0f} seat-hands/s   "
                f"CPU per round: harness {1e6 * harness / n:4.0f} us, game {1e6 * game / n:4.0f} us"
            )


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
