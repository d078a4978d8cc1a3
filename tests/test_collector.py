"""A run's processes run the cycle collector less often (harness/collector.py): its
youngest generation waits for YOUNG_GENERATION allocations, never fewer than before."""

from __future__ import annotations

import gc

from harness.collector import YOUNG_GENERATION, collect_cycles_less_often


def test_a_runs_processes_collect_cycles_less_often() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        collect_cycles_less_often()
        assert gc.get_threshold() == (YOUNG_GENERATION, 10, 10)
        gc.set_threshold(10 * YOUNG_GENERATION, 5, 7)  # a process that asked for more keeps it
        collect_cycles_less_often()
        assert gc.get_threshold() == (10 * YOUNG_GENERATION, 5, 7)
    finally:
        gc.set_threshold(*before)
