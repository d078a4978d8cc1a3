"""results.json as written: strict JSON, indented for people, a list of numbers on one
line (docs/results.md). The bytes whose SHA-256 the report prints come from here.

Light on purpose: the report and `chcert certify` write and hash these bytes without
the run's machinery.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.atomic import write_bytes_atomic


def plain_json(value: Any) -> Any:
    """`default=` for json.dump: a Decimal (a game's number with a fraction, see
    harness/adapters/base.py) as a float when finite, anything else as its text."""
    if isinstance(value, Decimal) and value.is_finite() and math.isfinite(float(value)):
        return float(value)
    return str(value)


def strict_json(value: Any) -> Any:
    """`value` with every float that is not finite (NaN, infinities) as null: RFC 8259
    has no such numbers, and a strict parser refuses a file that holds one."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    return value


# A list of numbers as json.dumps(indent=2) writes it, one per line. A newline never
# occurs inside a JSON string, so the opening "[\n" marks a list, never text.
_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_NUMBER_LIST = re.compile(rf"\[\n\s*({_NUMBER}(?:,\n\s*{_NUMBER})*)\n\s*\]")


def json_bytes(data: Any) -> bytes:
    """results.json exactly as written: the bytes whose SHA-256 the report prints.
    Indented for people, but a list of numbers (the RNG's 52 x 52 table) on one line."""
    text = json.dumps(strict_json(data), indent=2, default=plain_json, allow_nan=False)
    text = _NUMBER_LIST.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text)
    return (text + "\n").encode("utf-8")


def write_json_atomic(path: Path, data: Any) -> None:
    """Write strict JSON so that a reader never sees half a file, even after a kill
    (harness/atomic.py), readable as the umask allows, like any other output."""
    write_bytes_atomic(path, json_bytes(data))


def results_problem(data: object) -> str | None:
    """Where a parsed file breaks results.json: this version's against its schema
    (generated from the model), an earlier version's as the model reads it."""
    import msgspec

    from harness._schema import validator
    from harness.results.model import Results
    from harness.results.outcomes import SCHEMA_VERSION

    version = data.get("schema_version") if isinstance(data, dict) else None
    if version == SCHEMA_VERSION or not isinstance(data, dict):
        problem = next(iter(validator("results.schema.json").iter_errors(data)), None)
        if problem is None:
            return None
        where = "/".join(str(p) for p in problem.absolute_path) or "(top level)"
        return f"(specs/schemas/results.schema.json) at {where}: {problem.message}"
    if isinstance(version, bool) or not isinstance(version, int) or version < 2:
        return f"(its schema_version is not one of 2 to {SCHEMA_VERSION})"
    if version > SCHEMA_VERSION:
        return f"(schema_version {version}: this harness reads 2 to {SCHEMA_VERSION})"
    try:
        Results.from_json(data)
    except (msgspec.ValidationError, TypeError, ValueError, KeyError) as exc:
        return f"(schema {version}, read by the model): {exc}"
    return None
