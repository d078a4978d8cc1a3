"""The configuration an operator runs: approved pay-table variations, the table's limits,
its house rules (docs/profiles.md).

Loading a variation is judged here field by field; the proofs certify games that are
not chcert's (tests/fixtures/vendor_game.py, standard library only, configured on its
command line) the way a laboratory would: each PASSes in the configuration it was
approved in and declares, and fails exactly the clause its difference breaks elsewhere.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.errors import SpecError
from harness.rules.catalogs import applicable, load_catalogs, varied
from harness.rules.profiles import Varied, load_profile
from tests.runs import QUICK_SAMPLES, certify

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "variation" / "ante-49-17.yaml"
VENDOR = Path(__file__).parent / "fixtures" / "vendor_game.py"
QUICK = ("--differential", "10000", "--rtp-rounds", "200", "--rng-decks", "3000", *QUICK_SAMPLES)
ANTE_49_17 = ("--ante-table", json.dumps({"straight_flush": 49, "four_of_a_kind": 17}))


def vendor(*options: str) -> str:
    return "subprocess:" + shlex.join([sys.executable, str(VENDOR), *options])


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text("schema: profile.schema.json\n" + text, encoding="utf-8")
    return path


def failing(results: dict[str, Any]) -> set[str]:
    return {c["id"] for c in results["clauses"] if c["status"] == "fail"}


# ------------------------------------------------------------------ loading


def test_a_variation_is_its_base_with_its_own_rows_name_and_claims() -> None:
    profile = load_profile(str(EXAMPLE))
    standard = load_profile("standard")
    assert profile.name == "ante-49-17" and profile.clauses_from == "standard"
    odds = {c.wire: o for c, o in profile.ante_table.odds.items()}
    assert odds == {c.wire: o for c, o in standard.ante_table.odds.items()} | {
        "straight_flush": 49,
        "four_of_a_kind": 17,
    }
    assert profile.aa_table == standard.aa_table
    assert profile.raw["rules"] == standard.raw["rules"]
    assert [c.figure for c in profile.claims] == ["house_edge"]  # restated; 82% not carried
    assert profile.variations == (
        Varied("ante_pay_table.straight_flush", 20, 49),
        Varied("ante_pay_table.four_of_a_kind", 10, 17),
        Varied("claims.house_edge", 0.0216, 0.0035),
    )


def test_rows_set_to_null_are_removed_and_flags_merge(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "v.yaml",
        "name: no-flush-row\nextends: short-aa\nante_pay_table: {flush: null}\n"
        "aa_bonus_pay_table: {royal_flush: null}\nrules: {fold_forfeits_aa_bonus: false}\n",
    )
    profile = load_profile(str(path))
    assert "flush" not in {c.wire for c in profile.ante_table.odds}
    assert profile.aa_table is not None and "royal_flush" not in profile.aa_table.odds
    assert not profile.fold_forfeits_aa_bonus and profile.clauses_from == "short-aa"
    assert Varied("rules.fold_forfeits_aa_bonus", True, False) in profile.variations
    assert profile.title == "no-flush-row: an approved variation of short-aa"


def test_a_variation_of_a_variation_keeps_the_bundled_clauses(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", "name: a\nextends: standard\ncall_multiple: 3\n")
    path = write(tmp_path, "b.yaml", "name: b\nextends: a.yaml\ndealer_qualifier: pair_of_twos\n")
    profile = load_profile(str(path))
    assert profile.clauses_from == "standard" and profile.call_multiple == 3
    assert {v.field for v in profile.variations} == {"call_multiple", "dealer_qualifier"}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("name: standard\nextends: standard\n", 2, "a name of its own"),
        ("name: x\nextends: nonesuch\n", 3, "no such profile"),
        ("name: x\nextends: ./x.yaml\n", 3, "extends loops back"),
        ("name: x\nextends: standard\ncatalogs: [s001]\n", 4, "catalogs cannot change"),
        ("name: x\nextends: standard\nante_pay_table: {flush: 0}\n", 4, "ante_pay_table/flush"),
        ("name: x\nextends: ./nowhere.yaml\n", 3, "no such file"),
        ("name: x\nextends: table2\naa_bonus_pay_table: {flush: 5}\n", 4, "cannot add it"),
        (
            "name: x\nextends: table2\nrequired_limits: {ante: [1, 5], aa_bonus: [1, 5]}\n",
            4,
            "no table could meet it",
        ),
    ],
)
def test_a_bad_variation_names_its_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = write(tmp_path, "x.yaml", text)
    with pytest.raises(SpecError, match=message) as caught:
        load_profile(str(path))
    assert caught.value.path == str(path) and caught.value.line == line


def test_a_copy_keeping_a_bundled_name_cannot_change_its_rules(tmp_path: Path) -> None:
    """Clauses name their profiles: a file named standard with its own tables would be
    judged by standard's clauses against those tables, and pass as standard."""
    text = (ROOT / "specs" / "profiles" / "standard.yaml").read_text()
    copy = tmp_path / "standard.yaml"
    copy.write_text(text.replace("straight_flush: 20", "straight_flush: 5"))
    with pytest.raises(SpecError, match="give it a name of its own and `extends: standard`"):
        load_profile(str(copy))
    via = write(tmp_path, "v.yaml", "name: v\nextends: ./standard.yaml\n")
    with pytest.raises(SpecError, match="changes ante_pay_table"):
        load_profile(str(via))
    stricter = tmp_path / "strict.yaml"  # a jurisdiction's copy may demand more
    stricter.write_text(text + "required_capabilities: [history]\n")
    assert load_profile(str(stricter)).required_capabilities == ("history",)


