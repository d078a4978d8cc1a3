"""The batch settlement is the oracle's, seat by seat (harness/rules/batch.py).

The differential settles its rounds as arrays and judges by the oracle only a round a
game settles otherwise (docs/differential.md). That is sound only if the arrays are
the oracle's exactly, on every profile and every rule variation they read, and if a
round they take as agreed is one the decision table finds nothing in: both are proven
here, on rounds drawn as the differential draws them (its strata reach every hand and
every AA Bonus row), played by the reference and by mutants of it.
"""

from __future__ import annotations

import dataclasses
import random
from itertools import islice
from typing import Any

import msgspec
import numpy as np
import pytest

from harness.checks import simulation
from harness.checks.differential import agreed
from harness.checks.replies import Played
from harness.checks.simulation import seeded_deals
from harness.differential.attribution import expected_rounds, judge
from harness.differential.rounds import PlannedRound, Stakes, draw_rounds, seats_of
from harness.errors import InvalidBet, InvalidCards
from harness.gamemath import main_game
from harness.paths import SPECS_DIR
from harness.protocol.messages import read_dealt, read_result
from harness.reference.engine import ReferenceGame
from harness.reference.mutants import REGISTRY
from harness.rules.batch import Seats, settle_seats
from harness.rules.game import Action
from harness.rules.oracle import SeatPlay, settle, verify_wagers
from harness.rules.profiles import NonQualifyingAnte, Profile, load_profile
from harness.rules.table import REFERENCE_TABLE, Table

BUNDLED = sorted(p.stem for p in (SPECS_DIR / "profiles").glob("*.yaml"))


def _variations() -> list[Profile]:
    """Every bundled profile, and each rule the batch reads turned the other way."""
    found = [load_profile(name) for name in BUNDLED]
    standard = load_profile("standard")
    found += [
        dataclasses.replace(standard, name="forfeit", fold_forfeits_aa_bonus=False),
        dataclasses.replace(standard, name="no-aa", aa_table=None),
        dataclasses.replace(standard, name="call-3", call_multiple=3),
        dataclasses.replace(standard, name="twos", dealer_qualifier="pair_of_twos"),
        dataclasses.replace(standard, name="sixes", dealer_qualifier="pair_of_sixes"),
    ]
    for rule in NonQualifyingAnte:
        found.append(
            dataclasses.replace(standard, name=f"nq-{rule.value}", nonqualifying_ante=rule)
        )
    return found


PROFILES = _variations()


def _rounds(
    profile: Profile, seed: int, budget: int = 3_000, table: Table | None = None
) -> list[PlannedRound]:
    """Rounds as the differential draws them, their decisions at random, at the table's
    stakes (by default, from one minor unit to a million)."""
    ante, aa = (table.ante, table.aa_bonus) if table else ((1, 10**6), (1, 10**6))
    decide = np.random.default_rng(seed)
    drawn = draw_rounds(
        profile,
        seed=seed,
        shard=0,
        shards=1,
        budget=budget,
        seats=7,
        stakes=Stakes(ante, aa if profile.aa_table else None),
        calls_with=lambda holes, flops: decide.random(len(holes)) < 0.7,
    )
    return list(drawn)


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_every_seat_is_settled_as_the_oracle_settles_it(profile: Profile) -> None:
    rounds = _rounds(profile, seed=len(profile.name))
    seats, distinct = seats_of(rounds)
    got = settle_seats(profile, seats)
    assert all(distinct) and got.legal.all()
    row = 0
    for r, rnd in enumerate(rounds):
        want = settle(profile, rnd.deal(), rnd.plays())
        assert (got.dealer_hand[r], got.dealer_qualifies[r]) == (
            want.dealer_hand,
            want.dealer_qualifies,
        )
        for seat in want.seats:
            aa = seat.aa_bonus.returned if seat.aa_bonus else 0
            assert (
                got.hand[row],
                got.ante_returned[row],
                got.call_stake[row],
                got.call_returned[row],
                got.aa_returned[row],
            ) == (seat.hand, seat.ante.returned, seat.call.stake, seat.call.returned, aa), (
                profile.name,
                rnd.name,
                seat.seat,
            )
            row += 1
    hands = {int(h) for h in got.hand}
    assert len(hands) == 10, "the strata reach every category, royal flush included"


