"""The rules oracle, against values worked out by hand from the rules text.

Each test names the clause it covers. Amounts are minor units; a Wager is
(stake, returned) with returned including the stake.
"""

from __future__ import annotations

import pytest

from harness.errors import InvalidBet, InvalidCards
from harness.rules.cards import parse_cards
from harness.rules.catalogs import clause_index, load_catalogs
from harness.rules.evaluator import Category
from harness.rules.game import Action, Deal, Wager
from harness.rules.oracle import SeatPlay, Settlement, settle
from harness.rules.profiles import Profile, load_profile
from harness.rules.table import REFERENCE_TABLE
from harness.vectors.settlement import load_all_vectors


def deal(seats: dict[int, str], dealer: str, board: str) -> Deal:
    b = parse_cards(board)
    d = parse_cards(dealer)
    return Deal(
        seats={n: (parse_cards(h)[0], parse_cards(h)[1]) for n, h in seats.items()},
        dealer=(d[0], d[1]),
        flop=(b[0], b[1], b[2]),
        turn=b[3],
        river=b[4],
    )


def one(
    profile: Profile,
    hole: str,
    dealer: str,
    board: str,
    *,
    ante: int = 100,
    aa: int = 0,
    action: Action = Action.CALL,
) -> Settlement:
    return settle(profile, deal({1: hole}, dealer, board), {1: SeatPlay(1, ante, aa, action)})


def test_001_r11_dealer_qualifies_at_exactly_a_pair_of_fours(standard: Profile) -> None:
    s = one(standard, "Ah 9c", "4c 4d", "Kd Qs 7h 3c 2d")
    assert s.dealer_qualifies and s.dealer_hand is Category.PAIR
    assert s.seat(1).ante == Wager(100, 0) and s.seat(1).call == Wager(200, 0)


def test_001_r11_pair_of_fours_on_the_board_qualifies(standard: Profile) -> None:
    s = one(standard, "Ah Kh", "9s 2c", "Qh Jh Th 4c 4d")
    assert s.dealer_qualifies
    assert s.seat(1).hand is Category.ROYAL_FLUSH
    assert s.seat(1).ante == Wager(100, 100 * 101) and s.seat(1).call == Wager(200, 400)


def test_001_r12_pair_of_threes_does_not_qualify_even_when_it_wins(standard: Profile) -> None:
    s = one(standard, "Ah 8c", "3c 3d", "Kd Qs 7h 9c 2d")
    assert not s.dealer_qualifies
    assert s.seat(1).ante == Wager(100, 200) and s.seat(1).call == Wager(200, 200)


def test_001_r12_non_qualifying_dealer_pays_the_ante_table(standard: Profile) -> None:
    s = one(standard, "Ac 8c", "Qs 7d", "Kc 5c 2c 9d Jh")
    assert s.seat(1).hand is Category.FLUSH
    assert s.seat(1).ante == Wager(100, 300) and s.seat(1).call == Wager(200, 200)


def test_003_non_qualifying_dealer_pays_even_money_unless_the_player_wins() -> None:
    s003 = load_profile("source-003")
    # Dealer's pair of threes beats the player's ace high but does not qualify: 003 pays 1 to 1.
    lost = one(s003, "Ah 8c", "3c 3d", "Kd Qs 7h 9c 2d")
    assert lost.seat(1).ante == Wager(100, 200)
    # A flush beats the non-qualifying dealer: the table pays 2 to 1.
    won = one(s003, "Ac 8c", "Qs 7d", "Kc 5c 2c 9d Jh")
    assert won.seat(1).ante == Wager(100, 300) and won.seat(1).call == Wager(200, 200)
    # Royal flush under Table 1 (no royal row) pays as a straight flush: 20 to 1.
    royal = one(s003, "Ah Kh", "5s 7d", "Qh Jh Th 3c 2d")
    assert royal.seat(1).ante == Wager(100, 2100)


def test_001_r14_r15_tie_with_a_qualifying_dealer_pushes(standard: Profile) -> None:
    s = one(standard, "Kh 8c", "Kd 8d", "Ks 9c 5h 3d 2s")
    assert s.dealer_qualifies
    assert s.seat(1).ante == Wager(100, 100) and s.seat(1).call == Wager(200, 200)


def test_board_plays_for_both_hands_is_a_tie(standard: Profile) -> None:
    s = one(standard, "2c 3d", "4h 5d", "As Ks Qs Js Ts")
    assert s.seat(1).hand is Category.ROYAL_FLUSH and s.dealer_hand is Category.ROYAL_FLUSH
    assert s.seat(1).ante == Wager(100, 100)


def test_000_r7_kicker_decides(standard: Profile) -> None:
    win = one(standard, "Ah Qc", "Ad Jc", "As 9h 7d 4c 2s")
    lose = one(standard, "Ah 3c", "Ad Jc", "As 9h 7d 4c 2s")
    assert win.seat(1).call == Wager(200, 400)
    assert lose.seat(1).ante == Wager(100, 0)


def test_000_r7_the_wheel_is_a_straight(standard: Profile) -> None:
    s = one(standard, "Ah 2c", "Kd 9h", "3d 4s 5h Kc 9d")
    assert s.seat(1).hand is Category.STRAIGHT
    assert s.seat(1).ante == Wager(100, 200) and s.seat(1).call == Wager(200, 400)


def test_royal_and_straight_flush_pay_their_own_rows(standard: Profile) -> None:
    royal = one(standard, "Ah Kh", "5s 7d", "Qh Jh Th 3c 2d")
    straight_flush = one(standard, "9h 8h", "As Jd", "7h 6h 5h Kc 2d")
    assert royal.seat(1).ante == Wager(100, 10100)
    assert straight_flush.seat(1).ante == Wager(100, 2100)
    table2 = load_profile("table2")
    assert one(table2, "Ah Kh", "5s 7d", "Qh Jh Th 3c 2d").seat(1).ante == Wager(100, 2600)


