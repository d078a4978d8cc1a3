"""A hostile game and a careless user (docs/robustness.md): no lost report, no orphan, no crash.

Each misbehaviour of tests/fixtures/faulty_game.py (and of two Python games in
tests/games.py; tests/test_pyhost.py has more) is certified, and each run must end
in bounded time, write results.json (strict JSON) and the PDF, leave no process of
the game alive, and judge the game as docs/robustness.md says: its fault fails the
clause the request exercised, the run goes on (the next item passes), and a game
that never answers hello is unreachable (INCOMPLETE).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness.adapters.subprocess import STDERR_RING, _StderrRing
from harness.cli import main
from harness.run.processes import descendants, process_table
from tests import runs
from tests.pdftext import pdf_text
from tests.results import load_results, reasons
from tests.runs import wait_for_lines
from tests.signals import default_signals

FAULTY = Path(__file__).parent / "fixtures" / "faulty_game.py"
TRIGGER = "s000-antewin/nq-four-of-a-kind-std-t1"  # the round the faults strike
AFTER = "s000-antewin/nq-straight-flush-std-t1"  # a round after it, which must pass
ITEMS = ["--item", TRIGGER, "--item", AFTER]


def survivors(token: str) -> list[int]:
    """Processes whose command line holds `token` (a path unique to one test)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return [pid for pid in found if pid != os.getpid()]


def faulty(tmp_path: Path, fault: str, *, shell: bool = False) -> str:
    """The adapter spec of the faulty game; its --marker path names its processes."""
    command = f"{sys.executable} {FAULTY} --fault {fault} --marker {tmp_path / 'marker'}"
    return f"subprocess:sh -c '{command}'" if shell else f"subprocess:{command}"


def certify(tmp_path: Path, adapter: str, *args: str) -> tuple[int, dict[str, Any]]:
    """A run in this process (tests/runs.py) whose report was written, and read."""
    code, results = runs.certify(tmp_path / "out", "--adapter", adapter, *args)
    assert pdf_text(tmp_path / "out" / "report.pdf").startswith("Casino Hold'em certification")
    return code, results


def assert_clause_failed(results: dict[str, Any], message: str) -> dict[str, Any]:
    """The trigger's clause failed with `message`; the round after it passed."""
    assert results["verdict"] == "FAIL"
    (failure,) = [f for f in results["failures"] if f["item"] == TRIGGER]
    assert message in failure["message"], failure["message"]
    assert [f["item"] for f in results["failures"]] == [TRIGGER]
    assert results["vectors"]["passed"] == 1  # the run went on: the next round passed
    return failure


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("hang", "protocol violation: no reply within 5 s"),
        ("crash", "protocol violation: implementation exited (status 3) before replying"),
        ("garbage", "protocol violation: reply is not JSON"),
        ("wrong-id", "protocol violation: reply id -1 does not match"),
        ("close-stdout", "closed its stdout while still running"),
        ("duplicate-key", "key 'returned' appears twice"),
        ("nan", "NaN is not JSON"),
        ("huge-error", "refused"),
    ],
)
def test_a_fault_in_a_reply_fails_its_clause(tmp_path: Path, fault: str, message: str) -> None:
    """The game's fault on one round fails that round's clause; the run goes on."""
    timeout = "5" if fault == "hang" else "60"  # only the hang waits for it
    code, results = certify(tmp_path, faulty(tmp_path, fault), *ITEMS, "--timeout", timeout)
    assert code == 1
    failure = assert_clause_failed(results, message)
    assert failure["item_kind"] == "vector" and failure["clause"] == "s000-antewin"
    assert failure["evidence"]["request"]["op"] == "result"
    if message.startswith("protocol violation"):  # no settlement to judge: an error
        assert results["vectors"]["errors"] == 1
    assert not survivors(str(tmp_path / "marker"))


