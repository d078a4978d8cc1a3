"""Adapters: every transport speaks protocol v1; faults become clear ProtocolViolations."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness.adapters import Adapter, open_adapter
from harness.adapters.base import Answer
from harness.adapters.subprocess import SubprocessAdapter
from harness.errors import ErrorReply, ProtocolViolation, Unreachable
from harness.protocol import Capability, serve_request
from harness.reference import ReferenceGame
from harness.reference.engine import MAX_OPEN_ROUNDS

FAULTY = Path(__file__).parent / "fixtures" / "faulty_game.py"
REVERSE = Path(__file__).parent / "fixtures" / "reverse_game.py"
TRIGGER = [{"seat": 1, "ante": 250}]


def test_python_adapter_round_trip() -> None:
    adapter = open_adapter("python:harness.reference:ReferenceGame")
    try:
        assert adapter.request("hello")["name"] == "chcert-reference"
        with pytest.raises(ErrorReply) as err:
            adapter.request("result", round="zz")
        assert err.value.code == "unknown_round"
    finally:
        adapter.close()


def test_a_python_game_runs_in_a_child_process_of_its_own() -> None:
    """Whatever the class does to its process is done to that child, not to the harness."""
    adapter = open_adapter("python:tests.exiting_games:NamedByItsProcess")
    try:
        assert adapter.request("hello")["name"] != f"pid {os.getpid()}"
    finally:
        adapter.close()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python:bad", "python adapter spec is python:MODULE:CLASS"),
        ("python:../etc:passwd", "python adapter spec is python:MODULE:CLASS"),
        ("python:a b:C", "python adapter spec is python:MODULE:CLASS"),
        ("python:games.:Game", "python adapter spec is python:MODULE:CLASS"),
        ("python:games:class", "python adapter spec is python:MODULE:CLASS"),
        ("ftp://x", "unknown adapter spec"),
        ("subprocess:", "subprocess: adapter needs a command"),
    ],
)
def test_malformed_specs_are_unreachable(spec: str, message: str) -> None:
    with pytest.raises(Unreachable, match=message):
        open_adapter(spec)


@pytest.mark.parametrize("spec", ["python:../etc:passwd", "python:a b:C", "python:a.b:C-1"])
def test_a_python_spec_that_names_no_module_and_class_is_refused_up_front(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MODULE must be a dotted Python module name and CLASS an identifier: anything else
    could never be imported, so `--dry-run` and a run alike refuse it, exit 4, one line."""
    from harness.cli import main

    for extra in (["--dry-run"], []):
        assert main(["certify", "--adapter", spec, "--out", str(tmp_path), *extra]) == 4
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "python:MODULE:CLASS" in err and spec in err
    assert not (tmp_path / "results.json").exists()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python:no.such.module:Game", "ModuleNotFoundError: No module named 'no'"),
        (
            "python:harness.reference:Missing",
            "AttributeError: module 'harness.reference' has no attribute 'Missing'",
        ),
    ],
)
def test_a_python_game_that_cannot_be_loaded_never_answers_hello(spec: str, message: str) -> None:
    """Its child starts, then exits before any reply, saying why: the fault names the
    import error, and the stderr tail holds its traceback (the runner calls the game
    unreachable: tests/test_pyhost.py)."""
    adapter = open_adapter(spec)
    try:
        with pytest.raises(ProtocolViolation) as fault:
            adapter.request("hello")
    finally:
        adapter.close()
    assert str(fault.value).startswith(f"cannot load the game's class: {message}")
    assert "exited (status 1) before replying" in str(fault.value)
    assert "Traceback" in str(fault.value.evidence["stderr_tail"])
    assert "reply" not in fault.value.evidence


def test_missing_program_is_unreachable() -> None:
    with pytest.raises(Unreachable, match="cannot start"):
        open_adapter("subprocess:/no/such/program --flag")


GENEROUS = 60.0  # seconds: a reply no test means to time out, whatever the machine's load
HANG_DEADLINE = 3.0  # seconds the one reply a hang withholds is waited for


def faulty(fault: str) -> SubprocessAdapter:
    """The faulty game behind an adapter, every reply given a generous deadline."""
    return SubprocessAdapter(
        [sys.executable, str(FAULTY), "--fault", fault], timeout=GENEROUS, spec="t"
    )


