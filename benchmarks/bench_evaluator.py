"""Evaluator throughput: the exhaustive seven-card enumeration and bulk evaluation.

Run on demand (not a test): python3 benchmarks/bench_evaluator.py
For each build of the evaluator (the C one and its numba twin: harness/compiled.py) it
prints the time of the first exhaustive count (numba's includes its compilation or cache
load) and of a second; then each build's batch rate, and the look-up-table evaluator's
(harness/rules/lookup.py, the audit's), on the same random seven-card hands, wall and
CPU. Rates are also given per ref, the time the reference workload takes
(benchmarks/reference_workload.py).
"""

from __future__ import annotations

import os
import time

import numpy as np
import numpy.typing as npt
from numba import njit
from reference_workload import Reference

from harness.rules.evaluator import count_all_seven_card_hands, evaluate_batch
from harness.rules.lookup import TABLES, Tables, add_card, strength

HANDS = 133_784_560


def main() -> None:
    reference = Reference()
    reference.sample()
    rng = np.random.default_rng(1)
    hands = np.argsort(rng.random((2_000_000, 52)), axis=1)[:, :7].astype(np.uint8)
    for build in ("compiled", "numba"):
        os.environ["CHCERT_KERNEL"] = build
        t0 = time.perf_counter()
        count_all_seven_card_hands()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        count_all_seven_card_hands()
        second = time.perf_counter() - t0
        print(
            f"{build}: exhaustive 7-card enumeration, first call {first:.2f} s, "
            f"second {second:.2f} s = {HANDS / second / 1e6:.1f} M hands/s "
            f"= {reference.per_ref(HANDS / second) / 1e6:.1f} M per ref"
        )
        evaluate_batch(hands[:10])
        t0 = time.perf_counter()
        evaluate_batch(hands)
        bulk = time.perf_counter() - t0
        print(
            f"{build}: bulk evaluate_batch, {len(hands):,} random 7-card hands in {bulk:.2f} s "
            f"= {len(hands) / bulk / 1e6:.1f} M hands/s "
            f"= {reference.per_ref(len(hands) / bulk) / 1e6:.1f} M per ref"
        )
    del os.environ["CHCERT_KERNEL"]
    _look_up(hands[:10], TABLES)
    runs = []
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        _look_up(hands, TABLES)
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    wall, cpu = sorted(runs)[1]
    print(
        f"look-up-table strength: the same hands, median of 3, {wall:.2f} s, {cpu:.2f} CPU-s "
        f"= {len(hands) / wall / 1e6:.1f} M hands/s, {len(hands) / cpu / 1e6:.1f} M per CPU-s "
        f"= {reference.per_ref(len(hands) / cpu) / 1e6:.1f} M per ref"
    )
    reference.sample()
    print(reference.describe())


@njit(cache=True)
def _look_up(hands: npt.NDArray[np.uint8], tables: Tables) -> int:
    """The hands' strengths summed (so none is left uncomputed), each hand's words built
    card by card as the audit's loops build them."""
    total = 0
    for i in range(len(hands)):
        counts, suits = np.uint64(0), np.uint64(0)
        for k in range(hands.shape[1]):
            counts, suits = add_card(counts, suits, hands[i, k])
        total += strength(counts, suits, tables)
    return total


if __name__ == "__main__":
    main()