@pytest.mark.parametrize("cap", [None, 2])
@pytest.mark.parametrize("profile", ["standard", "source-000"])
def test_a_seat_is_legal_exactly_when_the_oracle_takes_its_wagers(
    profile: str, cap: int | None
) -> None:
    rules = load_profile(profile)
    table = Table((50, 500), (20, 300) if rules.aa_table else None, cap)
    amounts = [-5, 0, 1, 19, 20, 49, 50, 51, 100, 300, 301, 500, 501, 10**6]
    pairs = [(a, b) for a in amounts for b in amounts]
    n = len(pairs)
    seats = Seats(
        seven=np.tile(np.arange(7, dtype=np.uint8), (n, 1)),
        five=np.tile(np.arange(5, dtype=np.uint8), (n, 1)),
        dealer_row=np.zeros(n, np.intp),
        ante=np.array([a for a, _ in pairs], np.int64),
        aa_bonus=np.array([b for _, b in pairs], np.int64),
        called=np.ones(n, np.bool_),
        dealers=np.arange(7, 14, dtype=np.uint8).reshape(1, 7),
    )
    for with_table in (None, table):
        legal = settle_seats(rules, seats, with_table).legal
        for (ante, aa), ok in zip(pairs, legal, strict=True):
            try:
                verify_wagers(rules, SeatPlay(1, ante, aa, Action.CALL), with_table)
                taken = True
            except InvalidBet:
                taken = False
            assert bool(ok) == taken, (ante, aa, with_table)


# ------------------------------------------------------- agreement is judge's silence


def _json(body: dict[str, Any]) -> dict[str, Any]:
    value = msgspec.json.decode(msgspec.json.encode(body))
    assert isinstance(value, dict)
    return value


def _played(game: ReferenceGame, rnd: PlannedRound) -> tuple[dict[str, Any], dict[str, Any]]:
    """The round and result bodies the game answers for a planned round, as JSON."""
    dealt = _json(game.round(seats=rnd.wagers(), cards=rnd.cards()))
    for s in rnd.seats:
        game.act(round=dealt["round"], seat=s.seat, action=s.action.value)
    return dealt, _json(game.result(round=dealt["round"]))


def _changed(result: dict[str, Any], pick: random.Random) -> dict[str, Any]:
    """The result with one thing the decision table reads changed."""
    body: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(result))
    seat = pick.choice(body["seats"])
    change = pick.randrange(10)
    if change == 0:
        wager = seat["wagers"][pick.choice(["ante", "call", "aa_bonus"])]
        wager[pick.choice(["stake", "returned"])] += pick.choice([-1, 1])
    elif change == 1:
        seat["hand"] = pick.choice(["pair", "flush", "high_card", None])
    elif change == 2:
        body["dealer"]["qualifies"] = not body["dealer"]["qualifies"]
    elif change == 3:
        body["dealer"]["hand"] = pick.choice(["pair", "two_pair", "high_card"])
    elif change == 4:
        body["seats"].remove(seat)
    elif change == 5:
        body["seats"].append({**seat, "seat": 8})
    elif change == 6:
        body["board"][pick.randrange(5)] = "2c"
    elif change == 7:
        body["dealer"]["hole"] = list(reversed(body["dealer"]["hole"]))
    elif change == 8:
        seat["action"] = "fold" if seat["action"] == "call" else "call"
    else:  # the seat twice: a wrong entry first, the right one last
        wrong = msgspec.json.decode(msgspec.json.encode(seat))
        wrong["wagers"]["ante"]["returned"] += 1
        body["seats"].insert(0, wrong)
    return body


def _games() -> list[tuple[str, ReferenceGame]]:
    found = [("reference", ReferenceGame("standard"))]
    for name, m in sorted(REGISTRY.items()):
        if m.family.value in ("settlement", "paytables", "aabonus", "evaluation"):
            found.append((name, m.cls(m.profile)))
    return found


