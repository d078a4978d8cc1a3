"""Helpers the checks share for asking the game and reading its replies.

A reply is the game's word, not the harness's: its `ok` body has passed its schema
before a check sees it (harness/adapters/base.py), and is read here once into the
records of harness/protocol/messages.py; an amount beyond 2^53 - 1, which the schema
cannot bound, marks its round malformed; cards that do not parse are a CheckFailure,
never a harness error.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from decimal import Decimal
from itertools import islice
from typing import Any

from harness.adapters.base import Answer
from harness.checks.registry import CheckFailure, Context, NotTested
from harness.errors import ErrorReply, HarnessFault, InvalidCards, ProtocolViolation, Violation
from harness.protocol import Capability
from harness.protocol.messages import (
    Dealt,
    InProgress,
    Misstated,
    Result,
    SeatStakes,
    Settled,
    StackedCards,
    Voided,
    fields_of,
    misstated_amounts,
    read_dealt,
    read_history,
    read_result,
)
from harness.rules.cards import Card, parse_cards
from harness.rules.profiles import Profile
from harness.rules.table import MAX_AMOUNT, Returns, Table, payable


def request_ok(ctx: Context, op: str, **params: Any) -> dict[str, Any]:
    """A request whose error reply is a failure: the game refused a valid request."""
    try:
        return ctx.adapter.request(op, **params)
    except ErrorReply as exc:
        raise _refused_valid(op, params, exc) from exc


def requests_ok(ctx: Context, requests: list[tuple[str, dict[str, Any]]]) -> None:
    """`request_ok` for requests sent together (Adapter.exchange) whose replies say
    nothing but that they were taken: the first refused is the failure."""
    answers = ctx.adapter.exchange(requests)
    for (op, params), answer in zip(requests, answers, strict=True):
        if isinstance(answer, ErrorReply):
            raise _refused_valid(op, params, answer) from answer


def _refused_valid(op: str, params: dict[str, Any], exc: ErrorReply) -> CheckFailure:
    return CheckFailure(
        f"{op} was refused with {exc.code}: {exc.message}",
        expected="an ok reply",
        actual={"error": {"code": exc.code, "message": exc.message}},
        evidence={"request": {"op": op, **params}},
        refused=(op, exc.code, exc.message) if op in ("round", "act") else None,
    )


def open_round(ctx: Context, seats: list[SeatStakes], cards: StackedCards | None = None) -> Dealt:
    """A round opened at these stakes (on these stacked cards), its reply read; the game
    refusing it is a failure (request_ok)."""
    params: dict[str, object] = (
        {"seats": seats} if cards is None else {"seats": seats, "cards": cards}
    )
    return read_dealt(request_ok(ctx, "round", **params))


def open_rounds(ctx: Context, seats: list[SeatStakes], count: int) -> list[Dealt]:
    """`count` rounds opened together at these stakes (Adapter.exchange; one, as
    open_round opens it), their replies read; the game refusing one is a failure
    (request_ok), the others freed first."""
    if count == 1:
        return [open_round(ctx, seats)]
    answers = ctx.adapter.exchange([("round", {"seats": seats})] * count)
    refused = next((a for a in answers if isinstance(a, ErrorReply)), None)
    opened = [_dealt(a) for a in answers if not isinstance(a, ErrorReply)]
    if refused is not None:
        with freed_on_failure(ctx, opened):
            raise _refused_valid("round", {"seats": seats}, refused) from refused
    return opened


def settled_results(ctx: Context, rounds: list[Dealt]) -> list[Settled]:
    """The rounds' results, asked together (one, as settled_result asks it), each a
    settled one."""
    if len(rounds) == 1:
        return [settled_result(ctx, rounds[0].round)]
    answers = ctx.adapter.exchange([("result", {"round": d.round}) for d in rounds])
    found = []
    for dealt, answer in zip(rounds, answers, strict=True):
        if isinstance(answer, ErrorReply):
            raise _refused_valid("result", {"round": dealt.round}, answer) from answer
        result = answer if isinstance(answer, Settled) else read_result(_body(answer))
        if not isinstance(result, Settled):
            raise _unsettled(dealt.round, result)
        found.append(result)
    return found


@contextlib.contextmanager
def freed_on_failure(ctx: Context, rounds: list[Dealt]) -> Iterator[None]:
    """A failure, or a wrong reply on a channel still in step (Violation.MALFORMED),
    leaving the block leaves none of `rounds` open, so that the check's next neighbour
    finds the table free; then the fault is raised as it was. After a hang, an exit or a
    line that is not JSON the game is gone, and its rounds with it: nothing is sent."""
    try:
        yield
    except CheckFailure:
        _fold_every_seat(ctx, rounds)
        raise
    except ProtocolViolation as exc:
        if exc.kind is Violation.MALFORMED:
            _fold_every_seat(ctx, rounds)
        raise


def _fold_every_seat(ctx: Context, rounds: list[Dealt]) -> None:
    """Best effort: every seat of each round folded (finish_round), until the game is
    gone or cannot be reached (the fault being raised is then the one to report)."""
    with contextlib.suppress(HarnessFault):
        for dealt in rounds:
            if not finish_round(ctx, dealt.round, [s.seat for s in dealt.seats]):
                break


def result_of(ctx: Context, round_id: str | int) -> Result:
    """A round's `result`, read; refused, a failure (request_ok)."""
    return read_result(request_ok(ctx, "result", round=round_id))


