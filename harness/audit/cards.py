"""The cards a game dealt in production, tested as one family (docs/audit.md, Cards).

Counted from the rows as they are read, in tallies that merge exactly: each card by
position (the hole cards, the flop, the turn, the river, the dealer's cards: a round's
shared cards once a round, not once a seat), the ranks of the two hole cards of a seat
(cards within a round), the first hole card of consecutive rounds of a table, and the
hole cards day by day. Each is a Pearson chi-square against what one fair deck deals;
the family is Holm-corrected to ALPHA, and each test states the smallest bias it
detects with 80% power at the size read (harness/gamemath/rng.py, the same power
arithmetic as the RNG battery's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from harness.audit.log import Rows
from harness.gamemath.rng import POWER, StatResult, detectable_bias, holm, scipy_stats

ALPHA = 0.01  # the family-wise alpha of the card tests
POSITIONS = ("hole", "flop", "turn", "river", "dealer")
MIN_EXPECTED = 5  # the least count a cell must expect for a chi-square to be read
RANKS = 13

# Two cards of one deck, in order, by rank: 4/52 x 4/51 for two ranks, 4/52 x 3/51 for one.
_PAIR = np.full((RANKS, RANKS), 16 / (52 * 51))
np.fill_diagonal(_PAIR, 12 / (52 * 51))
PAIR_P = _PAIR.ravel()
UNIFORM_CARD = np.full(52, 1 / 52)
UNIFORM_PAIR = np.full(RANKS * RANKS, 1 / RANKS**2)  # two independent rounds' cards


@dataclass
class CardCounts:
    """What the card tests count, mergeable by addition."""

    by_position: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros((len(POSITIONS), 52), np.int64)
    )
    hole_ranks: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(RANKS * RANKS, np.int64)
    )
    consecutive: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros(RANKS * RANKS, np.int64)
    )
    by_day: dict[str, npt.NDArray[np.int64]] = field(default_factory=dict)

    def merge(self, other: CardCounts) -> None:
        self.by_position += other.by_position
        self.hole_ranks += other.hole_ranks
        self.consecutive += other.consecutive
        for day, counts in other.by_day.items():
            self.by_day[day] = self.by_day.get(day, np.zeros(52, np.int64)) + counts


def count(
    rows: Rows,
    first: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    days: npt.NDArray[np.str_],
    previous: dict[str, int],
    into: CardCounts,
) -> None:
    """Count a batch's cards: `first` each round's first row, `keep` the rounds whose
    cards are sound (integrity found no card twice, no seats that disagree), `days` each
    row's day; `previous` each table's last first hole card, carried across batches."""
    group = np.cumsum(np.isin(np.arange(len(rows)), first)) - 1
    rows_kept = keep[group]
    firsts = first[keep]
    for k, position in enumerate(POSITIONS):
        cards = rows.cards[position][rows_kept if position == "hole" else firsts]
        dealt = cards[cards >= 0]
        into.by_position[k] += np.bincount(dealt, minlength=52)
    hole = rows.cards["hole"][rows_kept]
    ranks = hole // 4
    into.hole_ranks += np.bincount(ranks[:, 0] * RANKS + ranks[:, 1], minlength=RANKS**2)
    for day in np.unique(days[rows_kept]):
        mine = hole[days[rows_kept] == day].ravel()
        into.by_day[str(day)] = into.by_day.get(str(day), np.zeros(52, np.int64)) + np.bincount(
            mine, minlength=52
        )
    for i in firsts:  # a table's rounds in the order it settled them
        table, card = str(rows.table[i]), int(rows.cards["hole"][i][0])
        before = previous.get(table)
        if before is not None:
            into.consecutive[(before // 4) * RANKS + card // 4] += 1
        previous[table] = card


@dataclass(frozen=True)
class CardTests:
    tests: list[StatResult]
    too_few: list[str]  # the tests the counts are too small to read, and why


def _test(name: str, observed: npt.NDArray[np.int64], p0: npt.NDArray[np.float64],
          description: str, family: int) -> StatResult | str:  # fmt: skip
    """A Pearson chi-square of `observed` against `p0`, with the bias it detects with
    POWER at the first step of Holm (alpha / family); why not, when too few."""
    n = int(observed.sum())
    least = MIN_EXPECTED / float(p0.min())
    if n < least:
        return f"{name}: {n:,} counted, {least:,.0f} needed ({MIN_EXPECTED} expected in every cell)"
    expected = n * p0
    stat = float(((observed - expected) ** 2 / expected).sum())
    df = len(p0) - 1
    stats = scipy_stats()
    critical = float(stats.chi2.isf(ALPHA / family, df))
    bias = detectable_bias(p0, int(np.argmin(p0)), n, critical)
    detects = f"one cell {bias:.1%} more likely than a fair deal gives it, with {POWER:.0%} power"
    return StatResult(name, stat, float(stats.chi2.sf(stat, df)), description, detects, df)


def card_tests(counts: CardCounts) -> CardTests:
    """The family: each position, the hole cards' ranks, consecutive rounds, each day."""
    wanted = [
        *(
            (f"card by position: {p}", counts.by_position[k], UNIFORM_CARD,
             f"each card equally likely as a {p} card")
            for k, p in enumerate(POSITIONS)
        ),
        ("hole cards' ranks together", counts.hole_ranks, PAIR_P,
         "a seat's two hole cards as two cards of one deck, by rank"),
        ("consecutive rounds", counts.consecutive, UNIFORM_PAIR,
         "a table's first hole card of a round independent of its previous round's, by rank"),
        *(
            (f"hole cards on {day}", c, UNIFORM_CARD, "each card equally likely as a hole card")
            for day, c in sorted(counts.by_day.items())
        ),
    ]  # fmt: skip
    family = len(wanted)
    tests, too_few = [], []
    for name, observed, p0, description in wanted:
        result = _test(name, observed, p0, description, family)
        if isinstance(result, str):
            too_few.append(result)
        else:
            tests.append(result)
    holm(tests, ALPHA)
    return CardTests(tests, too_few)
