"""Decisions independent of the dealer's hidden cards (docs/audit.md, Leaked cards).

A player decides on what the game shows: their hole cards and the flop (and, where the
profile deals hole cards face up, the other seats'). Given that, the dealer's two cards
are any two of the cards the player has not seen, whatever the player decides, unless a
game or its client lets them be seen. The test reads one feature of the dealer's cards,
X: whether they make at least a pair with the flop or with each other (a pocket pair, or
a hole card of a flop rank), the core of every hand that qualifies. For each seat the
chance p of X given what it saw is exact (the ranks it has not seen, counted), so
X - p has mean 0 whatever the seat decided, for any strategy: the residuals summed over
the seats that called, against those summed over the seats that folded, are a normal
statistic with its variance known (sum of p(1 - p)). A leak (folding into a dealer
holding a pair more often than the cards allow) moves it. Its power is stated as the
smallest difference in the dealer's pair rate between calls and folds it finds with 80%
power at the size read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.audit.log import Rows
from harness.gamemath.rng import POWER, StatResult, scipy_stats

ALPHA = 0.01
LEAST_ROWS = 1_000  # of each decision, for the normal approximation to be read
RANKS = 13


@dataclass
class LeakCounts:
    """Sums over the seats that called (index 1) and folded (0): how many, the residuals
    X - p, and their variances p(1 - p)."""

    n: npt.NDArray[np.int64]
    residual: npt.NDArray[np.float64]
    variance: npt.NDArray[np.float64]
    unshown: int = 0  # seats with a flop whose round's log shows no dealer's cards

    @classmethod
    def empty(cls) -> LeakCounts:
        return cls(np.zeros(2, np.int64), np.zeros(2), np.zeros(2))

    def merge(self, other: LeakCounts) -> None:
        self.unshown += other.unshown
        self.n += other.n
        self.residual += other.residual
        self.variance += other.variance


def _rank_counts(cards: npt.NDArray[np.int16]) -> npt.NDArray[np.int64]:
    """Each row's count of each rank among its cards (rows, 13); -1 (not dealt) ignored."""
    out = np.zeros((len(cards), RANKS), np.int64)
    for k in range(cards.shape[1]):
        dealt = cards[:, k] >= 0
        np.add.at(out, (np.flatnonzero(dealt), cards[dealt, k] // 4), 1)
    return out


def count(
    rows: Rows,
    group: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    face_up: bool,
    into: LeakCounts,
) -> None:
    """Add the rows of sound rounds (`keep`, a row each) whose flop and dealer were dealt."""
    c = rows.cards
    flopped = keep & (c["flop"] >= 0).all(axis=1)
    used = flopped & (c["dealer"] >= 0).all(axis=1)
    into.unshown += int((flopped & ~used).sum())
    if not used.any():
        return
    flop = _rank_counts(c["flop"])
    hole = _rank_counts(c["hole"])
    if face_up:  # every seat's hole cards are seen by every seat
        per_round = np.zeros((group.max() + 1, RANKS), np.int64)
        np.add.at(per_round, group, hole)
        hole = per_round[group]
    unseen = (4 - flop - hole)[used]
    on_flop = flop[used] > 0
    total = unseen.sum(axis=1)
    off = np.where(on_flop, 0, unseen)
    n_off = off.sum(axis=1)
    # Two unseen cards making no pair: neither of a flop rank, not of one rank.
    no_pair = (n_off * (n_off - 1) - (off * (off - 1)).sum(axis=1)) / 2
    p = 1 - no_pair / (total * (total - 1) / 2)
    dealer = c["dealer"][used] // 4
    pocket = dealer[:, 0] == dealer[:, 1]
    flop_ranks = c["flop"][used] // 4
    matched = (dealer[:, :, None] == flop_ranks[:, None, :]).any(axis=(1, 2))
    x = (pocket | matched).astype(float)
    called = rows.call_made[used]
    for side in (0, 1):
        mine = called == bool(side)
        into.n[side] += int(mine.sum())
        into.residual[side] += float((x - p)[mine].sum())
        into.variance[side] += float((p * (1 - p))[mine].sum())


@dataclass(frozen=True)
class LeakTest:
    result: StatResult | None
    too_few: str  # why not read, when result is None


def leak_test(counts: LeakCounts) -> LeakTest:
    if counts.unshown:  # the rounds that show them are chosen by the seats' decisions,
        # through cards the chance p does not condition on: the test would not be exact
        return LeakTest(
            None,
            f"{counts.unshown:,} seats' rounds do not show the dealer's cards (dealt only "
            "when a seat calls): the rounds that show them are chosen by the decisions",
        )
    folds, calls = (int(v) for v in counts.n)
    if min(folds, calls) < LEAST_ROWS:
        return LeakTest(
            None, f"{calls:,} calls and {folds:,} folds with a flop; {LEAST_ROWS:,} of each needed"
        )
    n = folds + calls
    rate = calls / n
    statistic = (1 - rate) * counts.residual[1] - rate * counts.residual[0]
    variance = (1 - rate) ** 2 * counts.variance[1] + rate**2 * counts.variance[0]
    z = float(statistic / math.sqrt(variance))
    stats = scipy_stats()
    p_value = float(2 * stats.norm.sf(abs(z)))
    # E[statistic] = n rate (1 - rate) (difference of the pair rates of calls and folds)
    shift = (stats.norm.isf(ALPHA / 2) + stats.norm.ppf(POWER)) * math.sqrt(variance)
    detectable = shift / (n * rate * (1 - rate))
    result = StatResult(
        "decisions against the dealer's cards",
        z * z,
        p_value,
        "whether the dealer's cards make a pair with the flop or each other, against its "
        "exact chance given what each seat saw: the same for seats that called and folded",
        f"the dealer's pair rate differing by {detectable:.4f} between calls and folds, "
        f"with {POWER:.0%} power",
        1,
        p_adjusted=p_value,
        passed=p_value >= ALPHA,
    )
    return LeakTest(result, "")
