"""Adapters: every transport speaks protocol v1; faults become clear ProtocolViolations."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.adapters import open_adapter
from harness.adapters.subprocess import SubprocessAdapter
from harness.errors import ErrorReply, ProtocolViolation, Unreachable
from harness.protocol import serve_request
from harness.reference import ReferenceGame

FAULTY = Path(__file__).parent / "fixtures" / "faulty_game.py"
TRIGGER = [{"seat": 1, "ante": 250}]


def test_in_process_adapter_round_trip() -> None:
    adapter = open_adapter("python:harness.reference:ReferenceGame")
    assert adapter.request("hello")["name"] == "chcert-reference"
    with pytest.raises(ErrorReply) as err:
        adapter.request("result", round="zz")
    assert err.value.code == "unknown_round"


@pytest.mark.parametrize(
    "spec",
    [
        "python:no.such.module:Game",
        "python:harness.reference:Missing",
        "python:bad",
        "ftp://x",
        "subprocess:",
    ],
)
def test_bad_specs_are_unreachable(spec: str) -> None:
    with pytest.raises(Unreachable):
        open_adapter(spec)


def test_missing_program_is_unreachable() -> None:
    with pytest.raises(Unreachable, match="cannot start"):
        open_adapter("subprocess:/no/such/program --flag")


def faulty(fault: str, timeout: float = 2.0) -> SubprocessAdapter:
    return SubprocessAdapter(
        [sys.executable, str(FAULTY), "--fault", fault], timeout=timeout, spec="t"
    )


def _trigger(adapter: SubprocessAdapter) -> None:
    r = adapter.request("round", seats=TRIGGER)["round"]
    adapter.request("act", round=r, seat=1, action="call")
    adapter.request("result", round=r)


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("hang", "no reply within"),
        ("crash", "exited"),
        ("garbage", "not JSON"),
        ("wrong-id", "does not match"),
        ("bad-shape", "does not conform to protocol v1: board"),
    ],
)
def test_faults_give_evidence_and_the_adapter_recovers(fault: str, message: str) -> None:
    adapter = faulty(fault, timeout=1.5)
    try:
        with pytest.raises(ProtocolViolation, match=message) as err:
            _trigger(adapter)
        assert err.value.evidence["request"]["op"] == "result"
        if fault not in ("wrong-id", "bad-shape"):
            assert f"faulty game: {fault}" in err.value.evidence["stderr_tail"]
            # The next request starts a fresh child and works.
            assert adapter.request("hello")["protocol"] == 1
            assert adapter.restarts == 1
    finally:
        adapter.close()


class _Handler(BaseHTTPRequestHandler):
    game = ReferenceGame()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert self.path.endswith("/" + body["op"])
        reply = json.dumps(serve_request(self.game, body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_game() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/chgame"
    server.shutdown()


def test_http_adapter_round_trip(http_game: str) -> None:
    adapter = open_adapter(http_game)
    assert adapter.request("hello")["protocol"] == 1
    with pytest.raises(ErrorReply):
        adapter.request("act", round="nope", seat=1, action="call")


def test_http_adapter_unreachable_server_is_a_violation() -> None:
    adapter = open_adapter("http://127.0.0.1:9/none", timeout=1)
    with pytest.raises(ProtocolViolation, match="HTTP request failed"):
        adapter.request("hello")
