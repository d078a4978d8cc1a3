"""The RNG and deck battery: flawed shuffles are flagged, correct ones pass.

Every flawed shuffler of harness/reference/shufflers.py must fail the battery at
the default sample size of `chcert certify`: grossly at stage 1 (adjusted p-values
below 1e-6, no confirmation), and at the confirmation too when it is asked; its
failure p-values are so small that these tests do not flake. Correct shuffles and
slight flaws are tested on seeded randomness, because a single battery at alpha
0.01 rejects a fair shuffle one time in a hundred by design (the two stages fail
one at most 5.1e-5 of the time).
"""

from __future__ import annotations

import base64
import copy
import json
import math
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

from harness._schema import compiled_def
from harness.checks.randomness import _failure
from harness.defaults import DEFAULT_DECKS
from harness.gamemath import rng as battery_module
from harness.gamemath.rng import (
    ALPHA,
    CONFIRM_ALPHA,
    DECK_TESTS,
    DIEHARDER_BYTES,
    FALSE_FAIL,
    GROSS_ALPHA,
    POWER,
    RAW_BYTES,
    BadSample,
    Decks,
    StagedBattery,
    StatResult,
    decks_needed,
    holm,
    noncentrality_for_power,
    one_cell,
    parse_dieharder,
    pearson_moments,
    pearson_power,
    position_counts,
    position_p_values,
    raw_frequency,
    raw_runs,
    run_deck_battery,
    run_dieharder,
    sample_and_test,
    sample_decks,
    two_stage,
)
from harness.reference import ReferenceGame, engine
from harness.reference.shufflers import (
    FLAWED,
    one_card_bias,
    pcg64_shuffle,
    sorted_start,
)
from harness.report.sections import rng_section
from harness.results.model import Dieharder, Results, RngSection
from tests.runs import certify
from tests.tools import need

EXPECTED_TO_FAIL = {
    "naive-swap-with-any": "card x position",
    "sattolo": "card x position",
    "off-by-one": "worst position",
    "24-bit-seed": "duplicate decks",
    "clock-seed": "duplicate decks",
    "modulo-bias": "card x position",
    "duplicated-card": "deck integrity",
}


def test_every_flawed_shuffler_has_an_expectation() -> None:
    assert set(EXPECTED_TO_FAIL) == set(FLAWED)


@pytest.mark.parametrize("name", sorted(FLAWED))
def test_flawed_shuffle_is_flagged_at_the_default_sample_size_at_both_stages(name: str) -> None:
    """A flaw is in every sample: stage 1 rejects it beyond what any fair shuffle gives,
    so it fails without a confirmation; asked for one anyway (no gross threshold), the
    battery on both samples together rejects it too, by the same test."""
    samples = [(FLAWED[name](DEFAULT_DECKS), None) for _ in range(2)]
    staged = two_stage(iter(samples).__next__)
    assert not staged.passed and staged.gross and staged.stage2 is None
    failed = {t.name: t.p_adjusted for t in staged.stage1.tests if not t.passed}
    assert failed[EXPECTED_TO_FAIL[name]] < GROSS_ALPHA, failed
    confirmed = two_stage(iter(samples).__next__, gross_alpha=0)
    assert not confirmed.passed and not confirmed.gross
    assert confirmed.stage2 is not None and confirmed.stage2.alpha == CONFIRM_ALPHA
    assert confirmed.stage2.decks == 2 * DEFAULT_DECKS and not confirmed.stage2.passed
    assert EXPECTED_TO_FAIL[name] in {t.name for t in confirmed.stage2.tests if not t.passed}


def test_the_two_stages_fail_a_fair_shuffle_at_most_one_time_in_ten_thousand() -> None:
    assert CONFIRM_ALPHA < ALPHA and GROSS_ALPHA < CONFIRM_ALPHA
    assert FALSE_FAIL == GROSS_ALPHA + CONFIRM_ALPHA <= 1e-4


class Game:
    """A `request` callable serving `shuffle` from a queue of samples, one per stage, in
    batches as the game would, and `rng` from seeded bytes; it records what was asked."""

    def __init__(self, *samples: Decks) -> None:
        self.decks = np.concatenate(samples)
        self.served = 0
        self.asked: list[int] = []
        self.raw = np.random.default_rng(13)
        self.raw_served = 0

    def __call__(self, op: str, **params: Any) -> dict[str, Any]:
        if op == "rng":
            self.raw_served += params["bytes"]
            return {"data": base64.b64encode(self.raw.bytes(params["bytes"])).decode()}
        assert op == "shuffle"
        count = params["count"]
        self.asked.append(count)
        part = self.decks[self.served : self.served + count]
        self.served += count
        return {"decks": base64.b64encode(part.tobytes()).decode()}


