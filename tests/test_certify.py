"""`chcert certify` end to end (contract 2 and 3): verdicts, exit codes, files written."""

from __future__ import annotations

import base64
import os
import shlex
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from harness.cli import main
from harness.gamemath.publication import published_figures
from harness.reference import ReferenceGame
from harness.reference.shufflers import naive_swap_with_any
from harness.rules.catalogs import clause_index, load_catalogs
from harness.rules.profiles import Profile
from harness.vectors.refusals import load_all_refusals
from tests import runs
from tests.games import PublishesTrueFigures, served
from tests.pdftext import pdf_text
from tests.results import load_results, reasons
from tests.runs import wait_for_lines
from tests.signals import default_signals

FAULTY = Path(__file__).parent / "fixtures" / "faulty_game.py"


# A fair shuffle fails the RNG battery 1% of the time, by design; the RTP simulation
# has tests of its own (tests/test_gamemath.py) and is left out here for speed.
NO_BATTERY = ["-k", "not rng-battery and not rtp-simulation"]


# The differential's own tests (tests/test_differential.py, tests/test_mutants.py) run
# it at the default budget; here a small one keeps each run to seconds.
SMALL_DIFFERENTIAL = ["--differential", "2000"]


def certify(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """A run in this process; without -k, the default selection leaves out the battery and
    the simulation (so the verdict is at best INCOMPLETE: a selection never certifies)."""
    if "-k" not in args and "--all" not in args:
        args = (*args, *NO_BATTERY)
    if "--differential" not in args:
        args = (*args, *SMALL_DIFFERENTIAL)
    if "--plan" not in args:
        args = (*args, *runs.QUICK_SAMPLES)
    return runs.certify(tmp_path, *(a for a in args if a != "--all"))


@pytest.mark.slow  # the fast tier certifies the reference with one worker (tests/test_mutants.py)
@pytest.mark.timeout(900)
def test_reference_certifies_pass_through_the_command_line(tmp_path: Path) -> None:
    """The README's main job, as a user runs it: a real subprocess, two workers, every item.

    The game is the reference with seeded shuffles (tests/games.py), so the RNG battery,
    which a fair shuffle fails rarely by design (docs/verdict.md), cannot make this flaky.
    """
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "certify",
            "--adapter",
            served("Seeded"),
            "--out",
            str(tmp_path),
            "-n",
            "2",
            "--seed",
            "7",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "VERDICT: PASS" in proc.stdout
    results = load_results(tmp_path)
    assert results["verdict"] == "PASS" and results["selection"] is None
    assert results["implementation_verdict"] == results["publication_verdict"] == "PASS"
    assert results["implementation"]["name"] == "chcert-reference"
    assert (
        results["vectors"]["total"] >= 40
        and results["vectors"]["passed"] == results["vectors"]["total"]
    )
    statuses = {c["id"]: c["status"] for c in results["clauses"]}
    assert set(statuses.values()) == {"pass"}
    assert statuses["s000-r9"] == "pass" and statuses["s000-house-edge"] == "pass"
    assert results["rng"]["status"] == "pass" and results["math"]["simulation"]["status"] == "pass"
    assert results["math"]["status"] == "pass" and (tmp_path / "strategy.npz").exists()
    assert results["manifest"]["seed"] == 7 and len(results["manifest"]["spec_sha256"]) == 64
    assert (tmp_path / "junit.xml").exists()
    assert "VERDICT: PASS" in pdf_text(tmp_path / "report.pdf")


def test_broken_game_fails_with_the_clause_named_in_json_and_pdf(tmp_path: Path) -> None:
    adapter = f"subprocess:{sys.executable} -m harness.reference --mutant tie-loses"
    code, results = certify(tmp_path, "--adapter", adapter)
    assert code == 1 and results["verdict"] == "FAIL"
    failed = {c["id"] for c in results["clauses"] if c["status"] == "fail"}
    assert failed == {"s000-r12"}
    assert {f["clause"] for f in results["failures"]} == {"s000-r12"}
    text = pdf_text(tmp_path / "report.pdf")
    assert "VERDICT: FAIL" in text and "s000-r12" in text


def test_unreachable_game_is_incomplete_and_every_output_is_replaced(tmp_path: Path) -> None:
    # Outputs of an earlier run in the folder are never left to be read as this run's.
    (tmp_path / "repro").mkdir()
    (tmp_path / "repro" / "repro-rtp-simulation-round6-seed7.yaml").write_text("stale")
    (tmp_path / "junit.xml").write_text("stale")
    (tmp_path / "strategy.npz").write_text("stale")
    code, results = certify(tmp_path, "--adapter", "subprocess:/no/such/game")
    assert code == 2 and results["verdict"] == "INCOMPLETE"
    assert "unreachable" in reasons(results)[0]
    assert (tmp_path / "report.pdf").exists()
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert junit.get("verdict") == "INCOMPLETE" and int(junit.get("skipped") or 0) > 0
    assert junit.get("errors") == "1"  # the verdict's own test case: never green in CI
    assert not (tmp_path / "repro").exists() and (tmp_path / "strategy.npz").stat().st_size > 99


def test_a_game_that_dies_at_start_is_unreachable_with_its_stderr_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "game.py"
    game.write_text("import no_such_dependency_of_the_game\n")
    code, results = certify(tmp_path / "out", "--adapter", f"subprocess:{sys.executable} {game}")
    assert code == 2 and "unreachable" in reasons(results)[0]
    assert "ModuleNotFoundError" in results["implementation_stderr"]
    assert "ModuleNotFoundError" in capsys.readouterr().out


def test_a_hello_outside_protocol_v1_fails_as_such(tmp_path: Path) -> None:
    code, results = certify(tmp_path, "--adapter", "python:tests.games:NoLimits")
    assert code == 1 and results["implementation_verdict"] == "FAIL"
    (failure,) = results["failures"]
    assert failure["item"] == "hello"
    assert failure["message"] == "hello does not conform to protocol v1: config.limits is missing"
    assert "-k" not in failure["reproduce"]
    reproduced = main(shlex.split(failure["reproduce"])[1:])
    assert reproduced == 1


def test_usage_errors_exit_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--profile", "nonesuch", "--out", str(tmp_path)]) == 4
    assert "bundled profiles" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["certify", "--bogus"])
    assert exc.value.code == 4
    assert main(["certify", "--out", str(tmp_path), "-k", "not ("]) == 4
    assert "not a valid selection" in capsys.readouterr().err
    assert not (tmp_path / "results.json").exists()


