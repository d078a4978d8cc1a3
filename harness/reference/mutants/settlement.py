"""Settlement mutants: the dealer's qualification, hands compared, the ante and the call.

Each settles a called seat against the rules of 001 rules 11-15 (000 "Rules") in one
wrong way. The last four reproduce faults found in real poker code (a kicker loop cut
short, equal straights split by the hole cards, a push paid as a win, money in floating
point).
"""

from __future__ import annotations

from harness.reference.engine import ReferenceGame
from harness.reference.mutants.hands import _pushed, _round_of
from harness.reference.mutants.registry import Family, mutant
from harness.reference.rounds import Round, Seat
from harness.rules.cards import Card, Rank
from harness.rules.evaluator import Category, category_of, minimum_strength, strength_of
from harness.rules.game import Action


@mutant("qualify-pair-of-threes", profile="standard", clause="s000-r9", family=Family.SETTLEMENT)
class QualifyPairOfThrees(ReferenceGame):
    """The dealer qualifies with a pair of threes (one rank too low)."""

    def dealer_qualifies(self, strength: int) -> bool:
        return strength >= minimum_strength(Category.PAIR, Rank.THREE)


@mutant("qualify-pair-of-fives", profile="standard", clause="s000-r9", family=Family.SETTLEMENT)
class QualifyPairOfFives(ReferenceGame):
    """The dealer needs a pair of fives: a pair of fours no longer qualifies."""

    def dealer_qualifies(self, strength: int) -> bool:
        return strength >= minimum_strength(Category.PAIR, Rank.FIVE)


@mutant("tie-loses", profile="standard", clause="s000-r12", family=Family.SETTLEMENT, fast=True)
class TieLoses(ReferenceGame):
    """A tie with a qualifying dealer loses instead of pushing."""

    def compare(self, player: int, dealer: int) -> int:
        return 1 if player > dealer else -1


@mutant("kickers-ignored", profile="standard", clause="s000-r8", family=Family.SETTLEMENT)
class KickersIgnored(ReferenceGame):
    """Hands of the same category tie: kickers and pair ranks are not compared."""

    def compare(self, player: int, dealer: int) -> int:
        p, d = player >> 20, dealer >> 20
        return (p > d) - (p < d)


@mutant(
    "call-pays-when-dealer-does-not-qualify",
    profile="standard",
    clause="s000-r10",
    family=Family.SETTLEMENT,
)
class CallPaysWhenDealerDoesNotQualify(ReferenceGame):
    """The call wins even money against a non-qualifying dealer instead of pushing."""

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        if not self.dealer_qualifies(dealer):
            seat.call_returned = 2 * self.call_stake(seat)


@mutant("wheel-not-a-straight", profile="standard", clause="s000-r8", family=Family.SETTLEMENT)
class WheelNotAStraight(ReferenceGame):
    """A-2-3-4-5 is not counted as a straight (it falls back to ace high)."""

    def compare(self, player: int, dealer: int) -> int:
        return super().compare(_no_wheel(player), _no_wheel(dealer))


def _no_wheel(strength: int) -> int:
    """Demote a five-high straight to ace-high (a deliberately wrong evaluation)."""
    if strength >> 20 == int(Category.STRAIGHT) and (strength >> 16) & 0xF == int(Rank.FIVE):
        return (int(Rank.ACE) << 16) | (int(Rank.FIVE) << 12) | (2 << 8) | (1 << 4)
    return strength


@mutant("first-seat-hand-for-all", profile="standard", clause="s000-r7", family=Family.SETTLEMENT)
class FirstSeatHandForAll(ReferenceGame):
    """Every seat is settled with the first seat's hand (multi-seat settlement broken)."""

    def player_strength(self, rnd: Round, seat: Seat, board: tuple[Card, ...]) -> int:
        first = rnd.seats[min(rnd.seats)]
        return strength_of((*first.hole, *board))


@mutant("call-three-times-ante", profile="standard", clause="s000-r5", family=Family.SETTLEMENT)
class CallThreeTimesAnte(ReferenceGame):
    """The call is three times the ante."""

    def call_stake(self, seat: Seat) -> int:
        return 3 * seat.ante if seat.action is Action.CALL else 0


@mutant("qualify-ace-king", profile="standard", clause="s000-r9", family=Family.SETTLEMENT)
class QualifyAceKing(ReferenceGame):
    """The dealer also qualifies with ace-king high (the Caribbean Stud rule)."""

    def dealer_qualifies(self, strength: int) -> bool:
        ace_king = (strength >> 16) & 0xF == int(Rank.ACE) and (strength >> 12) & 0xF == int(
            Rank.KING
        )
        return super().dealer_qualifies(strength) or ace_king


