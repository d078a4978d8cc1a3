"""Information-hiding mutants: a hidden card shown before every seat has decided.

The dealer's cards, the turn and the river stay hidden until the decisions, and each
seat's hole cards from the others where they are dealt face down
(docs/information-hiding.md); each of these shows one, openly or in disguise.
"""

from __future__ import annotations

from typing import Any

from harness.errors import ErrorReply
from harness.protocol import ErrorCode
from harness.reference.engine import ReferenceGame
from harness.reference.mutants.registry import Family, mutant
from harness.reference.rounds import Phase
from harness.rules.evaluator import category_of, strength_of


@mutant("leaks-dealer-cards", profile="standard", clause="s000-r3", family=Family.HIDING, fast=True)
class LeaksDealerCards(ReferenceGame):
    """The round reply shows the dealer's hole cards before anyone decides."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        reply = super().round(seats=seats, cards=cards)
        reply["dealer"] = [str(c) for c in self._rounds[reply["round"]].dealer]
        return reply


@mutant("leaks-under-an-innocuous-key", profile="standard", clause="s000-r3", family=Family.HIDING)
class LeaksUnderAnInnocuousKey(ReferenceGame):
    """Each act's reply carries a 'receipt' ending in the dealer's two cards run together."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        super().act(round=round, seat=seat, action=action)
        dealer = self._rounds[round].dealer
        return {"receipt": f"{round}/{dealer[0]}{dealer[1]}"}


@mutant("leaks-a-card-index", profile="source-001", clause="s001-r4", family=Family.HIDING)
class LeaksACardIndex(ReferenceGame):
    """Each act's reply carries the turn card's byte index as a 'sequence' number."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        super().act(round=round, seat=seat, action=action)
        return {"sequence": self._rounds[round].turn.index}


@mutant(
    "leaks-the-dealers-hand-in-an-error",
    profile="source-003",
    clause="s003-deal",
    family=Family.HIDING,
)
class LeaksTheDealersHandInAnError(ReferenceGame):
    """A result asked too early is refused with a message naming the dealer's hand."""

    def result(self, round: Any) -> dict[str, Any]:
        rnd = self._round(round)
        if rnd.phase is not Phase.DONE:
            board = (*rnd.flop, rnd.turn, rnd.river)
            hand = category_of(strength_of((*rnd.dealer, *board))).wire
            raise ErrorReply(ErrorCode.ROUND_IN_PROGRESS, f"not yet: the dealer has {hand}")
        return super().result(round)


@mutant("leaks-other-seats-cards", profile="source-004", clause="s004-deal", family=Family.HIDING)
class LeaksOtherSeatsCards(ReferenceGame):
    """Each act's reply shows the other seats' hole cards (face-down games keep them private)."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        super().act(round=round, seat=seat, action=action)
        seats = self._rounds[round].seats
        return {"table": {str(n): [str(c) for c in s.hole] for n, s in seats.items() if n != seat}}


@mutant(
    "round-id-from-the-dealers-cards", profile="standard", clause="s000-r3", family=Family.HIDING
)
class RoundIdFromTheDealersCards(ReferenceGame):
    """Round ids are a counter followed by the byte indices of the dealer's two cards."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        reply = super().round(seats=seats, cards=cards)
        rnd = self._rounds.pop(reply["round"])
        self._open_rounds.discard(rnd.ident)
        rnd.ident = f"{rnd.ident}-{rnd.dealer[0].index}-{rnd.dealer[1].index}"
        self._rounds[rnd.ident] = rnd
        self._open_rounds.add(rnd.ident)
        return {**reply, "round": rnd.ident}


@mutant(
    "shows-result-before-the-decisions",
    profile="source-004",
    clause="s004-deal",
    family=Family.HIDING,
)
class ShowsResultBeforeTheDecisions(ReferenceGame):
    """`result` before every seat has decided shows the board and the dealer's cards."""

    def result(self, round: Any) -> dict[str, Any]:
        rnd = self._round(round)
        if rnd.phase is Phase.DONE:
            return super().result(round)
        return {
            "board": [str(c) for c in (*rnd.flop, rnd.turn, rnd.river)],
            "dealer": {"hole": [str(c) for c in rnd.dealer], "hand": "pair", "qualifies": True},
            "seats": [
                {"seat": n, "action": "fold", "wagers": {"ante": {"stake": s.ante, "returned": 0},
                 "call": {"stake": 0, "returned": 0}}}
                for n, s in rnd.seats.items()
            ],
        }  # fmt: skip
