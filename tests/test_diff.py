"""chcert diff: the regression gate of a vendor's pipeline (docs/ci.md).

Built from small results.json-like dicts (the keys docs/results.md describes), read as
records, so that each test states the one change it makes; tests/test_ci_examples.py
compares real runs.
"""

from __future__ import annotations

import functools
import json
import operator
from pathlib import Path
from typing import Any

import pytest

from harness.cli.diff import diff_command
from harness.diff import diff_results, format_diff, status_direction
from harness.diff.compare import SAMPLE_SIZES, ResultsDiff
from harness.results.evidence import SAMPLED
from harness.results.model import Results
from harness.results.outcomes import EXIT_USAGE

SAMPLE = Path(__file__).resolve().parent.parent / "reports" / "samples" / "reference"


def _item(
    name: str, kind: str = "vector", status: str = "pass", message: str = ""
) -> dict[str, Any]:
    needs = "a run without a selection" if status == "not_tested" else ""
    return {"name": name, "kind": kind, "status": status, "message": message, "needs": needs}


def _clause(cid: str, title: str, *items: dict[str, Any], status: str = "pass") -> dict[str, Any]:
    return {
        "id": cid,
        "title": title,
        "kind": "implementation",
        "status": status,
        "items": list(items),
    }


def _results() -> dict[str, Any]:
    """A PASS run of three clauses, two figures and four vectors, as certify writes it."""
    return {
        "schema_version": 2,
        "verdict": "PASS",
        "implementation_verdict": "PASS",
        "publication_verdict": "PASS",
        "selection": None,
        "adapter": "reference",
        "profile": {"name": "standard", "title": "Standard"},
        "clauses": [
            _clause(
                "s000-r1",
                "Standard 52-card deck",
                _item("s000-r1/deck-integrity", "check"),
                _item("s000-r1/cards-repeated"),
            ),
            _clause(
                "s000-r12",
                "Tie with a qualifying dealer pushes",
                _item("s000-r12/tie-flush-board"),
                _item("s000-r12/tie-straight-board"),
            ),
            _clause("s000-edge", "House edge 2.16%", _item("claim:house_edge", "claim")),
        ],
        "vectors": {"total": 4, "passed": 4, "failed": 0, "errors": 0, "not_tested": 0},
        "failures": [],
        "publication": {
            "verdict": "PASS",
            "claimed_by_source": [
                {"figure": "house_edge", "claimed": 0.0216, "status": "pass", "computed": 0.02158}
            ],
            "published_by_game": [
                {"figure": "rtp", "claimed": 0.978, "status": "pass", "computed": 0.9784}
            ],
        },
        "manifest": {
            "harness_version": "0.1.0",
            **{k: "0" * 64 for k in ("profile_sha256", "spec_sha256", "vectors_sha256")},
            "started": "2026-12-01T10:17:12+00:00",
            "finished": "2026-12-01T10:21:40+00:00",
            "seed": 7,
            "run_plan": {},
        },
    }


def _failure(clause: str | None, item: str, message: str = "settled otherwise") -> dict[str, Any]:
    return {
        "kind": "implementation",
        "clause": clause,
        "item": item,
        "item_kind": "vector",
        "message": message,
        "reproduce": f"chcert certify --item {item}",
    }


def _set(results: dict[str, Any], clause: str, status: str, *items: tuple[str, str]) -> None:
    """Set a clause's status and some of its items' statuses."""
    row = next(c for c in results["clauses"] if c["id"] == clause)
    row["status"] = status
    for name, item_status in items:
        item = next(i for i in row["items"] if i["name"] == name)
        item["status"] = item_status
        item["needs"] = "a run without a selection" if item_status == "not_tested" else ""


def _failing(
    results: dict[str, Any], clause: str, item: str, message: str = "seat 1 ante [100, 0]"
) -> None:
    """Make an item fail, with its failure, the clause's status and the verdicts to match."""
    _set(results, clause, "fail", (item, "fail"))
    results["failures"].append(_failure(clause, item, message))
    results["verdict"] = results["implementation_verdict"] = "FAIL"


def _compare(old: dict[str, Any], new: dict[str, Any]) -> ResultsDiff:
    """diff_results on the two read as results.json is."""
    return diff_results(Results.from_json(old), Results.from_json(new))


