"""Failures grouped by cause, and each failing round drawn as cards and money
(harness/report/failures.py, docs/report.md)."""

from __future__ import annotations

from typing import Any

import msgspec

from harness.report.failures import cause_title, cause_what, group_failures, round_view
from harness.results.model import Failure, FailureKind, Fault, FoundBy, differing, settlement_fault

CARDS = {
    "seats": {"1": ["7d", "Qd"]},
    "dealer": ["Kh", "Ks"],
    "flop": ["6d", "Td", "4c"],
    "turn": "8d",
    "river": "9c",
}


def _failure(**fields: Any) -> Failure:
    """A failure of clause s000-r1 with `fields` as given."""
    base: dict[str, Any] = {
        "kind": FailureKind.IMPLEMENTATION,
        "clause": "s000-r1",
        "item": "s000-r1/item",
        "item_kind": "check",
    }
    return Failure(**{**base, **fields})


def _vector(
    item: str,
    stake: int,
    paid: int,
    clause: str = "s000-antewin",
    found_by: FoundBy = FoundBy.VECTOR,
    kind: str = "ante-odds",
) -> Failure:
    """A settlement vector's failure: a flush's ante paid `paid` where the rules pay more."""

    def seat(returned: int) -> dict[str, Any]:
        return {"action": "call", "hand": "flush", "ante": [stake, returned], "call": [200, 400]}

    expected = {"board": [], "seats": {"1": seat(3 * stake)}}
    actual = {"board": [], "seats": {"1": seat(paid)}}
    return _failure(
        clause=clause,
        item=f"{clause}/{item}",
        item_kind="vector",
        message=f"seat 1 ante [{stake}, {paid}], expected [{stake}, {3 * stake}]",
        expected=expected,
        actual=actual,
        evidence={"cards": CARDS},
        fault=settlement_fault(clause, kind, "ante flush", found_by, expected, actual),
    )


def test_failures_alike_but_for_numbers_and_finder_share_a_cause() -> None:
    expected = {"action": "call", "hand": "flush", "ante": [100, 300]}
    actual = {"action": "call", "hand": "flush", "ante": [100, 200]}
    differential = _failure(
        clause="s000-antewin",
        item="s000-antewin/differential:ante-odds",
        item_kind="finding",
        expected=expected,
        actual=actual,
        message="ante-odds (ante flush): 354 seat-hand(s) settled otherwise",
        fault=settlement_fault(
            "s000-antewin", "ante-odds", "ante flush", FoundBy.DIFFERENTIAL, expected, actual
        ),
    )
    found = [_vector("q-flush", 100, 200), _vector("nq-flush", 5000, 10000), differential]
    (group,) = group_failures(found)
    assert (
        cause_what(group.cause) == "ante-odds (ante flush): ante settled otherwise than the rules"
    )
    assert group.members == found
    assert cause_title(group) == (
        "s000-antewin: ante-odds (ante flush): ante settled otherwise than the rules "
        "(3 failures, found by vector, differential)"
    )


def test_another_clause_or_another_wager_is_another_cause() -> None:
    call_wrong = _vector("q-flush-call", 100, 300)
    call_wrong.actual["seats"]["1"]["call"] = [200, 200]
    call_wrong = msgspec.structs.replace(
        call_wrong,
        fault=settlement_fault(
            "s000-antewin",
            "call-odds",
            "call flush",
            FoundBy.VECTOR,
            call_wrong.expected,
            call_wrong.actual,
        ),
    )
    found = [_vector("a", 100, 200), _vector("b", 100, 200, "s000-sidebet"), call_wrong]
    groups = group_failures(found)
    assert len(groups) == 3
    assert cause_what(groups[2].cause) == (
        "call-odds (call flush): call settled otherwise than the rules"
    )


def test_failures_group_by_their_key_never_by_their_words() -> None:
    """Two messages alike but for a card are one cause only when their key says so; a
    file that recorded no key (schema 7 and earlier) gives each failure its own."""
    fault = Fault(clause="s000-r1", kind="deck-integrity", found_by=FoundBy.CHECK)
    a = _failure(message="deck 3 holds '8h' twice", fault=fault)
    b = _failure(message="a message in other words", fault=fault)
    c = _failure(message="deck 3 lacks 'Qs'", fault=msgspec.structs.replace(fault, detail="lacks"))
    first, second = group_failures([a, b, c])
    assert first.members == [a, b] and second.members == [c]
    assert cause_title(second) == "s000-r1: deck-integrity (lacks) (1 failure, found by check)"
    old = [_failure(message="same"), _failure(message="same", item="s000-r1/other")]
    assert len(group_failures(old)) == 2


def test_a_round_view_from_each_shape_failures_record() -> None:
    view = round_view(_vector("q-flush", 100, 200))
    assert view is not None and view.board == "6d Td 4c 8d 9c" and view.dealer == "Kh Ks"
    (seat,) = view.seats
    assert (seat.seat, seat.hole) == ("1", "7d Qd")
    assert differing(seat.expected, seat.actual) == ["ante"]
    simulation = _failure(
        expected=[[100, 300], [200, 400]],
        actual=[[100, 200], [200, 400]],
        evidence={"seat": 1, "cards": CARDS},
    )
    view = round_view(simulation)
    assert view is not None and view.seats[0].hole == "7d Qd" and view.seats[0].seat == "1"
    assert round_view(_failure(expected="a hello reply", actual=None)) is None
    hostile = _failure(expected={"ante": [1, 2]}, actual=7, evidence={"cards": {"flop": "x"}})
    assert round_view(hostile) is not None  # odd shapes draw what they can, never raise
