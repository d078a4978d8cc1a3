"""Settlement: a stacked round paid as the hand-worked vector says, its AA Bonus
settled at the right moment, and recalled by `history` as it was reported.

`replay_vector` plays one vector (a stacked round) and compares the game's
settlement with the vector's expected values; `repro_vector` writes a round the
other way, as a vector whose expected values are the oracle's, so that a
randomized failure can be replayed.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.checks.judgement import judge_played, owner, refused_request, split
from harness.checks.registry import CheckFailure, Context, NotTested, check, game_faults_fail
from harness.checks.replies import (
    Malformed,
    Played,
    Stacked,
    finish_round,
    legal_range,
    offers_aa_bonus,
    open_round,
    play_round,
    playable_table,
    recall,
    request_ok,
    result_of,
    stake,
)
from harness.differential.attribution import Disagreement, actual_seat, expected_seat, slug
from harness.errors import ErrorReply
from harness.protocol import Capability
from harness.protocol.messages import (
    Result,
    SeatStakes,
    Settled,
    StackedCards,
    fields_of,
    seat_as_sent,
    seat_stakes,
)
from harness.results.model import Finding, Outcome
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, Settlement, settle
from harness.rules.table import StakesKind, fit, stakes_kind
from harness.vectors.settlement import Vector, round_vector


@dataclass(frozen=True)
class AtTable:
    """A vector as the game's table plays it: each seat's stakes fitted to the declared
    limits and house rules (harness/rules/table.py, docs/profiles.md), and how."""

    vector: Vector
    plays: dict[int, SeatPlay]
    how: str  # "as written", "x5", "/2", "restaked"

    def stacked(self) -> Stacked:
        """The round to play: the fitted wagers, the stacked cards, each seat's decision."""
        return Stacked(
            _wagers({p.seat: (p.ante, p.aa_bonus) for p in self.plays.values()}),
            self.vector.stacked_cards(),
            [(p.seat, p.action.value) for p in self.plays.values()],
        )

    @property
    def evidence(self) -> dict[str, object]:
        """The stakes played and how they were had (results.json counts them), and the
        written ones where they differ."""
        played: dict[str, object] = {"wagers": self.stacked().wagers, "stakes": self.how}
        if stakes_kind(self.how) is not StakesKind.AS_WRITTEN:
            written = {s.seat: (s.ante, s.aa_bonus) for s in self.vector.seats}
            played["written"] = _wagers(written)
        return played


def _wagers(stakes: dict[int, tuple[int, int]]) -> list[SeatStakes]:
    return [seat_stakes(n, ante, aa) for n, (ante, aa) in sorted(stakes.items())]


# A malformed amount in a result (harness/checks/replies.py, Malformed) is the game's money
# arithmetic gone wrong on that wager: the fault kind of the decision table that settles
# that wager's amount (docs/differential.md, "A malformed reply"), so it fails the clause
# of the wager's settlement, never the clause of the item that met it.
MALFORMED_KINDS = {
    ("ante", "stake"): "ante-odds",
    ("ante", "returned"): "ante-odds",
    ("call", "stake"): "call-stake",
    ("call", "returned"): "call-odds",
    ("aa_bonus", "stake"): "aa-bonus-odds",
    ("aa_bonus", "returned"): "aa-bonus-odds",
}


def judge_answer(
    ctx: Context, deal: Deal, plays: dict[int, SeatPlay], stacked: StackedCards, played: Played
) -> list[Disagreement]:
    """A played stacked round's disagreements with the rules (judge_played), or those of
    its malformed result: one per malformed amount, by the kind of the wager it settles,
    or one `result-shape` when what is malformed is not an amount. A malformed round's
    seat-hands are not compared (`settled` False): it costs its round alone."""
    if played.malformed is None:
        return judge_played(ctx, deal, plays, stacked, played)
    want = settle(ctx.profile, deal, plays, ctx.table)
    return malformed_disagreements(want, played.malformed)


