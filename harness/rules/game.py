"""The game's vocabulary, shared by the rules oracle and the reference game.

Only records live here, no rules: the oracle and the reference implementation
each apply the rules in their own code, so that one cannot silently inherit the
other's bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum, unique

from harness.errors import InvalidCards
from harness.rules.cards import Card, verify_distinct

MAX_SEATS = 7


@unique
class Action(StrEnum):
    """The player's one decision after the flop."""

    CALL = "call"
    FOLD = "fold"


@dataclass(frozen=True)
class Wager:
    """One wager's money: the stake and what goes back to the player (0 = lost, stake = push)."""

    stake: int
    returned: int

    def to_json(self) -> dict[str, int]:
        return {"stake": self.stake, "returned": self.returned}


@dataclass(frozen=True)
class Deal:
    """Every card of one round: each seat's hole cards, the dealer's, and the board."""

    seats: dict[int, tuple[Card, Card]]
    dealer: tuple[Card, Card]
    flop: tuple[Card, Card, Card]
    turn: Card
    river: Card

    @property
    def board(self) -> tuple[Card, ...]:
        return (*self.flop, self.turn, self.river)

    def all_cards(self) -> list[Card]:
        cards = [c for seat in sorted(self.seats) for c in self.seats[seat]]
        return [*cards, *self.dealer, *self.board]

    def verify(self) -> None:
        """Raise InvalidCards unless this deal could come from one 52-card deck."""
        for seat in self.seats:
            if not 1 <= seat <= MAX_SEATS:
                raise InvalidCards(f"seat {seat} is not in 1..{MAX_SEATS}")
        verify_distinct(self.all_cards())
