"""Every settled row of a log re-settled at once: what the rules oracle pays
(harness/rules/oracle.py), row by row, in a compiled loop (harness/audit/kernel.py
`settle_rows`) without a Python call per row.

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

from harness.audit.kernel import settle_rows
from harness.audit.log import Rows
from harness.rules.cards import Rank
from harness.rules.evaluator import Category, minimum_strength
from harness.rules.lookup import TABLES
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


def owed(rules: Payouts, rows: Rows) -> Owed:
    """What the rules pay every row of the batch (a void row: its stakes, returned)."""
    c = rows.cards
    out = np.zeros((5, len(rows)), np.int64)
    flags = (rules.call_multiple, rules.qualifying, rules.pair_of_aces,
             rules.even_unless_player_wins, rules.fold_forfeits_aa_bonus, LOSES)  # fmt: skip
    settle_rows(
        c["hole"], c["flop"], c["turn"], c["river"], c["dealer"], rows.call_made, rows.void,
        rows.amounts["ante"], rows.amounts["call"], rows.amounts["aa_bonus"],
        rules.ante_odds, rules.aa_odds, np.array(flags, np.int64), TABLES, out,
    )  # fmt: skip
    return Owed(out[0], out[1], out[2], out[3], out[4].astype(bool))


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
