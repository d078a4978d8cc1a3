"""A cached census is held to what does not rest on its file (harness/gamemath/census.py,
census_reference.py): a census swapped or edited with its sha256 computed again is
refused, said in one line, and recomputed.

Forged files go to a temporary CHCERT_CACHE; the genuine censuses come from the
session's cache (computed once, as the rest of the tests price them).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from harness import compiled
from harness.gamemath import (
    MAIN_GAMES,
    MainGame,
    census,
    census_reference,
    kernel,
    main_game,
    profile_math,
)
from harness.gamemath.pricing import call_values, optimal_calls, play_figures
from harness.gamemath.strategy import (
    Strategy,
    cache_strategy,
    cached_strategy,
    strategy_cache_file,
)
from harness.rules.cards import Rank
from harness.rules.evaluator import Category, minimum_strength
from harness.rules.profiles import load_profile

FOURS = minimum_strength(Category.PAIR, Rank.FOUR)  # every bundled profile's qualifier
TWOS = minimum_strength(Category.PAIR, Rank.TWO)
Census = npt.NDArray[np.int32]
QUALIFIERS = {  # every dealer qualifier specs/schemas/profile.schema.json allows
    "pair_of_twos": Rank.TWO,
    "pair_of_threes": Rank.THREE,
    "pair_of_fours": Rank.FOUR,
    "pair_of_fives": Rank.FIVE,
    "pair_of_sixes": Rank.SIX,
}


@cache
def genuine(qualifying: int) -> Census:
    return census.load_census(qualifying)


def write(qualifying: int, counts: Census, said: int | None = None) -> Path:
    """A cache file for `qualifying` holding `counts`, with a valid sha256 and saying it is
    the census of `said` (default: of `qualifying`), as a forger would write it."""
    path = census._census_file(qualifying)
    np.savez(
        path,
        census=counts,
        sha256=np.array(census._checksum(counts)),
        qualifying=np.array(qualifying if said is None else said),
        census_version=np.array(census.CENSUS_VERSION),
        kernel=np.array("compiled"),
    )
    return path


def moved(counts: Census, between: tuple[Category, Category], balanced: bool) -> Census:
    """Counts moved from one category's ante-paid column to another's in some rows, each
    row's sum kept. `balanced`: moved back in as many rows of the same weight, so that
    even the totals over all deals are kept."""
    source, target = (kernel.ANTE_PAID + c for c in between)
    forged = counts.copy()
    rows = np.flatnonzero((forged[:, source] > 1000) & (forged[:, target] > 1000))
    weight = census.symmetry().weight[rows]
    common = np.bincount(weight).argmax()  # a weight many such rows share
    same = rows[weight == common][:40]
    assert len(same) == 40
    there, back = same[:20], same[20:]
    forged[there, source] -= 1000
    forged[there, target] += 1000
    if balanced:
        forged[back, source] += 1000
        forged[back, target] -= 1000
    return forged


ONE_WAY = (Category.FLUSH, Category.STRAIGHT)
BALANCED = (Category.STRAIGHT, Category.FLUSH)


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for qualifying in (FOURS, TWOS):
        genuine(qualifying)  # from the session's cache, before the cache moves
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    return tmp_path


FORGERIES: dict[str, tuple[Callable[[], Path], str]] = {
    "another qualifier's census, under this one's name and saying it is this one's": (
        lambda: write(FOURS, genuine(TWOS)),
        "not the 32,406,420 below pair_of_fours: another qualifier's census",
    ),
    "another qualifier's census, as it was written": (
        lambda: write(FOURS, genuine(TWOS), said=TWOS),
        "census of dealer qualifier pair_of_twos, not pair_of_fours",
    ),
    "counts moved from flush to straight, sha256 recomputed": (
        lambda: write(FOURS, moved(genuine(FOURS), ONE_WAY, False)),
        "totals over all deals differ in ante paid (straight), ante paid (flush)",
    ),
    "counts moved both ways, every column total kept, sha256 recomputed": (
        lambda: write(FOURS, moved(genuine(FOURS), BALANCED, True)),
        "totals over all deals agree, but counts moved between situations",
    ),
}


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_a_forged_census_is_refused_said_and_recomputed(
    forgery: str,
    cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    forge, reason = FORGERIES[forgery]
    path = forge()
    computed: list[int] = []

    def compute(qualifying: int, progress: object = None) -> Census:
        computed.append(qualifying)  # the genuine census, instead of the real 10 seconds
        return np.pad(genuine(qualifying), ((0, 0), (0, kernel.COLUMNS - kernel.USED_COLUMNS)))

    monkeypatch.setattr(census, "compute_census", compute)
    assert np.array_equal(census._load_or_compute(FOURS, None), genuine(FOURS))
    assert computed == [FOURS]
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"chcert: cache file {path} not used, recomputing: ")
    assert reason in line
    read = census._read(path, FOURS)  # replaced by the census computed
    assert read is not None and np.array_equal(read, genuine(FOURS))


def test_the_forgeries_pass_the_older_checks_and_would_change_the_figures(
    cache_dir: Path,
) -> None:
    """Why the records are needed: each forgery keeps every invariant that holds for any
    qualifier, and prices the standard table to other figures (the balanced one keeps
    every total, so only the situations it touched are priced otherwise)."""
    standard = load_profile("standard")
    weight = census.symmetry().weight

    def edge(counts: Census) -> object:
        calls = optimal_calls(call_values(counts, standard))
        return play_figures(counts, weight, standard, calls, "optimal").house_edge

    truth = edge(genuine(FOURS))
    for counts in (genuine(TWOS), moved(genuine(FOURS), ONE_WAY, False)):
        assert census.census_violation(counts) is None
        assert edge(counts) != truth
    balanced = moved(genuine(FOURS), BALANCED, True)
    assert census.census_violation(balanced) is None
    assert (call_values(balanced, standard) != call_values(genuine(FOURS), standard)).any()


def test_a_computed_census_that_is_not_the_recorded_one_is_an_error_not_cached(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = moved(genuine(FOURS), ONE_WAY, False)
    padded = np.pad(bad, ((0, 0), (0, kernel.COLUMNS - kernel.USED_COLUMNS)))
    monkeypatch.setattr(census, "compute_census", lambda qualifying, progress=None: padded)
    with pytest.raises(RuntimeError, match="not the census of pair_of_fours recorded"):
        census._load_or_compute(FOURS, None)
    assert not census._census_file(FOURS).exists()


def test_a_genuine_census_file_records_what_it_is_the_census_of(cache_dir: Path) -> None:
    census._save_census(FOURS, genuine(FOURS))
    with np.load(census._census_file(FOURS)) as stored:
        assert stored["qualifying"][()] == FOURS
        assert stored["census_version"][()] == census.CENSUS_VERSION
        assert str(stored["kernel"][()]) in compiled.CHOICES
    assert census._read(census._census_file(FOURS), FOURS) is not None


def test_the_hands_below_each_qualifier_are_counted_without_the_evaluator() -> None:
    """Ranks and suits alone give the published totals, and the straights make the pair
    ranks unequal (a pair of fours or of aces is in more of them than a pair of sevens)."""
    high_card, pairs = census._seven_card_counts()
    assert high_card == census.HIGH_CARD_HANDS and sum(pairs) == census.ONE_PAIR_HANDS
    assert comb(52, 7) > census.HIGH_CARD_HANDS + census.ONE_PAIR_HANDS
    assert census.hands_below(TWOS) == census.HIGH_CARD_HANDS
    assert census.hands_below(FOURS) == 23_294_460 + 4_573_800 + 4_538_160
    assert census.hands_below(FOURS + 1) is None  # no profile names such a qualifier
    assert census.hands_below(minimum_strength(Category.TWO_PAIR, Rank.TWO)) is None


def test_the_records_agree_with_the_counted_hands_below_each_qualifier() -> None:
    """The recorded censuses, computed by the kernel, against the combinatorial count: the
    deals where the dealer does not qualify, ante-settled less won."""
    for record in census_reference.REFERENCES:
        totals = record.column_totals
        not_qualified = sum(totals[: kernel.NQ_NOT_BEATEN]) - totals[kernel.WON]
        below = census.hands_below(record.qualifying)
        assert below is not None
        assert not_qualified == below * census.DEALS_PER_SEVEN_CARDS, record.qualifier
        rank = QUALIFIERS[record.qualifier]
        assert record.qualifying == minimum_strength(Category.PAIR, rank)
    assert {r.qualifier for r in census_reference.REFERENCES} == set(QUALIFIERS)
    assert census_reference.CENSUS_VERSION == census.CENSUS_VERSION


def test_the_records_are_of_the_census_the_tests_price() -> None:
    counts = genuine(FOURS)
    record = census_reference.BY_QUALIFYING[FOURS]
    assert census._checksum(counts) == record.sha256
    totals = census.symmetry().weight @ counts.astype(np.int64)
    assert tuple(int(t) for t in totals) == record.column_totals


@pytest.mark.slow
def test_the_records_are_what_the_kernel_computes_for_every_qualifier() -> None:
    """Every qualifier a profile may name, computed afresh (about 10 s each). When the
    census changes meaning (CENSUS_VERSION), paste the records this prints."""
    for record in census_reference.REFERENCES:
        counts = census.compute_census(record.qualifying)[:, : kernel.USED_COLUMNS].copy()
        totals = tuple(int(t) for t in census.symmetry().weight @ counts.astype(np.int64))
        computed = (census._checksum(counts), totals)
        assert computed == (record.sha256, record.column_totals), f"{record.qualifier}: {computed}"


def test_a_forged_strategy_cache_is_replaced_wherever_the_census_is_priced(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The strategy cache's sha256 shows damage only: a decision changed and the sha256
    computed again is held to the census's decisions wherever the census is priced (the
    mathematics, strategy.npz, the RTP simulation), said, and the cache written again; a
    process keeps playing what it first played, so that a seed plays the same decisions
    whenever the figures are priced (the controller prices them on a thread)."""
    profile = load_profile("standard")
    rules = main_game(profile).rules
    honest = MainGame(profile, rules).strategy  # priced from the census, cached here
    bits = np.unpackbits(honest.calls, axis=1)
    real = int(np.flatnonzero(census.symmetry().situation_of[0] >= 0)[0])
    bits[0, real] ^= 1  # one situation's decision reversed
    forged = Strategy(honest.flops, np.packbits(bits, axis=1), dict(honest.meta))
    cache_strategy(rules, forged)  # with its sha256 computed again
    assert capsys.readouterr().err == ""

    player = MainGame(profile, rules)  # a process that only plays: the file as it is
    assert player.strategy.digest() == forged.digest()
    _ = player.optimal  # priced meanwhile: what it plays does not change
    assert player.strategy.digest() == forged.digest()
    assert capsys.readouterr().err == ""
    assert player.checked_strategy().digest() == honest.digest()  # what the math reports
    assert player.checked_strategy().digest() == honest.digest()
    (line,) = capsys.readouterr().err.splitlines()  # said once
    assert str(strategy_cache_file(rules)) in line
    assert "its decisions are not the ones the census prices" in line
    assert player.strategy.digest() == forged.digest()
    again = cached_strategy(rules)  # the cache holds the census's decisions again
    assert again is not None and again.digest() == honest.digest()
    assert MainGame(profile, rules).strategy.digest() == honest.digest()  # the next run's

    cache_strategy(rules, forged)
    MAIN_GAMES.clear()  # a fresh process's: it reads the forged file
    try:
        math = profile_math(profile)  # the figures report the census's decisions
        assert main_game(profile).strategy.digest() == forged.digest()
        assert math["strategy"]["sha256"] == honest.digest()
    finally:
        MAIN_GAMES.clear()  # no game of this test's cache left to the next test


def test_symmetry_tables_changed_with_their_sha256_recomputed_are_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tables number the situations a census's rows are: two situations' weights
    swapped keep every shape and sum, and would price every census otherwise."""
    monkeypatch.setenv("CHCERT_CACHE", str(tmp_path))
    built = census.symmetry.__wrapped__()  # built and saved, outside the process's cache
    path = census.cache_file("symmetry")
    with np.load(path) as stored:
        tables = {name: stored[name] for name in census._ARRAYS}
    weight = tables["weight"]
    first, other = 0, int(np.flatnonzero(weight != weight[0])[0])
    weight[[first, other]] = weight[[other, first]]
    np.savez(path, **tables, sha256=np.array(census.tables_sha256(tables)))
    again = census.symmetry.__wrapped__()
    (line,) = capsys.readouterr().err.splitlines()
    assert str(path) in line and "not the ones recorded in" in line
    assert np.array_equal(again.weight, built.weight)
