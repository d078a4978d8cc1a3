"""Refusals: a bad request is refused with a fitting error code, moves no money, and
leaves the game as it was (docs/refusals.md).

`replay_refusal` plays one refusal vector (harness/vectors/refusals.py). It first plays the
control: the valid round played again after the refusal (AFTER_CARDS) and the round of
the vector's moment, each to its settlement, with stacked cards. Then it brings a round
to the vector's moment, sends the request and judges, in this order,

1. the answer: an error reply whose code is one the vector names;
2. no money moved: the last round the game's `history` recalls (where it declares
   one) is what it was just before the request;
3. the round the request named: decided as its own decisions say, and settled as the
   same round played without the request (the control); a settled one recalled as it
   was;
4. the game unchanged: the same round as the control's, played after the refusal,
   completes and settles as it did before.

Whether those settlements follow the rules is not judged here: a game that settles a
round wrongly settles it wrongly before the request and after it alike, and that is
the settlement clauses' failure, not the refusal's. A game without capability `inject`
cannot be dealt the same round twice: its rounds are then judged only for completing
with a conforming result, and the item's evidence says so.

Every failure carries the request as sent and the game's answer; a settlement that
differs, the control's as expected and the one after the request as actual.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from harness.checks.registry import CheckFailure, Context, NotTested, game_faults_fail
from harness.checks.replies import (
    finish_round,
    offers_aa_bonus,
    open_round,
    recall,
    request_ok,
    result_of,
    stake,
)
from harness.errors import ErrorReply, InvalidCards, ProtocolViolation
from harness.protocol import Capability
from harness.protocol.messages import (
    Dealt,
    Result,
    Settled,
    StackedCards,
    fields_of,
    read_dealt,
    seat_stakes,
)
from harness.results.model import Outcome, Untested
from harness.rules.cards import parse_cards
from harness.vectors.refusals import RefusalVector

# The round a test's moment opens, and the valid round played after the refusal,
# when the game takes stacked cards: one seat or two, nothing drawn by chance.
MOMENT_CARDS: StackedCards = {
    "seats": {"1": ["Kc", "Qd"], "2": ["9h", "9c"]},
    "dealer": ["Jc", "8s"],
    "flop": ["Ks", "5h", "2d"],
    "turn": "7c",
    "river": "3s",
}
AFTER_CARDS: StackedCards = {
    "seats": {"1": ["Ah", "Ad"]},
    "dealer": ["Tc", "Ts"],
    "flop": ["4c", "9d", "As"],
    "turn": "Jh",
    "river": "2s",
}

# What the item's evidence says of the control, by how it was judged.
SAME_ROUND = "the same stacked round, played before the request and after it, settled alike"
NO_INJECT = (
    "usability only: without capability inject the same round cannot be dealt twice, so "
    "the rounds after the refusal were judged only for completing with a conforming result"
)
NOT_STACKED = (
    "usability only: the game did not deal the stacked cards of the round played before "
    "the request (stacked-deal's finding), so the rounds after the refusal were judged "
    "only for completing with a conforming result"
)


@dataclass
class Moment:
    """The round a test's request comes in: its id, its reply, who has decided, its result
    when it is already settled; and the game's history just before the request."""

    dealt: Dealt | None = None  # None: no round (the moment `none`)
    seats: tuple[int, ...] = ()
    decided: tuple[int, ...] = ()
    result: Result | None = None
    # What `history` recalled just before the request (None: the game declares none), or
    # the CheckFailure of a history that could not be read (refused, or not conforming).
    history_before: tuple[Result, ...] | CheckFailure | None = None

    @property
    def round_id(self) -> str | int | None:
        return None if self.dealt is None else self.dealt.round


@dataclass
class Control:
    """The rounds played before the request, as the game settled them (`_settlement`):
    the valid round played again after the refusal, and the moment's round; None where
    the game cannot deal the same round twice, with why in `note`."""

    after: dict[str, object] | None = None
    moment: dict[str, object] | None = None
    note: str = ""


