"""The cycle collector run less often in the processes that play rounds.

A certification, and the reference game serving it, allocate millions of short-lived
objects (requests, replies, rounds, settlements) that reference counting frees at once
and that hold no reference cycles. CPython's cycle collector, run every 700 allocations
by default, found next to nothing in them and took a fifth of the differential's CPU
and a tenth of the reference game's (docs/performance.md). In those processes its
youngest generation waits for YOUNG_GENERATION allocations instead, its older
generations in proportion: the same collections of the rare cycle, a few megabytes
later.
"""

from __future__ import annotations

import gc

YOUNG_GENERATION = 50_000  # allocations between two collections of the youngest generation


def collect_cycles_less_often() -> None:
    """Raise the youngest generation's threshold to YOUNG_GENERATION (never lower it)."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_GENERATION), middle, old)