def _trigger(adapter: SubprocessAdapter, fault: str) -> None:
    """Play the round whose `result` the fault spoils. Only that reply may time out: a
    hang's deadline is short, and set just before it, so that a loaded machine cannot
    turn a slow `round` or `act` reply into the timeout the test expects of `result`."""
    r = adapter.request("round", seats=TRIGGER)["round"]
    adapter.request("act", round=r, seat=1, action="call")
    adapter.timeout = HANG_DEADLINE if fault == "hang" else GENEROUS
    try:
        adapter.request("result", round=r)
    finally:
        adapter.timeout = GENEROUS


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
    adapter = faulty(fault)
    try:
        with pytest.raises(ProtocolViolation, match=message) as err:
            _trigger(adapter, fault)
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


# ------------------------------------------------------------------ pipelining

Batch = list[tuple[str, dict[str, Any]]]

MIXED: Batch = [
    ("hello", {}),
    ("result", {"round": "nope"}),
    ("round", {"seats": [{"seat": 1, "ante": 100}]}),
    ("act", {"round": "nope", "seat": 1, "action": "call"}),
    ("history", {"last": 0}),
]


def _op_of(violation: ProtocolViolation) -> Any:
    """The op of the request a violation's evidence names."""
    request = violation.evidence["request"]
    assert isinstance(request, dict)
    return request["op"]


def _body(answer: Answer) -> Any:
    """An ok body as a dict, whether the transport answered the body or its record (a
    `round` or `result` read in one pass: harness/adapters/base.py `Answer`)."""
    return msgspec.to_builtins(answer) if isinstance(answer, msgspec.Struct) else answer


def _check_mixed(answers: list[Answer]) -> None:
    """The answers to MIXED: ok bodies and error replies, in request order."""
    assert len(answers) == len(MIXED)
    hello, result, opened, act, history = answers
    assert isinstance(hello, dict) and hello["protocol"] == 1
    assert isinstance(result, ErrorReply) and result.code == "unknown_round"
    assert isinstance(_body(opened), dict) and len(_body(opened)["seats"]) == 1
    assert isinstance(act, ErrorReply) and act.code == "unknown_round"
    assert history == {"rounds": []}


@pytest.mark.parametrize("spec", ["reference", "python:harness.reference:ReferenceGame"])
def test_exchange_returns_bodies_and_error_replies_in_request_order(spec: str) -> None:
    adapter = open_adapter(spec)
    try:
        _check_mixed(adapter.exchange(MIXED))
        assert adapter.exchange([]) == []
        assert adapter.request("hello")["protocol"] == 1  # request still works after
    finally:
        adapter.close()


def test_http_adapter_exchanges_one_request_at_a_time(http_game: str) -> None:
    _check_mixed(open_adapter(http_game).exchange(MIXED))


def test_replies_out_of_order_are_matched_by_id() -> None:
    adapter = SubprocessAdapter([sys.executable, str(REVERSE)], timeout=5, spec="t")
    try:
        _check_mixed(adapter.exchange(MIXED))
        opened = adapter.exchange([("round", {"seats": [{"seat": 1, "ante": 100}]})] * 3)
        idents = [_body(r)["round"] for r in opened]
        answers = adapter.exchange(
            [("act", {"round": r, "seat": 1, "action": "call"}) for r in idents]
            + [("result", {"round": r}) for r in idents]
        )
        assert answers[:3] == [{}, {}, {}]
        assert [_body(a)["round"] for a in answers[3:]] == idents
    finally:
        adapter.close()


def test_a_second_reply_to_one_request_is_a_violation() -> None:
    argv = [sys.executable, str(REVERSE), "--duplicate"]
    adapter = SubprocessAdapter(argv, timeout=5, spec="t")
    try:
        with pytest.raises(ProtocolViolation, match="a second reply with id") as err:
            adapter.exchange([("hello", {}), ("history", {"last": 0})])
        assert _op_of(err.value) == "hello"
    finally:
        adapter.close()


def _open_trigger(adapter: SubprocessAdapter) -> Batch:
    """Open the faulty game's trigger round; the rest of it, and one more request, to send.

    A round is played first: the game's first settlement loads its compiled evaluator,
    which a loaded machine may take longer than the short timeout of these tests to do.
    """
    timeout, adapter.timeout = adapter.timeout, 60
    warm = adapter.request("round", seats=[{"seat": 1, "ante": 100}])["round"]
    adapter.request("act", round=warm, seat=1, action="fold")
    adapter.timeout = timeout
    r = adapter.request("round", seats=TRIGGER)["round"]
    return [
        ("act", {"round": r, "seat": 1, "action": "call"}),
        ("result", {"round": r}),
        ("history", {"last": 1}),
    ]


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("hang", "no reply within"),
        ("crash", "exited"),
        ("garbage", "not JSON"),
        ("wrong-id", "matches no request of the batch"),
        ("bad-shape", "does not conform to protocol v1: board"),
    ],
)
def test_exchange_faults_name_the_request_and_the_adapter_recovers(
    fault: str, message: str
) -> None:
    adapter = faulty(fault)
    try:
        batch = _open_trigger(adapter)
        adapter.timeout = HANG_DEADLINE if fault == "hang" else GENEROUS  # the batch's replies
        with pytest.raises(ProtocolViolation, match=message) as err:
            adapter.exchange(batch)
        adapter.timeout = GENEROUS
        assert _op_of(err.value) == "result"
        assert f"faulty game: {fault}" in str(err.value.evidence["stderr_tail"])
        # The child is restarted after a hang, an exit or garbage, and kept (its
        # replies still in step) after a wrong reply, as `request` does.
        assert adapter.request("hello")["protocol"] == 1
        assert adapter.restarts == (0 if fault in ("wrong-id", "bad-shape") else 1)
    finally:
        adapter.close()