@pytest.mark.parametrize("name,game", _games(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_round_is_agreed_exactly_when_the_decision_table_finds_nothing(
    name: str, game: ReferenceGame
) -> None:
    profile = game.profile
    rounds = _rounds(profile, seed=11, budget=700, table=REFERENCE_TABLE)
    expected = expected_rounds(profile, rounds, seats_of(rounds), REFERENCE_TABLE)
    pick = random.Random(name)
    agreed_rounds = judged = 0
    for rnd, want in zip(rounds, expected, strict=True):
        dealt, result = _played(game, rnd)
        for body in (result, _changed(result, pick)):
            try:
                reported = read_result(body)
            except (msgspec.ValidationError, ValueError):
                continue  # a change the schema refuses never reaches the table
            shown = read_dealt(dealt)
            played = Played(shown, reported)
            found = judge(settle(profile, rnd.deal(), rnd.plays()), rnd.cards(), shown, reported)
            assert agreed(want, rnd.cards(), played) == (found == []), (name, rnd.name, body)
            agreed_rounds += found == []
            judged += 1
    assert agreed_rounds < judged  # the changed results are not all agreed
    if name == "reference":  # and the reference's own are
        assert agreed_rounds >= len(rounds)


def test_a_round_whose_cards_are_not_distinct_is_left_to_the_oracle() -> None:
    """Such a round is the oracle's to refuse (InvalidCards), never the batch's to settle."""
    profile = load_profile("standard")
    rounds = _rounds(profile, seed=3, budget=300)[:40]
    twice = []
    for n, rnd in enumerate(rounds):
        last = rnd.seats[-1]
        if n % 3 == 0:
            twice.append(msgspec.structs.replace(rnd, dealer=(last.hole[0], rnd.dealer[1])))
        elif n % 3 == 1:
            twice.append(msgspec.structs.replace(rnd, river=rnd.flop[0]))
        elif len(rnd.seats) > 1:
            first = msgspec.structs.replace(rnd.seats[0], hole=(rnd.seats[0].hole[0], last.hole[1]))
            twice.append(msgspec.structs.replace(rnd, seats=(first, *rnd.seats[1:])))
    mixed = [r for pair in zip(rounds, twice, strict=False) for r in pair]
    _, distinct = seats_of(mixed)
    for rnd, ok in zip(mixed, distinct, strict=True):
        try:
            rnd.deal().verify()
            valid = True
        except InvalidCards:
            valid = False
        assert ok == valid, rnd.name
    assert distinct.count(False) == len(twice) > 20
    expected = expected_rounds(profile, mixed, seats_of(mixed), None)
    assert [e is not None for e in expected] == distinct


def test_a_seat_reported_twice_is_the_result_s_shape_whatever_its_last_entry() -> None:
    profile = load_profile("standard")
    rnd = _rounds(profile, seed=5, budget=60, table=REFERENCE_TABLE)[-1]
    dealt, result = _played(ReferenceGame("standard"), rnd)
    first = msgspec.json.decode(msgspec.json.encode(result["seats"][0]))
    first["wagers"]["ante"]["returned"] += 1
    twice = {**result, "seats": [first, *result["seats"]]}
    shown, reported = read_dealt(dealt), read_result(twice)
    found = judge(settle(profile, rnd.deal(), rnd.plays()), rnd.cards(), shown, reported)
    assert [(d.kind, d.detail) for d in found] == [("result-shape", "a seat reported twice")]
    (want,) = expected_rounds(profile, [rnd], seats_of([rnd]), REFERENCE_TABLE)
    assert not agreed(want, rnd.cards(), Played(shown, reported))
    assert agreed(want, rnd.cards(), Played(shown, read_result(result)))


def test_a_round_whose_seats_are_numbered_otherwise_is_left_to_the_oracle() -> None:
    profile = load_profile("standard")
    rnd = next(r for r in _rounds(profile, seed=3, budget=300) if len(r.seats) > 1)
    outside = msgspec.structs.replace(
        rnd, seats=(*rnd.seats[:-1], msgspec.structs.replace(rnd.seats[-1], seat=8))
    )
    twice = msgspec.structs.replace(
        rnd, seats=(*rnd.seats[:-1], msgspec.structs.replace(rnd.seats[-1], seat=1))
    )
    rounds = [rnd, outside, twice]
    expected = expected_rounds(profile, rounds, seats_of(rounds), None)
    assert [e is not None for e in expected] == [True, False, False]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_the_rtp_simulation_s_rounds_return_what_the_oracle_pays(profile: Profile) -> None:
    """The RTP simulation takes the return of a round the game settled as agreed from the
    batch settlement (harness/checks/simulation.py): it is the oracle's money, and each
    seat decides as the strategy's scalar look-up says."""
    strategy = main_game(load_profile("standard")).strategy  # any strategy decides
    seats = [1, 2, 3, 4, 5, 6, 7]
    deals = [deal for deal, _ in islice(seeded_deals(len(profile.name), "rtp", seats), 400)]
    ante = 250
    planned = simulation._planned(profile, REFERENCE_TABLE, strategy, deals, ante)
    for deal, (plays, expected) in zip(deals, planned, strict=True):
        for seat, play in plays.items():
            calls = strategy.calls_with(deal.seats[seat], deal.flop)
            assert play == SeatPlay(seat, ante, 0, Action.CALL if calls else Action.FOLD)
        assert expected is not None
        want = settle(profile, deal, plays, REFERENCE_TABLE)
        assert simulation._money(expected) == simulation._won(want), profile.name