def malformed_disagreements(want: Settlement, malformed: Malformed) -> list[Disagreement]:
    """The disagreements of a malformed result (judge_answer)."""
    expected = {s.seat: expected_seat(s).shown() for s in want.seats}
    folded = {s.seat for s in want.seats if s.action is Action.FOLD}
    first = min(expected, default=1)
    found = []
    for bad in malformed.amounts:
        why = "outside 0 .. 2^53 - 1" if isinstance(bad.sent, int) else "not an integer"
        # A folded seat has no call to settle: money on it is the fold's row (row 7).
        folds = bad.wager == "call" and bad.seat in folded
        kind = "fold" if folds else MALFORMED_KINDS[bad.wager, bad.field]
        found.append(
            Disagreement(
                bad.seat if bad.seat in expected else first,
                kind,
                f"{bad.wager} {bad.field} {why}",
                expected.get(bad.seat, {}),
                seat_as_sent(malformed.body, bad.seat),
                settled=False,
            )
        )
    if not found:
        found.append(
            Disagreement(
                first,
                "result-shape",
                "result not protocol v1",
                {"result": "protocol v1 (specs/schemas/protocol-v1.schema.json)"},
                {"problem": malformed.detail, "result": malformed.body},
                settled=False,
            )
        )
    return found


def problems_of(
    ctx: Context, at: AtTable, played: Played
) -> tuple[list[str], object, dict[str, object]]:
    """What a vector's played round shows against the rules, for a failure's message:
    the refusal, the malformed result, or each difference of its settlement."""
    if played.refused is not None:
        op, error = played.refused
        problem = f"{op} was refused with {error.code}: {error.message}"
        return [problem], "an ok reply", {"error": {"code": error.code, "message": error.message}}
    if played.malformed is not None:
        want = settle(ctx.profile, at.vector.deal, at.plays, ctx.table)
        actual: dict[str, object] = {
            "problem": played.malformed.detail,
            "result": played.malformed.body,
        }
        problem = f"result not protocol v1: {played.malformed.detail}"
        return [problem], settlement_shown(want, at.vector.deal), actual
    assert played.result is not None
    return compare_settlement(ctx, at, played.result)


def replay_vector(ctx: Context, vector: Vector) -> Outcome:
    """Play a stacked round at the game's table and judge the settlement on what the
    vector's clause states (`ctx.clause`); whatever else differs fails the clause it
    breaks (harness/checks/judgement.py), with this vector as its worked example. The
    expected settlement is the rules oracle's under the profile at the stakes played (the
    hand-worked values are its proof, tests/test_oracle.py)."""
    if Capability.INJECT not in ctx.capabilities:
        raise NotTested(
            "vectors stack the deck: implementation lacks capability inject",
            needs="capability inject",
        )
    if not vector.valid:  # wagers the rules refuse, asked as written
        wagers = [SeatStakes(seat=s.seat, ante=s.ante, aa_bonus=s.aa_bonus) for s in vector.seats]
        with game_faults_fail():
            _expect_refusal(ctx, vector, wagers)
        return Outcome()
    at = at_table(ctx, vector)
    stacked = at.stacked()
    with game_faults_fail():
        played = play_round(ctx, stacked)
    found = judge_answer(ctx, vector.deal, at.plays, vector.stacked_cards(), played)
    if not found:
        return Outcome(evidence={"stakes": at.how})
    problems, expected, actual = problems_of(ctx, at, played)
    # The stacked cards beside the money: the report draws the round.
    evidence: dict[str, object] = {"vector": vector.id, "file": str(vector.path)}
    evidence |= {"line": vector.line, "cards": vector.stacked_cards(), **at.evidence}
    if played.refused is not None:
        evidence["request"] = refused_request(played, stacked)
    own, others = split(ctx, found)
    findings = [
        Finding(
            clause=owner(ctx, d.kind),
            item=f"{owner(ctx, d.kind)}/vectors:{slug(d.kind, d.detail)}",
            kind=d.kind,
            detail=d.detail,
            message=f"{d.kind} ({d.detail}): vector {vector.id} settled otherwise than the "
            f"rules: {'; '.join(problems)}",
            expected=expected,
            actual=actual,
            evidence=evidence,
        )
        for d in others
    ]
    if own:
        causes = ", ".join(f"{d.kind} ({d.detail})" for d in own)
        raise CheckFailure(
            f"{causes}: {'; '.join(problems)}",
            expected=expected,
            actual=actual,
            evidence=evidence,
            findings=findings,
            cause=own[0].cause,
        )
    return Outcome(findings=findings, evidence={"stakes": at.how})


