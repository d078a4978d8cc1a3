"""Rounds played batches ahead (harness/checks/replies.py `play_batches`): the game
plays the next batches while the caller judges one; the answers are those of playing
the batches one after another; a fault is raised after the rounds before its batch;
and leaving early leaves no batch in flight on the connection. The RTP simulation's
stacked rounds, played so, are judged by the decision table as the differential's;
dealt-cards-distinct, which sends its acts together, meets a refused act first."""

from __future__ import annotations

import dataclasses
import itertools
import sys
import threading
from contextlib import closing
from typing import Any

import pytest

from harness.adapters.base import check_body, exchange_sequentially
from harness.checks import REGISTRY
from harness.checks.dealing import DEALT_ROUNDS, dealt_cards_distinct
from harness.checks.registry import CheckFailure, Context
from harness.checks.replies import (
    BATCHES_AHEAD,
    PIPELINE_ROUNDS,
    Stacked,
    finish_round,
    play_batches,
    play_rounds,
)
from harness.checks.simulation import seeded_deals
from harness.errors import ErrorReply, ProtocolViolation, Unreachable, Violation
from harness.protocol import serve_request
from harness.protocol.declaration import Declaration
from harness.protocol.messages import seat_stakes
from harness.reference import ReferenceGame
from harness.results.model import SimulationShare
from harness.rules.profiles import load_profile

SEATS = [1, 2, 3]


