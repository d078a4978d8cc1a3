"""The compiled census kernel: every turn, river and dealer hand of every situation.

A situation is the player's two hole cards and the flop, the moment of the one
decision: 25,989,600 of them, 1,286,792 up to suit symmetry. For each situation
the census counts, over all 1,081 x 990 = 1,070,190 completions (turn and river,
then the dealer's two cards), how the round settles (`columns` below), which is
all a pay table needs to price calling.

Two builds of one kernel: `_kernel.c`, compiled when chcert is installed (setup.py), so
that a first run pays no compilation, and its numba twin, kernel_jit.py, which runs where
no C compiler was found (and on CHCERT_KERNEL=numba: harness/compiled.py). The two agree
to the last count (tests/test_gamemath.py): which one ran changes only how long a first
run takes. This module holds what both share: the census's columns, the choice of build,
and the five-card sets and counts.

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

from itertools import chain, combinations
from types import ModuleType

import numpy as np
import numpy.typing as npt

from harness import compiled as extensions

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


# ---------------------------------------------------------- which build runs


def compiled() -> ModuleType | None:
    """The kernel compiled ahead of time, or None where numba's twin (kernel_jit.py) runs:
    not built, built from other sources, or CHCERT_KERNEL=numba (harness/compiled.py)."""
    return extensions.extension("harness.gamemath._kernel")


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
        from harness.rules.evaluator_jit import count_five_card_hands

        return count_five_card_hands()  # type: ignore[no-any-return]
    tally = np.empty(11, np.int64)
    build.count_five_card_hands(tally)
    return tally