def test_help_states_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["certify", "--help"])
    out = capsys.readouterr().out
    assert "0 PASS" in out and "1 FAIL" in out and "2 INCOMPLETE" in out and "4 usage" in out


def test_a_selection_matching_nothing_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    earlier = '{"verdict": "PASS", "note": "an earlier run"}'
    (tmp_path / "results.json").write_text(earlier)
    code = main(["certify", "--out", str(tmp_path), "-k", "nq-deler-pair-of-threes"])  # typo
    assert code == 4 and "matches no item" in capsys.readouterr().err
    assert (tmp_path / "results.json").read_text() == earlier  # put back, untouched
    assert not list(tmp_path.glob(".chcert-run-*"))


def test_a_selection_never_certifies(tmp_path: Path) -> None:
    code, results = certify(
        tmp_path,
        "--adapter",
        "python:harness.reference:ReferenceGame",
        "-k",
        "nq-dealer-pair-of-threes",
    )
    assert code == 2 and results["verdict"] == "INCOMPLETE"
    assert results["vectors"]["passed"] == 1 and results["vectors"]["failed"] == 0
    assert results["vectors"]["not_tested"] == results["vectors"]["total"] - 1
    assert results["selection"]["expressions"] == {"-k": "nq-dealer-pair-of-threes"}
    assert results["selection"]["ran"] == 1 and len(results["selection"]["left_out"]) > 50
    rows = {c["id"]: c for c in results["clauses"]}
    assert rows["s000-r9"]["status"] == "not_tested"  # one of its vectors ran, not all
    assert "a run without a selection" in rows["s000-r9"]["to_close"]
    text = pdf_text(tmp_path / "report.pdf")
    assert "nq-dealer-pair-of-threes" in text and "VERDICT: INCOMPLETE" in text


