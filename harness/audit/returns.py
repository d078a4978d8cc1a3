"""The money returned against its exact expectation given what the player saw
(docs/audit.md, Return).

A seat decides once, on its hole cards and the flop (a situation). What calling then
returns depends only on the turn, the river and the dealer's cards, any of the
1,070,190 completions the seat has not seen, equally likely in a fair game whatever the
seat decided. The census (harness/gamemath/census.py) counts, for every situation, how
each completion settles, so the expectation of a call's net return is exact
(harness/gamemath/pricing.py `call_values`), and so is its second moment but for one
term: the census counts the completions a call wins, not the winning hand's category,
so the ante odds those wins are paid at are known only within bounds; the variance is
taken at the larger (the test conservative) and the gap between the two is stated. A
fold returns nothing whatever comes, and an AA Bonus rests on the hole cards and the
flop: neither varies, so only calls are read.

The rounds' seats share a board and the dealer's cards, so their returns are not
independent: the test reads one seat a round, the lowest seat dealt (chosen before any
card is), and the sum over rounds of (returned - expected) then has mean 0 for any
strategy and a variance summed round by round. What is read is what the rules pay on
the cards dealt (harness/audit/settle.py), not what the log says was paid: a payment
that differs is settlement's finding, the cards' effect on money is this test's. Dealt
against the player (an adaptive game), the sum falls: the return check's one-sided test.
Above what the cards allow, the callers know more than they were shown: the leak
family's (harness/audit/leak.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from harness.audit.log import Rows
from harness.audit.settle import Owed
from harness.gamemath.census import Progress, Symmetry, load_census, symmetry
from harness.gamemath.kernel import ANTE_PAID, COMPLETIONS, LOST, NQ_NOT_BEATEN, WON
from harness.gamemath.pricing import ante_odds, call_values
from harness.gamemath.rng import POWER, StatResult, scipy_stats
from harness.rules.evaluator import Category
from harness.rules.profiles import NonQualifyingAnte, Profile

ALPHA = 0.01  # the return check's one test
LEAST_CALLS = 1_000  # calls read, for the normal approximation of a skewed sum


@dataclass(frozen=True)
class Moments:
    """Per situation, sums over its completions of a call's net return in antes (exact)
    and of its square, at the largest and the smallest the census allows."""

    value: npt.NDArray[np.int64]
    square_high: npt.NDArray[np.float64]
    square_low: npt.NDArray[np.float64]
    symmetry: Symmetry

    @classmethod
    def of(cls, profile: Profile, progress: Progress | None = None) -> Moments:
        """The profile's moments (its census read, or computed with `progress`), worked
        once a process for each way of settling a call."""
        key = (
            profile.qualifying_strength,
            tuple(ante_odds(profile).tolist()),
            profile.call_multiple,
            profile.nonqualifying_ante,
        )
        if key not in _WORKED:
            _WORKED[key] = cls._work(profile, progress)
        return _WORKED[key]

    @classmethod
    def _work(cls, profile: Profile, progress: Progress | None) -> Moments:
        census = load_census(profile.qualifying_strength, progress)
        odds = [int(o) for o in ante_odds(profile)]
        m = int(profile.call_multiple)
        even = profile.nonqualifying_ante is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN

        def column(k: int) -> npt.NDArray[np.float64]:
            return census[:, k].astype(float)

        squares = np.zeros(len(census))
        room: dict[int, npt.NDArray[np.float64]] = {}  # by odds: the wins they may pay
        for category in Category:
            paid = column(ANTE_PAID + category)
            squares += odds[category] ** 2 * paid
            if category in (Category.HIGH_CARD, Category.PAIR):
                not_beaten = column(NQ_NOT_BEATEN + category)  # the dealer not qualifying
                paid = paid - not_beaten
                if even:
                    squares -= (odds[category] ** 2 - 1) * not_beaten  # paid 1 to 1 there
            room[odds[category]] = room.get(odds[category], 0) + paid
        won, lost = column(WON), column(LOST)
        base = squares + m * m * won + (1 + m) ** 2 * lost
        high = base + 2 * m * _most(room, won, largest=True)
        low = base + 2 * m * _most(room, won, largest=False)
        return cls(call_values(census, profile), high, low, symmetry())

    def situations(
        self, hole: npt.NDArray[np.int16], flop: npt.NDArray[np.int16]
    ) -> npt.NDArray[np.int64]:
        """Each row's situation (harness/gamemath/census.py `Symmetry.situation`)."""
        sym = self.symmetry
        f = np.sort(flop.astype(np.int64), axis=1)
        colex = sym.binom[f[:, 0], 1] + sym.binom[f[:, 1], 2] + sym.binom[f[:, 2], 3]
        relabel = sym.flop_perm[colex]
        h = np.sort(sym.card_map[relabel[:, None], hole.astype(np.int64)], axis=1)
        situation: npt.NDArray[np.int64] = sym.situation_of[
            sym.flop_canon[colex], h[:, 0] + h[:, 1] * (h[:, 1] - 1) // 2
        ]
        return situation


