"""The typed model is results.json (harness/results/model.py): what it reads it writes back, every
earlier version is read, and each code is in the schema, the docs and the words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness._schema import SCHEMA_DIR, validator
from harness.report.words import reason_text, ways_to_close, why_text
from harness.results import model
from harness.results.model import (
    Fault,
    FoundBy,
    Reason,
    ReasonCode,
    Results,
    settlement_fault,
)
from harness.results.outcomes import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "reports" / "samples").glob("*/results.json"))
SCHEMA_4 = ROOT / "tests" / "fixtures" / "results-schema-4-mutant.json"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.parent.name)
def test_a_sample_reads_and_writes_back_as_it_was(path: Path) -> None:
    data = json.loads(path.read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    assert Results.from_json(data).to_json() == data


def test_a_file_of_schema_4_reads_as_it_was_written() -> None:
    """A failing run archived by chcert's schema 4: every key and value kept; its
    sentences read as reasons the report words as they were."""
    data = json.loads(SCHEMA_4.read_text())
    assert data["schema_version"] == 4
    results = Results.from_json(data)
    written = results.to_json()
    for failure in written["failures"]:
        assert failure.pop("fault") is None  # a version-4 file records none
    for clause in written["clauses"]:
        assert clause.pop("varied") == []  # schema 6's: no variation
    assert written["corpus"].pop("stakes") == {}
    upgraded = {k: v for k, v in written.items() if k not in ("incomplete_reasons", "gaps")}
    kept = {k: v for k, v in data.items() if k not in ("incomplete_reasons", "gaps")}
    kept["clauses"] = [{**c, "notes": written_c["notes"]} for c, written_c in zip(
        data["clauses"], written["clauses"], strict=True)]  # fmt: skip
    assert upgraded == kept
    assert [reason_text(r) for r in results.incomplete_reasons] == data["incomplete_reasons"]
    # Each failure of a file that recorded no fault is a cause of its own, by its item.
    assert len({f.key().cause for f in results.failures}) == len(results.failures)


def test_a_built_file_is_the_model_and_follows_the_schema(built: dict[str, Any]) -> None:
    assert built["schema_version"] == SCHEMA_VERSION
    errors = sorted(validator("results.schema.json").iter_errors(built), key=str)
    assert not errors, errors[0]
    again = Results.from_json(built)
    assert again.to_json() == built
    assert all(f["fault"] is not None for f in built["failures"])


def test_a_value_of_the_wrong_type_names_its_path() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.clauses\[0\]\.id"):
        Results.from_json({"verdict": "PASS", "schema_version": 5, "clauses": [{"id": 3}]})


def test_every_reason_code_is_in_the_schema_the_docs_and_the_words() -> None:
    schema = json.loads((SCHEMA_DIR / "results.schema.json").read_text())
    assert schema["$defs"]["ReasonCode"]["enum"] == sorted(c.value for c in ReasonCode)
    docs = (ROOT / "docs" / "results.md").read_text()
    for code in ReasonCode:
        assert f"`{code.value}`" in docs, code
        worded = reason_text(Reason(code=code, subject="SUBJECT", detail="DETAIL"))
        assert worded and (code in (ReasonCode.RUNNER_ERROR, ReasonCode.NO_HELLO)
                           or "SUBJECT" in worded or "DETAIL" in worded
                           or code is ReasonCode.NOTHING_APPLIES), code  # fmt: skip


def test_a_gap_names_the_attestation_once() -> None:
    assert ways_to_close([]) == ["an attestation"]
    assert ways_to_close(["capability inject"]) == ["capability inject", "or an attestation"]
    assert ways_to_close(["an attestation (not_applicable)"]) == ["an attestation (not_applicable)"]
    assert why_text(Reason(code=ReasonCode.NOT_TESTED, detail="left out")) == "left out"


def test_failures_of_one_cause_share_a_key_whatever_their_stakes() -> None:
    """Two vectors paying a flush wrongly at different stakes are one cause: the key says
    which wager the game got otherwise, from the money it records, never from words."""

    def settled(stake: int, paid: int) -> dict[str, Any]:
        seat = {"hand": "flush", "ante": [stake, paid], "call": [2 * stake, 4 * stake]}
        return {"seats": {"1": seat}}

    def fault(stake: int) -> Fault:
        return settlement_fault(
            "s000-antewin",
            "ante-odds",
            "ante flush",
            FoundBy.VECTOR,
            settled(stake, 4 * stake),
            settled(stake, 2 * stake),
        )

    assert fault(100) == fault(250)
    assert (fault(100).wager, fault(100).field) == ("ante", "")
    corpus = msgspec.structs.replace(fault(100), found_by=FoundBy.CORPUS)
    assert corpus != fault(100) and corpus.cause == fault(100).cause  # one cause, two finders


def test_no_message_text_is_parsed() -> None:
    """A cause is its key: the model holds no pattern to read a message by."""
    source = Path(model.__file__).read_text()
    assert "import re" not in source and "re.compile" not in source


@pytest.fixture()
def built() -> dict[str, Any]:
    """A results file built from every kind of outcome (tests/test_results_schema.py)."""
    from tests.test_results_schema import built_results

    return built_results()


def test_every_section_a_check_names_is_made_by_the_results() -> None:
    """A check's share of a section is merged by the merge registered with it: none is
    lost, and the schema is the model's (python -m harness.results.model)."""
    from harness.checks import CHECKS, MERGES

    named = {c.section for c in CHECKS.values() if c.section} | {"corpus"}
    assert named == set(MERGES)
    assert model.main(["--check"]) == 0, "run: python -m harness.results.model"


