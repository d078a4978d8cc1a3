"""Replay throughput of `chcert certify` against the reference game over JSON Lines.

Run on demand (not a test):

    python3 benchmarks/bench_certify.py [-n WORKERS] [--repeat N] [--adapter SPEC]

Runs certify twice, replaying the vector set --repeat times and 5 x --repeat
times (`--repeat` is certify's soak option), and prints

* end to end: vectors / wall time of the larger run, start-up included;
* steady state: the extra vectors of the larger run / its extra wall time, which
  is the replay rate once workers, adapters and games are up.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reference_workload import bracketed


def certify(workers: int, repeat: int, adapter: str) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "harness.cli",
                "certify",
                "--out",
                out,
                "--adapter",
                adapter,
                "-n",
                str(workers),
                "--repeat",
                str(repeat),
                "-k",
                "not rng-battery",  # the replay is measured here; bench_rng.py times the battery
            ],
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - t0
        if proc.returncode != 2:  # the selection leaves the run INCOMPLETE, never PASS
            sys.exit(
                f"certify exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
            )
        results = json.loads((Path(out) / "results.json").read_text())
    return wall, int(results["vectors"]["passed"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--adapter", default="reference")
    args = parser.parse_args()
    small_wall, small = certify(args.workers, args.repeat, args.adapter)
    large_wall, large = certify(args.workers, 5 * args.repeat, args.adapter)
    print(f"certify -n {args.workers} over {args.adapter}:")
    for count, wall in ((small, small_wall), (large, large_wall)):
        print(f"  {count:6d} vectors in {wall:6.2f} s: end to end {count / wall:5.0f} vectors/s")
    print(f"  steady state {(large - small) / (large_wall - small_wall):7.0f} vectors/s")


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
