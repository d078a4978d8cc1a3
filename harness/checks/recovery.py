"""Interrupted rounds: a game killed mid-round keeps its cards and its money.

A game declaring capability `recovery` keeps its rounds in durable storage; the
harness kills its process group (SIGKILL, as a crash or a power cut would) at each
moment a round can be interrupted, starts it again with the same command, and judges
what it says afterwards (docs/adapter-protocol.md, Interrupted rounds; 002
'Additional Information': on a malfunction 'all affected game bets and payouts are
rendered void'):

- a round killed before its last decision was acknowledged is interrupted: resumed
  (`status: in_progress`, the same hole cards and flop, the decisions acknowledged
  kept, then settled on its original cards as the rules say) or voided (every stake
  returned, nothing else paid, no more decisions taken), as the game declared and the
  profile allows;
- a round whose last decision was acknowledged, or whose result was given, answers
  exactly as it would have without the kill;
- `history` shows each round once, with its final state.

The deck is stacked (capability inject): a game that deals an interrupted round again
would otherwise change the dealer's cards, the turn or the river unseen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from harness.adapters.base import Crashable
from harness.checks.registry import CheckFailure, Context, NotTested, check
from harness.checks.replies import (
    offers_aa_bonus,
    open_round,
    recall,
    request_ok,
    result_of,
    stake,
    three,
    two,
)
from harness.errors import ErrorReply
from harness.protocol import Capability
from harness.protocol.messages import (
    InProgress,
    Result,
    Settled,
    StackedCards,
    Voided,
    Wagers,
    fields_of,
    seat_stakes,
)
from harness.results.model import Outcome, Untested
from harness.rules.cards import parse_card, parse_cards
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, settle

MODES = ("resume", "void")
# Moments of a round at which the game is killed: (name, decisions acknowledged first:
# none, some (half the seats, rounded down) or all; whether the next decision is in
# flight when the kill comes; whether result was given).
MOMENTS = (
    ("after the round was dealt", "none", False, False),
    ("after some decisions", "some", False, False),
    ("in the middle of a decision", "some", True, False),
    ("after the last decision", "all", False, False),
    ("after the result was given", "all", False, True),
)
# One stacked deal per moment: seat 1 holds a pair of aces (an AA Bonus that wins on the
# flop), seat 2 calls, seat 3 folds.
DEALS = (
    ("As Ah", "Kd Qd", "7c 2d", "9s 9h", "Ac 5d 8h", "Jc", "3s"),
    ("Ad Ac", "Ts Tc", "4h 6s", "Kh Kc", "2h 7d Qs", "8c", "4d"),
    ("Ah Ac", "Jd Js", "3c 5h", "Qh Qc", "As 6d 9c", "2s", "Td"),
    ("As Ad", "8s 8d", "2c 4c", "5s 5c", "Kc 7h Jh", "Ts", "6h"),
    ("Ac Ah", "Qs Jc", "6c 3d", "7s 7d", "Ad 4s Th", "Kh", "9d"),
)
ACTIONS = ("call", "call", "fold")
IN_FLIGHT = (0.0, 0.03)  # seconds between writing the decision and the kill, drawn from
HISTORY_LOOKED_AT = 100  # rounds of history read back: this check's, and any repeated


@dataclass
class _Round:
    """A round as the harness dealt, wagered and decided it."""

    ident: str | int
    cards: StackedCards
    stakes: dict[int, tuple[int, int]]  # each seat's (ante, AA Bonus), in seat order
    decided: dict[int, str]  # decisions the game acknowledged

    @property
    def seats(self) -> list[int]:
        return list(self.stakes)


@check("recovery-declared", requires={Capability.RECOVERY})
def recovery_declared(ctx: Context) -> Outcome:
    """The game says what it does with an interrupted round, and the rules allow it."""
    mode = ctx.declared.recovery
    allowed = ctx.profile.interrupted_rounds
    if mode not in MODES or mode not in allowed:
        raise CheckFailure(
            f"hello config.recovery is {mode!r}; profile {ctx.profile.name} allows "
            f"{' or '.join(allowed)} for a round a failure interrupts",
            expected=list(allowed),
            actual=mode,
        )
    return Outcome(evidence={"recovery": mode})


@check("recovery-kills", requires={Capability.RECOVERY, Capability.INJECT}, forwards_refusals=False)
def recovery_kills(ctx: Context) -> Outcome:
    """Kill the game at each moment of a round, start it again, and judge its word."""
    mode = ctx.declared.recovery
    if mode not in MODES:
        raise NotTested(
            f"hello config.recovery is {mode!r}, neither resume nor void (recovery-declared "
            "judges it)",
            needs="config.recovery resume or void",
        )
    if mode not in ctx.profile.interrupted_rounds:  # checked first: the rules' own demand
        raise CheckFailure(
            f"the game {'resumes' if mode == 'resume' else 'voids'} a round a failure "
            f"interrupts; profile {ctx.profile.name}'s rules "
            f"{'void' if mode == 'resume' else 'resume'} it",
            expected=list(ctx.profile.interrupted_rounds),
            actual=mode,
        )
    adapter = ctx.adapter
    if not isinstance(adapter, Crashable) or ctx.shared:
        raise NotTested(
            "the harness kills and restarts only a game it starts itself, one process per worker",
            needs="a subprocess: adapter",
        )
    draw = random.Random(ctx.seed)
    played: list[tuple[_Round, str]] = []
    for (moment, decisions, in_flight, asked), deal in zip(MOMENTS, DEALS, strict=True):
        rnd = _open(ctx, deal)
        acked = {"none": 0, "some": len(rnd.seats) // 2, "all": len(rnd.seats)}[decisions]
        for seat in rnd.seats[:acked]:
            request_ok(ctx, "act", round=rnd.ident, seat=seat, action=ACTIONS[seat - 1])
            rnd.decided[seat] = ACTIONS[seat - 1]
        before = result_of(ctx, rnd.ident) if asked else None
        if in_flight:
            seat = rnd.seats[acked]
            after = draw.uniform(*IN_FLIGHT)
            adapter.crash("act", after=after, round=rnd.ident, seat=seat, action=ACTIONS[seat - 1])
        else:
            adapter.crash()
        final = _judge(ctx, rnd, moment, mode, before, in_flight)
        played.append((rnd, final))
    if Capability.HISTORY not in ctx.capabilities:  # a part that could not run: not passed
        return Outcome(
            evidence={"recovery": mode, "kills": len(MOMENTS)},
            untested=Untested(
                reason="each round once in history, with its final state: not asked, "
                "the game lacks capability history",
                needs="capability history",
            ),
        )
    _judge_history(ctx, played)
    return Outcome(evidence={"recovery": mode, "kills": len(MOMENTS)})


def _open(ctx: Context, deal: tuple[str, ...]) -> _Round:
    holes, dealer, flop, turn, river = deal[:3], deal[3], deal[4], deal[5], deal[6]
    seats = list(range(1, min(3, ctx.seats) + 1))
    aa = stake(ctx, "aa_bonus") if offers_aa_bonus(ctx) else 0
    stakes = {s: (stake(ctx), aa if s == 1 else 0) for s in seats}
    cards: StackedCards = {
        "seats": {str(s): holes[s - 1].split() for s in seats},
        "dealer": dealer.split(),
        "flop": flop.split(),
        "turn": turn,
        "river": river,
    }
    dealt = open_round(ctx, [seat_stakes(s, ante, aa) for s, (ante, aa) in stakes.items()], cards)
    return _Round(dealt.round, cards, stakes, {})


def _judge(
    ctx: Context,
    rnd: _Round,
    moment: str,
    mode: str,
    before: Result | None,
    in_flight: bool,
) -> str:
    """What the game says of the round after the restart, judged; its final state."""
    reply = result_of(ctx, rnd.ident)
    where = f"killed {moment}, round {rnd.ident!r}"
    if before is not None:  # its result was given before the kill: the same word after
        if reply != before:
            raise CheckFailure(
                f"{where}: result changed across the restart",
                expected=fields_of(before),
                actual=fields_of(reply),
            )
        return "settled"
    last_in_flight = in_flight and len(rnd.decided) + 1 == len(rnd.seats)
    if last_in_flight and isinstance(reply, Settled):  # the last decision, in flight, took effect
        seat = rnd.seats[-1]
        rnd.decided[seat] = ACTIONS[seat - 1]
    if len(rnd.decided) == len(rnd.seats):  # the last decision was acknowledged
        _settled_as_the_rules_say(ctx, rnd, reply, where)
        return "settled"
    if isinstance(reply, Voided):
        if mode != "void":
            raise CheckFailure(f"{where}: the game declared resume, yet voided the round")
        _voided(ctx, rnd, reply, where, in_flight)
        return "void"
    if not isinstance(reply, InProgress):
        raise CheckFailure(
            f"{where}: the round awaited decisions, yet after the restart it was settled",
            expected=f"status {'in_progress' if mode == 'resume' else 'void'}",
            actual=fields_of(reply),
        )
    if mode != "resume":
        raise CheckFailure(
            f"{where}: the game declared void, yet resumed the round"
            + ("" if _as_dealt(rnd, reply) else ", dealt again with other cards"),
            expected="status void",
            actual=fields_of(reply),
        )
    _resumed(ctx, rnd, reply, where, in_flight)
    return "settled"


def _as_dealt(rnd: _Round, reply: InProgress) -> bool:
    """Whether a round in progress shows the flop and every seat's hole cards as dealt."""
    shown = {s.seat: list(s.hole) for s in reply.seats}
    holes = {s: shown.get(s) for s in rnd.seats}
    return list(reply.flop) == rnd.cards["flop"] and holes == {
        s: rnd.cards["seats"][str(s)] for s in rnd.seats
    }


