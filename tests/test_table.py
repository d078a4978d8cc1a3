"""The table a game declares and the stakes a round is played at there (harness/rules/table.py).

Settlement is linear in the stake: a round played at k times its written stakes settles
at k times the written settlement, which is why a hand-worked vector may be played at a
table whose limits exclude its written stakes (docs/profiles.md, Table limits)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import InvalidBet
from harness.rules.cards import parse_cards
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, settle
from harness.rules.profiles import load_profile
from harness.rules.table import Table, fit, table_of

STANDARD = load_profile("standard")


def test_a_table_is_read_from_hello_config() -> None:
    config = {
        "aa_bonus_pay_table": {"pair_of_aces": 7},
        "limits": {"ante": [500, 10_000], "aa_bonus": [100, 5_000]},
        "house_rules": {"aa_bonus_max_ante_multiple": 1, "no_such_rule": 3},
    }
    table = table_of(config)
    assert table == Table(
        ante=(500, 10_000),
        aa_bonus=(100, 5_000),
        aa_bonus_max_ante_multiple=1,
        unknown_house_rules=("no_such_rule",),
    )
    assert table.to_config() == {
        "limits": {"ante": [500, 10_000], "aa_bonus": [100, 5_000]},
        "house_rules": {"aa_bonus_max_ante_multiple": 1},
    }


@pytest.mark.parametrize(
    "limits",
    [{}, {"ante": [500, 100]}, {"ante": [0, 100]}, {"ante": [1.5, 100]}, {"ante": "100..500"}],
)
def test_ante_limits_that_are_not_a_range_declare_no_table(limits: object) -> None:
    assert table_of({"limits": limits}) is None


def test_aa_bonus_limits_count_only_where_an_aa_bonus_is_declared() -> None:
    config = {"aa_bonus_pay_table": None, "limits": {"ante": [100, 500], "aa_bonus": [1, 5]}}
    table = table_of(config)
    assert table is not None and table.aa_bonus is None
    assert table.refuses(100, 5) == "the table takes no AA Bonus"


def test_the_house_cap_binds_per_seat_ante() -> None:
    table = Table(ante=(100, 1_000), aa_bonus=(50, 5_000), aa_bonus_max_ante_multiple=2)
    assert table.refuses(100, 200) is None
    assert "above 2 x the ante 100" in str(table.refuses(100, 201))
    assert table.aa_range(100) == (50, 200) and table.aa_range(1_000) == (50, 2_000)


@pytest.mark.parametrize(
    ("table", "written", "how", "played"),
    [
        (Table((100, 50_000), (100, 25_000)), [(100, 100)], "as written", [(100, 100)]),
        (Table((500, 10_000), (100, 5_000)), [(100, 100), (300, 0)], "x5", [(500, 500), (1500, 0)]),
        (Table((100, 10_000), None), [(30_000, 0), (20_000, 0)], "/4", [(7_500, 0), (5_000, 0)]),
        (Table((500, 10_000), (100, 5_000)), [(37_307, 0)], "restaked", [(10_000, 0)]),
        # a cap that a common factor cannot fix: the AA Bonus comes down to the cap
        (Table((100, 1_000), (100, 1_000), 1), [(100, 500)], "restaked", [(100, 100)]),
    ],
)
def test_stakes_are_fitted_to_the_table(
    table: Table, written: list[tuple[int, int]], how: str, played: list[tuple[int, int]]
) -> None:
    fitted = fit(table, written)
    assert fitted is not None and fitted.how == how and list(fitted.stakes) == played


def test_no_fit_where_the_table_takes_no_aa_bonus_beside_any_ante() -> None:
    assert fit(Table((100, 1_000), (5_000, 6_000), 1), [(100, 100)]) is None


def test_an_aa_bonus_is_restaked_beside_the_smallest_ante_that_takes_one() -> None:
    """Antes 100..1,000, AA Bonus 500..2,500 at most the ante: 500 is the least ante
    beside which any AA Bonus is legal."""
    table = Table((100, 1_000), (500, 2_500), 1)
    assert table.smallest_aa_ante == 500
    fitted = fit(table, [(100, 100), (1_000, 0)])
    assert fitted is not None and fitted.how == "restaked"
    assert fitted.stakes == ((500, 500), (1_000, 0))


tables = st.builds(
    lambda lo, span, aa_lo, aa_span, cap: Table((lo, lo + span), (aa_lo, aa_lo + aa_span), cap),
    st.integers(1, 5_000),
    st.integers(0, 100_000),
    st.integers(1, 5_000),
    st.integers(0, 50_000),
    st.one_of(st.none(), st.integers(1, 5)),
)
written_stakes = st.lists(
    st.tuples(st.integers(1, 60_000), st.one_of(st.just(0), st.integers(1, 30_000))),
    min_size=1,
    max_size=7,
)


@settings(max_examples=300, deadline=None)
@given(table=tables, written=written_stakes)
def test_fitted_stakes_are_ones_the_table_takes(
    table: Table, written: list[tuple[int, int]]
) -> None:
    fitted = fit(table, written)
    if fitted is None:  # only when the cap leaves no AA Bonus beside any ante
        assert table.smallest_aa_ante is None and any(aa for _, aa in written)
        return
    assert all(table.refuses(ante, aa) is None for ante, aa in fitted.stakes)
    assert [aa > 0 for _, aa in fitted.stakes] == [aa > 0 for _, aa in written]
    if fitted.how.startswith("x"):
        k = int(fitted.how[1:])
        assert list(fitted.stakes) == [(a * k, b * k) for a, b in written]
    if fitted.how.startswith("/"):
        d = int(fitted.how[1:])
        assert list(fitted.stakes) == [(a // d, b // d) for a, b in written]
        assert all(a % d == 0 and b % d == 0 for a, b in written)


def _deal(hand: tuple[str, str, str]) -> Deal:
    hole, dealer, board = (parse_cards(x.split()) for x in hand)
    flop = (board[0], board[1], board[2])
    return Deal({1: (hole[0], hole[1])}, (dealer[0], dealer[1]), flop, board[3], board[4])


HANDS = [("As Ad", "5c 5d", "Kh 7c 2d 9s 4h"), ("Kh Qh", "2c 7d", "Jh Th 9s 3c 8d")]


@settings(max_examples=60, deadline=None)
@given(
    hand=st.sampled_from(HANDS),
    ante=st.integers(1, 1_000),
    aa=st.integers(0, 1_000),
    k=st.integers(2, 50),
    action=st.sampled_from(list(Action)),
)
def test_settlement_is_linear_in_the_stake(
    hand: tuple[str, str, str], ante: int, aa: int, k: int, action: Action
) -> None:
    deal = _deal(hand)
    once = settle(STANDARD, deal, {1: SeatPlay(1, ante, aa, action)}).seats[0]
    scaled = settle(STANDARD, deal, {1: SeatPlay(1, ante * k, aa * k, action)}).seats[0]
    assert scaled.total_returned == k * once.total_returned
    assert scaled.ante.returned == k * once.ante.returned


def test_the_oracle_refuses_what_the_table_refuses() -> None:
    deal = _deal(HANDS[0])
    table = Table((500, 10_000), (100, 5_000), 1)
    with pytest.raises(InvalidBet, match=r"outside the table limits 500\.\.10000"):
        settle(STANDARD, deal, {1: SeatPlay(1, 100, 0, Action.CALL)}, table)
    with pytest.raises(InvalidBet, match="house rule aa_bonus_max_ante_multiple"):
        settle(STANDARD, deal, {1: SeatPlay(1, 500, 501, Action.CALL)}, table)
    assert settle(STANDARD, deal, {1: SeatPlay(1, 100, 0, Action.CALL)}).seats[0].ante.stake == 100
