"""How often the two-stage RNG battery fails a fair shuffle: each stage's false-rejection
rate, and the two together.

    python3 benchmarks/bench_rng_false_reject.py [--runs 1000] [--decks 20000] [--workers 2]

Each run is one simulated certification of a fair shuffle (numpy permutations, seeded):
stage 1 runs the battery's deck tests on `--decks` decks at family-wise alpha 0.01, and
stage 2 on a fresh, independent sample of as many decks at 0.005 (harness/rng.py). Stage 2
runs in every simulation here, not only after a stage-1 rejection as in a certification,
so that its own rate is measured too; the clause fails when both reject. The raw-output
tests are left out: they run only for a game with capability rng.

It prints each stage's false-rejection rate with a 95% Clopper-Pearson interval, the
combined rate (the product of the two, the stages being independent; with the product of
the upper bounds, at joint confidence 90% or more, and the double rejections counted) and
whether the combined rate is at most the target 1e-4 (the stages' alphas make it 5e-5 at
most): by the upper bounds when they are below it, else by the rates.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from collections import Counter

import numpy as np

from harness.defaults import DEFAULT_DECKS
from harness.rng import ALPHA, CONFIRM_ALPHA, FALSE_FAIL, run_deck_battery, scipy_stats

TARGET = 1e-4


def fair_decks(source: np.random.Generator, count: int) -> np.ndarray:
    """`count` independent uniform permutations of the 52 cards."""
    return source.permuted(np.tile(np.arange(52, dtype=np.uint8), (count, 1)), axis=1)


def one_certification(job: tuple[np.random.SeedSequence, int]) -> tuple[list[str], list[str]]:
    """The tests each stage rejected (empty: the stage passed), each on its own sample."""
    seed, decks = job
    source = np.random.default_rng(seed)
    rejected = []
    for alpha in (ALPHA, CONFIRM_ALPHA):
        battery = run_deck_battery(fair_decks(source, decks), alpha=alpha)
        rejected.append([t.name for t in battery.tests if not t.passed])
    return rejected[0], rejected[1]


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
        f"\n{n:,} simulated certifications of a fair shuffle ({2 * n:,} batteries of "
        f"{args.decks:,} decks, deck tests only) on {args.workers} processes: {wall:.0f} s "
        f"wall, {args.workers * wall / (2 * n):.2f} s per battery"
    )

    first = sum(bool(a) for a, _ in outcomes)
    second = sum(bool(b) for _, b in outcomes)
    both = sum(bool(a) and bool(b) for a, b in outcomes)
    rates = []
    for stage, alpha, k, tests in (
        (1, ALPHA, first, Counter(t for a, _ in outcomes for t in a)),
        (2, CONFIRM_ALPHA, second, Counter(t for _, b in outcomes for t in b)),
    ):
        low, high = clopper_pearson(k, n)
        rates.append((k / n, high))
        shown = ", ".join(f"{name} {count}" for name, count in tests.most_common()) or "none"
        print(
            f"stage {stage} (family-wise alpha {alpha}): {k} of {n:,} rejected, rate "
            f"{k / n:.4f} (95% CI {low:.4f} to {high:.4f}); tests rejecting: {shown}"
        )
    combined = rates[0][0] * rates[1][0]
    bound = rates[0][1] * rates[1][1]
    low, high = clopper_pearson(both, n)
    print(
        f"both stages (the clause fails): {combined:.1e} (product of the rates; product of "
        f"the upper bounds {bound:.1e}, joint confidence >= 90%); nominal at most "
        f"{FALSE_FAIL:.0e}"
    )
    print(f"double rejections observed: {both} of {n:,} (95% CI {low:.1e} to {high:.1e})")
    if bound <= TARGET:
        verdict = "yes, at joint confidence >= 90% (the product of the upper bounds)"
    elif combined <= TARGET:
        verdict = "yes by the rates, but not by their upper bounds: more --runs would say"
    else:
        verdict = "NO"
    print(f"combined false-FAIL rate <= {TARGET:.0e}: {verdict}")


if __name__ == "__main__":
    main()
