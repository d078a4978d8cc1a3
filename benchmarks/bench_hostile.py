"""Time and peak memory of a run against each hostile game (docs/robustness.md).

Run on demand (not a test):

    python3 benchmarks/bench_hostile.py [MODE ...]

Each mode of tests/fixtures/faulty_game.py (and the two hostile Python games of
tests/games.py) is certified once in a process of its own, on the two items of
tests/test_hostile.py, with `--timeout 2`. Prints per mode the exit code, the
seconds, and the peak resident memory of the run's largest process (chcert or
the game), from getrusage.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fixtures.faulty_game import ELSEWHERE, HTTP, ON_TRIGGER
from tests.test_hostile import FAULTY, ITEMS, certify_child, serve_faulty

IN_PROCESS = ["python:tests.games:HangsOnTrigger", "python:tests.games:ExitsOnTrigger"]


def measure(mode: str) -> tuple[int, float, int]:
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "out")
        args = ["--out", out, "--seed", "7", "--timeout", "2", *ITEMS]
        if mode.startswith("python:"):
            return certify_child("--adapter", mode, *args)
        if mode not in HTTP:
            adapter = f"subprocess:{sys.executable} {FAULTY} --fault {mode}"
            return certify_child("--adapter", adapter, *args)
        server, url = serve_faulty(mode)
        try:
            return certify_child("--adapter", url, *args)
        finally:
            server.kill()
            server.wait()


def main() -> None:
    modes = sys.argv[1:] or [*ON_TRIGGER, *ELSEWHERE, *HTTP, *IN_PROCESS]
    print(f"{'mode':38} {'exit':>4} {'seconds':>8} {'peak MB':>8}")
    for mode in modes:
        code, seconds, megabytes = measure(mode)
        print(f"{mode:38} {code:>4} {seconds:8.1f} {megabytes:8}", flush=True)


if __name__ == "__main__":
    main()
