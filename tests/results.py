"""Every results.json a test produces is read through here: it must follow its schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._schema import validator
from harness.report.words import reason_text
from harness.results.model import Results


def load_results(folder: Path) -> dict[str, Any]:
    """results.json of a run's output folder: strict JSON (no NaN or Infinity), validated by
    specs/schemas/results.schema.json."""
    data: dict[str, Any] = json.loads((folder / "results.json").read_text(), parse_constant=_refuse)
    errors = sorted(validator("results.schema.json").iter_errors(data), key=str)
    assert not errors, f"results.json breaks its schema: {errors[0].message} at {errors[0].path}"
    empty = empty_texts(data)
    assert not empty, f"results.json has empty or unfinished text at {empty[:5]}"
    return data


WHY = ("reason", "message", "note")  # what says why, wherever a status is not a pass
NOT_PASSED = ("fail", "not_tested", "error")


def empty_texts(value: Any, at: str = "") -> list[str]:
    """Where results.json says nothing while it should say why: a reason, message or note
    that is empty beside a status that is not a pass, or any text that ends in a list
    left empty (`shards not run: `)."""
    found = []
    if isinstance(value, dict):
        if value.get("status") in NOT_PASSED:
            found += [f"{at}.{k}" for k in WHY if k in value and value[k] in ("", None, {})]
        for key, item in value.items():
            found += empty_texts(item, f"{at}.{key}")
    elif isinstance(value, list):
        for n, item in enumerate(value):
            found += empty_texts(item, f"{at}[{n}]")
    elif isinstance(value, str) and value.rstrip(" ").endswith((":", ",")) and value.strip():
        found.append(f"{at}: {value!r}")
    return found


def _refuse(name: str) -> None:
    raise AssertionError(f"{name} in results.json: not JSON")


def reasons(results: dict[str, Any]) -> list[str]:
    """The run's incomplete reasons as the report words them."""
    return [reason_text(r) for r in Results.from_json(results).incomplete_reasons]
