"""A python: game cannot take chcert down nor make it lie (docs/robustness.md).

The game runs in a child process of its own (harness/adapters/pyhost.py). Whatever it
does to that process, os._exit(0) (the PASS code) included, chcert ends with its own
exit status and writes results.json, report.pdf and junit.xml: a game that never
greets is unreachable (INCOMPLETE, exit 2), one that ends its process in a call fails
the clause that call exercised (exit 1) and the run goes on with a fresh child.

The games that end their process are certified by chcert run as a process of its own:
run in this one, a game reaching chcert's process would end the test run, with its
status, instead of failing the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.adapters import open_adapter
from harness.errors import ProtocolViolation
from tests.conftest import ROOT
from tests.exiting_games import ONCE
from tests.forger import FORGED
from tests.results import load_results, reasons
from tests.runs import certify

FIRST = "s000-antewin/nq-four-of-a-kind-std-t1"
SECOND = "s000-antewin/nq-straight-flush-std-t1"
ITEMS = ["--item", FIRST, "--item", SECOND]
OUTPUTS = ("results.json", "report.pdf", "junit.xml")


def certify_apart(tmp_path: Path, adapter: str) -> tuple[int, dict[str, Any]]:
    """`chcert certify` of two items in a process of its own: its exit status and its
    results.json, which must be there beside the report and junit.xml whatever the status."""
    out = tmp_path / "out"
    command = [sys.executable, "-m", "harness.cli", "certify", "--adapter", adapter]
    proc = subprocess.run(
        [*command, "--out", str(out), "--seed", "7", *ITEMS],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
        env={**os.environ, ONCE: str(tmp_path / "once")},
    )
    written = [name for name in OUTPUTS if (out / name).exists()]
    assert written == list(OUTPUTS), f"exit {proc.returncode}, {written}: {proc.stderr[-1000:]}"
    return proc.returncode, load_results(out)


def certify_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adapter: str
) -> tuple[int, dict[str, Any]]:
    """The same two items certified in this process: the game's process is a child of its
    own, so what it does to it reaches no further (one case above proves it apart)."""
    monkeypatch.setenv(ONCE, str(tmp_path / "once"))
    return certify(tmp_path / "out", "--adapter", adapter, *ITEMS)


def assert_unreachable(results: dict[str, Any], spec: str, *said: str) -> None:
    """INCOMPLETE with the game named unreachable, its reason holding `said`."""
    assert results["verdict"] == "INCOMPLETE" and results["adapter"] == spec
    reason = reasons(results)[0]
    assert reason.startswith(f"implementation unreachable ({spec}): "), reason
    assert all(text in reason for text in said), reason
    assert results["failures"] == [] and results["vectors"]["passed"] == 0


def test_a_game_ending_its_process_with_status_0_at_import_is_unreachable(
    tmp_path: Path,
) -> None:
    spec = "python:tests.exits_at_import:Game"
    code, results = certify_apart(tmp_path, spec)
    assert code == 2
    assert_unreachable(results, spec, "exited (status 0) before replying")


@pytest.mark.parametrize(
    ("spec", "reason", "stderr"),
    [
        (  # SystemExit at import: named, with where it was raised
            "python:tests.raises_at_import:Game",
            "cannot load the game's class: SystemExit",
            'tests/raises_at_import.py", line',
        ),
        (
            "python:no.such.module:Game",
            "ModuleNotFoundError: No module named 'no'",
            "ModuleNotFoundError",
        ),
        ("python:tests.exiting_games:ExitsInHello", "exited (status 0) before replying", ""),
    ],
    ids=["systemexit-at-import", "no-such-module", "exit-0-in-hello"],
)
def test_a_game_that_never_greets_is_unreachable_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str, reason: str, stderr: str
) -> None:
    code, results = certify_here(tmp_path, monkeypatch, spec)
    assert code == 2
    assert_unreachable(results, spec, reason)
    assert stderr in results["implementation_stderr"]


def test_a_game_ending_its_process_in_act_fails_that_clause_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = "python:tests.exiting_games:ExitsOnFirstAct"
    code, results = certify_here(tmp_path, monkeypatch, spec)
    assert code == 1 and results["verdict"] == "FAIL"
    (failure,) = results["failures"]
    assert failure["item"] in (FIRST, SECOND) and failure["clause"] == "s000-antewin"
    assert failure["message"].endswith("implementation exited (status 3) before replying")
    assert failure["evidence"]["request"]["op"] == "act"
    assert results["vectors"]["passed"] == 1  # the other item, on a fresh child
    assert (tmp_path / "once").exists()


def test_a_game_printing_to_stdout_is_served_and_prints_nothing_of_chcerts(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Junk at import and in every call, through print, a replaced sys.stdout and file
    descriptor 1, reaches neither the replies nor chcert's own output."""
    code, results = certify(tmp_path / "out", "--adapter", "python:tests.noisy_game:Noisy", *ITEMS)
    assert "junk" not in capfd.readouterr().out
    assert code == 2 and results["verdict"] == "INCOMPLETE"  # a selection: never a PASS
    assert results["failures"] == [] and results["vectors"]["passed"] == 2


def test_a_game_class_served_over_json_lines_may_print_too(tmp_path: Path) -> None:
    """The reference server's --game (subprocess:) takes its stdout from the game too."""
    served = f"subprocess:{sys.executable} -m harness.reference --game tests.noisy_game:Noisy"
    code, results = certify(tmp_path / "out", "--adapter", served, *ITEMS)
    assert code == 2 and results["failures"] == [] and results["vectors"]["passed"] == 2


def test_a_body_json_cannot_carry_is_a_reply_that_is_not_json() -> None:
    """A set in a python: game's reply reaches the harness as a line that is not JSON,
    saying so (harness/protocol/__init__.py reply_line); the next request gets a fresh child."""
    adapter = open_adapter("python:tests.games:AnswersASet")
    try:
        adapter.request("hello")
        with pytest.raises(ProtocolViolation, match="reply is not JSON") as fault:
            adapter.request("round", seats=[{"seat": 1, "ante": 100}])
        raw = str(fault.value.evidence["raw"])
        assert raw.startswith("not JSON-serialisable (TypeError: Object of type set is not")
        assert adapter.request("history", last=1) == {"rounds": []}
    finally:
        adapter.close()


def test_results_rewritten_after_the_run_wrote_them_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a process the game left behind rewrote OUT/.chcert-run-*/results.json to
    PASS between the plugin writing it and chcert reading it back, and chcert exited 0
    with a CERTIFIED report. Now chcert takes the results from the run in memory: the
    forger (tests/forger.py, at the moment such a process could act) changes nothing."""
    monkeypatch.setenv("PYTEST_PLUGINS", "tests.forger")
    out = tmp_path / "out"
    code, results = certify(out, "--adapter", "reference", "--item", FIRST)
    assert (out / FORGED).exists()  # the forger did rewrite the file
    assert code == 2 and results["verdict"] == "INCOMPLETE"  # a selection, as the run found
    assert results["selection"] is not None and results["incomplete_reasons"]
