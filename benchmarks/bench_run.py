"""A whole default certification of the reference, warm and cold, with its profile.

    python3 benchmarks/bench_run.py [--runs N] [--cold-runs N] [-n WORKERS]

Targets (README, Benchmarks; docs/performance.md), on the 2-core machine:

* warm (the caches filled by an unmeasured run first): `chcert certify --seed 7`
  in under 15 s, the median of --runs (default 5);
* cold (an empty census cache and numba cache each run, as on a fresh CI runner):
  under 30 s, the median of --cold-runs (default 3).

Every figure is also given in refs, multiples of the reference workload timed before
and after the runs (benchmarks/reference_workload.py), which travel between machines.
Every item runs in every run (no -k). Besides the wall times it prints the median
profile of the warm runs: the phases of the controller (start-up and planning, the
items, the session's end, the outputs) and the seconds spent in each kind of item,
from the timing plugin run_timer.py loaded into every process of the run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from reference_workload import Reference

HERE = Path(__file__).resolve().parent
WARM_TARGET, COLD_TARGET = 15.0, 30.0


def certify(workers: int, env: dict[str, str]) -> tuple[float, dict[str, float]]:
    """One run: its wall time and its profile (seconds by phase and by item kind)."""
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as timer:
        path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
        run_env = {
            **os.environ,
            **env,
            "PYTHONPATH": path,
            "PYTEST_PLUGINS": "run_timer",
            "CHCERT_RUN_TIMER": timer,
        }
        argv = [sys.executable, "-m", "harness.cli", "certify", "--out", out, "--seed", "7"]
        started = time.time()
        proc = subprocess.run(
            [*argv, "-n", str(workers)], env=run_env, capture_output=True, text=True
        )
        ended = time.time()
        if proc.returncode != 0:
            sys.exit(
                f"certify exited {proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
            )
        events = [
            json.loads(line)
            for file in Path(timer).glob("*.jsonl")
            for line in file.read_text(encoding="utf-8").splitlines()
        ]
    return ended - started, profile(events, started, ended)


def profile(events: list[dict[str, object]], started: float, ended: float) -> dict[str, float]:
    """Phases of the controller, then item seconds by kind (summed over workers)."""

    def at(name: str) -> float:
        return min(
            float(e["at"]) for e in events if e["process"] == "controller" and e["event"] == name
        )  # type: ignore[arg-type]

    items = [e for e in events if e["event"] == "item"]
    last_item = max(float(e["started"]) + float(e["seconds"]) for e in items)  # type: ignore[arg-type]
    phases = {
        "phase: start-up, planning, collection": at("items start") - started,
        "phase: items (first to last)": last_item - at("items start"),
        "phase: session end (mathematics, results.json)": at("session finish end")
        - at("session finish start"),
        "phase: outputs (report, JUnit) and exit": ended - at("session finish end"),
    }
    kinds: dict[str, float] = defaultdict(float)
    for e in items:
        name, kind = str(e["item"]), str(e["kind"])
        target = name.partition("/")[2]
        key = re.sub(r"-\d+$", "", target) if kind == "check" else kind
        kinds[f"items: {key}"] += float(e["seconds"])  # type: ignore[arg-type]
    return {**phases, **kinds}


def show(label: str, times: list[float], target: float, reference: Reference) -> None:
    runs = ", ".join(f"{t:.1f}" for t in times)
    median = statistics.median(times)
    verdict = "meets" if median < target else "MISSES"
    print(
        f"{label:10} median {median:5.1f} s = {reference.refs(median):5.1f} refs  [{runs}]  "
        f"target < {target:g} s: {verdict}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="warm runs (default 5)")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold runs (default 3)")
    parser.add_argument("-n", "--workers", type=int, default=0, help="certify -n (default 0)")
    args = parser.parse_args()

    reference = Reference()
    reference.sample()
    cold = []
    for _ in range(args.cold_runs):
        with tempfile.TemporaryDirectory() as census, tempfile.TemporaryDirectory() as numba:
            cold.append(certify(args.workers, {"CHCERT_CACHE": census, "NUMBA_CACHE_DIR": numba}))
    certify(args.workers, {})  # fills the caches the warm runs read
    warm = [certify(args.workers, {}) for _ in range(args.runs)]
    reference.sample()
    print(reference.describe())
    print(f"chcert certify --seed 7 -n {args.workers} of the reference:")
    if cold:
        show("cold", [wall for wall, _ in cold], COLD_TARGET, reference)
    show("warm", [wall for wall, _ in warm], WARM_TARGET, reference)
    print("profile of the warm runs (median seconds, refs; items summed over workers):")
    medians = {
        key: statistics.median(p.get(key, 0.0) for _, p in warm)
        for key in dict.fromkeys(k for _, p in warm for k in p)  # phases first, in order
    }
    items = sorted((k for k in medians if k.startswith("items")), key=lambda k: -medians[k])
    for key in [*(k for k in medians if k.startswith("phase")), *items]:
        print(f"  {key:52} {medians[key]:6.2f} {reference.refs(medians[key]):6.2f}")


if __name__ == "__main__":
    main()