def at_table(ctx: Context, vector: Vector) -> AtTable:
    """The vector at the game's table, or NotTested when the game cannot be asked it: more
    seats than it declares, an AA Bonus it does not offer, stakes its table cannot take."""
    top_seat = max(s.seat for s in vector.seats)
    if top_seat > ctx.seats:
        raise NotTested(
            f"vector uses seat {top_seat}; implementation declares seats:{ctx.seats}",
            needs=f"capability seats:{top_seat}",
        )
    staked = any(s.aa_bonus for s in vector.seats)
    # A profile without an AA Bonus (a variation removing it) plays the vector without
    # one; a game not offering the profile's AA Bonus cannot be asked it.
    without = ctx.profile.aa_table is None
    if staked and not without and not offers_aa_bonus(ctx):
        raise NotTested(
            "the vector stakes an AA Bonus; the game declares none",
            needs="an AA Bonus table in hello",
        )
    seats = sorted(vector.seats, key=lambda s: s.seat)
    fitted = fit(playable_table(ctx), [(s.ante, 0 if without else s.aa_bonus) for s in seats])
    if fitted is None:
        raise NotTested(
            "the vector stakes an AA Bonus the game's table takes beside none of its antes",
            needs="declared AA Bonus limits and house rules that allow one",
        )
    plays = {
        s.seat: SeatPlay(s.seat, ante, aa, s.action)
        for s, (ante, aa) in zip(seats, fitted.stakes, strict=True)
    }
    how = fitted.how
    if staked and without and stakes_kind(how) is StakesKind.AS_WRITTEN:
        how = StakesKind.RESTAKED.value  # its AA Bonus dropped
    return AtTable(vector, plays, how)


def _expect_refusal(ctx: Context, vector: Vector, wagers: list[SeatStakes]) -> None:
    try:
        reply = ctx.adapter.request("round", seats=wagers, cards=vector.stacked_cards())
    except ErrorReply as exc:
        if exc.code != vector.expected_error:
            raise CheckFailure(
                f"refused with {exc.code}, expected {vector.expected_error}",
                expected={"error": vector.expected_error},
                actual={"error": {"code": exc.code, "message": exc.message}},
                cause=("refusal-code", exc.code),
            ) from exc
        return
    finish_round(ctx, reply["round"], [s.seat for s in vector.seats])
    raise CheckFailure(
        f"the game accepted wagers it must refuse with {vector.expected_error}",
        expected={"error": vector.expected_error},
        actual=reply,
        cause=("refusal-accepted", "round"),
    )


def settlement_shown(want: Settlement, deal: Deal) -> dict[str, object]:
    """The rules' settlement of a round as a failure shows it beside the game's."""
    return {
        "board": [str(c) for c in deal.board],
        "dealer": {"hand": want.dealer_hand.wire, "qualifies": want.dealer_qualifies},
        "seats": {str(seat.seat): expected_seat(seat).shown() for seat in want.seats},
    }


