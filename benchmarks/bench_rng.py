"""RNG battery on demand: throughput, false-alarm rate, detection sample sizes.

    python3 benchmarks/bench_rng.py [--runs 100] [--skip-sampling]

1. Analysis of 1,000,000 decks in memory, and sampling 1,000,000 decks from the
   reference game over JSON Lines (`chcert rng --decks 1000000`).
2. False-alarm rate: the battery (decks and raw output) on fresh samples of the
   correct shuffles, `--runs` times each; at family-wise alpha 0.01 it should be
   about 1% or less.
3. For each flawed shuffler, the smallest sample (from a ladder) at which the
   battery flags it in five runs out of five.
4. Stated power, measured (`--power-runs`): a shuffle with one card more likely at one
   position by exactly the bias a test's `detects` names (the others evenly less), at
   the default sample size; the share of runs where stage 1 rejects that test must be
   about 80% (the stated power), and the share the two-stage verdict fails, 75% or more
   (docs/verdict.md).
"""

from __future__ import annotations

import argparse
import math
import secrets
import subprocess
import sys
import time

import numpy as np
from reference_workload import bracketed

from harness.defaults import DEFAULT_DECKS
from harness.gamemath.rng import (
    ALPHA,
    DECK,
    DECK_TESTS,
    RAW_BYTES,
    detectable_bias,
    run_deck_battery,
    scipy_stats,
    table_detectable_bias,
    two_stage,
)
from harness.reference import production_decks
from harness.reference.shufflers import FLAWED, one_card_bias, pcg64_shuffle

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


def _interval(hits: int, runs: int) -> str:
    """The share with its 95% Wilson interval."""
    z = 1.959964
    share = hits / runs
    centre = (share + z * z / (2 * runs)) / (1 + z * z / runs)
    half = (
        z * math.sqrt(share * (1 - share) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    )
    return f"{100 * share:.1f}% (95% CI {100 * (centre - half):.1f}-{100 * (centre + half):.1f}%)"


def stated_power(runs: int) -> None:
    """Each position test at the bias its `detects` states, `runs` times."""
    n, m = DEFAULT_DECKS, len(DECK_TESTS)
    share = 1 / DECK
    # As worst_position and position_uniformity state them (harness/gamemath/rng.py).
    stated = {
        "worst position": detectable_bias(
            np.full(DECK, share), 0, n, float(scipy_stats().chi2.isf(ALPHA / m / DECK, DECK - 1))
        ),
        "card x position": table_detectable_bias(n, ALPHA / m),
    }
    source = np.random.default_rng(2026)
    for name, bias in stated.items():
        rejected = failed = 0
        for _ in range(runs):
            card, position = (int(x) for x in source.integers(0, DECK, 2))

            def draw(card: int = card, position: int = position, bias: float = bias) -> tuple:
                seed = int(source.integers(2**63))
                return one_card_bias(n, card, position, bias, seed), None

            staged = two_stage(draw)
            rejected += not next(t for t in staged.stage1.tests if t.name == name).passed
            failed += not staged.passed
        print(
            f"{name}: one card {100 * bias:.1f}% more likely at one position, {n:,} decks, "
            f"{runs} runs: stage 1 rejects the test {_interval(rejected, runs)} "
            f"(stated 80%); the verdict fails {_interval(failed, runs)} (stated >= 75%)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--skip-sampling", action="store_true")
    parser.add_argument("--power-runs", type=int, default=400)
    args = parser.parse_args()
    throughput(args.skip_sampling)
    false_alarms(args.runs)
    detection()
    stated_power(args.power_runs)


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