def _diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: Any, new: Any, as_json: bool = False
) -> tuple[int, str]:
    """diff_command on the two written as files: its exit code and what it printed."""
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    code = diff_command(str(tmp_path / "old.json"), str(tmp_path / "new.json"), as_json=as_json)
    return code, capsys.readouterr().out


def test_identical_runs_are_no_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _diff(tmp_path, capsys, _results(), _results())
    assert code == 0
    assert "no change" in out and "Regressions" not in out
    assert "Unchanged: 3 clauses, 5 items, 2 figures" in out


def test_a_later_run_of_the_same_game_is_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Times and failure messages (amounts, counts) differ between runs of the same game."""
    old, new = _results(), _results()
    _failing(old, "s000-r12", "s000-r12/tie-flush-board", "seat 1 ante [100, 0]")
    _failing(new, "s000-r12", "s000-r12/tie-flush-board", "seat 1 ante [18097, 0]")
    new["manifest"]["started"] = "2026-12-02T09:00:00+00:00"
    code, out = _diff(tmp_path, capsys, old, new)
    assert code == 0 and "no change" in out


def test_a_clause_that_passed_and_now_fails_regresses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _results()
    _failing(new, "s000-r12", "s000-r12/tie-flush-board")
    code, out = _diff(tmp_path, capsys, _results(), new)
    assert code == 1
    regressions = out.split("Regressions", 1)[1].split("Unchanged")[0]
    assert "REGRESSED" in out
    assert "clause s000-r12 (Tie with a qualifying dealer pushes): pass -> fail" in regressions
    assert "verdict PASS -> FAIL" in regressions
    assert "new failure s000-r12/tie-flush-board: seat 1 ante [100, 0]" in regressions
    assert "reproduce: chcert certify --item s000-r12/tie-flush-board" in regressions


def test_an_item_that_passed_and_is_now_not_tested_regresses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No failure, the verdict aside: losing a tested item is a regression by itself."""
    new = _results()
    _set(new, "s000-r1", "pass", ("s000-r1/cards-repeated", "not_tested"))
    code, out = _diff(tmp_path, capsys, _results(), new)
    assert code == 1
    assert "item s000-r1/cards-repeated: pass -> not_tested (a run without a selection)" in out


def test_a_selection_after_a_full_run_regresses_clause_by_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a -k run against a certified baseline shows: a clause's line says its items
    when all of them went the same way, and names them when only some did."""
    new = _results()
    new["verdict"] = new["implementation_verdict"] = "INCOMPLETE"
    new["selection"] = {"expressions": {"-k": "s000-r1"}, "left_out": [], "ran": 1, "planned": 5}
    _set(
        new,
        "s000-r12",
        "not_tested",
        *((f"s000-r12/tie-{b}-board", "not_tested") for b in ("flush", "straight")),
    )
    _set(new, "s000-r1", "not_tested", ("s000-r1/cards-repeated", "not_tested"))
    code, out = _diff(tmp_path, capsys, _results(), new)
    assert code == 1
    assert "NEW is a selection (-k / --item): never a certificate" in out
    assert "verdict PASS -> INCOMPLETE" in out
    folded = "pass -> not_tested, and 2 of its items likewise"
    assert f"clause s000-r12 (Tie with a qualifying dealer pushes): {folded}" in out
    assert "s000-r12/tie-flush-board" not in out  # said by its clause's line
    assert "clause s000-r1 (Standard 52-card deck): pass -> not_tested\n" in out  # nothing folded
    assert "item s000-r1/cards-repeated: pass -> not_tested" in out


def test_a_failing_run_fixed_is_no_regression_and_lists_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _results()
    _failing(old, "s000-r12", "s000-r12/tie-flush-board")
    code, out = _diff(tmp_path, capsys, old, _results())
    assert code == 0 and "no regression" in out
    fixed = out.split("Fixed", 1)[1].split("Unchanged")[0]
    assert "verdict FAIL -> PASS" in fixed
    assert "clause s000-r12 (Tie with a qualifying dealer pushes): fail -> pass" in fixed
    assert "fixed s000-r12/tie-flush-board: seat 1 ante [100, 0]" in fixed
    assert "Regressions" not in out


def test_a_new_failure_regresses_whatever_the_statuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game that stopped answering hello fails with no clause; keyed (clause, item)."""
    old, new = _results(), _results()
    for results in (old, new):
        _failing(results, "s000-r12", "s000-r12/tie-flush-board")
    new["failures"].append(_failure(None, "hello", "the game did not answer hello"))
    code, out = _diff(tmp_path, capsys, old, new)
    assert code == 1
    assert "new failure hello: the game did not answer hello" in out
    assert "tie-flush-board" not in out  # the same failure in both: not new


