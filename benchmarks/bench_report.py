"""The report's performance target, measured: a big failing run's PDF, and `chcert --help`.

Run on demand (not a test), on a quiet machine:

    python benchmarks/bench_report.py [--results PATH] [--vectors N] [--failures N]
                                      [--runs N] [--out DIR] [--profile]

Targets: `harness.report.render` lays out the report of a run with 20,000 vectors and
100 failures in under 10 s (the median of --runs renders), and the PDF, results.json
attached, stays under 5 MB; `chcert --help` answers in under 0.5 s (best of 5, as a
subprocess). The exit status is 1 when a target is missed.

The run is synthetic but built from a real one: the results.json of a PASS run of
`chcert certify` (--results; by default a fresh `chcert certify --seed 7`, about 35 s),
scaled to --vectors vector items spread over the implementation clauses, and given
--failures failures of the variety a faulty game shows, each round dealt and settled by
the rules oracle and then paid as a mutant would: vectors settled wrongly (single and
multi-seat), the differential's and the generated corpus's findings, a failed RTP
simulation, checks with long messages and big evidence (a 200 KB stderr tail, a reply
of 400 decks), in 15 causes. Clause statuses, counts and verdicts agree
(`harness.report.verdict_problem` is None), the RNG table is there so the charts are
drawn, and the file is valid against specs/schemas/results.schema.json.

Measured: the wall time of `render` (best and median of --runs; results.json's bytes
are made beforehand, as certify does, and `json_bytes` is timed on its own), its peak
memory (tracemalloc, over one more render; and the process's peak RSS), the PDF's size
and pages (pypdf), the size of results.json. --profile prints where one render's time
goes (cProfile); --out keeps the PDF and the synthetic results.json.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import gc
import json
import pstats
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._schema import validator
from harness.cards import DECK_SIZE, Card, Rank
from harness.differential.attribution import disagreements
from harness.evaluator import Category, strength_of_distinct, top_rank_of
from harness.game import Action, Deal, Wager
from harness.oracle import SeatPlay, SeatSettlement, Settlement, settle
from harness.profiles import Profile, load_profile
from harness.report import render, verdict_problem
from harness.report.failures import group_failures
from harness.report.seal import embedded_results
from harness.results import json_bytes

TARGET_SECONDS = 10.0  # render, median of --runs
TARGET_BYTES = 5_000_000  # the PDF, results.json attached
TARGET_HELP_SECONDS = 0.5  # `chcert --help`, best of 5
HELP_RUNS = 5
STAKES = (100, 200, 500, 1_000, 5_000)
CORPUS_ANTE, CORPUS_AA = 50_000, 25_000  # the generated corpus stakes the table's limits
STDERR_BYTES = 200_000  # the crashed game's stderr tail, as an adapter could record it
REPLY_DECKS = 400  # decks of the malformed shuffle reply kept as evidence
ADAPTER = "subprocess:./casino-holdem-game --jsonl"
MB = 1_000_000

Slots = dict[str, list[Card]]  # a round's cards by slot: hole (seat 1), dealer, flop, turn, river


# ---------------------------------------------------------------------------------------
# Rounds dealt and settled by the oracle, then paid as a mutant would


@dataclass
class Round:
    name: str
    deal: Deal
    plays: dict[int, SeatPlay]
    want: Settlement
    result: dict[str, Any]  # the game's `result` reply, the fault applied


Matches = Callable[[Profile, Deal, Settlement, SeatSettlement], bool]
Mutate = Callable[[Profile, Deal, dict[str, Any], dict[str, Any]], None]


@dataclass
class Fault:
    """What a mutant gets wrong, and the clause its vectors belong to."""

    clause: str
    weight: int  # share of the vector failures
    matches: Matches  # the seats it settles wrongly
    mutate: Mutate  # how: on the game's seat and dealer, in place
    slots: Callable[[random.Random], Slots] | None = None  # cards a matching round needs
    action: Action = Action.CALL
    aa_bonus: bool = False  # every seat stakes the AA Bonus
    multi_seat: bool = False  # vectors of 1 to 4 seats
    corpus: bool = True  # also found by the generated corpus


def _pick(rng: random.Random, rank: int, used: set[int], suit: int | None = None) -> Card:
    suits = [suit] if suit is not None else rng.sample(range(4), 4)
    for s in suits:
        if 4 * rank + s not in used:
            used.add(4 * rank + s)
            return Card(4 * rank + s)
    raise ValueError("no card of that rank left")


def _deal(rng: random.Random, seats: int, slots: Slots | None) -> Deal:
    """A deal with `slots`' cards where they are given, the rest drawn at random."""
    slots = slots or {}
    used = {c.index for cards in slots.values() for c in cards}
    rest = [Card(i) for i in rng.sample([i for i in range(DECK_SIZE) if i not in used], 25)]

    def slot(name: str, size: int) -> list[Card]:
        given = list(slots.get(name, []))
        return given + [rest.pop() for _ in range(size - len(given))]

    hole = slot("hole", 2)
    holes = {1: (hole[0], hole[1])}
    for seat in range(2, seats + 1):
        holes[seat] = (rest.pop(), rest.pop())
    dealer, flop = slot("dealer", 2), slot("flop", 3)
    return Deal(
        holes,
        (dealer[0], dealer[1]),
        (flop[0], flop[1], flop[2]),
        *slot("turn", 1),
        *slot("river", 1),
    )


