"""`chcert certify` end to end (contract 2 and 3): verdicts, exit codes, files written."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.cli import main
from harness.reference import ReferenceGame
from harness.reference.shufflers import naive_swap_with_any
from tests.pdftext import pdf_text

FAULTY = Path(__file__).parent / "fixtures" / "faulty_game.py"


# A fair shuffle fails the RNG battery 1% of the time, by design; the RTP simulation
# has tests of its own (tests/test_gamemath.py) and is left out here for speed.
NO_BATTERY = ["-k", "not rng-battery and not rtp-simulation"]


def certify(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    if "-k" not in args:
        args = (*args, *NO_BATTERY)
    code = main(["certify", "--out", str(tmp_path), "--seed", "7", *args])
    return code, json.loads((tmp_path / "results.json").read_text())


def test_reference_certifies_pass_through_the_command_line(tmp_path: Path) -> None:
    """The README's main job, as a user runs it: a real subprocess, the JSON Lines adapter."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "certify",
            "--out",
            str(tmp_path),
            "-n",
            "2",
            *NO_BATTERY,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "VERDICT: PASS" in proc.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["verdict"] == "PASS"
    assert results["implementation"]["name"] == "chcert-reference"
    assert (
        results["vectors"]["total"] >= 40
        and results["vectors"]["passed"] == results["vectors"]["total"]
    )
    statuses = {c["id"]: c["status"] for c in results["clauses"]}
    assert statuses["s000-r9"] == "pass" and statuses["s000-house-edge"] == "pass"
    assert results["math"]["status"] == "complete" and (tmp_path / "strategy.npz").exists()
    assert set(results) >= {
        "verdict",
        "implementation",
        "profile",
        "clauses",
        "vectors",
        "failures",
        "protocol",
        "rng",
        "math",
        "manifest",
    }
    assert results["manifest"]["seed"] is not None and len(results["manifest"]["spec_sha256"]) == 64
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


def test_unreachable_game_is_incomplete_with_exit_2(tmp_path: Path) -> None:
    code, results = certify(tmp_path, "--adapter", "subprocess:/no/such/game")
    assert code == 2 and results["verdict"] == "INCOMPLETE"
    assert "unreachable" in results["incomplete_reasons"][0]
    assert (tmp_path / "report.pdf").exists()


@pytest.mark.parametrize("fault", ["hang", "crash", "garbage", "wrong-id", "bad-shape"])
def test_a_game_fault_fails_its_clause_and_the_run_goes_on(tmp_path: Path, fault: str) -> None:
    adapter = f"subprocess:{sys.executable} {FAULTY} --fault {fault}"
    code, results = certify(tmp_path, "--adapter", adapter, "--timeout", "2")
    assert code == 1 and results["verdict"] == "FAIL"
    (failure,) = results["failures"]
    assert failure["vector"] == "nq-four-of-a-kind-std-t1" and failure["clause"] == "s000-antewin"
    assert "protocol violation" in failure["message"]
    assert failure["evidence"]["request"]["op"] == "result"
    # Every other vector still ran and passed.
    assert results["vectors"]["passed"] == results["vectors"]["total"] - 1
    assert results["vectors"]["errors"] == 1


def test_bad_arguments_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--profile", "nonesuch", "--out", str(tmp_path)]) == 2
    assert "bundled profiles" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["certify", "--bogus"])
    assert exc.value.code == 2


def test_selection_runs_only_matching_items(tmp_path: Path) -> None:
    code, results = certify(
        tmp_path,
        "--adapter",
        "python:harness.reference:ReferenceGame",
        "-k",
        "nq-dealer-pair-of-threes",
    )
    assert code == 0 and results["vectors"]["total"] == 1


def test_vectors_check_reports_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "check"]) == 0
    assert "clauses" in capsys.readouterr().out


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
            "not rng-battery and not rtp-simulation and not dealt-cards-distinct",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # a few vectors have run, most have not
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=120)
    results = json.loads((out / "results.json").read_text())
    assert proc.returncode == 2, stdout
    assert results["verdict"] == "INCOMPLETE"
    assert any("interrupted" in r for r in results["incomplete_reasons"])
    assert 0 < results["vectors"]["total"] < 55 and results["vectors"]["failed"] == 0
    assert (out / "report.pdf").exists()


class OneSeatNoInject(ReferenceGame):
    """A game that cannot stack decks and seats one player: vectors cannot run."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["capabilities"] = ["seats:1"]
        return hello


class OneSeat(ReferenceGame):
    """A one-seat game that can stack decks: multi-seat vectors cannot run."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["capabilities"] = ["inject", "seats:1"]
        return hello


def test_missing_capabilities_are_not_tested_never_passed(tmp_path: Path) -> None:
    code, results = certify(
        tmp_path / "a", "--adapter", "python:tests.test_certify:OneSeatNoInject"
    )
    assert code == 0 and results["verdict"] == "PASS"
    assert results["vectors"]["passed"] == 0
    assert results["vectors"]["not_tested"] == results["vectors"]["total"] > 0
    statuses = {c["id"]: c for c in results["clauses"]}
    assert statuses["s000-r12"]["status"] == "not_tested"
    assert "inject" in " ".join(statuses["s000-r12"]["notes"])
    code, results = certify(tmp_path / "b", "--adapter", "python:tests.test_certify:OneSeat")
    statuses = {c["id"]: c for c in results["clauses"]}
    assert statuses["s000-r8"]["status"] == "not_tested"  # four seats share the board
    assert "seats:1" in " ".join(statuses["s000-r8"]["notes"])
    assert statuses["s000-r12"]["status"] == "pass"


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
    assert proc.returncode == 0, proc.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert {r["clause"] for r in results["failures"]} == set()
    ran = {c["id"] for c in results["clauses"] if c["status"] == "pass"}
    assert ran == {"s000-r12", "s000-house-edge", "s000-strategy"}  # claims: by the math


class NoRawRng(ReferenceGame):
    """A game that does not expose its raw RNG output."""

    def hello(self) -> dict[str, Any]:
        hello = super().hello()
        hello["capabilities"] = [c for c in hello["capabilities"] if c != "rng"]
        return hello


def test_capability_required_by_the_profile_fails_when_missing(tmp_path: Path, root: Path) -> None:
    strict = tmp_path / "strict.yaml"
    text = (root / "specs/profiles/standard.yaml").read_text()
    strict.write_text(text + "required_capabilities: [rng]\n")
    args = ["--adapter", "python:tests.test_certify:NoRawRng", "--profile", str(strict)]
    code, results = certify(tmp_path / "out", *args)
    assert code == 1 and results["verdict"] == "FAIL"
    assert results["capabilities"]["missing_required"] == ["rng"]
    assert "requires capabilities rng" in results["failures"][0]["message"]
    code, results = certify(tmp_path / "ok", "--profile", str(strict))
    assert code == 0 and results["capabilities"]["missing_required"] == []


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
    assert code == 0 and results["rng"]["passed"] is True and results["rng"]["decks"] == 20000
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
