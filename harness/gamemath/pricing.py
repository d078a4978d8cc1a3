"""Pricing a pay table over the census: the optimal decision and what it returns.

The value of calling in a situation is a linear function of its census row
(ante odds by final category, the call's win and loss), so one matrix-vector
product prices every situation of a pay table, and the optimal strategy is a
comparison: call exactly when calling is worth more than the ante lost by folding
(the expected value of calling exceeds -1 ante; an exact tie folds). All sums are
exact integers; figures are Fractions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.gamemath.kernel import ANTE_PAID, COMPLETIONS, LOST, NQ_NOT_BEATEN, SITUATIONS, WON
from harness.rules.evaluator import Category
from harness.rules.profiles import MAX_CALL_MULTIPLE, MAX_ODDS, NonQualifyingAnte, Profile

ROUNDS = SITUATIONS * COMPLETIONS  # every deal of hole, flop, turn, river and dealer cards


@dataclass(frozen=True)
class PlayFigures:
    """The exact return of one way of playing a pay table, per ante unless said otherwise."""

    strategy: str
    call_multiple: int
    raise_frequency: Fraction
    outcomes: dict[str, Fraction]  # fold, dealer_not_qualified, win, tie, loss: sum to 1
    rows: list[dict[str, Any]]  # each ante row: odds, probability paid at it, contribution
    breakdown: dict[str, Fraction]  # the return by source; sums to return_per_ante

    @property
    def return_per_ante(self) -> Fraction:
        return sum(self.breakdown.values(), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return -self.return_per_ante

    @property
    def average_wager(self) -> Fraction:
        """Ante plus the call, in antes, averaged over all rounds."""
        return 1 + self.call_multiple * self.raise_frequency

    @property
    def element_of_risk(self) -> Fraction:
        """House edge per unit of everything wagered (ante and call)."""
        return self.house_edge / self.average_wager

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "house_edge": float(self.house_edge),
            "rtp": float(1 - self.house_edge),
            "element_of_risk": float(self.element_of_risk),
            "rtp_per_total_wager": float(1 - self.element_of_risk),
            "raise_frequency": float(self.raise_frequency),
            "average_wager": float(self.average_wager),
            "outcomes": {k: float(v) for k, v in self.outcomes.items()},
            "rows": self.rows,
            "breakdown": {k: float(v) for k, v in self.breakdown.items()},
            "exact": {
                "house_edge": str(self.house_edge),
                "raise_frequency": str(self.raise_frequency),
            },
        }


def ante_odds(profile: Profile) -> npt.NDArray[np.int64]:
    return np.array([profile.ante_table.pays(c) for c in Category], np.int64)


INT64_LIMIT = 2**63


def exact_bound(profile: Profile) -> int:
    """The largest a situation's value of calling can be in absolute value, in antes over
    its completions: every completion pays at most the largest odds (and at most that
    less one again, 003's even-money correction), or loses the ante and the call. It
    must stay below 2**63 for `call_values` to be exact in int64; the profile's bounds
    (harness/rules/profiles.py MAX_ODDS, MAX_CALL_MULTIPLE) keep it under 2.2e10."""
    odds = [int(profile.ante_table.pays(c)) for c in Category]
    m = int(profile.call_multiple)
    return COMPLETIONS * (2 * max(abs(o) for o in odds) + 2 * (1 + m))


def call_values(census: npt.NDArray[np.int32], profile: Profile) -> npt.NDArray[np.int64]:
    """Sum over the 1,070,190 completions of what calling wins, in antes, per situation.

    Exact in int64 (`exact_bound`); tables beyond it are refused, never priced wrapped
    around (a straight flush at 10**13 once priced the optimal play below always calling)."""
    if exact_bound(profile) >= INT64_LIMIT:
        raise ValueError(
            f"pay odds or call multiple beyond what is priced exactly (profile {profile.name}; "
            f"odds at most {MAX_ODDS:,}, call multiple at most {MAX_CALL_MULTIPLE})"
        )
    odds = ante_odds(profile)
    m = profile.call_multiple
    even = profile.nonqualifying_ante is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN
    value = np.empty(len(census), np.int64)
    for start, rows in _widened(census):
        part = (
            rows[:, ANTE_PAID : ANTE_PAID + 10] @ odds + m * rows[:, WON] - (1 + m) * rows[:, LOST]
        )
        if even:
            for c in (Category.HIGH_CARD, Category.PAIR):  # paid 1 to 1, not by the table
                part -= (odds[c] - 1) * rows[:, NQ_NOT_BEATEN + c]
        value[start : start + len(rows)] = part
    return value


WIDENED_ROWS = 1 << 15  # census rows widened to int64 at a time: a few MB, kept in cache


def _widened(census: npt.NDArray[np.int32]) -> Iterator[tuple[int, npt.NDArray[np.int64]]]:
    """The census a block of rows at a time, as int64 (exact sums), with each block's
    first row: the whole census widened at once would be 144 MB written and read back."""
    for start in range(0, len(census), WIDENED_ROWS):
        yield start, census[start : start + WIDENED_ROWS].astype(np.int64)


def optimal_calls(values: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Call exactly when calling is worth more than folding's -1 ante per completion."""
    return values > -COMPLETIONS  # type: ignore[no-any-return]


def play_figures(
    census: npt.NDArray[np.int32],
    weight: npt.NDArray[np.int64],
    profile: Profile,
    calls: npt.NDArray[np.bool_],
    strategy: str,
) -> PlayFigures:
    """Exact figures of playing `profile` calling in the situations marked in `calls`."""
    m = profile.call_multiple
    w = weight * calls
    called = int(w.sum())
    summed = np.zeros(census.shape[1], np.int64)
    for start, rows in _widened(census):
        summed += w[start : start + len(rows)] @ rows
    totals = [int(x) for x in summed]
    ante = totals[ANTE_PAID : ANTE_PAID + 10]
    even = [0] * 10
    if profile.nonqualifying_ante is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN:
        for c in (Category.HIGH_CARD, Category.PAIR):
            even[c] = totals[NQ_NOT_BEATEN + c]
            ante[c] -= even[c]
    won, lost = totals[WON], totals[LOST]
    not_qualified = sum(ante) + sum(even) - won
    tie = called * COMPLETIONS - not_qualified - won - lost
    folded = (SITUATIONS - called) * COMPLETIONS
    outcomes = {
        "fold": Fraction(folded, ROUNDS),
        "dealer_not_qualified": Fraction(not_qualified, ROUNDS),
        "win": Fraction(won, ROUNDS),
        "tie": Fraction(tie, ROUNDS),
        "loss": Fraction(lost, ROUNDS),
    }
    listed = profile.ante_table.odds
    paid = {c.wire: (listed[c], Fraction(ante[c], ROUNDS)) for c in sorted(listed, reverse=True)}
    others = sum(ante[c] for c in Category if c not in listed) + sum(even)
    paid["any other hand"] = (1, Fraction(others, ROUNDS))
    ante_won = sum((odds * p for odds, p in paid.values()), Fraction(0))
    breakdown = {
        "ante_won": ante_won,
        "call_won": m * outcomes["win"],
        "lost": -(1 + m) * outcomes["loss"],
        "folded": -outcomes["fold"],
    }
    return PlayFigures(
        strategy=strategy,
        call_multiple=m,
        raise_frequency=Fraction(called, SITUATIONS),
        outcomes=outcomes,
        rows=[
            {"row": row, "odds": odds, "probability": float(p), "contribution": float(odds * p)}
            for row, (odds, p) in paid.items()
        ],
        breakdown=breakdown,
    )
