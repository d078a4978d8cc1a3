"""Refusal mutants: a request the game must refuse is taken (docs/refusals.md).

A bad wager, a seat or a decision given twice, a decision for a settled round, a
stacked deck holding a card twice, a round id never given; or a refusal that still
moves money or loses the table's state.
"""

from __future__ import annotations

from typing import Any

from harness.errors import ErrorReply
from harness.protocol import ErrorCode
from harness.reference.engine import ReferenceGame
from harness.reference.mutants.registry import Family, mutant
from harness.reference.rounds import Dealt, Phase, Round
from harness.rules.cards import parse_card


@mutant(
    "accepts-aa-bonus-without-ante",
    profile="standard",
    clause="s000-r2",
    family=Family.REFUSALS,
    fast=True,
)
class AcceptsAABonusWithoutAnte(ReferenceGame):
    """An AA Bonus without an ante is accepted (the seat plays the minimum ante)."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        if isinstance(seats, list):
            seats = [
                {**s, "ante": self.table.ante[0]}
                if isinstance(s, dict) and s.get("aa_bonus") and not s.get("ante")
                else s
                for s in seats
            ]
        return super().round(seats=seats, cards=cards)


@mutant("ignores-ante-maximum", profile="standard", clause="s000-r2", family=Family.REFUSALS)
class IgnoresAnteMaximum(ReferenceGame):
    """Antes above the declared maximum are accepted."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        hi = self.table.ante[1]
        if isinstance(seats, list) and any(
            isinstance(s, dict) and isinstance(s.get("ante"), int) and s["ante"] > hi for s in seats
        ):
            clipped = [{**s, "ante": min(s["ante"], hi)} for s in seats]
            return super().round(seats=clipped, cards=cards)
        return super().round(seats=seats, cards=cards)


@mutant("accepts-fractional-ante", profile="standard", clause="s000-r2", family=Family.REFUSALS)
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


@mutant("accepts-a-seat-twice", profile="source-001", clause="s001-r2", family=Family.REFUSALS)
class AcceptsASeatTwice(ReferenceGame):
    """A seat that wagers twice in one round plays its last wager."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        if isinstance(seats, list) and all(isinstance(s, dict) for s in seats):
            seats = list({s.get("seat"): s for s in seats}.values())
        return super().round(seats=seats, cards=cards)


@mutant("accepts-a-second-decision", profile="standard", clause="s000-r5", family=Family.REFUSALS)
class AcceptsASecondDecision(ReferenceGame):
    """A seat may change its decision until the round is settled: the last one counts."""

    def verify_act(self, rnd: Round, seat: Any, action: Any) -> None:
        if isinstance(seat, int) and seat in rnd.seats and rnd.phase is not Phase.DONE:
            rnd.seats[seat].action = None
        super().verify_act(rnd, seat, action)


@mutant(
    "accepts-act-after-settlement",
    profile="source-003",
    clause="s003-decision",
    family=Family.REFUSALS,
)
class AcceptsActAfterSettlement(ReferenceGame):
    """A decision for a settled round is answered {} and ignored."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        if self._round(round).phase is Phase.DONE:
            return {}
        return super().act(round=round, seat=seat, action=action)


@mutant("accepts-a-repeated-card", profile="standard", clause="s000-r1", family=Family.REFUSALS)
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


@mutant(
    "answers-an-unknown-round-with-the-last",
    profile="source-002",
    clause="s002-decision",
    family=Family.REFUSALS,
)
class AnswersAnUnknownRoundWithTheLast(ReferenceGame):
    """A result asked for a round id it never gave is answered with the last round's."""

    def result(self, round: Any) -> dict[str, Any]:
        if round not in self._rounds and self._history:
            round = self._history[-1]
        return super().result(round)


@mutant(
    "keeps-the-ante-of-a-refused-bet",
    profile="source-002",
    clause="s002-bets",
    family=Family.REFUSALS,
)
class KeepsTheAnteOfARefusedBet(ReferenceGame):
    """A refused wager is refused, but the table minimum is taken from seat 1 and lost."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        try:
            return super().round(seats=seats, cards=cards)
        except ErrorReply as exc:
            if exc.code == ErrorCode.INVALID_BET:
                kept = super().round(seats=[{"seat": 1, "ante": self.table.ante[0]}])
                self.act(round=kept["round"], seat=1, action="fold")
            raise


@mutant(
    "forgets-open-rounds-on-a-refusal", profile="standard", clause="s000-r5", family=Family.REFUSALS
)
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
