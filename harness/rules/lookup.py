"""The look-up-table evaluator: the same strengths as harness/rules/evaluator.py, in a
few table reads, for loops that evaluate a hand per row of a log (harness/audit/kernel.py).

A hand is two 64-bit words, built card by card without an array: its rank counts, one
4-bit field per rank, and its suits' rank masks, one 16-bit field per suit. With at most
seven cards a flush excludes quads and a full house (harness/rules/evaluator.py
`_strength`), so a suit's 13-bit mask with five cards or more names the hand by
FLUSH[mask]; else the rank counts do, by RANKS[index], where index numbers every way of
dealing n cards over 13 ranks (at most 4 of a rank) in order: n's offset, plus for each
rank the ways the ranks above it could hold the cards left had this rank held fewer.

The tables are built at import: their layout by a compiled loop of this module, every
strength by the evaluator's own batch function, called from Python so that what it
computes is always the evaluator's current code (a compiled loop calling another
module's would keep that module's code as it was when it was cached). There is one
definition of a hand's strength; tests/test_lookup.py holds the two equal on every
five-card hand and (slow tier) on all 133,784,560 seven-card hands.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from harness.rules.evaluator import evaluate_each

MOST_CARDS = 7
NO_HAND = -1  # the strength of cards that are not a hand: a card repeated
NO_CARD = 255
NIBBLES = 0x1111111111111  # one in each rank's count field
TOO_MANY = 0x8888888888888  # a count field's top bit: set by adding 3 to 5 or more


class Tables(NamedTuple):
    """The evaluator's tables (numba passes a named tuple of arrays as one argument)."""

    flush: npt.NDArray[np.int32]  # by a suit's 13-bit mask: its strength, 0 under 5 cards
    ranks: npt.NDArray[np.int32]  # by rank-count index: the strength ignoring suits
    step: npt.NDArray[np.int32]  # [rank, cards left, count]: that count's start index
    offset: npt.NDArray[np.int32]  # [cards]: the first index of hands of that many


@njit(cache=True)
def _layout() -> tuple[
    npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.uint8], npt.NDArray[np.int64]
]:
    """The tables' shape, no strength yet: `step` and `offset`, a hand of each rank
    count of 5 to 7 cards (suits dealt in turn, so never five of one: no flush), in
    index order, and each index's."""
    # ways[i, k]: the rank counts of ranks i..12 that hold k cards, at most 4 a rank
    ways = np.zeros((14, MOST_CARDS + 1), np.int64)
    ways[13, 0] = 1
    for i in range(12, -1, -1):
        for k in range(MOST_CARDS + 1):
            for c in range(min(4, k) + 1):
                ways[i, k] += ways[i + 1, k - c]
    step = np.zeros((13, MOST_CARDS + 1, 5), np.int32)
    for i in range(13):
        for k in range(MOST_CARDS + 1):
            before = 0
            for c in range(5):
                step[i, k, c] = before
                if c <= k:
                    before += ways[i + 1, k - c]
    offset = np.zeros(MOST_CARDS + 1, np.int32)
    for n in range(1, MOST_CARDS + 1):
        offset[n] = offset[n - 1] + ways[0, n - 1]
    total = ways[0, 5] + ways[0, 6] + ways[0, 7]
    hands = np.full((total, MOST_CARDS), NO_CARD, np.uint8)  # a hand of 5 or 6: no 7th
    where = np.empty(total, np.int64)
    h = 0
    for n in range(5, MOST_CARDS + 1):
        for index in range(ways[0, n]):  # each rank count of n cards, from its index
            left, k, dealt = index, n, 0
            for i in range(13):
                c = 0
                while c < min(4, k) and step[i, k, c + 1] <= left:
                    c += 1
                for _ in range(c):
                    hands[h, dealt] = 4 * i + dealt % 4
                    dealt += 1
                left -= step[i, k, c]
                k -= c
            where[h] = offset[n] + index
            h += 1
    return step, offset, hands, where


def _build() -> Tables:
    """The tables, their strengths the evaluator's own (`evaluate_each`, from Python:
    so its compiled code, and its cache, stay the evaluator's)."""
    step, offset, hands, where = _layout()
    ranks = np.zeros(where[-1] + 1, np.int32)  # no strength for fewer than 5 cards
    cards = (hands != NO_CARD).sum(axis=1)
    for n in range(5, MOST_CARDS + 1):
        ranks[where[cards == n]] = evaluate_each(hands[cards == n, :n])
    flush = np.zeros(1 << 13, np.int32)
    masks = np.arange(1 << 13)
    bits = np.array([bin(m).count("1") for m in masks])
    for n in range(5, MOST_CARDS + 1):  # a suit's cards among seven: 5 to 7
        chosen = masks[bits == n]
        suited = np.array([[4 * r for r in range(13) if m >> r & 1] for m in chosen], np.uint8)
        flush[chosen] = evaluate_each(suited)
    return Tables(flush, ranks, step, offset)


TABLES = _build()


@njit(cache=True)
def add_card(counts: np.uint64, suits: np.uint64, card: int) -> tuple[np.uint64, np.uint64]:
    """A hand with one card more (card = 4 * rank + suit, harness/rules/cards.py)."""
    rank, suit = card >> 2, card & 3
    return counts + np.uint64(1 << (4 * rank)), suits | np.uint64(1 << (16 * suit + rank))


@njit(cache=True)
def strength(counts: np.uint64, suits: np.uint64, cards: int, tables: Tables) -> int:
    """The strength of a hand of `cards` cards (at most 7) given its two words; NO_HAND
    where a rank is held five times (a card repeated: a fault a loop reports elsewhere,
    never an index past the tables)."""
    if (counts + np.uint64(3 * NIBBLES)) & np.uint64(TOO_MANY):
        return NO_HAND
    for s in range(4):
        best = tables.flush[(suits >> np.uint64(16 * s)) & np.uint64(0x1FFF)]
        if best:
            return int(best)
    index = tables.offset[cards]
    left = cards
    for i in range(13):
        c = int((counts >> np.uint64(4 * i)) & np.uint64(15))
        if c > left:
            return NO_HAND
        index += tables.step[i, left, c]
        left -= c
    return int(tables.ranks[index])