def test_a_profile_without_an_aa_bonus_writes_its_none() -> None:
    """Its mathematics states no AA Bonus edge (null) and no rows ([]), as the schema
    requires of a computed section; a failed computation states neither."""
    data = json.loads(SAMPLES[0].read_text())
    data["math"] = {**data["math"], "aa_bonus_edge": None, "aa_bonus_rows": []}
    written = Results.from_json(data).to_json()
    assert written["math"]["aa_bonus_edge"] is None and written["math"]["aa_bonus_rows"] == []
    errors = sorted(validator("results.schema.json").iter_errors(written), key=str)
    assert not errors, errors[0]
    data["math"] = {
        "status": "error",
        "reason": "x",
        "claims": [],
        "simulation": {"status": "not_tested"},
    }
    assert "aa_bonus_edge" not in Results.from_json(data).to_json()["math"]


def test_a_file_of_schema_7_groups_its_failures_by_the_causes_it_recorded() -> None:
    """Schema 5 to 7 recorded each failure's cause (the hands settled otherwise, or the
    message's shape): read as recorded, an archive's failures group as they did."""

    def failure(item: str, kind: str, cause: dict[str, Any]) -> dict[str, Any]:
        base = {"kind": "implementation", "clause": "s000-antewin", "item": item}
        return {**base, "item_kind": kind, "message": "m", "cause": cause}

    flush = {"kind": "implementation", "clause": "s000-antewin", "shape": "",
             "settled": [{"hand": "flush", "fields": ["ante"]}]}  # fmt: skip
    shape = {"kind": "implementation", "clause": "s000-antewin", "shape": "card # twice"}
    data = {
        "schema_version": 7,
        "verdict": "FAIL",
        "failures": [
            failure("s000-antewin/v1", "vector", flush),
            failure("s000-antewin/differential:x", "differential", flush),
            failure("s000-antewin/deck", "check", shape),
        ],
    }
    faults = [f.key() for f in Results.from_json(data).failures]
    assert faults[0].cause == faults[1].cause != faults[2].cause
    assert (faults[0].kind, faults[0].detail) == ("settled-otherwise", "flush: ante")
    assert [f.found_by for f in faults] == [FoundBy.VECTOR, FoundBy.DIFFERENTIAL, FoundBy.CHECK]
