"""The differential's planner and decision table (docs/differential.md), without a game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import numpy as np
import pytest

from harness.differential.attribution import disagreements
from harness.differential.pools import draw_pool
from harness.differential.rounds import (
    QUOTA,
    SHARDS,
    Stakes,
    cell_can_occur,
    count_strata,
    detectable_rate,
    draw_rounds,
    feasible_strata,
    seats_of,
)
from harness.differential.strata import evaluate, strata_matrix
from harness.protocol.messages import Settled
from harness.rules.cards import parse_cards
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, Settlement, settle
from harness.rules.profiles import load_profile

STANDARD = load_profile("standard")


def _settled(result: dict[str, Any]) -> Settled:
    """A test's result body (dealer's hand, seats) read as the decision table reads one,
    the cards it does not judge filled in."""
    dealer = {"hole": ["2c", "2d"], **result["dealer"]}
    return msgspec.convert({"board": ["3c"] * 5, **result, "dealer": dealer}, Settled)


def _strata(hole: str, dealer: str, board: str) -> set[str]:
    cards = [c.index for c in parse_cards(f"{hole} {dealer} {board}".split())]
    keys, member = strata_matrix(evaluate(np.array([cards], np.uint8)), STANDARD)
    return {k for k, on in zip(keys, member[0], strict=True) if on}


@pytest.mark.parametrize(
    ("hole", "dealer", "board", "wanted"),
    [
        ("Ah 2c", "Kd Kc", "3s 4d 5h 9c Jd", {"straight:5", "cell:straight/pair/q", "aa:straight"}),
        ("Ah 2h", "Kd Kc", "3h 4h 5h 5c Jd", {"straight:5+paired", "suited:5"}),
        ("Ah Kh", "2c 3d", "Qh Jh 9h 8h 7c", {"suited:6", "cell:flush/high_card/nq"}),
        (
            "2c 3d",
            "Kd Qc",
            "As Ks Qs Js Ts",
            {"board-plays", "kicker:tie", "cell:royal_flush/royal_flush/q"},
        ),
        # a pair of fives on the flop, counterfeited by two higher pairs on turn and river
        ("5c 2d", "9d 8c", "5h Kc Kd Qs Qd", {"counterfeit", "ranks:p3t0q0"}),
        # same pair of kings; the second kicker decides
        ("Ks 9c", "Kh 8d", "Kd Ac 2s 4h 6c", {"kicker:3", "cell:pair/pair/q"}),
        ("As Ad", "2c 3d", "Ah Kc 7d 8s 9h", {"aa:three_of_a_kind", "ranks:p0t1q0"}),
    ],
)
def test_strata_of_hand_picked_seat_hands(
    hole: str, dealer: str, board: str, wanted: set[str]
) -> None:
    assert wanted <= _strata(hole, dealer, board)


def test_cells_the_rules_and_the_shared_board_exclude() -> None:
    assert not cell_can_occur(STANDARD, "cell:pair/high_card/q")  # below the qualifier
    assert not cell_can_occur(STANDARD, "cell:pair/two_pair/nq")  # above it
    assert not cell_can_occur(STANDARD, "cell:high_card/full_house/q")  # the board is paired
    assert cell_can_occur(STANDARD, "cell:pair/pair/nq") and cell_can_occur(
        STANDARD, "cell:pair/pair/q"
    )
    assert cell_can_occur(STANDARD, "cell:high_card/royal_flush/q")


def test_pools_never_deal_a_cell_that_cannot_occur() -> None:
    keys, member = strata_matrix(evaluate(draw_pool(np.random.default_rng(1))), STANDARD)
    seen = {k for k, n in zip(keys, member.sum(axis=0), strict=True) if n}
    impossible = {k for k in keys if k.startswith("cell:") and not cell_can_occur(STANDARD, k)}
    assert not seen & impossible


def test_a_default_run_fills_every_stratum_and_the_budget() -> None:
    """The four shards of a 50,000 seat-hand run meet every feasible stratum's quota."""
    counts: dict[str, int] = {}
    seat_hands = uniform = 0
    stakes = Stakes((100, 50_000), (100, 25_000))
    for shard in range(SHARDS):
        drawn = draw_rounds(
            STANDARD,
            seed=7,
            shard=shard,
            shards=SHARDS,
            budget=50_000,
            seats=7,
            stakes=stakes,
            calls_with=lambda holes, flops: np.ones(len(holes), np.bool_),
        )
        rounds = list(drawn)
        seat_hands += sum(len(r.seats) for r in rounds)
        uniform += sum(len(r.seats) for r in rounds if not r.stratified)
        strata = count_strata(STANDARD, [seats_of(rounds)[0]], feasible_strata(STANDARD), stakes)
        for key, n in strata.items():
            counts[key] = counts.get(key, 0) + n
    assert seat_hands == 50_000
    assert set(counts) == set(feasible_strata(STANDARD))
    assert {k: n for k, n in counts.items() if n < QUOTA} == {}
    assert uniform >= 25_000 and detectable_rate(uniform) < 2e-4


