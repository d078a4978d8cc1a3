"""Reproductions that reproduce (docs/verdict.md): a fault found by a randomized check
comes back with the printed command, from the seed and from the vector written for it."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.reference.mutants import MUTANTS
from harness.rules.catalogs import clause_index, load_catalogs
from harness.rules.evaluator import Category
from harness.vectors.settlement import load_vector_file
from tests.games import Seeded
from tests.results import load_results
from tests.runs import certify
from tests.test_mutants import _bound

# Flushes paid at even money: the simulation meets a called flush within a few hundred rounds.
MUTANT = _bound(MUTANTS["flush-pays-even-money"], "standard")
ADAPTER = f"python:tests.test_mutants:{MUTANT}"


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_a_fault_found_by_the_simulation_reproduces_with_the_printed_command(
    tmp_path: Path,
) -> None:
    code, results = certify(
        tmp_path / "run", "--adapter", ADAPTER, "--seed", "3", "-k", "rtp-simulation"
    )
    assert code == 1
    (failure,) = _causes(results)
    assert failure["clause"] == "s000-antewin" and "settled" in failure["message"]
    # The repro vector is a vector like the hand-worked ones: schema, lint and all.
    repro = tmp_path / "run" / failure["repro"]
    (vector,) = load_vector_file(repro, clause_index(load_catalogs()))
    assert vector.clause_for["standard"] == "s000-antewin" and "Repro" in vector.flags
    # Its command replays exactly that vector, and the game fails it again.
    argv = shlex.split(failure["reproduce"])
    assert argv[:2] == ["chcert", "certify"] and str(repro) in argv
    assert main(argv[1:]) == 1
    replayed = load_results(Path(argv[argv.index("--out") + 1]))
    (again,) = replayed["failures"]  # type: ignore[misc]
    assert again["item"] == f"s000-antewin/{vector.id}" and again["item_kind"] == "vector"
    # The seed alone deals the same rounds: the same failure, word for word.
    _, second = certify(
        tmp_path / "again", "--adapter", ADAPTER, "--seed", "3", "-k", "rtp-simulation"
    )
    assert _causes(second)[0]["message"] == failure["message"]


def _causes(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The causes the RTP simulation found, each a failure of the clause it breaks."""
    return [f for f in results["failures"] if "/rtp-simulation:" in f["item"]]


def test_every_failure_reproduces_with_its_command(tmp_path: Path) -> None:
    adapter = f"python:tests.test_mutants:{_bound(MUTANTS['tie-loses'], 'standard')}"
    code, results = certify(tmp_path / "run", "--adapter", adapter, "--seed", "5", "-k", "s000-r12")
    assert code == 1
    failures = results["failures"]
    assert failures and all(f["reproduce"] for f in failures)  # type: ignore[union-attr]
    first = failures[0]  # type: ignore[index]
    assert main(shlex.split(first["reproduce"])[1:]) == 1
    out = Path(shlex.split(first["reproduce"])[shlex.split(first["reproduce"]).index("--out") + 1])
    assert load_results(out)["failures"][0]["item"] == first["item"]  # type: ignore[index]


class DealsItselfPaysFlushesEvenMoney(Seeded):
    """Cannot stack decks (no inject) and pays the flush row at 1 to 1."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["capabilities"] = [c for c in hello["capabilities"] if c != "inject"]
        return hello

    def ante_odds(self, category: Category) -> int:
        return 1 if category is Category.FLUSH else super().ante_odds(category)


def test_without_inject_the_repro_vector_is_evidence_not_a_replay(tmp_path: Path) -> None:
    adapter = "python:tests.test_reproduce:DealsItselfPaysFlushesEvenMoney"
    code, results = certify(tmp_path, "--adapter", adapter, "--seed", "3", "-k", "rtp-simulation")
    assert code == 1
    (failure,) = _causes(results)
    assert (tmp_path / failure["repro"]).exists()  # the round as dealt, kept as evidence
    assert "cannot be replayed" in failure["evidence"]["reproduction"]
    assert "--vectors" not in failure["reproduce"]
    assert failure["reproduce"].endswith("--item s000-antewin/rtp-simulation")
    assert "the game's round" in failure["message"] and "board" in failure["message"]