def settled_result(ctx: Context, round_id: str | int) -> Settled:
    """A round's `result`, which must be a settled one: every seat decided, nothing
    interrupted (a round in progress or void then is a failure)."""
    result = result_of(ctx, round_id)
    if not isinstance(result, Settled):
        raise _unsettled(round_id, result)
    return result


def _unsettled(round_id: str | int, result: InProgress | Voided) -> CheckFailure:
    return CheckFailure(
        f"round {round_id!r}: result answered a round {result.status}, every seat decided",
        expected="a settled round",
        actual=fields_of(result),
    )


def recall(ctx: Context, last: int) -> tuple[Result, ...]:
    """The game's last rounds from its `history` (capability history), read."""
    return read_history(request_ok(ctx, "history", last=last))


def finish_round(ctx: Context, round_id: object, seats: list[int], action: str = "fold") -> bool:
    """Best effort: decide every seat so the table is free for the next round. A refusal
    or a wrong reply on a channel still in step is taken as it comes; after a hang, an
    exit or a line that is not JSON the game, and the round, are gone: nothing more is
    sent (each request would start the game again) and the answer is False."""
    for seat in seats:
        try:
            ctx.adapter.request("act", round=round_id, seat=seat, action=action)
        except ErrorReply:
            pass
        except ProtocolViolation as exc:
            if exc.kind is not Violation.MALFORMED:
                return False
    return True


def parse(value: Any, what: str, number: int) -> tuple[Card, ...]:
    """Cards the game showed in round `number`; a CheckFailure when they do not parse."""
    try:
        return parse_cards(value)
    except (InvalidCards, TypeError, ValueError) as exc:
        raise CheckFailure(f"round {number}: {what} {value!r} is not a list of cards") from exc


def two(cards: tuple[Card, ...]) -> tuple[Card, Card]:
    """Hole cards: exactly two, or a CheckFailure."""
    if len(cards) != 2:
        raise CheckFailure(f"expected two hole cards, got {len(cards)}")
    return cards[0], cards[1]


def three(cards: tuple[Card, ...]) -> tuple[Card, Card, Card]:
    """A flop: exactly three cards, or a CheckFailure."""
    if len(cards) != 3:
        raise CheckFailure(f"expected a flop of three cards, got {len(cards)}")
    return cards[0], cards[1], cards[2]


def offers_aa_bonus(ctx: Context) -> bool:
    """Whether the game declares an AA Bonus (hello config.aa_bonus_pay_table): one that
    does not is never asked to take one, whatever the profile offers; that it offers none
    is the AA pay-table declaration check's finding alone."""
    return ctx.declared.offers_aa_bonus


def declared_table(ctx: Context) -> Table:
    """The table the game declares; NotTested when its hello declares no valid limits
    (the declared-limits check's finding): the harness never invents limits."""
    found = ctx.table
    if found is None:
        raise NotTested(
            "the game declares no valid ante limits, and the harness stakes only inside "
            "the limits a game declares",
            needs="config.limits in hello, each [min, max] with 1 <= min <= max",
        )
    return found


