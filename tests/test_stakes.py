"""The stakes a check plays, and a reply a round cannot be judged on.

Every amount of a round a check plays fits in 2^53 - 1, the largest integer a double keeps
exact (`payable` in harness/rules/table.py; docs/differential.md, "Stakes"); stakes are drawn
as players bet; a vector written at any stakes is fitted at once; and a malformed
`result` costs its round, never the check (docs/differential.md, "A malformed reply").
"""

from __future__ import annotations

import dataclasses
import shlex
import signal
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.adapters.base import check_body
from harness.checks import MERGES, REGISTRY, Context
from harness.checks.registry import NotTested
from harness.checks.replies import Malformed, playable_table, returns_of
from harness.checks.settlement import malformed_disagreements, replay_vector
from harness.defaults import available_profiles
from harness.differential.rounds import LOW_END, _stake, _stakes, draw_rounds
from harness.differential.rounds import Stakes as PlanStakes
from harness.errors import ProtocolViolation
from harness.protocol import serve_request
from harness.protocol.declaration import Declaration
from harness.protocol.messages import Misstated
from harness.reference import ReferenceGame
from harness.results.model import (
    DifferentialSection,
    DifferentialShare,
    ItemKind,
    PlannedItem,
    Record,
    Shares,
    SimulationShare,
)
from harness.results.outcomes import Status
from harness.rules.cards import parse_cards
from harness.rules.catalogs import applicable, fault_owners, load_catalogs
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, settle
from harness.rules.profiles import load_profile
from harness.rules.table import MAX_AMOUNT, REFERENCE_TABLE, Table, fit, payable
from harness.run.settings import SETTINGS, RunSettings
from harness.run.worker import ItemDeadline, cpu_deadline, item_cpu_seconds
from harness.vectors.settlement import load_all_vectors
from tests.runs import QUICK_SAMPLES, certify

FIXTURES = Path(__file__).parent / "fixtures"
BOUNDLESS = Table(ante=(1, MAX_AMOUNT), aa_bonus=(1, MAX_AMOUNT))


# ------------------------------------------------------------------ payable stakes


@pytest.mark.parametrize("name", available_profiles())
@pytest.mark.parametrize(
    "declared",
    [
        BOUNDLESS,
        Table(ante=(1, MAX_AMOUNT), aa_bonus=(1, 25_000)),
        Table(ante=(100, 50_000), aa_bonus=(1, MAX_AMOUNT)),
        Table(ante=(1, MAX_AMOUNT), aa_bonus=None),
        Table(ante=(1, MAX_AMOUNT), aa_bonus=(1, MAX_AMOUNT), aa_bonus_max_ante_multiple=1),
    ],
)
def test_the_richest_round_at_the_payable_maxima_fits_in_2_53(name: str, declared: Table) -> None:
    """A royal flush on the flop beating a qualifying dealer pays the largest ante odds,
    the call and the largest AA Bonus row at once: at the most the table pays, every
    amount of the round, and their sum, is an integer no larger than 2^53 - 1."""
    profile = load_profile(name)
    table = payable(declared, returns_of(profile))
    assert table is not None and table.ante[0] == declared.ante[0]
    ante = table.ante[1]
    aa = table.aa_range(ante)[1] if table.aa_range(ante) and profile.aa_table else 0
    deal = Deal(
        {1: tuple(parse_cards("As Ks"))},  # type: ignore[dict-item]
        tuple(parse_cards("4c 4d")),  # type: ignore[arg-type]
        tuple(parse_cards("Qs Js Ts")),  # type: ignore[arg-type]
        *parse_cards("2h 3d"),
    )
    want = settle(profile, deal, {1: SeatPlay(1, ante, aa, Action.CALL)}, declared)
    seat = want.seats[0]
    amounts = [seat.ante.stake, seat.ante.returned, seat.call.stake, seat.call.returned]
    if seat.aa_bonus is not None:
        amounts += [seat.aa_bonus.stake, seat.aa_bonus.returned]
    richest = max([1, *profile.ante_table.odds.values()])
    assert seat.ante.returned == seat.ante.stake * (1 + richest)  # the royal flush row
    assert sum(amounts) <= MAX_AMOUNT
    if table != declared:  # brought down, yet not far: more than half the room is used
        assert sum(amounts) > MAX_AMOUNT // 2


def test_a_table_that_pays_inside_2_53_is_played_as_declared() -> None:
    standard = load_profile("standard")
    assert payable(REFERENCE_TABLE, returns_of(standard)) == REFERENCE_TABLE


