"""Exact game mathematics: the census against brute force and the oracle, the published
figures, the claims, the strategy file and the RTP simulation."""

from __future__ import annotations

import ast
import json
import random
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from harness import compiled
from harness.cli import main
from harness.errors import UsageError
from harness.gamemath import (
    FIVE_CARD_HANDS,
    MainGames,
    aa_bonus_math,
    aa_row_counts,
    census,
    census_reference,
    kernel,
    main_game,
    profile_math,
    strategy,
)
from harness.gamemath.census import load_census, symmetry
from harness.gamemath.pricing import call_values, optimal_calls
from harness.gamemath.strategy import Strategy, classify
from harness.reference import ReferenceGame
from harness.rules.cards import Card
from harness.rules.evaluator import Category, evaluate_batch
from harness.rules.oracle import settle_ante_and_call
from harness.rules.profiles import AABonusTable, load_profile
from tests.results import reasons
from tests.runs import certify


def test_aa_rows_agree_with_a_direct_count() -> None:
    hands = np.array(list(combinations(range(52), 5)), dtype=np.uint8)
    direct = Counter(AABonusTable.row_of(int(s)) for s in evaluate_batch(hands))
    assert dict(direct) == aa_row_counts()
    assert sum(direct.values()) == FIVE_CARD_HANDS


def test_short_table_edge_is_the_claimed_6_40_percent() -> None:
    short = load_profile("short-aa").aa_table
    assert short is not None
    edge = aa_bonus_math(short).house_edge
    # Worked by hand from the counts: wins 7 x 273,144 + 25 x 9,516 = 2,149,908;
    # losses 2,316,300; edge = (2,316,300 - 2,150,908) / 2,598,960.
    assert edge == Fraction(2_316_300 - 2_149_908, FIVE_CARD_HANDS)
    assert round(float(edge) * 100, 2) == 6.40


def test_full_table_edge() -> None:
    full = load_profile("standard").aa_table
    assert full is not None
    wins = 7 * 273_144 + 20 * 5_108 + 30 * 3_744 + 40 * 624 + 50 * 36 + 100 * 4
    assert aa_bonus_math(full).house_edge == Fraction(2_316_300 - wins, FIVE_CARD_HANDS)


# ------------------------------------------------------------- main game


@cache
def _census() -> npt.NDArray[np.int32]:
    return load_census(load_profile("standard").qualifying_strength)