def compare_settlement(
    ctx: Context, at: AtTable, result: Result
) -> tuple[list[str], dict[str, object], dict[str, object]]:
    """Differences between a `result` reply and the rules oracle's settlement of the
    vector at the stakes played: (problems, expected, actual)."""
    want = settle(ctx.profile, at.vector.deal, at.plays, ctx.table)
    expected = settlement_shown(want, at.vector.deal)
    if not isinstance(result, Settled):
        return [f"the round is {result.status}, not settled"], expected, {"status": result.status}
    problems: list[str] = []
    board = expected["board"]
    seats: dict[str, object] = {}
    dealer = {"hand": result.dealer.hand, "qualifies": result.dealer.qualifies}
    actual: dict[str, object] = {"board": list(result.board), "dealer": dealer, "seats": seats}
    if actual["board"] != board:
        problems.append(f"board {actual['board']} is not the stacked {board}")
    wanted_dealer = {"hand": want.dealer_hand.wire, "qualifies": want.dealer_qualifies}
    problems += [
        f"dealer {key} {dealer[key]!r}, expected {value!r}"
        for key, value in wanted_dealer.items()
        if dealer[key] != value
    ]
    for exp in want.seats:
        got = result.seat(exp.seat)
        if got is None:
            problems.append(f"seat {exp.seat} missing from the result")
            continue
        wanted = expected_seat(exp).shown()
        have = actual_seat(got).shown()
        if "hand" in wanted:
            have["hand"] = got.hand
        seats[str(exp.seat)] = have
        problems += [
            f"seat {exp.seat} {key} {have.get(key)!r}, expected {value!r}"
            for key, value in wanted.items()
            if have.get(key) != value
        ]
    extra = sorted({s.seat for s in result.seats} - set(at.plays))
    if extra:
        problems.append(f"result has seats {extra} that did not play")
    return problems, expected, actual


@check("aa-bonus-timing", requires={Capability.INJECT, Capability.EVENTS})
def aa_bonus_timing(ctx: Context) -> Outcome:
    """Every decision comes before any AA Bonus is settled, and every AA Bonus before the turn."""
    if not offers_aa_bonus(ctx):
        raise NotTested("the game declares no AA Bonus", needs="an AA Bonus table in hello")
    seats = [1, 2] if ctx.seats >= 2 else [1]
    holes = {"1": ["As", "Ad"], "2": ["7c", "2d"]}
    cards: StackedCards = {
        "seats": {str(s): holes[str(s)] for s in seats},
        "dealer": ["5c", "5d"],
        "flop": ["Kh", "7d", "2c"],
        "turn": "9s",
        "river": "4h",
    }
    lo = stake(ctx)
    aa_lo = stake(ctx, "aa_bonus")
    dealt = open_round(ctx, [seat_stakes(s, lo, aa_lo) for s in seats], cards)
    for seat in seats:
        request_ok(ctx, "act", round=dealt.round, seat=seat, action="call")
    result = result_of(ctx, dealt.round)
    events = result.events if isinstance(result, Settled) else ()
    kinds = [e.type for e in events]
    needed = ["action", "aa_bonus_settled", "turn_dealt", "river_dealt"]
    if any(k not in kinds for k in needed):
        raise CheckFailure("events lack a step", expected=needed, actual=kinds)
    last_action = max(i for i, k in enumerate(kinds) if k == "action")
    settled = [i for i, k in enumerate(kinds) if k == "aa_bonus_settled"]
    turn = kinds.index("turn_dealt")
    # Two rules meet here: the AA Bonus settled after every decision, and the turn dealt
    # after every AA Bonus; a catalog may give each to a clause of its own (fault kinds
    # aa-bonus-early and aa-bonus-late), and a game breaking one fails that one alone.
    faults = [
        (kind, detail)
        for kind, detail, broken in (
            ("aa-bonus-early", "AA Bonus settled before a decision", min(settled) < last_action),
            ("aa-bonus-late", "AA Bonus settled after the turn", max(settled) > turn),
            ("aa-bonus-late", "an AA Bonus never settled", len(settled) != len(seats)),
        )
        if broken
    ]
    if not faults:
        return Outcome()
    expected = "action... aa_bonus_settled (each seat) ... turn_dealt"
    findings = [
        Finding(
            clause=owner(ctx, kind),
            item=f"{owner(ctx, kind)}/aa-bonus-timing:{slug(kind, detail)}",
            kind=kind,
            detail=detail,
            message=f"{kind} ({detail}): events {kinds}",
            expected=expected,
            actual=kinds,
        )
        for kind, detail in dict(faults).items()
        if owner(ctx, kind) != ctx.clause
    ]
    own = [detail for kind, detail in faults if owner(ctx, kind) == ctx.clause]
    if own:
        raise CheckFailure(
            f"{'; '.join(own)}: not between the last decision and the turn",
            expected=expected,
            actual=kinds,
            findings=findings,
        )
    return Outcome(findings=findings)