@pytest.mark.parametrize(
    ("fault", "clause", "kind", "message"),
    [
        # A board of four cards: the result's shape, whose clause the catalog names.
        ("bad-shape", "s000-r8", "result-shape", "board: ['3h', '3s', '8c', 'Kd'] is too short"),
        # An amount written 2750.0: the money of the wager it settles.
        ("float-money", "s000-antewin", "ante-odds", "2750.0 is not of type 'integer'"),
    ],
)
def test_a_malformed_result_in_step_fails_the_clause_of_what_is_malformed(
    tmp_path: Path, fault: str, clause: str, kind: str, message: str
) -> None:
    """A result reply of the wrong shape, the channel still in step, costs its round
    alone and is filed under the clause of what it got wrong (docs/differential.md, a
    malformed reply), never under the item's own clause for want of a settlement."""
    code, results = certify(tmp_path, faulty(tmp_path, fault), *ITEMS, "--timeout", "60")
    assert code == 1 and results["verdict"] == "FAIL"
    (failure,) = results["failures"]
    assert failure["clause"] == clause and message in failure["message"], failure["message"]
    # The trigger's own clause is its finding's only where what is malformed is its money.
    assert (failure["item"] == TRIGGER) == (clause == "s000-antewin")
    assert failure["evidence"].get("kind", kind) == kind
    assert results["vectors"]["failed"] == (clause == "s000-antewin")
    assert results["vectors"]["errors"] == 0
    assert not survivors(str(tmp_path / "marker"))


@pytest.mark.slow  # the fast tier times out hung replies in the fault table below
def test_hung_replies_get_the_timeout_not_the_start_up_grace(tmp_path: Path) -> None:
    """Every result hangs: each is a fault after --timeout, restarts included (the grace
    is for hello alone)."""
    code, results = certify(tmp_path, faulty(tmp_path, "hang-all"), *ITEMS, "--timeout", "3")
    assert code == 1 and len(results["failures"]) == 2
    assert all("no reply within 3 s" in f["message"] for f in results["failures"])
    assert not survivors(str(tmp_path / "marker"))


def test_a_game_closing_stdout_at_hello_is_unreachable_with_a_report(tmp_path: Path) -> None:
    code, results = certify(tmp_path, faulty(tmp_path, "close-stdout-at-hello"), *ITEMS)
    assert code == 2 and results["verdict"] == "INCOMPLETE"
    assert "closed its stdout while still running" in reasons(results)[0]
    assert not survivors(str(tmp_path / "marker"))


@pytest.mark.parametrize(
    ("fault", "shell"),
    [("fork", False), ("fork", True), ("fork-setsid", False)],
    ids=["direct", "through-sh", "own-session"],
)
def test_a_game_forking_a_helper_leaves_no_survivor(
    tmp_path: Path, fault: str, shell: bool
) -> None:
    """A helper in the game's group dies with it; one in a session of its own (out of
    reach of the group kill) is found by chcert's subreaper net (harness/run/processes.py)."""
    code, results = certify(tmp_path, faulty(tmp_path, fault, shell=shell), *ITEMS)
    assert code == 2 and results["failures"] == [] and results["vectors"]["passed"] == 2
    assert not survivors(str(tmp_path / "marker"))


def test_a_malformed_capability_fails_hello(tmp_path: Path) -> None:
    code, results = certify(tmp_path, faulty(tmp_path, "bad-seats"), *ITEMS)
    assert code == 1 and results["failures"][0]["item"] == "hello"
    assert "seats:" in results["failures"][0]["message"]


def test_a_5000_character_name_still_gives_a_report(tmp_path: Path) -> None:
    code, results = certify(tmp_path, faulty(tmp_path, "long-name"), *ITEMS)
    assert code == 2 and results["implementation"]["name"] == "N" * 5000
    text = pdf_text(tmp_path / "out" / "report.pdf")
    assert re.search(r"\[\.\.\. cut: 5,0\d\d\s+characters in all, see results.json\]", text)


