"""`chcert certify` end to end, as the tests run it: the one helper they share.

A test that needs one function's answer calls that function; a run is for what only a
whole certification shows (verdicts, exit codes, the files written, a game's faults
found through the adapters).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from harness.cli import main
from tests.results import load_results

# A laboratory's policy for the harness's own runs on small samples (docs/verdict.md#evidence):
# named with --plan, as only a named plan states minimums.
QUICK_SAMPLES = ("--plan", str(Path(__file__).resolve().parent / "fixtures" / "quick-samples.toml"))


def certify(out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """`chcert certify --out OUT ARGS` in this process (seed 7 unless ARGS give one): its
    exit code and its results.json, read through the schema, written readable by others
    as any file the user's umask allows (never private to the laboratory's account)."""
    seed = [] if "--seed" in args else ["--seed", "7"]
    code = main(["certify", "--out", str(out), *seed, *args])
    umask = os.umask(0o022)
    os.umask(umask)
    assert (out / "results.json").stat().st_mode & 0o777 == 0o666 & ~umask
    return code, load_results(out)


def wait_for_lines(path: Path, count: int, seconds: float = 120) -> None:
    """Until `path` has `count` lines (a game's marker: a line a request it received);
    a run that gets nowhere within `seconds` fails the test."""
    give_up = time.monotonic() + seconds
    while not path.exists() or len(path.read_text().splitlines()) < count:
        assert time.monotonic() < give_up, f"{path} never had {count} lines"
        time.sleep(0.05)