def test_001_r7_aa_bonus_is_judged_on_hole_and_flop_only(standard: Profile) -> None:
    # Aces only with the turn: the AA Bonus loses.
    turn = one(standard, "Ah 8c", "Qc Jc", "Kd 7s 2h As 4d", aa=100)
    assert turn.seat(1).aa_bonus == Wager(100, 0) and turn.seat(1).hand is Category.PAIR
    # A flush only by the turn: still a loss for the AA Bonus.
    flush = one(standard, "Ah 9h", "Qs Qd", "Kh 4h 2c 7h Js", aa=100)
    assert flush.seat(1).aa_bonus == Wager(100, 0) and flush.seat(1).hand is Category.FLUSH
    # Aces with the flop pay 7 to 1.
    aces = one(standard, "As Ad", "5c 5d", "Kh 7c 2d 9s 4h", aa=100)
    assert aces.seat(1).aa_bonus == Wager(100, 800)


def test_001_r7_two_low_pairs_win_the_aa_bonus(standard: Profile) -> None:
    s = one(standard, "3c 2d", "Ac 6d", "3h 2s 9c Kd Jh", aa=100)
    assert s.seat(1).aa_hand is Category.TWO_PAIR
    assert s.seat(1).aa_bonus == Wager(100, 800)


def test_aa_bonus_short_table_pays_25_for_a_flush_or_better() -> None:
    short = load_profile("short-aa")
    s = one(short, "8c 8d", "As Qd", "8h Kc Kd 2s 5h", aa=100)
    assert s.seat(1).aa_bonus == Wager(100, 2600)


def test_001_r6_folding_forfeits_the_aa_bonus(standard: Profile) -> None:
    s = one(standard, "As Ad", "5c 5d", "Kh 7c 2d 9s 4h", aa=100, action=Action.FOLD)
    assert s.seat(1).aa_bonus == Wager(100, 0)
    assert s.seat(1).ante == Wager(100, 0) and s.seat(1).call == Wager(0, 0)


def test_004_aa_bonus_survives_a_fold() -> None:
    s004 = load_profile("source-004")
    s = one(s004, "As Ad", "5c 5d", "Kh 7c 2d 9s 4h", aa=100, action=Action.FOLD)
    assert s.seat(1).aa_bonus == Wager(100, 800)
    assert s.seat(1).ante == Wager(100, 0)


def test_multi_seat_rounds_share_the_board(standard: Profile) -> None:
    d = deal({1: "Ah Ad", 3: "Jc Td", 5: "Jd 7h", 7: "Ks 4c"}, "Qc Qh", "Kd 9c 5h 3d 2s")
    plays = {
        1: SeatPlay(1, 100, 0, Action.CALL),
        3: SeatPlay(3, 100, 0, Action.FOLD),
        5: SeatPlay(5, 200, 0, Action.CALL),
        7: SeatPlay(7, 500, 0, Action.CALL),
    }
    s = settle(standard, d, plays)
    assert [x.total_returned for x in s.seats] == [600, 0, 0, 3000]


@pytest.mark.parametrize(
    ("ante", "aa", "message"),
    [
        (0, 100, "ante is required"),
        (-100, 0, "ante is required"),
        (99, 0, "outside the table limits"),
        (50_001, 0, "outside the table limits"),
        (100, 25_001, "outside the table limits"),
        (100, -1, "cannot be negative"),
        (100.0, 0, "integer"),
        (True, 0, "integer"),
        ("100", 0, "integer"),
    ],
)
def test_001_r2_r3_bad_wagers_are_refused(
    standard: Profile, ante: object, aa: object, message: str
) -> None:
    """At the table the reference game declares (its limits are its own: no rules source
    gives any, harness/rules/table.py)."""
    with pytest.raises(InvalidBet, match=message):
        settle(
            standard,
            deal({1: "As Ad"}, "5c 5d", "Kh 7c 2d 9s 4h"),
            {1: SeatPlay(1, ante, aa, Action.CALL)},  # type: ignore[arg-type]
            REFERENCE_TABLE,
        )


def test_aa_bonus_on_a_game_without_one_is_refused() -> None:
    with pytest.raises(InvalidBet, match="no AA Bonus"):
        one(load_profile("table2"), "As Ad", "5c 5d", "Kh 7c 2d 9s 4h", aa=100)


def test_a_card_dealt_twice_is_refused(standard: Profile) -> None:
    with pytest.raises(InvalidCards, match="As"):
        one(standard, "As Ad", "As 5d", "Kh 7c 2d 9s 4h")


def test_oracle_agrees_with_every_hand_worked_vector() -> None:
    """Vectors are worked out by hand; the oracle is code. They must agree."""
    checked = 0
    for vector in load_all_vectors(clause_index(load_catalogs())):
        plays = {s.seat: SeatPlay(s.seat, s.ante, s.aa_bonus, s.action) for s in vector.seats}
        for name in vector.profiles:
            profile = load_profile(name)
            if not vector.valid:
                with pytest.raises(InvalidBet):
                    settle(profile, vector.deal, plays)
                continue
            s = settle(profile, vector.deal, plays)
            assert vector.expected_dealer == {
                "hand": s.dealer_hand.wire,
                "qualifies": s.dealer_qualifies,
            }
            for exp in vector.expected_seats:
                got = s.seat(exp.seat)
                assert (got.ante, got.call, got.aa_bonus) == (exp.ante, exp.call, exp.aa_bonus), (
                    vector.id
                )
                if got.action is Action.CALL:
                    assert got.hand.wire == exp.hand, vector.id
            checked += 1
    assert checked >= 200
