"""What the interactive checks cost a default certify: information hiding, the AA
Bonus locked at the flop, history recall and the refusal battery
(docs/information-hiding.md, docs/refusals.md). Target: at most 5 s more.

Run on demand (not a test), on a quiet machine:

    python3 benchmarks/bench_interactive.py [--repeat 2]

Certifies the reference (JSON Lines, chcert's default of one process) with
everything, then with those items deselected, alternately, `--repeat` times each;
prints each run's wall seconds and the difference of the fastest of each. Then the
items alone, start-up included.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reference_workload import bracketed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.rules.catalogs import clause_index, load_catalogs  # noqa: E402
from harness.vectors.refusals import load_all_refusals  # noqa: E402

CHECKS = ["information-hiding", "aa-bonus-locked", "history-recall"]


def interactive_names() -> list[str]:
    refusals = load_all_refusals(clause_index(load_catalogs()))
    return [*CHECKS, *sorted({r.id for r in refusals})]


def certify(*extra: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        argv = [sys.executable, "-m", "harness.cli", "certify", "--adapter", "reference"]
        start = time.perf_counter()
        subprocess.run(
            [*argv, "--out", str(Path(folder) / "out"), "--seed", "1", *extra],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    names = interactive_names()
    without = "not (" + " or ".join(names) + ")"
    full, rest = [], []
    for _ in range(args.repeat):
        full.append(certify())
        rest.append(certify("-k", without))
        print(f"with: {full[-1]:6.1f} s   without: {rest[-1]:6.1f} s", flush=True)
    print(
        f"added by the {len(names)} interactive items: {min(full) - min(rest):+.1f} s "
        "(fastest against fastest; target <= 5 s)"
    )
    alone = certify("-k", " or ".join(names))
    print(f"the interactive items alone, start-up included: {alone:.1f} s")


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
