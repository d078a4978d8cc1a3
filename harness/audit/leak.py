"""Decisions independent of the dealer's hidden cards (docs/audit.md, Leaked cards).

A player decides on what the game shows: their hole cards and the flop (and, where the
profile deals hole cards face up, the other seats'). Given every card the round's seats
were dealt and the flop, the dealer's two cards are any two of the cards nobody has
seen, whatever the seats decide, unless a game or its client lets them be seen. The
test reads one feature of the dealer's cards, X: whether they make at least a pair with
the flop or with each other (a pocket pair, or a hole card of a flop rank), the core of
every hand that qualifies. Its chance q given the round's hole cards and flop is exact
(the ranks nobody has seen, counted), and a seat's decision rests on a part of those
cards, so X - q has mean 0 whatever the seats decided, for any strategy. The round's
calls c and folds f weigh it: the statistic (1 - rate) sum c (X - q) - rate sum f (X - q),
rate the share of decisions that called, has mean 0 and a variance known exactly,
sum ((1 - rate) c - rate f)^2 q (1 - q), rounds being independent (a round's seats share
its X, so a seat at a time would understate it). A leak (calls meeting fewer dealer pairs
than the cards allow, folds more) moves it down: the test is one-sided. Rounds whose log
shows no dealer's cards (a game that deals them only when a seat calls) are left out:
which rounds those are rests on the decisions, which rest on cards q is given, so
leaving them out moves nothing.

The family's other tests read money (harness/audit/returns.py): callers winning more
than their cards allow given what they saw, seat position by seat position. Holm's
correction holds the family to ALPHA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.audit.kernel import leak_sums
from harness.audit.log import Rows
from harness.audit.returns import LEAST_CALLS, ReturnCounts, return_tests
from harness.gamemath.rng import POWER, StatResult, holm, scipy_special

ALPHA = 0.01  # the family-wise alpha of the leak tests (Holm)
LEAST_ROWS = 1_000  # of each decision, for the normal approximation to be read


@dataclass
class LeakCounts:
    """Sums over the rounds: the seats that folded (index 0) and called (1), the
    residuals weighed by each round's folds and calls, and the three sums the variance
    needs: folds^2, folds x calls and calls^2, each times q (1 - q)."""

    n: npt.NDArray[np.int64]
    residual: npt.NDArray[np.float64]
    moments: npt.NDArray[np.float64]  # (ff, fc, cc)
    unshown: int = 0  # seats with a flop whose round's log shows no dealer's cards: not read

    @classmethod
    def empty(cls) -> LeakCounts:
        return cls(np.zeros(2, np.int64), np.zeros(2), np.zeros(3))

    def merge(self, other: LeakCounts) -> None:
        self.unshown += other.unshown
        self.n += other.n
        self.residual += other.residual
        self.moments += other.moments


def count(
    rows: Rows, bounds: npt.NDArray[np.int64], keep: npt.NDArray[np.bool_], into: LeakCounts
) -> None:
    """Add the sound rounds (`keep`, a row each; `bounds` each round's first row, then
    the batch's length) whose flop and dealer were dealt."""
    c = rows.cards
    flopped = keep & rows.shown("flop")
    used = flopped & rows.shown("dealer")
    into.unshown += int((flopped & ~used).sum())
    if not used.any():
        return
    folds, calls, *sums = leak_sums(bounds, used, c["hole"], c["flop"], c["dealer"], rows.call_made)
    into.n += (folds, calls)
    into.residual += sums[:2]
    into.moments += sums[2:]


@dataclass(frozen=True)
class LeakFamily:
    tests: list[StatResult]
    too_few: list[str]  # why a test was not read
    complete: bool  # the dealer-pair test and the lowest seat's read: else not tested


def leak_family(counts: LeakCounts, money: ReturnCounts) -> LeakFamily:
    """The dealer-pair test and each seat position's outcomes above what its cards
    allow, Holm over them; a test not read is said in `too_few`."""
    positions = sum(1 for c in money.positions.values() if c.effective >= LEAST_CALLS)
    pair = _pair_test(counts, family=positions + 1)
    above = return_tests(money, above=True, others=0 if isinstance(pair, str) else 1)
    tests = above.tests if isinstance(pair, str) else [pair, *above.tests]
    too_few = [pair, *above.too_few] if isinstance(pair, str) else above.too_few
    holm(tests, ALPHA)
    return LeakFamily(tests, too_few, not isinstance(pair, str) and above.first_read)


def _pair_test(counts: LeakCounts, family: int) -> StatResult | str:
    folds, calls = (int(v) for v in counts.n)
    if min(folds, calls) < LEAST_ROWS:
        return (
            f"dealer's pairs: {calls:,} calls and {folds:,} folds with a flop; "
            f"{LEAST_ROWS:,} of each needed"
        )
    n = folds + calls
    rate = calls / n
    statistic = (1 - rate) * counts.residual[1] - rate * counts.residual[0]
    ff, fc, cc = (float(m) for m in counts.moments)
    variance = (1 - rate) ** 2 * cc - 2 * rate * (1 - rate) * fc + rate**2 * ff
    z = float(statistic / math.sqrt(variance))
    special = scipy_special()
    ndtr, ndtri = special.ndtr, special.ndtri  # the normal's cdf and ppf
    p_value = float(ndtr(z))  # one-sided: calls meeting fewer pairs
    # E[statistic] = n rate (1 - rate) (difference of the pair rates of folds and calls)
    shift = (-ndtri(ALPHA / family) + ndtri(POWER)) * math.sqrt(variance)
    detectable = shift / (n * rate * (1 - rate))
    return StatResult(
        "decisions against the dealer's cards",
        z,
        p_value,
        "whether the dealer's cards make a pair with the flop or each other, against its "
        "exact chance given the round's cards: no lower for the seats that called than "
        "for those that folded (one-sided, z)",
        f"the dealer's pair rate lower by {detectable:.4f} for calls than for folds, "
        f"with {POWER:.0%} power",
        p_adjusted=p_value,
        passed=p_value >= ALPHA,
    )
