"""Failures grouped by cause, and each failing round drawn as cards and money
(harness/report/failures.py, docs/report.md)."""

from __future__ import annotations

from typing import Any

from harness.report.failures import cause_of, group_failures, round_view

CARDS = {
    "seats": {"1": ["7d", "Qd"]},
    "dealer": ["Kh", "Ks"],
    "flop": ["6d", "Td", "4c"],
    "turn": "8d",
    "river": "9c",
}


def _vector(item: str, stake: int, paid: int, clause: str = "s000-antewin") -> dict[str, Any]:
    """A settlement vector's failure: a flush's ante paid `paid` where the rules pay more."""

    def seat(returned: int) -> dict[str, Any]:
        return {"action": "call", "hand": "flush", "ante": [stake, returned], "call": [200, 400]}

    return {
        "kind": "implementation",
        "clause": clause,
        "item": f"{clause}/{item}",
        "item_kind": "vector",
        "message": f"seat 1 ante [{stake}, {paid}], expected [{stake}, {3 * stake}]",
        "expected": {"board": [], "seats": {"1": seat(3 * stake)}},
        "actual": {"board": [], "seats": {"1": seat(paid)}},
        "evidence": {"cards": CARDS},
    }


def test_failures_alike_but_for_numbers_and_finder_share_a_cause() -> None:
    differential = {
        **_vector("differential:ante-odds", 100, 200),
        "item_kind": "differential",
        "expected": {"action": "call", "hand": "flush", "ante": [100, 300]},
        "actual": {"action": "call", "hand": "flush", "ante": [100, 200]},
        "message": "ante-odds (ante flush): 354 seat-hand(s) settled otherwise",
    }
    found = [_vector("q-flush", 100, 200), _vector("nq-flush", 5000, 10000), differential]
    (cause,) = group_failures(found)
    assert cause.key == (
        "implementation",
        "s000-antewin",
        "flush: ante settled otherwise than the rules",
    )
    assert [f["item"] for f in cause.members] == [f["item"] for f in found]


def test_another_clause_or_another_wager_is_another_cause() -> None:
    call_wrong = _vector("q-flush-call", 100, 300)
    call_wrong["actual"]["seats"]["1"]["call"] = [200, 200]
    found = [_vector("a", 100, 200), _vector("b", 100, 200, "s000-sidebet"), call_wrong]
    assert len(group_failures(found)) == 3


def test_messages_group_by_shape_with_cards_numbers_and_quoted_values_out() -> None:
    def check(message: str) -> dict[str, Any]:
        return {"kind": "implementation", "clause": "s000-r1", "message": message}

    a = check("deck 3 of 20,000 in the game's shuffle reply holds '8h' twice")
    b = check("deck 17 of 20,000 in the game's shuffle reply holds 'Qs' twice")
    c = check("deck 3 of 20,000 in the game's shuffle reply lacks 'Qs'")
    assert cause_of(a) == cause_of(b) != cause_of(c)
    assert "game's" in cause_of(a)[2]  # an apostrophe is not a quoted value


def test_a_round_view_from_each_shape_failures_record() -> None:
    view = round_view(_vector("q-flush", 100, 200))
    assert view is not None and view.board == "6d Td 4c 8d 9c" and view.dealer == "Kh Ks"
    (seat,) = view.seats
    assert (seat.seat, seat.hole) == ("1", "7d Qd") and seat.differs("ante")
    assert not seat.differs("call")
    simulation = {
        "expected": [[100, 300], [200, 400]],
        "actual": [[100, 200], [200, 400]],
        "evidence": {"seat": 1, "cards": CARDS},
    }
    view = round_view(simulation)
    assert view is not None and view.seats[0].hole == "7d Qd" and view.seats[0].seat == "1"
    assert round_view({"expected": "a hello reply", "actual": None}) is None
    hostile = {"expected": {"ante": [1, 2]}, "actual": 7, "evidence": {"cards": {"flop": "x"}}}
    assert round_view(hostile) is not None  # odd shapes draw what they can, never raise