def _wager(stake: int, returned: int) -> dict[str, int]:
    return {"stake": stake, "returned": returned}


def game_result(name: str, deal: Deal, want: Settlement) -> dict[str, Any]:
    """The `result` reply of a game that settles as the rules do."""
    return {
        "round": name,
        "board": [str(c) for c in deal.board],
        "dealer": {
            "hole": [str(c) for c in deal.dealer],
            "hand": want.dealer_hand.wire,
            "qualifies": want.dealer_qualifies,
        },
        "seats": [
            {
                "seat": s.seat,
                "action": s.action.value,
                "hole": [str(c) for c in deal.seats[s.seat]],
                "hand": s.hand.wire if s.action is Action.CALL else None,
                "wagers": {
                    "ante": s.ante.to_json(),
                    "call": s.call.to_json(),
                    "aa_bonus": s.aa_bonus.to_json() if s.aa_bonus else _wager(0, 0),
                },
            }
            for s in want.seats
        ],
    }


def play(
    profile: Profile, rng: random.Random, fault: Fault, name: str, stakes: tuple[int, int] | None
) -> Round:
    """A round the fault shows in: dealt until one seat matches, the matching seats paid
    wrongly. `stakes` (ante, AA Bonus) fixes one seat's wagers (a shrunk or corpus round);
    without it the seats are 1 to 4 (multi-seat faults) with stakes drawn from STAKES."""
    for _ in range(200_000):
        seats = rng.choice((1, 1, 1, 2, 3, 4)) if fault.multi_seat and stakes is None else 1
        deal = _deal(rng, seats, fault.slots(rng) if fault.slots else None)
        plays = {}
        for seat in deal.seats:
            if stakes is not None:
                ante, aa = stakes[0], stakes[1] if fault.aa_bonus else 0
            else:
                ante = rng.choice(STAKES)
                aa = rng.choice(STAKES[:3] if fault.aa_bonus else (0, 0, *STAKES[:3]))
            plays[seat] = SeatPlay(seat, ante, aa, fault.action)
        want = settle(profile, deal, plays)
        matching = [s for s in want.seats if fault.matches(profile, deal, want, s)]
        if not matching:
            continue
        result = game_result(name, deal, want)
        for settled in matching:
            seat = next(s for s in result["seats"] if s["seat"] == settled.seat)
            fault.mutate(profile, deal, seat, result["dealer"])
        return Round(name, deal, plays, want, result)
    raise RuntimeError(f"no round found for the fault of {fault.clause}")


def _strength(deal: Deal, seat: int) -> int:
    return strength_of_distinct((*deal.seats[seat], *deal.board))


def _dealer_strength(deal: Deal) -> int:
    return strength_of_distinct((*deal.dealer, *deal.board))


def _aa_strength(deal: Deal, seat: int) -> int:
    return strength_of_distinct((*deal.seats[seat], *deal.flop))


def _wins(pair: Wager, odds: int) -> bool:
    return pair.returned == pair.stake * (1 + odds)


def _pays(wager: str, odds: int) -> Mutate:
    def mutate(p: Profile, d: Deal, seat: dict[str, Any], dealer: dict[str, Any]) -> None:
        stake = seat["wagers"][wager]["stake"]
        seat["wagers"][wager]["returned"] = stake * (1 + odds)

    return mutate


def _settles(**returned: float) -> Mutate:
    """Each named wager returned as that multiple of its stake."""

    def mutate(p: Profile, d: Deal, seat: dict[str, Any], dealer: dict[str, Any]) -> None:
        for wager, times in returned.items():
            seat["wagers"][wager]["returned"] = int(seat["wagers"][wager]["stake"] * times)

    return mutate


