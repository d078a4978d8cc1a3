"""The rules oracle: a pure function from profile, cards and decisions to settlement.

It is the harness's statement of the rules, written to be read next to the rules
text (000 "Rules", 001 rules 3-15, 004 Article 3): no I/O, no state, no knowledge
of adapters. Hand-worked vectors are checked against it in the tests, and it
re-checks rounds played through an implementation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from harness.errors import InvalidBet
from harness.rules.evaluator import Category, category_of, strength_of_distinct
from harness.rules.game import Action, Deal, Wager
from harness.rules.profiles import NonQualifyingAnte, Profile
from harness.rules.table import Table


@dataclass(frozen=True)
class SeatPlay:
    """What one seat wagered and decided."""

    seat: int
    ante: int
    aa_bonus: int
    action: Action


@dataclass(frozen=True)
class SeatSettlement:
    seat: int
    action: Action
    hand: Category
    aa_hand: Category | None
    ante: Wager
    call: Wager
    aa_bonus: Wager | None
    # The AA Bonus as the same pay table would settle it on the best five of the seven
    # cards: what a game judging the wrong cards pays, which the decision table tells
    # from a row paid at other odds (docs/differential.md, decision table rows 9 to 11).
    aa_bonus_on_seven: Wager | None = None

    @property
    def total_returned(self) -> int:
        aa = self.aa_bonus.returned if self.aa_bonus else 0
        return self.ante.returned + self.call.returned + aa


@dataclass(frozen=True)
class Settlement:
    dealer_hand: Category
    dealer_qualifies: bool
    seats: tuple[SeatSettlement, ...]

    def seat(self, number: int) -> SeatSettlement:
        return next(s for s in self.seats if s.seat == number)


def verify_wagers(profile: Profile, play: SeatPlay, table: Table | None = None) -> None:
    """Raise InvalidBet unless the seat's wagers are legal under the profile's rules and,
    when given, at the game's table (its limits and house rules, harness/rules/table.py)."""
    for name in ("ante", "aa_bonus"):
        value = getattr(play, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidBet(f"seat {play.seat}: {name} must be an integer amount, got {value!r}")
    if play.ante <= 0:
        raise InvalidBet(f"seat {play.seat}: an ante is required and must be positive")
    if play.aa_bonus < 0:
        raise InvalidBet(f"seat {play.seat}: an AA Bonus cannot be negative")
    if play.aa_bonus and profile.aa_table is None:
        raise InvalidBet(f"seat {play.seat}: profile {profile.name} has no AA Bonus")
    why = table.refuses(play.ante, play.aa_bonus) if table is not None else None
    if why is not None:
        raise InvalidBet(f"seat {play.seat}: {why}")


def _win(stake: int, odds: int) -> Wager:
    return Wager(stake, stake * (1 + odds))


def settle_ante_and_call(
    profile: Profile, player: int, dealer: int, ante: int
) -> tuple[Wager, Wager]:
    """Ante and call of a seat that called, from the two final hand strengths.

    000 Rules bullets 10-13, 001 rules 12-15, 004 "If the dealer ..." paragraphs;
    003's reading of a non-qualifying dealer under NonQualifyingAnte.
    """
    call = profile.call_multiple * ante
    table_odds = profile.ante_table.pays(category_of(player))
    if dealer < profile.qualifying_strength:
        if (
            profile.nonqualifying_ante is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN
            and player <= dealer
        ):
            return _win(ante, 1), Wager(call, call)
        return _win(ante, table_odds), Wager(call, call)
    if player > dealer:
        return _win(ante, table_odds), _win(call, 1)
    if player == dealer:
        return Wager(ante, ante), Wager(call, call)
    return Wager(ante, 0), Wager(call, 0)


def settle_aa_bonus(profile: Profile, hole_and_flop: int, stake: int, folded: bool) -> Wager:
    """The AA Bonus on the five cards of hole + flop only (001 rules 6-8, 004 Article 6)."""
    assert profile.aa_table is not None
    if folded and profile.fold_forfeits_aa_bonus:
        return Wager(stake, 0)
    odds = profile.aa_table.pays(hole_and_flop)
    return Wager(stake, 0) if odds is None else _win(stake, odds)


def settle(
    profile: Profile, deal: Deal, plays: Mapping[int, SeatPlay], table: Table | None = None
) -> Settlement:
    """Settle one round, at `table` when given. Raises InvalidCards or InvalidBet for an
    impossible round."""
    deal.verify()
    if set(plays) != set(deal.seats):
        raise InvalidBet(f"wagers for seats {sorted(plays)} but cards for {sorted(deal.seats)}")
    for play in plays.values():
        verify_wagers(profile, play, table)
    dealer = strength_of_distinct((*deal.dealer, *deal.board))  # distinct: verified above
    seats = []
    for number in sorted(plays):
        play = plays[number]
        hole = deal.seats[number]
        player = strength_of_distinct((*hole, *deal.board))
        aa_strength = strength_of_distinct((*hole, *deal.flop))
        folded = play.action is Action.FOLD
        if folded:
            ante, call = Wager(play.ante, 0), Wager(0, 0)
        else:
            ante, call = settle_ante_and_call(profile, player, dealer, play.ante)
        aa = settle_aa_bonus(profile, aa_strength, play.aa_bonus, folded) if play.aa_bonus else None
        on_seven = (
            settle_aa_bonus(profile, player, play.aa_bonus, folded) if play.aa_bonus else None
        )
        seats.append(
            SeatSettlement(
                seat=number,
                action=play.action,
                hand=category_of(player),
                aa_hand=category_of(aa_strength) if play.aa_bonus else None,
                ante=ante,
                call=call,
                aa_bonus=aa,
                aa_bonus_on_seven=on_seven,
            )
        )
    return Settlement(
        dealer_hand=category_of(dealer),
        dealer_qualifies=dealer >= profile.qualifying_strength,
        seats=tuple(seats),
    )
