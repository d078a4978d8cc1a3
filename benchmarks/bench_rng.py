"""RNG battery on demand: throughput, false-alarm rate, detection sample sizes.

    python3 benchmarks/bench_rng.py [--runs 100] [--skip-sampling]

1. Analysis of 1,000,000 decks in memory, and sampling 1,000,000 decks from the
   reference game over JSON Lines (`chcert rng --decks 1000000`).
2. False-alarm rate: the battery (decks and raw output) on fresh samples of the
   correct shuffles, `--runs` times each; at family-wise alpha 0.01 it should be
   about 1% or less.
3. For each flawed shuffler, the smallest sample (from a ladder) at which the
   battery flags it in five runs out of five.
"""

from __future__ import annotations

import argparse
import secrets
import subprocess
import sys
import time

import numpy as np

from harness.defaults import DEFAULT_DECKS
from harness.reference import production_decks
from harness.reference.shufflers import FLAWED, pcg64_shuffle
from harness.rng import RAW_BYTES, run_deck_battery

LADDER = [250, 500, 1_000, 2_000, 5_000, 10_000, 20_000]


def throughput(skip_sampling: bool) -> None:
    decks = production_decks(1_000_000)
    run_deck_battery(decks[:1_000])  # load compiled kernels
    t0 = time.perf_counter()
    run_deck_battery(decks)
    print(f"analysis of 1,000,000 decks in memory: {time.perf_counter() - t0:.2f} s")
    if not skip_sampling:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "harness.cli", "rng", "--decks", "1000000", "--json"],
            check=False,
            capture_output=True,
        )
        print(
            f"chcert rng --decks 1000000 (reference over JSON Lines, sampling + analysis + "
            f"dieharder if installed): {time.perf_counter() - t0:.1f} s wall"
        )


def false_alarms(runs: int) -> None:
    sources = {
        "reference (secrets, vectorised)": lambda: production_decks(DEFAULT_DECKS),
        "numpy PCG64": lambda: pcg64_shuffle(DEFAULT_DECKS),
    }
    for name, draw in sources.items():
        failed = 0
        for _ in range(runs):
            raw = np.frombuffer(secrets.token_bytes(RAW_BYTES), np.uint8)
            failed += not run_deck_battery(draw(), raw).passed
        print(f"false alarms, {name}: {failed} of {runs} runs ({100 * failed / runs:.1f}%)")


def detection() -> None:
    for name, shuffle in FLAWED.items():
        found = next(
            (n for n in LADDER if all(not run_deck_battery(shuffle(n)).passed for _ in range(5))),
            None,
        )
        shown = f"{found:,} decks" if found else f"not within {LADDER[-1]:,} decks"
        print(f"detected in 5 of 5 runs: {name:22s} at {shown}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--skip-sampling", action="store_true")
    args = parser.parse_args()
    throughput(args.skip_sampling)
    false_alarms(args.runs)
    detection()


if __name__ == "__main__":
    main()