def replay_refusal(ctx: Context, vector: RefusalVector) -> Outcome:
    """Send one bad request at its moment and judge the refusal and what follows it."""
    _verify_askable(ctx, vector)
    vacuous = _nothing_to_refuse(ctx, vector)
    if vacuous:
        return Outcome(evidence={"vacuous": vacuous})
    moment = Moment()
    with game_faults_fail():
        try:
            control = _control(ctx, vector.moment)
            moment = _bring_to(ctx, vector.moment)
            return _judge_refusal(ctx, vector, moment, control)
        finally:
            _finish(ctx, moment)  # whatever happened, no round of this item stays open


def _judge_refusal(
    ctx: Context, vector: RefusalVector, moment: Moment, control: Control
) -> Outcome:
    sent, answer = _send(ctx, vector, moment)
    try:
        return _judged(ctx, vector, moment, control, sent, answer)
    except CheckFailure as exc:
        exc.refused = None  # after the bad request, a refusal is what the refusal did
        raise


def _judged(
    ctx: Context,
    vector: RefusalVector,
    moment: Moment,
    control: Control,
    sent: object,
    answer: dict[str, object],
) -> Outcome:
    evidence: dict[str, object] = {"request": sent, "reply": answer}
    if "error" not in answer:
        _close_accepted(ctx, vector, answer)
        _finish(ctx, moment)
        with contextlib.suppress(CheckFailure, NotTested, ProtocolViolation):
            _usable_after(ctx, Control(), evidence)  # the accepted round is then not the last
        raise CheckFailure(
            f"the game accepted {vector.id}: it must refuse it with "
            f"{' or '.join(vector.refuse_with)}",
            expected={"error": list(vector.refuse_with)},
            actual=answer,
            evidence=evidence,
            cause=("refusal-accepted", vector.op or vector.text_op or ""),
        )
    error = answer["error"]
    assert isinstance(error, dict)  # _send's
    code = error["code"]
    if code not in vector.refuse_with:
        raise CheckFailure(
            f"refused with {code}; {vector.id} calls for {' or '.join(vector.refuse_with)}",
            expected={"error": list(vector.refuse_with)},
            actual=answer,
            evidence=evidence,
            cause=("refusal-code", code),
        )
    findings: dict[str, object] = dict(evidence)
    untested: Untested | None = None
    if isinstance(moment.history_before, CheckFailure):
        raise CheckFailure(
            f"refused with {code} as it should be, but whether money moved cannot be "
            f"told: the game's history cannot be read ({moment.history_before.message})",
            evidence={**evidence, **moment.history_before.evidence},
            cause=("refusal-history", "unreadable"),
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
                expected=[fields_of(r) for r in moment.history_before],
                actual=[fields_of(r) for r in recalled or ()],
                evidence=evidence,
                cause=("refusal-money-moved", ""),
            )
    _settled_after(ctx, moment, control, evidence)
    _usable_after(ctx, control, evidence)
    findings["control"] = control.note or SAME_ROUND
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
        if need == "aa_bonus" and not offers_aa_bonus(ctx) and ctx.profile.aa_table:
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
    if "$aa_over_cap" in str(vector.params) and ctx.table and _over_cap(ctx) is None:
        return "the table declares no AA Bonus cap that binds inside its AA Bonus limits"
    if "aa_bonus" in vector.needs and ctx.profile.aa_table is None:
        return f"profile {ctx.profile.name} offers no AA Bonus: no AA Bonus stake to refuse"
    if "lines" in vector.needs and not getattr(ctx.adapter, "carries_lines", False):
        return "requests do not travel as lines here: over HTTP the path names the op"
    return ""


def _over_cap(ctx: Context) -> int | None:
    """One unit over the AA Bonus the declared house rule allows beside `$ante` (the
    smallest ante that takes an AA Bonus), when that lies inside the AA Bonus limits
    (else the limits refuse it anyway)."""
    found = ctx.table
    if found is None or found.aa_bonus is None or found.aa_bonus_max_ante_multiple is None:
        return None
    least = found.smallest_aa_ante  # `$ante`: the ante the placeholder's round stakes
    if least is None:
        return None
    over = found.aa_bonus_max_ante_multiple * least + 1
    return over if found.aa_bonus[0] <= over <= found.aa_bonus[1] else None


def _aa_minimum(ctx: Context) -> int | None:
    declared = ctx.declared.limit("aa_bonus")
    return None if declared is None else declared[0]


