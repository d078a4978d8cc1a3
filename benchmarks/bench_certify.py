"""Wall time of `chcert certify` against the reference game, and vectors per second.

Run on demand (not a test): python3 benchmarks/bench_certify.py [-n WORKERS] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--workers", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--adapter", default="reference")
    args = parser.parse_args()
    times = []
    vectors = 0
    for _ in range(args.repeat):
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
                    args.adapter,
                    "-n",
                    str(args.workers),
                ],
                capture_output=True,
                text=True,
            )
            times.append(time.perf_counter() - t0)
            results = json.loads((Path(out) / "results.json").read_text())
            vectors = results["vectors"]["total"]
            if proc.returncode != 0:
                sys.exit(f"certify exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    best = min(times)
    print(
        f"certify (-n {args.workers}, {args.adapter}): {vectors} vectors, "
        f"wall {best:.2f} s best of {args.repeat} ({', '.join(f'{t:.2f}' for t in times)}); "
        f"{vectors / best:.1f} vectors/s end to end including start-up"
    )


if __name__ == "__main__":
    main()
