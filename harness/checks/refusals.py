"""Refusals: a bad request is refused with a fitting error code, moves no money, and
leaves the game as usable as before (docs/refusals.md).

`replay_refusal` plays one refusal vector (harness/refusals.py): it brings a round
to the vector's moment, sends the request and judges, in this order,

1. the answer: an error reply whose code is one the vector names;
2. no money moved: the last round the game's `history` recalls (where it declares
   one) is what it was just before the request;
3. the round the request named, decided and settled as its own decisions say (a
   settled one recalled as it was);
4. the game still usable: a valid round right after, settled exactly.

Every failure carries the request as sent and the game's answer.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from harness.cards import Card
from harness.checks.registry import CheckFailure, Context, NotTested, game_faults_fail
from harness.checks.replies import (
    finish_round,
    items,
    obj,
    parse,
    request_ok,
    stake,
    three,
    two,
    wager_pair,
)
from harness.errors import ErrorReply, InvalidCards, ProtocolViolation
from harness.game import Action, Deal
from harness.model import Outcome, Untested
from harness.oracle import SeatPlay, settle
from harness.protocol import Capability
from harness.refusals import RefusalVector

# The round a test's moment opens, and the valid round played after the refusal,
# when the game takes stacked cards: one seat or two, nothing drawn by chance.
MOMENT_CARDS: dict[str, Any] = {
    "seats": {"1": ["Kc", "Qd"], "2": ["9h", "9c"]},
    "dealer": ["Jc", "8s"],
    "flop": ["Ks", "5h", "2d"],
    "turn": "7c",
    "river": "3s",
}
AFTER_CARDS: dict[str, Any] = {
    "seats": {"1": ["Ah", "Ad"]},
    "dealer": ["Tc", "Ts"],
    "flop": ["4c", "9d", "As"],
    "turn": "Jh",
    "river": "2s",
}


@dataclass
class Moment:
    """The round a test's request comes in: its id, its reply, who has decided, its result
    when it is already settled; and the game's history just before the request."""

    round_id: Any = None
    reply: dict[str, Any] | None = None
    seats: tuple[int, ...] = ()
    decided: tuple[int, ...] = ()
    result: dict[str, Any] | None = None
    history_before: Any = None  # what `history` recalled just before the request, or
    # the CheckFailure of a history that could not be read (refused, or not conforming)


def replay_refusal(ctx: Context, vector: RefusalVector) -> Outcome:
    """Send one bad request at its moment and judge the refusal and what follows it."""
    _verify_askable(ctx, vector)
    vacuous = _nothing_to_refuse(ctx, vector)
    if vacuous:
        return Outcome(evidence={"vacuous": vacuous})
    moment = Moment()
    with game_faults_fail():
        try:
            moment = _bring_to(ctx, vector.moment)
            return _judge_refusal(ctx, vector, moment)
        finally:
            _finish(ctx, moment)  # whatever happened, no round of this item stays open


def _judge_refusal(ctx: Context, vector: RefusalVector, moment: Moment) -> Outcome:
    sent, answer = _send(ctx, vector, moment)
    evidence = {"request": sent, "reply": answer}
    if "error" not in answer:
        _close_accepted(ctx, vector, answer)
        _finish(ctx, moment)
        with contextlib.suppress(CheckFailure, NotTested, ProtocolViolation):
            _usable_after(ctx, evidence)  # the accepted round is then not the last
        raise CheckFailure(
            f"the game accepted {vector.id}: it must refuse it with "
            f"{' or '.join(vector.refuse_with)}",
            expected={"error": list(vector.refuse_with)},
            actual=answer,
            evidence=evidence,
        )
    code = answer["error"]["code"]
    if code not in vector.refuse_with:
        raise CheckFailure(
            f"refused with {code}; {vector.id} calls for {' or '.join(vector.refuse_with)}",
            expected={"error": list(vector.refuse_with)},
            actual=answer,
            evidence=evidence,
        )
    findings: dict[str, Any] = dict(evidence)
    untested: Untested | None = None
    if isinstance(moment.history_before, CheckFailure):
        raise CheckFailure(
            f"refused with {code} as it should be, but whether money moved cannot be "
            f"told: the game's history cannot be read ({moment.history_before.message})",
            evidence={**evidence, **moment.history_before.evidence},
        )
    if moment.history_before is None:
        findings["money"] = "not checked: the game declares no history"
    elif ctx.shared:
        untested = Untested(
            reason="the game is shared by several workers, whose rounds interleave in its "
            "history: whether the refused request moved money is not judged",
            needs="a run with one worker (-n 0)",
        )
    else:
        recalled = _history(ctx)
        if recalled != moment.history_before:
            raise CheckFailure(
                "money moved on a refused request: the game's history changed",
                expected=moment.history_before,
                actual=recalled,
                evidence=evidence,
            )
    _settled_after(ctx, moment, evidence)
    _usable_after(ctx, evidence)
    return Outcome(evidence=findings, untested=untested)