def test_vectors_check_reports_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "check"]) == 0
    assert "clauses" in capsys.readouterr().out


@pytest.mark.slow  # a signal run
def test_ctrl_c_leaves_results_marked_incomplete(tmp_path: Path) -> None:
    marker = tmp_path / "playing"
    adapter = f"subprocess:{sys.executable} {FAULTY} --fault slow --marker {marker}"
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "certify",
            "--adapter",
            adapter,
            "--out",
            str(out),
            "-k",  # vectors, so that several have run and most have not when Ctrl-C comes
            "not rng-battery and not rtp-simulation and not dealt-cards-distinct"
            " and not corpus and not differential and not information-hiding"
            " and not history-recall and not aa-bonus-locked",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=default_signals,
    )
    wait_for_lines(marker, 3)  # 3 results asked
    proc.send_signal(signal.SIGINT)  # each later result takes 0.3 s: most vectors not yet run
    stdout, _ = proc.communicate(timeout=120)
    results = load_results(out)
    assert proc.returncode == 2, stdout
    assert results["verdict"] == "INCOMPLETE"
    reason = "run interrupted (Ctrl-C) before every item had run"
    assert reason in reasons(results), stdout
    vectors = results["vectors"]
    assert 0 < vectors["passed"] < vectors["total"] and vectors["failed"] == 0
    assert (out / "report.pdf").exists()


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_missing_capabilities_are_not_tested_never_passed(tmp_path: Path) -> None:
    """A game hiding inject cannot PASS: the clauses it cannot be asked stay not tested,
    until a laboratory attests them."""
    code, results = certify(tmp_path / "a", "--adapter", "python:tests.games:NoInject", "--all")
    assert code == 2 and results["verdict"] == "INCOMPLETE"
    # Every stacked settlement vector is not tested; only refusals ran (docs/refusals.md).
    refusals = {r.id for r in load_all_refusals(clause_index(load_catalogs()))}
    ran = [i for c in results["clauses"] for i in c["items"] if i["status"] == "pass"]
    assert {i["name"].partition("/")[2] for i in ran if i["kind"] == "vector"} <= refusals
    assert results["vectors"]["not_tested"] > 40
    rows = {c["id"]: c for c in results["clauses"]}
    assert rows["s000-r12"]["status"] == "not_tested"
    assert "capability inject" in rows["s000-r12"]["to_close"]
    assert {g["clause"] for g in results["gaps"]} >= {"s000-r12", "s000-r4"}
    # s000-r2's declared-limits check ran and passed; its vectors did not: not a pass.
    assert rows["s000-r2"]["status"] == "not_tested"
    attest = tmp_path / "attest.yaml"
    attest.write_text(
        yaml.safe_dump(
            {
                "attestations": [
                    {
                        "clause": gap["clause"],
                        "result": "pass",
                        "evidence": f"Lab test record TR-{n}: stacked rounds on the vendor's rig",
                        "by": "A. Auditor, Example Test Lab",
                        "date": "2026-11-30",
                    }
                    for n, gap in enumerate(results["gaps"])
                ]
            }
        )
    )
    args = ("--adapter", "python:tests.games:NoInject", "--attest", str(attest), "--all")
    code, results = certify(tmp_path / "b", *args)
    assert code == 0 and results["verdict"] == "PASS"
    assert {c["status"] for c in results["clauses"]} == {"pass", "attested"}
    assert all(a["applied"] for a in results["attestations"])


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_an_attestation_never_covers_a_failure(tmp_path: Path) -> None:
    attest = tmp_path / "attest.yaml"
    attest.write_text(
        "attestations:\n"
        "  - {clause: s000-r12, result: pass, evidence: x, by: y, date: '2026-11-30'}\n"
    )
    adapter = f"subprocess:{sys.executable} -m harness.reference --mutant tie-loses"
    code, results = certify(tmp_path / "out", "--adapter", adapter, "--attest", str(attest))
    assert code == 1
    rows = {c["id"]: c for c in results["clauses"]}
    assert rows["s000-r12"]["status"] == "fail"
    (entry,) = results["attestations"]
    assert not entry["applied"] and "failure stands" in entry["note"]


