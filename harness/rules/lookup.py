"""The look-up-table evaluator: the same strengths as harness/rules/evaluator.py, in a
few table reads, for loops that evaluate a hand per row of a log (harness/audit/kernel.py).

A hand is two 64-bit words, built card by card without an array: its rank counts, one
4-bit field per rank, and its suits' rank masks, one 16-bit field per suit. With at most
seven cards a flush excludes quads and a full house (harness/rules/evaluator.py
`_strength`), so a suit's 13-bit mask with five cards or more names the hand by
FLUSH[mask]; else the rank counts do, by RANKS[slot]. Every rank-count word of five to
seven cards (73,775 of them) has a slot of its own, found by a perfect hash ("hash and
displace"): one multiplicative hash of the word picks a bucket, another a slot, which
the bucket's displacement moves to a free one. Two table reads of some 600 kB in all,
against a walk over the thirteen ranks: about eight times faster here.

The tables are built at import: the words and the displacements by compiled loops of
this module, every strength by the evaluator's own batch function, called from Python
so that what it computes is always the evaluator's current code (a compiled loop
calling another module's would keep that module's code as it was when it was cached).
There is one definition of a hand's strength; tests/test_lookup.py holds the two equal
on every five-card hand and (slow tier) on all 133,784,560 seven-card hands.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from harness.rules.evaluator import evaluate_each

MOST_CARDS = 7
NO_HAND = -1  # the strength of cards that are not a hand of 5 to 7: a card repeated
NO_CARD = 255
NIBBLES = 0x1111111111111  # one in each rank's count field
TOO_MANY = 0x8888888888888  # a count field's top bit: set by adding 3 to 5 or more
CARDS_SHIFT = 48  # words * NIBBLES: the count fields' sum (the cards) in bits 48..51
# The perfect hash: two odd 64-bit multipliers (the golden ratio's and another's
# fractional bits), 2^15 buckets and 2^17 slots (the 73,775 words fill 56%).
BUCKET_HASH = np.uint64(0x9E3779B97F4A7C15)
SLOT_HASH = np.uint64(0xC2B2AE3D27D4EB4F)
BUCKET_BITS = 15
SLOT_BITS = 17


class Tables(NamedTuple):
    """The evaluator's tables (numba passes a named tuple of arrays as one argument). The
    hash's multipliers and sizes travel with them, not compiled into the loops that read
    them: a loop another module cached keeps reading tables built with another hash
    right."""

    flush: npt.NDArray[np.int32]  # by a suit's 13-bit mask: its strength, 0 under 5 cards
    displacement: npt.NDArray[np.uint8]  # by bucket: the slots its words move by
    ranks: npt.NDArray[np.int32]  # by slot: the strength of its rank counts, suits apart
    hashes: npt.NDArray[np.uint64]  # the bucket's and the slot's multipliers, their bits


@njit(cache=True)
def _rank_words() -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint8]]:
    """Every rank-count word of 5 to 7 cards (at most 4 a rank), and a hand of each:
    its cards' suits dealt in turn, so never five of one (no flush)."""
    words = np.zeros(80_000, np.uint64)
    hands = np.full((80_000, MOST_CARDS), NO_CARD, np.uint8)
    counts = np.zeros(13, np.int64)
    found = 0
    while True:  # every count vector of at most 7 cards, an odometer over the ranks
        cards = counts.sum()
        if cards >= 5:
            dealt = 0
            for rank in range(13):
                words[found] += np.uint64(counts[rank]) << np.uint64(4 * rank)
                for _ in range(counts[rank]):
                    hands[found, dealt] = 4 * rank + dealt % 4
                    dealt += 1
            found += 1
        rank = 0
        while rank < 13 and (counts[rank] == 4 or cards == MOST_CARDS):
            cards -= counts[rank]
            counts[rank] = 0
            rank += 1
        if rank == 13:
            return words[:found], hands[:found]
        counts[rank] += 1


@njit(cache=True)
def _bucket(words: np.uint64, multiplier: np.uint64, bits: int) -> int:
    return int((words * multiplier) >> np.uint64(64 - bits))


@njit(cache=True)
def _slot(words: np.uint64, displacement: int, multiplier: np.uint64, bits: int) -> int:
    first = (words * multiplier) >> np.uint64(64 - bits)
    return int((first + np.uint64(displacement)) & np.uint64((1 << bits) - 1))


