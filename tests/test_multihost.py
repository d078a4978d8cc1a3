"""A certification spread over hosts (`chcert certify --tx`): two execnet socket servers on
this machine stand in for two lab hosts, each serving its worker from its own folder.

The run must come out as a local run with the same seed does: verdict, clause statuses,
vector counts, and every item with its status. The game is the bundled reference with
seeded shuffles (tests/games.py), as a JSON Lines child process each worker starts from
its host's folder: the RNG battery, which a fair shuffle fails rarely by design
(docs/verdict.md), must not make the two runs differ.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.results import load_results
from tests.runs import QUICK_SAMPLES

ROOT = Path(__file__).resolve().parent.parent
LISTENING = re.compile(r"Entering Accept loop \('[\d.]+', (\d+)\)")
STARTUP = 120.0  # seconds a socket server may take to listen on a busy CI machine
RUN = 900  # seconds a certification may take there

# The seeded reference game as a child process, started by absolute paths only: it must
# start the same from any working directory.
GAME = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from harness.protocol import serve_json_lines; from tests.games import Seeded; "
    "serve_json_lines(Seeded(), sys.stdin.buffer, sys.stdout.buffer)"
)
ADAPTER = "subprocess:" + shlex.join([sys.executable, "-c", GAME, str(ROOT)])
SMALL = ["--rng-decks", "3000", "--rtp-rounds", "200", "--differential", "2000", *QUICK_SAMPLES]


def _environment() -> dict[str, str]:
    """This environment without the outer pytest's variables (this test may itself run
    in an xdist worker)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}


class SocketServer:
    """execnet's socket server (execnet/script/socketserver.py), on a port of its choosing,
    in a folder of its own: a stand-in for a lab host."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True)
        self.folder = folder
        self.log = folder.parent / f"{folder.name}.log"
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-u", "-m", "execnet.script.socketserver", "127.0.0.1:0"],
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=_environment(),
                start_new_session=True,  # its own process group: stopped with its children
            )
        self.port = self._wait_listening()

    def _wait_listening(self) -> int:
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            found = LISTENING.search(self.text())
            if found:
                return int(found.group(1))
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        pytest.fail(f"the socket server in {self.folder} does not listen:\n{self.text()}")

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        """The server, and whatever it started that still runs (its process group)."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=15)
                return
            except subprocess.TimeoutExpired:
                continue


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[list[SocketServer]]:
    servers: list[SocketServer] = []
    try:
        for name in ("host1", "host2"):
            servers.append(SocketServer(tmp_path / name))
        yield servers
    finally:
        for server in servers:
            server.stop()


def _certify(out: Path, *args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "certify",
            "--adapter",
            ADAPTER,
            "--out",
            str(out),
            "--seed",
            "7",
            *SMALL,
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_environment(),
        timeout=RUN,
    )
    return proc, time.monotonic() - started


def _items(results: dict[str, Any]) -> dict[str, str]:
    return {i["name"]: i["status"] for c in results["clauses"] for i in c["items"]}


@pytest.mark.slow  # the multi-host run
@pytest.mark.timeout(900)
def test_a_run_over_two_socket_hosts_equals_a_local_run(
    tmp_path: Path, hosts: list[SocketServer]
) -> None:
    controller = tmp_path / "controller"  # neither the repository nor a host's folder
    controller.mkdir()
    spread = ["--dist", "load"]
    for server in hosts:
        spread += ["--tx", f"socket=127.0.0.1:{server.port}"]
    remote, remote_seconds = _certify(Path("remote"), *spread, cwd=controller)
    logs = "\n".join(f"--- {s.folder.name}:\n{s.text()[-3000:]}" for s in hosts)
    assert remote.returncode == 0, remote.stdout + remote.stderr + logs
    local, local_seconds = _certify(Path("local"), "-n", "2", cwd=controller)
    assert local.returncode == 0, local.stdout + local.stderr
    print(f"over two socket hosts: {remote_seconds:.1f} s; local, -n 2: {local_seconds:.1f} s")

    a, b = load_results(controller / "remote"), load_results(controller / "local")
    for key in ("verdict", "implementation_verdict", "publication_verdict", "vectors"):
        assert a[key] == b[key], key
    assert a["verdict"] == "PASS" and a["selection"] is None
    assert {c["id"]: c["status"] for c in a["clauses"]} == {
        c["id"]: c["status"] for c in b["clauses"]
    }
    assert _items(a) == _items(b) and len(_items(a)) > 60
    keys = ("status", "seat_hands", "rounds", "disagreeing_seat_hands")
    assert [a.get("differential", {}).get(k) for k in keys] == [
        b.get("differential", {}).get(k) for k in keys
    ]
    assert a["manifest"]["seed"] == b["manifest"]["seed"] == 7
    # Both hosts served a worker, each in its own folder, where xdist ran it.
    for server in hosts:
        assert "got new connection" in server.text(), server.text()
        assert re.search(r"\d+ passed", server.text()), server.text()
        assert (server.folder / "pyexecnetcache").is_dir()


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--tx", "sockett=127.0.0.1:1"], "unknown key 'sockett'"),
        (["--tx", "socket=127.0.0.1"], "use socket=HOST:PORT"),
        (["--tx", "socket=host:8888//python=python3"], "python= does not apply"),
        (["--tx", "ssh"], "ssh needs a value"),
        (["--tx", "ssh=a//socket=b:1"], "exactly one of popen, ssh, socket"),
        (["--tx", "x*popen"], "no count of workers"),
        (["--tx", "popen", "-n", "2"], "-n and --tx exclude each other"),
        (["--tx", "popen", "--dist", "each"], "one outcome per item"),
        (["-n", "2", "--dist", "loadd"], "use one of load, loadscope"),
        (["--dist", "load"], "needs workers"),
        (["--differential", "-1"], "--differential -1: a whole number from 0 to 10,000,000"),
    ],
)
def test_bad_distribution_arguments_are_one_line_and_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], shown: str
) -> None:
    assert main(["certify", "--out", str(tmp_path), *args]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("chcert: ") and shown in err[0], err
    assert not (tmp_path / "results.json").exists()


def test_help_shows_the_distribution_and_differential_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["certify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--tx SPEC" in text and "socket=HOST:PORT" in text and "--dist MODE" in text
    assert "--differential N" in text and "(default 50,000; 0: not tested)" in text
