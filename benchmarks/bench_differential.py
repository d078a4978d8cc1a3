"""Throughput of the differential check and the generated corpus, and a whole certify.

Run on demand (not a test), on a quiet machine:

    python3 benchmarks/bench_differential.py [-n WORKERS] [--adapter SPEC] [--budget N]

Targets (docs/differential.md, docs/corpus.md), against the reference over JSON
Lines on the 2-core machine: the differential >= 5,000 seat-hands/s, the corpus
>= 2,000 vectors/s, a whole default `chcert certify` (warm caches) < 15 s (bench_run.py
times it alone, with medians).

Each figure is a separate certify: the differential alone (`-k differential`),
the corpus alone (`-k corpus`), then everything. Throughput is the work done over
the time of the items that did it (results.json keeps the seconds of the shards
and corpus items), summed and divided by the workers; the whole run is wall
time, start-up included. Each figure is also given per ref, the time the reference
workload takes (benchmarks/reference_workload.py), which travels between machines.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from reference_workload import Reference


def certify(args: argparse.Namespace, *extra: str) -> tuple[float, dict[str, Any]]:
    out = Path(tempfile.mkdtemp(prefix="bench-differential-"))
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "certify",
            "--out",
            str(out),
            "--adapter",
            args.adapter,
            "-n",
            str(args.workers),
            "--seed",
            "7",
            "--differential",
            str(args.budget),
            *extra,
        ],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 2):
        sys.exit(f"certify exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return wall, json.loads((out / "results.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--workers", type=int, default=2)
    parser.add_argument("--adapter", default="reference")
    parser.add_argument("--budget", type=int, default=50_000)
    args = parser.parse_args()

    reference = Reference()
    reference.sample()
    wall, results = certify(args, "-k", "differential")
    diff = results["differential"]
    rate = diff["seat_hands"] / (diff["seconds"] / args.workers)
    print(
        f"differential: {diff['seat_hands']:,} seat-hands, {diff['rounds']:,} rounds, "
        f"{diff['strata']['met']}/{diff['strata']['total']} strata met, "
        f"{rate:,.0f} seat-hands/s = {reference.per_ref(rate):,.0f} per ref over "
        f"{args.workers} workers "
        f"({diff['seconds']:.1f} s of shard time; certify wall {wall:.1f} s); "
        f"detectable fault rate {diff['detectable_fault_rate']:.2e}"
    )

    wall, results = certify(args, "-k", "corpus")
    corpus = results["corpus"]
    seconds = corpus["seconds"]
    per_second = corpus["ran"] / (seconds / args.workers)
    print(
        f"corpus: {corpus['ran']:,} vectors, {per_second:,.0f} vectors/s = "
        f"{reference.per_ref(per_second):,.0f} per ref over {args.workers} workers "
        f"({seconds:.1f} s of item time; certify wall {wall:.1f} s)"
    )

    wall, results = certify(args)
    reference.sample()
    print(
        f"whole certify: {wall:.1f} s wall = {reference.refs(wall):.1f} refs, "
        f"verdict {results['verdict']}"
    )
    print(reference.describe())


if __name__ == "__main__":
    main()