def _recorded(staged: Any) -> dict[str, Any]:
    """The section as results.json records it, checked against the schema."""
    recorded: dict[str, Any] = json.loads(json.dumps(msgspec.to_builtins(staged.section())))
    section = {"status": "pass" if recorded["passed"] else "fail", **recorded}
    check = compiled_def("results.schema.json", "RngSection")
    assert check(copy.deepcopy(section)) is None  # (a compiled check fills in defaults)
    # as results.json is written: through the model (harness/results/build.py), then read back
    written = Results.from_json({"verdict": "PASS", "rng": section}).to_json()["rng"]
    assert check(written) is None and written["stage2"]["ran"] is recorded["stage2"]["ran"]
    assert Results.from_json({"verdict": "PASS", "rng": written}).rng is not None
    return recorded


# A slight flaw: one card 90% more likely at one position, in 3,000 decks drawn from
# seed 2, makes stage 1 reject `worst position` with an adjusted p-value of about 5e-4:
# a marginal rejection, which a confirmation may rescue (each test asserts it is one).
SLIGHT = {"n": 3_000, "card": 5, "position": 9, "bias": 0.9}


def _slight(seed: int) -> Decks:
    return one_card_bias(seed=seed, **SLIGHT)  # type: ignore[arg-type]


def _marginal(staged: Any) -> None:
    failed = {t.name: t.p_adjusted for t in staged.stage1.tests if not t.passed}
    assert set(failed) == {"worst position"} and GROSS_ALPHA < failed["worst position"] < ALPHA
    assert not staged.gross


def test_a_marginal_rejection_not_confirmed_on_both_samples_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The confirmation logic: a first sample slightly flawed, a fresh second one fair.
    Stage 2 asks the game for as many new decks and raw bytes and judges them with stage
    1's; the two together show nothing a fair shuffle would not, so the shuffle passes."""
    monkeypatch.setattr(battery_module, "run_dieharder", lambda data: Dieharder(ran=False))
    n = SLIGHT["n"]
    game = Game(_slight(2), pcg64_shuffle(n, seed=11))
    staged = sample_and_test(game, n, {"shuffle", "rng"})
    _marginal(staged)
    assert game.served == 2 * n and sum(game.asked) == 2 * n
    assert staged.stage2 is not None and staged.stage2.raw_bytes == 2 * RAW_BYTES
    assert game.raw_served in (2 * RAW_BYTES, 2 * RAW_BYTES + DIEHARDER_BYTES)
    assert staged.stage2.passed and staged.passed
    recorded = _recorded(staged)
    assert recorded["passed"] is True and recorded["stage1_passed"] is False
    assert recorded["gross"] is False and recorded["gross_alpha"] == GROSS_ALPHA
    stage2 = recorded["stage2"]
    assert stage2["ran"] and stage2["passed"] and stage2["decks"] == 2 * n
    assert stage2["fresh_decks"] == n
    assert stage2["alpha"] == CONFIRM_ALPHA and all(t["passed"] for t in stage2["tests"])
    assert all(t["detects"] for t in stage2["tests"])  # stage 2 states its own power
    assert recorded["false_fail_rate"] == pytest.approx(FALSE_FAIL)
    nist = next(t for t in stage2["tests"] if t["name"] == "NIST proportion passing")
    assert "of 400 sequence tests" in nist["description"]  # both samples' 200 sequences


def test_a_marginal_rejection_the_pooled_samples_confirm_fails() -> None:
    n = SLIGHT["n"]
    game = Game(_slight(2), _slight(102))
    staged = sample_and_test(game, n, {"shuffle"})
    _marginal(staged)
    recorded = _recorded(staged)
    assert recorded["passed"] is False and recorded["stage1_passed"] is False
    assert recorded["stage2"]["ran"] and recorded["stage2"]["passed"] is False
    assert game.served == 2 * n
    failure = _failure(msgspec.convert({"status": "fail", **recorded}, RngSection))
    assert "both stages" in failure[0] and "worst position" in failure[0]


