"""Deliberately broken variants of the reference game, one rule fault each.

The harness must prove its power: each mutant has to certify FAIL with the clause
it breaks named (tests/test_mutants.py), while the reference passes. A mutant that
survives means a missing vector or check. Run one by hand with

    chcert certify --adapter "subprocess:python -m harness.reference --mutant NAME"
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.cards import Card, Rank, parse_card
from harness.errors import ErrorReply
from harness.evaluator import Category, category_of, minimum_strength, strength_of
from harness.game import Action
from harness.protocol import ErrorCode
from harness.reference.engine import Dealt, Phase, ReferenceGame, Round, Seat
from harness.reference.store import RoundStore


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


class LeaksUnderAnInnocuousKey(ReferenceGame):
    """Each act's reply carries a 'receipt' ending in the dealer's two cards run together."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        super().act(round=round, seat=seat, action=action)
        dealer = self._rounds[round].dealer
        return {"receipt": f"{round}/{dealer[0]}{dealer[1]}"}


class LeaksACardIndex(ReferenceGame):
    """Each act's reply carries the turn card's byte index as a 'sequence' number."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        super().act(round=round, seat=seat, action=action)
        return {"sequence": self._rounds[round].turn.index}


class LeaksTheDealersHandInAnError(ReferenceGame):
    """A result asked too early is refused with a message naming the dealer's hand."""

    def result(self, round: Any) -> dict[str, Any]:
        rnd = self._round(round)
        if rnd.phase is not Phase.DONE:
            board = (*rnd.flop, rnd.turn, rnd.river)
            hand = category_of(strength_of((*rnd.dealer, *board))).wire
            raise ErrorReply(ErrorCode.ROUND_IN_PROGRESS, f"not yet: the dealer has {hand}")
        return super().result(round)


class LeaksOtherSeatsCards(ReferenceGame):
    """Each act's reply shows the other seats' hole cards (face-down games keep them private)."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        super().act(round=round, seat=seat, action=action)
        seats = self._rounds[round].seats
        return {"table": {str(n): [str(c) for c in s.hole] for n, s in seats.items() if n != seat}}


class RoundIdFromTheDealersCards(ReferenceGame):
    """Round ids are a counter followed by the byte indices of the dealer's two cards."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        reply = super().round(seats=seats, cards=cards)
        rnd = self._rounds.pop(reply["round"])
        self._open_rounds.discard(rnd.ident)
        rnd.ident = f"{rnd.ident}-{rnd.dealer[0].index}-{rnd.dealer[1].index}"
        self._rounds[rnd.ident] = rnd
        self._open_rounds.add(rnd.ident)
        return {**reply, "round": rnd.ident}


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


class AcceptsFractionalAnte(ReferenceGame):
    """An ante of 100.5 is taken as 100 (money read as a float and truncated)."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        if isinstance(seats, list):
            seats = [
                {**s, "ante": int(s["ante"])}
                if isinstance(s, dict) and isinstance(s.get("ante"), float)
                else s
                for s in seats
            ]
        return super().round(seats=seats, cards=cards)


class AcceptsASeatTwice(ReferenceGame):
    """A seat that wagers twice in one round plays its last wager."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        if isinstance(seats, list) and all(isinstance(s, dict) for s in seats):
            seats = list({s.get("seat"): s for s in seats}.values())
        return super().round(seats=seats, cards=cards)


class AcceptsASecondDecision(ReferenceGame):
    """A seat may change its decision until the round is settled: the last one counts."""

    def verify_act(self, rnd: Round, seat: Any, action: Any) -> None:
        if isinstance(seat, int) and seat in rnd.seats and rnd.phase is not Phase.DONE:
            rnd.seats[seat].action = None
        super().verify_act(rnd, seat, action)


class AcceptsActAfterSettlement(ReferenceGame):
    """A decision for a settled round is answered {} and ignored."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        if self._round(round).phase is Phase.DONE:
            return {}
        return super().act(round=round, seat=seat, action=action)


class ShowsResultBeforeTheDecisions(ReferenceGame):
    """`result` before every seat has decided shows the board and the dealer's cards."""

    def result(self, round: Any) -> dict[str, Any]:
        rnd = self._round(round)
        if rnd.phase is Phase.DONE:
            return super().result(round)
        return {
            "board": [str(c) for c in (*rnd.flop, rnd.turn, rnd.river)],
            "dealer": {"hole": [str(c) for c in rnd.dealer], "hand": "pair", "qualifies": True},
            "seats": [
                {"seat": n, "action": "fold", "wagers": {"ante": {"stake": s.ante, "returned": 0},
                 "call": {"stake": 0, "returned": 0}}}
                for n, s in rnd.seats.items()
            ],
        }  # fmt: skip


