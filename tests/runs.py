"""`chcert certify` end to end, as the tests run it: the one helper they share.

A test that needs one function's answer calls that function; a run is for what only a
whole certification shows (verdicts, exit codes, the files written, a game's faults
found through the adapters).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.cli import main
from tests.results import load_results


def certify(out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """`chcert certify --out OUT ARGS` in this process (seed 7 unless ARGS give one): its
    exit code and its results.json, read through the schema."""
    seed = [] if "--seed" in args else ["--seed", "7"]
    code = main(["certify", "--out", str(out), *seed, *args])
    return code, load_results(out)