def _resumed(ctx: Context, rnd: _Round, reply: InProgress, where: str, in_flight: bool) -> None:
    """The same hole cards and flop, the acknowledged decisions kept; the rest decided
    now, then settled on the original cards."""
    if not _as_dealt(rnd, reply):
        raise CheckFailure(
            f"{where}: the resumed round shows other cards than were dealt",
            expected={
                "flop": rnd.cards["flop"],
                "holes": {s: rnd.cards["seats"][str(s)] for s in rnd.seats},
            },
            actual=fields_of(reply),
        )
    shown = {s.seat: s.action for s in reply.seats}
    pending = rnd.seats[len(rnd.decided)] if in_flight else None
    for seat in rnd.seats:
        recorded = shown.get(seat)
        if seat in rnd.decided and recorded != rnd.decided[seat]:
            raise CheckFailure(
                f"{where}: seat {seat} decided {rnd.decided[seat]} before the kill; the "
                f"resumed round shows {recorded!r}",
                expected=rnd.decided[seat],
                actual=recorded,
            )
        if seat == pending and recorded is not None:  # the decision in flight took effect
            if recorded != ACTIONS[seat - 1]:
                raise CheckFailure(
                    f"{where}: seat {seat}'s decision in flight was {ACTIONS[seat - 1]}; the "
                    f"resumed round shows {recorded!r}",
                )
            rnd.decided[seat] = recorded
        elif seat not in rnd.decided and recorded is not None:
            raise CheckFailure(
                f"{where}: seat {seat} had not decided, yet the resumed round shows {recorded!r}"
            )
    decided = next(iter(rnd.decided), None)
    if decided is not None:
        _refused_again(ctx, rnd, decided, where)
    for seat in rnd.seats:
        if seat not in rnd.decided:
            request_ok(ctx, "act", round=rnd.ident, seat=seat, action=ACTIONS[seat - 1])
            rnd.decided[seat] = ACTIONS[seat - 1]
    _settled_as_the_rules_say(ctx, rnd, result_of(ctx, rnd.ident), where)