def _completions(hole: tuple[int, int], flop: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """Brute force: the player's and the dealer's strength for all 1,070,190 completions."""
    rest = [c for c in range(52) if c not in hole and c not in flop]
    players, dealers = [], []
    for turn_river in combinations(rest, 2):
        board = [*flop, *turn_river]
        others = [c for c in rest if c not in turn_river]
        hands = np.array([[*hole, *board]] + [[*d, *board] for d in combinations(others, 2)])
        strengths = evaluate_batch(hands.astype(np.uint8))
        players += [int(strengths[0])] * 990
        dealers += strengths[1:].tolist()
    return players, dealers


SITUATIONS = [((48, 49), (0, 5, 10)), ((12, 30), (13, 31, 44)), ((3, 7), (11, 15, 19))]


@pytest.mark.parametrize("hole,flop", SITUATIONS)
def test_census_row_agrees_with_brute_force_over_every_completion(
    hole: tuple[int, int], flop: tuple[int, int, int]
) -> None:
    """Every turn, river and dealer hand of a situation, counted one by one."""
    players, dealers = _completions(hole, flop)
    p, d = np.array(players), np.array(dealers)
    qualifying = load_profile("standard").qualifying_strength
    nq = d < qualifying
    want = np.zeros(kernel.USED_COLUMNS, np.int64)
    paid = nq | (p > d)
    np.add.at(want, p[paid] >> 20, 1)
    low = nq & (p <= d)
    np.add.at(want, kernel.NQ_NOT_BEATEN + (p[low] >> 20), 1)
    want[kernel.WON] = (~nq & (p > d)).sum()
    want[kernel.LOST] = (~nq & (p < d)).sum()
    assert len(players) == kernel.COMPLETIONS
    row = _census()[symmetry().situation(hole, flop)]
    assert row.tolist() == want.tolist()


@pytest.mark.parametrize("profile_name", ["standard", "source-003", "table2"])
def test_value_of_calling_agrees_with_the_oracle(profile_name: str) -> None:
    """The pricing formula against the oracle settling every completion of a situation."""
    profile = load_profile(profile_name)
    hole, flop = (0, 13), (14, 46, 43)  # a pair of deuces against a low board
    players, dealers = _completions(hole, flop)
    pairs = Counter(zip(players, dealers, strict=True))
    total = 0
    for (player, dealer), count in pairs.items():
        ante, call = settle_ante_and_call(profile, player, dealer, 100)
        total += count * (ante.returned + call.returned - ante.stake - call.stake)
    row = _census()[symmetry().situation(hole, flop)]
    assert 100 * int(call_values(row[None, :], profile)[0]) == total


def test_profiles_with_the_same_rules_share_their_main_game_until_cleared() -> None:
    """Priced once per process for a pay table and rules (short-aa differs from standard in
    its AA Bonus only); nothing is priced until a figure is asked for."""
    games = MainGames()
    game = games.get(load_profile("standard"))
    assert games.get(load_profile("short-aa")) is game
    assert games.get(load_profile("table2")) is not game
    games.clear()
    assert games.get(load_profile("standard")) is not game


def test_a_symmetry_file_whose_tables_were_changed_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    built = census.symmetry.__wrapped__()  # built and saved, outside the process's cache
    path = census.cache_file("symmetry")
    with np.load(path) as stored:
        tables = {name: stored[name] for name in stored.files}
    tables["cards"][0] = tables["cards"][1]  # a representative changed; shapes and sums kept
    np.savez(path, **tables)  # the sha256 stored as it was
    again = census.symmetry.__wrapped__()
    assert "do not match the sha256" in capsys.readouterr().err
    assert np.array_equal(again.cards, built.cards)


def test_symmetry_tables_cover_every_deal_once() -> None:
    sym = symmetry()
    assert sym.situations == 1_286_792
    assert int(sym.weight.sum()) == 25_989_600 == kernel.SITUATIONS
    assert len(sym.canon_flops) == 1_755


def test_standard_table_rounds_to_the_published_house_edge() -> None:
    game = main_game(load_profile("standard"))
    edge = game.optimal.house_edge
    assert round(float(edge) * 100, 2) == 2.16  # 000 "House edge"; 001 "2.16%"
    assert edge == Fraction(1_363_917_077, 63_213_204_600)  # pinned: the exact enumeration
    assert round(float(game.optimal.raise_frequency), 2) == 0.82
    assert sum(game.optimal.outcomes.values()) == 1
    assert game.always_call.house_edge > edge  # folding some hands is worth something
    assert game.optimal.element_of_risk == edge / (1 + 2 * game.optimal.raise_frequency)


def test_a_pair_of_aces_with_an_ace_in_the_hole_is_always_called() -> None:
    """The AA Bonus's lowest row, made with a hole card: never folded (board aces may be)."""
    sym = symmetry()
    calls = optimal_calls(call_values(_census(), load_profile("standard")))
    strengths = evaluate_batch(sym.cards.astype(np.uint8))
    pair_of_aces = (strengths >> 20 == 1) & ((strengths >> 16) & 15 == 12)
    ace_in_hole = (sym.cards[:, :2] >> 2 == 12).any(axis=1)
    assert (pair_of_aces & ace_in_hole).sum() > 1000
    assert calls[pair_of_aces & ace_in_hole].all()


def test_claims_are_confirmed_or_refuted_with_the_nearest_reading() -> None:
    claims = {c["figure"]: c for c in profile_math(load_profile("source-001"))["claims"]}
    assert claims["aa_bonus_edge"]["status"] == "pass"
    assert claims["house_edge"]["status"] == "pass"
    assert claims["house_edge"]["definition"] == "optimal strategy, per ante"
    (rtp,) = profile_math(load_profile("source-002"))["claims"]
    assert rtp["status"] == "fail"
    assert "per total wager" in rtp["definition"] and abs(rtp["difference"] - 0.0043) < 1e-3
    (rate,) = profile_math(load_profile("source-003"))["claims"]
    assert rate["status"] == "fail" and abs(rate["computed"] - 0.8199) < 1e-4


def test_strategy_file_round_trips_and_agrees_with_the_census(tmp_path: Path) -> None:
    game = main_game(load_profile("standard"))
    path = tmp_path / "strategy.npz"
    game.strategy.save(path)
    loaded = Strategy.load(path)
    assert loaded.digest() == game.strategy.digest() and path.stat().st_size < 400_000
    sym = symmetry()
    calls = optimal_calls(call_values(_census(), load_profile("standard")))
    rng = random.Random(5)
    dealt = np.array([rng.sample(range(52), 5) for _ in range(3_000)], np.uint8)
    together = loaded.calls_for(dealt[:, :2], dealt[:, 2:])  # many seats at once
    for cards, called in zip(dealt.tolist(), together.tolist(), strict=True):
        hole, flop = (cards[0], cards[1]), (cards[2], cards[3], cards[4])
        want = bool(calls[sym.situation(hole, flop)])
        assert loaded.calls_with(tuple(map(Card, hole)), tuple(map(Card, flop))) is want  # type: ignore[arg-type]
        assert called is want
    assert 0 < together.sum() < len(together)
    aces, rags = (Card(51), Card(50)), (Card(0), Card(21))  # As Ah; 2c 7d
    flop3 = (Card(45), Card(30), Card(10))  # Qd 9h 4h
    assert loaded.calls_with(aces, flop3) and not loaded.calls_with(rags, flop3)


@pytest.mark.slow  # the fast tier certifies 002's refuted claim (tests/test_mutants.py)
def test_certify_traces_claims_to_their_clauses(tmp_path: Path) -> None:
    # The default-profile game has standard's AA table, which the corpus would rightly fail.
    args = ["--adapter", "python:harness.reference:ReferenceGame"]
    args += ["-k", "s001-r12 and not corpus"]  # seed 7: the simulation's rounds repeat
    code, results = certify(tmp_path / "a", *args, "--profile", "source-001")
    assert code == 2  # -k
    rows = {c["id"]: c for c in results["clauses"]}
    assert rows["s001-aa-edge"]["status"] == "pass"
    assert rows["s001-house-edge"]["status"] == "pass"
    assert results["math"]["simulation"]["status"] == "pass"  # rule 12 names the simulation
    # A variation restating a wrong AA Bonus edge fails that clause (a copy keeping the
    # name source-001 may not change its claims: harness/rules/profiles.py).
    wrong = tmp_path / "wrong.yaml"
    source = "{file: 001_5f1aa15560d98acb.txt, ref: House Edge details}"
    wrong.write_text(
        "schema: profile.schema.json\nname: wrong-claim\nextends: source-001\nclaims:\n"
        f"  - {{figure: house_edge, value: 0.0216, source: {source}}}\n"
        f"  - {{figure: aa_bonus_edge, value: 0.0500, source: {source}}}\n"
    )
    code, results = certify(tmp_path / "b", *args, "--profile", str(wrong))
    assert code == 1
    rows = {c["id"]: c for c in results["clauses"]}
    assert rows["s001-aa-edge"]["status"] == "fail"
    assert results["math"]["claims"][1]["status"] == "fail"
    assert results["publication_verdict"] == "FAIL"


def test_math_command_prints_and_writes_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["math", "--profile", "short-aa", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert abs(out["aa_bonus_edge"] - 0.0640225) < 1e-6
    assert abs(out["house_edge"] - 0.0215765) < 1e-6
    assert set(out) >= {"house_edge", "rtp", "element_of_risk", "raise_frequency"}
    assert main(["math", "--profile", "source-002"]) == 1  # 98.75% is not reproducible
    assert "rtp 0.9875: fail" in capsys.readouterr().out


# ------------------------------------------------------------ RTP simulation


class SeededGame(ReferenceGame):
    """The reference game dealing from a seeded shuffle, so the simulation test is repeatable."""

    def __init__(self) -> None:
        super().__init__()
        self._rng = random.Random(11)

    def shuffled_deck(self) -> list[int]:
        deck = list(range(52))
        self._rng.shuffle(deck)
        return deck


class RepeatsACard(SeededGame):
    """Deals the same card twice in every round; cannot stack decks, so the simulation
    plays the game's own shuffle."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["capabilities"] = [c for c in hello["capabilities"] if c != "inject"]
        return hello

    def shuffled_deck(self) -> list[int]:
        deck = super().shuffled_deck()
        deck[20] = deck[0]
        return deck


class PaysFlushesThreeToOne(SeededGame):
    """Pays the flush row of the ante table at 3 to 1 instead of 2 to 1."""

    def ante_odds(self, category: Category) -> int:
        return 3 if category is Category.FLUSH else super().ante_odds(category)


def _simulate(tmp_path: Path, game: str) -> tuple[int, dict[str, object]]:
    adapter = f"python:tests.test_gamemath:{game}"
    return certify(tmp_path, "--adapter", adapter, "-k", "rtp-simulation", "--rtp-rounds", "300")


def test_simulation_passes_a_correct_game(tmp_path: Path) -> None:
    code, results = _simulate(tmp_path, "SeededGame")
    sim = results["math"]["simulation"]  # type: ignore[index]
    assert code == 2 and sim["status"] == "pass" and sim["hands"] == 2_100  # 2: a selection
    low, high = sim["interval"]
    assert low <= sim["exact_return_per_ante"] <= high


@pytest.mark.parametrize(
    "game,clause,kind",
    [
        ("RepeatsACard", "s000-antewin", "malfunction"),  # its own engine errs on the card
        ("PaysFlushesThreeToOne", "s000-antewin", "ante-odds"),
    ],
)
def test_simulation_fails_a_broken_game(tmp_path: Path, game: str, clause: str, kind: str) -> None:
    """Each round the simulation plays is settled again by the oracle; one the game settles
    otherwise fails the clause its fault breaks (docs/differential.md, decision table)."""
    code, results = _simulate(tmp_path, game)
    assert code == 1
    failed = {c["id"] for c in results["clauses"] if c["status"] == "fail"}  # type: ignore[attr-defined]
    assert failed == {clause}
    causes = [f for f in results["failures"] if "/rtp-simulation:" in f["item"]]  # type: ignore[attr-defined]
    assert [f["fault"]["kind"] for f in causes] == [kind]
    assert causes[0]["fault"]["found_by"] == "simulation"
    assert causes[0]["item"].startswith(f"{clause}/rtp-simulation:{kind}")
    assert "settled otherwise than the rules" in causes[0]["message"]


def test_a_failure_of_the_mathematics_leaves_the_run_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(profile: object) -> dict[str, object]:
        raise MemoryError("no room for the census")

    monkeypatch.setattr("harness.run.controller.profile_math", broken)
    args = ["--adapter", "python:harness.reference:ReferenceGame", "-k", "s000-r12"]
    code, results = certify(tmp_path, *args)
    assert code == 2
    assert results["verdict"] == "INCOMPLETE" and results["math"]["status"] == "error"
    assert any("game mathematics failed" in r for r in reasons(results))
    rows = {c["id"]: c["status"] for c in results["clauses"]}
    assert rows["s000-house-edge"] == "not_tested"  # never passed without its figure


# ------------------------------------------------------------ census cache


def test_census_cache_key_lists_every_harness_module_the_kernel_and_census_import() -> None:
    package = Path(census.__file__).resolve().parent.parent
    imported = set()
    for source in ("gamemath/census.py", "gamemath/kernel.py", "gamemath/kernel_jit.py"):
        for node in ast.walk(ast.parse((package / source).read_text())):
            modules = []
            name = (node.module or "") if isinstance(node, ast.ImportFrom) else ""
            if name == "harness" or name.startswith("harness."):
                base = name.removeprefix("harness").removeprefix(".").replace(".", "/")
                if (package / base).is_dir():  # from harness.gamemath import kernel
                    modules += [f"{base}/{alias.name}".lstrip("/") for alias in node.names]
                else:
                    modules.append(base)
            elif isinstance(node, ast.Import):
                modules += [
                    a.name.removeprefix("harness.").replace(".", "/")
                    for a in node.names
                    if a.name.startswith("harness.")
                ]
            imported.update(f"{module}.py" for module in modules)
    listed = set(census.DIGEST_SOURCES)
    # Not what a census holds: how its file is written, the error a bad CHCERT_KERNEL raises,
    # which build runs (both compute the same census), the records a census read from the
    # cache is checked against (a file apart from it).
    ignored = {"atomic.py", "errors.py", "compiled.py", "gamemath/census_reference.py"}
    assert imported - ignored <= listed
    assert {"gamemath/kernel_jit.py", "rules/evaluator_jit.py", "compiled.py"} <= imported
    assert set(compiled.SOURCES["harness.gamemath._kernel"]) <= listed  # the C kernel's
    assert "rules/evaluator.py" in listed
    assert all((package / name).is_file() for name in listed)


@pytest.mark.parametrize("source", census.DIGEST_SOURCES)
def test_census_cache_key_changes_when_any_listed_source_changes(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = census.source_bytes
    assert census._sources_digest() == census._digest()
    monkeypatch.setattr(
        census, "source_bytes", lambda name: read(name) + (b"#" if name == source else b"")
    )
    edited = census._sources_digest()
    assert edited != census._digest() and edited.startswith(f"v{census.CENSUS_VERSION}-")


# ------------------------------------------------------- the kernel's two builds


def test_the_compiled_kernel_is_built_and_chosen_unless_numba_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert kernel.compiled() is not None, "harness/gamemath/_kernel.c is not built (setup.py)"
    monkeypatch.setenv("CHCERT_KERNEL", "numba")
    assert kernel.compiled() is None
    monkeypatch.setenv("CHCERT_KERNEL", "fortran")
    with pytest.raises(UsageError, match="CHCERT_KERNEL='fortran'"):
        kernel.compiled()


@pytest.mark.parametrize(
    "command", [["certify", "--dry-run", "--no-plan"], ["math", "--json"]], ids=["dry-run", "math"]
)
def test_a_bad_chcert_kernel_is_a_usage_error_before_anything_runs(
    command: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not found when a census is first computed or the AA Bonus first counted, minutes
    into a run, and not passed over by a dry run: one line, exit 4, nothing run."""
    monkeypatch.chdir(tmp_path)  # no run plan here
    monkeypatch.setenv("CHCERT_KERNEL", "garbage")
    assert main(command) == 4
    out, err = capsys.readouterr()
    assert out == "" and err == "chcert: CHCERT_KERNEL='garbage': use compiled or numba, or unset\n"


def test_both_builds_enumerate_and_count_the_five_card_hands_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (built_sets, built_keys), built_counts = kernel.five_card_sets(), kernel.five_card_counts()
    monkeypatch.setenv("CHCERT_KERNEL", "numba")
    numba_sets, numba_keys = kernel.five_card_sets()
    assert np.array_equal(built_sets, numba_sets) and np.array_equal(built_keys, numba_keys)
    assert len(np.unique(built_keys)) == 134_459  # the boards up to suits
    assert np.array_equal(built_counts, kernel.five_card_counts())
    assert built_sets[0].tolist() == [0, 1, 2, 3, 4] and built_sets[-1].tolist() == [
        47,
        48,
        49,
        50,
        51,
    ]


def test_a_kernel_built_from_another_source_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    built = kernel.compiled()
    assert built is not None
    try:
        compiled._load.cache_clear()
        monkeypatch.setattr(built, "SOURCE_SHA256", "0" * 64)  # as if _kernel.c were edited
        assert kernel.compiled() is None  # numba's kernel runs instead, and says why
        assert "_kernel.c changed since it was built" in capsys.readouterr().err
        monkeypatch.setenv("CHCERT_KERNEL", "compiled")
        with pytest.raises(UsageError, match="changed since it was built"):
            kernel.compiled()
    finally:
        monkeypatch.undo()
        compiled._load.cache_clear()
    assert kernel.compiled() is built


@pytest.mark.parametrize("damage", ["situation", "relabelling", "board"])
def test_the_compiled_kernel_refuses_tables_that_would_send_it_astray(damage: str) -> None:
    sym = symmetry()
    built = kernel.compiled()
    assert built is not None
    boards = np.array([[0, 5, 10, 20, 40]], np.int64)
    situation_of, flop_perm = sym.situation_of.copy(), sym.flop_perm.copy()
    if damage == "situation":
        situation_of[situation_of >= 0] = -1  # every hole sent nowhere
    elif damage == "relabelling":
        flop_perm[7] = 1_000
    else:
        boards = np.array([[5, 0, 10, 20, 40]], np.int64)
    acc = np.zeros((sym.situations, 8), np.uint64)
    with pytest.raises(ValueError):
        built.census_chunk(
            boards,
            np.ones(1, np.int64),
            sym.flop_canon,
            flop_perm,
            situation_of,
            sym.card_map,
            sym.binom,
            QUALIFIER,
            acc,
            np.zeros(1, np.int64),
            0,
        )


@pytest.mark.slow
def test_both_builds_of_the_kernel_compute_the_same_census(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The census of the bundled profiles' qualifier and of a pair of twos, by the
    compiled kernel and by numba's: two implementations of one method, equal to the last
    count, and equal to the cached census the rest of the tests price."""
    assert kernel.compiled() is not None
    qualifiers = (QUALIFIER, int(Category.PAIR) << 20)
    built = {q: census.compute_census(q) for q in qualifiers}
    monkeypatch.setenv("CHCERT_KERNEL", "numba")
    for qualifying, counts in built.items():
        assert np.array_equal(counts, census.compute_census(qualifying))
    assert np.array_equal(built[QUALIFIER][:, : kernel.USED_COLUMNS], _census())


def test_census_invariants_rest_on_exact_deal_counts() -> None:
    # Every deal is one of C(52,7) seven-card sets, each the player's (or the
    # dealer's) in as many deals: the census counts sum over deals to these.
    per_seven, royal_wins = census.DEALS_PER_SEVEN_CARDS, census.ROYAL_FLUSH_WINS
    assert comb(52, 7) * per_seven == kernel.SITUATIONS * kernel.COMPLETIONS
    assert per_seven == comb(7, 2) * comb(5, 3) * comb(45, 2)
    # A 7-card royal flush: 4 royals x C(47,2); the board is the royal when the two
    # other cards are the hole: C(5,3) flops x C(45,2) dealer holes of each.
    royal_board = comb(5, 3) * comb(45, 2)
    assert royal_wins == 4 * comb(47, 2) * (per_seven - royal_board)


def test_the_computed_census_meets_every_invariant() -> None:
    assert census.census_violation(_census()) is None
    assert census._symmetry_problem(symmetry()) is None


def _broken_census(damage: str) -> npt.NDArray[np.int32]:
    """A copy of the census with one kind of damage a kernel bug could do."""
    bad = _census().copy()
    ante = bad[:, : kernel.NQ_NOT_BEATEN].sum(axis=1)
    room = kernel.COMPLETIONS - ante - bad[:, kernel.LOST]  # the pushes
    pair, _, _ = census._impossible_categories()[0]  # a pair among the hole and flop
    no_flush, _, _ = census._impossible_categories()[3]  # no three of a suit
    row = int(np.flatnonzero((room > 0) & (ante > bad[:, kernel.WON]) & ~no_flush)[0])
    if damage == "negative":
        bad[row, kernel.LOST] = -1
    elif damage == "above":
        bad[row, kernel.LOST] = kernel.COMPLETIONS + 1
    elif damage == "pushes":
        bad[row, kernel.LOST] += room[row] + 1
    elif damage == "not-beaten":
        bad[row, kernel.NQ_NOT_BEATEN] = bad[row, kernel.ANTE_PAID] + 1
    elif damage == "won":
        bad[row, kernel.WON] = ante[row] + 1
    elif damage == "ruled out":  # a high card with a pair among the hole and flop
        row = int(np.flatnonzero(pair & (room > 0))[0])
        bad[row, kernel.ANTE_PAID + Category.HIGH_CARD] += 1
    elif damage == "royal":
        bad[row, kernel.ANTE_PAID + Category.ROYAL_FLUSH] += 1
    elif damage == "won once more":
        bad[row, kernel.WON] += 1
    elif damage == "lost":
        bad[:, kernel.LOST] = 0
    return bad


@pytest.mark.parametrize(
    "damage,reason",
    [
        ("negative", "a negative count"),
        ("above", "a count above"),
        ("pushes", "add up to more than all"),
        ("not-beaten", "more not-beaten than ante-settled"),
        ("won", "more won than ante-settled"),
        ("ruled out", "ruled out by the hole and flop"),
        ("royal", "royal flush wins"),
        ("won once more", "not a count of hands"),
        ("lost", "lost minus won"),
    ],
)
def test_a_census_breaking_an_invariant_is_caught(damage: str, reason: str) -> None:
    violation = census.census_violation(_broken_census(damage))
    assert violation is not None and reason in violation


QUALIFIER = load_profile("standard").qualifying_strength


@pytest.mark.parametrize(
    "damage,reason",
    [
        ("one count altered", "sha256 does not match"),
        ("negative count, sha256 matching", "a negative count"),
        ("one count altered, sha256 matching", "not a count of hands"),
        ("no sha256", "no sha256 stored"),
        ("no qualifier recorded", "does not record which dealer qualifier"),
        ("another census version", "census version 0, not"),
        ("unsigned", "dtype uint32"),
        ("too few rows", "shape"),
        ("truncated", "unreadable"),
    ],
)
def test_a_damaged_census_file_is_rejected_by_the_loader(
    damage: str,
    reason: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    path = census._census_file(QUALIFIER)
    assert path.parent == tmp_path
    good = _census()
    bad: npt.NDArray[np.uint32] | npt.NDArray[np.int32] = good.copy()
    checksum = census._checksum(good)
    if damage == "one count altered":
        bad[1000, kernel.WON] += 1
    elif damage == "negative count, sha256 matching":
        bad = _broken_census("negative")
        checksum = census._checksum(bad)
    elif damage == "one count altered, sha256 matching":
        bad = _broken_census("won once more")
        checksum = census._checksum(bad)
    elif damage == "unsigned":
        bad = good.astype(np.uint32)
    elif damage == "too few rows":
        bad = good[:-1]
        checksum = census._checksum(bad)
    record = {
        "sha256": np.array(checksum),
        "qualifying": np.array(QUALIFIER),
        "census_version": np.array(0 if damage == "another census version" else 1),
    }
    if damage == "no sha256":
        del record["sha256"]
    elif damage == "no qualifier recorded":
        del record["qualifying"]
    np.savez(path, census=bad, **record)  # uncompressed: quicker to write
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    assert census._read(path, QUALIFIER) is None
    (line,) = capsys.readouterr().err.splitlines()
    assert str(path) in line and reason in line


def test_a_census_file_with_its_sha256_reads_back_unchanged_and_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    path = census._census_file(QUALIFIER)
    assert census._read(path, QUALIFIER) is None  # no file: nothing to say
    census._save_census(QUALIFIER, _census())
    read = census._read(path, QUALIFIER)
    assert read is not None and np.array_equal(read, _census())
    assert capsys.readouterr().err == ""


def test_a_rejected_census_file_is_recomputed_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    good = _census()
    path = census._census_file(QUALIFIER)
    np.savez(path, census=good, sha256=np.array("0" * 64))
    computed = []

    def compute(qualifying: int, progress: object = None) -> npt.NDArray[np.int32]:
        computed.append(qualifying)  # instead of the real 40 seconds
        return np.pad(good, ((0, 0), (0, kernel.COLUMNS - kernel.USED_COLUMNS)))

    monkeypatch.setattr(census, "compute_census", compute)
    assert np.array_equal(census._load_or_compute(QUALIFIER, None), good)
    assert computed == [QUALIFIER]
    (line,) = capsys.readouterr().err.splitlines()  # once, though read twice
    assert str(path) in line and "sha256 does not match" in line
    read = census._read(path, QUALIFIER)  # the recomputed census, saved with its sha256
    assert read is not None and np.array_equal(read, good)


def test_a_census_is_loaded_once_until_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[int] = []

    def load(qualifying: int, progress: object) -> npt.NDArray[np.int32]:
        loaded.append(qualifying)
        return np.zeros((1, kernel.USED_COLUMNS), np.int32)

    monkeypatch.setattr(census, "_load_or_compute", load)
    censuses = census.Censuses()
    first = censuses.get(QUALIFIER)
    assert censuses.get(QUALIFIER) is first and loaded == [QUALIFIER]
    censuses.clear()
    assert censuses.get(QUALIFIER) is not first and loaded == [QUALIFIER, QUALIFIER]


def test_a_computed_census_breaking_an_invariant_is_an_error_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    bad = _broken_census("pushes")
    padded = np.pad(bad, ((0, 0), (0, kernel.COLUMNS - kernel.USED_COLUMNS)))
    monkeypatch.setattr(census, "compute_census", lambda qualifying, progress=None: padded)
    with pytest.raises(RuntimeError, match="breaks an invariant"):
        census._load_or_compute(QUALIFIER, None)
    assert not census._census_file(QUALIFIER).exists()


def test_the_strategy_cache_gives_back_the_priced_decisions_and_refuses_a_tampered_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.gamemath import MainGame, strategy

    profile = load_profile("standard")
    game = main_game(profile)
    priced, rules = game.strategy, game.rules
    _ = game.optimal  # the census loaded in this process, before the cache moves
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    assert strategy.cached_strategy(rules) is None  # nothing cached yet: nothing to say
    fresh = MainGame(profile, rules).strategy  # prices, then caches
    assert fresh.digest() == priced.digest()
    read = strategy.cached_strategy(rules)
    assert read is not None and read.digest() == priced.digest()
    assert strategy.cached_strategy(rules + " other") is None  # other rules, other file
    assert capsys.readouterr().err == ""

    path = strategy.cache_file(strategy._strategy_kind(rules))
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["calls"] = arrays["calls"].copy()
    arrays["calls"][0, 0] ^= 1  # one decision flipped, the stored sha256 kept
    np.savez(path, **arrays)
    assert strategy.cached_strategy(rules) is None
    (line,) = capsys.readouterr().err.splitlines()
    assert str(path) in line and "sha256" in line

    with monkeypatch.context() as edited:  # written by other pricing code: stale
        edited.setattr(strategy, "_code_digest", lambda: "edited pricing code")
        strategy.cache_strategy(rules, priced)
    assert strategy.cached_strategy(rules) is None
    assert capsys.readouterr().err == ""  # recomputed without a warning


def test_the_situation_classes_are_the_recorded_ones_and_kept_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recomputed, the strategy summary's classes hash to census_reference.CLASSES_SHA256;
    the cache keeps them, and a cached copy that differs is warned of and recomputed."""
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    classes = classify(symmetry().cards).astype(np.int8)
    assert census.tables_sha256({"classes": classes}) == census_reference.CLASSES_SHA256
    strategy.situation_classes.cache_clear()
    assert np.array_equal(strategy.situation_classes(), classes)
    path = census.cache_file("classes")
    assert path.exists() and capsys.readouterr().err == ""
    strategy.situation_classes.cache_clear()
    assert np.array_equal(strategy.situation_classes(), classes)  # read back, silently
    assert capsys.readouterr().err == ""
    swapped = classes.copy()
    swapped[:2] = swapped[1::-1] + 1  # two situations moved to other classes
    np.savez(path, classes=swapped)
    strategy.situation_classes.cache_clear()
    assert np.array_equal(strategy.situation_classes(), classes)
    assert "not the ones recorded" in capsys.readouterr().err
    strategy.situation_classes.cache_clear()
