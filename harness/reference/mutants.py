"""Deliberately broken variants of the reference game, one rule fault each.

The harness must prove its power: each mutant has to certify FAIL with the clause
it breaks named (tests/test_mutants.py), while the reference passes. A mutant that
survives means a missing vector or check. Run one by hand with

    chcert certify --adapter "subprocess:python -m harness.reference --mutant NAME"
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.cards import Card, Rank
from harness.evaluator import Category, minimum_strength, strength_of
from harness.game import Action
from harness.reference.engine import Dealt, ReferenceGame, Round, Seat


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


class AAPairOfKingsWins(ReferenceGame):
    """The AA Bonus pays any pair of kings or better, not only aces."""

    def aa_bonus_odds(self, hole_and_flop: int) -> int | None:
        is_pair = hole_and_flop >> 20 == int(Category.PAIR)
        if is_pair and (hole_and_flop >> 16) & 0xF == int(Rank.KING):
            return 7
        return super().aa_bonus_odds(hole_and_flop)


class AAFlushPays25(ReferenceGame):
    """The AA Bonus pays a flush 25 to 1 on the full table (the two tables mixed up)."""

    def aa_bonus_odds(self, hole_and_flop: int) -> int | None:
        if hole_and_flop >> 20 == int(Category.FLUSH):
            return 25
        return super().aa_bonus_odds(hole_and_flop)


class AASettledAfterRiver(ReferenceGame):
    """The AA Bonus is settled only after the turn and river are out."""

    def _finish(self, rnd: Round) -> None:
        super()._finish(rnd)
        settled = [e for e in rnd.events if e["type"] == "aa_bonus_settled"]
        rest = [e for e in rnd.events if e["type"] != "aa_bonus_settled"]
        river = next(i for i, e in enumerate(rest) if e["type"] == "river_dealt")
        rnd.events[:] = rest[: river + 1] + settled + rest[river + 1 :]


class FoldForfeitsAABonus(ReferenceGame):
    """A fold surrenders the AA Bonus where Article 6 of 004 keeps it (certify as source-004)."""

    def aa_bonus_survives_fold(self) -> bool:
        return False


class FirstSeatHandForAll(ReferenceGame):
    """Every seat is settled with the first seat's hand (multi-seat settlement broken)."""

    def player_strength(self, rnd: Round, seat: Seat, board: tuple[Card, ...]) -> int:
        first = rnd.seats[min(rnd.seats)]
        return strength_of((*first.hole, *board))


class StraightFlushPaysRoyal(ReferenceGame):
    """A straight flush is paid from the royal flush row."""

    def ante_odds(self, category: Category) -> int:
        if category is Category.STRAIGHT_FLUSH:
            category = Category.ROYAL_FLUSH
        return super().ante_odds(category)


class QuadsPaysTwelve(ReferenceGame):
    """Four of a kind pays 12 to 1, Table 2's row, on a 10 to 1 table."""

    def ante_odds(self, category: Category) -> int:
        return 12 if category is Category.FOUR_OF_A_KIND else super().ante_odds(category)


class CallThreeTimesAnte(ReferenceGame):
    """The call is three times the ante."""

    def call_stake(self, seat: Seat) -> int:
        return 3 * seat.ante if seat.action is Action.CALL else 0


class QualifyAceKing(ReferenceGame):
    """The dealer also qualifies with ace-king high (the Caribbean Stud rule)."""

    def dealer_qualifies(self, strength: int) -> bool:
        ace_king = (strength >> 16) & 0xF == int(Rank.ACE) and (strength >> 12) & 0xF == int(
            Rank.KING
        )
        return super().dealer_qualifies(strength) or ace_king


class NonQualifyingAnteEvenMoney(ReferenceGame):
    """Against a non-qualifying dealer the ante pays 1 to 1 whatever the hand."""

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        if not self.dealer_qualifies(dealer):
            seat.ante_returned = 2 * seat.ante


class TiePaysPlayer(ReferenceGame):
    """A tie with a qualifying dealer is paid as a player win."""

    def compare(self, player: int, dealer: int) -> int:
        return 1 if player >= dealer else -1