def test_a_gross_rejection_fails_whatever_a_fresh_sample_shows() -> None:
    """A shuffle biased for a while: its first sample's first two cards sorted (card x
    position chi-square in the tens of thousands), its next sample fair. No fair shuffle
    gives stage 1's rejection, so the battery fails without asking for the fresh sample,
    and stage 1's sample stays the evidence."""
    n = DEFAULT_DECKS
    game = Game(sorted_start(n), pcg64_shuffle(n, seed=3))
    staged = sample_and_test(game, n, {"shuffle"})
    assert not staged.passed and staged.gross and staged.stage2 is None
    assert game.served == n  # nothing can rescue it: no fresh sample asked
    recorded = _recorded(staged)
    assert recorded["passed"] is False and recorded["gross"] is True
    assert recorded["stage2"] == {
        "ran": False,
        "reason": battery_module.GROSS,
        "alpha": CONFIRM_ALPHA,
    }
    failure = _failure(msgspec.convert({"status": "fail", **recorded}, RngSection))
    assert "beyond what any fair shuffle gives" in failure[0]
    assert "card x position" in failure[0] and "stage 2" not in failure[2]
    # The same sample confirmed on a fresh fair one, as before the gross threshold: the
    # pooled battery still rejects it (the first sample is evidence, never replaced).
    pooled = two_stage(
        iter([(sorted_start(n), None), (pcg64_shuffle(n, seed=3), None)]).__next__,
        gross_alpha=0,
    )
    assert pooled.stage2 is not None and not pooled.stage2.passed and not pooled.passed


def test_when_stage_one_passes_stage_two_is_not_run() -> None:
    n = DEFAULT_DECKS
    game = Game(pcg64_shuffle(n, seed=1), pcg64_shuffle(1, seed=2))
    staged = sample_and_test(game, n, {"shuffle"})
    assert staged.passed and staged.stage2 is None and game.served == n  # no fresh sample
    recorded = _recorded(staged)
    assert recorded["stage1_passed"] is True and recorded["gross"] is False
    assert recorded["stage2"] == {
        "ran": False,
        "reason": battery_module.NOT_CONFIRMED,
        "alpha": CONFIRM_ALPHA,
    }


def test_pearson_moments_are_the_statistic_s_under_one_cell_off() -> None:
    """The power rests on the statistic's mean and variance under the bias: seeded
    multinomial draws of one card 40% more likely at a position (the others evenly less)
    agree with `pearson_moments`, and the noncentral chi-square understates the variance."""
    p0 = np.full(52, 1 / 52)
    p1 = one_cell(p0, 7, 0.4)
    assert p1.sum() == pytest.approx(1) and p1[7] == pytest.approx(1.4 / 52)
    n = 20_000
    counts = np.random.default_rng(5).multinomial(n, p1, size=20_000)
    statistic = (((counts - n / 52) ** 2) / (n / 52)).sum(axis=1)
    mean, variance = pearson_moments(p0, p1, n)
    assert statistic.mean() == pytest.approx(mean, rel=0.01)
    assert statistic.var() == pytest.approx(variance, rel=0.05)
    lam = n / 52 * 0.4**2 * 52 / 51
    assert variance > 1.2 * 2 * (51 + 2 * lam)  # the noncentral chi-square's variance


def test_worst_position_states_the_one_cell_bias_it_detects_with_its_power() -> None:
    """`detects` names one card off at one position, the bias at which the test, at its
    Bonferroni level in the battery, has POWER: not a two-cell figure (one up, another
    down), which is about 1/sqrt(2) of it and was detected one time in ten."""
    n, m = DEFAULT_DECKS, len(DECK_TESTS)
    battery = run_deck_battery(pcg64_shuffle(n, seed=4))
    worst = next(t for t in battery.tests if t.name == "worst position")
    stated = float(worst.detects.split("one card ")[1].split("%")[0]) / 100
    critical = battery_module.scipy_stats().chi2.isf(ALPHA / m / 52, 51)
    p0 = np.full(52, 1 / 52)
    assert pearson_power(p0, one_cell(p0, 0, stated), n, critical) == pytest.approx(POWER, abs=0.01)
    two_cells = np.sqrt(noncentrality_for_power(51, ALPHA / m / 52) / (2 * n / 52))
    assert stated > 1.35 * two_cells
    assert pearson_power(p0, one_cell(p0, 0, two_cells), n, critical) < 0.3


