"""The cards a game dealt in production, tested as one family (docs/audit.md, Cards).

Counted from the rows as they are read, in tallies that merge exactly: each card by
position (the hole cards, the flop, the turn, the river, the dealer's cards: a round's
shared cards once a round, not once a seat), the ranks of a seat's two hole cards
(cards within a round, in either order: a log need not keep the deal's order), the
first hole card of consecutive rounds of a table, and the hole cards day by day. Each
is a Pearson chi-square against what one fair deck deals; the family is Holm-corrected
to ALPHA, and each test states the smallest bias it detects with 80% power at the size
read (harness/gamemath/rng.py, the same power arithmetic as the RNG battery's).

The turn, the river and the dealer's cards are not dealt in every round (a game may
stop when every seat folds), and whether they are depends on the hole cards and the
flop the seats saw: a card shown there is less likely in them. So they are tested
against what each round's own deck leaves (every card the seats and the flop did not
show, equally likely), summed over the rounds that dealt them, not against 1/52. The
consecutive rounds are tested for independence (a contingency table), whatever each
card's own distribution.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from harness.audit.kernel import count_cards
from harness.audit.log import Rows, day_name
from harness.gamemath.rng import POWER, StatResult, detectable_bias, holm, scipy_special

ALPHA = 0.01  # the family-wise alpha of the card tests
POSITIONS = ("hole", "flop", "turn", "river", "dealer")
MIN_EXPECTED = 5  # the least count a cell must expect for a chi-square to be read
RANKS = 13

# Two cards of one deck, either order, by rank: a pair of one rank 6 of the 1,326 two-card
# hands, two given ranks 16; cells in the order `unordered` folds a 13 x 13 table.
_UPPER = np.triu_indices(RANKS)
PAIR_P = np.where(_UPPER[0] == _UPPER[1], 6 / 1326, 16 / 1326)
UNIFORM_CARD = np.full(52, 1 / 52)
LATER = ("turn", "river", "dealer")  # dealt only in some rounds: tested against each deck


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
    # LATER's cards as each round's remaining deck expects them, summed over the rounds
    expected_later: npt.NDArray[np.float64] = field(
        default_factory=lambda: np.zeros((len(LATER), 52))
    )

    def merge(self, other: CardCounts) -> None:
        self.by_position += other.by_position
        self.expected_later += other.expected_later
        self.hole_ranks += other.hole_ranks
        self.consecutive += other.consecutive
        for day, counts in other.by_day.items():
            self.by_day[day] = self.by_day.get(day, np.zeros(52, np.int64)) + counts


def count(
    rows: Rows,
    bounds: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    days: npt.NDArray[np.int64],
    into: CardCounts,
) -> None:
    """Count a batch's cards: `bounds` each round's first row then the batch's length,
    `keep` the rounds whose cards are sound (integrity found no card twice, no seats
    that disagree), `days` each row's day since 1970-01-01. The consecutive rounds of a
    table are counted by the audit, which carries each table's last round between
    batches (harness/audit/kernel.py `consecutive_cards`)."""
    if not len(rows):
        return
    first_day = int(days.min())
    offset = days - first_day
    by_day = np.zeros((int(offset.max()) + 1, 52), np.int64)
    later = np.concatenate([rows.cards[p] for p in LATER], axis=1)
    widths = np.array([rows.cards[p].shape[1] for p in LATER], np.int64)
    count_cards(
        bounds, keep, rows.cards["hole"], rows.cards["flop"], later, widths, offset,
        into.by_position, into.expected_later, into.hole_ranks, by_day,
    )  # fmt: skip
    for d in np.flatnonzero(by_day.any(axis=1)):
        name = day_name(first_day + int(d))
        into.by_day[name] = into.by_day.get(name, np.zeros(52, np.int64)) + by_day[d]


@dataclass(frozen=True)
class CardTests:
    tests: list[StatResult]
    too_few: list[str]  # the tests the counts are too small to read, and why


def _test(
    name: str,
    observed: npt.NDArray[np.int64],
    p0: npt.NDArray[np.float64],
    description: str,
    family: int,
    df: int | None = None,
) -> StatResult | str:
    """A Pearson chi-square of `observed` against `p0` (`df` its cells less one unless
    given), with the bias it detects with POWER at alpha over the family's size (the
    first step of Holm, each test's own); why not, when too few."""
    n = int(observed.sum())
    if df is None:  # a goodness of fit: every cell expects MIN_EXPECTED
        least = MIN_EXPECTED / float(p0.min()) if p0.min() > 0 else math.inf
    else:  # a contingency table (Cochran): on average, and none below one
        least = max(MIN_EXPECTED * len(p0), 1 / float(p0.min()) if p0.min() > 0 else math.inf)
    if n < least:
        return f"{name}: {n:,} counted, {least:,.0f} needed ({MIN_EXPECTED} expected a cell)"
    expected = n * p0
    stat = float(((observed - expected) ** 2 / expected).sum())
    df = len(p0) - 1 if df is None else df
    special = scipy_special()  # chdtri, chdtrc: the chi-square's isf and sf
    critical = float(special.chdtri(df, ALPHA / family))
    bias = detectable_bias(p0, int(np.argmin(p0)), n, critical)
    detects = f"one cell {bias:.1%} more likely than a fair deal gives it, with {POWER:.0%} power"
    if bias == math.inf:
        detects = f"no single-cell bias with {POWER:.0%} power at this size"
    return StatResult(name, stat, float(special.chdtrc(df, stat)), description, detects, df)


