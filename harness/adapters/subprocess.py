"""Subprocess adapter: a child process speaking JSON Lines on stdin/stdout.

Any language can implement the game this way. Replies are read from the raw
pipe with `select`, so every request has a deadline without a reader thread in
the way: a child that hangs, dies or writes garbage gives a ProtocolViolation
carrying the request, what came back and the tail of its stderr, and the next
request starts a fresh child, so one bad round never stops the run.

`exchange` pipelines: the batch's request lines go out as one payload while the
replies come back. The child's stdin is non-blocking for the batch and `select`
watches both pipes, writing what the stdin pipe takes and reading what the
child has answered, so a batch far larger than the pipe buffers cannot deadlock
against a child blocked writing replies that nobody reads yet.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Sequence
from typing import IO, Any

from harness.adapters.base import Answer, check_body, check_reply
from harness.errors import ErrorReply, ProtocolViolation, Unreachable

STDERR_TAIL = 2000
STARTUP_GRACE = 60.0  # seconds a freshly started child may take for its first reply
MAX_LINE = 64 << 20  # a reply longer than this is garbage (a shuffle of 100,000 decks is ~7 MB)
READ_SIZE = 1 << 16

_encode = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps(..., separators) per call


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
    def __init__(self, argv: list[str], *, timeout: float, spec: str) -> None:
        self.argv = argv
        self.spec = spec
        self.timeout = timeout
        self.restarts = 0
        self._fresh = True
        self._ids = itertools.count(1)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: deque[bytes] = deque()  # complete lines read and not yet consumed
        self._partial: list[bytes] = []  # the start of the line being read
        self._partial_size = 0
        self._stderr: IO[str] | None = None
        self._start()

    def _start(self) -> None:
        # Kept open for the child's lifetime; closed in close().
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=0,
                # Its own session: a Ctrl-C meant for the harness must not kill the game
                # mid-round and be recorded as the game's fault.
                start_new_session=True,
            )
        except OSError as exc:
            raise Unreachable(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from exc
        self._lines.clear()
        self._partial.clear()
        self._partial_size = 0
        self._fresh = True

    @property
    def pid(self) -> int | None:
        """The child's process id; None after a fault, until the next request restarts it."""
        return None if self._proc is None else self._proc.pid

    def stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read()[-STDERR_TAIL:]

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        if self._proc is None or self._proc.poll() is not None:
            self.restart()
        assert self._proc is not None and self._proc.stdin is not None
        request = {"id": next(self._ids), "op": op, **params}
        try:
            self._proc.stdin.write(_encode(request).encode() + b"\n")
        except OSError as exc:
            raise self._violation(f"cannot write to the implementation: {exc}", request) from exc
        reply = self._read_reply(request)
        try:
            return check_reply(request, reply, {})
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
        if self._proc is None or self._proc.poll() is not None:
            self.restart()
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        batch = _Batch([{"id": next(self._ids), "op": op, **params} for op, params in requests])
        outgoing = _Outgoing("".join([_encode(r) + "\n" for r in batch.requests]).encode())
        stdin_fd = proc.stdin.fileno()
        os.set_blocking(stdin_fd, False)
        try:
            for _ in batch.requests:
                batch.take(self._read_reply(batch.first_unanswered(), outgoing))
        except ProtocolViolation as late:
            if batch.wrong is None:
                raise
            raise self._judged(batch) from late  # the first fault is the one to report
        finally:
            if self._proc is proc:
                os.set_blocking(stdin_fd, True)
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
        """The next reply, parsed: a violation naming `request` if none comes or it is not JSON."""
        # A child that is still starting (interpreter, imports) is slow, not hung.
        wait = max(self.timeout, STARTUP_GRACE) if self._fresh else self.timeout
        line = self._readline(wait, request, outgoing)
        self._fresh = False
        try:
            return json.loads(line)
        except ValueError:
            self._kill()
            text = line[:2000].decode("utf-8", "replace")
            raise self._violation("reply is not JSON", request, raw=text) from None

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
                raise self._violation(f"no reply within {wait:g} s", request)
            chunk = os.read(fd, READ_SIZE)
            if not chunk:
                code = self._proc.wait(timeout=5)
                self._proc = None
                raise self._violation(
                    f"implementation exited (status {code}) before replying", request
                )
            if b"\n" in chunk:
                *complete, rest = b"".join([*self._partial, chunk]).split(b"\n")
                self._partial = [rest] if rest else []
                self._partial_size = len(rest)
                self._lines.extend(complete)
                return self._lines.popleft()
            self._partial.append(chunk)
            self._partial_size += len(chunk)
            if self._partial_size > MAX_LINE:
                self._kill()
                raise self._violation(f"reply longer than {MAX_LINE} bytes", request)

    def _violation(self, message: str, request: dict[str, Any], **extra: Any) -> ProtocolViolation:
        evidence = {"request": request, "stderr_tail": self.stderr_tail(), **extra}
        return ProtocolViolation(message, evidence)

    def restart(self) -> None:
        """Start a fresh child after the old one hung, died or spoke garbage."""
        self._kill()
        self.restarts += 1
        self._start()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            with contextlib.suppress(Exception):  # closing is best effort; kill below
                self.request("bye")
                self._proc.wait(timeout=2)
        self._kill()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
