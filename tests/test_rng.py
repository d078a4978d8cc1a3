"""The RNG and deck battery: flawed shuffles are flagged, correct ones pass.

Every flawed shuffler of harness/reference/shufflers.py must fail the battery at
the default sample size of `chcert certify`; its failure p-values are so small
(below 1e-5; see the closing note for measured margins) that these tests do not
flake. Correct shuffles are tested on seeded randomness, because a fair shuffle
fails a test at alpha 0.01 one time in a hundred by design.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
import pytest

from harness import rng as battery_module
from harness._schema import compiled_def
from harness.defaults import DEFAULT_DECKS
from harness.reference import ReferenceGame, engine
from harness.reference.shufflers import FLAWED, pcg64_shuffle
from harness.rng import (
    ALPHA,
    DIEHARDER_BYTES,
    RAW_BYTES,
    BadSample,
    StatResult,
    decks_needed,
    holm,
    noncentrality_for_power,
    parse_dieharder,
    position_counts,
    position_p_values,
    run_deck_battery,
    run_dieharder,
    sample_decks,
)
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
def test_flawed_shuffle_is_flagged_at_the_default_sample_size(name: str) -> None:
    battery = run_deck_battery(FLAWED[name](DEFAULT_DECKS))
    failed = {t.name for t in battery.tests if not t.passed}
    assert not battery.passed
    assert EXPECTED_TO_FAIL[name] in failed, failed


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
    small, large = decks_needed(2601, ALPHA, 1 / 52, 0.10), decks_needed(2601, ALPHA, 1 / 52, 0.05)
    assert 3.9 < large / small < 4.1


def test_every_test_states_what_it_detects() -> None:
    battery = run_deck_battery(pcg64_shuffle(2_000, seed=9))
    assert len(battery.tests) == len(battery_module.DECK_TESTS)
    for t in battery.tests:
        assert t.detects and 0 <= t.p_value <= 1 and 0 <= t.p_adjusted <= 1
    assert battery.to_json()["correction"] == "Holm"


def test_the_battery_records_the_card_by_position_table_and_its_p_values() -> None:
    """results.json `rng` carries what the report draws (docs/results.md): the 52x52 table
    as plain ints, rows = cards, columns = positions, and each position's p-value."""
    decks = pcg64_shuffle(2_000, seed=9)
    recorded = json.loads(json.dumps(run_deck_battery(decks).to_json()))
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
    check = compiled_def("results.schema.json", "rng")
    assert check({"status": "pass", **recorded}) is None
    assert check({"status": "pass", **recorded, "position_counts": counts[:51]}) is not None


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
    assert [(r["name"], r["assessment"]) for r in rows] == [
        ("diehard_birthdays", "PASSED"),
        ("diehard_runs", "WEAK"),
        ("sts_monobit", "FAILED"),
    ]
    assert rows[0]["p_value"] == pytest.approx(0.93061281)


def test_dieharder_runs_when_installed() -> None:
    need("dieharder", "Debian dieharder")
    result = run_dieharder(np.frombuffer(np.random.default_rng(6).bytes(DIEHARDER_BYTES), np.uint8))
    assert result["ran"] and {t["name"] for t in result["tests"]} >= {"sts_monobit"}