def _ante_win(hand: Category, odds: int) -> Matches:
    def matches(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
        return s.action is Action.CALL and s.hand is hand and _wins(s.ante, odds)

    return matches


def _aa_win(hand: Category, odds: int) -> Matches:
    def matches(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
        return (
            s.aa_bonus is not None
            and s.aa_hand is hand
            and s.hand is hand
            and _wins(s.aa_bonus, odds)
        )

    return matches


def _straight_flush(rng: random.Random) -> Slots:
    low, suit, used = rng.randrange(0, 8), rng.randrange(4), set[int]()
    run = [_pick(rng, low + i, used, suit) for i in rng.sample(range(5), 5)]
    return {"hole": run[:2], "flop": run[2:4], "turn": run[4:]}


def _hole_pair_and_flop(rng: random.Random, flop: int) -> Slots:
    rank, used = rng.randrange(13), set[int]()
    cards = [_pick(rng, rank, used) for _ in range(2 + flop)]
    return {"hole": cards[:2], "flop": cards[2:]}


def _wheel(rng: random.Random) -> Slots:
    used = set[int]()
    ace, two, three, four, five = (_pick(rng, r, used) for r in (12, 0, 1, 2, 3))
    return {"hole": [ace, two], "flop": [three, four], "turn": [five]}


def _board_straight(rng: random.Random) -> Slots:
    low, used = rng.randrange(0, 9), set[int]()
    board = [_pick(rng, low + i, used) for i in range(5)]
    rng.shuffle(board)
    return {"flop": board[:3], "turn": board[3:4], "river": board[4:]}


def _low_dealer_pair(rng: random.Random) -> Slots:
    rank, used = rng.choice((0, 1)), set[int]()
    return {"dealer": [_pick(rng, rank, used), _pick(rng, rank, used)]}


def _is_wheel(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
    cards = (*d.seats[s.seat], *d.board)
    return (
        s.hand is Category.STRAIGHT
        and top_rank_of(_strength(d, s.seat)) is Rank.FIVE
        and len({c.rank for c in cards}) == 7
        and w.dealer_qualifies
        and w.dealer_hand < Category.STRAIGHT
    )


def _as_high_card(p: Profile, d: Deal, seat: dict[str, Any], dealer: dict[str, Any]) -> None:
    seat["hand"] = "high_card"
    for wager in ("ante", "call"):
        seat["wagers"][wager]["returned"] = 0


def _tie(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
    return (
        s.action is Action.CALL
        and s.hand is Category.STRAIGHT
        and w.dealer_qualifies
        and _strength(d, s.seat) == _dealer_strength(d)
    )


def _nq_pair_call(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
    return s.action is Action.CALL and s.hand is Category.PAIR and not w.dealer_qualifies


def _beats_qualifier(hand: Category) -> Matches:
    def matches(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
        return (
            s.action is Action.CALL
            and s.hand is hand
            and w.dealer_qualifies
            and _strength(d, s.seat) > _dealer_strength(d)
        )

    return matches


def _loses_to_qualifier(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
    return (
        s.action is Action.CALL
        and s.hand is Category.PAIR
        and w.dealer_qualifies
        and _strength(d, s.seat) < _dealer_strength(d)
    )


def _low_pair_qualifies(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
    return (
        w.dealer_hand is Category.PAIR
        and not w.dealer_qualifies
        and s.action is Action.CALL
        and s.hand is Category.PAIR
        and _strength(d, s.seat) > _dealer_strength(d)
    )


def _qualifies_and_pays_call(
    p: Profile, d: Deal, seat: dict[str, Any], dealer: dict[str, Any]
) -> None:
    dealer["qualifies"] = True
    seat["wagers"]["call"]["returned"] = 2 * seat["wagers"]["call"]["stake"]


def _fold_aa_wins(p: Profile, d: Deal, w: Settlement, s: SeatSettlement) -> bool:
    assert p.aa_table is not None
    return s.action is Action.FOLD and p.aa_table.pays(_aa_strength(d, s.seat)) is not None


def _fold_pays_aa(p: Profile, d: Deal, seat: dict[str, Any], dealer: dict[str, Any]) -> None:
    assert p.aa_table is not None
    odds = p.aa_table.pays(_aa_strength(d, seat["seat"]))
    assert odds is not None
    seat["wagers"]["aa_bonus"]["returned"] = seat["wagers"]["aa_bonus"]["stake"] * (1 + odds)


def faults(profile: Profile) -> list[Fault]:
    """The mutants of the synthetic run: one cause each (15 with the three of checks)."""
    ante, aa = profile.ante_table.pays, profile.aa_table
    assert aa is not None
    trips_odds, quads_odds = aa.odds["three_of_a_kind"], aa.odds["four_of_a_kind"]
    return [
        Fault(  # flush paid 1 to 1
            "s000-antewin",
            16,
            _ante_win(Category.FLUSH, ante(Category.FLUSH)),
            _pays("ante", 1),
            multi_seat=True,
        ),
        Fault(  # full house paid 2 to 1
            "s000-antewin",
            11,
            _ante_win(Category.FULL_HOUSE, ante(Category.FULL_HOUSE)),
            _pays("ante", ante(Category.FULL_HOUSE) - 1),
            multi_seat=True,
        ),
        Fault(  # straight flush paid 10 to 1: too rare for the hand-worked vectors
            "s000-antewin",
            0,
            _ante_win(Category.STRAIGHT_FLUSH, ante(Category.STRAIGHT_FLUSH)),
            _pays("ante", ante(Category.STRAIGHT_FLUSH) // 2),
            slots=_straight_flush,
        ),
        Fault(  # a call against a non-qualifying dealer lost, not pushed
            "s000-r10", 13, _nq_pair_call, _settles(call=0), multi_seat=True
        ),
        Fault(  # a call that beats a qualifying dealer pushed, not paid
            "s000-r11", 9, _beats_qualifier(Category.STRAIGHT), _settles(call=1), multi_seat=True
        ),
        Fault(  # a tie with a qualifying dealer lost, not pushed
            "s000-r12", 6, _tie, _settles(ante=0, call=0), slots=_board_straight
        ),
        Fault(  # a hand the qualifying dealer beats pushed, not lost (the comparison)
            "s000-r8", 0, _loses_to_qualifier, _settles(ante=1, call=1)
        ),
        Fault(  # AA Bonus three of a kind paid 5 to 1
            "s000-sidebet-table",
            8,
            _aa_win(Category.THREE_OF_A_KIND, trips_odds),
            _pays("aa_bonus", trips_odds - 2),  # 5 to 1 on the standard table
            slots=lambda rng: _hole_pair_and_flop(rng, 1),
            aa_bonus=True,
            corpus=False,
        ),
        Fault(  # AA Bonus four of a kind paid 30 to 1
            "s000-sidebet-table",
            0,
            _aa_win(Category.FOUR_OF_A_KIND, quads_odds),
            _pays("aa_bonus", quads_odds - 10),  # 30 to 1 on the standard table
            slots=lambda rng: _hole_pair_and_flop(rng, 2),
            aa_bonus=True,
            corpus=False,
        ),
        Fault(  # the wheel A-2-3-4-5 read as ace high
            "s000-r7", 5, _is_wheel, _as_high_card, slots=_wheel, corpus=False
        ),
        Fault(  # the AA Bonus of a fold paid, not surrendered
            "s000-r5",
            4,
            _fold_aa_wins,
            _fold_pays_aa,
            slots=lambda rng: _hole_pair_and_flop(rng, 0) if rng.random() < 0.3 else _aces(rng),
            action=Action.FOLD,
            aa_bonus=True,
            corpus=False,
        ),
        Fault(  # a dealer's pair of twos or threes qualifies
            "s000-r9",
            5,
            _low_pair_qualifies,
            _qualifies_and_pays_call,
            slots=_low_dealer_pair,
            corpus=False,
        ),
    ]


def _aces(rng: random.Random) -> Slots:
    used = set[int]()
    return {"hole": [_pick(rng, 12, used), _pick(rng, 12, used)]}


# ---------------------------------------------------------------------------------------
# Failures, in the shapes results.json records


def _pair(w: dict[str, int] | None) -> list[int] | None:
    return None if w is None else [w["stake"], w["returned"]]


def settlement_views(r: Round) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    """(problems, expected, actual) as a settlement vector's check records them."""
    board = [str(c) for c in r.deal.board]
    dealer_want = {"hand": r.want.dealer_hand.wire, "qualifies": r.want.dealer_qualifies}
    dealer_got = {k: r.result["dealer"][k] for k in ("hand", "qualifies")}
    expected: dict[str, Any] = {"board": board, "dealer": dealer_want, "seats": {}}
    actual: dict[str, Any] = {"board": r.result["board"], "dealer": dealer_got, "seats": {}}
    problems = [
        f"dealer {k} {dealer_got[k]!r}, expected {dealer_want[k]!r}"
        for k in ("hand", "qualifies")
        if dealer_got[k] != dealer_want[k]
    ]
    for s, got in zip(r.want.seats, r.result["seats"], strict=True):
        want = {
            "action": s.action.value,
            "ante": [s.ante.stake, s.ante.returned],
            "call": [s.call.stake, s.call.returned],
            "aa_bonus": [s.aa_bonus.stake, s.aa_bonus.returned] if s.aa_bonus else None,
        }
        have = {
            "action": got["action"],
            "ante": _pair(got["wagers"]["ante"]),
            "call": _pair(got["wagers"]["call"]),
            "aa_bonus": _pair(got["wagers"]["aa_bonus"]),
        }
        if want["aa_bonus"] is None and have["aa_bonus"] == [0, 0]:
            have["aa_bonus"] = None
        if s.action is Action.CALL:
            want["hand"], have["hand"] = s.hand.wire, got["hand"]
        expected["seats"][str(s.seat)] = want
        actual["seats"][str(s.seat)] = have
        problems += [
            f"seat {s.seat} {k} {have.get(k)!r}, expected {v!r}"
            for k, v in want.items()
            if have.get(k) != v
        ]
    return problems, expected, actual


def _cards(r: Round) -> dict[str, Any]:
    return {
        "seats": {str(n): [str(c) for c in hole] for n, hole in r.deal.seats.items()},
        "dealer": [str(c) for c in r.deal.dealer],
        "flop": [str(c) for c in r.deal.flop],
        "turn": str(r.deal.turn),
        "river": str(r.deal.river),
    }


def _wagers(r: Round) -> list[dict[str, int]]:
    return [
        {"seat": p.seat, "ante": p.ante, **({"aa_bonus": p.aa_bonus} if p.aa_bonus else {})}
        for p in r.plays.values()
    ]


def _reproduce(item: str, *extra: str) -> str:
    return " ".join(
        [
            "chcert certify --adapter",
            repr(ADAPTER),
            "--profile standard --seed 7 --out out/reproduce",
            *extra,
            "--item",
            item,
        ]
    )


def _failure(clause: str, item: str, item_kind: str, node: str, **fields: Any) -> dict[str, Any]:
    return {
        "kind": "implementation",
        "clause": clause,
        "item": item,
        "item_kind": item_kind,
        "node": node,
        "expected": fields.get("expected"),
        "actual": fields.get("actual"),
        "message": fields["message"],
        "evidence": fields.get("evidence", {}),
        "reproduce": fields.get("reproduce", _reproduce(item)),
        "repro": fields.get("repro"),
    }


def vector_failure(clause: str, item: str, r: Round) -> dict[str, Any]:
    problems, expected, actual = settlement_views(r)
    return _failure(
        clause,
        item,
        "vector",
        f"vectors/generated/bench.yaml::{item}",
        expected=expected,
        actual=actual,
        message="; ".join(problems),
        evidence={
            "cards": _cards(r),
            "wagers": _wagers(r),
            "actions": {str(n): p.action.value for n, p in r.plays.items()},
        },
    )


def _slug(kind: str, detail: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", f"{kind} {detail}".lower()).strip("-")


def differential_failure(
    rng: random.Random, r: Round, clause: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A cause the differential found in one shard, shrunk to `r`; and its row of
    differential.causes."""
    d = disagreements(r.want, r.result)[0]
    slug, count, shard = _slug(d.kind, d.detail), rng.randrange(40, 2_000), rng.randrange(1, 5)
    item = f"{clause}/differential:{slug}"
    hole = " ".join(str(c) for c in r.deal.seats[d.seat])
    shown = (
        f"seat {d.seat} hole {hole}, dealer {' '.join(str(c) for c in r.deal.dealer)}, "
        f"board {' '.join(str(c) for c in r.deal.board)}"
    )
    repro = f"repro/repro-differential-{slug}-{r.name}-seed7.yaml"
    failure = _failure(
        clause,
        item,
        "differential",
        f"specs/clauses/s000.yaml::{item}",
        expected=d.expected,
        actual=d.actual,
        message=(
            f"{d.kind} ({d.detail}): {count} seat-hand(s) of shard {shard} settled otherwise "
            f"than the rules; shrunk to {r.name}: {shown}"
        ),
        evidence={
            "round": _cards(r),
            "wagers": _wagers(r),
            "actions": {str(n): p.action.value for n, p in r.plays.items()},
            "first_seen": f"shard{shard}-round{rng.randrange(1, 900)}",
            "shrink_rounds": rng.randrange(20, 200),
            "count": count * 4,
            "found_by": f"s000-r8/differential-{shard}",
        },
        reproduce=_reproduce(
            clause + f"/repro-differential-{slug}-{r.name}-seed7", "--vectors", repro
        ),
        repro=repro,
    )
    row = {"clause": clause, "kind": d.kind, "detail": d.detail, "count": count * 4, "item": item}
    return failure, row


def corpus_failure(
    rng: random.Random, r: Round, clause: str, found_by: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A cause the generated corpus found; its differential.causes row; its corpus.failing
    entry."""
    d = disagreements(r.want, r.result)[0]
    problems, expected, actual = settlement_views(r)
    slug, count, vector = _slug(d.kind, d.detail), rng.randrange(3, 200), rng.randrange(2_500)
    item = f"{clause}/corpus:{slug}"
    message = (
        f"{d.kind} ({d.detail}): {count} corpus vector(s) settled otherwise than the rules; "
        f"first gen-standard-{vector:05d}: {problems[0]}"
    )
    reproduce = _reproduce(found_by)
    failure = _failure(
        clause,
        item,
        "differential",
        f"vectors/generated/standard.json::{item}",
        expected=expected,
        actual=actual,
        message=message,
        evidence={
            "vector": f"gen-standard-{vector:05d}",
            "file": "vectors/generated/standard.json",
            "line": vector + 5,
            "count": count,
            "found_by": found_by,
        },
        reproduce=reproduce,
    )
    row = {"clause": clause, "kind": d.kind, "detail": d.detail, "count": count, "item": item}
    failing = {
        "vector": f"gen-standard-{vector:05d}",
        "message": message,
        "expected": expected,
        "actual": actual,
        "reproduce": reproduce,
    }
    return failure, row, failing


def stderr_text(rng: random.Random, size: int) -> str:
    """A crashing game's stderr: log lines, warnings, then tracebacks, to `size` characters."""
    lines, total, n = [], 0, 0
    while total < size:
        n += 1
        if n % 40 == 0:
            block = [
                "Traceback (most recent call last):",
                f'  File "/opt/game/engine/settle.py", line {rng.randrange(40, 900)}, in settle',
                f"    payout = table[hand.category] * wager.stake  # round r{rng.randrange(10**6)}",
                f'  File "/opt/game/engine/paytable.py", line {rng.randrange(10, 300)}, in lookup',
                "    return self._rows[key]",
                f"KeyError: <Category.{rng.choice(list(Category)).name}: {rng.randrange(10)}>",
            ]
        else:
            block = [
                f"{n:08d} DEBUG round r{rng.randrange(10**6)} seat {rng.randrange(1, 8)} "
                f"ante={rng.choice(STAKES)} call={2 * rng.choice(STAKES)} "
                f"hand={rng.choice(list(Category)).name.lower()} "
                f"latency={rng.random() * 3:.3f}ms rss={rng.randrange(30, 900)}MB"
            ]
        lines += block
        total += sum(len(line) + 1 for line in block)
    lines.append("Segmentation fault (core dumped)")
    return "\n".join(lines)[-size:]


def _deck(rng: random.Random) -> list[str]:
    return [str(Card(i)) for i in rng.sample(range(DECK_SIZE), DECK_SIZE)]


def check_failures(
    rng: random.Random, profile: Profile
) -> tuple[list[tuple[str, str, dict[str, Any]]], str]:
    """Failures of checks, as (clause, check, failure), and the crashed game's stderr: a
    malformed shuffle reply seen by two checks (long messages, 400 decks as evidence), a
    crash (a 200 KB stderr tail) and a failed RTP simulation (seven seats)."""
    found = []
    decks = [_deck(rng) for _ in range(REPLY_DECKS)]
    for check in ("deck-integrity", "dealt-cards-distinct"):
        bad = rng.randrange(REPLY_DECKS)
        deck = decks[bad]
        shown = [_deck(rng) for _ in range(8)]
        message = (
            f"deck {bad + 1:,} of {REPLY_DECKS:,} in the game's shuffle reply is not a "
            f"permutation of the 52 cards: {deck[3]!r} appears twice (positions 4 and "
            f"{rng.randrange(10, 52)}) and {deck[7]!r} is missing; the reply's last decks were "
            + "; ".join(" ".join(repr(c) for c in d) for d in shown)
        )
        failure = _failure(
            "s000-r1",
            f"s000-r1/{check}",
            "check",
            f"specs/clauses/s000.yaml::s000-r1/{check}",
            expected={"deck": "a permutation of the 52 cards"},
            actual={"deck": deck, "index": bad},
            message=message,
            evidence={
                "request": {"op": "shuffle", "count": REPLY_DECKS},
                "reply": {"decks": decks},
            },
        )
        found.append(("s000-r1", check, failure))
    stderr = stderr_text(rng, STDERR_BYTES)
    request = rng.randrange(10_000, 90_000)
    crash = _failure(
        "s000-r3",
        "s000-r3/information-hiding",
        "check",
        "specs/clauses/s000.yaml::s000-r3/information-hiding",
        message=(
            f"the game's process exited with status -11 (SIGSEGV) while answering request "
            f"{request:,} ('act' of round r{request // 3}, seat 2); the last lines of its "
            "stderr are in the evidence"
        ),
        evidence={
            "request": {"op": "act", "round": f"r{request // 3}", "seat": 2, "action": "call"},
            "exit_status": -11,
            "requests_answered": request - 1,
            "stderr_tail": stderr,
        },
    )
    found.append(("s000-r3", "information-hiding", crash))
    flush = faults(profile)[0]
    while True:  # seven seats, one of them the flush the mutant pays 1 to 1
        deal = _deal(rng, 7, None)
        plays = {n: SeatPlay(n, 100, 0, Action.CALL) for n in deal.seats}
        want = settle(profile, deal, plays)
        hit = [s for s in want.seats if flush.matches(profile, deal, want, s)]
        if hit:
            break
    name = f"r{rng.randrange(1_000, 9_999)}"
    result = game_result(name, deal, want)
    seat = hit[0]
    flush.mutate(profile, deal, result["seats"][seat.seat - 1], result["dealer"])
    got = result["seats"][seat.seat - 1]["wagers"]
    expected = [[seat.ante.stake, seat.ante.returned], [seat.call.stake, seat.call.returned]]
    actual = [_pair(got["ante"]), _pair(got["call"])]
    hole = [str(c) for c in deal.seats[seat.seat]]
    simulation = _failure(
        "s000-antewin",
        "s000-antewin/rtp-simulation",
        "check",
        "specs/clauses/s000.yaml::s000-antewin/rtp-simulation",
        expected=expected,
        actual=actual,
        message=(
            f"round {rng.randrange(1, 60)} (the game's round {name}) seat {seat.seat}, hole "
            f"{hole}, dealer {[str(c) for c in deal.dealer]}, board "
            f"{[str(c) for c in deal.board]}: settled {actual}, the rules give {expected}"
        ),
        evidence={
            "round": {
                "round": name,
                "seats": [{"seat": n, "hole": [str(c) for c in h]} for n, h in deal.seats.items()],
                "flop": [str(c) for c in deal.flop],
            },
            "result": result,
        },
    )
    found.append(("s000-antewin", "rtp-simulation", simulation))
    return found, stderr


# ---------------------------------------------------------------------------------------
# The synthetic results


def _gen_item(clause: str, n: int) -> dict[str, str]:
    return {
        "name": f"{clause}/gen-vector-{n}",
        "kind": "vector",
        "status": "pass",
        "message": "",
        "needs": "",
    }


def _failed_item(failure: dict[str, Any], kind: str) -> dict[str, str]:
    return {
        "name": failure["item"],
        "kind": kind,
        "status": "fail",
        "message": failure["message"],
        "needs": "",
    }


def _vector_failures(total: int, fs: list[Fault]) -> list[int]:
    """`total` vector failures shared out by the faults' weights."""
    weights = [f.weight for f in fs]
    counts = [total * w // sum(weights) for w in weights]
    for i in sorted(range(len(fs)), key=lambda i: -weights[i])[: total - sum(counts)]:
        counts[i] += 1
    return counts


def _rng_tables(results: dict[str, Any], rng: random.Random) -> None:
    """The RNG section's card x position table and per-position p-values, when the base
    run predates them: counts near decks / 52, p-values uniform."""
    section = results.setdefault("rng", {})
    decks = int(section.get("decks") or 20_000)
    section.setdefault("decks", decks)
    if not section.get("position_counts"):
        counts = [[0] * DECK_SIZE for _ in range(DECK_SIZE)]
        for position in range(DECK_SIZE):
            column = [decks / DECK_SIZE + rng.gauss(0, 5) for _ in range(DECK_SIZE)]
            for card, value in enumerate(column):
                counts[card][position] = max(0, round(value))
        section["position_counts"] = counts
    if not section.get("position_p_values"):
        section["position_p_values"] = [rng.random() for _ in range(DECK_SIZE)]


def synthetic_results(
    base: dict[str, Any], vectors: int, failures: int, seed: int = 7
) -> dict[str, Any]:
    """`base` (a PASS run) scaled to `vectors` vector items and given `failures` failures."""
    rng = random.Random(seed)
    profile = load_profile((base.get("profile") or {}).get("name") or "standard")
    results = copy.deepcopy(base)
    clauses = results["clauses"]
    by_id = {c["id"]: c for c in clauses}
    implementation = [c for c in clauses if c.get("kind", "implementation") == "implementation"]
    have = sum(i["kind"] == "vector" for c in clauses for i in c["items"])
    generated: dict[str, list[dict[str, str]]] = {c["id"]: [] for c in implementation}
    for n in range(max(0, vectors - have)):
        clause = implementation[n % len(implementation)]["id"]
        generated[clause].append(_gen_item(clause, len(generated[clause]) + 1))
    for clause_id, items in generated.items():
        by_id[clause_id]["items"].extend(items)

    corpus_items = [c["id"] for c in clauses if any(i["kind"] == "corpus" for i in c["items"])]
    corpus_items = corpus_items or ["s000-r10"]
    unfailed = {c: rng.sample(items, len(items)) for c, items in generated.items()}
    found: list[dict[str, Any]] = []
    causes: list[dict[str, Any]] = []
    failing: list[dict[str, Any]] = []
    checks, stderr = check_failures(rng, profile)
    fs = faults(profile)
    differential_items = sum(1 + f.corpus for f in fs)
    vector_total = failures - differential_items - len(checks)
    if vector_total < 0:
        sys.exit(f"--failures {failures}: at least {differential_items + len(checks)} needed")
    for fault, count in zip(fs, _vector_failures(vector_total, fs), strict=True):
        items = unfailed[fault.clause]
        if count > len(items):
            sys.exit(f"--vectors {vectors}: too few for {count} failures of {fault.clause}")
        for k in range(count):
            item = items.pop()
            r = play(profile, rng, fault, f"vector{k}", None)
            failure = vector_failure(fault.clause, item["name"], r)
            item.update(status="fail", message=failure["message"])
            found.append(failure)
        shrunk = play(profile, rng, fault, f"shard{rng.randrange(1, 5)}-round2", (100, 100))
        failure, row = differential_failure(rng, shrunk, fault.clause)
        by_id[fault.clause]["items"].append(_failed_item(failure, "differential"))
        found.append(failure)
        causes.append(row)
        if fault.corpus:
            r = play(profile, rng, fault, "corpus", (CORPUS_ANTE, CORPUS_AA))
            owner = fault.clause if fault.clause in corpus_items else rng.choice(corpus_items)
            failure, row, entry = corpus_failure(rng, r, fault.clause, f"{owner}/corpus")
            by_id[fault.clause]["items"].append(_failed_item(failure, "differential"))
            found.append(failure)
            causes.append(row)
            failing.append(entry)
    for clause_id, check, failure in checks:
        item = next(i for i in by_id[clause_id]["items"] if i["name"] == failure["item"])
        item.update(status="fail", message=failure["message"])
        for row in results["protocol"]["checks"]:
            if (row["clause"], row["name"]) == (clause_id, check):
                row.update(status="fail", message=failure["message"])
        found.append(failure)

    order = {c["id"]: n for n, c in enumerate(clauses)}
    results["failures"] = sorted(found, key=lambda f: order.get(f["clause"], len(order)))
    for c in clauses:
        items = c["items"]
        c["vectors"] = sum(i["kind"] == "vector" for i in items)
        c["checks"] = sum(i["kind"] == "check" for i in items)
        c["passed"] = sum(i["status"] == "pass" for i in items)
        c["failed"] = [i["name"] for i in items if i["status"] == "fail"]
        if c["failed"]:
            c["status"] = "fail"
    vector_items = [i for c in clauses for i in c["items"] if i["kind"] == "vector"]
    results["vectors"] = {
        "total": len(vector_items),
        **{
            key: sum(i["status"] == status for i in vector_items)
            for key, status in (
                ("passed", "pass"),
                ("failed", "fail"),
                ("errors", "error"),
                ("not_tested", "not_tested"),
            )
        },
    }
    differential = results["differential"]
    differential["status"] = "fail"
    differential["causes"] = causes
    differential["disagreeing_seat_hands"] = sum(
        row["count"] for row in causes if "/differential:" in row["item"]
    )
    corpus = results["corpus"]
    corpus["failed"] = sum(row["count"] for row in causes if "/corpus:" in row["item"])
    corpus["failing"] = failing
    results["implementation_stderr"] = stderr[-2_000:]
    results["implementation_verdict"] = "FAIL"
    results["verdict"] = "FAIL"
    _rng_tables(results, rng)
    return results


# ---------------------------------------------------------------------------------------
# Measuring


def base_results(path: str | None) -> dict[str, Any]:
    """The real run the synthetic one is built from: --results, or a fresh certify."""
    base: dict[str, Any]
    if path is not None:
        base = json.loads(Path(path).read_text())
    else:
        with tempfile.TemporaryDirectory(prefix="bench-report-ref-") as out:
            print("no --results: running chcert certify --seed 7 (about 35 s) ...", flush=True)
            proc = subprocess.run(
                [sys.executable, "-m", "harness.cli", "certify", "--seed", "7", "--out", out],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                sys.exit(
                    f"certify exited {proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
                )
            base = json.loads((Path(out) / "results.json").read_text())
    if base.get("verdict") != "PASS" or base.get("failures"):
        sys.exit(f"{path}: a PASS run is needed (failures are added), not {base.get('verdict')}")
    return base


def render_seconds(results: dict[str, Any], data: bytes, path: Path) -> float:
    gc.collect()
    started = time.perf_counter()
    render(results, path, data)
    return time.perf_counter() - started


def pdf_facts(path: Path, data: bytes) -> int:
    """The page count; exits when the full report was not drawn or lacks results.json."""
    from pypdf import PdfReader

    reader = PdfReader(path)
    first = " ".join(page.extract_text() or "" for page in reader.pages[:2])
    for plainer in ("could not be laid out", "could not be drawn"):
        if plainer in first:
            sys.exit(f"{path}: render fell back to a plainer report: {first[:600]}")
    if embedded_results(path) != data:
        sys.exit(f"{path}: results.json is not attached as given")
    return len(reader.pages)


def help_seconds(runs: int = HELP_RUNS) -> float:
    """Best wall time of `chcert --help` as a subprocess (the venv's script, else -m)."""
    script = shutil.which("chcert", path=str(Path(sys.executable).parent))
    command = [script, "--help"] if script else [sys.executable, "-m", "harness.cli", "--help"]
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return min(times)


def synthetic(args: argparse.Namespace) -> tuple[dict[str, Any], bytes]:
    """The synthetic run, checked, and its results.json bytes (json_bytes timed)."""
    base = base_results(args.results)
    started = time.perf_counter()
    results = synthetic_results(base, args.vectors, args.failures)
    built = time.perf_counter() - started
    problem = verdict_problem(results)
    assert problem is None, problem
    invalid = next(iter(validator("results.schema.json").iter_errors(results)), None)
    if invalid is not None:
        where = "/".join(str(p) for p in invalid.absolute_path)
        sys.exit(f"the synthetic results.json is not valid at {where}: {invalid.message}")
    started = time.perf_counter()
    data = json_bytes(results)
    encoded = time.perf_counter() - started
    v = results["vectors"]
    print(
        f"synthetic run (built in {built:.1f} s): {v['total']:,} vectors ({v['passed']:,} "
        f"passed, {v['failed']:,} failed) in {len(results['clauses'])} clauses, "
        f"{len(results['failures'])} failures in {len(group_failures(results['failures']))} "
        f"causes, verdict {results['verdict']}; results.json {len(data) / MB:.2f} MB "
        f"(json_bytes {encoded:.2f} s, before render as in certify)"
    )
    return results, data


def measure(args: argparse.Namespace, results: dict[str, Any], data: bytes, folder: Path) -> bool:
    """Time, weigh and count the report; print the table and the targets; True if met."""
    (folder / "results.json").write_bytes(data)
    pdf = folder / "report.pdf"
    times = [render_seconds(results, data, pdf) for _ in range(args.runs)]
    size, pages = pdf.stat().st_size, pdf_facts(pdf, data)
    tracemalloc.start()
    render(results, folder / "report-traced.pdf", data)
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    best, median = min(times), statistics.median(times)
    helped = help_seconds()
    rows = [
        (f"render, best of {args.runs}", f"{best:.2f} s"),
        (f"render, median of {args.runs}", f"{median:.2f} s"),
        (
            "render, peak memory",
            f"{traced / MB:.0f} MB traced (process peak RSS {rss / MB:.0f} MB)",
        ),
        ("report.pdf", f"{size / MB:.2f} MB, {pages} pages, results.json attached"),
        ("results.json", f"{len(data) / MB:.2f} MB"),
        (f"chcert --help, best of {HELP_RUNS}", f"{helped:.3f} s"),
    ]
    for label, value in rows:
        print(f"  {label:28} {value}")
    verdicts = [
        (median < TARGET_SECONDS, f"render {median:.2f} s (median) < {TARGET_SECONDS:.0f} s"),
        (size < TARGET_BYTES, f"report.pdf {size / MB:.2f} MB < {TARGET_BYTES / MB:.0f} MB"),
        (helped < TARGET_HELP_SECONDS, f"chcert --help {helped:.3f} s < {TARGET_HELP_SECONDS} s"),
    ]
    for met, what in verdicts:
        print(f"{what}: {'target met' if met else 'TARGET MISSED'}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        render(results, folder / "report-profiled.pdf", data)
        profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stdout).strip_dirs()
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(20)
    return all(met for met, _ in verdicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", help="a PASS run's results.json (default: run certify)")
    parser.add_argument("--vectors", type=int, default=20_000)
    parser.add_argument("--failures", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3, help="renders timed")
    parser.add_argument("--out", help="keep report.pdf and results.json in this folder")
    parser.add_argument("--profile", action="store_true", help="cProfile one more render")
    args = parser.parse_args()
    results, data = synthetic(args)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        met = measure(args, results, data, Path(args.out))
    else:
        with tempfile.TemporaryDirectory(prefix="bench-report-") as folder:
            met = measure(args, results, data, Path(folder))
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
