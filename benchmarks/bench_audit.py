"""The production audit's speed and memory on a generated log, on demand.

    python3 benchmarks/bench_audit.py [--rows 3000000] [--runs 3] [--format parquet]
                                      [--jobs N] [--log KEPT.parquet]
    python3 benchmarks/bench_audit.py --false-alarms 200 [--rows 30000]

Writes a correct log of `--rows` rows (harness/audit/generate.py) in a temporary
folder, then runs `chcert audit` on it `--runs` times in a fresh process each, and
prints the medians: wall seconds, CPU seconds (user + system of the process), rows per
second and rows per CPU-second, and the peak resident memory. Targets (docs/audit.md):
3,000,000 rows per second and 1,500,000 per CPU-second from Parquet on the idle 2-core
machine, peak memory under 1.5 GB.

With `--false-alarms N` it audits N correct logs of `--rows` rows, each from its own
seed, over 30 days, in process, and prints how many each statistical check (cards,
return, drift, leak) rejected: each at alpha 0.01, so about 1% of the logs or fewer
(docs/audit.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reference_workload import bracketed

from harness.audit.generate import generate


def one_run(log: Path, out: Path, jobs: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one `chcert audit`: the CPU of the
    process and every process it started, the peak of their resident memory summed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "harness.cli", "audit", str(log), "--out", str(out)]
    process = subprocess.Popen([*command, "--quiet", "--jobs", str(jobs)])
    peak = 0
    while process.poll() is None:
        peak = max(peak, _tree_rss(process.pid))
        time.sleep(0.2)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"chcert audit exited {process.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, peak / 1024


def _tree_rss(pid: int) -> int:
    """The resident memory (kB) of a process and all its descendants (Linux /proc)."""
    total = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return total
    return total + sum(_tree_rss(int(child)) for child in children)


def false_alarms(runs: int, rows: int) -> None:
    from harness.audit.cards import card_tests
    from harness.audit.drift import drift_test
    from harness.audit.leak import leak_family
    from harness.audit.returns import ALPHA, return_tests
    from harness.audit.run import Request, audit
    from harness.gamemath.rng import holm
    from harness.rules.profiles import load_profile

    profile = load_profile("standard")
    rejected = {"cards": 0, "return": 0, "drift": 0, "leak": 0}
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "log.parquet"
        for seed in range(runs):
            generate(log, rows, seed=seed)
            partial = audit(Request([log], profile, profile.sha256), jobs=1)
            below = return_tests(partial.returns, above=False).tests
            holm(below, ALPHA)
            drift = drift_test(partial.returns.by_day).result
            failed = {
                "cards": [t.name for t in card_tests(partial.cards).tests if not t.passed],
                "return": [t.name for t in below if not t.passed],
                "drift": [drift.name] if drift is not None and not drift.passed else [],
                "leak": [
                    t.name for t in leak_family(partial.leak, partial.returns).tests if not t.passed
                ],
            }
            for check, names in failed.items():
                rejected[check] += bool(names)
                if names:
                    print(f"seed {seed}: {check}: {', '.join(names)}")
    print(
        f"correct logs of {rows:,} rows, rejected by each check (each at alpha 1%): "
        + ", ".join(f"{check} {n} of {runs}" for check, n in rejected.items())
    )


def _rows(log: Path) -> int:
    """The log's rows (its Parquet metadata, or its lines but a CSV header)."""
    if log.suffix == ".parquet":
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(log).metadata.num_rows)
    with log.open("rb") as file:
        return sum(1 for _ in file) - (log.suffix == ".csv")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--format", choices=("parquet", "csv", "jsonl"), default="parquet")
    parser.add_argument("--false-alarms", type=int, metavar="N", default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--log", type=Path, help="audit this generated log (kept) instead of writing one"
    )
    args = parser.parse_args()
    if args.false_alarms:
        false_alarms(args.false_alarms, args.rows)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        log = args.log or Path(folder) / f"log.{args.format}"
        if args.log is None or not log.exists():
            started = time.perf_counter()
            generate(log, args.rows)
            print(
                f"generated {log.stat().st_size / 1e6:.0f} MB in "
                f"{time.perf_counter() - started:.1f} s"
            )
        rows = _rows(log)
        runs = [one_run(log, Path(folder) / "out", args.jobs) for _ in range(args.runs)]
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    peak = max(r[2] for r in runs)
    print(
        f"chcert audit of {rows:,} rows, --jobs {args.jobs}, median of {args.runs}: "
        f"{wall:.2f} s wall, {cpu:.2f} CPU-s; "
        f"{rows / wall:,.0f} rows/s, {rows / cpu:,.0f} rows per CPU-second; "
        f"peak RSS {peak:,.0f} MB"
    )
    return 0


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        code = main()
    sys.exit(code)
