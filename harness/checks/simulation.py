"""The RTP simulation: rounds played by the exact optimal strategy, each re-settled by
the rules (stacked rounds as the differential settles its rounds: the batch settlement,
the oracle's seat by seat, and the oracle for a round the game settled otherwise), their
mean return judged against the exact mathematics."""

from __future__ import annotations

import dataclasses
import zlib
from collections import deque
from collections.abc import Callable, Generator, Iterator
from contextlib import closing

import msgspec
import numpy as np

from harness.checks.differential import agreed
from harness.checks.judgement import owner
from harness.checks.registry import NOT_RUN, CheckFailure, Context, NotTested, check, section
from harness.checks.replies import (
    Malformed,
    Played,
    Stacked,
    as_evidence,
    finish_round,
    malformed_result,
    parse,
    play_batches,
    stake,
    three,
    two,
)
from harness.checks.settlement import malformed_disagreements, repro_vector
from harness.differential.attribution import (
    Disagreement,
    Expected,
    expected_rounds,
    judge,
    refused,
    resolve_copies,
    slug,
)
from harness.differential.rounds import CALL, FOLD, PlannedRound, PlannedSeat, seats_of
from harness.errors import ErrorReply, InvalidCards, ProtocolViolation
from harness.gamemath import main_game
from harness.gamemath.rng import scipy_stats
from harness.gamemath.strategy import Strategy
from harness.protocol import Capability
from harness.protocol.messages import (
    Settled,
    StackedCards,
    cards_as_sent,
    misstated_amounts,
    read_dealt,
    read_result,
    seat_stakes,
)
from harness.results.model import (
    Finding,
    FoundBy,
    Outcome,
    Shares,
    Simulation,
    SimulationShare,
    Untested,
)
from harness.results.outcomes import Status
from harness.rules.cards import Card, format_cards
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, Settlement, settle
from harness.rules.profiles import Profile
from harness.rules.table import Table

RTP_CONFIDENCE = 0.99


