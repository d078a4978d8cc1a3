"""Every results.json a test produces is read through here: it must follow its schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._schema import validator
from harness.model import Results
from harness.report.words import reason_text


def load_results(folder: Path) -> dict[str, Any]:
    """results.json of a run's output folder: strict JSON (no NaN or Infinity), validated by
    specs/schemas/results.schema.json."""
    data: dict[str, Any] = json.loads((folder / "results.json").read_text(), parse_constant=_refuse)
    errors = sorted(validator("results.schema.json").iter_errors(data), key=str)
    assert not errors, f"results.json breaks its schema: {errors[0].message} at {errors[0].path}"
    return data


def _refuse(name: str) -> None:
    raise AssertionError(f"{name} in results.json: not JSON")


def reasons(results: dict[str, Any]) -> list[str]:
    """The run's incomplete reasons as the report words them."""
    return [reason_text(r) for r in Results.from_json(results).incomplete_reasons]
