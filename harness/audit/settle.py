"""Every settled row of a log re-settled at once, as arrays: what the rules oracle pays
(harness/rules/oracle.py), row by row, without a Python call per row.

This is a sieve, not a judge: a row whose money differs from what these arrays say is
handed, with the other seats of its round, to the oracle itself and to the decision
table of docs/differential.md, which name the fault (harness/audit/judge.py). The
arrays hold exactly the oracle's arithmetic; tests/test_audit.py holds them equal to
it on every kind of round, so a row the sieve lets through is one the oracle pays
alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.audit.log import Rows
from harness.rules.cards import Rank
from harness.rules.evaluator import CATEGORY_SHIFT, Category, evaluate_batch, minimum_strength
from harness.rules.profiles import NonQualifyingAnte, Profile

LOSES = -1  # an AA Bonus row the pay table does not list


@dataclass(frozen=True)
class Payouts:
    """A profile's settlement rules as arrays (odds by hand category)."""

    ante_odds: npt.NDArray[np.int64]  # by category; a category not listed pays 1 to 1
    aa_odds: npt.NDArray[np.int64]  # by category of hole + flop, LOSES where not listed
    pair_of_aces: int  # the weakest pair the AA Bonus's pair row pays
    call_multiple: int
    qualifying: int  # the weakest dealer strength that qualifies
    even_unless_player_wins: bool  # a non-qualifying dealer: the ante's table only on a win
    fold_forfeits_aa_bonus: bool
    offers_aa_bonus: bool

    @classmethod
    def of(cls, profile: Profile) -> Payouts:
        ante = np.array([profile.ante_table.pays(c) for c in Category], np.int64)
        aa = np.full(len(Category), LOSES, np.int64)
        if profile.aa_table is not None:  # the rows by name (AABonusTable.row_of)
            for category in Category:
                row = "pair_of_aces" if category == Category.PAIR else category.wire
                odds = profile.aa_table.odds.get(row)
                if category != Category.HIGH_CARD and odds is not None:
                    aa[category] = odds
        return cls(
            ante_odds=ante,
            aa_odds=aa,
            pair_of_aces=minimum_strength(Category.PAIR, Rank.ACE),
            call_multiple=profile.call_multiple,
            qualifying=profile.qualifying_strength,
            even_unless_player_wins=profile.nonqualifying_ante
            is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN,
            fold_forfeits_aa_bonus=profile.fold_forfeits_aa_bonus,
            offers_aa_bonus=profile.aa_table is not None,
        )


@dataclass(frozen=True)
class Owed:
    """What each row is owed by the rules: the call's stake and every return."""

    call: npt.NDArray[np.int64]
    ante_returned: npt.NDArray[np.int64]
    call_returned: npt.NDArray[np.int64]
    aa_bonus_returned: npt.NDArray[np.int64]
    judged: npt.NDArray[np.bool_]  # False: its cards cannot be settled (a board missing)


def _strengths(cards: npt.NDArray[np.int16], rows: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """The best-five strength of each row's cards where `rows`, 0 elsewhere."""
    out = np.zeros(len(cards), np.int64)
    if rows.any():
        out[rows] = evaluate_batch(np.ascontiguousarray(cards[rows], dtype=np.uint8))
    return out


def owed(rules: Payouts, rows: Rows) -> Owed:
    """What the rules pay every row of the batch (a void row: its stakes, returned)."""
    c = rows.cards
    board = np.concatenate([c["flop"], c["turn"], c["river"]], axis=1)
    dealt = rows.shown("flop", "turn", "river", "dealer")
    flop_dealt = rows.shown("flop")
    called = rows.call_made
    ante, aa = rows.amounts["ante"], rows.amounts["aa_bonus"]
    player = _strengths(np.concatenate([c["hole"], board], axis=1), dealt & called)
    dealer = _strengths(np.concatenate([c["dealer"], board], axis=1), dealt & called)
    staked = aa > 0
    aa_hand = _strengths(np.concatenate([c["hole"], c["flop"]], axis=1), flop_dealt & staked)

    call = np.where(called, rules.call_multiple * ante, 0)
    category = player >> CATEGORY_SHIFT
    table_ante = ante * (1 + rules.ante_odds[category])
    qualifies = dealer >= rules.qualifying
    wins, ties = player > dealer, player == dealer
    ante_back = np.where(qualifies, np.where(wins, table_ante, np.where(ties, ante, 0)), table_ante)
    if rules.even_unless_player_wins:
        ante_back = np.where(~qualifies & ~wins, 2 * ante, ante_back)
    call_back = np.where(qualifies, np.where(wins, 2 * call, np.where(ties, call, 0)), call)
    ante_back = np.where(called, ante_back, 0)
    call_back = np.where(called, call_back, 0)

    aa_category = aa_hand >> CATEGORY_SHIFT
    odds = rules.aa_odds[aa_category]
    odds = np.where((aa_category == Category.PAIR) & (aa_hand < rules.pair_of_aces), LOSES, odds)
    aa_back = np.where(odds == LOSES, 0, aa * (1 + odds))
    if rules.fold_forfeits_aa_bonus:
        aa_back = np.where(called, aa_back, 0)
    aa_back = np.where(staked, aa_back, 0)
    judged = np.where(
        called, dealt, ~staked | flop_dealt | (rules.fold_forfeits_aa_bonus & ~called)
    )

    void = rows.void  # every stake back, nothing else
    return Owed(
        call=np.where(void, rows.amounts["call"], call),
        ante_returned=np.where(void, ante, ante_back),
        call_returned=np.where(void, rows.amounts["call"], call_back),
        aa_bonus_returned=np.where(void, aa, aa_back),
        judged=void | judged,
    )


def misstated(rows: Rows, due: Owed) -> npt.NDArray[np.bool_]:
    """The rows whose money is not what the rules owe them."""
    a = rows.amounts
    off: npt.NDArray[np.bool_] = due.judged & (
        (a["call"] != due.call)
        | (a["ante_returned"] != due.ante_returned)
        | (a["call_returned"] != due.call_returned)
        | (a["aa_bonus_returned"] != due.aa_bonus_returned)
    )
    return off


def beyond_arrays(rules: Payouts, rows: Rows) -> npt.NDArray[np.bool_]:
    """The rows whose stakes are so large that a return might not fit the arrays' 64-bit
    integers (stakes up to 2^53 at odds up to the tables' largest): the oracle, with
    Python's exact integers, judges them instead."""
    ante = rows.amounts["ante"].astype(float)
    aa = rows.amounts["aa_bonus"].astype(float)
    most_ante = ante * (1 + float(rules.ante_odds.max())) * max(rules.call_multiple, 2)
    most_aa = aa * (1 + float(max(rules.aa_odds.max(), 0)))
    huge: npt.NDArray[np.bool_] = (most_ante > 2.0**62) | (most_aa > 2.0**62)
    return huge
