"""specs/schemas/results.schema.json describes the results.json `chcert certify` writes.

The documents here are built without a game: build_results from hand-made facts,
and the stub the CLI writes when the test runner stopped early.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import msgspec
import pytest

from harness._schema import SCHEMA_DIR, validator
from harness.checks import MERGES
from harness.cli.certify import _stub_results
from harness.protocol.declaration import Declaration
from harness.results.build import Record, RunFacts, build_results, now
from harness.results.model import (
    Attestation,
    Figure,
    ItemKind,
    MathSection,
    PlannedItem,
    Simulation,
)
from harness.results.outcomes import Status
from harness.rules.catalogs import load_catalogs
from harness.rules.profiles import load_profile

SCHEMA = "results.schema.json"
NODE = "specs/clauses/s000.yaml::"


def errors_of(document: Any) -> list[str]:
    """Every schema error of a document, as 'path: message'."""
    found = validator(SCHEMA).iter_errors(document)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in found]


def _record(planned: PlannedItem, status: Status, **more: Any) -> Record:
    return Record(
        node=NODE + planned.name,
        clause=planned.clause,
        kind=planned.kind,
        name=planned.target,
        status=status,
        **more,
    )


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    return built_results()


def built_results() -> dict[str, Any]:
    """results.json from facts covering every outcome: an item passed, failed (with a repro
    vector), not tested, in error, not run, left out by a selection; a claim the mathematics
    could not judge; a published figure refuted; an attestation."""
    passed = PlannedItem("s000-r12/tie-flush-board", "s000-r12", ItemKind.VECTOR, "tie-flush-board")
    failed = PlannedItem(
        "s000-antewin/rtp-simulation", "s000-antewin", ItemKind.CHECK, "rtp-simulation"
    )
    untested = PlannedItem("s000-r4/stacked-deal", "s000-r4", ItemKind.CHECK, "stacked-deal")
    broken = PlannedItem(
        "s000-r3/information-hiding", "s000-r3", ItemKind.CHECK, "information-hiding"
    )
    unrun = PlannedItem("s000-r6/nq-flush", "s000-r6", ItemKind.VECTOR, "nq-flush")
    left_out = PlannedItem("s000-r1/rng-battery", "s000-r1", ItemKind.CHECK, "rng-battery")
    planned = [passed, failed, untested, broken, unrun, left_out]
    records = [
        _record(passed, Status.PASS),
        _record(
            failed,
            Status.FAIL,
            message="round 6 seat 4: settled wrongly",
            expected=[[100, 100], [200, 200]],
            actual=[[100, 0], [200, 0]],
            evidence={"round": {"round": "r6"}},
            reproduce="chcert certify -k s000-antewin/rtp-simulation",
            repro_file="repro/repro-rtp-simulation-round6-seed7.yaml",
        ),
        _record(
            untested,
            Status.NOT_TESTED,
            message="needs capability inject",
            needs="capability inject",
        ),
        _record(broken, Status.ERROR, message="RuntimeError: boom"),
    ]
    published = {
        "figure": "rtp",
        "claimed": 0.9875,
        "source": "hello config.published",
        "status": Status.FAIL.value,
        "computed": 0.991826515868128,
        "definition": "optimal strategy, per total wager (element of risk)",
        "difference": 0.004326515868128027,
        "tolerance": 5e-05,
        "readings": {
            "optimal strategy, per ante": 0.9784235416376913,
            "optimal strategy, per total wager (element of risk)": 0.991826515868128,
        },
        "priced_on": "standard",
        "reproduce": "chcert math --profile standard --claim rtp=0.9875",
        "clause": None,
    }
    attestation = {
        "clause": "s000-r4",
        "result": "not_applicable",
        "evidence": "laboratory review 12",
        "by": "A. Tester, Lab X",
        "date": "2026-01-15",
    }
    facts = RunFacts(
        profile=load_profile("standard"),
        catalogs=load_catalogs(["s000"]),
        adapter="reference",
        declared=Declaration({"protocol": 1, "name": "hand-made", "capabilities": ["events"]}),
        planned=planned,
        records=records,
        started=now(),
        seed=7,
        math=MathSection(
            status=Status.ERROR, reason="x", claims=[], simulation=Simulation(status=Status.ERROR)
        ),
        collected={p.name for p in planned if p is not left_out},
        selection={"-k": "not rng-battery"},
        published=[msgspec.convert(published, Figure)],
        attestations=[msgspec.convert(attestation, Attestation)],
        merges=MERGES,
    )
    return build_results(facts).to_json()


def test_the_schema_is_a_valid_draft_2020_12_schema_loaded_by_the_harness() -> None:
    contents = json.loads((SCHEMA_DIR / SCHEMA).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(contents)
    assert contents["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert contents["$id"] == SCHEMA
    assert validator(SCHEMA).schema == contents


def test_results_built_from_every_kind_of_outcome_follow_the_schema(
    built: dict[str, Any],
) -> None:
    assert errors_of(built) == []


def test_the_built_results_cover_the_shapes_the_schema_must_admit(
    built: dict[str, Any],
) -> None:
    statuses = {i["status"] for c in built["clauses"] for i in c["items"]}
    assert statuses == {"pass", "fail", "not_tested", "error"}
    assert {c["status"] for c in built["clauses"]} >= {"fail", "not_tested", "attested"}
    assert {f["kind"] for f in built["failures"]} == {"implementation", "publication"}
    assert any(f["repro"] for f in built["failures"])
    assert built["selection"] is not None
    assert built["math"]["status"] == "error"
    assert built["attestations"][0]["applied"] is True
    assert built["gaps"]
    assert built["verdict"] == "FAIL"


def test_the_stub_written_when_the_runner_stopped_early_follows_the_schema() -> None:
    assert errors_of(_stub_results("standard", 3).to_json()) == []


def _set(path: tuple[str | int, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        target: Any = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        del document[key]

    return change


BROKEN = {
    "verdict MAYBE": _set(("verdict",), "MAYBE"),
    "a lower-case verdict": _set(("implementation_verdict",), "pass"),
    "clause status passed": _set(("clauses", 0, "status"), "passed"),
    "a clause in error": _set(("clauses", 0, "status"), "error"),
    "item status ok": _set(("clauses", 0, "items", 0, "status"), "ok"),
    "an item of unknown kind": _set(("clauses", 0, "items", 0, "kind"), "guess"),
    "failure kind cosmetic": _set(("failures", 0, "kind"), "cosmetic"),
    "a vector count as text": _set(("vectors", "total"), "56"),
    "a vector count as a fraction": _set(("vectors", "passed"), 1.5),
    "schema version 1": _set(("schema_version",), 1),
    "an unknown top-level key": _set(("surprise",), True),
    "a selection as text": _set(("selection",), "-k s000"),
    "a gap of unknown kind": _set(("gaps", 0, "kind"), "other"),
    "an unknown manifest key": _set(("manifest", "extra"), 1),
    "a manifest digest that is not sha256": _set(("manifest", "spec_sha256"), "abc"),
    "no gaps": _drop("gaps"),
    "a full run without its math section": _drop("math"),
}


@pytest.mark.parametrize("change", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_document_is_rejected(
    built: dict[str, Any], change: Callable[[dict[str, Any]], None]
) -> None:
    document = copy.deepcopy(built)
    change(document)
    assert errors_of(document) != []


def test_a_stub_with_half_its_vector_counts_is_rejected() -> None:
    stub = _stub_results("standard", 3).to_json()
    stub["vectors"] = {"total": 3}
    assert errors_of(stub) != []