def returns_of(profile: Profile) -> Returns:
    """The most a minor unit staked can bring into a seat's settlement under the profile's
    tables (the oracle's odds: harness/rules/oracle.py pays a category the ante table does not
    list 1 to 1, and the call 1 to 1)."""
    return Returns.of(
        ante_odds=max([1, *profile.ante_table.odds.values()]),
        call_multiple=profile.call_multiple,
        call_odds=1,
        aa_odds=max(profile.aa_table.odds.values(), default=0) if profile.aa_table else None,
    )


def playable_table(ctx: Context) -> Table:
    """The stakes every check plays: the declared table (declared_table) with each
    maximum brought down so that every amount of a round fits in 2^53 - 1 (payable in
    harness/rules/table.py). The one place a check's stakes are bounded: the differential, the
    vectors and corpus fitted to the table, the RTP simulation and the refusal battery's
    controls all stake inside it; the declared extremes beyond are declared-limits'.
    NotTested when not even the table's minimum is payable."""
    found = payable(declared_table(ctx), returns_of(ctx.profile))
    if found is None:
        raise NotTested(
            f"the game's minimum ante {declared_table(ctx).ante[0]} settles to more than "
            f"{MAX_AMOUNT} (2^53 - 1) minor units at the profile's largest odds: no round "
            "can be played whose every amount a double-precision reader keeps exact",
            needs="a minimum ante whose settlement fits in 2^53 - 1 minor units",
        )
    return found


def stake(ctx: Context, wager: str = "ante") -> int:
    """The smallest `wager` ("ante" or "aa_bonus") the game's table takes, the two a pair
    a seat may stake together: the ante the smallest beside which the table takes an AA
    Bonus, where it offers one (docs/profiles.md, Table limits). Checks play them: the
    game must accept them; that it enforces its table is declared-limits' judgement."""
    return legal_range(ctx, wager)[0]


def legal_range(ctx: Context, wager: str = "ante") -> tuple[int, int]:
    """The stakes of `wager` the game's table takes and pays inside 2^53 - 1
    (playable_table; the AA Bonus beside the smallest ante that allows one, under its
    house rules); NotTested when it takes none."""
    found = playable_table(ctx)
    least = found.smallest_aa_ante if offers_aa_bonus(ctx) else None
    if wager == "ante":
        return (least or found.ante[0]), found.ante[1]
    aa = found.aa_range(least) if least is not None else None
    if aa is None:
        raise NotTested(
            "the game's table takes no AA Bonus beside any ante",
            needs="declared AA Bonus limits (config.limits.aa_bonus) and house rules "
            "that allow one",
        )
    return aa


@dataclass(frozen=True)
class Stacked:
    """A round to play: each seat's wagers, the stacked cards, each seat's decision."""

    wagers: list[SeatStakes]
    cards: StackedCards
    actions: list[tuple[int, str]]  # (seat, "call" | "fold"), in the order they are sent


@dataclass(frozen=True)
class Malformed:
    """A `result` reply that is not protocol v1's, in a channel still in step: the game
    answered every request of the round, one of its answers wrongly formed (an amount
    with a fraction, a field of the wrong type), or an amount beyond 2^53 - 1, which no
    double-precision reader keeps exact. It costs its round, not the check's
    (docs/differential.md, "A malformed reply")."""

    detail: str  # what is wrong, as the schema or the bound says it
    body: dict[str, object]  # the `ok` body as the game sent it, JSON-safe
    amounts: tuple[Misstated, ...]  # the amounts malformed


Refusal = tuple[str, ErrorReply]  # the op refused, and the error the game answered


@dataclass(frozen=True)
class Played:
    """What the game answered: the round and result replies, or the refusal that stopped it."""

    dealt: Dealt | None  # None: the round request was refused
    result: Result | None  # None: refused, or its result malformed
    refused: Refusal | None = None
    malformed: Malformed | None = None  # a result reply out of protocol, the channel in step

    @property
    def round_id(self) -> str | int | None:
        return None if self.dealt is None else self.dealt.round