def _verify_askable(ctx: Context, vector: RefusalVector) -> None:
    for need in vector.needs:
        if need == "inject" and Capability.INJECT not in ctx.capabilities:
            raise NotTested(f"{vector.id} stacks a deck", needs="capability inject")
        if need == "seats:2" and ctx.seats < 2:
            raise NotTested(
                f"{vector.id} needs a second seat; the game declares seats:{ctx.seats}",
                needs="capability seats:2",
            )
        if need == "aa_bonus" and not obj(ctx.hello.get("config")).get("aa_bonus_pay_table"):
            raise NotTested(f"{vector.id} wagers an AA Bonus; the game declares none",
                            needs="an AA Bonus table in hello")  # fmt: skip
        if need == "text" and not hasattr(ctx.adapter, "request_text"):
            raise NotTested(
                f"{vector.id} sends text that is not a request object; the python: adapter "
                "passes Python objects, not text",
                needs="a subprocess: or http:// adapter",
            )


def _nothing_to_refuse(ctx: Context, vector: RefusalVector) -> str:
    """Why the vector's request is no fault for this game (it passes with the reason as
    evidence), or "" when it is one."""
    if "$aa_under" in str(vector.params) and _aa_minimum(ctx) == 1:
        # 0 is no AA Bonus at all, which is legal: no stake lies under the limit to refuse.
        return "the declared AA Bonus minimum is 1: no stake lies under it"
    if "lines" in vector.needs and not getattr(ctx.adapter, "carries_lines", False):
        return "requests do not travel as lines here: over HTTP the path names the op"
    return ""


def _aa_minimum(ctx: Context) -> Any:
    declared = obj(obj(ctx.hello.get("config")).get("limits")).get("aa_bonus")
    return declared[0] if isinstance(declared, list) and declared else None


def _history(ctx: Context) -> Any:
    """The last round the game recalls, or None when it declares no history.

    One round is enough to see a refused request that recorded a round, and keeps one
    earlier fault from spoiling later items: a round a bad request opened (a wager of
    100.5, say) is the last only until the next item plays its valid round."""
    if Capability.HISTORY not in ctx.capabilities:
        return None
    return request_ok(ctx, "history", last=1).get("rounds")


def _stacked(cards: dict[str, Any], seats: tuple[int, ...]) -> dict[str, Any]:
    return {**cards, "seats": {str(s): cards["seats"][str(s)] for s in seats}}


def _open(ctx: Context, seats: tuple[int, ...], cards: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"seats": [{"seat": s, "ante": stake(ctx)} for s in seats]}
    if Capability.INJECT in ctx.capabilities:
        params["cards"] = _stacked(cards, seats)
    return request_ok(ctx, "round", **params)


