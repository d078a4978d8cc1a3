"""Cards in protocol notation: rank `23456789TJQKA` + suit `cdhs`.

A card's index is `4*rank + suit` (`2c`=0 ... `As`=51), the byte form used by the
`shuffle` op and by the numba evaluator.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum, unique

from harness.errors import InvalidCards

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
DECK_SIZE = 52


@unique
class Rank(IntEnum):
    """Card ranks, valued 0 (deuce) to 12 (ace) so that `4*rank + suit` is the index."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12


@unique
class Suit(IntEnum):
    """Suits in protocol order: clubs, diamonds, hearts, spades."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3


@dataclass(frozen=True, order=True)
class Card:
    """One card; orders by index, prints as `As`."""

    index: int

    def __post_init__(self) -> None:
        if not isinstance(self.index, int) or not 0 <= self.index < DECK_SIZE:
            raise InvalidCards(f"card index must be an int in 0..51, got {self.index!r}")

    def __hash__(self) -> int:
        # The index itself: consistent with equality, and far cheaper than the generated
        # hash of a one-field tuple, which every set of cards in a deal would pay.
        return self.index

    @property
    def rank(self) -> Rank:
        return Rank(self.index // 4)

    @property
    def suit(self) -> Suit:
        return Suit(self.index % 4)

    def __str__(self) -> str:
        return RANK_CHARS[self.index // 4] + SUIT_CHARS[self.index % 4]

    def __repr__(self) -> str:
        return str(self)


def parse_card(text: object) -> Card:
    """Parse `As`-style notation; the error quotes the bad input."""
    known = _BY_TEXT.get(text) if isinstance(text, str) else None
    if known is not None:
        return known
    if not isinstance(text, str) or len(text) != 2:
        raise InvalidCards(f"a card is two characters like 'As' or 'Td', got {text!r}")
    rank, suit = RANK_CHARS.find(text[0]), SUIT_CHARS.find(text[1])
    if rank < 0 or suit < 0:
        raise InvalidCards(
            f"bad card {text!r}: rank must be one of {RANK_CHARS!r}, suit one of {SUIT_CHARS!r}"
        )
    return Card(4 * rank + suit)


def parse_cards(texts: Iterable[object] | str) -> tuple[Card, ...]:
    """Parse a list of cards, or a string of them ('AsKd' or 'As Kd')."""
    if isinstance(texts, str):
        compact = texts.replace(" ", "").replace(",", "")
        if len(compact) % 2:
            raise InvalidCards(f"odd number of characters in card string {texts!r}")
        texts = [compact[i : i + 2] for i in range(0, len(compact), 2)]
    return tuple(parse_card(t) for t in texts)


def format_cards(cards: Iterable[Card]) -> list[str]:
    return [_TEXT_OF[c.index] for c in cards]


def verify_distinct(cards: Iterable[Card]) -> None:
    """Raise InvalidCards if any card appears twice (one 52-card deck has each once)."""
    cards = list(cards)
    if len(set(cards)) == len(cards):
        return
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise InvalidCards(f"card {card} appears more than once")
        seen.add(card)


FULL_DECK: tuple[Card, ...] = tuple(Card(i) for i in range(DECK_SIZE))
# Every card by its notation and back, by lookup: every request and reply carries dozens.
_BY_TEXT: dict[str, Card] = {str(c): c for c in FULL_DECK}
_TEXT_OF: list[str] = [str(c) for c in FULL_DECK]