def json_safe(value: object) -> object:
    """A reply as sent, its numbers with a fraction (Decimal) written as the game wrote
    them: results.json keeps evidence, and only JSON types survive it."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def malformed_result(exc: ProtocolViolation) -> Malformed | None:
    """The Malformed of a violation that a `result` reply's form alone caused, the channel
    left in step (a JSON object, read as the one reply to its request: the transport kept
    the game, harness/adapters/subprocess.py); None for any other violation (a hang, an
    exit, a line that is not JSON, replies out of step), which stops the check."""
    body = exc.ok_body()
    if exc.kind is not Violation.MALFORMED or exc.op != "result" or body is None:
        return None
    return Malformed(exc.detail, as_evidence(body), misstated_amounts(body))


def as_evidence(body: Mapping[str, object]) -> dict[str, object]:
    safe = json_safe(dict(body))
    assert isinstance(safe, dict)
    return safe


def _checked(reply: Answer, result: Answer | None, refused: Refusal | None) -> Played:
    """A round's answers read (a transport may have read them already: Answer in
    harness/adapters/base.py), with any amount beyond 2^53 - 1 in its result marked
    malformed."""
    dealt = _dealt(reply)
    if result is None or isinstance(result, Settled):
        return Played(dealt, result, refused)
    body = _body(result)  # an error reply is a refusal, never read
    bad = misstated_amounts(body)
    if bad:
        first = bad[0]
        detail = f"seat {first.seat} {first.wager} {first.field} beyond 2^53 - 1"
        return Played(dealt, None, refused, Malformed(detail, as_evidence(body), bad))
    return Played(dealt, read_result(body), refused)


def _dealt(reply: Answer) -> Dealt:
    """A `round` reply's record, read here unless the transport read it."""
    return reply if isinstance(reply, Dealt) else read_dealt(_body(reply))


def _body(reply: Answer) -> Mapping[str, object]:
    """An ok body the transport left as sent."""
    assert isinstance(reply, Mapping)  # neither an error reply nor another op's record
    return reply


def _round_id(reply: Answer) -> str | int | None:
    """The round a `round` reply opened; None for a refusal."""
    if isinstance(reply, ErrorReply):
        return None
    ident = reply.round if isinstance(reply, Dealt) else _body(reply)["round"]
    assert isinstance(ident, str | int)  # the schema's
    return ident


def round_request(rnd: Stacked) -> tuple[str, dict[str, object]]:
    return "round", {"seats": rnd.wagers, "cards": rnd.cards}


def play_rounds(ctx: Context, rounds: list[Stacked]) -> list[Played]:
    """Play stacked rounds with requests pipelined (docs/adapter-protocol.md, pipelining).

    Every `round` request goes out at once, then every act and result: a game with
    capability `pipeline` gets all the rounds in flight; callers give one round at a
    time otherwise, and its acts and result still go out without waiting.
    """
    opened = ctx.adapter.exchange([round_request(r) for r in rounds])
    idents = [_round_id(r) for r in opened]
    second: list[tuple[str, dict[str, object]]] = []
    for rnd, ident in zip(rounds, idents, strict=True):
        if ident is not None:
            second += [("act", {"round": ident, "seat": s, "action": a}) for s, a in rnd.actions]
            second.append(("result", {"round": ident}))
    try:
        answers = iter(ctx.adapter.exchange(second))
    except ProtocolViolation as exc:
        malformed = malformed_result(exc)
        if malformed is None:
            raise
        if len(rounds) > 1:  # the malformed round is the one its request names; the
            # others are played again alone (their answers went with the batch's)
            named = exc.request_param("round")
            for rnd, ident in zip(rounds, idents, strict=True):
                # A transport that stops a batch at its fault (one request at a time)
                # left the later rounds undecided: free the table first.
                if ident is not None:
                    finish_round(ctx, ident, [s for s, _ in rnd.actions])
            return [
                Played(_dealt(reply), None, None, malformed)
                if not isinstance(reply, ErrorReply) and named is not None and ident == named
                else play_rounds(ctx, [rnd])[0]
                for rnd, reply, ident in zip(rounds, opened, idents, strict=True)
            ]
        assert not isinstance(opened[0], ErrorReply)
        return [Played(_dealt(opened[0]), None, None, malformed)]
    played = []
    for rnd, reply, ident in zip(rounds, opened, idents, strict=True):
        if isinstance(reply, ErrorReply):
            played.append(Played(None, None, ("round", reply)))
            continue
        refused = None
        for op in ["act"] * len(rnd.actions):
            answer = next(answers)
            if isinstance(answer, ErrorReply) and refused is None:
                refused = (op, answer)
        result = next(answers)
        if isinstance(result, ErrorReply):
            refused = refused or ("result", result)
        if refused is not None:  # free the table for the next round, as play_round does
            finish_round(ctx, ident, [s for s, _ in rnd.actions])
        settled = None if refused is not None or isinstance(result, ErrorReply) else result
        played.append(_checked(reply, settled, refused))
    return played


