"""Exact game mathematics: the AA Bonus, and the claims checked against it.

The AA Bonus is settled on the player's two hole cards and the three flop cards,
a uniformly random five-card hand, so its exact return comes from the category
counts of all C(52,5) = 2,598,960 five-card hands. Fractions keep the figures
exact until they are printed.

Not yet here (issue 5 continues): the main game's exact house edge under the
optimal strategy, its raise frequency and RTP, and the RTP simulation.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from harness.evaluator import Category, count_five_card_hands
from harness.profiles import AABonusTable, Claim, Profile

FIVE_CARD_HANDS = 2_598_960
CLAIM_TOLERANCE = Fraction(5, 100_000)  # a claim quoted to 0.01% matches when it rounds


@cache
def aa_row_counts() -> dict[str | None, int]:
    """How many of the C(52,5) hole + flop hands fall in each AA Bonus row (None: below)."""
    tally = [int(n) for n in count_five_card_hands()]
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


def check_claim(claim: Claim, computed: Fraction | None) -> dict[str, Any]:
    """A claimed figure against the computed one: confirmed, not reproducible, or not computed."""
    result: dict[str, Any] = {
        "figure": claim.figure,
        "claimed": claim.value,
        "source": f"{claim.source_file}: {claim.source_ref}",
    }
    if computed is None:
        return {**result, "status": "not_computed", "computed": None}
    difference = computed - Fraction(str(claim.value))
    confirmed = abs(difference) <= CLAIM_TOLERANCE
    return {
        **result,
        "status": "confirmed" if confirmed else "not_reproducible",
        "computed": float(computed),
        "difference": float(difference),
    }


def profile_math(profile: Profile) -> dict[str, Any]:
    """What this version computes for a profile, in results.json's `math` form."""
    aa = aa_bonus_math(profile.aa_table) if profile.aa_table is not None else None
    computed: dict[str, Fraction | None] = {
        "aa_bonus_edge": aa.house_edge if aa else None,
        "house_edge": None,
        "rtp": None,
        "raise_frequency": None,
    }
    return {
        "status": "partial",
        "reason": "main-game house edge, RTP, raise frequency and the RTP simulation are not "
        "computed in this version; the AA Bonus is exact",
        "house_edge": None,
        "rtp": None,
        "raise_frequency": None,
        "aa_bonus_edge": float(aa.house_edge) if aa else None,
        "aa_bonus_rows": aa.rows if aa else [],
        "claims": [check_claim(c, computed.get(c.figure)) for c in profile.claims],
        "simulation": None,
    }