def test_a_failure_gone_because_its_item_did_not_run_is_not_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = _results(), _results()
    _failing(old, "s000-r12", "s000-r12/tie-flush-board")
    _set(new, "s000-r12", "not_tested", ("s000-r12/tie-flush-board", "not_tested"))
    new["verdict"] = new["implementation_verdict"] = "INCOMPLETE"
    d = _compare(old, new)
    assert not d.fixed_failures and [f.item for f in d.dropped_failures] == [
        "s000-r12/tie-flush-board"
    ]
    code, out = _diff(tmp_path, capsys, old, new)
    # FAIL -> INCOMPLETE is better by rank, but an item that no longer runs is less
    # evidence: a failure must not leave the gate by ceasing to run (docs/ci.md)
    assert code == 1 and "less evidence: items run to a verdict" in out
    assert "Fixed" in out and "verdict FAIL -> INCOMPLETE" in out
    assert "gone but not passing s000-r12/tie-flush-board" in out.split("Other changes")[1]


def test_a_differential_cause_gone_from_a_passing_clause_is_fixed() -> None:
    """Items another check attributes to a clause are listed only while they fail."""
    old = _results()
    cause = "s000-r12/corpus:tie-pair-vs-pair"
    old["clauses"][1]["items"].append(_item(cause, "differential", "fail"))
    _failing(old, "s000-r12", cause)
    d = _compare(old, _results())
    assert [f.item for f in d.fixed_failures] == [cause]
    assert [(c.key, c.old, c.new, c.direction) for c in d.items] == [
        (cause, "fail", None, "improvement")
    ]
    assert not d.regressed


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("pass", "fail", "regression"),
        ("pass", "not_tested", "regression"),
        ("pass", None, "regression"),  # a clause or item that passed and is gone
        ("pass", "attested", "regression"),  # tested before, only attested now
        ("attested", "not_tested", "regression"),
        ("attested", "pass", "improvement"),
        ("not_tested", "fail", "regression"),
        (None, "fail", "regression"),
        ("fail", "pass", "improvement"),
        ("not_tested", "attested", "improvement"),
        ("fail", "not_tested", "other"),  # no longer failing, but not verified either
        ("not_tested", "error", "other"),
        (None, "pass", "other"),  # new coverage
        ("fail", None, "other"),
    ],
)
def test_how_a_status_change_counts(old: str | None, new: str | None, expected: str) -> None:
    assert status_direction(old, new) == expected


def test_a_clause_gone_regresses_and_one_added_does_not() -> None:
    new = _results()
    gone = new["clauses"].pop(0)
    new["clauses"].append({**gone, "id": "s000-r1b"})
    d = _compare(_results(), new)
    assert {(c.key, c.old, c.new, c.direction) for c in d.clauses} == {
        ("s000-r1", "pass", None, "regression"),
        ("s000-r1b", None, "pass", "other"),
    }
    assert d.regressed


def test_a_verdict_worse_by_rank_regresses_alone() -> None:
    """INCOMPLETE -> FAIL of the publication, the clauses' statuses the same."""
    old, new = _results(), _results()
    old["publication_verdict"] = old["verdict"] = "INCOMPLETE"
    new["publication_verdict"] = new["verdict"] = "FAIL"
    d = _compare(old, new)
    assert d.regressed
    assert [v.direction for v in d.verdicts] == ["regression", "unchanged", "regression"]


