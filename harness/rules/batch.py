"""The rules oracle's settlement of many seats at once, as arrays.

`harness/rules/oracle.py` is the statement of the rules, one round at a time, written
to be read beside the rules text. The differential settles tens of thousands of
rounds, and the oracle's records cost more than the game's own work (docs/performance.md);
this module is its arithmetic over arrays: every hand of a batch evaluated in one call
of the evaluator's kernel, every wager settled by the same rules (000 "Rules"
bullets 10-13, 001 rules 6-8 and 12-15, 004 Articles 3 and 6, 003's non-qualifying
ante), and a seat the oracle would refuse marked, never settled.

It is proven equal to the oracle, seat by seat, on every bundled profile and on
variations of each rule it reads (tests/test_batch_settlement.py). It only confirms
agreement: a round a game settles otherwise than these arrays is judged again by the
oracle itself, whose records the decision table reads (docs/differential.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.rules.evaluator import CATEGORY_SHIFT, Category, evaluate_each
from harness.rules.profiles import AABonusTable, NonQualifyingAnte, Profile
from harness.rules.table import Table

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]
LOSES = -1  # an AA Bonus odds entry: the hand is below every row the table pays


@dataclass(frozen=True)
class Seats:
    """A batch's seats, one row each: its seven cards (hole, then the board), its five
    for the AA Bonus (hole, then the flop), the row of its dealer in `dealers`, its
    stakes and its decision."""

    seven: npt.NDArray[np.uint8]  # (seats, 7) card indices
    five: npt.NDArray[np.uint8]  # (seats, 5)
    dealer_row: npt.NDArray[np.intp]  # (seats,) a row of `dealers`
    ante: Ints
    aa_bonus: Ints  # 0: none staked
    called: Flags
    dealers: npt.NDArray[np.uint8]  # (rounds, 7): each round's dealer hole and board


@dataclass(frozen=True)
class SeatsSettled:
    """What the oracle's `settle` gives each seat of a `Seats` batch (its SeatSettlement,
    as numbers), and each round's dealer; `legal` False for a seat whose wagers the
    oracle refuses (verify_wagers), which this module does not settle."""

    hand: Ints  # the category of the seat's best five of seven
    ante_returned: Ints
    call_stake: Ints
    call_returned: Ints
    aa_returned: Ints  # 0 for a seat without an AA Bonus
    legal: Flags
    dealer_hand: Ints  # per round
    dealer_qualifies: Flags  # per round


def _ante_odds(profile: Profile) -> Ints:
    """The ante table's odds by category (the oracle's AnteTable.pays: 1 when unlisted)."""
    return np.array([profile.ante_table.pays(c) for c in Category], np.int64)


def _aa_odds(table: AABonusTable | None) -> Ints:
    """The AA Bonus odds by category, [10] for a pair of aces; LOSES where it loses."""
    odds = table.odds if table is not None else {}
    rows = [c.wire for c in Category]
    rows[Category.PAIR] = ""  # a pair pays only as a pair of aces (AABonusTable.row_of)
    return np.array(
        [odds.get(row, LOSES) for row in rows] + [odds.get("pair_of_aces", LOSES)], np.int64
    )


def _aa_row(strength: Ints) -> Ints:
    """The index into `_aa_odds` of each five-card hand: its category, 10 for aces."""
    category = strength >> CATEGORY_SHIFT
    aces = (category == Category.PAIR) & (((strength >> 16) & 0xF) == 12)
    return np.where(aces, 10, category)


def _legal(profile: Profile, seats: Seats, table: Table | None) -> Flags:
    """The seats whose wagers verify_wagers takes: the rules' (a positive ante, an AA Bonus
    only where the profile has one) and, when given, the table's (Table.refuses)."""
    ante, aa = seats.ante, seats.aa_bonus
    legal: Flags = (ante > 0) & (aa >= 0)
    if profile.aa_table is None:
        legal &= aa == 0
    if table is None:
        return legal
    legal &= (ante >= table.ante[0]) & (ante <= table.ante[1])
    aa_ok: Flags = np.zeros_like(legal)
    if table.aa_bonus is not None:
        aa_ok = (aa >= table.aa_bonus[0]) & (aa <= table.aa_bonus[1])
        cap = table.aa_bonus_max_ante_multiple
        if cap is not None:
            aa_ok &= aa <= cap * ante
    legal &= (aa == 0) | aa_ok
    return legal


def settle_seats(profile: Profile, seats: Seats, table: Table | None = None) -> SeatsSettled:
    """Every seat of the batch settled as harness/rules/oracle.py `settle` settles it."""
    player = evaluate_each(seats.seven).astype(np.int64)
    dealer_each = evaluate_each(seats.dealers).astype(np.int64)
    dealer = dealer_each[seats.dealer_row]
    qualifying = profile.qualifying_strength
    hand = player >> CATEGORY_SHIFT
    ante = seats.ante
    call = profile.call_multiple * ante
    pays = ante * (1 + _ante_odds(profile)[hand])  # the ante at the table's odds
    # settle_ante_and_call: a dealer who does not qualify, then the comparison.
    qualifies = dealer >= qualifying
    even = profile.nonqualifying_ante is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN
    not_qualified_ante = np.where(even & (player <= dealer), 2 * ante, pays)
    ante_returned = np.where(
        qualifies,
        np.select([player > dealer, player == dealer], [pays, ante], 0),
        not_qualified_ante,
    )
    call_returned = np.where(
        qualifies, np.select([player > dealer, player == dealer], [2 * call, call], 0), call
    )
    folded = ~seats.called
    ante_returned = np.where(folded, 0, ante_returned)
    call_stake = np.where(folded, 0, call)
    call_returned = np.where(folded, 0, call_returned)
    # settle_aa_bonus: on hole + flop, lost on a fold where the profile says so.
    aa = seats.aa_bonus
    odds = _aa_odds(profile.aa_table)[_aa_row(evaluate_each(seats.five).astype(np.int64))]
    aa_returned = np.where(odds == LOSES, 0, aa * (1 + odds))
    if profile.fold_forfeits_aa_bonus:
        aa_returned = np.where(folded, 0, aa_returned)
    return SeatsSettled(
        hand=hand,
        ante_returned=ante_returned,
        call_stake=call_stake,
        call_returned=call_returned,
        aa_returned=aa_returned,
        legal=_legal(profile, seats, table),
        dealer_hand=dealer_each >> CATEGORY_SHIFT,
        dealer_qualifies=dealer_each >= qualifying,
    )