PIPELINE_ROUNDS = 32  # rounds in flight for a game with capability pipeline
BATCHES_AHEAD = 2  # batches handed to the thread that plays them, ahead of the one judged
SWITCH_INTERVAL = 0.0002  # seconds a thread holds the interpreter while another waits


def play_batches(ctx: Context, rounds: Iterable[Stacked]) -> Generator[Played, None, None]:
    """Every round played, a batch at a time (play_rounds: PIPELINE_ROUNDS for a game
    with capability pipeline, else one), the next BATCHES_AHEAD batches handed to a
    thread of their own while the caller judges the one before: the game's work, and
    the reading of its replies, overlap the judging (docs/performance.md). `rounds` is
    read that far ahead, in the caller's thread. Only that thread uses the connection
    until the last batch is back; a fault of the game's is raised here, after the rounds
    before its batch were yielded, and the batches behind it are never sent, as when the
    batches were played one after another. Close the generator (contextlib.closing)
    when leaving it early, a fault included: closing waits for the batches in flight
    and sends none of those not begun."""
    size = PIPELINE_ROUNDS if Capability.PIPELINE in ctx.capabilities else 1
    source = iter(rounds)
    # The thread talking to the game takes the interpreter back within 0.2 ms of a reply,
    # not the 5 ms the caller's judging may keep it: the game waits less for its next
    # requests (docs/performance.md).
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
    try:
        yield from _batches(ctx, source, size)
    finally:
        sys.setswitchinterval(interval)


def _batches(ctx: Context, source: Iterator[Stacked], size: int) -> Iterator[Played]:
    stop = threading.Event()  # a batch failed, or the caller left: play nothing more

    def play(batch: list[Stacked]) -> list[Played]:
        if stop.is_set():
            return []  # never sent: nobody will read it
        try:
            return play_rounds(ctx, batch)
        except BaseException:
            stop.set()  # the batches queued behind a fault are not played
            raise

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="chcert-play") as pool:
        pending: deque[Future[list[Played]]] = deque()

        def submit() -> None:
            batch = list(islice(source, size))  # drawn while the game plays
            if batch:
                pending.append(pool.submit(play, batch))

        try:
            for _ in range(BATCHES_AHEAD):
                submit()
            while pending:
                played = pending[0].result()
                pending.popleft()
                submit()
                yield from played  # judged while the game plays the batches after it
        finally:
            stop.set()
            _landed(pending)


def _landed(pending: deque[Future[list[Played]]]) -> None:
    """Wait for the batches in flight, whatever is raised meanwhile (a CPU deadline, a
    Ctrl-C): the connection is the caller's again only once that thread has let it go.
    What was raised while waiting is raised then; the batches' own outcomes, unjudged,
    are dropped."""
    interrupted: BaseException | None = None
    while any(not p.done() for p in pending):
        try:
            wait(pending)
        except BaseException as exc:  # raised below, once the batches are back
            interrupted = interrupted or exc
    if interrupted is not None:
        raise interrupted


def play_round(ctx: Context, rnd: Stacked) -> Played:
    """Play one stacked round a request at a time: a fault of the game's then names the
    very request it answered wrongly (a hand-worked vector's evidence)."""
    try:
        reply = ctx.adapter.request("round", seats=rnd.wagers, cards=rnd.cards)
    except ErrorReply as exc:
        return Played(None, None, ("round", exc))
    dealt = read_dealt(reply)
    for seat, action in rnd.actions:
        try:
            ctx.adapter.request("act", round=dealt.round, seat=seat, action=action)
        except ErrorReply as exc:
            finish_round(ctx, dealt.round, [s for s, _ in rnd.actions])
            return Played(dealt, None, ("act", exc))
    try:
        return _checked(reply, ctx.adapter.request("result", round=dealt.round), None)
    except ErrorReply as exc:
        return Played(dealt, None, ("result", exc))
    except ProtocolViolation as exc:
        malformed = malformed_result(exc)
        if malformed is None:
            raise
        return Played(dealt, None, None, malformed)
