"""The harness proves its power: each broken game fails with the clause it breaks.

A mutant that survives certification means a missing vector or check.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.reference.mutants import MUTANTS

EXPECTED_CLAUSE = {
    "qualify-pair-of-threes": "s000-r9",
    "qualify-pair-of-fives": "s000-r9",
    "tie-loses": "s000-r12",
    "kickers-ignored": "s000-r7",
    "call-pays-when-dealer-does-not-qualify": "s000-r10",
    "royal-paid-as-straight-flush": "s000-antewin",
    "flush-pays-even-money": "s000-antewin",
    "aa-bonus-on-seven-cards": "s000-sidebet",
    "fold-keeps-aa-bonus": "s000-r5",
    "wheel-not-a-straight": "s000-r7",
}


def test_every_mutant_has_an_expected_clause() -> None:
    assert set(EXPECTED_CLAUSE) == set(MUTANTS)


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_fails_certification_naming_its_clause(tmp_path: Path, mutant: str) -> None:
    cls = MUTANTS[mutant]
    adapter = f"python:{cls.__module__}:{cls.__name__}"  # type: ignore[attr-defined]
    code = main(["certify", "--adapter", adapter, "--out", str(tmp_path), "--seed", "1"])
    results = json.loads((tmp_path / "results.json").read_text())
    failed = {c["id"] for c in results["clauses"] if c["status"] == "fail"}
    assert code == 1 and results["verdict"] == "FAIL"
    assert EXPECTED_CLAUSE[mutant] in failed, (
        f"{mutant} survived on {EXPECTED_CLAUSE[mutant]}: {failed}"
    )


def test_reference_passes_in_process(tmp_path: Path) -> None:
    code = main(
        ["certify", "--adapter", "python:harness.reference:ReferenceGame", "--out", str(tmp_path)]
    )
    assert code == 0