def _history(ctx: Context) -> tuple[Result, ...] | None:
    """The last round the game recalls, or None when it declares no history.

    One round is enough to see a refused request that recorded a round, and keeps one
    earlier fault from spoiling later items: a round a bad request opened (a wager of
    100.5, say) is the last only until the next item plays its valid round."""
    if Capability.HISTORY not in ctx.capabilities:
        return None
    return recall(ctx, 1)


def _stacked(cards: StackedCards, seats: tuple[int, ...]) -> StackedCards:
    return {**cards, "seats": {str(s): cards["seats"][str(s)] for s in seats}}


def _moment_seats(when: str) -> tuple[int, ...]:
    return (1, 2) if when == "half-decided" else (1,)


def _open(ctx: Context, seats: tuple[int, ...], cards: StackedCards) -> Dealt:
    stacked = _stacked(cards, seats) if Capability.INJECT in ctx.capabilities else None
    return open_round(ctx, [seat_stakes(s, stake(ctx)) for s in seats], stacked)


def _open_after(ctx: Context) -> Dealt:
    """The valid round of the control and of step 4: seat 1, the smallest ante, an AA
    Bonus where the game offers one, AFTER_CARDS where it takes stacked cards."""
    aa = stake(ctx, "aa_bonus") if offers_aa_bonus(ctx) else 0
    stacked = AFTER_CARDS if Capability.INJECT in ctx.capabilities else None
    return open_round(ctx, [seat_stakes(1, stake(ctx), aa)], stacked)


def _call_all(ctx: Context, dealt: Dealt, seats: tuple[int, ...]) -> Result:
    """Every seat of an opened round calls; its result. A round a refused decision left
    undecided is folded, so the table is free."""
    decided: list[int] = []
    try:
        for seat in seats:
            request_ok(ctx, "act", round=dealt.round, seat=seat, action="call")
            decided.append(seat)
        return result_of(ctx, dealt.round)
    except CheckFailure:
        finish_round(ctx, dealt.round, [s for s in seats if s not in decided])
        raise


def _control(ctx: Context, when: str) -> Control:
    """The rounds the refusal is judged against, played before the item's own: the
    valid round of step 4 and, for a moment with a round to decide after the request,
    that round, every seat calling. Only a game that takes stacked cards can be dealt
    them again; one that did not deal what was stacked cannot be compared either."""
    if Capability.INJECT not in ctx.capabilities:
        return Control(note=NO_INJECT)
    control = Control()
    what = "before the bad request was sent, the control round"
    try:
        dealt = _open_after(ctx)
        settled = _completed(_call_all(ctx, dealt, (1,)), (1,), what, {})
        if not _dealt_as_stacked(dealt, settled, AFTER_CARDS):
            return Control(note=NOT_STACKED)
        control.after = _settlement(dealt, settled)
        if when in ("open", "half-decided"):
            seats = _moment_seats(when)
            cards = _stacked(MOMENT_CARDS, seats)
            dealt = _open(ctx, seats, MOMENT_CARDS)
            settled = _completed(_call_all(ctx, dealt, seats), seats, what, {})
            if not _dealt_as_stacked(dealt, settled, cards):
                return Control(note=NOT_STACKED)
            control.moment = _settlement(dealt, settled)
    except CheckFailure as exc:
        if exc.message.startswith(what):
            raise
        raise CheckFailure(
            f"{what} could not be played: {exc.message}",
            expected=exc.expected,
            actual=exc.actual,
            evidence=exc.evidence,
            refused=exc.refused,  # a legal round refused: the clause of wagers' (row 0)
        ) from exc
    return control


def _bring_to(ctx: Context, when: str) -> Moment:
    """Open a round and bring it to the moment (none: no round), then note the history."""
    moment = Moment()
    if when != "none":
        seats = _moment_seats(when)
        dealt = _open(ctx, seats, MOMENT_CARDS)
        moment = Moment(dealt, seats)
        if when == "half-decided":
            request_ok(ctx, "act", round=dealt.round, seat=1, action="call")
            moment.decided = (1,)
        if when == "settled":
            request_ok(ctx, "act", round=dealt.round, seat=1, action="call")
            moment.decided = (1,)
            moment.result = result_of(ctx, dealt.round)
    try:
        moment.history_before = _history(ctx)
    except ProtocolViolation as exc:  # judged after the refusal itself (_judge_refusal)
        moment.history_before = CheckFailure(str(exc), evidence=exc.evidence)
    except CheckFailure as exc:  # history refused
        moment.history_before = exc
    return moment