class AcceptsARepeatedCard(ReferenceGame):
    """A stacked deck holding a card twice is dealt as it is."""

    def _stacked_deal(self, cards: Any, order: list[int]) -> Dealt:
        try:
            return super()._stacked_deal(cards, order)
        except ErrorReply as exc:
            if "twice" not in exc.message:
                raise
        holes = {n: (parse_card(cards["seats"][str(n)][0]), parse_card(cards["seats"][str(n)][1]))
                 for n in order}  # fmt: skip
        dealer = (parse_card(cards["dealer"][0]), parse_card(cards["dealer"][1]))
        flop = (parse_card(cards["flop"][0]), parse_card(cards["flop"][1]),
                parse_card(cards["flop"][2]))  # fmt: skip
        return holes, dealer, flop, parse_card(cards["turn"]), parse_card(cards["river"])


class AnswersAnUnknownRoundWithTheLast(ReferenceGame):
    """A result asked for a round id it never gave is answered with the last round's."""

    def result(self, round: Any) -> dict[str, Any]:
        if round not in self._rounds and self._history:
            round = self._history[-1]
        return super().result(round)


class KeepsTheAnteOfARefusedBet(ReferenceGame):
    """A refused wager is refused, but the table minimum is taken from seat 1 and lost."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        try:
            return super().round(seats=seats, cards=cards)
        except ErrorReply as exc:
            if exc.code == ErrorCode.INVALID_BET:
                kept = super().round(seats=[{"seat": 1, "ante": self.profile.limits.ante[0]}])
                self.act(round=kept["round"], seat=1, action="fold")
            raise


class ForgetsOpenRoundsOnARefusal(ReferenceGame):
    """Any refused decision wipes the rounds still open (a table reset on error)."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        try:
            return super().act(round=round, seat=seat, action=action)
        except ErrorReply:
            for ident in list(self._open_rounds):
                del self._rounds[ident]
            self._open_rounds.clear()
            raise


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


class HistoryKeepsFive(ReferenceGame):
    """Game history recalls only the last five rounds, whatever is asked."""

    def history(self, last: Any = 10) -> dict[str, Any]:
        return super().history(last=min(last, 5) if isinstance(last, int) else last)


class HistoryShowsLossesAsPushes(ReferenceGame):
    """Game history rewrites a lost ante as a push when it recalls a round."""

    def history(self, last: Any = 10) -> dict[str, Any]:
        recalled = super().history(last=last)
        for rnd in recalled["rounds"]:
            for seat in rnd["seats"]:
                ante = seat["wagers"]["ante"]
                ante["returned"] = max(ante["returned"], ante["stake"])
        return recalled


# ------------------------------------------------- faults found in real poker code
#
# Each of these reproduces a kind of fault reported against a public poker evaluator
# or casino game (the docstring names where). Most move money in well under one
# seat-hand in fifty, so only a differential check against the rules oracle over
# many random and stratified deals finds them; benchmarks/mutant_rates.py measures
# how often each one differs on uniform random deals.

# A straight rule: the ranks of some cards (highest first, repeats kept) -> the top
# rank of the straight it finds among them, -1 if none (the wheel's top is the five).
StraightRule = Callable[[list[int]], int]


def _pack(category: Category, ranks: Iterable[int]) -> int:
    """A strength as harness/evaluator.py encodes it: category, then up to five ranks."""
    strength = int(category) << 20
    for place, rank in enumerate(ranks):
        strength |= rank << (16 - 4 * place)
    return strength


def _ranks_of(mask: int, count: int = 13) -> list[int]:
    """The `count` highest ranks of a 13-bit rank mask, highest first."""
    return [r for r in range(12, -1, -1) if mask >> r & 1][:count]


def _mask(ranks: Iterable[int]) -> int:
    mask = 0
    for rank in ranks:
        mask |= 1 << rank
    return mask


