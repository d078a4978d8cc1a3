"""Exact game mathematics on demand: cold and warm timings (targets in README, Benchmarks).

    python3 benchmarks/bench_math.py [--runs N] [--numba]

Each figure is the median of N runs (default 3), each run in a fresh process:

1. Cold: `chcert math` with an empty numba cache and an empty census cache, so the whole
   enumeration runs (target: under 7 s on two cores), with the kernel compiled ahead of
   time (harness/gamemath/_kernel.c). With --numba, also the numba build of the kernel,
   which a machine without a C compiler runs (its compilation included).
2. A further pay table for the same qualifier from the cached census (target: under
   1 s): load the census and price the table in a process that has imported chcert; and
   the whole `chcert math --profile table2` command, start-up included.

Every figure is also given in refs, multiples of the reference workload timed before and
after the runs (benchmarks/reference_workload.py), which travel between machines.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from reference_workload import Reference

CHILD_PRICING = """
import time
from harness.gamemath.census import load_census, symmetry
from harness.gamemath.pricing import call_values, optimal_calls, play_figures
from harness.rules.profiles import load_profile
profile = load_profile("table2")
started = time.perf_counter()
rows = load_census(profile.qualifying_strength)
calls = optimal_calls(call_values(rows, profile))
figures = play_figures(rows, symmetry().weight, profile, calls, "optimal")
print(time.perf_counter() - started, float(figures.house_edge))
"""


def timed_math(profile: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "harness.cli", "math", "--profile", profile, "--json"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
    )
    return time.perf_counter() - started


def cold(runs: int, kernel: str) -> list[float]:
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as numba, tempfile.TemporaryDirectory() as census:
            env = {"NUMBA_CACHE_DIR": numba, "CHCERT_CACHE": census, "CHCERT_KERNEL": kernel}
            times.append(timed_math("standard", env))
    return times


def show(label: str, times: list[float], reference: Reference, target: float | None = None) -> None:
    runs = ", ".join(f"{t:.2f}" for t in times)
    median = statistics.median(times)
    goal = f"  (target < {target:g} s)" if target else ""
    print(
        f"{label:48} median {median:6.2f} s = {reference.refs(median):5.2f} refs  [{runs}]{goal}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--numba", action="store_true", help="also time the numba kernel cold")
    args = parser.parse_args()

    reference = Reference()
    reference.sample()
    figures = [("cold, compiled kernel: chcert math", cold(args.runs, "compiled"), 7.0)]
    if args.numba:
        figures.append(("cold, numba kernel: chcert math", cold(args.runs, "numba"), None))
    with tempfile.TemporaryDirectory() as census:
        env = {**os.environ, "CHCERT_CACHE": census}
        timed_math("standard", env)  # fills the census cache
        priced, edges = [], set()
        for _ in range(args.runs):
            out = subprocess.run(
                [sys.executable, "-c", CHILD_PRICING], env=env, capture_output=True, text=True
            )
            seconds, edge = out.stdout.split()
            priced.append(float(seconds))
            edges.add(edge)
        figures.append((f"further pay table: load + price (edge {edges.pop()})", priced, 1.0))
        whole = [timed_math("table2", env) for _ in range(args.runs)]
        figures.append(("further pay table: whole chcert math command", whole, None))
    reference.sample()
    print(reference.describe())
    for label, times, target in figures:
        show(label, times, reference, target)


if __name__ == "__main__":
    main()
