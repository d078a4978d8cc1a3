"""The differential check: tens of thousands of stacked seat-hands against the oracle.

Hand-worked vectors cite the rules; they cannot reach the hands where poker code
goes wrong one time in a thousand. This check deals a run's budget of seat-hands
(`--differential`, 50,000 by default) as stacked rounds drawn from `--seed`
(harness/differential/rounds.py: a uniform part and a stratified part), settles
each with the rules oracle and compares the game's money and hand names. Each
distinct cause of disagreement is shrunk to a minimal round, attributed to a
clause by the decision table (harness/differential/attribution.py and the
catalogs' `differential:` lists) and written as a vector that replays it.

The budget is split into shards (items `differential-1` ...), each drawing from
its own stream of the seed, so pytest-xdist spreads them over workers and hosts.
Requests are pipelined: a round's acts and result go out without waiting, and a
game with capability `pipeline` gets many rounds in flight (docs/adapter-protocol.md).
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from collections.abc import Iterator
from contextlib import closing

import msgspec

from harness.checks import replies
from harness.checks.judgement import owner
from harness.checks.registry import NOT_RUN, CheckFailure, Context, NotTested, check, section
from harness.checks.replies import (
    Played,
    Stacked,
    legal_range,
    offers_aa_bonus,
    play_batches,
    play_rounds,
)
from harness.checks.settlement import judge_answer, repro_vector
from harness.differential.attribution import (
    COPY_CAUSE,
    Disagreement,
    Expected,
    agrees,
    expected_rounds,
    slug,
)
from harness.differential.rounds import (
    QUOTA,
    SHARDS,
    PlannedRound,
    PlannedSeat,
    Stakes,
    count_strata,
    detectable_rate,
    draw_rounds,
    feasible_strata,
    seats_of,
)
from harness.errors import InvalidBet, InvalidCards
from harness.gamemath import main_game
from harness.protocol import Capability
from harness.protocol.messages import StackedCards
from harness.results.model import (
    DifferentialCause,
    DifferentialSection,
    DifferentialShare,
    Finding,
    FoundBy,
    Outcome,
    Shares,
    Strata,
)
from harness.results.outcomes import Status
from harness.rules.batch import Seats
from harness.rules.cards import Card, format_cards
from harness.rules.oracle import settle

SHRINK_CAUSES = 8  # distinct causes shrunk per shard; the rest are counted
SHRINK_ROUNDS = 400  # rounds one shrink may play


@dataclasses.dataclass
class Cause:
    """A distinct cause of disagreement: its first round, and how many seat-hands show it."""

    kind: str
    detail: str
    first: PlannedRound
    disagreement: Disagreement
    count: int = 0


@check(
    "differential",
    requires={Capability.INJECT},
    shards=SHARDS,
    section="differential",
    found_by=FoundBy.DIFFERENTIAL,
)
def differential(ctx: Context) -> Outcome:
    """The game settles every stacked seat-hand of the shard as the rules oracle does."""
    if ctx.differential < 1:
        raise NotTested(
            "differential disabled (--differential 0)", needs="--differential 1 or more"
        )
    started = time.perf_counter()
    profile = ctx.profile
    table = replies.playable_table(ctx)
    offered = profile.aa_table is not None and offers_aa_bonus(ctx)
    stakes = Stakes(
        table.ante, table.aa_bonus if offered else None, table.aa_bonus_max_ante_multiple
    )
    shard, shards = ctx.shard
    drawn = draw_rounds(
        profile,
        seed=ctx.seed,
        shard=shard,
        shards=shards,
        budget=ctx.differential,
        seats=min(ctx.seats, 7),
        stakes=stakes,
        calls_with=main_game(profile).strategy.calls_for,
    )
    # Drawn and not yet judged, in order: a batch ahead of the game, the one it plays.
    planned: deque[tuple[PlannedRound, Stacked]] = deque()
    seat_hands = {"uniform": 0, "stratified": 0}
    rounds = 0

    def requests() -> Iterator[Stacked]:
        """The rounds as they are drawn: each batch drawn while the game plays the one before."""
        nonlocal rounds
        for rnd in drawn:
            planned.append((rnd, _stacked(rnd)))
            seat_hands["stratified" if rnd.stratified else "uniform"] += len(rnd.seats)
            rounds += 1
            yield planned[-1][1]

    disagreeing = 0
    # Seat-hands of rounds refused or answered with a malformed result: not compared.
    uncompared = {"uniform": 0, "stratified": 0}
    # Counted as they come, by cause and by the cause row 6 would give instead (a seat
    # that may have been settled as another, docs/differential.md): which of the two the
    # shard shows is decided at its end, by whether any round showed a copy beyond doubt.
    counted: dict[tuple[tuple[str, str], tuple[str, str] | None], Cause] = {}
    # Each round as the rules settle it, a batch at a time (harness/rules/batch.py): a
    # round the game settles so is done with; any other is judged by the oracle itself.
    # The batches' seats are kept for the strata, the rounds themselves are not.
    expected: deque[Expected | None] = deque()
    judged: list[Seats] = []
    # Closed on the way out, a fault included: no batch is left in flight on the connection.
    with closing(play_batches(ctx, requests())) as answers:
        for played in answers:
            if not expected:  # the rounds drawn so far: this one and those in flight
                batch = [r for r, _ in planned]
                seats = seats_of(batch)
                judged.append(seats[0])
                expected.extend(expected_rounds(profile, batch, seats, ctx.table))
            rnd, sent = planned.popleft()
            if agreed(expected.popleft(), sent.cards, played):
                continue
            found = judge_answer(ctx, rnd.deal(), rnd.plays(), sent.cards, played)
            # A refused or malformed round costs itself alone: its causes count all its
            # seat-hands, none compared, and the shard goes on with the next round.
            weight = 1
            if any(not d.settled for d in found):
                weight = len(rnd.seats)
                uncompared["stratified" if rnd.stratified else "uniform"] += weight
            else:
                disagreeing += len(found)
            seen = set()  # an uncompared round counts its seat-hands once per cause
            for d in found:
                key = (d.cause, d.alternative)
                cause = counted.setdefault(key, Cause(d.kind, d.detail, rnd, d))
                if weight == 1 or key not in seen:
                    cause.count += weight
                seen.add(key)
    strata = count_strata(profile, judged, feasible_strata(profile), stakes)
    causes = _resolved(counted)
    findings = [
        _finding(ctx, cause, n < SHRINK_CAUSES)
        for n, cause in enumerate(sorted(causes.values(), key=lambda c: -c.count))
    ]
    seconds = time.perf_counter() - started
    # The seat-hands compared: a refused or malformed round's are not, and bound no rate.
    uniform = seat_hands["uniform"] - uncompared["uniform"]
    stratified = seat_hands["stratified"] - uncompared["stratified"]
    share = DifferentialShare(
        budget=ctx.differential,
        rounds=rounds,
        uniform_seat_hands=uniform,
        stratified_seat_hands=stratified,
        strata=strata,
        disagreeing_seat_hands=disagreeing,
        uncompared_seat_hands=sum(uncompared.values()),
        seconds=seconds,
    )
    return Outcome(findings=findings, share=share)


def agreed(expected: Expected | None, stacked: StackedCards, played: Played) -> bool:
    """Whether a round the rules settle as `expected` was played and settled so: nothing
    refused, nothing malformed, no disagreement (attribution.agrees)."""
    return (
        expected is not None
        and played.refused is None
        and played.malformed is None
        and played.dealt is not None
        and played.result is not None
        and agrees(expected, stacked, played.dealt, played.result)
    )


@section("differential")
def differential_section(shares: Shares) -> DifferentialSection:
    """The shards summed (contract 3 `differential`, docs/differential.md), with the
    causes they found."""
    found = [r.share for r in shares.records if isinstance(r.share, DifferentialShare)]
    counts = dict.fromkeys(feasible_strata(shares.profile), 0)
    for shard in found:
        for key, n in shard.strata.items():
            counts[key] = counts.get(key, 0) + n
    uniform = sum(f.uniform_seat_hands for f in found)
    stratified = sum(f.stratified_seat_hands for f in found)
    seconds = sum(f.seconds for f in found)
    shard_items = {r.item for r in shares.records}
    causes = [
        DifferentialCause(
            clause=r.clause, kind=r.fault.kind, detail=r.fault.detail, count=r.count, item=r.item
        )
        for r in shares.found
        if r.fault is not None
    ]
    short = {k: n for k, n in counts.items() if n < QUOTA}
    if not shares.planned:
        status, reason = Status.NOT_TESTED, "no clause of the profile names the differential check"
    elif len(found) < len(shares.planned):
        # A shard that stopped (a protocol fault, a harness error), was not tested or was
        # not run: the section says so in the first such shard's own words.
        stopped = [r for r in shares.records if not isinstance(r.share, DifferentialShare)]
        missing = [p.name for p in shares.planned if p.name not in shard_items]
        stops = {r.status for r in stopped}
        status = next((x for x in (Status.FAIL, Status.ERROR) if x in stops), Status.NOT_TESTED)
        reason = min(
            (f"{r.item}: {r.message}" for r in stopped if r.message),
            default=f"shards not run: {', '.join(missing)}" if missing else NOT_RUN,
        )
    else:
        status = Status.FAIL if causes else Status.PASS
        reason = ""
    return DifferentialSection(
        status=status,
        reason=reason,
        budget=found[0].budget if found else 0,
        shards_run=len(found),
        shards=len(shares.planned),
        seat_hands=uniform + stratified,
        uniform_seat_hands=uniform,
        stratified_seat_hands=stratified,
        rounds=sum(f.rounds for f in found),
        strata=Strata(
            quota=QUOTA, total=len(counts), met=len(counts) - len(short), short=short, counts=counts
        ),
        disagreeing_seat_hands=sum(f.disagreeing_seat_hands for f in found),
        uncompared_seat_hands=sum(f.uncompared_seat_hands for f in found),
        causes=causes,
        detectable_fault_rate=detectable_rate(uniform),
        seconds=seconds,
        seat_hands_per_second=(uniform + stratified) / seconds if seconds else 0.0,
    )


def _resolved(
    counted: dict[tuple[tuple[str, str], tuple[str, str] | None], Cause],
) -> dict[tuple[str, str], Cause]:
    """The shard's causes: a seat that may have been settled as another counted as that
    when a round of the shard showed a copy beyond doubt, else as its own row (as
    `resolve_copies` decides an item's); each cause's example a round that shows it on
    its own, as its repro replays it."""
    copies = any(own == COPY_CAUSE and alternative is None for own, alternative in counted)
    merged: dict[tuple[str, str], Cause] = {}
    for (own, alternative), cause in counted.items():
        kind, detail = alternative if copies and alternative is not None else own
        into = merged.setdefault(
            (kind, detail), Cause(kind, detail, cause.first, cause.disagreement)
        )
        if into is not cause and into.disagreement.alternative is not None and alternative is None:
            into.first, into.disagreement = cause.first, cause.disagreement
        into.count += cause.count
    return merged


def _play(
    ctx: Context, rounds: list[PlannedRound]
) -> Iterator[tuple[PlannedRound, list[Disagreement]]]:
    """Play rounds (all in flight at once), yielding each with its disagreements (a legal
    round refused is one, and the shard goes on)."""
    played = play_rounds(ctx, [_stacked(r) for r in rounds])
    for rnd, answer in zip(rounds, played, strict=True):
        yield rnd, judge_answer(ctx, rnd.deal(), rnd.plays(), rnd.cards(), answer)


def _stacked(rnd: PlannedRound) -> Stacked:
    return Stacked(rnd.wagers(), rnd.cards(), [(s.seat, s.action.value) for s in rnd.seats])


def _replay(ctx: Context, rnd: PlannedRound) -> list[Disagreement]:
    return next(iter(_play(ctx, [rnd])))[1]


def _finding(ctx: Context, cause: Cause, shrink: bool) -> Finding:
    """A cause as a failure of its clause: shrunk, with the round as a vector."""
    rnd, d = cause.first, cause.disagreement
    tries = 0
    if shrink:
        rnd, d, tries = _shrink(ctx, rnd, d)
    want = settle(ctx.profile, rnd.deal(), rnd.plays(), ctx.table)
    clause = owner(ctx, cause.kind)
    name = slug(cause.kind, cause.detail)
    seat = next(s for s in rnd.seats if s.seat == d.seat)
    shown = (
        f"seat {d.seat} hole {' '.join(format_cards(seat.hole))}, dealer "
        f"{' '.join(format_cards(rnd.dealer))}, board {' '.join(format_cards(rnd.deal().board))}"
    )
    return Finding(
        clause=clause,
        item=f"{clause}/differential:{name}",
        kind=cause.kind,
        detail=cause.detail,
        count=cause.count,
        message=(
            f"{cause.kind} ({cause.detail}): {cause.count} seat-hand(s) of shard "
            f"{ctx.shard[0] + 1} settled otherwise than the rules; "
            f"{'shrunk to' if shrink else 'first in'} {rnd.name}: {shown}"
        ),
        expected=d.expected,
        actual=d.actual,
        evidence={
            "round": rnd.cards(),
            "wagers": rnd.wagers(),
            "actions": {str(s.seat): s.action.value for s in rnd.seats},
            "first_seen": cause.first.name,
            "shrink_rounds": tries,
        },
        repro=repro_vector(
            ctx, f"differential-{name}-{cause.first.name}", rnd.deal(), rnd.plays(), want
        ),
    )


def _shrink(
    ctx: Context, rnd: PlannedRound, d: Disagreement
) -> tuple[PlannedRound, Disagreement, int]:
    """The smallest round that keeps the cause: fewest seats, no AA Bonus unless needed,
    smallest legal stakes, then each card as low as it goes (Hypothesis-style greedy
    passes that accept a candidate only if the same kind and detail still disagree)."""
    tries = 0
    cause = d.cause

    def keeps(candidate: PlannedRound) -> Disagreement | None:
        nonlocal tries
        tries += 1
        try:
            found = _replay(ctx, candidate)
        except (CheckFailure, InvalidCards, InvalidBet):
            return None
        return next((x for x in found if x.cause == cause), None)

    def attempt(candidate: PlannedRound) -> bool:
        nonlocal rnd, d
        if tries >= SHRINK_ROUNDS:
            return False
        kept = keeps(candidate)
        if kept is not None:
            rnd, d = candidate, kept
        return kept is not None

    # Fewest seats: the seat alone, renumbered 1 if that keeps it; else drop others one by one.
    target = next(s for s in rnd.seats if s.seat == d.seat)
    if not (
        len(rnd.seats) > 1
        and (
            attempt(_with_seats(rnd, [msgspec.structs.replace(target, seat=1)]))
            or attempt(_with_seats(rnd, [target]))
        )
    ):
        for other in [s for s in rnd.seats if s.seat != d.seat]:
            attempt(_with_seats(rnd, [s for s in rnd.seats if s.seat != other.seat]))
    # No AA Bonus unless needed, then the smallest legal stakes.
    for k, seat in enumerate(rnd.seats):
        if seat.aa_bonus:
            attempt(_with_seat(rnd, k, msgspec.structs.replace(seat, aa_bonus=0)))
    for k, seat in enumerate(rnd.seats):
        aa = legal_range(ctx, "aa_bonus")[0] if seat.aa_bonus else 0
        smaller = msgspec.structs.replace(seat, ante=legal_range(ctx, "ante")[0], aa_bonus=aa)
        if smaller != seat:
            attempt(_with_seat(rnd, k, smaller))
    # The lowest cards that keep it: board, dealer, then hole cards, lowest candidate first.
    for _ in range(2):
        changed = False
        for position in range(5 + 2 + 2 * len(rnd.seats)):
            current = _cards_of(rnd)
            for lower in range(current[position].index):
                if Card(lower) in current:
                    continue
                if tries >= SHRINK_ROUNDS:
                    break
                if attempt(_with_card(rnd, position, Card(lower))):
                    changed = True
                    break
        if not changed:
            break
    return rnd, d, tries


def _cards_of(rnd: PlannedRound) -> list[Card]:
    """Board, dealer, then each seat's hole cards: the order shrinking lowers them in."""
    return [*rnd.flop, rnd.turn, rnd.river, *rnd.dealer, *(c for s in rnd.seats for c in s.hole)]


def _with_card(rnd: PlannedRound, position: int, card: Card) -> PlannedRound:
    cards = _cards_of(rnd)
    cards[position] = card
    seats = tuple(
        msgspec.structs.replace(s, hole=(cards[7 + 2 * k], cards[8 + 2 * k]))
        for k, s in enumerate(rnd.seats)
    )
    return msgspec.structs.replace(
        rnd,
        flop=(cards[0], cards[1], cards[2]),
        turn=cards[3],
        river=cards[4],
        dealer=(cards[5], cards[6]),
        seats=seats,
    )


def _with_seats(rnd: PlannedRound, seats: list[PlannedSeat]) -> PlannedRound:
    return msgspec.structs.replace(rnd, seats=tuple(seats))


def _with_seat(rnd: PlannedRound, k: int, seat: PlannedSeat) -> PlannedRound:
    seats = list(rnd.seats)
    seats[k] = seat
    return _with_seats(rnd, seats)