def test_the_clauses_a_variation_changes_are_varied_and_unrestated_claims_drop() -> None:
    profile = load_profile(str(EXAMPLE))
    found = applicable(load_catalogs(["s000"]), profile)
    assert [c.id for c in found.claims_not_restated] == ["s000-strategy"]  # standard's 82%
    marked = {c.id: varied(c, profile) for c in found.clauses if varied(c, profile)}
    assert set(marked) == {"s000-antewin", "s000-house-edge"}


def test_a_variation_without_the_aa_bonus_drops_the_clauses_about_it(tmp_path: Path) -> None:
    path = write(
        tmp_path, "v.yaml", "name: no-side-bet\nextends: standard\naa_bonus_pay_table: null\n"
    )
    found = applicable(load_catalogs(["s000"]), load_profile(str(path)))
    assert {c.id for c in found.not_offered} == {"s000-sidebet", "s000-sidebet-table"}
    assert "s000-r5" in {c.id for c in found.clauses}  # a fold still loses the ante


def test_a_variation_of_a_field_no_clause_states_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Standard's source says nothing of interrupted rounds: no clause could judge it."""
    text = "name: v\nextends: standard\nrules: {interrupted_rounds: [void]}\n"
    path = write(tmp_path, "v.yaml", text)
    assert main(["certify", "--dry-run", "--profile", str(path)]) == 4
    assert "changes rules.interrupted_rounds, which no clause" in capsys.readouterr().err


