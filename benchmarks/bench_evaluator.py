"""Evaluator throughput: the exhaustive seven-card enumeration and bulk evaluation.

Run on demand (not a test): python3 benchmarks/bench_evaluator.py
Prints compile+run time of the first call and the time of a second, cached call.
"""

from __future__ import annotations

import time

import numpy as np

from harness.rules.evaluator import count_all_seven_card_hands, evaluate_batch

HANDS = 133_784_560


def main() -> None:
    t0 = time.perf_counter()
    count_all_seven_card_hands()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    count_all_seven_card_hands()
    second = time.perf_counter() - t0
    print(
        f"exhaustive 7-card enumeration: first call {first:.2f} s (includes JIT or cache load), "
        f"second {second:.2f} s = {HANDS / second / 1e6:.1f} M hands/s"
    )

    rng = np.random.default_rng(1)
    hands = np.argsort(rng.random((2_000_000, 52)), axis=1)[:, :7].astype(np.uint8)
    evaluate_batch(hands[:10])
    t0 = time.perf_counter()
    evaluate_batch(hands)
    bulk = time.perf_counter() - t0
    print(
        f"bulk evaluate_batch: {len(hands):,} random 7-card hands in {bulk:.2f} s "
        f"= {len(hands) / bulk / 1e6:.1f} M hands/s"
    )


if __name__ == "__main__":
    main()
