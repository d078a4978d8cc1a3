"""Hands as the mutants read them, shared by the families.

Strengths as harness/rules/evaluator.py encodes them (category, then up to five ranks, four
bits each), built and read in plain Python; `_evaluate`, the best five of 5 to 7 cards
with a pluggable straight rule, which the evaluation mutants break one rule at a time
(with the correct rule it equals `strength_of`: benchmarks/mutant_rates.py checks it);
and a seat's round and push, which settlement faults read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from harness.reference.engine import ReferenceGame
from harness.reference.rounds import Round, Seat
from harness.rules.cards import Card, Rank
from harness.rules.evaluator import Category

# A straight rule: the ranks of some cards (highest first, repeats kept) -> the top
# rank of the straight it finds among them, -1 if none (the wheel's top is the five).
StraightRule = Callable[[list[int]], int]


def _pack(category: Category, ranks: Iterable[int]) -> int:
    """A strength as harness/rules/evaluator.py encodes it: category, then up to five ranks."""
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


def _round_of(game: ReferenceGame, seat: Seat) -> Round:
    return next(r for r in game._rounds.values() if r.seats.get(seat.number) is seat)


def _pushed(game: ReferenceGame, seat: Seat, dealer: int) -> bool:
    assert seat.final_strength is not None
    return game.dealer_qualifies(dealer) and game.compare(seat.final_strength, dealer) == 0