@pytest.mark.parametrize(
    ("game", "message", "stderr"),
    [
        # a python: game is a child process: its hang is a subprocess game's (fault table)
        pytest.param("HangsOnTrigger", "no reply within 5 s", "", marks=pytest.mark.slow),
        ("ExitsOnTrigger", "implementation exited (status 3) before replying", "SystemExit: 3"),
    ],
)
def test_a_python_game_is_timed_out_and_cannot_exit_the_harness(
    tmp_path: Path, game: str, message: str, stderr: str
) -> None:
    """Its own process (harness/adapters/pyhost.py) hangs or ends; the harness goes on,
    with the traceback of the game's sys.exit as evidence."""
    adapter = f"python:tests.games:{game}"
    timeout = "5" if game == "HangsOnTrigger" else "60"  # only the hang waits for it
    code, results = certify(tmp_path, adapter, *ITEMS, "--timeout", timeout)
    assert code == 1
    failure = assert_clause_failed(results, message)
    assert stderr in failure["evidence"]["stderr_tail"]


def serve_faulty(fault: str) -> tuple[subprocess.Popen[str], str]:
    """The faulty game serving HTTP on a free port: the process and its URL."""
    server = subprocess.Popen(
        [sys.executable, str(FAULTY), "--fault", fault, "--http", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    port = server.stdout.readline().strip()  # printed once it listens
    assert port.isdigit(), f"the server did not start ({server.poll()})"
    return server, f"http://127.0.0.1:{port}/"


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        # a slow trickle meets the same whole-reply deadline as the hang below
        pytest.param("drip", "no complete reply within 5 s", marks=pytest.mark.slow),
        ("status-500", "HTTP status 500 (not a reply)"),
        ("status-404", "HTTP status 404 (not a reply)"),
        ("redirect", "HTTP status 302 (a redirect, not followed)"),
        ("huge-body", "HTTP body longer than"),
        ("garbage", "HTTP reply is not JSON"),
        # the hang waits out the deadline: the slow tier (the JSON Lines hang stays fast)
        pytest.param("hang", "no complete reply within 5 s", marks=pytest.mark.slow),
        ("crash", "HTTP request failed"),
    ],
)
def test_http_faults_fail_their_clause(tmp_path: Path, fault: str, message: str) -> None:
    server, url = serve_faulty(fault)
    try:
        timeout = "5" if fault in ("drip", "hang") else "60"  # only those wait for it
        code, results = certify(tmp_path, url, *ITEMS, "--timeout", timeout)
    finally:
        server.kill()
        server.wait()
    assert code == 1
    failure = assert_clause_failed(results, message)
    assert failure["evidence"]["url"].endswith("/result")


def test_the_stderr_ring_keeps_the_last_64_kb_only() -> None:
    """What a game writes to stderr is drained as it comes and kept to its last bytes, so a
    flood costs no memory (benchmarks/bench_hostile.py measures a run's peak)."""
    read, write = os.pipe()
    ring = _StderrRing(read)
    chunk = b"E" * (1 << 20)
    for _ in range(20):
        os.write(write, chunk)
    os.write(write, b"the last words")
    os.close(write)
    ring._thread.join(30)
    assert not ring._thread.is_alive()
    assert len(ring._buffer) <= 2 * STDERR_RING
    assert ring.tail(STDERR_RING).endswith("the last words")
    assert len(ring.tail(10 * STDERR_RING)) == STDERR_RING
    ring.close()


