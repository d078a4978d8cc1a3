"""Exact game mathematics on demand: cold and warm timings (targets in README, Benchmarks).

    python3 benchmarks/bench_math.py

1. Cold: `chcert math` with an empty numba cache and an empty census cache, so the
   kernel is compiled and the full enumeration runs (target: under 60 s on two cores).
2. Census only: compiled code cached, census cache empty.
3. A further pay table for the same qualifier from the cached census (target:
   under 5 s): the whole `chcert math --profile table2` command, and the pricing
   alone in this process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from harness.gamemath.census import load_census, symmetry
from harness.gamemath.pricing import call_values, optimal_calls, play_figures
from harness.profiles import load_profile


def timed_math(profile: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "harness.cli", "math", "--profile", profile, "--json"],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
    )
    return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as census:
        cold = {"NUMBA_CACHE_DIR": numba_cache, "CHCERT_CACHE": census}
        print(f"cold (compile + enumerate + price), standard: {timed_math('standard', cold):.1f} s")
    with tempfile.TemporaryDirectory() as census:
        print(
            f"census only (code compiled), standard:      "
            f"{timed_math('standard', {'CHCERT_CACHE': census}):.1f} s"
        )
        env = {"CHCERT_CACHE": census}
        print(f"further pay table, whole command (table2):  {timed_math('table2', env):.1f} s")
        os.environ["CHCERT_CACHE"] = census
        profile = load_profile("table2")
        sym = symmetry()
        started = time.perf_counter()
        rows = load_census(profile.qualifying_strength)
        loaded = time.perf_counter()
        calls = optimal_calls(call_values(rows, profile))
        figures = play_figures(rows, sym.weight, profile, calls, "optimal")
        priced = time.perf_counter()
        print(
            f"further pay table in process: census load {loaded - started:.2f} s, "
            f"pricing {priced - loaded:.2f} s (house edge {float(figures.house_edge):.6%})"
        )


if __name__ == "__main__":
    main()
