"""A refusal item fails only for what the refusal did (docs/refusals.md, the control).

The refusal battery plays the same stacked rounds before the bad request and after it,
and judges that they settle alike: whether that settlement follows the rules is the
settlement clauses' business. A game whose only faults are its pay odds or its dealer's
qualifier passes every refusal item; a game whose refusal changes how a round settles
still fails it, with the two settlements side by side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.adapters.base import check_body
from harness.checks.refusals import NO_INJECT, NOT_STACKED, SAME_ROUND, replay_refusal
from harness.checks.registry import CheckFailure, Context
from harness.errors import ErrorReply
from harness.protocol import ErrorCode, serve_request
from harness.protocol.declaration import Declaration
from harness.reference.engine import ReferenceGame
from harness.reference.rounds import Round
from harness.rules.catalogs import clause_index, load_catalogs
from harness.rules.evaluator import Category
from harness.rules.profiles import load_profile
from harness.vectors.refusals import load_all_refusals
from tests.games import NoInject
from tests.runs import certify

VECTORS = {r.id: r for r in load_all_refusals(clause_index(load_catalogs()))}
REFUSALS = sorted(VECTORS)
# Only the refusal items: every other item of their clauses is left out.
ONLY_REFUSALS = ("-k", " or ".join(REFUSALS))


class TwoOddsWrong(ReferenceGame):
    """Three of a kind pays 3 to 1 on the ante (the table says 1), and the AA Bonus pays one
    more than its table on every row: the round the battery plays after a refusal (three
    aces with the flop's ace, an AA Bonus) is settled against the rules, every time alike."""

    def ante_odds(self, category: Category) -> int:
        return 3 if category is Category.THREE_OF_A_KIND else super().ante_odds(category)

    def aa_bonus_odds(self, hole_and_flop: int) -> int | None:
        odds = super().aa_bonus_odds(hole_and_flop)
        return None if odds is None else odds + 1


class DealerAlwaysQualifies(ReferenceGame):
    """Every dealer hand qualifies: the round of a refusal's moment (jack high for the
    dealer) pays the call it should push, every time alike."""

    def dealer_qualifies(self, strength: int) -> bool:
        return True


class RulesWrong(TwoOddsWrong, DealerAlwaysQualifies):
    """Both: two pay odds wrong, and a dealer that always qualifies."""


class KeepsARefusedAnte(ReferenceGame):
    """A refused wager is refused and recorded nowhere, but the table keeps the minimum ante
    from it: the next round settled returns seat 1 that much less."""

    owed = 0

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        try:
            return super().round(seats=seats, cards=cards)
        except ErrorReply as exc:
            if exc.code == ErrorCode.INVALID_BET:
                self.owed = self.table.ante[0]
            raise

    def _finish(self, rnd: Round) -> None:
        super()._finish(rnd)
        if self.owed and 1 in rnd.seats:
            seat = rnd.seats[1]
            seat.ante_returned = max(0, seat.ante_returned - self.owed)
            self.owed = 0


class ChargesARefusedDecision(ReferenceGame):
    """A refused decision is refused, but charged to the round it named: that round returns
    the seat one ante less when it settles."""

    def __init__(self) -> None:
        super().__init__()
        self.charged: set[Any] = set()  # rounds a refused decision named

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        try:
            return super().act(round=round, seat=seat, action=action)
        except ErrorReply:
            if round in self._rounds:
                self.charged.add(round)
            raise

    def _finish(self, rnd: Round) -> None:
        super()._finish(rnd)
        if rnd.ident in self.charged and 1 in rnd.seats:
            seat = rnd.seats[1]
            seat.ante_returned = max(0, seat.ante_returned - self.table.ante[0])


class ChangedByARefusal(KeepsARefusedAnte, ChargesARefusedDecision):
    """Both: a refused wager costs the next round, a refused decision the round it named."""


class IgnoresStackedCards(ReferenceGame):
    """Declares `inject` but deals every round from its shuffle, whatever was stacked."""

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        return super().round(seats=seats)


class _InProcess:
    """A game answered in this process, its replies checked as any adapter checks them."""

    spec = "in-process"

    def __init__(self, game: ReferenceGame) -> None:
        self.game = game

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        request = {"id": 1, "op": op, **params}
        return check_body(request, serve_request(self.game, request), {})


def _replay(game: ReferenceGame, vector: str) -> dict[str, Any]:
    """One refusal item played against `game`: its evidence when it passes."""
    adapter = _InProcess(game)
    ctx = Context(adapter, Declaration(adapter.request("hello")), load_profile("standard"), seed=7)  # type: ignore[arg-type]
    return dict(replay_refusal(ctx, VECTORS[vector]).evidence)


@pytest.mark.parametrize("vector", ["bet-zero-ante", "result-before-any-decision"])
def test_the_evidence_says_how_the_refusal_was_judged(vector: str) -> None:
    """By the same stacked round before and after; without `inject`, or when the stacked
    cards were not dealt, only for the rounds after it completing, and the evidence says
    so."""
    assert _replay(ReferenceGame(), vector)["control"] == SAME_ROUND
    assert _replay(NoInject(), vector)["control"] == NO_INJECT
    assert _replay(IgnoresStackedCards(), vector)["control"] == NOT_STACKED
    assert "without capability inject" in NO_INJECT


def test_without_inject_a_round_that_does_not_complete_still_fails() -> None:
    """Usability is judged without a control: a round after the refusal must settle."""

    class VoidsAfterARefusal(NoInject):
        refused = False

        def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
            try:
                return super().round(seats=seats, cards=cards)
            except ErrorReply:
                self.refused = True
                raise

        def result(self, round: Any) -> dict[str, Any]:
            answer = super().result(round)
            if self.refused:
                seats = [{"seat": e["seat"], "wagers": e["wagers"]} for e in answer["seats"]]
                return {"round": round, "status": "void", "seats": seats}
            return answer

    with pytest.raises(CheckFailure, match="did not complete") as failed:
        _replay(VoidsAfterARefusal(), "bet-zero-ante")
    assert failed.value.cause == ("refusal-unusable-after", "not settled")  # its own cause


def _items(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["name"]: i for c in results["clauses"] for i in c["items"]}


def _refusal_items(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n: i for n, i in _items(results).items() if n.partition("/")[2] in REFUSALS}


def test_the_rules_wrong_game_settles_the_battery_s_rounds_otherwise() -> None:
    """The premise: RulesWrong settles both rounds the battery plays otherwise than the
    reference, so the oracle would fail it on every refusal item; the control does not."""
    for vector in ("bet-zero-ante", "result-before-any-decision"):
        assert _settled(RulesWrong(), vector) != _settled(ReferenceGame(), vector)


def _settled(game: ReferenceGame, vector: str) -> list[Any]:
    """The results of the rounds one refusal item played against `game`."""
    _replay(game, vector)
    recalled = game.history(last=10)["rounds"]
    return [{k: v for k, v in r.items() if k not in ("round", "events")} for r in recalled]


def test_a_game_wrong_only_in_its_rules_passes_every_refusal_item(tmp_path: Path) -> None:
    """Its settlement is wrong, and alike before and after each refusal: no refusal item
    fails (the settlement clauses are where it fails, tests/test_mutants.py)."""
    adapter = "python:tests.test_refusal_control:RulesWrong"
    code, results = certify(tmp_path, "--adapter", adapter, *ONLY_REFUSALS)
    refusals = _refusal_items(results)
    assert refusals and code == 2  # a selection is never a certificate
    failed = {f["item"] for f in results["failures"]}
    assert not {name for name in failed if name.partition("/")[2] in REFUSALS}, failed
    assert {i["status"] for i in refusals.values()} <= {"pass", "not_tested"}
    ran = [i for i in refusals.values() if i["status"] == "pass"]
    assert len(ran) >= 30  # the text items are not tested in process (tests/test_interactive.py)


def _failure(results: dict[str, Any], item: str) -> dict[str, Any]:
    return next(f for f in results["failures"] if f["item"] == item)


def test_a_refusal_that_changes_the_game_fails_with_both_settlements(tmp_path: Path) -> None:
    """The refused wager and the refused second decision move no money the history shows,
    but the same stacked round settles otherwise after the request than before it: the
    next round after the wager, the round the decision named. Each item fails, with the
    settlement before as expected and the one after as actual."""
    adapter = "python:tests.test_refusal_control:ChangedByARefusal"
    code, results = certify(tmp_path, "--adapter", adapter, "-k", "bet-zero-ante or act-twice")
    assert code == 1

    failure = _failure(results, "s000-r2/bet-zero-ante")
    assert "the refusal left the game changed" in failure["message"]
    assert "seats.1.ante" in failure["message"]
    before, after = failure["expected"], failure["actual"]
    assert before["seats"]["1"]["ante"][1] == after["seats"]["1"]["ante"][1] + 100
    assert before["board"] == after["board"] and before["dealer"] == after["dealer"]
    assert failure["evidence"]["request"] == {"op": "round", "seats": [{"seat": 1, "ante": 0}]}
    assert failure["evidence"]["reply"]["error"]["code"] == "invalid_bet"
    assert failure["fault"]["kind"] == "refusal-settled-otherwise"
    assert failure["fault"]["found_by"] == "refusal"

    failure = _failure(results, "s000-r5/act-twice")
    assert "the round the refused request named" in failure["message"]
    before, after = failure["expected"], failure["actual"]
    assert before["seats"]["1"]["action"] == after["seats"]["1"]["action"] == "call"
    assert before["seats"]["1"]["ante"][1] == after["seats"]["1"]["ante"][1] + 100
    assert failure["evidence"]["request"]["op"] == "act"
    assert "error" in failure["evidence"]["reply"]