def _text(flowables: list[Any]) -> str:
    return " ".join(f.getPlainText() for f in flowables if hasattr(f, "getPlainText"))


def test_the_report_shows_both_stages_and_reads_a_section_from_before_them() -> None:
    n = SLIGHT["n"]
    game = Game(_slight(2), pcg64_shuffle(n, seed=11))
    recorded = _recorded(sample_and_test(game, n, {"shuffle"}))
    section = Results.from_json({"verdict": "PASS", "rng": {"status": "pass", **recorded}}).rng
    assert isinstance(section, RngSection) and section.stage2 is not None
    text = _text(rng_section(section))
    assert "RNG: PASS. Two stages" in text and "Stage 1: 3,000 decks" in text
    assert "below 1e-06 (Holm-adjusted) fails at once" in text
    assert "Stage 2: 6,000 decks, 3,000 of them fresh" in text and "not confirmed" in text
    # A schema-6 section, whose stage 2 judged the fresh sample alone, reads as it was.
    six = {k: v for k, v in recorded.items() if k not in ("gross", "gross_alpha")}
    six["stage2"] = {k: v for k, v in recorded["stage2"].items() if k != "fresh_decks"}
    section = Results.from_json({"verdict": "PASS", "rng": {"status": "pass", **six}}).rng
    assert section is not None and "Stage 2: 6,000 fresh decks" in _text(rng_section(section))
    # A results.json of schema 5 written before the two stages: read, and shown as before.
    old = {k: v for k, v in six.items() if k not in ("stage1_passed", "stage2")}
    old.pop("false_fail_rate")
    old["status"] = "pass"
    results = Results.from_json({"verdict": "FAIL", "schema_version": 5, "rng": old})
    assert results.rng is not None and results.rng.stage2 is None
    assert results.rng.stage1_passed is None and "stage2" not in results.to_json()["rng"]
    text = _text(rng_section(results.rng))
    assert "Two stages" not in text and "family-wise alpha 0.01 with Holm" in text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pcg64_shuffle_passes(seed: int) -> None:
    battery = run_deck_battery(pcg64_shuffle(DEFAULT_DECKS, seed=seed))
    assert battery.passed, [(t.name, t.p_adjusted) for t in battery.tests]


def test_reference_vectorised_shuffle_passes_on_seeded_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The `shuffle` op's algorithm (Lemire rejection + Fisher-Yates), its CSPRNG seeded."""
    source = np.random.default_rng(20261130)
    monkeypatch.setattr(engine.secrets, "token_bytes", lambda n: source.bytes(n))
    decks = engine.production_decks(DEFAULT_DECKS)
    assert (np.sort(decks, axis=1) == np.arange(52)).all()
    battery = run_deck_battery(decks)
    assert battery.passed, [(t.name, t.p_adjusted) for t in battery.tests]


def test_sampling_goes_through_the_shuffle_op_in_batches() -> None:
    game = ReferenceGame()
    calls: list[int] = []

    def request(op: str, **params: Any) -> dict[str, Any]:
        calls.append(params["count"])
        return game.shuffle(**params)

    decks = sample_decks(request, 12_000)
    assert decks.shape == (12_000, 52) and calls == [5_000, 5_000, 2_000]
    with pytest.raises(BadSample, match="expected"):
        sample_decks(lambda op, **p: {"decks": base64.b64encode(b"x" * 51).decode()}, 1)


def test_holm_adjusts_step_down() -> None:
    results = [StatResult(str(i), 0, p, "", "") for i, p in enumerate([0.001, 0.04, 0.03, 0.5])]
    holm(results, 0.05)
    assert [round(r.p_adjusted, 3) for r in results] == [0.004, 0.09, 0.09, 0.5]
    assert [r.passed for r in results] == [False, True, True, True]


def test_power_statements_are_consistent() -> None:
    # More degrees of freedom or a smaller alpha need a larger effect.
    assert noncentrality_for_power(10, 0.01) < noncentrality_for_power(100, 0.01)
    assert noncentrality_for_power(10, 0.05) < noncentrality_for_power(10, 0.001)
    # Halving the bias to detect needs four times the decks.
    small = decks_needed(2601, ALPHA, 1 / 52, 1 / 52, 0.10)
    large = decks_needed(2601, ALPHA, 1 / 52, 1 / 52, 0.05)
    assert 3.9 < large / small < 4.1