class DealerWinTakesAnteOnly(ReferenceGame):
    """A qualifying dealer's win takes the ante but pushes the call."""

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        assert seat.final_strength is not None
        if self.dealer_qualifies(dealer) and self.compare(seat.final_strength, dealer) < 0:
            seat.call_returned = self.call_stake(seat)


class LeaksDealerCards(ReferenceGame):
    """The round reply shows the dealer's hole cards before anyone decides."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        reply = super().round(seats=seats, cards=cards)
        reply["dealer"] = [str(c) for c in self._rounds[reply["round"]].dealer]
        return reply


class AcceptsAABonusWithoutAnte(ReferenceGame):
    """An AA Bonus without an ante is accepted (the seat plays the minimum ante)."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        if isinstance(seats, list):
            seats = [
                {**s, "ante": self.profile.limits.ante[0]}
                if isinstance(s, dict) and s.get("aa_bonus") and not s.get("ante")
                else s
                for s in seats
            ]
        return super().round(seats=seats, cards=cards)


class IgnoresAnteMaximum(ReferenceGame):
    """Antes above the declared maximum are accepted."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        hi = self.profile.limits.ante[1]
        if isinstance(seats, list) and any(
            isinstance(s, dict) and isinstance(s.get("ante"), int) and s["ante"] > hi for s in seats
        ):
            clipped = [{**s, "ante": min(s["ante"], hi)} for s in seats]
            return super().round(seats=clipped, cards=cards)
        return super().round(seats=seats, cards=cards)


class SwapsTurnAndRiver(ReferenceGame):
    """The stacked turn and river are dealt in the wrong order."""

    def _stacked_deal(self, cards: Any, order: list[int]) -> Dealt:
        holes, dealer, flop, turn, river = super()._stacked_deal(cards, order)
        return holes, dealer, flop, river, turn


class DuplicateCardInShuffle(ReferenceGame):
    """One deck in ten repeats a card (a broken shuffle)."""

    def shuffled_decks(self, count: int) -> npt.NDArray[np.uint8]:
        decks = super().shuffled_decks(count)
        for d in range(count):
            if secrets.randbelow(10) == 0:
                decks[d, 51] = decks[d, 0]
        return decks


class DealsACardTwice(ReferenceGame):
    """One round in five repeats the deck's first card as its sixteenth: at a full table
    the dealer's second card is the first seat's first card (a broken deal, silent)."""

    def shuffled_deck(self) -> list[int]:
        deck = super().shuffled_deck()
        if secrets.randbelow(5) == 0:
            deck[15] = deck[0]
        return deck


class HistoryForgets(ReferenceGame):
    """Game history recalls nothing."""

    def history(self, last: Any = 10) -> dict[str, Any]:
        return {"rounds": []}


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
    "aa-pair-of-kings-wins": AAPairOfKingsWins,
    "aa-flush-pays-25": AAFlushPays25,
    "aa-settled-after-river": AASettledAfterRiver,
    "fold-forfeits-aa-bonus": FoldForfeitsAABonus,
    "first-seat-hand-for-all": FirstSeatHandForAll,
    "straight-flush-pays-royal": StraightFlushPaysRoyal,
    "quads-pays-twelve": QuadsPaysTwelve,
    "call-three-times-ante": CallThreeTimesAnte,
    "qualify-ace-king": QualifyAceKing,
    "non-qualifying-ante-even-money": NonQualifyingAnteEvenMoney,
    "tie-pays-player": TiePaysPlayer,
    "dealer-win-takes-ante-only": DealerWinTakesAnteOnly,
    "leaks-dealer-cards": LeaksDealerCards,
    "accepts-aa-bonus-without-ante": AcceptsAABonusWithoutAnte,
    "ignores-ante-maximum": IgnoresAnteMaximum,
    "swaps-turn-and-river": SwapsTurnAndRiver,
    "duplicate-card-in-shuffle": DuplicateCardInShuffle,
    "deals-a-card-twice": DealsACardTwice,
    "history-forgets": HistoryForgets,
}