def _refused_again(ctx: Context, rnd: _Round, seat: int, where: str) -> None:
    """A decision the game acknowledged before the kill is not taken twice."""
    other = "fold" if rnd.decided[seat] == "call" else "call"
    try:
        ctx.adapter.request("act", round=rnd.ident, seat=seat, action=other)
    except ErrorReply:
        return
    raise CheckFailure(
        f"{where}: seat {seat} decided {rnd.decided[seat]} before the kill, and after the "
        f"restart the game took a second decision ({other})",
        expected="invalid_action",
        actual="ok",
    )


def _money(wagers: Wagers | None) -> dict[str, list[int] | None]:
    """A seat's wagers as [stake, returned] (an AA Bonus not staked None); all None for
    a seat the game did not report."""

    if wagers is None:
        return {"ante": None, "call": None, "aa_bonus": None}
    return {"ante": list(wagers.ante.pair), "call": list(wagers.call.pair)} | {
        "aa_bonus": list(wagers.aa_bonus_staked or ()) or None
    }


def _voided(ctx: Context, rnd: _Round, reply: Voided, where: str, in_flight: bool) -> None:
    """Every stake returned (a call too, where one was made), nothing else paid; no
    decision taken after. The decision in flight at the kill may have been made or not."""
    got = {s.seat: s.wagers for s in reply.seats}
    pending = rnd.seats[len(rnd.decided)] if in_flight else None
    for seat, (ante, aa) in rnd.stakes.items():
        have = _money(got.get(seat))
        called = ctx.profile.call_multiple * ante
        made = rnd.decided.get(seat) == "call"
        if seat == pending and ACTIONS[seat - 1] == "call":  # either, as the game recorded it
            made = have["call"] == [called, called]
        want = {
            "ante": [ante, ante],
            "call": [called, called] if made else [0, 0],
            "aa_bonus": [aa, aa] if aa else None,
        }
        if have != want:
            raise CheckFailure(
                f"{where}: the voided round does not return seat {seat}'s stakes",
                expected=want,
                actual=have,
            )
    seat = next((s for s in rnd.seats if s not in rnd.decided), rnd.seats[0])
    try:
        ctx.adapter.request("act", round=rnd.ident, seat=seat, action="call")
    except ErrorReply:
        return
    raise CheckFailure(f"{where}: the game took a decision in the round it voided")