@check("rtp-simulation", section="simulation", found_by=FoundBy.SIMULATION)
def rtp_simulation(ctx: Context) -> Outcome:
    """Rounds played optimally return what the exact mathematics says.

    With capability inject the rounds are stacked, drawn from `--seed`: the same
    seed deals the same rounds, and a failure becomes a vector that replays it.
    Without inject they are dealt by the game's own shuffle, and the evidence is
    the rounds as dealt. Every seat of every round decides by the exact optimal
    strategy; the oracle re-settles each round from the cards the game reveals
    (impossible cards, cards other than the stacked ones, or a settlement that
    differs fail at once). When the game dealt the rounds, the mean return per
    ante, with its 99% confidence interval over rounds, must contain the exact
    figure; for stacked rounds that interval would judge only the harness's own
    draw, so it is reported, not judged.
    """
    if ctx.rtp_rounds < 2:
        raise NotTested(
            "RTP simulation disabled (--rtp-rounds below 2)", needs="--rtp-rounds 2 or more"
        )
    game = main_game(ctx.profile)
    exact = game.optimal.return_per_ante
    seats = list(range(1, min(ctx.seats, 7) + 1))
    ante = stake(ctx)
    stacked = Capability.INJECT in ctx.capabilities
    strategy = game.checked_strategy()  # optimal play: the census's decisions
    calls_with = strategy.calls_with
    rounds: Generator[Judged, None, None] = (
        _stacked_rounds(ctx, strategy, seats, ante)
        if stacked
        else (_dealt_round(ctx, calls_with, seats, ante, n) for n in range(ctx.rtp_rounds))
    )
    per_round = []
    calls = 0
    causes: dict[tuple[str, str], list[Seen]] = {}
    with closing(rounds):  # no batch left in flight on the connection, a fault included
        for won, called, seen in rounds:
            for one in seen:
                causes.setdefault(one.disagreement.cause, []).append(one)
            if won is not None:  # a round the game did not settle has no return
                per_round.append(won / (ante * len(seats)))
            calls += called
    # Every round's money is the oracle's: a round the game settled otherwise is a finding
    # of the clause it breaks, and the mean judges only how the cards fell.
    found = [_finding(ctx, _example(seen), len(seen)) for seen in _resolved(causes).values()]
    n = len(per_round)
    if n < 2:  # the game settled too few rounds for a mean; what it refused stands
        why = f"the game settled {n} of {ctx.rtp_rounds} rounds: no return to judge"
        return Outcome(findings=found, untested=Untested(reason=why, needs="rounds it settles"))
    mean = sum(per_round) / n
    sd = (sum((x - mean) ** 2 for x in per_round) / (n - 1)) ** 0.5
    z = float(scipy_stats().norm.ppf(0.5 + RTP_CONFIDENCE / 2))
    low, high = mean - z * sd / n**0.5, mean + z * sd / n**0.5
    passed = stacked or low <= exact <= high
    simulated = Simulation(
        status=Status.PASS if passed else Status.FAIL,
        rounds=n,
        seats=len(seats),
        hands=n * len(seats),
        ante=ante,
        dealt_by=f"stacked, from seed {ctx.seed}" if stacked else "the game's shuffle",
        observed_return_per_ante=mean,
        observed_rtp=1 + mean,
        confidence=RTP_CONFIDENCE,
        interval=[low, high],
        exact_return_per_ante=float(exact),
        exact_rtp=float(1 + exact),
        observed_raise_frequency=calls / (n * len(seats)),
        detectable_shift=z * sd / n**0.5,
        interval_contains_exact=low <= exact <= high,
        # Every round's money is the oracle's (a differing settlement is a finding), so
        # the interval judges only how the cards fell: the game's shuffle when it dealt
        # them, the harness's own seeded draw when the rounds were stacked.
        interval_judged=not stacked,
        passed=passed,
        method="oracle re-settles every round; normal interval over per-round means"
        + ("; the interval is information only: the rounds were stacked" if stacked else ""),
    )
    share = SimulationShare(section=simulated)
    if not passed:
        raise CheckFailure(
            f"observed return per ante {mean:+.5f} (99% interval {low:+.5f} .. {high:+.5f}) "
            f"excludes the exact {float(exact):+.5f}",
            expected=float(exact),
            actual=[low, high],
            share=share,
            findings=found,
        )
    return Outcome(share=share, findings=found)


@section("simulation")
def simulation_section(shares: Shares) -> Simulation:
    """The RTP simulation's rounds (contract 3 `math.simulation`): its one item's share,
    or why none."""
    r = shares.records[0] if shares.records else None
    if r is None:
        return Simulation(status=Status.NOT_TESTED, reason=NOT_RUN)
    if isinstance(r.share, SimulationShare):
        # The item may fail on a finding of its own clause while the interval holds.
        return msgspec.structs.replace(r.share.section, status=r.status)
    return Simulation(status=r.status, reason=r.message)


def seeded_deals(seed: int, name: str, seats: list[int]) -> Iterator[tuple[Deal, StackedCards]]:
    """Stacked rounds drawn from a run's seed and a check's name, each as a deal and as a
    `round` request's `cards`: the same seed deals the same rounds, in the same order, on
    any machine."""
    source = np.random.default_rng([seed, zlib.crc32(name.encode())])
    needed = 2 * len(seats) + 7
    while True:
        drawn = [Card(int(i)) for i in source.permutation(52)[:needed]]
        holes = {s: (drawn[2 * k], drawn[2 * k + 1]) for k, s in enumerate(seats)}
        deal = Deal(holes, (drawn[-7], drawn[-6]), (drawn[-5], drawn[-4], drawn[-3]), *drawn[-2:])
        cards = [str(c) for c in drawn]
        yield (
            deal,
            {
                "seats": {str(s): cards[2 * k : 2 * k + 2] for k, s in enumerate(seats)},
                "dealer": cards[-7:-5],
                "flop": cards[-5:-2],
                "turn": cards[-2],
                "river": cards[-1],
            },
        )


Judged = tuple[int | None, int, list["Seen"]]  # money won, seats that called, disagreements