@njit(cache=True)
def _displace(words: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """(each bucket's displacement, each word's slot): the buckets with most words
    placed first, each at the least displacement that puts its words in slots free and
    apart; no slots where a bucket finds none under 256."""
    buckets = np.array([_bucket(w, BUCKET_HASH, BUCKET_BITS) for w in words])
    size = np.zeros(1 << BUCKET_BITS, np.int64)
    for b in buckets:
        size[b] += 1
    members = np.argsort(buckets, kind="mergesort")  # each bucket's words together
    start = np.zeros((1 << BUCKET_BITS) + 1, np.int64)
    start[1:] = np.cumsum(size)
    taken = np.zeros(1 << SLOT_BITS, np.bool_)
    displacement = np.zeros(1 << BUCKET_BITS, np.uint8)
    slot = np.empty(len(words), np.int64)
    for b in np.argsort(-size, kind="mergesort"):
        if size[b] == 0:
            break
        placed = False
        for d in range(256):
            fits = True
            for k in range(start[b], start[b + 1]):
                s = _slot(words[members[k]], d, SLOT_HASH, SLOT_BITS)
                for j in range(start[b], k):  # the bucket's words placed before, this try
                    fits = fits and slot[members[j]] != s
                fits = fits and not taken[s]
                slot[members[k]] = s
            if fits:
                for k in range(start[b], start[b + 1]):
                    taken[slot[members[k]]] = True
                displacement[b], placed = d, True
                break
        if not placed:
            return displacement, np.zeros(0, np.int64)
    return displacement, slot


def _build() -> Tables:
    """The tables, their strengths the evaluator's own (`evaluate_each`, from Python:
    so its compiled code, and its cache, stay the evaluator's)."""
    words, hands = _rank_words()
    cards = (hands != NO_CARD).sum(axis=1)
    strengths = np.zeros(len(words), np.int32)
    for n in range(5, MOST_CARDS + 1):
        strengths[cards == n] = evaluate_each(hands[cards == n, :n])
    displacement, slot = _displace(words)
    if not len(slot):  # the multipliers are fixed: a change to them that fails, here
        raise RuntimeError("the rank counts' perfect hash found no displacement under 256")
    ranks = np.zeros(1 << SLOT_BITS, np.int32)
    ranks[slot] = strengths
    flush = np.zeros(1 << 13, np.int32)
    masks = np.arange(1 << 13)
    bits = np.array([bin(m).count("1") for m in masks])
    for n in range(5, MOST_CARDS + 1):  # a suit's cards among seven: 5 to 7
        chosen = masks[bits == n]
        suited = np.array([[4 * r for r in range(13) if m >> r & 1] for m in chosen], np.uint8)
        flush[chosen] = evaluate_each(suited)
    hashes = np.array([BUCKET_HASH, SLOT_HASH, BUCKET_BITS, SLOT_BITS], np.uint64)
    return Tables(flush, displacement, ranks, hashes)


TABLES = _build()


@njit(cache=True)
def add_card(counts: np.uint64, suits: np.uint64, card: int) -> tuple[np.uint64, np.uint64]:
    """A hand with one card more (card = 4 * rank + suit, harness/rules/cards.py)."""
    rank, suit = card >> 2, card & 3
    return counts + np.uint64(1 << (4 * rank)), suits | np.uint64(1 << (16 * suit + rank))


@njit(cache=True)
def strength(counts: np.uint64, suits: np.uint64, tables: Tables) -> int:
    """The strength of a hand of 5 to 7 cards given its two words; NO_HAND for other
    cards: fewer or more, or a rank held five times (a card repeated: a fault a loop
    reports elsewhere). No words index past the tables."""
    if (counts + np.uint64(3 * NIBBLES)) & np.uint64(TOO_MANY):
        return NO_HAND
    cards = ((counts * np.uint64(NIBBLES)) >> np.uint64(CARDS_SHIFT)) & np.uint64(15)
    if cards < 5 or cards > MOST_CARDS:
        return NO_HAND
    for s in range(4):
        best = tables.flush[(suits >> np.uint64(16 * s)) & np.uint64(0x1FFF)]
        if best:
            return int(best)
    hashes = tables.hashes
    bucket = _bucket(counts, hashes[0], int(hashes[2]))
    slot = _slot(counts, tables.displacement[bucket], hashes[1], int(hashes[3]))
    return int(tables.ranks[slot])
