"""Card notation and indices (protocol v1: rank 23456789TJQKA + suit cdhs, index 4*rank+suit)."""

from __future__ import annotations

import pytest

from harness.errors import InvalidCards
from harness.rules.cards import FULL_DECK, Rank, Suit, parse_card, parse_cards, verify_distinct


def test_indices_follow_the_protocol() -> None:
    assert parse_card("2c").index == 0
    assert parse_card("2d").index == 1
    assert parse_card("As").index == 51
    assert parse_card("Td").index == 4 * Rank.TEN + Suit.DIAMONDS


def test_round_trip_of_every_card() -> None:
    assert [str(c) for c in FULL_DECK] == [str(parse_card(str(c))) for c in FULL_DECK]
    assert len({str(c) for c in FULL_DECK}) == 52


@pytest.mark.parametrize("bad", ["", "A", "1s", "Ax", "as", "10h", "Ass", None, 5])
def test_bad_notation_is_refused_and_quoted(bad: object) -> None:
    with pytest.raises(InvalidCards, match=r"got|bad card"):
        parse_card(bad)


def test_parse_cards_accepts_lists_and_strings() -> None:
    assert parse_cards("AsKd") == parse_cards(["As", "Kd"]) == parse_cards("As Kd")


def test_duplicate_cards_are_refused() -> None:
    with pytest.raises(InvalidCards, match="As"):
        verify_distinct(parse_cards("As Kd As"))