def _stacked_rounds(
    ctx: Context,
    strategy: Strategy,
    seats: list[int],
    ante: int,
) -> Generator[Judged, None, None]:
    """The rounds stacked from the seed, each seat deciding by the strategy on the cards
    it is stacked (known in advance), played in batches with the next in flight as the
    differential plays them (play_batches). Each is settled as the differential settles
    its rounds: a round the game settled as the batch settlement of its chunk has it
    (checks/differential.py `agreed`) is done with, its return that settlement's; any
    other is judged by the decision table against the oracle's settlement of the stacked
    deal, whose money is the round's return."""
    deals = seeded_deals(ctx.seed, "rtp-simulation", seats)
    planned: deque[tuple[Deal, StackedCards, dict[int, SeatPlay], Expected | None]] = deque()
    wagers = [seat_stakes(s, ante) for s in seats]

    def requests() -> Iterator[Stacked]:
        left = ctx.rtp_rounds
        while left > 0:
            chunk = [next(deals) for _ in range(min(CHUNK, left))]
            left -= len(chunk)
            found = _planned(ctx.profile, ctx.table, strategy, [d for d, _ in chunk], ante)
            for (deal, cards), (plays, exp) in zip(chunk, found, strict=True):
                planned.append((deal, cards, plays, exp))
                yield Stacked(wagers, cards, [(s, p.action.value) for s, p in plays.items()])

    with closing(play_batches(ctx, requests())) as answers:
        for number, played in enumerate(answers):
            deal, cards, plays, exp = planned.popleft()
            if exp is not None and agreed(exp, cards, played):
                called = sum(p.action is Action.CALL for p in plays.values())
                yield _money(exp), called, []
            else:
                yield _judged(ctx, number, deal, cards, plays, played)


CHUNK = 64  # stacked rounds decided and settled together


def _planned(
    profile: Profile, table: Table | None, strategy: Strategy, deals: list[Deal], ante: int
) -> list[tuple[dict[int, SeatPlay], Expected | None]]:
    """Each deal's plays, every seat deciding by the strategy (one look-up for all:
    Strategy.calls_for), and its settlement by the rules as the batch settlement has it
    (attribution.expected_rounds; None for a round only the oracle judges)."""
    seats = sorted(deals[0].seats) if deals else []
    holes = np.array([[c.index for c in d.seats[s]] for d in deals for s in seats], np.uint8)
    flops = np.array([[c.index for c in d.flop] for d in deals for _ in seats], np.uint8)
    calls = strategy.calls_for(holes, flops).reshape(len(deals), len(seats)).tolist()
    rounds = [
        PlannedRound(
            "",
            False,
            tuple(
                PlannedSeat(s, deal.seats[s], ante, 0, CALL if call else FOLD)
                for s, call in zip(seats, called, strict=True)
            ),
            deal.dealer,
            deal.flop,
            deal.turn,
            deal.river,
        )
        for deal, called in zip(deals, calls, strict=True)
    ]
    expected = expected_rounds(profile, rounds, seats_of(rounds), table)
    return [(rnd.plays(), exp) for rnd, exp in zip(rounds, expected, strict=True)]


def _money(expected: Expected) -> int:
    """The money the seats won as the batch settlement has it (`_won`'s, the same)."""
    return sum(
        money.ante[1] - money.ante[0] + money.call[1] - money.call[0]
        for money in expected.seats.values()
    )


def _judged(
    ctx: Context,
    number: int,
    deal: Deal,
    cards: StackedCards,
    plays: dict[int, SeatPlay],
    played: Played,
) -> Judged:
    """One stacked round's disagreements, by the decision table as the differential judges
    its rounds (judge_answer), and its return: the oracle's money for a round the game
    settled; none for a round it refused, answered malformed or left unsettled."""
    first = min(plays)
    if played.refused is not None:  # a legal round refused: a finding, no money
        op, exc = played.refused
        refusal = refused(first, op, exc.code, exc.message)
        return None, 0, [Seen(number, played.round_id, cards, plays, None, refusal)]
    want = settle(ctx.profile, deal, plays, ctx.table)
    if played.malformed is not None:
        found = malformed_disagreements(want, played.malformed)
    else:
        assert played.dealt is not None and played.result is not None
        found = judge(want, cards, played.dealt, played.result)
    seen = [Seen(number, played.round_id, cards, plays, want, d) for d in found]
    if played.malformed is not None or not isinstance(played.result, Settled):
        return None, 0, seen  # no money to count: the round has no return
    called = sum(p.action is Action.CALL for p in plays.values())
    return _won(want), called, seen