def test_a_figure_refuted_now_regresses() -> None:
    new = _results()
    new["publication"]["published_by_game"][0].update(status="fail", computed=0.9701)
    d = _compare(_results(), new)
    assert [(c.key, c.old, c.new) for c in d.figures] == [("published:rtp", "pass", "fail")]
    assert d.regressed
    assert "figure published:rtp: pass -> fail (claimed 0.978, computed 0.9701)" in format_diff(d)


def test_runs_of_other_profiles_or_adapters_are_compared_with_a_warning() -> None:
    new = _results()
    new["profile"]["name"] = "source-001"
    new["adapter"] = "subprocess:./game --jsonl"
    out = format_diff(_compare(_results(), new))
    assert (
        "WARNING: different profiles: OLD standard, NEW source-001 (compared all the same)" in out
    )
    assert "WARNING: different adapters: OLD reference, NEW subprocess:./game --jsonl" in out
    assert "no change" in out  # what the runs found is the same


def test_vector_counts_are_shown_before_and_after() -> None:
    new = _results()
    new["vectors"].update(passed=3, failed=1)
    out = format_diff(_compare(_results(), new))
    assert "vectors: passed 4 -> 3, failed 0 -> 1" in out.split("Other changes")[1]


def _schema_1(*failures: dict[str, Any]) -> dict[str, Any]:
    """A run as the harness of schema 1 wrote it: one verdict, clauses without items,
    failures naming their vector or check, the mathematics' statuses in words of their
    own, and no run plan in the manifest."""
    clauses = [
        {"id": "s000-r1", "title": "Standard 52-card deck", "status": "pass"},
        {"id": "s000-r12", "title": "Tie with a qualifying dealer pushes", "status": "pass"},
        {"id": "s000-edge", "title": "House edge 2.16%", "status": "pass"},
    ]
    if failures:
        clauses[1]["status"] = "fail"
    claim = {"figure": "house_edge", "claimed": 0.0216, "status": "confirmed", "computed": 0.02158}
    manifest = {k: v for k, v in _results()["manifest"].items() if k != "run_plan"}
    return {
        "verdict": "FAIL" if failures else "PASS",
        "incomplete_reasons": [],
        "adapter": "reference",
        "profile": {"name": "standard", "title": "Standard"},
        "clauses": clauses,
        "vectors": {"total": 3, "passed": 3 - len(failures), "failed": len(failures)},
        "failures": list(failures),
        "math": {"status": "complete", "claims": [claim], "simulation": {"status": "pass"}},
        "manifest": manifest,
    }


def test_an_older_results_file_still_compares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Schema 1 had one verdict and no items: the others were never stated."""
    code, out = _diff(tmp_path, capsys, _schema_1(), _results())
    assert code == 0
    assert "implementation_verdict: None -> PASS" in out
    assert "publication_verdict:    None -> PASS" in out


def test_a_failure_of_schema_1_is_the_item_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Schema 1 named a failure's vector (or check) apart from its clause: it is the item
    `clause/vector` of a later run, so the same fault is no new failure, and its fix is."""
    failure = {
        "vector": "tie-flush-board",
        "check": None,
        "clause": "s000-r12",
        "message": "seat 1 ante [100, 0]",
        "reproduce": "chcert certify -k tie-flush-board",
    }
    new = _results()
    _failing(new, "s000-r12", "s000-r12/tie-flush-board")
    code, out = _diff(tmp_path, capsys, _schema_1(failure), new)
    assert code == 1 and "new failure" not in out  # only its item, now listed
    code, out = _diff(tmp_path, capsys, _schema_1(failure), _results())
    assert code == 0 and "fixed s000-r12/tie-flush-board: seat 1 ante [100, 0]" in out


def test_a_stub_compares_as_a_run_of_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run the test runner stopped before its results has no clauses and names no
    adapter; one of schema 4 kept a manifest of only the report's id and artifacts."""
    stub = {
        "schema_version": 4,
        **dict.fromkeys(("verdict", "implementation_verdict", "publication_verdict"), "INCOMPLETE"),
        "incomplete_reasons": ["the test runner stopped before writing results (exit 3)"],
        "gaps": [],
        "selection": None,
        "profile": {"name": "standard"},
        "clauses": [],
        "attestations": [],
        "vectors": {},
        "failures": [],
        "manifest": {"report_id": "CHC-20261201-0A1B2C3D", "artifacts": []},
    }
    code, out = _diff(tmp_path, capsys, _results(), stub)
    assert code == 1 and "clause s000-r1 (Standard 52-card deck): pass -> (absent)" in out
    assert "NEW: INCOMPLETE, profile standard, adapter None, seed None, chcert None\n" in out


