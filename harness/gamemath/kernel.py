"""The compiled census kernel: every turn, river and dealer hand of every situation.

A situation is the player's two hole cards and the flop, the moment of the one
decision: 25,989,600 of them, 1,286,792 up to suit symmetry. For each situation
the census counts, over all 1,081 x 990 = 1,070,190 completions (turn and river,
then the dealer's two cards), how the round settles (`columns` below), which is
all a pay table needs to price calling.

Two builds of one kernel: `_kernel.c`, compiled when chcert is installed (setup.py), so
that a first run pays no compilation, and the numba functions below, which run where no
C compiler was found (and on CHCERT_KERNEL=numba). The two agree to the last count
(tests/test_gamemath.py): which one ran changes only how long a first run takes.

How it is fast enough (the target: under 10 s on two cores, cold; benchmarks/bench_math.py):

* Suit isomorphism of boards: the five community cards take 134,459 forms up to
  permuting suits, not 2,598,960; each canonical board is worked once and
  weighted by the size of its orbit.
* One evaluation per hole per board: on a board the C(47,2) = 1,081 two-card
  holes serve as the player's hand and as the dealer's. Without a flush the
  strength depends on the hole's ranks only (at most 91 evaluations).
* Counting with card removal instead of a loop over dealer hands: with the holes
  sorted by strength, the dealer hands below, equal to and above a player's hole
  that share none of its cards follow by inclusion-exclusion from per-card tallies.
* Each board result goes to the ten situations whose flop is three of its cards.
  Summing over a board orbit instead of each board is exact:
  |orbit(s)| * census(s) = sum over canonical boards B of |orbit(B)| * (what B
  gives the situations of B that are in orbit(s)); the final division by
  |orbit(s)| is checked to leave no remainder.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from itertools import chain, combinations
from pathlib import Path
from types import ModuleType

import numpy as np
import numpy.typing as npt
from numba import njit

from harness.errors import UsageError
from harness.rules.evaluator import (
    _flush_strength,
    _popcount,
    _rank_strength,
    count_five_card_hands,
)

_compiled: ModuleType | None
try:  # this kernel compiled ahead of time from _kernel.c (setup.py), when it was built
    import harness.gamemath._kernel as _compiled
except ImportError:  # pragma: no cover - installed where no C compiler was found
    _compiled = None

# Census columns, per situation: counts of the 1,070,190 completions.
ANTE_PAID = 0  # 0..9: the ante is settled by the pay table (dealer does not qualify, or
#               the player beats the dealer), by the player's final category
NQ_NOT_BEATEN = 10  # 10, 11: the dealer does not qualify and the player (high card, pair)
#               does not beat the dealer (003 pays this ante 1 to 1 whatever the table)
WON = 12  # the dealer qualifies and the player beats the dealer
LOST = 13  # the dealer qualifies and beats the player (the rest, to 1,070,190, push)
USED_COLUMNS = 14
COLUMNS = 16  # a row of 16 int32 is one 64-byte cache line

COMPLETIONS = 1081 * 990
DEALER_HANDS = 990  # C(45, 2)
SITUATIONS = 1326 * 19600  # C(52,2) hole cards x C(50,3) flops
FLUSH_MARK = 1 << 30  # marks a hole strength made with a flush while grouping


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


# ---------------------------------------------------------- which build runs


KERNEL_CHOICES = ("compiled", "numba")


def kernel_choice() -> str:
    """CHCERT_KERNEL, checked: "" (the compiled kernel where built, else numba's),
    "compiled" or "numba". A bad value is a usage error (exit 4): `chcert certify`, its
    --dry-run too, and `chcert math` ask before anything runs, not when a census is
    first computed or the AA Bonus first counted, minutes into a run."""
    choice = os.environ.get("CHCERT_KERNEL", "")
    if choice not in ("", *KERNEL_CHOICES):
        raise UsageError(f"CHCERT_KERNEL={choice!r}: use {' or '.join(KERNEL_CHOICES)}, or unset")
    return choice


def compiled() -> ModuleType | None:
    """The kernel compiled ahead of time, or None: not built, or CHCERT_KERNEL=numba."""
    choice = kernel_choice()
    if choice == "numba":
        return None
    problem = _build_problem()
    if problem is not None and choice == "compiled":
        raise UsageError(f"CHCERT_KERNEL=compiled, but {problem}")
    if problem is not None:
        _say_once(f"{problem}: numba compiles the census kernel instead (seconds more)")
        return None
    return _compiled


@cache
def _build_problem() -> str | None:
    """Why the compiled kernel cannot be used, or None: not built, or built from another
    _kernel.c than the one beside it (edited since `pip install -e .`)."""
    if _compiled is None:
        return "harness/gamemath/_kernel.c is not built"
    source = Path(__file__).with_name("_kernel.c").read_bytes()
    if hashlib.sha256(source).hexdigest() != _compiled.SOURCE_SHA256:
        return (
            "harness/gamemath/_kernel.c changed since it was built (pip install -e . rebuilds it)"
        )
    return None


_SAID: set[str] = set()


def _say_once(line: str) -> None:
    if line not in _SAID:
        _SAID.add(line)
        print(f"chcert: {line}", file=sys.stderr)


def five_card_sets() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The C(52,5) = 2,598,960 card sets, (n, 5), in itertools.combinations order, and
    each one's key up to suits: its four per-suit rank masks, sorted and packed (two
    sets are one up to suits exactly when their keys agree: a relabelling of suits
    only permutes the masks)."""
    build = compiled()
    if build is not None:
        sets, keys = np.empty((2_598_960, 5), np.int64), np.empty(2_598_960, np.int64)
        build.five_card_sets(sets, keys)
        return sets, keys
    flat = chain.from_iterable(combinations(range(52), 5))
    sets = np.fromiter(flat, np.int64, count=5 * 2_598_960).reshape(-1, 5)
    masks = np.zeros((len(sets), 4), np.int64)
    rows = np.arange(len(sets))
    for i in range(5):
        masks[rows, sets[:, i] & 3] |= 1 << (sets[:, i] >> 2)
    masks.sort(axis=1)
    return sets, (masks[:, 0] << 39) | (masks[:, 1] << 26) | (masks[:, 2] << 13) | masks[:, 3]


def five_card_counts() -> npt.NDArray[np.int64]:
    """Counts over all C(52,5) five-card hands: categories 0-9, then [10] pairs of aces
    (the evaluator's count_five_card_hands)."""
    build = compiled()
    if build is None:
        return count_five_card_hands()  # type: ignore[no-any-return]
    tally = np.empty(11, np.int64)
    build.count_five_card_hands(tally)
    return tally