def test_a_bad_attestation_file_is_a_usage_error_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attest = tmp_path / "attest.yaml"
    attest.write_text(
        "attestations:\n  - clause: s000-r12\n    result: maybe\n    evidence: x\n"
        "    by: y\n    date: '2026-11-30'\n"
    )
    assert main(["certify", "--out", str(tmp_path / "o"), "--attest", str(attest)]) == 4
    assert f"{attest}:3" in capsys.readouterr().err
    attest.write_text(
        "attestations:\n"
        "  - {clause: s001-r1, result: pass, evidence: x, by: y, date: '2026-11-30'}\n"
    )
    assert main(["certify", "--out", str(tmp_path / "o"), "--attest", str(attest)]) == 4
    assert "not a clause of the profile" in capsys.readouterr().err


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_one_seat_leaves_multi_seat_clauses_not_tested(tmp_path: Path) -> None:
    code, results = certify(tmp_path, "--adapter", "python:tests.games:OneSeat", "--all")
    rows = {c["id"]: c for c in results["clauses"]}
    assert rows["s000-r8"]["status"] == "not_tested"  # four seats share the board
    assert "capability seats:7" in rows["s000-r8"]["to_close"]  # its widest vector
    assert rows["s000-r12"]["status"] == "pass" and code == 2


@pytest.mark.slow  # the narrower table, the more demanding case, stays in the fast tier
def test_a_correct_game_declaring_wider_limits_passes(tmp_path: Path) -> None:
    code, results = certify(tmp_path, "--adapter", served("WideLimits"), "--all")
    assert code == 0 and results["verdict"] == "PASS", reasons(results)
    assert results["implementation"]["config"]["limits"]["ante"] == [1, 100_000]
    assert results["math"]["simulation"]["ante"] == 1  # the table's smallest


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_a_misstated_published_figure_fails_as_a_publication_finding(tmp_path: Path) -> None:
    code, results = certify(tmp_path, "--adapter", served("PublishesWrongRtp"), "--all")
    assert code == 1 and results["verdict"] == "FAIL"
    assert results["implementation_verdict"] == "PASS"
    assert results["publication_verdict"] == "FAIL"
    (failure,) = results["failures"]
    assert failure["kind"] == "publication" and failure["item"] == "published:rtp"
    assert failure["expected"] == 0.9875 and abs(failure["actual"] - 0.991827) < 1e-6
    assert main(shlex.split(failure["reproduce"])[1:]) == 1  # chcert math --claim rtp=0.9875
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    (case,) = [c for c in junit.iter("testcase") if c.get("name") == "published:rtp"]
    assert case.find("failure") is not None
    assert "published:rtp" in pdf_text(tmp_path / "report.pdf")


def test_figures_the_mathematics_confirms_pass(tmp_path: Path, standard: Profile) -> None:
    config = PublishesTrueFigures().hello()["config"]
    findings = published_figures(standard, "standard", config, tmp_path, tmp_path)
    assert [f["figure"] for f in findings] == sorted(config["published"])
    assert {f["status"] for f in findings} == {"pass"}


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_a_harness_exception_in_a_check_is_incomplete_never_the_games_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("operands could not be broadcast together")

    monkeypatch.setattr("harness.gamemath.rng.run_deck_battery", broken)
    code, results = certify(tmp_path, "--adapter", "python:tests.games:Seeded", "--all")
    assert code == 2 and results["verdict"] == "INCOMPLETE"
    assert results["failures"] == []
    rows = {c["id"]: c for c in results["clauses"]}
    assert rows["s000-r1"]["status"] == "not_tested"
    assert any("harness error" in r and "ValueError" in r for r in reasons(results))
    assert results["rng"]["status"] == "error"