def test_a_laboratory_vector_must_state_the_rules_of_the_profile_certified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run judges a vector by the rules oracle; a --vectors file whose own expected
    values say otherwise is refused before the run, never passed silently."""
    vector = tmp_path / "lab.yaml"
    vector.write_text(
        "schema: settlement-vectors.schema.json\nheader: A laboratory's vector.\nnotes: {}\n"
        "groups:\n  - profiles: [standard]\n    tests:\n      - id: lab-one\n"
        "        clauses: [s000-r10]\n        comment: Hand-worked, wrongly.\n"
        "        result: valid\n"
        "        seats: [{seat: 1, ante: 100, action: call, hole: [Ah, Kh]}]\n"
        "        dealer: [2c, 7d]\n        flop: [Qh, Jh, 9s]\n        turn: 3c\n"
        "        river: 8d\n        expected:\n"
        "          dealer: {hand: high_card, qualifies: false}\n"
        "          seats: [{seat: 1, hand: high_card, ante: [100, 99999], call: [200, 200]}]\n",
        encoding="utf-8",
    )
    assert main(["certify", "--dry-run", "--vectors", str(vector)]) == 4
    assert "lab-one: its expected values are not the rules' under profile standard" in (
        capsys.readouterr().err
    )


# ------------------------------------------------------------------- proofs


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_a_game_certified_in_the_configuration_it_was_approved_in_passes(tmp_path: Path) -> None:
    """The approved variation example, at a table of 500..10,000 antes and 100..5,000 AA
    Bonus stakes capped at the ante (declared): every vector is asked at stakes that table
    takes, and every clause is tested."""
    game = vendor(*ANTE_49_17, "--ante-limits", "500:10000", "--aa-limits", "100:5000",
                  "--aa-cap", "1", "--declare-aa-cap")  # fmt: skip
    code, results = certify(tmp_path, "--adapter", game, "--profile", str(EXAMPLE), *QUICK)
    assert code == 0 and results["verdict"] == "PASS", results["incomplete_reasons"]
    rows = {c["id"]: c for c in results["clauses"]}
    assert all(rows[f"s000-r{n}"]["status"] == "pass" for n in (10, 11, 12, 13))
    assert {v["field"]: v["approved"] for v in rows["s000-antewin"]["varied"]} == {
        "ante_pay_table.straight_flush": 49,
        "ante_pay_table.four_of_a_kind": 17,
    }
    assert results["profile"]["not_applicable"] == ["s000-strategy"]
    table = results["table"]
    assert table["ante"] == [500, 10_000] and table["house_rules"] == {
        "aa_bonus_max_ante_multiple": 1
    }
    assert table["stakes"]["scaled"] > 0 and table["stakes"]["restaked"] > 0
    refusal = next(i for i in rows["s000-r2"]["items"] if "over-the-house-cap" in i["name"])
    assert refusal["status"] == "pass"


@pytest.mark.slow
def test_the_approved_variation_fails_standard_on_the_ante_pay_table_alone(
    tmp_path: Path,
) -> None:
    code, results = certify(tmp_path, "--adapter", vendor(*ANTE_49_17), *QUICK)
    assert code == 1 and failing(results) == {"s000-antewin"}


@pytest.mark.slow
def test_a_correct_game_with_its_own_limits_passes_standard(tmp_path: Path) -> None:
    game = vendor("--ante-limits", "500:10000", "--aa-limits", "100:5000")
    code, results = certify(tmp_path, "--adapter", game, *QUICK)
    assert code == 0 and results["verdict"] == "PASS", results["incomplete_reasons"]
    rows = {c["id"]: c for c in results["clauses"]}
    for n in (10, 11, 12, 13):
        row = rows[f"s000-r{n}"]
        assert row["status"] == "pass" and any(i["kind"] == "corpus" for i in row["items"])


@pytest.mark.slow
def test_an_undeclared_house_rule_fails_the_clause_of_wagers_alone(tmp_path: Path) -> None:
    code, results = certify(tmp_path, "--adapter", vendor("--aa-cap", "1"), *QUICK)
    assert code == 1 and failing(results) == {"s000-r2"}
    assert all(f["clause"] == "s000-r2" for f in results["failures"])
    assert any("refused-round" in f["item"] for f in results["failures"])


@pytest.mark.slow
def test_a_game_without_the_side_bet_passes_the_variation_that_removes_it(tmp_path: Path) -> None:
    path = write(
        tmp_path, "v.yaml", "name: no-side-bet\nextends: standard\naa_bonus_pay_table: null\n"
    )
    game = vendor("--no-aa-bonus")
    code, results = certify(tmp_path / "out", "--adapter", game, "--profile", str(path), *QUICK)
    assert code == 0 and results["verdict"] == "PASS", results["incomplete_reasons"]
    assert results["profile"]["not_offered"] == ["s000-sidebet", "s000-sidebet-table"]


@pytest.mark.slow
def test_the_table_certified_is_the_one_declared_to_the_controller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers play inside the hello the report prints: a game declaring another table to
    their connections refuses the rounds it declared it takes, and fails for it."""
    monkeypatch.setenv("TWO_FACED_MARKER", str(tmp_path / "first-connection"))
    args = ("--adapter", "python:tests.games:TwoFaced", "-n", "2", "-k", "s000-r10 and nq-")
    code, results = certify(tmp_path, *args)
    assert code == 1 and results["table"]["ante"] == [100, 50_000]
    assert {f["clause"] for f in results["failures"]} == {"s000-r2"}


def test_a_house_rule_the_profile_forbids_fails_declared_limits(tmp_path: Path) -> None:
    path = write(
        tmp_path, "strict.yaml", "name: strict\nextends: standard\nhouse_rules_allowed: []\n"
    )
    game = vendor("--aa-cap", "1", "--declare-aa-cap")
    args = ("--adapter", game, "--profile", str(path), "-k", "declared-limits")
    code, results = certify(tmp_path / "out", *args)
    assert code == 1
    (failure,) = results["failures"]
    assert failure["item"] == "s000-r2/declared-limits"
    assert "not allowed by profile strict" in failure["message"]


def test_a_side_bet_a_variation_removed_fails_declared_limits(tmp_path: Path) -> None:
    path = write(
        tmp_path, "v.yaml", "name: no-side-bet\nextends: standard\naa_bonus_pay_table: null\n"
    )
    args = ("--adapter", vendor(), "--profile", str(path), "-k", "declared-limits")
    code, results = certify(tmp_path / "out", *args)
    assert code == 1
    (failure,) = results["failures"]
    assert "the game offers an AA Bonus; profile no-side-bet has none" in failure["message"]


def test_an_aa_bonus_offered_without_limits_fails_declared_limits(tmp_path: Path) -> None:
    args = ("--adapter", "python:tests.games:NoAABonusLimits", "-k", "declared-limits")
    code, results = certify(tmp_path, *args)
    assert code == 1
    (failure,) = results["failures"]
    assert "offers an AA Bonus but declares no AA Bonus limits" in failure["message"]


def test_a_table_narrower_than_the_profile_requires_fails_declared_limits(tmp_path: Path) -> None:
    path = write(
        tmp_path, "j.yaml", "name: j\nextends: standard\nrequired_limits: {ante: [100, 20000]}\n"
    )
    game = vendor("--ante-limits", "500:10000")
    args = ("--adapter", game, "--profile", str(path), "-k", "declared-limits")
    code, results = certify(tmp_path / "out", *args)
    assert code == 1
    (failure,) = results["failures"]
    assert "do not include the 100..20000 profile j requires" in failure["message"]