def _highest_straight(ranks: list[int]) -> int:
    """The correct rule: the highest five-rank window present, the wheel last."""
    mask = _mask(ranks)
    for high in range(12, 3, -1):
        if mask >> (high - 4) & 0x1F == 0x1F:
            return high
    return 3 if mask & 0x100F == 0x100F else -1


def _evaluate(
    cards: Sequence[Card],
    straight: StraightRule = _highest_straight,
    flush_straight: StraightRule | None = None,
) -> int:
    """The best five of 5 to 7 cards, in plain Python, with a pluggable straight rule (for
    the flush suit, `flush_straight` if given). With the correct rule it equals
    `strength_of` (benchmarks/mutant_rates.py checks it); the mutants swap the rule."""
    counts = [0] * 13
    suits: list[list[int]] = [[], [], [], []]
    for card in sorted(cards, reverse=True):
        counts[card.rank] += 1
        suits[card.suit].append(card.rank)
    for suited in suits:
        if len(suited) >= 5:
            high = (flush_straight or straight)(suited)
            if high == int(Rank.ACE):
                return _pack(Category.ROYAL_FLUSH, [high])
            if high >= 0:
                return _pack(Category.STRAIGHT_FLUSH, [high])
            return _pack(Category.FLUSH, suited[:5])
    mask = _mask(r for r in range(13) if counts[r])
    of = {n: [r for r in range(12, -1, -1) if counts[r] == n] for n in (2, 3, 4)}
    if of[4]:
        return _pack(Category.FOUR_OF_A_KIND, [of[4][0], *_ranks_of(mask & ~(1 << of[4][0]), 1)])
    if of[3] and (len(of[3]) > 1 or of[2]):
        return _pack(Category.FULL_HOUSE, [of[3][0], max(of[3][1:] + of[2])])
    high = straight([r for r in range(12, -1, -1) for _ in range(counts[r])])
    if high >= 0:
        return _pack(Category.STRAIGHT, [high])
    if of[3]:
        return _pack(Category.THREE_OF_A_KIND, [of[3][0], *_ranks_of(mask & ~(1 << of[3][0]), 2)])
    if len(of[2]) >= 2:
        high_pair, low_pair = of[2][:2]
        rest = mask & ~(1 << high_pair) & ~(1 << low_pair)
        return _pack(Category.TWO_PAIR, [high_pair, low_pair, *_ranks_of(rest, 1)])
    if of[2]:
        return _pack(Category.PAIR, [of[2][0], *_ranks_of(mask & ~(1 << of[2][0]), 3)])
    return _pack(Category.HIGH_CARD, _ranks_of(mask, 5))


def _rank_field(strength: int, place: int) -> int:
    """The rank in place 0..4 of a strength (0 is the most significant)."""
    return (strength >> (16 - 4 * place)) & 0xF