def _bring_to(ctx: Context, when: str) -> Moment:
    """Open a round and bring it to the moment (none: no round), then note the history."""
    moment = Moment()
    if when != "none":
        seats = (1, 2) if when == "half-decided" else (1,)
        reply = _open(ctx, seats, MOMENT_CARDS)
        moment = Moment(reply.get("round"), reply, seats)
        if when == "half-decided":
            request_ok(ctx, "act", round=moment.round_id, seat=1, action="call")
            moment.decided = (1,)
        if when == "settled":
            request_ok(ctx, "act", round=moment.round_id, seat=1, action="call")
            moment.decided = (1,)
            moment.result = request_ok(ctx, "result", round=moment.round_id)
    try:
        moment.history_before = _history(ctx)
    except ProtocolViolation as exc:  # judged after the refusal itself (_judge_refusal)
        moment.history_before = CheckFailure(str(exc), evidence=exc.evidence)
    except CheckFailure as exc:  # history refused
        moment.history_before = exc
    return moment


def _fill(value: Any, ctx: Context, moment: Moment) -> Any:
    """A vector's params with each '$' placeholder replaced (harness/refusals.py)."""
    if isinstance(value, dict):
        return {k: _fill(v, ctx, moment) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, ctx, moment) for v in value]
    if not (isinstance(value, str) and value.startswith("$")):
        return value
    limits = obj(obj(ctx.hello.get("config")).get("limits"))
    if value in ("$ante", "$aa"):
        return stake(ctx, "ante" if value == "$ante" else "aa_bonus")
    if value in ("$ante_over", "$ante_under", "$aa_over", "$aa_under"):
        wager = "ante" if value.startswith("$ante") else "aa_bonus"
        declared = limits.get(wager)
        if not (isinstance(declared, list) and len(declared) == 2):
            raise NotTested(f"the game declares no {wager} limits",
                            needs=f"declared {wager} limits")  # fmt: skip
        if value.endswith("_over"):
            return declared[1] + 1
        return declared[0] - 1
    if value == "$seat_over":
        return ctx.seats + 1
    if value == "$too_many_seats":
        return [{"seat": n, "ante": stake(ctx)} for n in range(1, ctx.seats + 2)]
    if value == "$round":
        return moment.round_id
    if value == "$absent_seat":
        return max(moment.seats) + 1
    raise AssertionError(f"placeholder {value} unknown (harness/refusals.py lints them)")


def _send(ctx: Context, vector: RefusalVector, moment: Moment) -> tuple[Any, dict[str, Any]]:
    """The request as sent, and the answer: {"ok": body} or {"error": {code, message}}."""
    try:
        if vector.text is not None:
            sent: Any = vector.text
            body = ctx.adapter.request_text(vector.text_op or "round", vector.text)  # type: ignore[attr-defined]
        else:
            assert vector.op is not None
            params = _fill(vector.params, ctx, moment)
            sent = {"op": vector.op, **params}
            body = ctx.adapter.request(vector.op, **params)
    except ErrorReply as exc:
        return sent, {"error": {"code": exc.code, "message": exc.message}}
    return sent, {"ok": body}


def _close_accepted(ctx: Context, vector: RefusalVector, answer: dict[str, Any]) -> None:
    """A bad `round` the game took opened a round: fold its seats, so the table is free."""
    if vector.op == "round" or vector.text_op == "round":
        ok = obj(answer.get("ok"))
        seats = [obj(e).get("seat") for e in items(ok.get("seats"))]
        finish_round(ctx, ok.get("round"), [s for s in seats if isinstance(s, int)])


def _finish(ctx: Context, moment: Moment) -> None:
    """Decide the moment's round for every seat still undecided (once), so it is closed."""
    if moment.round_id is not None and moment.result is None:
        undecided = [s for s in moment.seats if s not in moment.decided]
        finish_round(ctx, moment.round_id, undecided, action="call")
        moment.decided = moment.seats