def test_a_value_of_the_wrong_type_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gate cannot rank what it cannot read: one line, naming where the value is."""
    bad = _results()
    bad["clauses"][0]["id"] = 1
    (tmp_path / "good.json").write_text(json.dumps(_results()))
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert diff_command(str(tmp_path / "good.json"), str(tmp_path / "bad.json")) == EXIT_USAGE
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        f"chcert: diff: {tmp_path / 'bad.json'}: not a results file of this harness "
        "(Expected `str`, got `int` - at `$.clauses[0].id`)"
    )


def test_a_refuted_claim_of_no_clause_is_fixed_when_its_figure_passes() -> None:
    """A figure the profile claims that no clause states fails as `claim:FIGURE` of no
    clause: its row is the figure's, `claimed:FIGURE`."""
    old = _results()
    old["publication"]["claimed_by_source"][0].update(status="fail", computed=0.0301)
    old["failures"].append(
        {
            "kind": "publication",
            "clause": None,
            "item": "claim:house_edge",
            "item_kind": "claim",
            "message": "house_edge 0.0216 claimed by the rules: 0.0301",
        }
    )
    old["verdict"] = old["publication_verdict"] = "FAIL"
    d = _compare(old, _results())
    assert [f.item for f in d.fixed_failures] == ["claim:house_edge"] and not d.regressed
    unchecked = _results()
    unchecked["publication"]["claimed_by_source"] = []
    assert [f.item for f in _compare(old, unchecked).dropped_failures] == ["claim:house_edge"]


def test_every_sampled_check_has_its_size_in_the_records() -> None:
    """harness/results/evidence.py SAMPLED says where results.json keeps each sample's size; the
    diff reads it from the records: both name the same number."""
    data = json.loads((SAMPLE / "results.json").read_text())
    results = Results.from_json(data)
    assert set(SAMPLE_SIZES) == {s.name for s in SAMPLED}
    for sampled in SAMPLED:
        path = ("math", "simulation") if sampled.section == "simulation" else (sampled.section,)
        written = functools.reduce(operator.getitem, (*path, sampled.size), data)
        assert SAMPLE_SIZES[sampled.name](results) == written > 0, sampled.name


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "no such file"),
        ("{not json", "not JSON"),
        ("[1, 2]", "not a results file"),
        ('{"verdict": "PASS"}', "not a results file (no verdict or clauses)"),
        ('{"clauses": []}', "not a results file"),
    ],
)
def test_a_file_that_is_not_results_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, why: str
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(_results()))
    if content is not None:
        bad.write_text(content)
    for old, new in ((good, bad), (bad, good)):
        assert diff_command(str(old), str(new)) == EXIT_USAGE
        captured = capsys.readouterr()
        assert captured.out == ""
        (line,) = captured.err.splitlines()
        assert line.startswith(f"chcert: diff: {bad}: {why}")


def test_json_output_parses_and_says_what_the_text_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _results()
    _failing(new, "s000-r12", "s000-r12/tie-flush-board")
    code, out = _diff(tmp_path, capsys, _results(), new, as_json=True)
    data = json.loads(out)
    assert code == 1 and data["regressed"] is True and data["changed"] is True
    assert data["old_file"].endswith("old.json") and data["new_file"].endswith("new.json")
    assert {v["name"]: [v["old"], v["new"]] for v in data["verdicts"]}["verdict"] == [
        "PASS",
        "FAIL",
    ]
    (clause,) = data["clauses"]
    assert clause == {
        "kind": "clause",
        "key": "s000-r12",
        "clause": None,
        "title": "Tie with a qualifying dealer pushes",
        "old": "pass",
        "new": "fail",
        "direction": "regression",
        "detail": "",
        "items": 2,
    }
    assert [f["item"] for f in data["new_failures"]] == ["s000-r12/tie-flush-board"]
    assert data["vectors"] == {"old": _results()["vectors"], "new": _results()["vectors"]}
    code, out = _diff(tmp_path, capsys, _results(), _results(), as_json=True)
    assert code == 0 and json.loads(out)["changed"] is False