# Pairs of rounds alike in everything but the turn and river (hole, flop, dealer, action):
# in the first of each pair the turn and river would change the AA Bonus if it were judged
# on seven cards (a pair of aces made; a pair of aces made a flush), in the second they
# would not. (hole, flop, [(turn, river), (turn, river)], action)
LOCKED_PAIRS = (
    (("As", "Kd"), ("2c", "7h", "Jd"), [("Ac", "9s"), ("3s", "4d")], "call"),
    (("Ah", "Ad"), ("2h", "7h", "Jd"), [("9h", "4h"), ("3s", "8c")], "call"),
    (("Ah", "Ad"), ("2h", "7h", "Jd"), [("9h", "4h"), ("3s", "8c")], "fold"),
)
LOCKED_DEALER = ("5c", "5d")


@check("aa-bonus-locked", requires={Capability.INJECT})
def aa_bonus_locked(ctx: Context) -> Outcome:
    """The AA Bonus is settled on the hole cards and flop alone: two rounds that differ
    only in the turn and river settle it identically. Needs no events: the settlement
    itself shows whether the last two cards were looked at."""
    if not offers_aa_bonus(ctx):
        raise NotTested("the game declares no AA Bonus", needs="an AA Bonus table in hello")
    wager = seat_stakes(1, stake(ctx), stake(ctx, "aa_bonus"))
    for hole, flop, endings, action in LOCKED_PAIRS:
        settled = []
        for turn, river in endings:
            cards: StackedCards = {"seats": {"1": list(hole)}, "dealer": list(LOCKED_DEALER),
                                   "flop": list(flop), "turn": turn, "river": river}  # fmt: skip
            dealt = open_round(ctx, [wager], cards)
            try:
                request_ok(ctx, "act", round=dealt.round, seat=1, action=action)
            except CheckFailure:
                finish_round(ctx, dealt.round, [1])
                raise
            result = result_of(ctx, dealt.round)
            seat = result.seat(1) if isinstance(result, Settled) else None
            aa = None if seat is None else seat.wagers.aa_bonus
            settled.append(None if aa is None else list(aa.pair))
        if settled[0] != settled[1]:
            (t1, r1), (t2, r2) = endings
            raise CheckFailure(
                f"the AA Bonus of {' '.join(hole)} on a flop of {' '.join(flop)} ({action}) "
                f"settled {settled[0]} with turn {t1} and river {r1}, {settled[1]} with "
                f"turn {t2} and river {r2}: the last two cards changed it",
                expected="the same AA Bonus settlement whatever the turn and river",
                actual={f"{t1} {r1}": settled[0], f"{t2} {r2}": settled[1]},
            )
    return Outcome(evidence={"round_pairs": len(LOCKED_PAIRS)})


RECALLED_ROUNDS = 10  # regulators' recall rules: the last game and the nine before it

# With capability inject, the rounds history-recall plays are stacked so that every kind
# of wager is both won and lost among the recalled rounds, and the oldest one returns
# money on every wager of its first seat: seat hands cycle through three of a kind
# (aces: an AA Bonus won), a high card (every wager lost to a qualifying dealer, the call
# pushed by a non-qualifying one) and three kings, against a dealer who qualifies with
# a pair of fours in even rounds and fails to in odd ones. Each round has its own ante
# and suits. A history that rewrites any wager (shown won, lost or pushed otherwise),
# any hand, or the order of rounds, then shows it, whatever the cards would have been.
RECALL_HOLES = (("AA", "56"), ("56", "KK"), ("56", "AA"), ("KK", "56"))  # seats 1, 2 by n % 4
RECALL_DEALER = ("44", "27")  # by n % 2: qualifies, does not
RECALL_BOARD = "AK938"  # flop, turn, river
SUITS = "shdc"