def _settled_after(ctx: Context, moment: Moment, evidence: dict[str, Any]) -> None:
    """The round the request came in: settled as its own decisions say (every seat
    called); a round settled before the request, recalled exactly as it was."""
    if moment.round_id is None:
        return
    if moment.result is not None:
        again = request_ok(ctx, "result", round=moment.round_id)
        if again != moment.result:
            raise CheckFailure(
                "a refused request changed a settled round: its result is not what it was",
                expected=moment.result,
                actual=again,
                evidence=evidence,
            )
        return
    for seat in moment.seats:
        if seat not in moment.decided:
            request_ok(ctx, "act", round=moment.round_id, seat=seat, action="call")
            moment.decided += (seat,)
    result = request_ok(ctx, "result", round=moment.round_id)
    assert moment.reply is not None
    _judge(ctx, moment.reply, result, moment.seats, "the round the refused request named",
           evidence)  # fmt: skip


def _usable_after(ctx: Context, evidence: dict[str, Any]) -> None:
    """A valid round right after the refusal, settled exactly as the rules say."""
    aa = stake(ctx, "aa_bonus") if obj(ctx.hello.get("config")).get("aa_bonus_pay_table") else 0
    params: dict[str, Any] = {
        "seats": [{"seat": 1, "ante": stake(ctx), **({"aa_bonus": aa} if aa else {})}]
    }
    if Capability.INJECT in ctx.capabilities:
        params["cards"] = AFTER_CARDS
    reply = request_ok(ctx, "round", **params)
    request_ok(ctx, "act", round=reply.get("round"), seat=1, action="call")
    result = request_ok(ctx, "result", round=reply.get("round"))
    _judge(ctx, reply, result, (1,), "the valid round played after the refusal", evidence, aa)


def _judge(
    ctx: Context,
    reply: dict[str, Any],
    result: dict[str, Any],
    seats: tuple[int, ...],
    what: str,
    evidence: dict[str, Any],
    aa: int = 0,
) -> None:
    """Every seat called: its money must be what the oracle settles on the cards shown."""
    try:
        holes = {
            obj(e).get("seat"): two(parse(obj(e).get("hole"), "hole", 0))
            for e in items(reply.get("seats"))
        }
        flop = three(parse(reply.get("flop"), "flop", 0))
        board = parse(result.get("board"), "board", 0)
        dealer = two(parse(obj(result.get("dealer")).get("hole"), "dealer", 0))
        if sorted(holes, key=str) != list(seats) or len(board) != 5:
            raise CheckFailure(f"{what} does not show the cards of seats {list(seats)}")
        deal = Deal({s: holes[s] for s in seats}, dealer, flop, board[3], board[4])
        plays = {s: SeatPlay(s, stake(ctx), aa, Action.CALL) for s in seats}
        want = settle(ctx.profile, deal, plays)
    except InvalidCards as exc:
        raise CheckFailure(f"{what} dealt impossible cards: {exc}", evidence=evidence) from exc
    got = {obj(e).get("seat"): obj(obj(e).get("wagers")) for e in items(result.get("seats"))}
    expected, actual = {}, {}
    for seat in want.seats:
        wagers = got.get(seat.seat, {})
        expected[str(seat.seat)] = {
            "ante": [seat.ante.stake, seat.ante.returned],
            "call": [seat.call.stake, seat.call.returned],
            "aa_bonus": [seat.aa_bonus.stake, seat.aa_bonus.returned] if seat.aa_bonus else None,
        }
        aa_pair = wager_pair(wagers.get("aa_bonus"))
        actual[str(seat.seat)] = {
            "ante": wager_pair(wagers.get("ante")),
            "call": wager_pair(wagers.get("call")),
            "aa_bonus": None if aa_pair in (None, [0, 0]) else aa_pair,
        }
    if expected != actual:
        raise CheckFailure(
            f"{what} was not settled as the rules say: the refusal left the game changed",
            expected=expected,
            actual=actual,
            evidence={**evidence, "round": reply, "result": result, "cards": _shown(deal)},
        )


def _shown(deal: Deal) -> dict[str, Any]:
    def text(cards: tuple[Card, ...]) -> list[str]:
        return [str(c) for c in cards]

    return {
        "seats": {str(s): text(h) for s, h in deal.seats.items()},
        "dealer": text(deal.dealer),
        "board": text(deal.board),
    }