def test_a_big_batch_does_not_deadlock() -> None:
    """Megabytes each way: far more than the pipe buffers hold, so writing every request
    before reading a reply would block both processes for good."""
    adapter = open_adapter("reference")
    try:
        adapter.request("hello")
        padding = "x" * 100
        batch: Batch = [
            ("hello", {}) if n % 2 else ("result", {"round": f"{padding}{n}"}) for n in range(5_000)
        ]
        answers = adapter.exchange(batch)  # a deadlock is caught by the test's timeout
        assert len(answers) == 5_000
        assert all(isinstance(a, dict) and a["protocol"] == 1 for a in answers[1::2])
        assert all(
            isinstance(a, ErrorReply) and str(2 * n) in a.message
            for n, a in enumerate(answers[::2])
        )
        assert adapter.request("history", last=0) == {"rounds": []}
    finally:
        adapter.close()


def _play_two_rounds_at_once(adapter: Adapter) -> None:
    assert Capability.PIPELINE in adapter.request("hello")["capabilities"]
    seats = [{"seat": 1, "ante": 100}, {"seat": 2, "ante": 100}]
    opened = adapter.exchange([("round", {"seats": seats}), ("round", {"seats": seats})])
    one, two = (_body(a)["round"] for a in opened)
    assert one != two
    answers = adapter.exchange(
        [
            ("act", {"round": two, "seat": 2, "action": "fold"}),
            ("act", {"round": one, "seat": 1, "action": "call"}),
            ("result", {"round": one}),  # still waits for its seat 2
            ("act", {"round": two, "seat": 1, "action": "call"}),
            ("result", {"round": two}),
            ("act", {"round": one, "seat": 2, "action": "call"}),
            ("result", {"round": one}),
        ]
    )
    assert answers[:2] == [{}, {}]
    assert isinstance(answers[2], ErrorReply) and answers[2].code == "round_in_progress"
    done_two, done_one = _body(answers[4]), _body(answers[6])
    assert [s["action"] for s in done_two["seats"]] == ["call", "fold"]
    assert [s["action"] for s in done_one["seats"]] == ["call", "call"]
    assert [r["round"] for r in adapter.request("history", last=2)["rounds"]] == [two, one]


@pytest.mark.parametrize("spec", ["reference", "python:harness.reference:ReferenceGame"])
def test_the_reference_keeps_several_rounds_open_at_once(spec: str) -> None:
    adapter = open_adapter(spec)
    try:
        _play_two_rounds_at_once(adapter)
    finally:
        adapter.close()


def test_the_reference_bounds_the_rounds_open_at_once() -> None:
    game = ReferenceGame()
    seats = [{"seat": 1, "ante": 100}]
    idents = [game.round(seats=seats)["round"] for _ in range(MAX_OPEN_ROUNDS)]
    with pytest.raises(ErrorReply, match="rounds are open") as err:
        game.round(seats=seats)
    assert err.value.code == "round_in_progress"
    game.act(round=idents[0], seat=1, action="fold")  # a finished round frees its place
    game.round(seats=seats)


def test_the_pipe_from_the_game_holds_a_megabyte_where_the_system_allows() -> None:
    """A game's large replies (raw RNG output) are not stopped every 64 KiB
    (harness/adapters/subprocess.py PIPE_SIZE)."""
    import fcntl

    from harness.adapters.subprocess import PIPE_SIZE

    most = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    if most < PIPE_SIZE and os.geteuid() != 0:
        pytest.skip(f"this system allows pipes of {most} bytes")
    adapter = open_adapter("reference")
    try:
        assert isinstance(adapter, SubprocessAdapter) and adapter._proc is not None
        stdout = adapter._proc.stdout
        assert stdout is not None
        assert fcntl.fcntl(stdout.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_SIZE
        assert len(adapter.request("rng", bytes=1 << 20)["data"]) > 1 << 20
    finally:
        adapter.close()
