"""Deck mutants: the shuffle or the deal is broken (one deck of 52, dealt in order)."""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.reference.engine import ReferenceGame
from harness.reference.mutants.registry import Family, mutant
from harness.reference.rounds import Dealt


@mutant(
    "swaps-turn-and-river",
    profile="standard",
    clause="s000-r4",
    family=Family.DECK,
    also=("s000-r6",),  # the turn and river are the board's completion: r6 judges the deal
)
class SwapsTurnAndRiver(ReferenceGame):
    """The stacked turn and river are dealt in the wrong order."""

    def _stacked_deal(self, cards: Any, order: list[int]) -> Dealt:
        holes, dealer, flop, turn, river = super()._stacked_deal(cards, order)
        return holes, dealer, flop, river, turn


@mutant("duplicate-card-in-shuffle", profile="standard", clause="s000-r1", family=Family.DECK)
class DuplicateCardInShuffle(ReferenceGame):
    """One deck in ten repeats a card (a broken shuffle)."""

    def shuffled_decks(self, count: int) -> npt.NDArray[np.uint8]:
        decks = super().shuffled_decks(count)
        for d in range(count):
            if secrets.randbelow(10) == 0:
                decks[d, 51] = decks[d, 0]
        return decks


@mutant("deals-a-card-twice", profile="standard", clause="s000-r1", family=Family.DECK, fast=True)
class DealsACardTwice(ReferenceGame):
    """One round in five repeats the deck's first card as its sixteenth: at a full table
    the dealer's second card is the first seat's first card (a broken deal, silent)."""

    def shuffled_deck(self) -> list[int]:
        deck = super().shuffled_deck()
        if secrets.randbelow(5) == 0:
            deck[15] = deck[0]
        return deck