_WORKED: dict[tuple[object, ...], Moments] = {}


def _most(
    room: dict[int, npt.NDArray[np.float64]], won: npt.NDArray[np.float64], largest: bool
) -> npt.NDArray[np.float64]:
    """The largest (or smallest) sum of the odds a call's `won` wins are paid at, each
    odds taking at most its `room`: the wins go to the highest (lowest) odds first."""
    left = won.copy()
    total = np.zeros(len(won))
    for odds in sorted(room, reverse=largest):
        take = np.minimum(left, room[odds])
        total += odds * take
        left -= take
    return total


@dataclass
class DaySums:
    """One day's calls read: how many, their antes, and the sums the tests need."""

    calls: int = 0
    staked: int = 0  # their antes, minor units
    residual: float = 0.0  # returned - expected, minor units
    variance: float = 0.0  # at the larger second moment, minor units squared
    spread: float = 0.0  # the larger less the smaller

    def merge(self, other: DaySums) -> None:
        self.calls += other.calls
        self.staked += other.staked
        self.residual += other.residual
        self.variance += other.variance
        self.spread += other.spread


@dataclass
class ReturnCounts(DaySums):
    """Sums over the calls read (a seat a round), in all and by day (UTC), mergeable by
    addition."""

    by_day: dict[str, DaySums] = field(default_factory=dict)

    def merge(self, other: DaySums) -> None:
        super().merge(other)
        if isinstance(other, ReturnCounts):
            for day, sums in other.by_day.items():
                self.by_day.setdefault(day, DaySums()).merge(sums)


def count(
    rows: Rows,
    group: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    due: Owed,
    moments: Moments,
    into: ReturnCounts,
) -> None:
    """Add the first seat of each sound round (`keep`, a row each) if it called."""
    order = np.lexsort((rows.seat, group))
    lead = order[np.r_[True, group[order][1:] != group[order][:-1]]]
    c = rows.cards
    dealt = np.concatenate([c["flop"], c["turn"], c["river"], c["dealer"]], axis=1)
    read = keep[lead] & rows.call_made[lead] & ~rows.void[lead] & (dealt[lead] >= 0).all(axis=1)
    j = lead[read & due.judged[lead]]
    if not len(j):
        return
    s = moments.situations(c["hole"][j], c["flop"][j])
    ante = rows.amounts["ante"][j].astype(float)
    net = due.ante_returned[j] + due.call_returned[j] - rows.amounts["ante"][j] - due.call[j]
    mean = moments.value[s] / COMPLETIONS
    high = moments.square_high[s] / COMPLETIONS - mean * mean
    low = moments.square_low[s] / COMPLETIONS - mean * mean
    residual, variance = net - ante * mean, ante * ante * high
    spread = ante * ante * (high - low)
    days = rows.time[j].astype("datetime64[us]").astype("datetime64[D]").astype(str)
    for day in np.unique(days):
        mine = days == day
        sums = into.by_day.setdefault(str(day), DaySums())
        sums.merge(
            DaySums(
                int(mine.sum()),
                int(rows.amounts["ante"][j][mine].sum()),
                float(residual[mine].sum()),
                float(variance[mine].sum()),
                float(spread[mine].sum()),
            )
        )
    into.calls += len(j)
    into.staked += int(rows.amounts["ante"][j].sum())
    into.residual += float(residual.sum())
    into.variance += float(variance.sum())
    into.spread += float(spread.sum())


def return_test(counts: ReturnCounts, alpha: float, above: bool) -> StatResult | str:
    """The callers' return against its expectation, one-sided: below it (the return
    check) or `above` it (the leak family); words when too few calls were read."""
    side = "above" if above else "below"
    if counts.calls < LEAST_CALLS:
        return f"return {side} expectation: {counts.calls:,} calls read; {LEAST_CALLS:,} needed"
    sd = math.sqrt(counts.variance)
    z = counts.residual / sd
    stats = scipy_stats()
    p_value = float(stats.norm.sf(z) if above else stats.norm.cdf(z))
    shift = (stats.norm.isf(alpha) + stats.norm.ppf(POWER)) * sd / counts.staked
    gap = counts.spread / counts.variance
    return StatResult(
        f"callers' return {side} what their cards allow",
        z,
        p_value,
        f"the rules' return of the first seat's calls, {counts.calls:,} rounds, against its "
        "exact expectation given the hole cards and the flop (one-sided, z; the variance "
        f"taken at its largest, {gap:.2%} above its smallest)",
        f"a return {side} expectation by {shift:.4f} of the ante per call, with {POWER:.0%} power",
        p_adjusted=p_value,
        passed=p_value >= alpha,
    )


