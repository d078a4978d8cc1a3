"""Time and peak memory of a run against each hostile game (docs/robustness.md).

Run on demand (not a test):

    python3 benchmarks/bench_hostile.py [MODE ...]

Each mode of tests/fixtures/faulty_game.py (and the hostile Python games of
tests/games.py and tests/exiting_games.py, each in a child process of its own) is
certified once in a process of its own, on the two items of
tests/test_hostile.py, with `--timeout 2`. Prints per mode the exit code, the
seconds, and the peak resident memory of the run's largest process (chcert or
the game), from getrusage, against the targets below; exits 1 when one is missed.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference_workload import bracketed

from tests.fixtures.faulty_game import ELSEWHERE, HTTP, ON_TRIGGER
from tests.test_hostile import FAULTY, ITEMS, serve_faulty

PYTHON_GAMES = [
    "python:tests.games:HangsOnTrigger",
    "python:tests.games:ExitsOnTrigger",
    "python:tests.exits_at_import:Game",
    "python:tests.exiting_games:ExitsInHello",
]
# Targets: a hostile game costs a run no more than a minute (three 2 s timeouts and their
# restarts at most) and no more memory than numba, the census and the strategy take anyway.
MAX_SECONDS = 60
MAX_RSS_MB = 1500


def certify_child(*args: str) -> tuple[int, float, int]:
    """chcert certify in a process of its own: exit code, seconds, and the peak resident
    memory in MB of the largest process of the run (chcert, a worker or the game)."""
    wrapper = (
        "import resource, subprocess, sys, time; t = time.monotonic(); "
        "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode; "
        "print(code, time.monotonic() - t, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)"
    )
    command = [sys.executable, "-c", wrapper, sys.executable, "-m", "harness.cli", "certify"]
    proc = subprocess.run([*command, *args], capture_output=True, text=True, timeout=600)
    code, seconds, megabytes = proc.stdout.split()
    return int(code), float(seconds), int(megabytes)


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
    modes = sys.argv[1:] or [*ON_TRIGGER, *ELSEWHERE, *HTTP, *PYTHON_GAMES]
    print(f"targets: under {MAX_SECONDS} s and {MAX_RSS_MB} MB a run")
    print(f"{'mode':38} {'exit':>4} {'seconds':>8} {'peak MB':>8}")
    missed = []
    for mode in modes:
        code, seconds, megabytes = measure(mode)
        over = seconds >= MAX_SECONDS or megabytes >= MAX_RSS_MB
        mark = "  MISSED" if over else ""
        print(f"{mode:38} {code:>4} {seconds:8.1f} {megabytes:8}{mark}", flush=True)
        missed += [mode] if over else []
    if missed:
        print(f"targets missed: {', '.join(missed)}")
        raise SystemExit(1)


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
