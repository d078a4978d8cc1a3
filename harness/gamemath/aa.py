"""The AA Bonus: exact over all C(52,5) = 2,598,960 hole + flop hands.

The AA Bonus is settled on the player's two hole cards and the three flop cards,
a uniformly random five-card hand, so its exact return comes from the category
counts of all five-card hands. Fractions keep the figures exact until printed.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from harness.gamemath.kernel import five_card_counts
from harness.rules.evaluator import Category
from harness.rules.profiles import AABonusTable

FIVE_CARD_HANDS = 2_598_960


@cache
def aa_row_counts() -> dict[str | None, int]:
    """How many of the C(52,5) hole + flop hands fall in each AA Bonus row (None: below)."""
    tally = [int(n) for n in five_card_counts()]
    aces = tally[10]
    counts: dict[str | None, int] = {
        None: tally[Category.HIGH_CARD] + tally[Category.PAIR] - aces,
        "pair_of_aces": aces,
    }
    for category in list(Category)[Category.TWO_PAIR :]:
        counts[category.wire] = tally[category]
    assert sum(counts.values()) == FIVE_CARD_HANDS
    return counts


@dataclass(frozen=True)
class AABonusMath:
    """The AA Bonus's exact return per unit staked under one pay table."""

    rows: list[dict[str, Any]]
    return_per_unit: Fraction  # expected win per unit staked (negative: the house's)

    @property
    def house_edge(self) -> Fraction:
        return -self.return_per_unit


def aa_bonus_math(table: AABonusTable) -> AABonusMath:
    counts = aa_row_counts()
    rows = []
    expected = Fraction(0)
    for row, count in counts.items():
        odds = table.odds.get(row) if row is not None else None
        probability = Fraction(count, FIVE_CARD_HANDS)
        contribution = probability * (odds if odds is not None else -1)
        expected += contribution
        rows.append(
            {
                "row": row or "below a pair of aces",
                "hands": count,
                "probability": float(probability),
                "pays": odds,
                "contribution": float(contribution),
            }
        )
    return AABonusMath(rows, expected)