def unordered(ordered: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """A 13 x 13 table of (first, second) ranks folded into unordered pairs (PAIR_P)."""
    table = ordered.reshape(RANKS, RANKS)
    both = table + table.T - np.diag(np.diag(table))
    folded: npt.NDArray[np.int64] = both[_UPPER]
    return folded


def independent(table: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """The cells' probabilities were rows and columns independent, from the margins
    (uniform before any count)."""
    total = table.sum()
    if not total:
        return np.full(table.size, 1 / table.size)
    p: npt.NDArray[np.float64] = np.outer(table.sum(axis=1), table.sum(axis=0)).ravel() / total**2
    return p


def card_tests(counts: CardCounts) -> CardTests:
    """The family: each position, the hole cards' ranks, consecutive rounds, each day."""

    def deck(position: str) -> npt.NDArray[np.float64]:
        if position not in LATER:
            return UNIFORM_CARD
        expected = counts.expected_later[LATER.index(position)]
        total = float(expected.sum())
        return expected / total if total else UNIFORM_CARD

    consecutive = counts.consecutive.reshape(RANKS, RANKS)
    wanted = [
        *(
            (f"card by position: {p}", counts.by_position[k], deck(p),
             f"each card as likely as a {p} card as the rounds' decks make it")
            for k, p in enumerate(POSITIONS)
        ),
        ("hole cards' ranks together", unordered(counts.hole_ranks), PAIR_P,
         "a seat's two hole cards as two cards of one deck, by rank, either order"),
        ("consecutive rounds", consecutive.ravel(), independent(consecutive),
         "a table's first hole card of a round independent of its previous round's, by rank"),
        *(
            (f"hole cards on {day}", c, UNIFORM_CARD, "each card equally likely as a hole card")
            for day, c in sorted(counts.by_day.items())
        ),
    ]  # fmt: skip
    family = len(wanted)
    tests, too_few = [], []
    for name, observed, p0, description in wanted:
        # the margins of the consecutive rounds' table are estimated: (13 - 1)^2 df
        df = (RANKS - 1) ** 2 if name == "consecutive rounds" else None
        result = _test(name, observed, p0, description, family, df)
        if isinstance(result, str):
            too_few.append(result)
        else:
            tests.append(result)
    holm(tests, ALPHA)
    return CardTests(tests, too_few)