def _settled_as_the_rules_say(ctx: Context, rnd: _Round, result: Result, where: str) -> None:
    """Each seat's wagers as the oracle settles the original cards and decisions."""
    cards = rnd.cards
    deal = Deal(
        {s: two(parse_cards(cards["seats"][str(s)])) for s in rnd.seats},
        two(parse_cards(cards["dealer"])),
        three(parse_cards(cards["flop"])),
        parse_card(cards["turn"]),
        parse_card(cards["river"]),
    )
    plays = {
        s: SeatPlay(s, ante, aa, Action(rnd.decided[s])) for s, (ante, aa) in rnd.stakes.items()
    }
    want = settle(ctx.profile, deal, plays, ctx.table)
    board = [*cards["flop"], cards["turn"], cards["river"]]
    if not isinstance(result, Settled):
        raise CheckFailure(
            f"{where}: every seat decided, yet the round is {result.status}",
            expected="a settled round",
            actual=fields_of(result),
        )
    got = {s.seat: s.wagers for s in result.seats}
    for seat in want.seats:
        expected = {
            "ante": [seat.ante.stake, seat.ante.returned],
            "call": [seat.call.stake, seat.call.returned],
            "aa_bonus": [seat.aa_bonus.stake, seat.aa_bonus.returned] if seat.aa_bonus else None,
        }
        actual = _money(got.get(seat.seat))
        if actual != expected or list(result.board) != board:
            raise CheckFailure(
                f"{where}: seat {seat.seat} settled otherwise than the rules settle the cards "
                "dealt before the kill",
                expected={"board": board, **expected},
                actual={"board": list(result.board), **actual},
                evidence={"cards": cards, "seat": seat.seat, "result": fields_of(result)},
            )


def _judge_history(ctx: Context, played: list[tuple[_Round, str]]) -> None:
    """Each round once in `history`, with its final state: looked for among the last
    HISTORY_LOOKED_AT rounds, so that a round recorded again later shows up too."""
    rounds = recall(ctx, HISTORY_LOOKED_AT)
    seen = [r.round for r in rounds]
    for rnd, final in played:
        count = seen.count(rnd.ident)
        entry = next((r for r in rounds if r.round == rnd.ident), None)
        state = "void" if isinstance(entry, Voided) else None
        state = "settled" if isinstance(entry, Settled) else state
        if count != 1 or state != final:
            raise CheckFailure(
                f"history shows round {rnd.ident!r} {count} times"
                + (f", as {state or 'neither settled nor void'}" if count else "")
                + f"; it ended {final}",
                expected={"round": rnd.ident, "times": 1, "state": final},
                actual={"times": count, "state": state},
                evidence={"history": [fields_of(r) for r in rounds]},
            )