def _fill(value: object, ctx: Context, moment: Moment) -> object:
    """A vector's params with each '$' placeholder replaced (harness/vectors/refusals.py)."""
    if isinstance(value, dict):
        return {k: _fill(v, ctx, moment) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, ctx, moment) for v in value]
    if not (isinstance(value, str) and value.startswith("$")):
        return value
    if value in ("$ante", "$aa"):
        return stake(ctx, "ante" if value == "$ante" else "aa_bonus")
    if value in ("$ante_over", "$ante_under", "$aa_over", "$aa_under"):
        wager = "ante" if value.startswith("$ante") else "aa_bonus"
        declared = ctx.declared.limit(wager)
        if declared is None:
            raise NotTested(f"the game declares no {wager} limits",
                            needs=f"declared {wager} limits")  # fmt: skip
        if value.endswith("_over"):
            return declared[1] + 1
        return declared[0] - 1
    if value == "$aa_over_cap":
        return _over_cap(ctx)
    if value == "$seat_over":
        return ctx.seats + 1
    if value == "$too_many_seats":
        return [seat_stakes(n, stake(ctx)) for n in range(1, ctx.seats + 2)]
    if value == "$round":
        return moment.round_id
    if value == "$absent_seat":
        return max(moment.seats) + 1
    raise AssertionError(f"placeholder {value} unknown (harness/vectors/refusals.py lints them)")


def _send(ctx: Context, vector: RefusalVector, moment: Moment) -> tuple[object, dict[str, object]]:
    """The request as sent, and the answer: {"ok": body} or {"error": {code, message}}."""
    try:
        if vector.text is not None:
            sent: object = vector.text
            body = ctx.adapter.request_text(vector.text_op or "round", vector.text)  # type: ignore[attr-defined]
        else:
            assert vector.op is not None
            params = _fill(vector.params, ctx, moment)
            assert isinstance(params, dict)  # a vector's params are an object (its schema)
            sent = {"op": vector.op, **params}
            body = ctx.adapter.request(vector.op, **params)
    except ErrorReply as exc:
        return sent, {"error": {"code": exc.code, "message": exc.message}}
    return sent, {"ok": body}


def _close_accepted(ctx: Context, vector: RefusalVector, answer: dict[str, object]) -> None:
    """A bad `round` the game took opened a round: fold its seats, so the table is free."""
    body = answer["ok"]
    if (vector.op == "round" or vector.text_op == "round") and isinstance(body, dict):
        dealt = read_dealt(body)  # checked against the round reply's schema
        finish_round(ctx, dealt.round, [s.seat for s in dealt.seats])


def _finish(ctx: Context, moment: Moment) -> None:
    """Decide the moment's round for every seat still undecided (once), so it is closed."""
    if moment.round_id is not None and moment.result is None:
        undecided = [s for s in moment.seats if s not in moment.decided]
        finish_round(ctx, moment.round_id, undecided, action="call")
        moment.decided = moment.seats


def _settled_after(
    ctx: Context, moment: Moment, control: Control, evidence: dict[str, object]
) -> None:
    """The round the request came in: decided as its own decisions say (every seat
    called) and settled as the control's same round; a round settled before the
    request, recalled exactly as it was."""
    if moment.dealt is None:
        return
    ident = moment.dealt.round
    if moment.result is not None:
        again = result_of(ctx, ident)
        if again != moment.result:
            raise CheckFailure(
                "a refused request changed a settled round: its result is not what it was",
                expected=fields_of(moment.result),
                actual=fields_of(again),
                evidence=evidence,
                cause=("refusal-changed-round", ""),
            )
        return
    for seat in moment.seats:
        if seat not in moment.decided:
            request_ok(ctx, "act", round=ident, seat=seat, action="call")
            moment.decided += (seat,)
    what = "the round the refused request named"
    settled = _completed(result_of(ctx, ident), moment.seats, what, evidence)
    if control.moment is not None:
        message = (
            f"{what} settled otherwise than the same round played without the request: "
            "the refusal changed it"
        )
        after = _settlement(moment.dealt, settled)
        cards = _stacked(MOMENT_CARDS, moment.seats)
        _compare(control.moment, after, message, {**evidence, "cards": cards})


