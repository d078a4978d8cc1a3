"""The hand evaluator compiled by numba: the twin of harness/rules/_evaluator.h.

harness/rules/evaluator.py runs these where the C evaluator is not built, or on
CHCERT_KERNEL=numba (harness/compiled.py), and numba's census kernel
(harness/gamemath/kernel_jit.py) and the audit's look-up tables (harness/rules/lookup.py)
call them from their own compiled code. Imported only then: importing numba costs a
process most of a second. The two builds agree on every five-card hand and on the
category counts of every seven-card hand (tests/test_compiled.py).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit, prange


@njit(cache=True)
def _straight_high(mask: int) -> int:
    """Rank of the top card of the best straight in a 13-bit rank mask, -1 if none."""
    for hi in range(12, 3, -1):
        window = 0x1F << (hi - 4)
        if mask & window == window:
            return hi
    if mask & 0x100F == 0x100F:  # A-2-3-4-5, the wheel: five high
        return 3
    return -1


@njit(cache=True)
def _top_ranks(mask: int, count: int) -> int:
    """The `count` highest ranks of a mask, packed as 4-bit fields from the top."""
    packed = 0
    taken = 0
    for r in range(12, -1, -1):
        if taken == count:
            break
        if mask & (1 << r):
            packed = (packed << 4) | r
            taken += 1
    return packed << (4 * (5 - count))


@njit(cache=True)
def _flush_strength(mask: int) -> int:
    """Strength of the best five cards of one suit, given that suit's 13-bit rank mask."""
    hi = _straight_high(mask)
    if hi == 12:
        return (9 << 20) | (12 << 16)
    if hi >= 0:
        return (8 << 20) | (hi << 16)
    return (5 << 20) | _top_ranks(mask, 5)


@njit(cache=True)
def _popcount(mask: int) -> int:
    bits = 0
    while mask:
        mask &= mask - 1
        bits += 1
    return bits


@njit(cache=True)
def _rank_strength(counts: npt.NDArray[np.int8]) -> int:
    """Strength of the best five cards ignoring suits (the hand when there is no flush)."""
    rank_mask = 0
    quad = -1
    trip1 = -1
    trip2 = -1
    pair1 = -1
    pair2 = -1
    for r in range(12, -1, -1):
        c = counts[r]
        if c == 0:
            continue
        rank_mask |= 1 << r
        if c == 4:
            quad = r
        elif c == 3:
            if trip1 < 0:
                trip1 = r
            elif trip2 < 0:
                trip2 = r
        elif c == 2:
            if pair1 < 0:
                pair1 = r
            elif pair2 < 0:
                pair2 = r

    if quad >= 0:
        return (7 << 20) | (quad << 16) | _top_ranks(rank_mask & ~(1 << quad), 1) >> 4
    if trip1 >= 0 and (trip2 >= 0 or pair1 >= 0):
        pair = trip2 if trip2 > pair1 else pair1
        return (6 << 20) | (trip1 << 16) | (pair << 12)
    hi = _straight_high(rank_mask)
    if hi >= 0:
        return (4 << 20) | (hi << 16)
    if trip1 >= 0:
        return (3 << 20) | (trip1 << 16) | _top_ranks(rank_mask & ~(1 << trip1), 2) >> 4
    if pair2 >= 0:
        rest = rank_mask & ~(1 << pair1) & ~(1 << pair2)
        return (2 << 20) | (pair1 << 16) | (pair2 << 12) | _top_ranks(rest, 1) >> 8
    if pair1 >= 0:
        return (1 << 20) | (pair1 << 16) | _top_ranks(rank_mask & ~(1 << pair1), 3) >> 4
    return _top_ranks(rank_mask, 5)


@njit(cache=True)
def _strength(counts: npt.NDArray[np.int8], suit_masks: npt.NDArray[np.int32]) -> int:
    """Strength of the best five cards given rank counts and per-suit rank masks.

    With at most seven cards a flush excludes quads and a full house (they would
    need three cards outside the flush suit), so a flush is decided first.
    """
    for s in range(4):
        if _popcount(suit_masks[s]) >= 5:
            return _flush_strength(suit_masks[s])
    return _rank_strength(counts)


@njit(cache=True)
def _strength_of(cards: npt.NDArray[np.uint8]) -> int:
    counts = np.zeros(13, np.int8)
    suit_masks = np.zeros(4, np.int32)
    for i in range(cards.shape[0]):
        c = cards[i]
        counts[c >> 2] += 1
        suit_masks[c & 3] |= 1 << (c >> 2)
    return _strength(counts, suit_masks)


