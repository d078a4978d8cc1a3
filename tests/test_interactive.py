"""What the game shows, refuses and remembers: the reading of card forms, the refusal
vectors' loading, and the battery against games that differ from the reference.

The mutants of tests/test_mutants.py prove each check kills its fault; these tests
prove the parts a mutant cannot: the forms a leak is read in, what is not read as a
card, lint errors naming file and line, and what is not tested and why.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from harness.checks.hiding import cards_named
from harness.errors import SpecError
from harness.rules.catalogs import clause_index, load_catalogs
from harness.vectors.refusals import REFUSAL_DIR, load_all_refusals, load_refusal_file
from tests.runs import certify


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("Qs", {"Qs"}),
        ("qs", {"Qs"}),
        ("dealer=QsQd", {"Qs", "Qd"}),
        ("r-17:Js", {"Js"}),
        ("10s", {"Ts"}),
        ("Q♠ and ♥7", {"Qs", "7h"}),
        ("the Queen of Spades", {"Qs"}),
        ("seven of clubs, ten hearts", {"7c", "Th"}),
        ("\U0001f0ad", {"Qs"}),  # PLAYING CARD QUEEN OF SPADES (the knight is skipped)
        ("\U0001f0d1", {"Ac"}),
    ],
)
def test_a_card_is_read_in_any_form(text: str, cards: set[str]) -> None:
    assert cards_named(text) == cards


@pytest.mark.parametrize(
    "text",
    ["same as before", "round r12 waits for seats [1, 2]", "ad hoc", "ah well", "a3f9c2d1e0"],
)
def test_words_and_ids_are_not_read_as_cards(text: str) -> None:
    assert cards_named(text) == set()


def test_the_bundled_refusals_load_and_cover_every_profile() -> None:
    refusals = load_all_refusals(clause_index(load_catalogs()))
    assert len(refusals) >= 40
    for profile in ("standard", "source-001", "source-002", "source-003", "source-004"):
        assert sum(profile in r.profiles for r in refusals) >= 37


def _write(tmp_path: Path, change: dict[str, Any]) -> Path:
    """The bundled battery with its first test changed."""
    import yaml

    doc = yaml.safe_load((REFUSAL_DIR / "bad-input.yaml").read_text())
    doc["groups"][0]["tests"][0].update(change)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def test_an_unknown_placeholder_names_its_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, {"params": {"seats": [{"seat": 1, "ante": "$antes"}]}})
    with pytest.raises(SpecError, match=r"unknown placeholder '\$antes'") as err:
        load_refusal_file(path, clause_index(load_catalogs()))
    assert err.value.line is not None
    assert "bet-zero-ante" in path.read_text().splitlines()[err.value.line - 1]


def test_a_code_protocol_v1_lacks_is_a_schema_error(tmp_path: Path) -> None:
    path = _write(tmp_path, {"refuse_with": ["nope"]})
    with pytest.raises(SpecError, match="refuse_with"):
        load_refusal_file(path, clause_index(load_catalogs()))


def test_a_clause_that_does_not_apply_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, {"clauses": ["s000-r2"]})  # nothing for source-001 ... 004
    with pytest.raises(SpecError, match="exactly one cited clause must apply"):
        load_refusal_file(path, clause_index(load_catalogs()))


def _items(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["name"]: i for c in results["clauses"] for i in c["items"]}


TEXT_ITEMS = ["request-not-json", "request-not-an-object", "request-without-op"]


def test_text_refusals_are_not_tested_in_process_and_pass_over_json_lines(tmp_path: Path) -> None:
    """A python: game gets Python objects, never text: those items are not tested,
    with what closes them; the same class served over JSON Lines passes them."""
    selection = ["-k", " or ".join(TEXT_ITEMS)]
    code, results = certify(tmp_path / "a", "--adapter", "python:tests.games:Seeded", *selection)
    items = _items(results)
    assert code == 2
    for name in TEXT_ITEMS:
        item = items[f"s000-r2/{name}"]
        assert item["status"] == "not_tested" and "http://" in item["needs"]
    served = f"subprocess:{sys.executable} -m harness.reference --game tests.games:Seeded"
    _, results = certify(tmp_path / "b", "--adapter", served, *selection)
    items = _items(results)
    assert [items[f"s000-r2/{n}"]["status"] for n in TEXT_ITEMS] == ["pass"] * 3


def test_one_seat_games_leave_the_two_seat_refusals_not_tested(tmp_path: Path) -> None:
    selection = "act-twice or seat-beyond-the-table or seats-too-many"
    code, results = certify(tmp_path, "--adapter", "python:tests.games:OneSeat", "-k", selection)
    items = _items(results)
    assert code == 2
    assert items["s000-r5/act-twice"]["status"] == "not_tested"
    assert items["s000-r5/act-twice"]["needs"] == "capability seats:2"
    assert items["s000-r2/seat-beyond-the-table"]["status"] == "pass"
    assert items["s000-r2/seats-too-many"]["status"] == "pass"


def test_a_refusal_id_a_settlement_vector_has_is_refused() -> None:
    """Items are named clause/id whatever the kind of vector: an id may stand once."""
    import dataclasses

    from harness.vectors.settlement import load_all_vectors, verify_unique_ids

    index = clause_index(load_catalogs())
    vectors, refusals = load_all_vectors(index), load_all_refusals(index)
    verify_unique_ids([*vectors, *refusals])
    twin = dataclasses.replace(refusals[0], id=vectors[0].id)
    with pytest.raises(SpecError, match="already used at") as err:
        verify_unique_ids([*vectors, twin])
    assert err.value.line == refusals[0].line