def _usable_after(ctx: Context, control: Control, evidence: dict[str, object]) -> None:
    """A valid round right after the refusal: it completes with a conforming result and,
    where the control has it, settles as the same round did before the request."""
    dealt = _open_after(ctx)
    what = "the valid round played after the refusal"
    settled = _completed(_call_all(ctx, dealt, (1,)), (1,), what, evidence)
    if control.after is not None:
        message = (
            "the same round, played before the request and again after it, settled "
            "otherwise: the refusal left the game changed"
        )
        after = _settlement(dealt, settled)
        _compare(control.after, after, message, {**evidence, "cards": AFTER_CARDS})


def _completed(
    result: Result, seats: tuple[int, ...], what: str, evidence: dict[str, object]
) -> Settled:
    """The round completed: a settled result (the adapter has checked it conforms to
    protocol v1), showing the seats that wagered, each with the call it made."""
    if not isinstance(result, Settled):  # protocol v1's other results
        raise CheckFailure(
            f"{what} did not complete: its result is {result.status!r}, not settled",
            expected="a settled result",
            actual=fields_of(result),
            evidence=evidence,
            cause=("refusal-unusable-after", "not settled"),
        )
    shown = {str(s.seat): s.action for s in result.seats}
    called = {str(s): "call" for s in seats}
    if shown != called:
        raise CheckFailure(
            f"{what} does not show the decisions made: every seat of {list(seats)} called",
            expected=called,
            actual=shown,
            evidence={**evidence, "result": fields_of(result)},
            cause=("refusal-unusable-after", "decisions"),
        )
    return result


def _settlement(dealt: Dealt, result: Settled) -> dict[str, object]:
    """What a round settled to, as compared before and after the request: each seat's
    hole cards, action, hand and wagers [stake, returned], the dealer's hand and
    whether it qualifies, the board; not the round id or the events."""
    holes = dealt.holes()
    seats = {
        str(seat.seat): {
            "hole": list(holes[seat.seat]) if seat.seat in holes else None,
            "action": seat.action,
            "hand": seat.hand,
            "ante": list(seat.wagers.ante.pair),
            "call": list(seat.wagers.call.pair),
            "aa_bonus": list(seat.wagers.aa_bonus_staked or ()) or None,
        }
        for seat in result.seats
    }
    dealer = result.dealer
    return {
        "seats": seats,
        "dealer": {"hole": list(dealer.hole), "hand": dealer.hand, "qualifies": dealer.qualifies},
        "board": list(result.board),
    }


def _dealt_as_stacked(dealt: Dealt, result: Settled, cards: StackedCards) -> bool:
    """Whether the round shows the cards that were stacked for it."""
    try:
        holes = {str(s.seat): parse_cards(s.hole) for s in dealt.seats}
        shown = (holes, parse_cards(result.dealer.hole), parse_cards(result.board))
    except InvalidCards:
        return False
    stacked = (
        {s: parse_cards(h) for s, h in cards["seats"].items()},
        parse_cards(cards["dealer"]),
        parse_cards([*cards["flop"], cards["turn"], cards["river"]]),
    )
    return shown == stacked


def _compare(
    before: dict[str, object], after: dict[str, object], message: str, evidence: dict[str, object]
) -> None:
    """The settlement after the request must be the control's: expected before, actual
    after, the parts that differ named in the message; `evidence` holds the request, the
    answer and the stacked cards."""
    if before == after:
        return
    raise CheckFailure(
        f"{message} (it differs in {', '.join(_differing(before, after))})",
        expected=before,
        actual=after,
        evidence={**evidence, "expected_is": EXPECTED_IS},
        cause=("refusal-settled-otherwise", ""),
    )


# What a refusal's expected settlement is, as the report heads its column: the control's.
EXPECTED_IS = "Before the bad request"


def _differing(before: object, after: object, path: str = "") -> list[str]:
    """The dotted paths where two settlements differ (`seats.1.ante`, `dealer.qualifies`)."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = sorted({*before, *after}, key=str)
        return [
            p
            for k in keys
            for p in _differing(before.get(k), after.get(k), f"{path}.{k}" if path else str(k))
        ]
    return [] if before == after else [path or "the whole"]
