"""Poker hand evaluation: the best five of five to seven cards.

One evaluator, written once in C (harness/rules/_evaluator.h) and compiled ahead of
time, serves everything: the exact game mathematics' census kernel, which evaluates
billions of hands, the batch calls here (`evaluate_each`), and the scalar API
(`best_hand`) of the oracle and the reference game. Its numba twin
(harness/rules/evaluator_jit.py) runs where no C compiler was found, or on
CHCERT_KERNEL=numba (harness/compiled.py). Both are proved exhaustively (all 133,784,560
seven-card hands) and cross-checked against the independent eval7 library
(tests/test_evaluator.py), and held equal to each other (tests/test_compiled.py).

A strength is an int: `category << 20` followed by five 4-bit ranks (0 = deuce ...
12 = ace) in order of significance, so a larger strength is a better hand and equal
strengths tie. Royal flush is its own category (9) above straight flush (8).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import IntEnum, unique
from itertools import combinations
from types import ModuleType

import numpy as np
import numpy.typing as npt

from harness import compiled
from harness.rules.cards import Card, Rank, verify_distinct


@unique
class Category(IntEnum):
    """Hand categories in rank order; `wire` is the protocol string."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def wire(self) -> str:
        return self.name.lower()

    @classmethod
    def from_wire(cls, text: str) -> Category:
        try:
            return cls[text.upper()]
        except KeyError:
            allowed = ", ".join(c.wire for c in cls)
            raise ValueError(f"unknown hand category {text!r}; allowed: {allowed}") from None


CATEGORY_SHIFT = 20

# ------------------------------------------------------------------- batch API


def _built() -> ModuleType | None:
    return compiled.extension("harness.rules._evaluator")


def _jit() -> ModuleType:
    """The numba twin, imported only when it runs (numba costs most of a second)."""
    from harness.rules import evaluator_jit

    return evaluator_jit


def evaluate_each(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """Strengths of many hands: `hands` is (n, k) card indices, 5 <= k <= 7."""
    build = _built()
    if build is None:
        return _jit().evaluate_each(hands)  # type: ignore[no-any-return]
    if hands.dtype != np.uint8 and hands.size and not 0 <= hands.min() <= hands.max() < 52:
        raise ValueError("card indices outside 0..51")  # not cast into range
    hands = np.ascontiguousarray(hands, np.uint8)
    out = np.empty(hands.shape[0], np.int32)
    build.evaluate(hands, hands.shape[1], out)
    return out


def evaluate_batch(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """`evaluate_each`, on threads where numba runs (its twin's start-up of threads pays
    from some hundred thousand hands; the C evaluator needs none)."""
    if _built() is None:
        return _jit().evaluate_batch(hands)  # type: ignore[no-any-return]
    return evaluate_each(hands)


def count_all_seven_card_hands() -> npt.NDArray[np.int64]:
    """Category counts over all C(52,7) seven-card hands, by exhaustive enumeration
    (the slow tier's proof of the evaluator): two threads, the lowest cards dealt
    alternately, since the work falls steeply with the lowest card."""
    build = _built()
    if build is None:
        return _jit().count_all_seven_card_hands()  # type: ignore[no-any-return]

    def count(lowest: range) -> npt.NDArray[np.int64]:
        tally = np.empty(10, np.int64)
        build.count_seven_card_hands(bytes(lowest), tally)
        return tally

    with ThreadPoolExecutor(max_workers=2) as pool:
        return sum(pool.map(count, (range(0, 46, 2), range(1, 46, 2))), np.zeros(10, np.int64))


# ------------------------------------------------------------------ scalar API


def category_of(strength: int) -> Category:
    return Category(strength >> CATEGORY_SHIFT)


def top_rank_of(strength: int) -> Rank:
    """The most significant rank of a strength: the pair's rank for a pair, and so on."""
    return Rank((strength >> 16) & 0xF)


def strength_of(cards: Sequence[Card]) -> int:
    """Strength of the best five of 5 to 7 distinct cards."""
    verify_distinct(cards)
    return strength_of_distinct(cards)


def strength_of_distinct(cards: Sequence[Card]) -> int:
    """`strength_of` for cards already known to be distinct (a verified deal's)."""
    if not 5 <= len(cards) <= 7:
        raise ValueError(f"a poker hand is evaluated from 5 to 7 cards, got {len(cards)}")
    build = _built()
    if build is None:
        return int(_jit()._strength_of(np.array([c.index for c in cards], np.uint8)))
    return build.strength(bytes(c.index for c in cards))  # type: ignore[no-any-return]


@dataclass(frozen=True, order=True)
class HandValue:
    """A made hand: orders by strength only, carries the five cards that play."""

    strength: int
    category: Category = field(compare=False)
    cards: tuple[Card, ...] = field(compare=False)


def best_hand(cards: Iterable[Card]) -> HandValue:
    """The best five-card hand from 5 to 7 cards, with the five cards used."""
    pool = tuple(cards)
    strength = strength_of(pool)
    for five in combinations(pool, 5):
        if strength_of(five) == strength:
            return HandValue(strength, category_of(strength), tuple(sorted(five, reverse=True)))
    raise AssertionError("unreachable: some five cards make the best hand")  # pragma: no cover


def minimum_strength(category: Category, rank: Rank) -> int:
    """The weakest hand of `category` led by `rank` (e.g. a pair of fours, worst kickers)."""
    return (int(category) << CATEGORY_SHIFT) | (int(rank) << 16)
