"""Hand evaluation, proved exhaustively and cross-checked with eval7.

Known category counts over all C(52,7) = 133,784,560 seven-card hands and all
C(52,5) = 2,598,960 five-card hands (standard combinatorics; royal flushes are
counted apart from the other straight flushes).
"""

from __future__ import annotations

from itertools import combinations

import eval7
import numpy as np
import pytest

from harness.rules.cards import parse_cards
from harness.rules.evaluator import (
    Category,
    best_hand,
    category_of,
    count_all_seven_card_hands,
    evaluate_batch,
    strength_of,
)
from harness.vectors.corpus import EVAL7_TYPES

SEVEN_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4_324,
    Category.STRAIGHT_FLUSH: 41_584 - 4_324,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}

FIVE_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}


@pytest.mark.slow
@pytest.mark.parametrize("build", ["compiled", "numba"])
def test_all_seven_card_hands_give_the_known_category_counts(
    build: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both builds of the one evaluator (harness/compiled.py), each proved exhaustively."""
    monkeypatch.setenv("CHCERT_KERNEL", build)
    counts = count_all_seven_card_hands()
    assert int(counts.sum()) == 133_784_560
    assert {Category(i): int(n) for i, n in enumerate(counts)} == SEVEN_CARD_COUNTS


@pytest.mark.parametrize("build", ["compiled", "numba"])
def test_all_five_card_hands_give_the_known_category_counts(
    build: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHCERT_KERNEL", build)
    hands = np.array(list(combinations(range(52), 5)), dtype=np.uint8)
    categories = evaluate_batch(hands) >> 20
    counts = np.bincount(categories, minlength=10)
    assert {Category(i): int(n) for i, n in enumerate(counts)} == FIVE_CARD_COUNTS


def _eval7(cards: np.ndarray) -> int:
    return int(eval7.evaluate([eval7.Card(str_card(c)) for c in cards]))


def str_card(index: int) -> str:
    return "23456789TJQKA"[index // 4] + "cdhs"[index % 4]


def test_ordering_agrees_with_eval7_on_100000_random_pairs() -> None:
    """eval7 is an independent, maintained evaluator: every comparison and category must agree."""
    rng = np.random.default_rng(20261130)
    pairs = 100_000
    # Each pair shares nothing: 14 distinct cards from one shuffled deck.
    decks = np.argsort(rng.random((pairs, 52)), axis=1)[:, :14].astype(np.uint8)
    ours_a, ours_b = evaluate_batch(decks[:, :7]), evaluate_batch(decks[:, 7:])
    disagreements = []
    for i in range(pairs):
        a, b = _eval7(decks[i, :7]), _eval7(decks[i, 7:])
        same_order = np.sign(a - b) == np.sign(int(ours_a[i]) - int(ours_b[i]))
        same_categories = category_of(int(ours_a[i])) in EVAL7_TYPES[eval7.handtype(a)] and (
            category_of(int(ours_b[i])) in EVAL7_TYPES[eval7.handtype(b)]
        )
        if not (same_order and same_categories):
            disagreements.append(i)
    assert disagreements == []


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("As Ks Qs Js Ts 2c 3d", "Ks Qs Js Ts 9s 2c 3d"),  # royal above king-high straight flush
        ("6h 5h 4h 3h 2h Kc Kd", "Ah 5d 4h 3h 2h Kc Kd"),  # six-high straight flush above the wheel
        ("6c 5d 4h 3s 2c Kc Qd", "Ac 5d 4h 3s 2c Kc Qd"),  # six-high straight above the wheel
        ("Ac 2d 3h 4s 5c Kc Kd", "Kh Ks Qd Jc 9c 2d 3h"),  # wheel above three kings
        ("Ah Ad Qc 9h 7d 4c 2s", "Ah Ad Jc 9h 7d 4c 2s"),  # kicker decides
        ("Kh Kd 9c 9s 7h 3c 2d", "Kh Kd 9c 9s 6h 3c 2d"),  # two pair, fifth card kicker
    ],
)
def test_known_orderings(better: str, worse: str) -> None:
    assert strength_of(parse_cards(better)) > strength_of(parse_cards(worse))


def test_equal_hands_tie_when_the_board_plays() -> None:
    board = "As Ks Qs Js Ts"
    assert strength_of(parse_cards(board + " 2c 3d")) == strength_of(parse_cards(board + " 4h 5d"))


def test_best_hand_names_the_five_cards_used() -> None:
    hand = best_hand(parse_cards("Ah 9h Kh 4h 2c 7h Js"))
    assert hand.category is Category.FLUSH
    assert sorted(map(str, hand.cards)) == sorted(["Ah", "Kh", "9h", "7h", "4h"])
    wheel = best_hand(parse_cards("Ac 2d 3h 4s 5c Kc Kd"))
    assert wheel.category is Category.STRAIGHT
    assert {str(c)[0] for c in wheel.cards} == set("A2345")


def test_categories_have_protocol_names() -> None:
    assert [c.wire for c in Category] == [
        "high_card",
        "pair",
        "two_pair",
        "three_of_a_kind",
        "straight",
        "flush",
        "full_house",
        "four_of_a_kind",
        "straight_flush",
        "royal_flush",
    ]
    assert Category.from_wire("royal_flush") is Category.ROYAL_FLUSH
    with pytest.raises(ValueError, match="allowed"):
        Category.from_wire("quads")
