"""Subprocess adapter: a child process speaking JSON Lines on stdin/stdout.

Specs `subprocess:COMMAND ...` (a shell line, split as the shell would, never run by
one) and `reference` (the bundled game, harness/reference/).

Any language can implement the game this way. Replies are read from the raw
pipe with `select`, so every request has a deadline over its whole reply without
a reader thread in the way: a child that hangs, dies, closes its stdout or writes
garbage gives a ProtocolViolation carrying the request, what came back and the
tail of its stderr, and the next request starts a fresh child (which is asked
`hello` first, with the start-up grace), so one bad round never stops the run.

The child runs in a process group (a session) of its own, and that whole group
is killed on a fault, a restart and at the end: a game started through `sh -c`,
or one that forks helpers, leaves nothing behind. Its stderr is drained by a
thread into a ring of the last 64 KB, so a game writing gigabytes there costs
the harness neither memory nor disk.

`exchange` pipelines: the batch's request lines go out as one payload while the
replies come back. The child's stdin is non-blocking for the batch and `select`
watches both pipes, writing what the stdin pipe takes and reading what the
child has answered, so a batch far larger than the pipe buffers cannot deadlock
against a child blocked writing replies that nobody reads yet.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import msgspec

from harness.adapters.base import (
    MAX_REPLY,
    STARTUP_GRACE,
    Answer,
    check_body,
    check_reply,
    decode_reply,
)
from harness.errors import ErrorReply, ProtocolViolation, Unreachable, Violation
from harness.protocol.shapes import read_line

STDERR_TAIL = 2000  # characters of stderr kept with each fault's evidence
STDERR_RING = 64 << 10  # bytes of the game's stderr kept at most: the last ones
READ_SIZE = 1 << 16
# Bytes the pipe from the game holds (Linux's 64 KiB by default): a game writing a large
# reply (raw RNG output, a megabyte a request) is not stopped every 64 KiB to wait for the
# harness to read, which costs both a switch of process and, here, of thread.
PIPE_SIZE = 1 << 20

_encode = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps(..., separators) per call


def _line(request: dict[str, Any]) -> bytes:
    """A request as its line, as `_encode` writes it. msgspec writes the same bytes four
    times faster where it writes no escape and only printable ASCII, which the standard
    encoder writes as it is (anything else it escapes: `\\u00e9`, `\\u007f`, a lone
    surrogate msgspec cannot write); the harness's requests hold no float, the one value
    the two could write apart."""
    fast: bytes | None
    try:
        fast = msgspec.json.encode(request)
    except (TypeError, UnicodeEncodeError):  # a lone surrogate from a game's round id
        fast = None
    if fast is not None and fast.isascii() and b"\\" not in fast and b"\x7f" not in fast:
        return fast + b"\n"
    return (_encode(request) + "\n").encode()


def _widen(fd: int) -> None:
    """The pipe behind `fd` made PIPE_SIZE bytes, where the system allows it (Linux, up to
    /proc/sys/fs/pipe-max-size for a process without privileges); else left as it is."""
    with contextlib.suppress(AttributeError, OSError):  # fcntl.F_SETPIPE_SZ: Linux only
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)


class _StderrRing:
    """The last STDERR_RING bytes a child wrote to stderr, drained as they come."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, daemon=True, name="chcert-stderr")
        self._thread.start()

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            while chunk := os.read(self._fd, READ_SIZE):
                with self._lock:
                    self._buffer += chunk
                    if len(self._buffer) > 2 * STDERR_RING:  # trimmed in steps, not per chunk
                        del self._buffer[:-STDERR_RING]

    def tail(self, chars: int) -> str:
        """The last `chars` characters, once the drain has caught up with the pipe (what
        the game wrote just before replying is in it), or after a fifth of a second."""
        give_up = time.monotonic() + 0.2
        while self._thread.is_alive() and time.monotonic() < give_up:
            if not select.select([self._fd], [], [], 0)[0]:
                time.sleep(0.02)  # a chunk the drain has read may not be in the ring yet
                break
            time.sleep(0.002)
        with self._lock:
            data = bytes(self._buffer[-min(chars, STDERR_RING) :])
        return data.decode("utf-8", "replace")

    def close(self) -> None:
        """After the child's group is dead: read what it left, then release the pipe."""
        self._thread.join(1.0)
        if not self._thread.is_alive():  # else a survivor holds the pipe: the daemon keeps it
            os.close(self._fd)


class _Outgoing:
    """The request lines of a batch not yet taken by the child's stdin pipe."""

    def __init__(self, payload: bytes) -> None:
        self.view = memoryview(payload)
        self.sent = 0

    @property
    def pending(self) -> bool:
        return self.sent < len(self.view)

    def write_some(self, fd: int) -> None:
        """Write what the (non-blocking) pipe takes now; a closed pipe takes nothing more."""
        try:
            self.sent += os.write(fd, self.view[self.sent :])
        except BlockingIOError:
            pass
        except OSError:  # the child closed stdin or exited: reading finds out which
            self.sent = len(self.view)