def _counts(cards: Sequence[Card]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for card in cards:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    return counts


class _FaultyEvaluation(ReferenceGame):
    """Base of the evaluation mutants: one faulty evaluator scores every seat's final hand
    and the dealer's, as one evaluator would in a real game (the AA Bonus keeps the
    engine's evaluation, so each mutant breaks one clause)."""

    def evaluate(self, cards: Sequence[Card]) -> int:
        return strength_of(cards)

    def player_strength(self, rnd: Round, seat: Seat, board: tuple[Card, ...]) -> int:
        return self.evaluate((*seat.hole, *board))

    def _finish(self, rnd: Round) -> None:
        # The engine scores the dealer inside _finish with no hook: score the dealer again
        # with the faulty evaluator and settle the calls again (settlement overwrites).
        super()._finish(rnd)
        rnd.dealer_strength = self.evaluate((*rnd.dealer, *rnd.flop, rnd.turn, rnd.river))
        for seat in rnd.seats.values():
            if seat.action is Action.CALL:
                self.settle_called_seat(seat, rnd.dealer_strength)


class StraightFlushFromSeparateCards(_FaultyEvaluation):
    """A flush and a straight made of different cards score as a straight flush.

    The fault of Jberczel/holdem#1 ("Need to check same 5 cards are flush and
    straight": 9c Th Jh Qh Kh 2h 3h ranked a straight flush) and phstc/javapokertexasholdem#4.
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        strength = strength_of(cards)
        high = _highest_straight(sorted((c.rank for c in cards), reverse=True))
        if category_of(strength) is Category.FLUSH and high >= 0:
            royal = high == int(Rank.ACE)
            return _pack(Category.ROYAL_FLUSH if royal else Category.STRAIGHT_FLUSH, [high])
        return strength


class TwoTripsNotAFullHouse(_FaultyEvaluation):
    """Two three-of-a-kinds among the seven cards score as three of a kind, not a full house.

    The full house test looks for a pair beside the trips; sneppy/pokerl#3 ("Full with two
    threeakind not recognized"), NikolayIT/TexasHoldemGameEngine#2.
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        strength = strength_of(cards)
        trips = sorted((r for r, n in _counts(cards).items() if n == 3), reverse=True)
        if len(trips) == 2:
            single = max(r for r, n in _counts(cards).items() if n == 1)
            return _pack(Category.THREE_OF_A_KIND, [trips[0], *sorted((trips[1], single))[::-1]])
        return strength


class ThirdPairAsKicker(_FaultyEvaluation):
    """With three pairs, the third pair is the two pair's kicker even below a higher single card.

    Chia-Network/chia-gaming#256 (the kicker taken from the third pair, not the highest
    singleton) and claudijo/poker-ts#15 (A-A-6-6 with the 3-3's three as kicker, not the Q).
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        strength = strength_of(cards)
        pairs = sorted((r for r, n in _counts(cards).items() if n == 2), reverse=True)
        if len(pairs) == 3 and category_of(strength) is Category.TWO_PAIR:
            return _pack(Category.TWO_PAIR, pairs)
        return strength


class FlushTopCardOnly(_FaultyEvaluation):
    """A flush is valued by its highest card alone: flushes with the same top card tie.

    ishikota/PyPokerEngine#78 ("The flush can not be simply represented with only the
    max_rank_card"); sneppy/pokerl#2 ("Flush should return 5 kickers").
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        strength = strength_of(cards)
        if category_of(strength) is Category.FLUSH:
            return _pack(Category.FLUSH, [_rank_field(strength, 0)])
        return strength


class LongFlushLowestFive(_FaultyEvaluation):
    """With six or seven cards of the flush suit, the flush keeps the lowest five, not the highest.

    The wrong end of a sorted list (claudijo/poker-ts#15: `cards.slice(-5)` chose the
    wrong five cards) on the six-suited structure goldfire/pokersolver#31 mishandled.
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        strength = strength_of(cards)
        for suit in range(4):
            suited = sorted((c.rank for c in cards if c.suit == suit), reverse=True)
            if len(suited) >= 6 and category_of(strength) is Category.FLUSH:
                return _pack(Category.FLUSH, suited[-5:])
        return strength


def _lowest_straight(ranks: list[int]) -> int:
    """Windows tried from the bottom up: the first straight found is the lowest."""
    mask = _mask(ranks)
    if mask & 0x100F == 0x100F:
        return 3
    for high in range(4, 13):
        if mask >> (high - 4) & 0x1F == 0x1F:
            return high
    return -1


class LowestStraightOfALongRun(_FaultyEvaluation):
    """Six or seven connected ranks score as the lowest straight among them, not the highest.

    NikolayIT/TexasHoldemGameEngine#3: "this way not the highest possible straight is
    returned but the lowest instead".
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        return _evaluate(cards, straight=_lowest_straight)


def _run_scan(ranks: list[int]) -> int:
    """Scan the sorted ranks for five in a row, restarting the run at any break, a repeated
    rank included (the fault); an ace also counts low after the deuce."""
    sequence = ranks + [-1] * ranks.count(int(Rank.ACE))
    run = 1
    for before, rank in itertools.pairwise(sequence):
        run = run + 1 if rank == before - 1 else 1
        if run == 5:
            return rank + 4
    return -1


class PairedStraightMissed(_FaultyEvaluation):
    """A paired card inside a straight breaks it: 5-6-6-7-8-9 is not seen as a straight.

    Consecutive sorted cards compared without removing repeated ranks: sixteenstudio/poker#2
    (tests added for "hands with multiple cards in the straight, like 2,3,3,4,5,6,6"),
    NikolayIT/TexasHoldemGameEngine#3 ("straightCards ... returns duplicates").
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        return _evaluate(cards, straight=_run_scan, flush_straight=_highest_straight)


def _wheel_missed(ranks: list[int]) -> int:
    high = _highest_straight(ranks)
    return -1 if high == int(Rank.FIVE) else high


class SteelWheelNotAStraightFlush(_FaultyEvaluation):
    """A-2-3-4-5 of one suit scores as a flush: the ace-low straight flush is not seen.

    pokerth/pokerth#369 ("Straight flush - Ace low": AD-2D-3D-4D-5D lost to a straight).
    Rare by nature: about 1 seven-card hand in 30,000 holds a steel wheel (the
    differential's stratified rounds deal straight flushes of every height).
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        return _evaluate(cards, flush_straight=_wheel_missed)


def _wheel_ace_high(ranks: list[int]) -> int:
    high = _highest_straight(ranks)
    return int(Rank.ACE) if high == int(Rank.FIVE) else high


class WheelRankedAceHigh(_FaultyEvaluation):
    """A straight using the ace low (A-2-3-4-5) is ranked by its ace, above a king-high straight
    (and a steel wheel becomes a royal flush).

    Straights compared by their highest card, the ace counted high:
    NikolayIT/TexasHoldemGameEngine#3 (comparing 6-5-4-3-2 with 5-4-3-2-A, "Aces can be in
    the beginning or the end of hand").
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        return _evaluate(cards, straight=_wheel_ace_high)


def _no_king_high(ranks: list[int]) -> int:
    """Broadway is tested on its own, then the loop starts one window too low: 9-T-J-Q-K is
    never tried."""
    mask = _mask(ranks)
    tops: list[int] = [int(Rank.ACE), *range(int(Rank.QUEEN), int(Rank.FIVE), -1)]
    for high in tops:
        if mask >> (high - 4) & 0x1F == 0x1F:
            return high
    return 3 if mask & 0x100F == 0x100F else -1


class KingHighStraightMissed(_FaultyEvaluation):
    """A straight to the king (9-T-J-Q-K) is not seen: the hand falls to a lower straight or
    to its pairs and high cards (straight flushes alike).

    Jarrrk/HighLife#6188, #6298 and #6457 (straights ending in the king counted as king high,
    "for players as well as the house").
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        return _evaluate(cards, straight=_no_king_high)


class QuadsKickerIgnored(_FaultyEvaluation):
    """Four of a kind is valued by its rank alone: with quads on the board every hand ties.

    danielpaz6/Poker-Hand-Evaluator#4 (board 3 7 7 7 7: "Player B [4 6] should win" on
    the kicker); datamllab/rlcard#177 (four of a kind tie break). Needs four of a kind
    on the board (about 1 deal in 4,000) and kickers that differ.
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        strength = strength_of(cards)
        if category_of(strength) is Category.FOUR_OF_A_KIND:
            return _pack(Category.FOUR_OF_A_KIND, [_rank_field(strength, 0)])
        return strength


class TwoPairSecondPairIgnored(_FaultyEvaluation):
    """Two pair is valued by the higher pair and the kicker: the lower pair is not compared.

    danielpaz6/Poker-Hand-Evaluator#3 ("Two pairs determined only by the highest pair":
    22 66 against 55 66).
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        strength = strength_of(cards)
        if category_of(strength) is Category.TWO_PAIR:
            kicker = _rank_field(strength, 2)
            return _pack(Category.TWO_PAIR, [_rank_field(strength, 0), 0, kicker])
        return strength