def _won(want: Settlement) -> int:
    """The money the seats won, by the rules: the round's return."""
    return sum(
        seat.ante.returned + seat.call.returned - seat.ante.stake - seat.call.stake
        for seat in want.seats
    )


def _dealt_round(
    ctx: Context,
    calls_with: Callable[[tuple[Card, Card], tuple[Card, Card, Card]], bool],
    seats: list[int],
    ante: int,
    number: int,
) -> Judged:
    """Play one round dealt by the game's own shuffle optimally, a request at a time (each
    decision waits for the cards shown): (money won across seats by the rules, None when
    the round could not be settled; seats that called; the disagreements with the rules)."""
    wagers = [seat_stakes(s, ante) for s in seats]
    plays = {s: SeatPlay(s, ante, 0, Action.FOLD) for s in seats}
    round_id: str | int | None = None

    def refusal(op: str, exc: ErrorReply) -> Judged:
        """A legal round the game refused: a finding of the clause it breaks, no money."""
        if round_id is not None:
            finish_round(ctx, round_id, seats)
        found = refused(seats[0], op, exc.code, exc.message)
        return None, 0, [Seen(number, round_id, None, plays, None, found)]

    try:
        reply = ctx.adapter.request("round", seats=wagers)
    except ErrorReply as exc:
        return refusal("round", exc)
    shown = read_dealt(reply)
    round_id = shown.round
    try:
        flop = three(parse(list(shown.flop), "flop", number))
        holes = {
            e.seat: two(parse(list(e.hole), f"seat {e.seat} hole", number)) for e in shown.seats
        }
        if sorted(holes) != seats:
            raise CheckFailure(f"round {number}: hole cards for seats {sorted(holes)}, not {seats}")
    except CheckFailure:
        finish_round(ctx, round_id, seats)
        raise
    actions = {s: Action.CALL if calls_with(holes[s], flop) else Action.FOLD for s in seats}
    plays = {s: SeatPlay(s, ante, 0, actions[s]) for s in seats}
    for seat in seats:
        try:
            ctx.adapter.request("act", round=round_id, seat=seat, action=actions[seat].value)
        except ErrorReply as exc:
            return refusal("act", exc)
    malformed: Malformed | None = None
    try:
        body = ctx.adapter.request("result", round=round_id)
        amounts = misstated_amounts(body)
        if amounts:  # every amount of a round at the stakes played fits in 2^53 - 1
            malformed = Malformed("an amount beyond 2^53 - 1", as_evidence(body), amounts)
    except ErrorReply as exc:
        return refusal("result", exc)
    except ProtocolViolation as exc:  # in step: it costs this round alone
        malformed = malformed_result(exc)
        if malformed is None:
            raise
        body = malformed.body
    result = None if malformed is not None else read_result(body)
    if isinstance(result, Settled) or result is None:
        board_sent, dealer_sent = (
            (result.board, result.dealer.hole) if result is not None else cards_as_sent(body)
        )
        board = [*parse(board_sent, "board", number)]
        dealer = two(parse(dealer_sent, "dealer hole", number))
    else:
        raise CheckFailure(f"round {number}: the game answered the round {result.status}")
    if len(board) != 5 or tuple(board[:3]) != flop:
        raise CheckFailure(f"round {number}: board {format_cards(board)} does not extend the flop")
    dealt: StackedCards = {  # what the report draws a failing round from
        "seats": {str(s): format_cards(holes[s]) for s in seats},
        "dealer": format_cards(dealer),
        "flop": format_cards(flop),
        "turn": str(board[3]),
        "river": str(board[4]),
    }
    try:
        want = settle(ctx.profile, Deal(holes, dealer, flop, board[3], board[4]), plays, ctx.table)
    except InvalidCards as exc:  # a card twice: the deck is not one deck (the deck's rule)
        d = Disagreement(
            seats[0], "deck", "a card dealt twice", {"cards": "distinct"}, {"error": str(exc)}
        )
        return None, 0, [Seen(number, round_id, dealt, plays, None, d)]
    # Judged by the decision table (harness/checks/judgement.py).
    if malformed is not None or result is None:  # no money to count: the round has no return
        assert malformed is not None
        seen = [
            Seen(number, round_id, dealt, plays, want, d)
            for d in malformed_disagreements(want, malformed)
        ]
        return None, 0, seen
    found = judge(want, dealt, shown, result)
    seen = [Seen(number, round_id, dealt, plays, want, d) for d in found]
    return _won(want), sum(a is Action.CALL for a in actions.values()), seen