def test_every_test_states_what_it_detects() -> None:
    battery = run_deck_battery(pcg64_shuffle(2_000, seed=9))
    assert len(battery.tests) == len(battery_module.DECK_TESTS)
    for t in battery.tests:
        assert t.detects and 0 <= t.p_value <= 1 and 0 <= t.p_adjusted <= 1
    assert battery.correction == "Holm"


def test_the_battery_records_the_card_by_position_table_and_its_p_values() -> None:
    """results.json `rng` carries what the report draws (docs/results.md): the 52x52 table
    as plain ints, rows = cards, columns = positions, and each position's p-value."""
    decks = pcg64_shuffle(2_000, seed=9)
    section = StagedBattery(run_deck_battery(decks)).section()
    recorded = json.loads(json.dumps(msgspec.to_builtins(section)))
    counts = recorded["position_counts"]
    assert np.array_equal(np.array(counts), position_counts(decks))
    assert all(type(c) is int for row in counts for c in row)
    assert [sum(row) for row in counts] == [2_000] * 52  # every card once per deck
    assert [sum(col) for col in zip(*counts, strict=True)] == [2_000] * 52
    assert len(json.dumps(counts)) < 20_000  # results.json stays small
    p_values = recorded["position_p_values"]
    assert len(p_values) == 52 and all(0 <= p <= 1 for p in p_values)
    worst = next(t for t in recorded["tests"] if t["name"] == "worst position")
    assert min(1.0, 52 * min(p_values)) == pytest.approx(worst["p_value"])
    assert f"position {int(np.argmin(p_values)) + 1} " in worst["description"]
    check = compiled_def("results.schema.json", "RngSection")
    assert check(recorded) is None
    assert check({**recorded, "position_counts": counts[:51]}) is not None


