"""How often the two-stage RNG battery fails a fair shuffle: each stage's false-rejection
rate, the pooled confirmation's calibration, and the clause's failures.

    python3 benchmarks/bench_rng_false_reject.py [--runs 1000] [--decks 20000] [--workers 2]

Each run is one simulated certification of a fair shuffle (numpy permutations, seeded):
stage 1 runs the battery's deck tests on `--decks` decks at family-wise alpha 0.01; a
rejection below GROSS_ALPHA (1e-6) fails at once; otherwise stage 2 runs the battery on
stage 1's decks and as many fresh ones together at CONFIRM_ALPHA (5e-5) (harness/gamemath/rng.py).
The pooled battery runs in every simulation here, not only after a stage-1 rejection as in
a certification, so that its own calibration is measured too. The raw-output tests are
left out: they run only for a game with capability rng.

A fair shuffle fails at most GROSS_ALPHA + CONFIRM_ALPHA = 5.1e-5 of the time, by Holm's
family-wise bound at each level; no thousand runs can measure rates that small, so this
prints what rests the bound on the p-values: each battery's rejection rate at the levels a
thousand runs can measure (0.01 and 0.001, with 95% Clopper-Pearson intervals), which must
be at most the level, the smallest Holm-adjusted p-value seen, and the failures observed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time

import numpy as np
from reference_workload import bracketed

from harness.defaults import DEFAULT_DECKS
from harness.gamemath.rng import (
    ALPHA,
    CONFIRM_ALPHA,
    FALSE_FAIL,
    GROSS_ALPHA,
    run_deck_battery,
    scipy_stats,
)

TARGET = 1e-4


def fair_decks(source: np.random.Generator, count: int) -> np.ndarray:
    """`count` independent uniform permutations of the 52 cards."""
    return source.permuted(np.tile(np.arange(52, dtype=np.uint8), (count, 1)), axis=1)


def one_certification(job: tuple[np.random.SeedSequence, int]) -> tuple[float, float]:
    """The smallest Holm-adjusted p-value of stage 1's battery, and of the pooled battery
    on stage 1's decks and as many fresh ones: each is the largest family-wise alpha at
    which that battery would have passed."""
    seed, decks = job
    source = np.random.default_rng(seed)
    first = fair_decks(source, decks)
    pooled = np.concatenate([first, fair_decks(source, decks)])
    return tuple(  # type: ignore[return-value]
        min(t.p_adjusted for t in run_deck_battery(sample, alpha=ALPHA).tests)
        for sample in (first, pooled)
    )


def warm_up() -> None:
    run_deck_battery(fair_decks(np.random.default_rng(0), 100))


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """The exact two-sided 95% interval of a binomial proportion."""
    interval = scipy_stats().binomtest(k, n).proportion_ci(0.95, method="exact")
    return float(interval.low), float(interval.high)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--decks", type=int, default=DEFAULT_DECKS)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=20_261_202)
    args = parser.parse_args()

    jobs = [(s, args.decks) for s in np.random.SeedSequence(args.seed).spawn(args.runs)]
    # Spawned, not forked: a fork of a process whose numba and BLAS threads have started
    # can hang. Each worker loads the compiled kernels before the clock starts.
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.workers, initializer=warm_up) as pool:
        pool.map(time.sleep, [0.1] * args.workers)  # every worker started and warm
        started = time.perf_counter()
        outcomes = []
        for done, outcome in enumerate(pool.imap_unordered(one_certification, jobs, 4), 1):
            outcomes.append(outcome)
            if done % 50 == 0 or done == args.runs:
                print(f"\r{done:,}/{args.runs:,} certifications", end="", flush=True)
    wall = time.perf_counter() - started
    n = len(outcomes)
    print(
        f"\n{n:,} simulated certifications of a fair shuffle ({n:,} batteries of "
        f"{args.decks:,} decks and {n:,} of twice as many, deck tests only) on "
        f"{args.workers} processes: {wall:.0f} s wall, {args.workers * wall / n:.2f} s per "
        "certification"
    )

    for name, index, alpha in (("stage 1", 0, ALPHA), ("pooled (stage 2)", 1, CONFIRM_ALPHA)):
        smallest = min(o[index] for o in outcomes)
        for level in (0.01, 0.001):
            k = sum(o[index] < level for o in outcomes)
            low, high = clopper_pearson(k, n)
            print(
                f"{name}: rejects at family-wise alpha {level}: {k} of {n:,}, rate "
                f"{k / n:.4f} (95% CI {low:.4f} to {high:.4f}): "
                + ("calibrated" if k / n <= level or low <= level else "NOT calibrated")
            )
        print(f"{name}: smallest Holm-adjusted p-value seen {smallest:.2e} (judged at {alpha})")
    gross = sum(a < GROSS_ALPHA for a, _ in outcomes)
    failed = sum(a < GROSS_ALPHA or (a < ALPHA and b < CONFIRM_ALPHA) for a, b in outcomes)
    low, high = clopper_pearson(failed, n)
    print(f"gross stage-1 rejections (below {GROSS_ALPHA}): {gross} of {n:,}")
    print(
        f"the clause failed: {failed} of {n:,} (95% CI {low:.1e} to {high:.1e}); bound "
        f"GROSS_ALPHA + CONFIRM_ALPHA = {FALSE_FAIL:.1e} <= {TARGET:.0e}: "
        + ("yes" if FALSE_FAIL <= TARGET else "NO")
    )


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
