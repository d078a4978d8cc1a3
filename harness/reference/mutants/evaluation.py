"""Evaluation mutants: hand evaluators as real poker code got them wrong.

Each reproduces a kind of fault reported against a public poker evaluator or casino
game (the docstring names where). Most move money in well under one seat-hand in fifty,
so only a differential check against the rules oracle over many random and stratified
deals finds them; benchmarks/mutant_rates.py measures how often each one differs on
uniform random deals.

Each names the clause the decision table of docs/differential.md attributes it to: a
wrong best five whose hand names stay right shows only as hands compared wrongly
(s000-r8), and an AA Bonus row not paid as a hand judged not to win (s000-sidebet).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from harness.reference.engine import ReferenceGame
from harness.reference.mutants.hands import _evaluate, _highest_straight, _mask, _pack, _rank_field
from harness.reference.mutants.registry import Family, mutant
from harness.reference.rounds import Round, Seat
from harness.rules.cards import Card, Rank
from harness.rules.evaluator import Category, category_of, strength_of
from harness.rules.game import Action


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


@mutant(
    "straight-flush-from-separate-cards",
    profile="standard",
    clause="s000-r7",
    family=Family.EVALUATION,
    differential=True,
)
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


@mutant(
    "two-trips-not-a-full-house",
    profile="standard",
    clause="s000-r7",
    family=Family.EVALUATION,
    differential=True,
)
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


@mutant(
    "third-pair-as-kicker",
    profile="standard",
    clause="s000-r8",
    family=Family.EVALUATION,
    differential=True,
    also=("s000-r12",),
)
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


@mutant(
    "flush-top-card-only",
    profile="standard",
    clause="s000-r8",
    family=Family.EVALUATION,
    differential=True,
)
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


@mutant(
    "long-flush-lowest-five",
    profile="standard",
    clause="s000-r8",
    family=Family.EVALUATION,
    differential=True,
    differential_also=("s000-r12",),
)
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


@mutant(
    "lowest-straight-of-a-long-run",
    profile="standard",
    clause="s000-r7",
    family=Family.EVALUATION,
    differential=True,
    also=("s000-r8", "s000-r12"),
)
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


@mutant(
    "paired-straight-missed",
    profile="standard",
    clause="s000-r7",
    family=Family.EVALUATION,
    differential=True,
    differential_also=("s000-r8", "s000-r12"),
)
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


@mutant(
    "steel-wheel-not-a-straight-flush",
    profile="standard",
    clause="s000-r7",
    family=Family.EVALUATION,
    differential=True,
)
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


@mutant(
    "wheel-ranked-ace-high",
    profile="standard",
    clause="s000-r7",
    family=Family.EVALUATION,
    differential=True,
    also=("s000-r8",),  # a wheel beating a higher straight: hands compared (the corpus's too)
)
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


@mutant(
    "king-high-straight-missed",
    profile="standard",
    clause="s000-r7",
    family=Family.EVALUATION,
    differential=True,
    also=("s000-r8",),
)
class KingHighStraightMissed(_FaultyEvaluation):
    """A straight to the king (9-T-J-Q-K) is not seen: the hand falls to a lower straight or
    to its pairs and high cards (straight flushes alike).

    Jarrrk/HighLife#6188, #6298 and #6457 (straights ending in the king counted as king high,
    "for players as well as the house").
    """

    def evaluate(self, cards: Sequence[Card]) -> int:
        return _evaluate(cards, straight=_no_king_high)


@mutant(
    "quads-kicker-ignored",
    profile="standard",
    clause="s000-r8",
    family=Family.EVALUATION,
    differential=True,
)
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


@mutant(
    "two-pair-second-pair-ignored",
    profile="standard",
    clause="s000-r8",
    family=Family.EVALUATION,
    differential=True,
)
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


@mutant(
    "hole-card-must-play",
    profile="standard",
    clause="s000-r7",
    family=Family.EVALUATION,
    differential=True,
    also=("s000-r12",),
)
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