class _Batch:
    """The requests of one `exchange`, and the replies matched to them by id."""

    def __init__(self, requests: list[dict[str, Any]]) -> None:
        self.requests = requests
        self.position = {r["id"]: i for i, r in enumerate(requests)}
        self.answers: list[Answer | None] = [None] * len(requests)
        self.replied = [False] * len(requests)
        self.unanswered = 0  # no request before this one is without a reply
        self.wrong: ProtocolViolation | None = None  # the first wrong reply, raised at the end

    def first_unanswered(self) -> dict[str, Any]:
        while self.replied[self.unanswered]:
            self.unanswered += 1
        return self.requests[self.unanswered]

    def take_line(self, line: bytes) -> bool:
        """Take a line that is an ok reply to the first request still unanswered, its body
        in its shape, read in one pass (harness/protocol/shapes.py `read_line`); False for
        any other line, which `take` reads strictly."""
        request = self.requests[self.unanswered]  # first_unanswered moved it there
        try:
            read = read_line(request["op"], line.decode("utf-8"))
        except UnicodeDecodeError:
            return False
        if read is None or read[0] != request["id"]:
            return False
        self.replied[self.unanswered] = True
        self.answers[self.unanswered] = read[1]
        return True

    def take(self, reply: Any) -> None:
        """Match one reply to its request and judge it (check_body, for its own request)."""
        rid = reply.get("id") if isinstance(reply, dict) else None
        try:
            i = self.position.get(rid)
        except TypeError:  # an id that is a list or an object
            i = None
        if i is None:
            ids = f"{self.requests[0]['id']}..{self.requests[-1]['id']}"
            self._wrong(
                f"reply id {rid!r} matches no request of the batch (ids {ids})"
                if isinstance(reply, dict)
                else "reply is not a JSON object",
                None,
                reply,
            )
        elif self.replied[i]:
            self._wrong(f"a second reply with id {rid!r}", self.requests[i], reply)
        else:
            self.replied[i] = True
            try:
                self.answers[i] = check_body(self.requests[i], reply, {})
            except ErrorReply as exc:
                self.answers[i] = exc
            except ProtocolViolation as exc:
                self.wrong = self.wrong or exc

    def _wrong(self, message: str, request: dict[str, Any] | None, reply: Any) -> None:
        if self.wrong is None:
            self.wrong = ProtocolViolation(message, {"request": request, "reply": reply})

    def answered(self) -> list[Answer]:
        answers = [a for a in self.answers if a is not None]
        assert len(answers) == len(self.requests)
        return answers