@pytest.mark.slow  # 400 MB through a pipe; the ring itself is tested above
@pytest.mark.timeout(900)
def test_a_game_flooding_stderr_still_gives_a_report(tmp_path: Path) -> None:
    """400 MB on stderr while the game answers: the run ends as if it had written none."""
    adapter = faulty(tmp_path, "stderr-flood")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "harness.cli", "certify", "--adapter", adapter, "--out"]
    proc = subprocess.run([*command, str(out), *ITEMS], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout[-2000:]
    assert load_results(out)["vectors"]["passed"] == 2
    assert not survivors(str(tmp_path / "marker"))


@pytest.mark.slow  # a signal run
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_run_with_a_report_and_no_survivor(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """Two workers, each stuck in a hung game: the signal ends it all, with a report."""
    out = tmp_path / "out"
    adapter = faulty(tmp_path, "hang-all")
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "harness.cli", "certify", "--adapter", adapter),
            # A reply deadline far beyond the wait below: only a prompt stop ends in time.
            *("--out", str(out), "-n", "2", "--timeout", "600", "--rtp-rounds", "0"),
            *("-k", "antewin"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=default_signals,
    )
    wait_for_lines(tmp_path / "marker", 2)  # each worker is waiting for a hung result
    started = descendants(proc.pid, process_table(), frozenset())  # workers, games
    assert len(started) >= 4
    proc.send_signal(signum)
    stdout, _ = proc.communicate(timeout=120)  # a hang is a failure, not a stalled suite
    alive = [p.pid for p in process_table() if p.pid in started and p.state != "Z"]
    assert not alive, f"still running after chcert ended: {alive}"
    assert proc.returncode == 2, stdout
    results = load_results(out)
    reason = f"run interrupted ({signum.name}) before every item had run"
    assert results["verdict"] == "INCOMPLETE" and reason in reasons(results)
    assert (out / "report.pdf").exists() and (out / "junit.xml").exists()
    assert not survivors(str(tmp_path / "marker"))
    assert not list(out.glob(".chcert-run-*"))


@pytest.mark.slow  # a signal run
def test_a_signal_during_a_python_games_call_is_no_fault_of_the_game(tmp_path: Path) -> None:
    """SIGTERM while a python: game's call is awaited stops the run: the interruption is
    not recorded as the game raising, and the run does not go on."""
    out, marker = tmp_path / "out", tmp_path / "marker"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "harness.cli", "certify", "--out", str(out)),
            *("--adapter", "python:tests.games:HangsOnTrigger", "--timeout", "60"),
            *ITEMS,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "CHCERT_TEST_MARKER": str(marker)},
        preexec_fn=default_signals,
    )
    wait_for_lines(marker, 1)
    proc.send_signal(signal.SIGTERM)
    stdout, _ = proc.communicate(timeout=120)
    assert proc.returncode == 2, stdout
    results = load_results(out)
    assert results["failures"] == []
    assert "run interrupted (SIGTERM) before every item had run" in reasons(results)


@pytest.mark.slow  # a kill run; the next test kills publishing at every step, in-process
def test_a_killed_run_leaves_the_previous_outputs_or_none(tmp_path: Path) -> None:
    """SIGKILL at several moments: results.json in --out is always a whole run's, beside
    that run's report, or absent."""
    out = tmp_path / "out"
    small = ["--out", str(out), "--item", TRIGGER, "--rtp-rounds", "0"]
    assert main(["certify", "--seed", "1", *small]) == 2
    for delay in (0.5, 2.0, 3.5, 5.0):
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness.cli", "certify", "--seed", "2", *small],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        proc.kill()
        proc.wait()
        if (out / "results.json").exists():
            results = load_results(out)
            seed = results["manifest"]["seed"]
            assert seed in (1, 2)
            assert f"seed {seed}" in pdf_text(out / "report.pdf")
            assert (out / "junit.xml").exists()


class _Killed(BaseException):
    """A SIGKILL, as far as the code being killed can tell: nothing after it runs."""


def _lay_out(folder: Path, seed: int) -> None:
    """A run's outputs, each saying which run made it."""
    (folder / "repro").mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps({"seed": seed}))
    for name in ("report.pdf", "junit.xml", "strategy.npz", "repro/r.yaml"):
        (folder / name).write_text(f"seed {seed}")


