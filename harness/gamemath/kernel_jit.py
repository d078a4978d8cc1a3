"""The census kernel compiled by numba: the twin of harness/gamemath/_kernel.c.

harness/gamemath/census.py runs it where the C kernel is not built, or on
CHCERT_KERNEL=numba (harness/compiled.py); kernel.py's docstring explains the method.
Imported only then: importing numba costs a process most of a second. The two builds
compute the same census to the last count (tests/test_gamemath.py).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from harness.gamemath.kernel import DEALER_HANDS, FLUSH_MARK, LOST, NQ_NOT_BEATEN, WON
from harness.rules.evaluator_jit import _flush_strength, _popcount, _rank_strength

# ------------------------------------------------------------- one board


@njit(cache=True)
def _colex(cards: npt.NDArray[np.int64], binom: npt.NDArray[np.int64]) -> int:
    """Index of a sorted card set among all sets of its size (colexicographic order)."""
    index = 0
    for i in range(cards.shape[0]):
        index += binom[cards[i], i + 1]
    return index


@njit(cache=True)
def _board_outcomes(
    board: npt.NDArray[np.int64], qualifying: int, work: npt.NDArray[np.int64]
) -> None:
    """Settle every player hole on one board against every disjoint dealer hole.

    Fills work rows HOLE_A, HOLE_B (the hole's cards), CATEGORY and the counts
    ANTE, NQN, WIN, LOSS for each of the 1,081 holes of the 47 other cards.
    """
    counts = np.zeros(13, np.int8)
    masks = np.zeros(4, np.int32)
    used = np.zeros(52, np.bool_)
    for c in board:
        counts[c >> 2] += 1
        masks[c & 3] |= 1 << (c >> 2)
        used[c] = True
    flush_suit = -1
    for s in range(4):
        if _popcount(masks[s]) >= 3:
            flush_suit = s
    avail = work[_AVAIL]
    n = 0
    for c in range(52):
        if not used[c]:
            avail[n] = c
            n += 1

    # Strength by hole ranks when no flush is made: at most 91 evaluations. The
    # distinct strengths of the board, sorted, number the groups of equal hands.
    values = work[_VALUES]
    nvalues = 0
    by_ranks = work[_BY_RANKS]
    for r1 in range(13):
        counts[r1] += 1
        for r2 in range(r1, 13):
            counts[r2] += 1
            if counts[r1] <= 4 and counts[r2] <= 4:
                by_ranks[r1 * 13 + r2] = _rank_strength(counts)
                values[nvalues] = by_ranks[r1 * 13 + r2]
                nvalues += 1
            counts[r2] -= 1
        counts[r1] -= 1

    strength = work[_STRENGTH]
    first = work[_FIRST]
    second = work[_SECOND]
    k = 0
    for x in range(n):
        a = avail[x]
        for y in range(x + 1, n):
            b = avail[y]
            s = by_ranks[(a >> 2) * 13 + (b >> 2)]
            if flush_suit >= 0:  # a flush needs the hole's cards of that suit, or none
                m = masks[flush_suit]
                if (a & 3) == flush_suit:
                    m |= 1 << (a >> 2)
                if (b & 3) == flush_suit:
                    m |= 1 << (b >> 2)
                if _popcount(m) >= 5:
                    s = _flush_strength(m)
                    values[nvalues] = s
                    nvalues += 1
                    s |= FLUSH_MARK
            strength[k] = s
            first[k] = x
            second[k] = y
            k += 1
    holes = k

    # Counting sort of the holes into groups of equal strength.
    groups = _sort_distinct(values, nvalues)
    distinct = values[:groups]
    start = work[_START]
    start[: groups + 1] = 0
    group = work[_GROUP]
    for v in range(169):
        if v % 13 >= v // 13:
            by_ranks[169 + v] = _position(distinct, by_ranks[v])
    for h in range(holes):
        s = strength[h]
        if s & FLUSH_MARK:
            s &= ~FLUSH_MARK
            strength[h] = s
            g = _position(distinct, s)
        else:
            g = by_ranks[169 + (avail[first[h]] >> 2) * 13 + (avail[second[h]] >> 2)]
        group[h] = g
        start[g + 1] += 1
    for g in range(groups):
        start[g + 1] += start[g]
    order = work[_ORDER]
    fill = work[_FILL]
    fill[:groups] = start[:groups]
    for h in range(holes):
        g = group[h]
        order[fill[g]] = h
        fill[g] += 1

    # Dealer hands that do not qualify, in all and per card.
    nq_card = work[_NQ_CARD]
    below_card = work[_BELOW_CARD]
    group_card = work[_GROUP_CARD]
    nq_card[:n] = 0
    below_card[:n] = 0
    group_card[:n] = 0
    nq_total = 0
    for h in range(holes):
        if strength[h] < qualifying:
            nq_total += 1
            nq_card[first[h]] += 1
            nq_card[second[h]] += 1

    below = 0
    for g in range(groups):
        i = start[g]
        j = start[g + 1]
        s = distinct[g]
        for q in range(i, j):
            h = order[q]
            group_card[first[h]] += 1
            group_card[second[h]] += 1
        members = j - i
        for q in range(i, j):
            h = order[q]
            a = first[h]
            b = second[h]
            lower = below - below_card[a] - below_card[b]
            equal = members - group_card[a] - group_card[b] + 1
            nq = nq_total - nq_card[a] - nq_card[b]
            work[_HOLE_A, h] = avail[a]
            work[_HOLE_B, h] = avail[b]
            work[_CATEGORY, h] = s >> 20
            if s >= qualifying:  # every non-qualifying dealer is beaten
                work[_ANTE, h] = lower
                work[_NQN, h] = 0
                work[_WIN, h] = lower - nq
                work[_LOSS, h] = DEALER_HANDS - lower - equal
            else:  # no win against a qualifying dealer, no tie with one either
                nq += 1  # the player's own hole is below the qualifier: subtracted twice
                work[_ANTE, h] = nq
                work[_NQN, h] = nq - lower
                work[_WIN, h] = 0
                work[_LOSS, h] = DEALER_HANDS - nq
        for q in range(i, j):
            h = order[q]
            below_card[first[h]] += 1
            below_card[second[h]] += 1
            group_card[first[h]] = 0
            group_card[second[h]] = 0
        below += members


@njit(cache=True)
def _sort_distinct(values: npt.NDArray[np.int64], n: int) -> int:
    """Sort values[:n] in place (insertion sort: about a hundred values) and drop repeats."""
    for i in range(1, n):
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v
    k = 0
    for i in range(n):
        if i == 0 or values[i] != values[k - 1]:
            values[k] = values[i]
            k += 1
    return k


@njit(cache=True)
def _position(sorted_values: npt.NDArray[np.int64], value: int) -> int:
    """Index of `value` in a sorted array that holds it (binary search)."""
    lo, hi = 0, sorted_values.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_values[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


# rows of the scratch array `work`
(
    _HOLE_A,
    _HOLE_B,
    _CATEGORY,
    _ANTE,
    _NQN,
    _WIN,
    _LOSS,
    _AVAIL,
    _VALUES,
    _BY_RANKS,
    _STRENGTH,
    _FIRST,
    _SECOND,
    _START,
    _GROUP,
    _ORDER,
    _FILL,
    _NQ_CARD,
    _BELOW_CARD,
    _GROUP_CARD,
) = range(20)
_WORK_ROWS = 20
_WORK_WIDTH = 1300  # a row holds the 1,081 holes, or the distinct strengths of a board:
# at most 91 rank pairs + 1,081 flush holes = 1,172


# ------------------------------------------------------------ all boards


@njit(cache=True, nogil=True)
def census_chunk(
    boards: npt.NDArray[np.int64],
    board_weight: npt.NDArray[np.int64],
    flop_canon: npt.NDArray[np.int64],
    flop_perm: npt.NDArray[np.int64],
    situation_of: npt.NDArray[np.int32],
    card_map: npt.NDArray[np.int64],
    binom: npt.NDArray[np.int64],
    qualifying: int,
    acc: npt.NDArray[np.int32],
    progress: npt.NDArray[np.int64],
    slot: int,
) -> None:
    """Add some canonical boards' weighted results to `acc` (situations x COLUMNS).

    Summed over all canonical boards, acc[s] = |orbit(s)| * census(s). A flop (colex
    index) maps to its canonical flop id and a suit relabelling that takes it there;
    `situation_of[flop id, colex index of the relabelled hole]` is the situation.
    Runs without the GIL: threads each take a share of the boards and their own
    `acc`; `progress[slot]` counts the boards done, for a progress bar.
    """
    pair = np.zeros((52, 52), np.int64)  # colex index of a two-card set, either order
    for b in range(52):
        for a in range(b):
            pair[a, b] = pair[b, a] = a + b * (b - 1) // 2
    work = np.zeros((_WORK_ROWS, _WORK_WIDTH), np.int64)
    flop = np.empty(3, np.int64)
    flop_id = np.empty(10, np.int64)
    relabel = np.empty(10, np.int64)
    for bi in range(boards.shape[0]):
        board = boards[bi]
        w = board_weight[bi]
        _board_outcomes(board, qualifying, work)
        f = 0
        for i in range(5):
            for j in range(i + 1, 5):
                for k in range(j + 1, 5):
                    flop[0] = board[i]
                    flop[1] = board[j]
                    flop[2] = board[k]
                    fi = _colex(flop, binom)
                    flop_id[f] = flop_canon[fi]
                    relabel[f] = flop_perm[fi]
                    f += 1
        for h in range(1081):
            for row in range(_ANTE, _LOSS + 1):
                work[row, h] *= w
        for f in range(10):
            where = situation_of[flop_id[f]]
            relabelled = card_map[relabel[f]]
            for h in range(1081):
                s = where[pair[relabelled[work[_HOLE_A, h]], relabelled[work[_HOLE_B, h]]]]
                cat = work[_CATEGORY, h]
                acc[s, cat] += work[_ANTE, h]
                if cat <= 1:
                    acc[s, NQ_NOT_BEATEN + cat] += work[_NQN, h]
                acc[s, WON] += work[_WIN, h]
                acc[s, LOST] += work[_LOSS, h]
        progress[slot] += 1
