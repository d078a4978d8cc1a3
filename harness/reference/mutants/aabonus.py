"""AA Bonus mutants: the side bet judged, paid or settled against its rules.

The AA Bonus is judged on hole + flop and settled before the turn (001 rules 6-9, 004
Article 6 for a fold). The last three reproduce faults found in real poker code.
"""

from __future__ import annotations

from harness.reference.engine import ReferenceGame
from harness.reference.mutants.hands import _pushed, _rank_field
from harness.reference.mutants.registry import Family, mutant
from harness.reference.rounds import Round, Seat
from harness.rules.cards import Card, Rank
from harness.rules.evaluator import Category, category_of, strength_of
from harness.rules.game import Action


@mutant(
    "aa-bonus-on-seven-cards", profile="standard", clause="s000-sidebet", family=Family.AA_BONUS
)
class AABonusOnSevenCards(ReferenceGame):
    """The AA Bonus is judged on the final seven cards instead of hole + flop."""

    def _settle_aa_bonus(self, seat: Seat, flop: tuple[Card, Card, Card]) -> None:
        rnd = next(r for r in self._rounds.values() if r.seats.get(seat.number) is seat)
        if seat.action is Action.FOLD and not self.aa_bonus_survives_fold():
            seat.aa_returned = 0
            return
        odds = self.aa_bonus_odds(strength_of((*seat.hole, *flop, rnd.turn, rnd.river)))
        seat.aa_returned = 0 if odds is None else seat.aa_bonus * (1 + odds)


@mutant("fold-keeps-aa-bonus", profile="standard", clause="s000-r5", family=Family.AA_BONUS)
class FoldKeepsAABonus(ReferenceGame):
    """A fold keeps the AA Bonus alive where the rules say it is surrendered."""

    def aa_bonus_survives_fold(self) -> bool:
        return True


@mutant(
    "aa-pair-of-kings-wins",
    profile="standard",
    clause="s000-sidebet",
    family=Family.AA_BONUS,
    fast=True,
)
class AAPairOfKingsWins(ReferenceGame):
    """The AA Bonus pays any pair of kings or better, not only aces."""

    def aa_bonus_odds(self, hole_and_flop: int) -> int | None:
        is_pair = hole_and_flop >> 20 == int(Category.PAIR)
        if is_pair and (hole_and_flop >> 16) & 0xF == int(Rank.KING):
            return 7
        return super().aa_bonus_odds(hole_and_flop)


@mutant("aa-flush-pays-25", profile="standard", clause="s000-sidebet-table", family=Family.AA_BONUS)
class AAFlushPays25(ReferenceGame):
    """The AA Bonus pays a flush 25 to 1 on the full table (the two tables mixed up)."""

    def aa_bonus_odds(self, hole_and_flop: int) -> int | None:
        if hole_and_flop >> 20 == int(Category.FLUSH):
            return 25
        return super().aa_bonus_odds(hole_and_flop)


@mutant("aa-settled-after-river", profile="source-001", clause="s001-r9", family=Family.AA_BONUS)
class AASettledAfterRiver(ReferenceGame):
    """The AA Bonus is settled only after the turn and river are out."""

    def _finish(self, rnd: Round) -> None:
        super()._finish(rnd)
        settled = [e for e in rnd.events if e["type"] == "aa_bonus_settled"]
        rest = [e for e in rnd.events if e["type"] != "aa_bonus_settled"]
        river = next(i for i, e in enumerate(rest) if e["type"] == "river_dealt")
        rnd.events[:] = rest[: river + 1] + settled + rest[river + 1 :]


@mutant("fold-forfeits-aa-bonus", profile="source-004", clause="s004-a6", family=Family.AA_BONUS)
class FoldForfeitsAABonus(ReferenceGame):
    """A fold surrenders the AA Bonus where Article 6 of 004 keeps it (certify as source-004)."""

    def aa_bonus_survives_fold(self) -> bool:
        return False


# Faults found in real poker code (each docstring names where), rare on random deals:
# the differential check finds them (docs/differential.md).
@mutant(
    "aa-pair-of-aces-needs-a-hole-ace",
    profile="standard",
    clause="s000-sidebet",
    family=Family.AA_BONUS,
    differential=True,
)
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


@mutant(
    "aa-lost-on-a-push",
    profile="standard",
    clause="s000-sidebet",
    family=Family.AA_BONUS,
    differential=True,
)
class AALostOnAPush(ReferenceGame):
    """A winning AA Bonus is lost when the ante and call push (a tie with a qualifying dealer).

    Jarrrk/HighLife#7053 and #8888 (a side bet lost when the main bets are returned: "The
    play, and ante are returned, but the pair plus is not").
    """

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        super().settle_called_seat(seat, dealer)
        if _pushed(self, seat, dealer):
            seat.aa_returned = 0


@mutant(
    "aa-straight-row-missing",
    profile="standard",
    clause="s000-sidebet",
    family=Family.AA_BONUS,
    differential=True,
)
class AAStraightRowMissing(ReferenceGame):
    """The AA Bonus pay table has no straight row: a straight on hole + flop loses.

    Jarrrk/HighLife#8903 ("Poker VIP room not paying pair plus straights") and #8861 (a
    pair and a straight on the side bet not paid).
    """

    def aa_bonus_odds(self, hole_and_flop: int) -> int | None:
        if category_of(hole_and_flop) is Category.STRAIGHT:
            return None
        return super().aa_bonus_odds(hole_and_flop)
