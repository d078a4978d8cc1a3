"""How often the differential check kills each mutant at the default budget, over seeds.

Run on demand (not a test); it certifies each mutant once per seed, with only the
differential selected (`-k differential`), two runs at a time:

    python3 benchmarks/mutant_kills.py [--seeds 5] [--budget 50000] [MUTANT ...]

A kill is a FAIL naming the mutant's clause (its registration in
harness/reference/mutants/, `REGISTRY`). By default it runs the mutants registered as
differential.
Prints one row per mutant: kills out of seeds, the disagreeing seat-hands found
per run, and the seconds per run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference_workload import bracketed

from harness.reference.mutants import REGISTRY


def run(mutant: str, seed: int, budget: int) -> tuple[bool, int, float]:
    profile, clause = REGISTRY[mutant].profile, REGISTRY[mutant].clause
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "harness.cli",
                "certify",
                "--adapter",
                f"subprocess:{sys.executable} -m harness.reference --mutant {mutant}",
                "--profile",
                profile,
                "--out",
                out,
                "--seed",
                str(seed),
                "--differential",
                str(budget),
                "-n",
                "0",
                "-k",
                "differential",
            ],
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - t0
        results = json.loads((Path(out) / "results.json").read_text())
    failed = {c["id"] for c in results["clauses"] if c["status"] == "fail"}
    killed = proc.returncode == 1 and clause in failed
    return killed, int(results["differential"]["disagreeing_seat_hands"]), seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=50_000)
    differential = sorted(name for name, m in REGISTRY.items() if m.differential)
    parser.add_argument("mutants", nargs="*", default=differential)
    args = parser.parse_args()
    jobs = [(m, s) for m in args.mutants for s in range(1, args.seeds + 1)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda job: run(*job, args.budget), jobs))
    by_mutant: dict[str, list[tuple[bool, int, float]]] = {}
    for (mutant, _), outcome in zip(jobs, outcomes, strict=True):
        by_mutant.setdefault(mutant, []).append(outcome)
    print(f"{'mutant':44} {'clause':20} kills  disagreeing seat-hands per run   s/run")
    for mutant, rows in by_mutant.items():
        kills = sum(k for k, _, _ in rows)
        found = " ".join(str(n) for _, n, _ in rows)
        seconds = sum(s for _, _, s in rows) / len(rows)
        clause = REGISTRY[mutant].clause
        print(f"{mutant:44} {clause:20} {kills}/{len(rows)}  {found:30} {seconds:6.1f}")


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