def _math(house_edge: float, rtp: float) -> dict[str, Any]:
    return {
        "status": "pass",
        "house_edge": house_edge,
        "rtp": rtp,
        "claims": [],
        "simulation": {"status": "pass"},
    }


def test_a_variation_against_its_base_lists_the_profile_and_every_figure_that_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run of an approved variation (examples/variation/ante-49-17.yaml) against one of
    standard: every status alike, yet the pay-table rows, the claim, the exact figures
    and the figure the claim is judged on all moved. Each is listed, exactly; none is
    counted unchanged; a move alone is no regression (the statuses say what still holds)."""
    table = {"royal_flush": 100, "straight_flush": 20, "four_of_a_kind": 10, "flush": 2}
    claim = {"figure": "house_edge", "value": 0.0216, "source": {"file": "000", "ref": "x"}}
    old, new = _results(), _results()
    old["profile"]["resolved"] = {"name": "standard", "ante_pay_table": table, "claims": [claim]}
    old["math"] = _math(0.021576458362308686, 0.9784235416376913)
    new["profile"] = {
        "name": "ante-49-17",
        "title": "Standard with the ante's straight flush at 49 and four of a kind at 17",
        "extends": "standard",
        "resolved": {
            "name": "ante-49-17",
            "ante_pay_table": {**table, "straight_flush": 49, "four_of_a_kind": 17},
            "claims": [{**claim, "value": 0.0035}],
        },
    }
    new["math"] = _math(0.0035105772469052657, 0.9964894227530947)
    moved = {"claimed": 0.0035, "status": "pass", "computed": 0.0035105772469052657}
    new["publication"]["claimed_by_source"] = [{"figure": "house_edge", **moved}]
    code, out = _diff(tmp_path, capsys, old, new)
    assert code == 0 and "no regression" in out
    assert (
        "WARNING: different profiles: OLD standard, NEW ante-49-17 "
        "(NEW is an approved variation of standard)"
    ) in out
    assert "profile ante-49-17 (a variation of standard)" in out
    listed = out.split("Other changes (", 1)[1].splitlines()[1:]
    assert [line.strip() for line in listed if line.strip()][:7] == [
        "profile ante_pay_table.straight_flush: 20 -> 49",
        "profile ante_pay_table.four_of_a_kind: 10 -> 17",
        "profile claims.house_edge: 0.0216 -> 0.0035",
        "house edge (exact): 0.021576458362308686 -> 0.0035105772469052657",
        "return to player (exact): 0.9784235416376913 -> 0.9964894227530947",
        "figure claimed:house_edge: claimed 0.0216 -> 0.0035",
        "figure claimed:house_edge: computed 0.02158 -> 0.0035105772469052657",
    ]
    assert "Unchanged: 3 clauses, 5 items, 1 figures" in out  # rtp, published, alone
    d = _compare(old, new)
    assert d.changed and not d.regressed
    assert {(v.kind, v.key) for v in d.values} >= {
        ("profile", "ante_pay_table.straight_flush"),
        ("exact", "house_edge"),
        ("figure", "claimed:house_edge"),
    }
    code, out = _diff(tmp_path, capsys, old, new, as_json=True)
    values = json.loads(out)["values"]
    assert {
        "kind": "profile",
        "key": "ante_pay_table.four_of_a_kind",
        "what": "ante_pay_table.four_of_a_kind",
        "old": 10,
        "new": 17,
    } in values


def test_a_variation_in_markdown_lists_what_moved_too() -> None:
    from harness.report.markdown import diff_markdown

    old, new = _results(), _results()
    old["profile"]["resolved"] = {"ante_pay_table": {"straight_flush": 20}}
    new["profile"] = {
        "name": "ante-49-17",
        "extends": "standard",
        "resolved": {"ante_pay_table": {"straight_flush": 49}},
    }
    md = diff_markdown(_compare(old, new))
    assert r"- profile ante\_pay\_table.straight\_flush: 20 -> 49" in md
    assert "| **profile** | standard | ante-49-17 (a variation of standard) |" in md
