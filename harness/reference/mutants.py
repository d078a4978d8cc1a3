"""Deliberately broken variants of the reference game, one rule fault each.

The harness must prove its power: each mutant has to certify FAIL with the clause
it breaks named (tests/test_mutants.py), while the reference passes. A mutant that
survives means a missing vector or check. Run one by hand with

    chcert certify --adapter "subprocess:python -m harness.reference --mutant NAME"
"""

from __future__ import annotations

from collections.abc import Callable

from harness.cards import Card, Rank
from harness.evaluator import Category, minimum_strength, strength_of
from harness.game import Action
from harness.reference.engine import ReferenceGame, Seat


class QualifyPairOfThrees(ReferenceGame):
    """The dealer qualifies with a pair of threes (one rank too low)."""

    def dealer_qualifies(self, strength: int) -> bool:
        return strength >= minimum_strength(Category.PAIR, Rank.THREE)


class QualifyPairOfFives(ReferenceGame):
    """The dealer needs a pair of fives: a pair of fours no longer qualifies."""

    def dealer_qualifies(self, strength: int) -> bool:
        return strength >= minimum_strength(Category.PAIR, Rank.FIVE)


class TieLoses(ReferenceGame):
    """A tie with a qualifying dealer loses instead of pushing."""

    def compare(self, player: int, dealer: int) -> int:
        return 1 if player > dealer else -1


class KickersIgnored(ReferenceGame):
    """Hands of the same category tie: kickers and pair ranks are not compared."""

    def compare(self, player: int, dealer: int) -> int:
        p, d = player >> 20, dealer >> 20
        return (p > d) - (p < d)


class CallPaysWhenDealerDoesNotQualify(ReferenceGame):
    """The call wins even money against a non-qualifying dealer instead of pushing."""

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        if not self.dealer_qualifies(dealer):
            seat.call_returned = 2 * self.call_stake(seat)


class RoyalPaidAsStraightFlush(ReferenceGame):
    """A royal flush is paid from the straight flush row."""

    def ante_odds(self, category: Category) -> int:
        if category is Category.ROYAL_FLUSH:
            category = Category.STRAIGHT_FLUSH
        return super().ante_odds(category)


class FlushPaysEvenMoney(ReferenceGame):
    """The ante pay table's flush row is missing."""

    def ante_odds(self, category: Category) -> int:
        return 1 if category is Category.FLUSH else super().ante_odds(category)


class AABonusOnSevenCards(ReferenceGame):
    """The AA Bonus is judged on the final seven cards instead of hole + flop."""

    def _settle_aa_bonus(self, seat: Seat, flop: tuple[Card, Card, Card]) -> None:
        rnd = next(r for r in self._rounds.values() if r.seats.get(seat.number) is seat)
        if seat.action is Action.FOLD and not self.aa_bonus_survives_fold():
            seat.aa_returned = 0
            return
        odds = self.aa_bonus_odds(strength_of((*seat.hole, *flop, rnd.turn, rnd.river)))
        seat.aa_returned = 0 if odds is None else seat.aa_bonus * (1 + odds)


class FoldKeepsAABonus(ReferenceGame):
    """A fold keeps the AA Bonus alive where the rules say it is surrendered."""

    def aa_bonus_survives_fold(self) -> bool:
        return True


class WheelNotAStraight(ReferenceGame):
    """A-2-3-4-5 is not counted as a straight (it falls back to ace high)."""

    def compare(self, player: int, dealer: int) -> int:
        return super().compare(_no_wheel(player), _no_wheel(dealer))


def _no_wheel(strength: int) -> int:
    """Demote a five-high straight to ace-high (a deliberately wrong evaluation)."""
    if strength >> 20 == int(Category.STRAIGHT) and (strength >> 16) & 0xF == int(Rank.FIVE):
        return (int(Rank.ACE) << 16) | (int(Rank.FIVE) << 12) | (2 << 8) | (1 << 4)
    return strength


MUTANTS: dict[str, Callable[..., ReferenceGame]] = {
    "qualify-pair-of-threes": QualifyPairOfThrees,
    "qualify-pair-of-fives": QualifyPairOfFives,
    "tie-loses": TieLoses,
    "kickers-ignored": KickersIgnored,
    "call-pays-when-dealer-does-not-qualify": CallPaysWhenDealerDoesNotQualify,
    "royal-paid-as-straight-flush": RoyalPaidAsStraightFlush,
    "flush-pays-even-money": FlushPaysEvenMoney,
    "aa-bonus-on-seven-cards": AABonusOnSevenCards,
    "fold-keeps-aa-bonus": FoldKeepsAABonus,
    "wheel-not-a-straight": WheelNotAStraight,
}