def test_a_minimum_ante_no_round_can_pay_is_not_tested() -> None:
    standard = load_profile("standard")
    huge = Table(ante=(MAX_AMOUNT // 2, MAX_AMOUNT), aa_bonus=(1, 5))
    assert payable(huge, returns_of(standard)) is None
    with pytest.raises(NotTested, match="2\\^53 - 1"):
        playable_table(_context(_InProcess(_AtTable(huge))))


def test_every_check_stakes_inside_the_payable_table() -> None:
    """The one bound: what the checks ask (legal_range, the differential's stakes, the
    vectors' fitted stakes) is inside `payable` of the declared table."""
    ctx = _context(_InProcess(_AtTable(BOUNDLESS)))
    played = playable_table(ctx)
    assert played.ante[1] < MAX_AMOUNT // 100 and played.aa_bonus is not None
    assert played == payable(BOUNDLESS, returns_of(ctx.profile))


# ------------------------------------------------------------------ drawn as players bet


@pytest.mark.parametrize("together", [False, True], ids=["one-by-one", "together"])
def test_stakes_are_drawn_as_players_bet(together: bool) -> None:
    """Most at the low end of the table, some at the most it pays, a few anywhere: at a
    table of 1 to 4 x 10^13, seven in ten at most ten times the minimum; one stake at a
    time (a stratified round's) or many at once (the uniform rounds'), alike."""
    rng = np.random.default_rng(7)
    bounds = (1, 40_000_000_000_000)
    if together:
        drawn = _stakes(rng, bounds, (200, 100)).ravel().tolist()
    else:
        drawn = [_stake(rng, bounds) for _ in range(20_000)]
    assert all(bounds[0] <= s <= bounds[1] for s in drawn)
    odd = [s for s in drawn if s not in bounds and s > LOW_END * bounds[0]]
    assert odd and all(s % 2 for s in odd)
    low = sum(s <= LOW_END * bounds[0] for s in drawn) / len(drawn)
    top = sum(s == bounds[1] for s in drawn) / len(drawn)
    middle = [s for s in drawn if LOW_END * bounds[0] < s < bounds[1]]
    assert 0.70 <= low <= 0.80 and 0.12 <= top <= 0.18
    # "wide": every order of magnitude between alike, not the top one nine times in ten
    magnitudes = {len(str(s)) for s in middle}
    assert len(magnitudes) >= 12


def test_the_same_seed_deals_the_same_stakes() -> None:
    profile = load_profile("standard")
    stakes = PlanStakes(ante=(1, 40_000_000_000_000), aa_bonus=(1, 40_000_000_000_000))

    def plan() -> list[tuple[int, int]]:
        shard = draw_rounds(
            profile, seed=11, shard=1, shards=4, budget=400, seats=7, stakes=stakes,
            calls_with=lambda holes, flops: np.ones(len(holes), np.bool_),
        )  # fmt: skip
        return [(s.ante, s.aa_bonus) for r in shard for s in r.seats]

    first = plan()
    assert first == plan()
    assert all(ante <= stakes.ante[1] and aa <= stakes.ante[1] for ante, aa in first)


# ------------------------------------------------------------------ vectors at any stakes


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "written",
    [[(10**30, 0)], [(10**30, 10**30)], [(10**16, 0)], [(10**30 + 7, 10**29)], [(2**89 - 1, 0)]],
)
def test_a_vector_at_any_stakes_is_fitted_at_once(written: list[tuple[int, int]]) -> None:
    """No trial division up to the square root of a stake: 10^30 is divided exactly when
    a common factor brings every stake inside, and restaked otherwise."""
    standard = load_profile("standard")
    table = payable(BOUNDLESS, returns_of(standard))
    assert table is not None
    fitted = fit(table, written)
    assert fitted is not None
    assert all(table.refuses(ante, aa) is None for ante, aa in fitted.stakes)
    if fitted.how.startswith("/"):  # divided exactly: the same round at other stakes
        d = int(fitted.how[1:])
        assert [(a * d, b * d) for a, b in fitted.stakes] == written
    else:
        assert fitted.how == "restaked"


# ------------------------------------------------------------------ a malformed reply


class _AtTable(ReferenceGame):
    """The reference game at a table of the test's choosing."""

    def __init__(self, table: Table) -> None:
        super().__init__(table=table)


class _Halves(ReferenceGame):
    """The reference game whose ante, won at an odd ante, comes back with half a unit
    more (a JSON number with a fraction reads as a Decimal): malformed, in step."""

    def result(self, round: Any) -> dict[str, Any]:
        reply = super().result(round)
        for seat in reply["seats"]:
            ante = seat["wagers"]["ante"]
            if ante["returned"] > ante["stake"] and ante["stake"] % 2 == 1:
                ante["returned"] = Decimal(ante["returned"]) + Decimal("0.5")
        return reply


class _InProcess:
    """A game answered in this process, pipelined as the subprocess adapter pipelines: a
    malformed reply is raised once the batch's other replies are read (in step)."""

    spec = "in-process"

    def __init__(self, game: ReferenceGame) -> None:
        self.game = game

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        request = {"id": 1, "op": op, **params}
        return check_body(request, serve_request(self.game, request), {})

    def exchange(self, requests: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        answers: list[Any] = []
        wrong = None
        for op, params in requests:
            try:
                answers.append(self.request(op, **params))
            except ProtocolViolation as exc:
                wrong = wrong or exc
                answers.append(None)
            except Exception as exc:  # ErrorReply: returned, not raised
                answers.append(exc)
        if wrong is not None:
            raise wrong
        return answers

    def close(self) -> None:
        pass


def _context(adapter: _InProcess, profile: str = "standard") -> Context:
    hello = adapter.request("hello")
    loaded = load_profile(profile)
    clauses = list(applicable(load_catalogs(), loaded).clauses)
    return Context(
        adapter,  # type: ignore[arg-type]
        Declaration(hello),
        loaded,
        seed=7,
        differential=800,
        shard=(0, 4),
        clause="s000-r8",
        fault_owners=fault_owners(clauses),
    )


def test_a_malformed_result_costs_its_round_not_the_shard() -> None:
    """A result with an amount that is not an integer, every other reply in step: the
    shard goes on and compares every other round, and the malformed rounds fail the
    clause of the wager whose amount was malformed (the ante's pay: s000-antewin), never
    the clause of the item that met them (s000-r8)."""
    ctx = _context(_InProcess(_Halves()))
    outcome = REGISTRY.run("differential", ctx)
    share = outcome.share
    assert isinstance(share, DifferentialShare)
    causes = {(f.clause, f.kind, f.detail) for f in outcome.findings}
    assert causes == {("s000-antewin", "ante-odds", "ante returned not an integer")}
    malformed = next(f for f in outcome.findings)
    assert 0 < malformed.count < 200
    assert share.seat_hands == 200 - malformed.count  # every other seat-hand compared
    assert share.uncompared_seat_hands == malformed.count
    assert str(malformed.actual["ante"][1]).endswith(".5")


class _Overflows(ReferenceGame):
    """The reference game paying a call it lost at an odd ante (any ante, with `every`)
    MAX_AMOUNT + 1: an integer no double keeps exact."""

    every = False

    def result(self, round: Any) -> dict[str, Any]:
        reply = super().result(round)
        for seat in reply["seats"]:
            call = seat["wagers"]["call"]
            odd = seat["wagers"]["ante"]["stake"] % 2
            if call["returned"] > call["stake"] > 0 and (odd or self.every):
                call["returned"] = MAX_AMOUNT + 1
        return reply


def test_an_amount_beyond_2_53_is_malformed_too() -> None:
    """An integer no double keeps exact, where every amount of the round fits: the game's
    money arithmetic, the wager's clause (here the call's pay: s000-r11)."""
    ctx = _context(_InProcess(_Overflows()))
    outcome = REGISTRY.run("differential", ctx)
    causes = {(f.clause, f.kind, f.detail) for f in outcome.findings}
    assert causes == {("s000-r11", "call-odds", "call returned outside 0 .. 2^53 - 1")}
    assert isinstance(outcome.share, DifferentialShare)
    assert outcome.share.seat_hands == 200 - outcome.findings[0].count


def test_a_vector_with_a_malformed_result_fails_the_clause_of_the_wager() -> None:
    """A hand-worked vector of the call's clause (s000-r11) whose ante comes back with a
    fraction: the ante's pay (s000-antewin) fails, with the vector as its example, and
    the vector's own clause is judged to have nothing of its own wrong."""

    class AllHalves(ReferenceGame):
        def result(self, round: Any) -> dict[str, Any]:
            reply = super().result(round)
            for seat in reply["seats"]:
                ante = seat["wagers"]["ante"]
                if ante["returned"] > 2 * ante["stake"]:
                    ante["returned"] = Decimal(ante["returned"]) + Decimal("0.5")
            return reply

    ctx = dataclasses.replace(_context(_InProcess(AllHalves())), clause="s000-r11")
    clauses = {c.id: c for catalog in load_catalogs() for c in catalog.clauses}
    vector = next(v for v in load_all_vectors(clauses) if v.id == "q-full-house")
    outcome = replay_vector(ctx, vector)
    found = [(f.clause, f.kind, f.detail) for f in outcome.findings]
    assert found == [("s000-antewin", "ante-odds", "ante returned not an integer")]
    assert "not protocol v1" in outcome.findings[0].message


def test_the_rtp_simulation_judges_a_malformed_round_and_goes_on() -> None:
    """In the RTP simulation too: the round has no return and fails the call's clause,
    and the rounds after it are played and counted."""
    game = _Overflows()
    game.every = True
    ctx = dataclasses.replace(_context(_InProcess(game)), rtp_rounds=60, clause="s000-antewin")
    outcome = REGISTRY.run("rtp-simulation", ctx)
    causes = {(f.clause, f.kind, f.detail) for f in outcome.findings}
    assert causes == {("s000-r11", "call-odds", "call returned outside 0 .. 2^53 - 1")}
    assert isinstance(outcome.share, SimulationShare)
    assert 0 < outcome.share.section.rounds < 60  # the malformed rounds have no return


def test_a_correct_game_at_a_boundless_table_passes_the_differential() -> None:
    ctx = _context(_InProcess(_AtTable(BOUNDLESS)))
    outcome = REGISTRY.run("differential", ctx)
    assert isinstance(outcome.share, DifferentialShare)
    assert outcome.findings == [] and outcome.share.seat_hands == 200
    assert outcome.share.strata["stake:ante-max"] > 0


# ------------------------------------------------------------------ a web game's doubles


def _doubles(*options: str) -> str:
    return "subprocess:" + shlex.join([sys.executable, str(FIXTURES / "doubles_game.py"), *options])


@pytest.mark.slow
def test_a_game_in_doubles_at_a_boundless_table_fails_only_its_fold_fault(tmp_path: Path) -> None:
    """Limits 1..2^53 - 1 and money in doubles: every round staked to fit, the
    differential compares its whole budget, and the one clause failed is the fold's
    (the AA Bonus it pays after a fold), never the host clause of the differential."""
    args = ["--adapter", _doubles(), "--profile", "standard", "--differential", "10000"]
    quick = ["--rtp-rounds", "200", *QUICK_SAMPLES, "-k", "not rng-battery"]
    code, results = certify(tmp_path, *args, *quick)
    failed = {c["id"] for c in results["clauses"] if c["status"] == "fail"}
    assert code == 1 and failed == {"s000-r5"}
    section = results["differential"]
    assert section["seat_hands"] == 10_000 and section["shards_run"] == 4
    assert {c["kind"] for c in section["causes"]} == {"fold-aa-bonus"}
    errors = [i["name"] for c in results["clauses"] for i in c["items"] if i["status"] == "error"]
    assert errors == []


@pytest.mark.slow
def test_a_malformed_amount_from_a_game_over_json_lines_costs_its_round(tmp_path: Path) -> None:
    # Shard 1 of 4,000: 1,000 seat-hands, among them a fold whose AA Bonus the game pays.
    args = ["--adapter", _doubles("--halves"), "--profile", "standard", "--differential", "4000"]
    code, results = certify(tmp_path, *args, *QUICK_SAMPLES, "--item", "s000-r8/differential-1")
    assert code in (1, 2)  # FAIL, or INCOMPLETE when the selection outweighs it
    section = results["differential"]
    kinds = {(c["clause"], c["kind"]) for c in section["causes"]}
    assert kinds == {("s000-antewin", "ante-odds"), ("s000-r5", "fold-aa-bonus")}
    malformed = next(c for c in section["causes"] if c["kind"] == "ante-odds")
    assert section["seat_hands"] == 1_000 - malformed["count"] > 0
    shard = next(
        i for c in results["clauses"] for i in c["items"] if i["name"] == "s000-r8/differential-1"
    )
    assert shard["status"] == "pass"


def test_a_shard_s_share_merges_into_its_section() -> None:
    """A shard's typed share is what the merge registered with the check sums
    (harness/checks/registry.py `section`): two shards, twice the seat-hands."""
    ctx = dataclasses.replace(_context(_InProcess(ReferenceGame())), differential=40)
    share = REGISTRY.run("differential", ctx).share
    assert isinstance(share, DifferentialShare) and share.seat_hands > 0
    records = [
        Record(node=f"x::s000-r8/differential-{n}", clause="s000-r8", kind=ItemKind.CHECK,
               name=f"differential-{n}", status=Status.PASS, share=share)
        for n in (1, 2)
    ]  # fmt: skip
    planned = [PlannedItem(r.item, "s000-r8", ItemKind.CHECK, r.name) for r in records]
    section = MERGES["differential"](Shares(records, planned, [], ctx.profile))
    assert isinstance(section, DifferentialSection) and section.status is Status.PASS
    assert section.seat_hands == 2 * share.seat_hands and section.shards_run == 2


# ------------------------------------------------------------------ an item's deadline


def test_an_item_past_its_cpu_deadline_is_stopped_as_the_harness_s_fault() -> None:
    """A computation that would never end (trial division of a huge stake, before it was
    bounded) raises ItemDeadline, a HarnessFault: the item errs, the run is INCOMPLETE."""
    with pytest.raises(ItemDeadline), cpu_deadline(0.2):
        n = 0
        while True:
            n += 1
    with cpu_deadline(5.0):  # a block that ends leaves no timer behind
        pass
    assert signal.getitimer(signal.ITIMER_VIRTUAL) == (0.0, 0.0)


def test_the_deadline_grows_with_the_samples_a_run_asks_for() -> None:
    values = {s.dest: [] if s.many else s.default for s in SETTINGS}
    default = item_cpu_seconds(RunSettings.of(values))
    huge = item_cpu_seconds(
        RunSettings.of({**values, "differential": 10_000_000, "rtp_rounds": 10_000_000})
    )
    assert 1_800 < default < 2_100 and huge > 50 * default


class _ShortBoard(ReferenceGame):
    """The reference game whose every third result drops the river from the board:
    malformed (protocol v1 wants five cards), in step."""

    served = 0

    def result(self, round: Any) -> dict[str, Any]:
        reply = super().result(round)
        self.served += 1
        if self.served % 3 == 0:
            reply["board"] = reply["board"][:4]
        return reply


def test_the_rtp_simulation_settles_a_round_whose_board_is_malformed_from_its_stacked_cards() -> (
    None
):
    """A malformed board costs its round alone, settled from the cards the round stacked,
    and the simulation goes on: no CheckFailure of the whole item."""
    ctx = dataclasses.replace(_context(_InProcess(_ShortBoard())), rtp_rounds=30)
    outcome = REGISTRY.run("rtp-simulation", ctx)
    causes = {(f.clause, f.kind, f.detail) for f in outcome.findings}
    assert causes == {("s000-r8", "result-shape", "result not protocol v1")}
    assert isinstance(outcome.share, SimulationShare)
    assert outcome.share.section.rounds == 20  # the ten malformed rounds have no return


def test_a_malformed_call_of_a_folded_seat_is_the_fold_s_not_the_call_s() -> None:
    """A folded seat has no call to settle: a malformed amount on its call is money moved
    on a fold (the decision table's fold row, s000-r5), not a call paid at other odds."""
    cards = [tuple(parse_cards(text.split())) for text in ("As Kd", "7c 2h", "3c 4d")]
    deal = Deal({1: cards[0], 2: cards[1]}, cards[2], tuple(parse_cards(["Ks", "9d", "5s"])),
                *parse_cards(["8h", "2s"]))  # fmt: skip
    plays = {1: SeatPlay(1, 100, 0, Action.CALL), 2: SeatPlay(2, 100, 0, Action.FOLD)}
    want = settle(load_profile("standard"), deal, plays)
    body: dict[str, Any] = {
        "seats": [{"seat": 2, "wagers": {"call": {"stake": 0, "returned": "0.5"}}}]
    }
    misstated = Misstated(2, "call", "returned", "0.5")
    (found,) = malformed_disagreements(want, Malformed("call", body, (misstated,)))
    assert (found.seat, found.kind) == (2, "fold") and not found.settled
    assert found.actual == {"action": None, "hand": None, "ante": None,  # as sent
                            "call": [0, "0.5"], "aa_bonus": None}  # fmt: skip
    called = Malformed("call", body, (Misstated(1, "call", "returned", "0.5"),))
    assert malformed_disagreements(want, called)[0].kind == "call-odds"