@dataclasses.dataclass(frozen=True)
class Seen:
    """A disagreement in one simulated round, with what reproduces it."""

    number: int
    round_id: str | int | None
    cards: StackedCards | None  # None: a round refused before the game dealt it
    plays: dict[int, SeatPlay]
    want: Settlement | None  # None: the cards cannot be settled (a card dealt twice)
    disagreement: Disagreement


def _finding(ctx: Context, seen: Seen, count: int) -> Finding:
    """A cause of the simulation's disagreements as a failure of the clause it breaks:
    its first round, as a vector that replays it when the rounds were stacked."""
    d = seen.disagreement
    clause = owner(ctx, d.kind)
    c = seen.cards
    shown = "cards not shown"  # a round refused before the game dealt it
    if c is not None:
        shown = f"seat {d.seat} hole {' '.join(c['seats'].get(str(d.seat)) or [])}, dealer "
        shown += f"{' '.join(c['dealer'])}, board {' '.join([*c['flop'], c['turn'], c['river']])}"
    repro = None
    if seen.want is not None and c is not None:
        deal = Deal(
            {s: two(parse(c["seats"][str(s)], "hole", seen.number)) for s in seen.plays},
            two(parse(c["dealer"], "dealer", seen.number)),
            three(parse(c["flop"], "flop", seen.number)),
            parse([c["turn"]], "turn", seen.number)[0],
            parse([c["river"]], "river", seen.number)[0],
        )
        repro = repro_vector(ctx, f"rtp-simulation-round{seen.number}", deal, seen.plays, seen.want)
    return Finding(
        clause=clause,
        item=f"{clause}/rtp-simulation:{slug(d.kind, d.detail)}",
        kind=d.kind,
        detail=d.detail,
        count=count,
        message=f"{d.kind} ({d.detail}): {count} seat-hand(s) of the RTP simulation settled "
        f"otherwise than the rules; first round {seen.number} (the game's round "
        f"{seen.round_id}), {shown}",
        expected=d.expected,
        actual=d.actual,
        evidence={"seat": d.seat, "cards": c or {}, "round_number": seen.number},
        repro=repro,
    )


def _resolved(causes: dict[tuple[str, str], list[Seen]]) -> dict[tuple[str, str], list[Seen]]:
    """The causes, a seat that may have been settled as another seat taken as that when
    another round shows it beyond doubt (`resolve_copies`, docs/differential.md row 6)."""
    seen = [one for ones in causes.values() for one in ones]
    merged: dict[tuple[str, str], list[Seen]] = {}
    for one, d in zip(seen, resolve_copies([s.disagreement for s in seen]), strict=True):
        merged.setdefault(d.cause, []).append(dataclasses.replace(one, disagreement=d))
    return merged


def _example(seen: list[Seen]) -> Seen:
    """The first round that shows the cause on its own, as its repro vector replays it."""
    return next((s for s in seen if s.disagreement.alternative is None), seen[0])