def test_chcert_report_on_a_bad_file_is_one_line_and_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path / "missing.json")]) == 4
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["report", str(bad)]) == 4
    bad.write_text('{"verdict": "MAYBE"}')
    assert main(["report", str(bad)]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("chcert: report:") for line in err)


@pytest.mark.slow  # the fast tier selects with -k and --item in the tests around it
def test_clause_markers_select_items(tmp_path: Path, root: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            os.devnull,
            "--rootdir",
            str(root),
            "-q",
            "--chcert-profile",
            "standard",
            "--chcert-adapter",
            "python:harness.reference:ReferenceGame",
            "--chcert-out",
            str(tmp_path),
            "-m",
            "s000-r12",
            "specs/clauses",
            "vectors",
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout  # pytest's own exit: every selected item passed
    results = load_results(tmp_path)
    assert {r["clause"] for r in results["failures"]} == set()
    ran = {c["id"] for c in results["clauses"] if c["status"] == "pass"}
    assert ran == {"s000-r12", "s000-house-edge", "s000-strategy"}  # claims: by the math
    assert results["verdict"] == "INCOMPLETE"
    assert results["selection"]["expressions"] == {"-m": "s000-r12"}


class NoRawRng(ReferenceGame):
    """A game that does not expose its raw RNG output."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["capabilities"] = [c for c in hello["capabilities"] if c != "rng"]
        return hello


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_capability_required_by_the_profile_fails_when_missing(tmp_path: Path, root: Path) -> None:
    strict = tmp_path / "strict.yaml"
    text = (root / "specs/profiles/standard.yaml").read_text()
    strict.write_text(text + "required_capabilities: [rng]\n")
    # One item is enough: the requirement is judged on hello, whatever the selection
    one = ("--item", "s000-r12/tie-flush-board")
    args = ["--adapter", "python:tests.test_certify:NoRawRng", "--profile", str(strict), *one]
    code, results = certify(tmp_path / "out", *args)
    assert code == 1 and results["verdict"] == "FAIL"
    assert results["capabilities"]["missing_required"] == ["rng"]
    assert "requires capabilities rng" in results["failures"][0]["message"]
    code, results = certify(tmp_path / "ok", "--profile", str(strict), *one)
    assert code == 2 and results["capabilities"]["missing_required"] == []
    assert results["failures"] == []


class SeededShuffle(ReferenceGame):
    """The reference game with its shuffle op drawing from a seeded PCG64 (deterministic)."""

    source = np.random.default_rng(20261130)

    def shuffled_decks(self, count: int) -> Any:
        return np.argsort(self.source.random((count, 52)), axis=1).astype(np.uint8)

    def rng(self, bytes: Any) -> dict[str, Any]:
        return {"data": base64.b64encode(self.source.bytes(bytes)).decode()}


class NaiveShuffle(ReferenceGame):
    """The reference game with the naive swap-with-any shuffle."""

    def shuffled_decks(self, count: int) -> Any:
        return naive_swap_with_any(count)


@pytest.mark.slow  # .ci/run's smoke certification runs the battery; tests/test_rng.py proves it
def test_certify_runs_the_rng_battery(tmp_path: Path) -> None:
    code, results = certify(
        tmp_path / "good",
        "--adapter",
        "python:tests.test_certify:SeededShuffle",
        "-k",
        "rng-battery",
        "--rng-decks",
        "20000",
    )
    assert code == 2 and results["rng"]["passed"] is True and results["rng"]["decks"] == 20000
    assert results["rng"]["correction"] == "Holm" and len(results["rng"]["tests"]) == 14
    assert results["rng"]["raw_bytes"] > 0
    code, results = certify(
        tmp_path / "bad",
        "--adapter",
        "python:tests.test_certify:NaiveShuffle",
        "-k",
        "rng-battery",
        "--rng-decks",
        "20000",
    )
    assert code == 1 and results["rng"]["passed"] is False
    assert {c["id"] for c in results["clauses"] if c["status"] == "fail"} == {"s000-r1"}
    assert "card x position" in results["failures"][0]["message"]
    assert "RNG" in pdf_text(tmp_path / "bad" / "report.pdf")


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_a_game_declaring_narrower_limits_is_asked_only_what_it_accepts(tmp_path: Path) -> None:
    """Its table starts at 200: every vector written at 100 is played at twice its stakes
    (settlement is linear in the stake), so nothing is left untested and it PASSes."""
    code, results = certify(tmp_path, "--adapter", served("NarrowLimits"), "--all")
    assert code == 0 and results["verdict"] == "PASS", reasons(results)
    assert results["table"]["ante"] == [200, 50_000]
    assert results["table"]["stakes"]["scaled"] > 0
    assert results["math"]["simulation"]["ante"] == 200


def test_a_game_refusing_an_op_it_declares_fails_never_a_harness_error(tmp_path: Path) -> None:
    args = ("--adapter", "python:tests.games:RefusesShuffle", "-k", "s000-r1")
    code, results = certify(tmp_path, *args, "--rng-decks", "3000")
    assert code == 1 and not any("harness error" in r for r in reasons(results))
    failed = {f["item"] for f in results["failures"]}
    assert failed == {"s000-r1/deck-integrity", "s000-r1/rng-battery"}
    assert all("refused with unsupported" in f["message"] for f in results["failures"])


def test_a_profile_no_clause_applies_to_is_a_usage_error(
    tmp_path: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    renamed = tmp_path / "renamed.yaml"
    text = (root / "specs/profiles/standard.yaml").read_text()
    renamed.write_text(text.replace("name: standard", "name: our-standard"))
    assert main(["certify", "--out", str(tmp_path / "o"), "--profile", str(renamed)]) == 4
    assert "no clause" in capsys.readouterr().err


def test_item_selects_exactly_one_item_where_k_matches_more(tmp_path: Path) -> None:
    adapter = ("--adapter", "python:harness.reference:ReferenceGame")
    _, by_k = certify(tmp_path / "k", *adapter, "-k", "s000-sidebet-table/aa-straight")
    name = "s000-sidebet-table/aa-straight"
    _, by_item = certify(tmp_path / "item", *adapter, "--item", name, "--all")
    assert by_k["vectors"]["passed"] == 2  # also aa-straight-flush-full-table
    assert by_item["vectors"]["passed"] == 1
    assert by_item["selection"]["expressions"] == {"--item": name}


def test_a_harness_error_between_a_request_and_its_reply_desyncs_no_later_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An item's CPU deadline (harness/run/worker.py) may strike after a request is written
    and before its reply is read. The item is the harness's error; the connection is
    closed, so no later item reads that reply as its own and blames the game."""
    import select

    from harness.gamemath import rng
    from harness.run.worker import ItemDeadline

    waiting = select.select
    armed = [False]

    def deadline_while_waiting(*args: Any) -> Any:
        if armed[0]:  # the shuffle request written: strike while its reply is awaited
            armed[0] = False
            raise ItemDeadline("the item used more than 1800 s of the harness's CPU time")
        return waiting(*args)

    sampling = rng.sample_decks

    def sample(*args: Any, **kwargs: Any) -> Any:
        armed[0] = True
        return sampling(*args, **kwargs)

    monkeypatch.setattr("harness.adapters.subprocess.select.select", deadline_while_waiting)
    monkeypatch.setattr("harness.gamemath.rng.sample_decks", sample)
    code, results = certify(
        tmp_path, "--adapter", "python:tests.games:Seeded", "-k", "rng-battery or declared"
    )
    assert results["rng"]["status"] == "error" and "ItemDeadline" in results["rng"]["reason"]
    assert results["failures"] == [], results["failures"]
    assert code == 2 and results["verdict"] == "INCOMPLETE"