def test_the_card_by_position_test_holds_its_alpha_on_a_fair_shuffle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each deck is a permutation, so Pearson's sum over the 52x52 table has mean 52 x 51,
    not the 51^2 of its chi-square: unscaled, the test rejected a fair shuffle several
    times too often. Scaled by 51/52 its statistic averages 51^2 and its p-values are
    uniform (seeded decks: no flake)."""
    for costly in ("table_detectable_bias", "decks_needed"):  # power statements: not here
        monkeypatch.setattr(battery_module, costly, lambda *args: 0)
    source = np.random.default_rng(2026)
    cards = np.tile(np.arange(52, dtype=np.uint8), (500, 1))
    results = [
        battery_module.position_uniformity(source.permuted(cards, axis=1), ALPHA)
        for _ in range(400)
    ]
    mean = np.mean([r.statistic for r in results])
    assert abs(mean - 51**2) < 20 < abs(mean / battery_module.PERMUTATION_SCALE - 51**2)
    assert np.mean([r.p_value < 0.05 for r in results]) < 0.09  # unscaled: about 0.18


def test_position_counts_rows_are_cards_and_columns_positions() -> None:
    rotated = np.tile(np.roll(np.arange(52, dtype=np.uint8), 1), (3, 1))  # As dealt first
    counts = position_counts(rotated)
    assert counts[51, 0] == 3 and counts[0, 1] == 3 and counts[0, 0] == 0
    assert position_p_values(np.zeros((52, 52), np.int64)).tolist() == [1.0] * 52


def test_raw_output_tests_flag_a_biased_source() -> None:
    decks = pcg64_shuffle(2_000, seed=4)
    fair = np.random.default_rng(5).bytes(RAW_BYTES)
    assert run_deck_battery(decks, np.frombuffer(fair, np.uint8)).passed
    biased = np.frombuffer(fair, np.uint8) | np.uint8(1)  # the low bit stuck at one
    failed = {t.name for t in run_deck_battery(decks, biased).tests if not t.passed}
    assert {"raw frequency", "raw byte values", "NIST proportion passing"} <= failed


def test_the_sequence_p_values_are_kept_for_the_last_bytes_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The two second-level tests read them in turn for the same bytes: computed once."""
    computed: list[bytes] = []

    def p_values(data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        computed.append(data.tobytes())
        return np.zeros((1, 2))

    monkeypatch.setattr(battery_module, "_sequence_p_values", p_values)
    kept = battery_module.SequencePValues()
    first = kept.get(np.arange(8, dtype=np.uint8))
    assert kept.get(np.arange(8, dtype=np.uint8)) is first and len(computed) == 1
    kept.get(np.ones(8, np.uint8))
    kept.get(np.arange(8, dtype=np.uint8))
    assert len(computed) == 3  # other bytes in between: the first are computed again
    kept.clear()
    assert kept.get(np.arange(8, dtype=np.uint8)) is not first and len(computed) == 4


DIEHARDER_OUTPUT = """
#==================================================================#
        test_name   |ntup| tsamples |psamples|  p-value |Assessment
#==================================================================#
# The file file_input_raw was rewound 1 times
   diehard_birthdays|   0|       100|      10|0.93061281|  PASSED
        diehard_runs|   0|    100000|      10|0.99974901|   WEAK
         sts_monobit|   1|    100000|      10|0.00000001|  FAILED
"""


def test_dieharder_output_is_parsed() -> None:
    rows = parse_dieharder(DIEHARDER_OUTPUT)
    assert [(r.name, r.assessment) for r in rows] == [
        ("diehard_birthdays", "PASSED"),
        ("diehard_runs", "WEAK"),
        ("sts_monobit", "FAILED"),
    ]
    assert rows[0].p_value == pytest.approx(0.93061281)


def test_dieharder_runs_when_installed() -> None:
    need("dieharder", "Debian dieharder")
    result = run_dieharder(np.frombuffer(np.random.default_rng(6).bytes(DIEHARDER_BYTES), np.uint8))
    assert result.ran and {t.name for t in result.tests} >= {"sts_monobit"}


@pytest.mark.slow  # test_a_gross_rejection_fails_whatever_a_fresh_sample_shows is its fast twin
def test_a_shuffle_biased_for_a_while_fails_certification(tmp_path: Path) -> None:
    """End to end: a game whose first 20,000 decks are grossly biased and whose later
    decks are fair fails the RNG clause, its first sample the evidence (it was certified
    before a confirmation could only rescue)."""
    code, results = certify(
        tmp_path, "--adapter", "python:tests.games:BiasedThenFair", "-k", "rng-battery"
    )
    assert code == 1 and results["verdict"] == "FAIL"
    rng = results["rng"]
    assert rng["gross"] is True and rng["stage1_passed"] is False and rng["passed"] is False
    assert rng["stage2"]["ran"] is False and rng["decks"] == DEFAULT_DECKS
    (failure,) = [f for f in results["failures"] if f["item"].endswith("rng-battery")]
    assert "beyond what any fair shuffle gives" in failure["message"]


def _nist_as_written(bits: np.ndarray) -> tuple[float, float]:
    """NIST SP 800-22's monobit (2.1) and runs (2.3) p-values read off the bits one by
    one, as the battery read them before it counted them byte by byte."""
    n = bits.size
    monobit = math.erfc(abs(2 * int(bits.sum()) - n) / math.sqrt(2 * n))
    pi = float(bits.mean())
    if abs(pi - 0.5) >= 2 / math.sqrt(n):
        return monobit, 0.0
    runs = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    tau = 2 * math.sqrt(2 * n) * pi * (1 - pi)
    return monobit, math.erfc(abs(runs - 2 * n * pi * (1 - pi)) / tau)


@pytest.mark.parametrize("source", ["fair", "biased", "sticky", "alternating", "zeros"])
def test_the_sequences_counted_byte_by_byte_give_nist_s_p_values_to_the_bit(source: str) -> None:
    rng = np.random.default_rng(5)
    size = 3 * battery_module.RAW_SEQUENCE_BITS // 8
    data = {
        "fair": rng.integers(0, 256, size, dtype=np.uint8),
        "biased": np.packbits(rng.random(8 * size) < 0.503),
        "sticky": np.packbits(np.cumsum(rng.random(8 * size) < 0.45) % 2),
        "alternating": np.full(size, 0b10101010, np.uint8),
        "zeros": np.zeros(size, np.uint8),
    }[source]
    bits = np.unpackbits(data).reshape(3, -1)
    want = np.array([_nist_as_written(s) for s in bits])
    assert np.array_equal(battery_module._sequence_p_values(data), want)
    every = _nist_as_written(np.unpackbits(data))
    assert raw_frequency(data, 0.01).p_value == every[0]
    assert raw_frequency(data, 0.01).statistic == float(np.unpackbits(data).mean())
    assert raw_runs(data, 0.01).p_value == every[1]
    assert raw_runs(data, 0.01).statistic == 1 + np.count_nonzero(np.diff(np.unpackbits(data)))