class SubprocessAdapter:
    carries_lines = True  # requests are lines of text (a refusal may send one without its op)

    def __init__(self, argv: list[str], *, timeout: float, spec: str) -> None:
        self.argv = argv
        self.spec = spec
        self.timeout = timeout
        self.restarts = 0
        self._ids = itertools.count(1)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: deque[bytes] = deque()  # complete lines read and not yet consumed
        self._partial: list[bytes] = []  # the start of the line being read
        self._partial_size = 0
        self._stderr: _StderrRing | None = None
        self._greeted = False
        self._start()

    def _start(self) -> None:
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                # A session of its own: the whole group is killed at the end, and a Ctrl-C
                # meant for the harness does not kill the game mid-round as if it crashed.
                start_new_session=True,
            )
        except OSError as exc:
            raise Unreachable(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from exc
        if self._stderr is not None:
            self._stderr.close()
        proc = self._proc
        assert proc.stderr is not None and proc.stdin is not None and proc.stdout is not None
        self._stderr = _StderrRing(os.dup(proc.stderr.fileno()))
        proc.stderr.close()
        os.set_blocking(proc.stdin.fileno(), False)  # written through _Outgoing only
        _widen(proc.stdout.fileno())
        self._lines.clear()
        self._partial.clear()
        self._partial_size = 0
        self._greeted = False

    @property
    def pid(self) -> int | None:
        """The child's process id; None after a fault, until the next request restarts it."""
        return None if self._proc is None else self._proc.pid

    def stderr_tail(self, chars: int = STDERR_TAIL) -> str:
        return "" if self._stderr is None else self._stderr.tail(chars)

    def _running(self, op: str) -> subprocess.Popen[bytes]:
        """The child, ready for `op`: started afresh after a fault, and greeted with `hello`
        (the one request given the start-up grace) before anything else."""
        if self._proc is None or self._proc.poll() is not None:
            self.restart()
        if not self._greeted and op != "hello":
            self.request("hello")
        assert self._proc is not None
        return self._proc

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        proc = self._running(op)
        assert proc.stdin is not None
        request = {"id": next(self._ids), "op": op, **params}
        # Written as the pipe takes it, within the reply's deadline: a game that answers
        # without reading its stdin cannot block the harness on a full pipe.
        outgoing = _Outgoing((_encode(request) + "\n").encode())
        outgoing.write_some(proc.stdin.fileno())
        reply = self._read_reply(request, outgoing)
        if outgoing.pending:  # it answered a request it had not read whole
            self._kill()
            raise self._violation("replied to a request it had not read", request)
        self._greeted = True
        try:
            return check_reply(request, reply, {})
        except ProtocolViolation as exc:
            exc.evidence["stderr_tail"] = self.stderr_tail()
            raise

    def request_text(self, op: str, text: str) -> dict[str, Any]:
        """Send one line as it is: a request that is not well-formed, which the game must
        refuse (docs/refusals.md). Its reply is judged like any, but may carry any id:
        the game may have found none to answer with."""
        if "\n" in text:
            raise ValueError("a text request is one line")
        proc = self._running(op)
        assert proc.stdin is not None
        request: dict[str, Any] = {"id": None, "op": op, "text": text}
        outgoing = _Outgoing((text + "\n").encode())
        outgoing.write_some(proc.stdin.fileno())
        reply = self._read_reply(request, outgoing)
        if outgoing.pending:  # it answered a line it had not read whole
            self._kill()
            raise self._violation("replied to a request it had not read", request)
        try:
            return check_body(request, reply, {})
        except ProtocolViolation as exc:
            exc.evidence["stderr_tail"] = self.stderr_tail()
            raise

    def exchange(self, requests: Sequence[tuple[str, dict[str, Any]]]) -> list[Answer]:
        """Pipelined requests (Adapter.exchange): all written, then one reply read for each.

        Exactly one line is read per request, each within the timeout after the one
        before, as `request` reads them. A hang, an exit or a line that is not JSON
        kills the child at once (the next request starts a fresh one), naming the
        first request still without a reply. A JSON reply that is wrong (an id
        matching no request of the batch, a second reply to one, a body of the wrong
        shape) is raised once the batch's other lines are read, so the child stays
        in step with the harness and is kept, as `request` keeps it.
        """
        if not requests:
            return []
        self._running("")
        batch = _Batch([{"id": next(self._ids), "op": op, **params} for op, params in requests])
        outgoing = _Outgoing(b"".join([_line(r) for r in batch.requests]))
        try:
            for _ in batch.requests:
                request = batch.first_unanswered()
                line = self._readline(self._wait(request), request, outgoing)
                if not batch.take_line(line):
                    batch.take(self._decoded(line, request))
        except ProtocolViolation as late:
            if batch.wrong is None:
                raise
            raise self._judged(batch) from late  # the first fault is the one to report
        if outgoing.pending:  # replies ran ahead of the requests: out of step for good
            self._kill()
            if batch.wrong is None:
                raise self._violation("replied to requests it had not read", batch.requests[-1])
        if batch.wrong is not None:
            raise self._judged(batch)
        return batch.answered()

    def _judged(self, batch: _Batch) -> ProtocolViolation:
        """The batch's first wrong reply, with the request it concerns and the stderr tail."""
        assert batch.wrong is not None
        evidence = batch.wrong.evidence
        if evidence.get("request") is None:  # meant, surely, for a request left unanswered
            evidence["request"] = batch.first_unanswered()
        evidence["stderr_tail"] = self.stderr_tail()
        return batch.wrong

    def _read_reply(self, request: dict[str, Any], outgoing: _Outgoing | None = None) -> Any:
        """The next reply, parsed: a violation naming `request` if none comes or it is not
        strict JSON (base.decode_reply)."""
        return self._decoded(self._readline(self._wait(request), request, outgoing), request)

    def _wait(self, request: dict[str, Any]) -> float:
        """Seconds the reply to `request` may take: a game answering hello may still be
        starting (interpreter, imports), slow, not hung."""
        return max(self.timeout, STARTUP_GRACE) if request["op"] == "hello" else self.timeout

    def _decoded(self, line: bytes, request: dict[str, Any]) -> Any:
        """A reply line parsed as strict JSON; not JSON, a violation naming `request`."""
        try:
            return decode_reply(line)
        except ValueError as exc:
            self._kill()
            text = line[:2000].decode("utf-8", "replace")
            raise self._violation(
                f"reply is not JSON: {exc}", request, kind=Violation.NOT_JSON, raw=text
            ) from None

    def _readline(
        self, wait: float, request: dict[str, Any], outgoing: _Outgoing | None = None
    ) -> bytes:
        """The next line from the child, within `wait` seconds.

        While `outgoing` has request bytes the stdin pipe has not taken, they are
        written as the pipe drains, in the same `select` that waits for the reply.
        """
        if self._lines:
            return self._lines.popleft()
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        stdin_fd = self._proc.stdin.fileno() if self._proc.stdin is not None else -1
        deadline = time.monotonic() + wait
        while True:
            remaining = deadline - time.monotonic()
            writing = [stdin_fd] if outgoing is not None and outgoing.pending else []
            readable: list[int] = []
            writable: list[int] = []
            if remaining > 0:
                readable, writable, _ = select.select([fd], writing, [], remaining)
            if writable:
                assert outgoing is not None
                outgoing.write_some(stdin_fd)
            if not readable:
                if writable:
                    continue
                self._kill()
                raise self._violation(f"no reply within {wait:g} s", request, Violation.NO_REPLY)
            chunk = os.read(fd, READ_SIZE)
            if not chunk:
                try:
                    ended = f"exited (status {self._proc.wait(timeout=1)})"
                except subprocess.TimeoutExpired:
                    ended = "closed its stdout while still running"
                self._kill()
                raise self._violation(
                    f"implementation {ended} before replying", request, Violation.EXITED
                )
            if b"\n" in chunk:
                *complete, rest = b"".join([*self._partial, chunk]).split(b"\n")
                self._partial = [rest] if rest else []
                self._partial_size = len(rest)
                self._lines.extend(complete)
                return self._lines.popleft()
            self._partial.append(chunk)
            self._partial_size += len(chunk)
            if self._partial_size > MAX_REPLY:
                self._kill()
                raise self._violation(f"reply longer than {MAX_REPLY} bytes", request)

    def _violation(
        self,
        message: str,
        request: dict[str, Any],
        kind: Violation = Violation.MALFORMED,
        **extra: Any,
    ) -> ProtocolViolation:
        evidence = {"request": request, "stderr_tail": self.stderr_tail(), **extra}
        return ProtocolViolation(message, evidence, kind=kind, op=request.get("op"))

    def crash(self, op: str | None = None, after: float = 0.0, **params: Any) -> None:
        """Kill the game as a crash would, then start it again with the same command: with
        `op`, that request is written first and the kill comes `after` seconds later, its
        reply unread (a crash in the middle of a request). Capability recovery says the
        game survives this (docs/adapter-protocol.md, Interrupted rounds)."""
        if op is not None:
            proc = self._running(op)
            assert proc.stdin is not None
            line = _encode({"id": next(self._ids), "op": op, **params}) + "\n"
            outgoing = _Outgoing(line.encode())
            deadline = time.monotonic() + self.timeout
            while outgoing.pending and time.monotonic() < deadline:
                outgoing.write_some(proc.stdin.fileno())
            time.sleep(after)
        self.restart()

    def restart(self) -> None:
        """Start a fresh child after the old one hung, died or spoke garbage."""
        self._kill()
        self.restarts += 1
        self._start()

    def _kill(self) -> None:
        """Kill the child's whole process group (it may have exited, its helpers not)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):  # the group is gone already
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self) -> None:
        """Say `bye` (a courtesy: the game gets a second to exit), then end its group."""
        proc = self._proc
        if proc is not None and proc.stdin is not None and self._greeted and proc.poll() is None:
            bye = _Outgoing((_encode({"id": next(self._ids), "op": "bye"}) + "\n").encode())
            bye.write_some(proc.stdin.fileno())  # what the pipe takes now; never a wait
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                proc.stdin.close()
                proc.wait(timeout=1)
        self._kill()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


def reference_command(profile_path: str | None) -> list[str]:
    """The command line of the bundled reference game for a profile."""
    argv = [sys.executable, "-m", "harness.reference"]
    return [*argv, "--profile", profile_path] if profile_path else argv


def check_spec(spec: str) -> None:
    """ValueError saying what is wrong with a `subprocess:COMMAND` spec; `reference`, a
    spec of one word, has nothing to check."""
    if spec == "reference":
        return
    try:
        argv = shlex.split(spec.removeprefix("subprocess:"))
    except ValueError as exc:  # an unbalanced quote
        raise ValueError(f"{spec!r}: the command is not a valid shell line: {exc}") from None
    if not argv:
        raise ValueError("subprocess: adapter needs a command, e.g. 'subprocess:./my-game'")


def open_spec(spec: str, *, profile_path: str | None, timeout: float) -> SubprocessAdapter:
    """The adapter of a checked spec: `reference` runs the bundled game, which
    `profile_path` configures to play the profile under certification; `subprocess:`
    runs the command."""
    if spec == "reference":
        argv = reference_command(profile_path)
    else:
        argv = shlex.split(spec.removeprefix("subprocess:"))
    return SubprocessAdapter(argv, timeout=timeout, spec=spec)
