"""Pay table mutants: the ante paid from the wrong row of 001 rule 12's table.

The last reproduces a fault found in real poker code (a straight flush paid as a flush).
"""

from __future__ import annotations

from harness.reference.engine import ReferenceGame
from harness.reference.mutants.registry import Family, mutant
from harness.rules.evaluator import Category


@mutant(
    "royal-paid-as-straight-flush",
    profile="standard",
    clause="s000-antewin",
    family=Family.PAY_TABLES,
)
class RoyalPaidAsStraightFlush(ReferenceGame):
    """A royal flush is paid from the straight flush row."""

    def ante_odds(self, category: Category) -> int:
        if category is Category.ROYAL_FLUSH:
            category = Category.STRAIGHT_FLUSH
        return super().ante_odds(category)


@mutant(
    "flush-pays-even-money", profile="standard", clause="s000-antewin", family=Family.PAY_TABLES
)
class FlushPaysEvenMoney(ReferenceGame):
    """The ante pay table's flush row is missing."""

    def ante_odds(self, category: Category) -> int:
        return 1 if category is Category.FLUSH else super().ante_odds(category)


@mutant(
    "straight-flush-pays-royal", profile="standard", clause="s000-antewin", family=Family.PAY_TABLES
)
class StraightFlushPaysRoyal(ReferenceGame):
    """A straight flush is paid from the royal flush row."""

    def ante_odds(self, category: Category) -> int:
        if category is Category.STRAIGHT_FLUSH:
            category = Category.ROYAL_FLUSH
        return super().ante_odds(category)


@mutant(
    "quads-pays-twelve",
    profile="standard",
    clause="s000-antewin",
    family=Family.PAY_TABLES,
    fast=True,
)
class QuadsPaysTwelve(ReferenceGame):
    """Four of a kind pays 12 to 1, Table 2's row, on a 10 to 1 table."""

    def ante_odds(self, category: Category) -> int:
        return 12 if category is Category.FOUR_OF_A_KIND else super().ante_odds(category)


# Faults found in real poker code (each docstring names where), rare on random deals:
# the differential check finds them (docs/differential.md).
@mutant(
    "straight-flush-paid-as-flush",
    profile="standard",
    clause="s000-antewin",
    family=Family.PAY_TABLES,
    differential=True,
)
class StraightFlushPaidAsFlush(ReferenceGame):
    """The ante on a straight flush is paid from the flush row (2 to 1, not 20 to 1); the hand
    is still named a straight flush.

    Jarrrk/HighLife#6239 ("Displays cards as a straight flush but server recognizes it as
    a flush"), #8543 (a straight flush's ante bonus not paid).
    """

    def ante_odds(self, category: Category) -> int:
        if category is Category.STRAIGHT_FLUSH:
            category = Category.FLUSH
        return super().ante_odds(category)
