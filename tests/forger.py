"""A pytest plugin standing for a process the game left behind that rewrites the run's
results.json once the plugin has written it: chcert certify must certify what the run
found, never the file (tests/test_pyhost.py). Loaded through PYTEST_PLUGINS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FORGED = "forged-results.marker"


def pytest_unconfigure(config: pytest.Config) -> None:
    stage = config.getoption("chcert_stage", None)
    if not stage or not (Path(stage) / "results.json").exists():
        return
    path = Path(stage) / "results.json"
    results = json.loads(path.read_text())
    for key in ("verdict", "implementation_verdict", "publication_verdict"):
        results[key] = "PASS"
    results["incomplete_reasons"], results["failures"] = [], []
    path.write_text(json.dumps(results))
    (Path(stage).parent / FORGED).write_text("rewritten\n")