@mutant(
    "non-qualifying-ante-even-money",
    profile="standard",
    clause="s000-antewin",
    family=Family.SETTLEMENT,
)
class NonQualifyingAnteEvenMoney(ReferenceGame):
    """Against a non-qualifying dealer the ante pays 1 to 1 whatever the hand."""

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        if not self.dealer_qualifies(dealer):
            seat.ante_returned = 2 * seat.ante


@mutant("tie-pays-player", profile="standard", clause="s000-r12", family=Family.SETTLEMENT)
class TiePaysPlayer(ReferenceGame):
    """A tie with a qualifying dealer is paid as a player win."""

    def compare(self, player: int, dealer: int) -> int:
        return 1 if player >= dealer else -1


@mutant(
    "dealer-win-takes-ante-only", profile="standard", clause="s000-r13", family=Family.SETTLEMENT
)
class DealerWinTakesAnteOnly(ReferenceGame):
    """A qualifying dealer's win takes the ante but pushes the call."""

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        assert seat.final_strength is not None
        if self.dealer_qualifies(dealer) and self.compare(seat.final_strength, dealer) < 0:
            seat.call_returned = self.call_stake(seat)


# Faults found in real poker code (each docstring names where), rare on random deals:
# the differential check finds them (docs/differential.md).
@mutant(
    "kickers-compared-to-depth-three",
    profile="standard",
    clause="s000-r8",
    family=Family.SETTLEMENT,
    differential=True,
)
class KickersComparedToDepthThree(ReferenceGame):
    """Hands are compared on at most three ranks: a pair's third kicker and a flush's or high
    hand's fourth and fifth cards never decide (the hands push).

    A kicker loop with a depth limit, as the `limitCheck` of danielpaz6/Poker-Hand-Evaluator#4;
    exercism's poker canonical data: "tie compares next highest ranked, down to last card".
    """

    def compare(self, player: int, dealer: int) -> int:
        return super().compare(player >> 8, dealer >> 8)


@mutant(
    "equal-straights-decided-by-hole-cards",
    profile="standard",
    clause="s000-r12",
    family=Family.SETTLEMENT,
    differential=True,
)
class EqualStraightsDecidedByHoleCards(ReferenceGame):
    """Equal straights against a qualifying dealer are decided by the hole cards (highest
    first) instead of pushing; only equal hole ranks push.

    ishikota/PyPokerEngine#68 ("Saw it on a straight in middle cards, so all had the same
    straight but the bot with the highest cards won"; the hole cards are scored below the
    hand); the same rule misstated for Casino Hold'em by i-casinobonus.com ("If you draw
    with the dealer, the highest card out of the remaining ones available to you will
    determine who the winner is").
    """

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        assert seat.final_strength is not None
        if not _pushed(self, seat, dealer) or category_of(dealer) is not Category.STRAIGHT:
            return
        mine = sorted((c.rank for c in seat.hole), reverse=True)
        theirs = sorted((c.rank for c in _round_of(self, seat).dealer), reverse=True)
        if mine > theirs:
            seat.ante_returned = seat.ante * (1 + self.ante_odds(Category.STRAIGHT))
            seat.call_returned = 2 * self.call_stake(seat)
        elif mine < theirs:
            seat.ante_returned = seat.call_returned = 0


@mutant(
    "push-pays-the-ante-bonus",
    profile="standard",
    clause="s000-r12",
    family=Family.SETTLEMENT,
    differential=True,
)
class PushPaysTheAnteBonus(ReferenceGame):
    """A tie with a qualifying dealer on a flush or better pays the ante by the pay table
    (the call still pushes), as if the table's rows were a bonus paid whatever the outcome.

    Three Card Poker's ante bonus, paid "not depending on the dealer's hand or whether the
    player wins or loses" (bf1069.org, Three Card Poker - Bonus), carried over; pushes paid
    as wins in Jarrrk/HighLife#6938.
    """

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        assert seat.final_strength is not None
        odds = self.ante_odds(category_of(seat.final_strength))
        if _pushed(self, seat, dealer) and odds > 1:
            seat.ante_returned = seat.ante * (1 + odds)


@mutant(
    "ante-win-in-floating-point",
    profile="standard",
    clause="s000-antewin",
    family=Family.SETTLEMENT,
    differential=True,
)
class AnteWinInFloatingPoint(ReferenceGame):
    """A winning ante is computed in floating-point major units and truncated back to minor
    units, losing one on some odd stakes (115 at 1 to 1 returns 229).

    Automattic/woocommerce-payments#91 (`intval(8.20 * 100) === 819`),
    responsiv/currency-plugin#56 (`17.08 * 100` truncated to 1707). Triggered by the stake,
    not the cards: an ante of 100 is always exact (benchmarks/mutant_rates.py --stakes random).
    """

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        if seat.ante_returned > seat.ante:
            multiple = seat.ante_returned // seat.ante
            seat.ante_returned = int(seat.ante / 100 * multiple * 100)