@njit(cache=True)
def evaluate_each(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """Strengths of many hands in one thread (`evaluate_batch` without the start-up of
    its threads): `hands` is (n, k) card indices, 5 <= k <= 7."""
    out = np.empty(hands.shape[0], np.int32)
    for i in range(hands.shape[0]):
        out[i] = _strength_of(hands[i])
    return out


@njit(cache=True, parallel=True)
def evaluate_batch(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """Strengths of many hands at once: `hands` is (n, k) card indices, 5 <= k <= 7."""
    n = hands.shape[0]
    out = np.empty(n, np.int32)
    for i in prange(n):
        out[i] = _strength_of(hands[i])
    return out


@njit(cache=True, parallel=True)
def count_all_seven_card_hands() -> npt.NDArray[np.int64]:
    """Category counts over all C(52,7) seven-card hands, by exhaustive enumeration.

    Rank counts and suit masks are updated incrementally down the seven nested
    loops, so each hand costs one `_strength` call.
    """
    per_first = np.zeros((52, 10), np.int64)
    # Work falls steeply with the first card; evens then odds gives each of the
    # contiguous chunks a parallel loop is split into a similar share.
    order = np.concatenate((np.arange(0, 46, 2), np.arange(1, 46, 2)))
    for i in prange(46):
        a = order[i]
        counts = np.zeros(13, np.int8)
        masks = np.zeros(4, np.int32)
        tally = np.zeros(10, np.int64)
        counts[a >> 2] += 1
        masks[a & 3] |= 1 << (a >> 2)
        for b in range(a + 1, 47):
            counts[b >> 2] += 1
            masks[b & 3] |= 1 << (b >> 2)
            for c in range(b + 1, 48):
                counts[c >> 2] += 1
                masks[c & 3] |= 1 << (c >> 2)
                for d in range(c + 1, 49):
                    counts[d >> 2] += 1
                    masks[d & 3] |= 1 << (d >> 2)
                    for e in range(d + 1, 50):
                        counts[e >> 2] += 1
                        masks[e & 3] |= 1 << (e >> 2)
                        for f in range(e + 1, 51):
                            counts[f >> 2] += 1
                            masks[f & 3] |= 1 << (f >> 2)
                            for g in range(f + 1, 52):
                                counts[g >> 2] += 1
                                masks[g & 3] |= 1 << (g >> 2)
                                tally[_strength(counts, masks) >> 20] += 1
                                counts[g >> 2] -= 1
                                masks[g & 3] &= ~(1 << (g >> 2))
                            counts[f >> 2] -= 1
                            masks[f & 3] &= ~(1 << (f >> 2))
                        counts[e >> 2] -= 1
                        masks[e & 3] &= ~(1 << (e >> 2))
                    counts[d >> 2] -= 1
                    masks[d & 3] &= ~(1 << (d >> 2))
                counts[c >> 2] -= 1
                masks[c & 3] &= ~(1 << (c >> 2))
            counts[b >> 2] -= 1
            masks[b & 3] &= ~(1 << (b >> 2))
        per_first[a] = tally
    return per_first.sum(axis=0)  # type: ignore[no-any-return]


@njit(cache=True)
def count_five_card_hands() -> npt.NDArray[np.int64]:
    """Counts over all C(52,5) five-card hands: categories 0-9, then [10] pairs of aces."""
    tally = np.zeros(11, np.int64)
    counts = np.zeros(13, np.int8)
    masks = np.zeros(4, np.int32)
    cards = np.empty(5, np.int64)
    for a in range(48):
        for b in range(a + 1, 49):
            for c in range(b + 1, 50):
                for d in range(c + 1, 51):
                    for e in range(d + 1, 52):
                        cards[0], cards[1], cards[2], cards[3], cards[4] = a, b, c, d, e
                        for x in cards:
                            counts[x >> 2] += 1
                            masks[x & 3] |= 1 << (x >> 2)
                        strength = _strength(counts, masks)
                        for x in cards:
                            counts[x >> 2] -= 1
                            masks[x & 3] &= ~(1 << (x >> 2))
                        tally[strength >> 20] += 1
                        if strength >> 20 == 1 and (strength >> 16) & 0xF == 12:
                            tally[10] += 1
    return tally