def test_plans_are_a_function_of_the_seed() -> None:
    def plan(seed: int) -> list[Any]:
        drawn = draw_rounds(
            STANDARD,
            seed=seed,
            shard=1,
            shards=SHARDS,
            budget=2_000,
            seats=3,
            stakes=Stakes((100, 500), None),
            calls_with=lambda holes, flops: np.zeros(len(holes), np.bool_),
        )
        return list(drawn)

    assert plan(5) == plan(5) and plan(5) != plan(6)


def test_detectable_rate_is_one_minus_the_nth_root_of_alpha() -> None:
    assert detectable_rate(0) == 1.0
    assert abs(detectable_rate(25_000) - (1 - 0.01 ** (1 / 25_000))) < 1e-15
    # a fault in one hand in a thousand is missed with probability below 1e-10 at 25,000
    assert (1 - 1e-3) ** 25_000 < 1e-10


def _one_seat(
    hole: str, dealer: str, board: str, action: Action = Action.CALL
) -> tuple[Settlement, dict[str, Any]]:
    cards = parse_cards(f"{hole} {dealer} {board}".split())
    deal = Deal(
        {1: (cards[0], cards[1])},
        (cards[2], cards[3]),
        (cards[4], cards[5], cards[6]),
        cards[7],
        cards[8],
    )
    want = settle(STANDARD, deal, {1: SeatPlay(1, 100, 100, action)})
    s = want.seats[0]
    result = {
        "dealer": {"hand": want.dealer_hand.wire, "qualifies": want.dealer_qualifies},
        "seats": [
            {
                "seat": 1,
                "action": action.value,
                "hand": s.hand.wire,
                "wagers": {
                    "ante": {"stake": s.ante.stake, "returned": s.ante.returned},
                    "call": {"stake": s.call.stake, "returned": s.call.returned},
                    "aa_bonus": {"stake": s.aa_bonus.stake, "returned": s.aa_bonus.returned}
                    if s.aa_bonus
                    else None,
                },
            }
        ],
    }
    return want, result


def test_a_correct_result_has_no_disagreement() -> None:
    want, result = _one_seat("As Ad", "Kc Kd", "Ah 7c 2d 9s 4h")
    assert disagreements(want, _settled(result)) == []


@pytest.mark.parametrize(
    ("change", "kind"),
    [
        (lambda r: r["dealer"].update(qualifies=False), "dealer-qualification"),
        (lambda r: r["dealer"].update(hand="two_pair"), "hand-evaluation"),
        (lambda r: r["seats"][0].update(hand="pair"), "hand-evaluation"),
        (lambda r: r["seats"][0]["wagers"]["ante"].update(returned=100), "player-wins"),
        (
            lambda r: [r["seats"][0]["wagers"][w].update(returned=0) for w in ("ante", "call")],
            "comparison",
        ),
        (lambda r: r["seats"][0]["wagers"]["ante"].update(returned=300), "ante-odds"),
        (lambda r: r["seats"][0]["wagers"]["call"].update(returned=600), "call-odds"),
        (lambda r: r["seats"][0]["wagers"]["call"].update(stake=300, returned=600), "call-stake"),
        (lambda r: r["seats"][0]["wagers"]["aa_bonus"].update(returned=0), "aa-bonus-hand"),
        (lambda r: r["seats"][0]["wagers"]["aa_bonus"].update(returned=700), "aa-bonus-odds"),
        (lambda r: r["seats"].clear(), "result-shape"),
    ],
)
def test_decision_table_rows(change: Callable[[dict[str, Any]], None], kind: str) -> None:
    """Trips of aces against a qualifying pair of kings: each change meets its row."""
    want, result = _one_seat("As Ad", "Kc Kd", "Ah 7c 2d 9s 4h")
    change(result)
    found = disagreements(want, _settled(result))
    assert [d.kind for d in found] == [kind]


def test_decision_table_on_a_non_qualifying_dealer_and_a_fold() -> None:
    want, result = _one_seat("As Kd", "2c 3d", "Qh 7c 8d 9s Jh")
    result["seats"][0]["wagers"]["call"].update(returned=400)
    assert [d.kind for d in disagreements(want, _settled(result))] == ["nonqualifying-call"]
    want, result = _one_seat("As Kd", "2c 3d", "Qh 7c 8d 9s Jh", Action.FOLD)
    result["seats"][0]["wagers"]["ante"].update(returned=100)
    assert [d.kind for d in disagreements(want, _settled(result))] == ["fold"]