# The groups a return band is drawn for: the stake level (the ante), the build, and the
# optional columns a log may carry (docs/audit.md, The round log).
BAND_GROUPS = ("stake", "build", "channel", "currency")
BAND_Z = {95: 1.959963984540054, 99: 2.5758293035489004}  # two-sided normal quantiles


@dataclass
class GroupSums:
    """One group's seats: what they staked, what the log and the rules return, what the
    cards they saw and their decisions lead one to expect, and a bound on the variance.
    Money in minor units; merged by addition."""

    seats: int = 0
    staked: int = 0
    returned: int = 0  # as the log says
    rules: int = 0  # as the rules pay the cards dealt
    expected: float = 0.0
    variance: float = 0.0  # at most: each round's seats' deviations summed as if one

    def merge(self, other: GroupSums) -> None:
        self.seats += other.seats
        self.staked += other.staked
        self.returned += other.returned
        self.rules += other.rules
        self.expected += other.expected
        self.variance += other.variance


def count_groups(
    rows: Rows,
    group: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    due: Owed,
    moments: Moments,
    into: dict[tuple[str, str], GroupSums],
) -> None:
    """Add every settled seat of the sound rounds (`keep`) to its groups' sums.

    A call's return has the census's expectation and variance given its situation; a
    fold's and an AA Bonus's return is fixed by the cards the seat saw, so the rules'
    return is its expectation. The seats of a round share its cards, and the census does
    not give how their returns covary: a round's standard deviations are summed, the
    variance of a sum at its largest (Cauchy-Schwarz), so the band is wide enough
    whatever the covariance.
    """
    a, c = rows.amounts, rows.cards
    dealt = np.concatenate([c["flop"], c["turn"], c["river"], c["dealer"]], axis=1)
    read = keep & ~rows.void & due.judged
    called = read & rows.call_made & (dealt >= 0).all(axis=1)
    read &= ~rows.call_made | called
    if not read.any():
        return
    j = np.flatnonzero(read)
    ante = a["ante"][j].astype(float)
    rules = due.ante_returned[j] + due.call_returned[j] + due.aa_bonus_returned[j]
    expected = rules.astype(float)
    sd = np.zeros(len(j))
    calls = rows.call_made[j]
    if calls.any():
        k = j[calls]
        s = moments.situations(c["hole"][k], c["flop"][k])
        mean = moments.value[s] / COMPLETIONS
        var = moments.square_high[s] / COMPLETIONS - mean * mean
        stake = ante[calls] + due.call[k]
        expected[calls] = stake + ante[calls] * mean + due.aa_bonus_returned[k]
        sd[calls] = ante[calls] * np.sqrt(np.maximum(var, 0))
    staked = a["ante"][j] + a["call"][j] + a["aa_bonus"][j]
    returned = a["ante_returned"][j] + a["call_returned"][j] + a["aa_bonus_returned"][j]
    values: dict[str, npt.NDArray[np.object_]] = {
        "stake": a["ante"][j].astype(str).astype(object),
        "build": rows.build[j],
        **{name: rows.groups[name][j] for name in ("channel", "currency") if name in rows.groups},
    }
    for name, column in values.items():
        labels, code = np.unique(_labels(column), return_inverse=True)
        cell, inverse = np.unique(group[j] * len(labels) + code, return_inverse=True)
        spread = np.bincount(inverse, weights=sd) ** 2  # a round's seats of one group, at most
        variance = np.bincount(cell % len(labels), weights=spread, minlength=len(labels))
        for v, label in enumerate(labels):
            if not label:  # rows that do not name their channel or currency
                continue
            mine = code == v
            sums = into.setdefault((name, str(label)), GroupSums())
            sums.seats += int(mine.sum())
            sums.staked += int(staked[mine].sum())
            sums.returned += int(returned[mine].sum())
            sums.rules += int(rules[mine].sum())
            sums.expected += float(expected[mine].sum())
            sums.variance += float(variance[v])


def _labels(column: npt.NDArray[np.object_]) -> npt.NDArray[np.str_]:
    """A group column's values as text, a null as "" (a row that names no channel)."""
    return np.array(["" if v is None else str(v) for v in column.tolist()], dtype=str)