def test_publishing_killed_at_any_step_leaves_one_whole_run_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new run's outputs replace the old ones (harness/cli/outputs.py publish), killed
    after each of its file operations in turn: results.json is the old run's beside the
    old files, the new one's beside the new, or absent."""
    from harness.cli import outputs

    real = {"rename": Path.rename, "unlink": Path.unlink, "rmtree": shutil.rmtree}
    for step in range(100):
        out, stage = tmp_path / f"out{step}", tmp_path / f"stage{step}"
        _lay_out(out, 1)
        _lay_out(stage, 2)
        allowed = [step]  # file operations left before the kill

        def counted(name: str, allowed: list[int] = allowed) -> Any:
            def operation(*args: Any, **kwargs: Any) -> Any:
                allowed[0] -= 1
                if allowed[0] < 0:
                    raise _Killed
                return real[name](*args, **kwargs)

            return operation

        monkeypatch.setattr(Path, "rename", counted("rename"))
        monkeypatch.setattr(Path, "unlink", counted("unlink"))
        monkeypatch.setattr(shutil, "rmtree", counted("rmtree"))
        try:
            outputs.publish(stage, out, out / "junit.xml")
            finished = True
        except _Killed:
            finished = False
        finally:
            monkeypatch.undo()
        if (out / "results.json").exists():
            seed = json.loads((out / "results.json").read_text())["seed"]
            for name in ("report.pdf", "junit.xml", "strategy.npz", "repro/r.yaml"):
                assert (out / name).read_text() == f"seed {seed}", (step, name)
        if finished:
            assert seed == 2 and step > 5
            return
    raise AssertionError("publishing took more than 100 steps")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rng-decks", "0"], "at least 2,949 decks"),
        (["--rng-decks", "-1"], "at least 2,949 decks"),
        (["--rng-decks", "1"], "at least 2,949 decks"),
        (["--timeout", "nan"], "--timeout nan"),
        (["--timeout", "inf"], "--timeout inf"),
        (["--timeout", "0"], "--timeout 0"),
        (["--timeout", "1e12"], "at most 3,600"),
        (["--seed", "-1"], "--seed -1: a whole number from 0 to"),
        (["--seed", str(2**63)], "a whole number from 0 to 9,223,372,036,854,775,807"),
        (["-n", "1000"], "-n 1000: a whole number from 0 to 64"),
        (["-n", "-1"], "-n -1: a whole number from 0 to 64"),
        (["--repeat", "0"], "--repeat 0: a whole number from 1 to 100"),
        (["--rtp-rounds", "-1"], "--rtp-rounds -1"),
        (["--differential", "100000000"], "--differential 100000000: a whole number from 0"),
        (["--rng-decks", "3000000"], "--rng-decks 3000000: a whole number from 2,949 to 2,000,000"),
        (["--tx", "1000*popen"], "'1000' before '*' is no count of workers (1 to 64)"),
        (["--adapter", "subprocess:'game"], "not a valid shell line"),
        (["--adapter", "http://[::1/game"], "not a valid URL"),
        (["--adapter", "http://h:abc/game"], "not a valid URL"),
        (["--adapter", "http:///game"], "names no host"),
        (["--adapter", "python:nomodule"], "python:MODULE:CLASS"),
    ],
)
def test_bad_arguments_are_one_line_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["certify", "--out", str(tmp_path), *args]) == 4
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "results.json").exists()


def test_out_naming_a_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("mine")
    assert main(["certify", "--out", str(tmp_path / "file")]) == 4
    assert "exists and is not a folder" in capsys.readouterr().err
    assert (tmp_path / "file").read_text() == "mine"


def test_a_yaml_bomb_profile_is_a_spec_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = ["name: bomb", 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for before, key in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{key}: &{key} [{', '.join([f'*{before}'] * 8)}]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    assert main(["certify", "--profile", str(bomb), "--out", str(tmp_path / "out")]) == 4
    err = capsys.readouterr().err
    assert f"{bomb}:3: YAML aliases" in err and len(err.strip().splitlines()) == 1


def test_a_malformed_capability_in_a_profile_is_a_spec_error(
    tmp_path: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (root / "specs" / "profiles" / "standard.yaml").read_text()
    profile = tmp_path / "profile.yaml"
    profile.write_text(text + 'required_capabilities: [inject, "seats:\u00b2"]\n')
    assert main(["certify", "--profile", str(profile), "--out", str(tmp_path / "out")]) == 4
    err = capsys.readouterr().err
    assert "required_capabilities/1: 'seats:\u00b2' is not valid" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "content",
    ["{}", "[]", "not json", None, '{"verdict": "PASS", "clauses": [{"id": "x"}]}'],
    ids=["empty-object", "list", "not-json", "missing", "clause-without-status"],
)
def test_report_on_a_bad_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None
) -> None:
    path = tmp_path / "results.json"
    if content is not None:
        path.write_text(content)
    assert main(["report", str(path)]) == 4
    err = capsys.readouterr().err
    assert err.startswith("chcert: report:") and len(err.strip().splitlines()) == 1
