"""The look-up-table evaluator (harness/rules/lookup.py) gives the evaluator's own
strength on every hand: all C(52,5) five-card hands here, all C(52,7) seven-card hands
in the slow tier; and no strength, never an index past its tables, for cards that
repeat (a log's fault the audit reports elsewhere)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from harness.rules.cards import parse_cards
from harness.rules.evaluator import strength_of
from harness.rules.evaluator_jit import _strength
from harness.rules.lookup import NO_HAND, TABLES, Tables, add_card, strength


@njit
def _disagreements(k: int, tables: Tables) -> tuple[int, int]:
    """(hands, hands where the two evaluators differ) over every k-card hand."""
    cards = np.arange(k)
    counts = np.zeros(13, np.int8)
    masks = np.zeros(4, np.int32)
    hands, wrong = 0, 0
    while True:
        counts[:] = 0
        masks[:] = 0
        words, suits = np.uint64(0), np.uint64(0)
        for x in cards:
            counts[x >> 2] += 1
            masks[x & 3] |= 1 << (x >> 2)
            words, suits = add_card(words, suits, x)
        hands += 1
        if strength(words, suits, tables) != _strength(counts, masks):
            wrong += 1
        i = k - 1
        while i >= 0 and cards[i] == 52 - k + i:
            i -= 1
        if i < 0:
            return hands, wrong
        cards[i] += 1
        for j in range(i + 1, k):
            cards[j] = cards[j - 1] + 1


def test_every_five_card_hand_has_the_evaluators_strength() -> None:
    assert _disagreements(5, TABLES) == (2_598_960, 0)


@pytest.mark.slow
def test_every_seven_card_hand_has_the_evaluators_strength() -> None:
    assert _disagreements(7, TABLES) == (133_784_560, 0)


@pytest.mark.parametrize(
    "text", ["As Ks Qs Js Ts 2d 3c", "2c 2d 2h 2s 3c 3d 3h", "Ah 2d 3c 4s 5h Kd Kc"]
)
def test_a_hand_from_its_cards(text: str) -> None:
    cards = parse_cards(text)
    words, suits = _words([c.index for c in cards])
    assert strength(words, suits, TABLES) == strength_of(cards)


def test_a_card_repeated_five_times_is_no_hand() -> None:
    ace = parse_cards("As")[0].index
    words, suits = _words([ace] * 5 + [0, 1])
    assert strength(words, suits, TABLES) == NO_HAND


def test_fewer_than_five_cards_or_more_than_seven_are_no_hand() -> None:
    """Only hands of 5 to 7 cards have a slot: any other count is no hand, never another
    hand's strength read from a slot the hash happens to give."""
    cards = [c.index for c in parse_cards("As Kd Qh Jc Ts 9s 8s 7s")]
    assert strength(*_words(cards[:4]), TABLES) == NO_HAND
    assert strength(*_words(cards), TABLES) == NO_HAND
    assert strength(*_words(cards[:5]), TABLES) == strength_of(parse_cards("As Kd Qh Jc Ts"))


def _words(cards: list[int]) -> tuple[np.uint64, np.uint64]:
    """A hand's two words, card by card, as the audit's loops build them."""
    counts, suits = np.uint64(0), np.uint64(0)
    for card in cards:
        counts, suits = add_card(counts, suits, card)
    return counts, suits