class _Watched:
    """The reference game in this process, its exchanges watched: how many run at once,
    how many began, and a hook called as each begins."""

    spec = "in-process"

    def __init__(self, fail_in: int | None = None) -> None:
        self.game = ReferenceGame()
        self.running = 0
        self.most_at_once = 0
        self.begun = 0
        self.fail_in = fail_in  # the exchange (1-based) answered with a protocol fault
        self.on_begin: list[threading.Event] = []
        self.lock = threading.Lock()

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        request = {"id": 1, "op": op, **params}
        return check_body(request, serve_request(self.game, request), {})

    def exchange(self, requests: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        with self.lock:
            self.running += 1
            self.begun += 1
            self.most_at_once = max(self.most_at_once, self.running)
            begun = self.begun
        for event in self.on_begin:
            event.set()
        try:
            if begun == self.fail_in:
                raise ProtocolViolation("the test's fault", {"request": None, "reply": None})
            return exchange_sequentially(self, requests)
        finally:
            with self.lock:
                self.running -= 1

    def close(self) -> None:
        pass


def _context(adapter: _Watched) -> Context:
    hello = adapter.request("hello")
    return Context(adapter, Declaration(hello), load_profile("standard"), seed=7)  # type: ignore[arg-type]


def _rounds(n: int) -> list[Stacked]:
    deals = itertools.islice(seeded_deals(7, "test", SEATS), n)
    wagers = [seat_stakes(s, 100) for s in SEATS]
    return [Stacked(wagers, cards, [(s, "call") for s in SEATS]) for _, cards in deals]


def test_the_answers_are_those_of_the_batches_played_one_after_another() -> None:
    rounds = _rounds(3 * PIPELINE_ROUNDS + 5)
    one_by_one = _context(_Watched())
    expected = [
        played
        for start in range(0, len(rounds), PIPELINE_ROUNDS)
        for played in play_rounds(one_by_one, rounds[start : start + PIPELINE_ROUNDS])
    ]
    adapter = _Watched()
    with closing(play_batches(_context(adapter), rounds)) as answers:
        assert list(answers) == expected
    assert adapter.most_at_once == 1  # one thread at a time on the connection


def test_the_game_plays_the_next_batches_while_the_caller_judges_one() -> None:
    adapter = _Watched()
    ctx = _context(adapter)
    ahead = threading.Event()
    adapter.on_begin.append(ahead)
    batches = BATCHES_AHEAD + 2
    with closing(play_batches(ctx, _rounds(batches * PIPELINE_ROUNDS))) as answers:
        next(answers)  # the first round of the first batch, being judged
        # Each batch is two exchanges (rounds, then acts and results): the batches after
        # it, BATCHES_AHEAD of them, begin while the caller still holds the first.
        while adapter.begun < 2 * BATCHES_AHEAD + 1:
            ahead.clear()
            assert ahead.wait(30)
        assert len(list(answers)) == batches * PIPELINE_ROUNDS - 1


def test_leaving_early_leaves_no_batch_in_flight() -> None:
    adapter = _Watched()
    ctx = _context(adapter)
    interval = sys.getswitchinterval()
    rounds = _rounds(5 * PIPELINE_ROUNDS)
    with (
        pytest.raises(RuntimeError, match="judging failed"),
        closing(play_batches(ctx, rounds)) as answers,
    ):
        for k, _ in enumerate(answers):
            if k == 3:
                raise RuntimeError("judging failed")
    begun = adapter.begun
    assert adapter.running == 0  # the batches in flight were waited for
    assert adapter.begun == begun and begun <= 2 * (BATCHES_AHEAD + 1)  # nothing more sent
    assert sys.getswitchinterval() == interval


def test_a_fault_is_raised_after_the_rounds_before_its_batch() -> None:
    adapter = _Watched(fail_in=3)  # the second batch's first exchange
    ctx = _context(adapter)
    seen = 0
    rounds = _rounds(3 * PIPELINE_ROUNDS)
    with (
        pytest.raises(ProtocolViolation, match="the test's fault"),
        closing(play_batches(ctx, rounds)) as answers,
    ):
        for _ in answers:
            seen += 1
    assert seen == PIPELINE_ROUNDS
    assert adapter.running == 0
    assert adapter.begun == 3  # the batches queued behind the fault were never sent


class _LeavesOneInProgress(ReferenceGame):
    """The reference game whose fourth round's result says it is still in progress."""

    def result(self, round: Any) -> dict[str, Any]:
        reply = super().result(round)
        if round != "r4":
            return reply
        return {
            "round": round,
            "status": "in_progress",
            "flop": reply["board"][:3],
            "seats": [
                {"seat": s["seat"], "hole": s["hole"], "action": None} for s in reply["seats"]
            ],
        }


def test_the_rtp_simulation_judges_an_unsettled_round_by_the_table_and_counts_no_return() -> None:
    """A stacked round left in progress is the decision table's `result-shape` (row 4), as
    in the differential, and has no return: the mean is over the rounds settled."""
    adapter = _Watched()
    adapter.game = _LeavesOneInProgress()
    ctx = dataclasses.replace(_context(adapter), rtp_rounds=40, clause="s000-r8")
    outcome = REGISTRY.run("rtp-simulation", ctx)
    assert [f.kind for f in outcome.findings] == ["result-shape"]
    assert "in_progress" in outcome.findings[0].message
    share = outcome.share
    assert isinstance(share, SimulationShare) and share.section.rounds == 39


class _RefusesACallThenAnswersBadly(ReferenceGame):
    """Refuses seat 1's call (a legal act) and answers the result of a round still
    awaiting a decision with a body that is not protocol v1."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        if seat == 1 and action == "call":
            raise ErrorReply("invalid_action", "no calls today")
        return super().act(round, seat, action)

    def result(self, round: Any) -> dict[str, Any]:
        if round in self.undecided:
            return {"status": "settled"}
        return super().result(round)

    @property
    def undecided(self) -> set[Any]:
        return {r for r, rnd in self._rounds.items() if rnd.phase.name == "DECISIONS"}


def test_dealt_cards_distinct_meets_the_refused_act_before_any_result() -> None:
    """The acts go out together and the result after them: a refused call is what the
    check meets (the clause of decisions'), never the reply to the round it left open."""
    adapter = _Watched()
    adapter.game = _RefusesACallThenAnswersBadly()
    ctx = dataclasses.replace(_context(adapter), clause="s000-r1")
    with pytest.raises(CheckFailure) as raised:
        dealt_cards_distinct(ctx)
    assert raised.value.refused == ("act", "invalid_action", "no calls today")


class _RefusesInRound(ReferenceGame):
    """Refuses seat 2's call in its `refuse_in`-th round."""

    def __init__(self, refuse_in: int) -> None:
        super().__init__()
        self.refuse_in = f"r{refuse_in}"

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        if round == self.refuse_in and seat == 2 and action == "call":
            raise ErrorReply("invalid_action", "no calls in this round")
        return super().act(round, seat, action)


def test_dealt_cards_distinct_plays_its_rounds_batches_at_a_time() -> None:
    """A game with capability pipeline gets PIPELINE_ROUNDS rounds at once: their round
    requests, then every act, then every result (three exchanges a batch)."""
    adapter = _Watched()
    dealt_cards_distinct(dataclasses.replace(_context(adapter), clause="s000-r1"))
    batches = -(-DEALT_ROUNDS // PIPELINE_ROUNDS)
    assert adapter.begun == 3 * batches
    assert not adapter.game._open_rounds


def test_a_refused_act_in_a_batch_leaves_no_round_of_it_open() -> None:
    """The failure is the refused act's; every round the batch opened is decided before
    the check stops, so the next check finds the table free."""
    adapter = _Watched()
    adapter.game = _RefusesInRound(PIPELINE_ROUNDS + 3)
    with pytest.raises(CheckFailure) as raised:
        dealt_cards_distinct(dataclasses.replace(_context(adapter), clause="s000-r1"))
    assert raised.value.refused == ("act", "invalid_action", "no calls in this round")
    assert not adapter.game._open_rounds


class _AnswersAnActBadly(_RefusesInRound):
    """Takes seat 2's call in its `refuse_in`-th round, and answers it with a list: JSON,
    the channel in step, a body no `act` reply has."""

    def act(self, round: Any, seat: Any, action: Any) -> Any:
        taken = ReferenceGame.act(self, round, seat, action)
        return [] if round == self.refuse_in and seat == 2 and action == "call" else taken


def test_a_protocol_violation_in_a_batch_leaves_no_round_of_it_open() -> None:
    adapter = _Watched()
    adapter.game = _AnswersAnActBadly(PIPELINE_ROUNDS + 3)
    with pytest.raises(ProtocolViolation, match="neither an 'ok' object"):
        dealt_cards_distinct(dataclasses.replace(_context(adapter), clause="s000-r1"))
    assert not adapter.game._open_rounds


class _Hangs(_Watched):
    """Its acts' exchange hangs past the timeout (the transport then kills the game);
    counts what is sent after."""

    def __init__(self) -> None:
        super().__init__()
        self.hung = False
        self.after: list[str] = []

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        if self.hung:
            self.after.append(op)
        return super().request(op, **params)

    def exchange(self, requests: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        if requests[0][0] == "act":
            self.hung = True
            evidence: dict[str, Any] = {"request": {"op": "act"}, "reply": None}
            raise ProtocolViolation("no reply within 1 s", evidence, kind=Violation.NO_REPLY)
        return super().exchange(requests)


def test_after_a_hang_nothing_is_sent_to_free_the_rounds_of_a_game_that_is_gone() -> None:
    adapter = _Hangs()
    with pytest.raises(ProtocolViolation, match="no reply within"):
        dealt_cards_distinct(dataclasses.replace(_context(adapter), clause="s000-r1"))
    assert adapter.after == []


class _GoneWhileFreed(_Watched):
    """The game refuses a call; folding a seat to free the table then finds it
    unreachable."""

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        if op == "act" and params.get("action") == "fold":
            raise Unreachable("cannot start 'game': Too many open files")
        return super().request(op, **params)


def test_a_failure_is_raised_as_it_was_whatever_freeing_the_rounds_meets() -> None:
    adapter = _GoneWhileFreed()
    adapter.game = _RefusesInRound(3)
    with pytest.raises(CheckFailure) as raised:
        dealt_cards_distinct(dataclasses.replace(_context(adapter), clause="s000-r1"))
    assert raised.value.refused == ("act", "invalid_action", "no calls in this round")


def test_a_game_without_pipeline_is_dealt_one_round_at_a_time_as_before() -> None:
    """Its round and its result each asked alone (Adapter.request, whose faults name
    the request), its acts together: one exchange a round."""
    adapter = _Watched()
    hello = adapter.request("hello")
    hello["capabilities"] = [c for c in hello["capabilities"] if c != "pipeline"]
    ctx = Context(adapter, Declaration(hello), load_profile("standard"), seed=7)  # type: ignore[arg-type]
    dealt_cards_distinct(dataclasses.replace(ctx, clause="s000-r1"))
    assert adapter.begun == DEALT_ROUNDS


class _HangsOnFolds(_Watched):
    """Every fold hangs past the timeout: the transport then kills the game."""

    def __init__(self) -> None:
        super().__init__()
        self.folds = 0

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        if op == "act" and params.get("action") == "fold":
            self.folds += 1
            evidence: dict[str, Any] = {"request": {"op": op, **params}, "reply": None}
            raise ProtocolViolation("no reply within 1 s", evidence, kind=Violation.NO_REPLY)
        return super().request(op, **params)


def test_freeing_a_round_stops_once_the_game_is_gone() -> None:
    """finish_round sends no second fold after one hung (each would start the game
    again); a refusal, or a wrong reply on a channel in step, does not stop it."""
    adapter = _HangsOnFolds()
    ctx = _context(adapter)
    assert not finish_round(ctx, "r1", [1, 2, 3])
    assert adapter.folds == 1
    assert finish_round(_context(_Watched()), "nope", [1, 2, 3])  # refused: unknown_round
