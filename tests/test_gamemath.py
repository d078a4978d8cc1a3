"""Exact AA Bonus mathematics and the claims checked against it (issue 5, first part)."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import numpy as np

from harness.cli import main
from harness.evaluator import evaluate_batch
from harness.gamemath import FIVE_CARD_HANDS, aa_bonus_math, aa_row_counts, profile_math
from harness.profiles import AABonusTable, load_profile


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


def test_claims_are_confirmed_or_refuted() -> None:
    figures = profile_math(load_profile("source-001"))
    claims = {c["figure"]: c for c in figures["claims"]}
    assert claims["aa_bonus_edge"]["status"] == "confirmed"
    assert claims["house_edge"]["status"] == "not_computed"
    assert figures["house_edge"] is None and figures["aa_bonus_edge"] is not None


def test_certify_traces_claims_to_their_clauses(tmp_path: Path) -> None:
    args = ["certify", "--adapter", "python:harness.reference:ReferenceGame", "-k", "s001-r12"]
    assert main([*args, "--profile", "source-001", "--out", str(tmp_path / "a")]) == 0
    rows = {c["id"]: c for c in json.loads((tmp_path / "a/results.json").read_text())["clauses"]}
    assert rows["s001-aa-edge"]["status"] == "pass"
    assert rows["s001-house-edge"]["status"] == "not_tested"
    # A profile claiming a wrong AA Bonus edge fails that clause.
    wrong = tmp_path / "wrong.yaml"
    text = (Path(__file__).parent.parent / "specs/profiles/source-001.yaml").read_text()
    wrong.write_text(text.replace("value: 0.0640", "value: 0.0500"))
    assert main([*args, "--profile", str(wrong), "--out", str(tmp_path / "b")]) == 1
    results = json.loads((tmp_path / "b/results.json").read_text())
    rows = {c["id"]: c for c in results["clauses"]}
    assert rows["s001-aa-edge"]["status"] == "fail"
    assert results["math"]["claims"][1]["status"] == "not_reproducible"


def test_math_command_prints_and_writes_json(capsys: object) -> None:
    assert main(["math", "--profile", "short-aa", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert abs(out["aa_bonus_edge"] - 0.0640225) < 1e-6
    assert out["house_edge"] is None