class HoleCardMustPlay(_FaultyEvaluation):
    """Every hand must use at least one of its own two cards: "playing the board" is not allowed.

    The misreading in worldveil/deuces#31 ("Neither player has one of their hole cards in
    play") and axross/holdem#18 (Omaha's rule applied to hold'em), coded as rules.
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        hole, board = cards[:2], cards[2:]
        fives = itertools.chain.from_iterable(
            (
                itertools.product(
                    itertools.combinations(hole, k), itertools.combinations(board, 5 - k)
                )
            )
            for k in (1, 2)
        )
        return max(strength_of((*mine, *shared)) for mine, shared in fives)


class KickersComparedToDepthThree(ReferenceGame):
    """Hands are compared on at most three ranks: a pair's third kicker and a flush's or high
    hand's fourth and fifth cards never decide (the hands push).

    A kicker loop with a depth limit, as the `limitCheck` of danielpaz6/Poker-Hand-Evaluator#4;
    exercism's poker canonical data: "tie compares next highest ranked, down to last card".
    """

    def compare(self, player: int, dealer: int) -> int:
        return super().compare(player >> 8, dealer >> 8)


def _round_of(game: ReferenceGame, seat: Seat) -> Round:
    return next(r for r in game._rounds.values() if r.seats.get(seat.number) is seat)


def _pushed(game: ReferenceGame, seat: Seat, dealer: int) -> bool:
    assert seat.final_strength is not None
    return game.dealer_qualifies(dealer) and game.compare(seat.final_strength, dealer) == 0


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


class AAPairOfAcesNeedsAHoleAce(ReferenceGame):
    """The AA Bonus pair-of-aces row pays only when a hole card is an ace: two aces on the flop
    alone lose.

    A house rule for other jackpots ("To qualify for the jackpot you must use your two
    cards and the Flop", skycitydarwin.com.au Texas Hold'em) applied to the AA Bonus, whose
    five cards are hole and flop together (000 "Side bets").
    """

    def _settle_aa_bonus(self, seat: Seat, flop: tuple[Card, Card, Card]) -> None:
        super()._settle_aa_bonus(seat, flop)
        strength = strength_of((*seat.hole, *flop))
        pair_of_aces = category_of(strength) is Category.PAIR and _rank_field(strength, 0) == 12
        if pair_of_aces and all(c.rank is not Rank.ACE for c in seat.hole):
            seat.aa_returned = 0


class AALostOnAPush(ReferenceGame):
    """A winning AA Bonus is lost when the ante and call push (a tie with a qualifying dealer).

    Jarrrk/HighLife#7053 and #8888 (a side bet lost when the main bets are returned: "The
    play, and ante are returned, but the pair plus is not").
    """

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        if _pushed(self, seat, dealer):
            seat.aa_returned = 0


class AAStraightRowMissing(ReferenceGame):
    """The AA Bonus pay table has no straight row: a straight on hole + flop loses.

    Jarrrk/HighLife#8903 ("Poker VIP room not paying pair plus straights") and #8861 (a
    pair and a straight on the side bet not paid).
    """

    def aa_bonus_odds(self, hole_and_flop: int) -> int | None:
        if category_of(hole_and_flop) is Category.STRAIGHT:
            return None
        return super().aa_bonus_odds(hole_and_flop)


# ----------------------------------------------- interrupted rounds (capability recovery)
# Faults of a game that keeps its rounds in a store (--db) and voids (as 002 demands,
# s002-malfunction) or resumes the rounds a crash interrupts; each shows only across a
# restart.


class RedealsAnInterruptedRound(ReferenceGame):
    """After a restart, an interrupted round is dealt again and played on, not voided: a
    crash then lets a player (or the house) escape a bad hand."""

    def _recover(self, store: RoundStore) -> None:
        declared, self.recovery = self.recovery, "resume"
        super()._recover(store)  # interrupted rounds kept open...
        self.recovery = declared  # ...while hello still says void
        for ident in self._interrupted:
            rnd = self._rounds[ident]
            order = sorted(rnd.seats)
            holes, rnd.dealer, rnd.flop, rnd.turn, rnd.river = self._dealt(order)
            for n in order:
                rnd.seats[n].hole = holes[n]


class LosesAPendingAABonusOnRestart(ReferenceGame):
    """The AA Bonus staked in an interrupted round is lost: a voided round returns only
    the ante and call, a resumed one goes on without it."""

    def _void(self, rnd: Round) -> None:
        super()._void(rnd)
        for seat in rnd.seats.values():
            seat.aa_returned = 0

    def _recover(self, store: RoundStore) -> None:
        super()._recover(store)
        for ident in self._interrupted:  # resumed rounds (none when voiding)
            for seat in self._rounds[ident].seats.values():
                seat.aa_bonus = 0


class SettlesAnInterruptedRoundTwice(ReferenceGame):
    """An interrupted round is settled twice: every restart voids again the rounds an
    earlier crash voided (each shows in the history once more), and a resumed round is
    paid twice when it ends."""

    def _recover(self, store: RoundStore) -> None:
        super()._recover(store)
        earlier = [i for i in self._history if self._rounds[i].phase is Phase.VOID]
        self._history.extend(earlier)

    def _finish(self, rnd: Round) -> None:
        super()._finish(rnd)
        if rnd.ident in self._interrupted:  # settled again on top of the first settlement
            for seat in rnd.seats.values():
                seat.ante_returned *= 2
                seat.call_returned *= 2
                seat.aa_returned *= 2


class VoidsButKeepsTheAnte(ReferenceGame):
    """The voided round returns the call and the AA Bonus, but keeps the ante."""

    def _void(self, rnd: Round) -> None:
        super()._void(rnd)
        for seat in rnd.seats.values():
            seat.ante_returned = 0


# Mutants that differ from the reference only across a restart of a game with a store.
RECOVERY_MUTANTS = frozenset(
    {
        "redeals-an-interrupted-round",
        "loses-a-pending-aa-bonus-on-restart",
        "settles-an-interrupted-round-twice",
        "voids-but-keeps-the-ante",
    }
)

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
    "leaks-under-an-innocuous-key": LeaksUnderAnInnocuousKey,
    "leaks-a-card-index": LeaksACardIndex,
    "leaks-the-dealers-hand-in-an-error": LeaksTheDealersHandInAnError,
    "leaks-other-seats-cards": LeaksOtherSeatsCards,
    "round-id-from-the-dealers-cards": RoundIdFromTheDealersCards,
    "accepts-aa-bonus-without-ante": AcceptsAABonusWithoutAnte,
    "ignores-ante-maximum": IgnoresAnteMaximum,
    "accepts-fractional-ante": AcceptsFractionalAnte,
    "accepts-a-seat-twice": AcceptsASeatTwice,
    "accepts-a-second-decision": AcceptsASecondDecision,
    "accepts-act-after-settlement": AcceptsActAfterSettlement,
    "shows-result-before-the-decisions": ShowsResultBeforeTheDecisions,
    "accepts-a-repeated-card": AcceptsARepeatedCard,
    "answers-an-unknown-round-with-the-last": AnswersAnUnknownRoundWithTheLast,
    "keeps-the-ante-of-a-refused-bet": KeepsTheAnteOfARefusedBet,
    "forgets-open-rounds-on-a-refusal": ForgetsOpenRoundsOnARefusal,
    "swaps-turn-and-river": SwapsTurnAndRiver,
    "duplicate-card-in-shuffle": DuplicateCardInShuffle,
    "deals-a-card-twice": DealsACardTwice,
    "history-forgets": HistoryForgets,
    "history-keeps-five": HistoryKeepsFive,
    "history-shows-losses-as-pushes": HistoryShowsLossesAsPushes,
    "straight-flush-from-separate-cards": StraightFlushFromSeparateCards,
    "two-trips-not-a-full-house": TwoTripsNotAFullHouse,
    "third-pair-as-kicker": ThirdPairAsKicker,
    "flush-top-card-only": FlushTopCardOnly,
    "long-flush-lowest-five": LongFlushLowestFive,
    "lowest-straight-of-a-long-run": LowestStraightOfALongRun,
    "paired-straight-missed": PairedStraightMissed,
    "steel-wheel-not-a-straight-flush": SteelWheelNotAStraightFlush,
    "wheel-ranked-ace-high": WheelRankedAceHigh,
    "king-high-straight-missed": KingHighStraightMissed,
    "quads-kicker-ignored": QuadsKickerIgnored,
    "two-pair-second-pair-ignored": TwoPairSecondPairIgnored,
    "hole-card-must-play": HoleCardMustPlay,
    "kickers-compared-to-depth-three": KickersComparedToDepthThree,
    "equal-straights-decided-by-hole-cards": EqualStraightsDecidedByHoleCards,
    "push-pays-the-ante-bonus": PushPaysTheAnteBonus,
    "straight-flush-paid-as-flush": StraightFlushPaidAsFlush,
    "ante-win-in-floating-point": AnteWinInFloatingPoint,
    "aa-pair-of-aces-needs-a-hole-ace": AAPairOfAcesNeedsAHoleAce,
    "aa-lost-on-a-push": AALostOnAPush,
    "aa-straight-row-missing": AAStraightRowMissing,
    "redeals-an-interrupted-round": RedealsAnInterruptedRound,
    "loses-a-pending-aa-bonus-on-restart": LosesAPendingAABonusOnRestart,
    "settles-an-interrupted-round-twice": SettlesAnInterruptedRoundTwice,
    "voids-but-keeps-the-ante": VoidsButKeepsTheAnte,
}
