"""One attribution for every settlement comparison (docs/differential.md, decision table).

A game that breaks one rule fails that rule's clause alone, wherever the fault shows:
a hand-worked vector citing another clause passes and hands its round to the clause
broken, as a worked example; pytest's counts are chcert's.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest

from tests.runs import certify

# The vectors and the corpus, where the dealer's qualification shows in every kind of hand.
SELECTION = "not rng-battery and not rtp-simulation and not differential"
PYTEST_KINDS = {"vector", "check", "corpus", "differential"}  # items pytest runs or reports


@pytest.fixture(scope="module")
def qualifies_on_threes(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """A game whose dealer qualifies with a pair of threes (s000-r9 alone), certified,
    with what pytest printed."""
    out = tmp_path_factory.mktemp("threes")
    printed = io.StringIO()
    game = "python:harness.reference.mutants:QualifyPairOfThrees"
    with contextlib.redirect_stdout(printed):
        code, results = certify(out, "--adapter", game, "-k", SELECTION)
    assert code == 1
    return results, printed.getvalue()


def _items(results: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(i, clause=c["id"]) for c in results["clauses"] for i in c["items"]]


def test_a_vector_fails_only_the_clause_it_breaks(
    qualifies_on_threes: tuple[dict[str, Any], str],
) -> None:
    results, _ = qualifies_on_threes
    failed = {c["id"] for c in results["clauses"] if c["status"] == "fail"}
    assert failed == {"s000-r9"}
    items = _items(results)
    # The ante pay table's vectors show the fault (a dealer pair of threes beaten, the ante
    # paid where it should be even money) and pass: their clause is kept.
    antewin = [i for i in items if i["clause"] == "s000-antewin" and i["kind"] == "vector"]
    assert antewin and all(i["status"] == "pass" for i in antewin)
    causes = [f for f in results["failures"] if "/vectors:" in f["item"]]
    assert causes and all(f["clause"] == "s000-r9" for f in causes)
    for cause in causes:  # a worked example: the vector, its round, a command replaying it
        assert cause["evidence"]["kind"] == "dealer-qualification"
        assert cause["evidence"]["vector"] and cause["evidence"]["cards"]
        assert "--item s000-" in cause["reproduce"]


def test_pytest_counts_what_chcert_counts(qualifies_on_threes: tuple[dict[str, Any], str]) -> None:
    """A passing item is never under pytest's FAILURES; each cause found is an item of its
    own, in pytest's count as in chcert's summary (its `items:` line)."""
    results, printed = qualifies_on_threes
    line = next(x for x in printed.splitlines() if re.search(r"\d+ passed.* in ", x))
    said = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", line)}
    summary = next(x for x in printed.splitlines() if x.startswith("  items: "))
    chcert = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors|not)", summary)}
    assert said.get("passed", 0) == chcert["passed"] > 0
    assert said.get("failed", 0) == chcert["failed"] == len(results["failures"]) > 0
    assert said.get("error", 0) == chcert["errors"]
    assert said.get("skipped", 0) + said.get("deselected", 0) == chcert["not"]
    items = _items(results)
    ran = [i for i in items if i["kind"] in PYTEST_KINDS]
    assert sum(i["status"] == "pass" for i in ran) == chcert["passed"]
    failing = set(re.findall(r"^FAILED \S+::(\S+)", printed, re.M))
    passing = {i["name"] for i in items if i["status"] == "pass"}
    assert failing and not failing & passing


def test_a_check_item_that_found_only_other_clauses_faults_passes(tmp_path: Path) -> None:
    """The corpus item of a clause the game keeps passes; the causes it found fail theirs."""
    game = "python:harness.reference.mutants:QualifyPairOfThrees"
    _, results = certify(tmp_path, "--adapter", game, "-k", "corpus")
    corpus = {i["clause"]: i["status"] for i in _items(results) if i["kind"] == "corpus"}
    assert corpus and {c for c, s in corpus.items() if s == "fail"} <= {"s000-r9"}
    assert corpus["s000-r10"] == "pass"


def test_the_catalogs_name_every_fault_kind_of_the_table() -> None:
    """Every kind the decision table gives is one a catalog can assign to a clause
    (specs/schemas/clauses.schema.json), but `malfunction`, which no clause owns."""
    import json

    from harness._schema import SCHEMA_DIR
    from harness.differential.attribution import KINDS

    schema = json.loads((SCHEMA_DIR / "clauses.schema.json").read_text())
    enums = {
        tuple(v[key]["items"]["enum"])
        for v in _walk(schema)
        if isinstance(v, dict)
        for key in ("differential", "judges")
        if isinstance(v.get(key), dict) and "items" in v[key]
    }
    assert {frozenset(e) for e in enums} == {frozenset(KINDS) - {"malfunction"}}


def _walk(value: Any) -> list[Any]:
    found = [value]
    if isinstance(value, dict):
        found += [x for v in value.values() for x in _walk(v)]
    elif isinstance(value, list):
        found += [x for v in value for x in _walk(v)]
    return found