def recall_cards(n: int, seats: list[int]) -> StackedCards:
    """Round `n`'s stacked cards (see RECALL_HOLES): the suits turn with n."""
    order = SUITS[n % 4 :] + SUITS[: n % 4]

    def cards(ranks: str, first_suit: int) -> list[str]:
        return [rank + order[(first_suit + k) % 4] for k, rank in enumerate(ranks)]

    flop = cards(RECALL_BOARD[:3], 2)
    return {
        "seats": {str(s): cards(RECALL_HOLES[n % 4][s - 1], 0) for s in seats},
        "dealer": cards(RECALL_DEALER[n % 2], 2),
        "flop": flop,
        "turn": cards(RECALL_BOARD[3], 1)[0],
        "river": cards(RECALL_BOARD[4], 0)[0],
    }


@check("history-recall", requires={Capability.HISTORY})
def history_recall(ctx: Context) -> Outcome:
    """`history` recalls at least the last ten rounds, oldest first, each exactly as
    `result` reported it when the round ended (002 'Game history')."""
    if ctx.shared:
        raise NotTested(
            "the game is shared by several workers, whose rounds interleave in its history",
            needs="a run with one worker (-n 0)",
        )
    seats = [1, 2] if ctx.seats >= 2 else [1]
    aa = stake(ctx, "aa_bonus") if offers_aa_bonus(ctx) else 0
    stacked = Capability.INJECT in ctx.capabilities
    low, high = legal_range(ctx, "ante")
    results: list[Result] = []
    for n in range(RECALLED_ROUNDS):
        if stacked:  # every wager won and lost among the rounds; each round its own ante
            wagers = [seat_stakes(s, min(low + n, high), aa) for s in seats]
            dealt = open_round(ctx, wagers, recall_cards(n, seats))
        else:  # the game's own cards: a rewrite shows only where they make it differ
            dealt = open_round(ctx, [seat_stakes(s, stake(ctx), aa * (n % 2)) for s in seats])
        try:
            for s in seats:
                action = "call" if stacked or (n + s) % 3 else "fold"
                request_ok(ctx, "act", round=dealt.round, seat=s, action=action)
        except CheckFailure:
            finish_round(ctx, dealt.round, seats)
            raise
        results.append(result_of(ctx, dealt.round))
    rounds = recall(ctx, RECALLED_ROUNDS)
    if len(rounds) < RECALLED_ROUNDS:
        raise CheckFailure(
            f"history recalls {len(rounds)} of the last {RECALLED_ROUNDS} rounds",
            expected=[r.round for r in results],
            actual=[r.round for r in rounds],
        )
    recalled = rounds[-RECALLED_ROUNDS:]
    for n, (was, now) in enumerate(zip(results, recalled, strict=True)):
        if now == was:
            continue
        reported, kept = fields_of(was), fields_of(now)
        differing = [k for k in sorted({*reported, *kept}) if kept.get(k) != reported.get(k)]
        raise CheckFailure(
            f"history's round {n + 1} of the last {RECALLED_ROUNDS} (round "
            f"{was.round!r}) is not what result reported: it differs in "
            f"{', '.join(differing)}",
            expected={k: reported.get(k) for k in differing},
            actual={k: kept.get(k) for k in differing},
            evidence={"history": [fields_of(r) for r in recalled]},
        )
    how = "stacked: every wager both won and lost" if stacked else "the game's own cards"
    return Outcome(evidence={"rounds_recalled": RECALLED_ROUNDS, "rounds_dealt": how})


def repro_vector(
    ctx: Context, name: str, deal: Deal, plays: dict[int, SeatPlay], want: Settlement
) -> dict[str, object]:
    """A round a randomized check played as a vector file whose expected values are the
    oracle's (round_vector); the controller adds the clause and writes it."""
    return round_vector(
        f"repro-{name}-seed{ctx.seed}",
        f"{name} with --seed {ctx.seed}, as the game showed it",
        ctx.profile.clauses_from,
        deal,
        plays,
        want,
    )
