"""Subprocess adapter: a child process speaking JSON Lines on stdin/stdout.

Any language can implement the game this way. Replies are read from the raw
pipe with `select`, so every request has a deadline without a reader thread in
the way: a child that hangs, dies or writes garbage gives a ProtocolViolation
carrying the request, what came back and the tail of its stderr, and the next
request starts a fresh child, so one bad round never stops the run.
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
from typing import IO, Any

from harness.adapters.base import check_reply
from harness.errors import ProtocolViolation, Unreachable

STDERR_TAIL = 2000
STARTUP_GRACE = 60.0  # seconds a freshly started child may take for its first reply
MAX_LINE = 64 << 20  # a reply longer than this is garbage (a shuffle of 100,000 decks is ~7 MB)


class SubprocessAdapter:
    def __init__(self, argv: list[str], *, timeout: float, spec: str) -> None:
        self.argv = argv
        self.spec = spec
        self.timeout = timeout
        self.restarts = 0
        self._fresh = True
        self._ids = itertools.count(1)
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
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
        self._buffer = b""
        self._fresh = True

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
            self._proc.stdin.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
        except OSError as exc:
            raise self._violation(f"cannot write to the implementation: {exc}", request) from exc
        # A child that is still starting (interpreter, imports) is slow, not hung.
        wait = max(self.timeout, STARTUP_GRACE) if self._fresh else self.timeout
        line = self._readline(wait, request)
        self._fresh = False
        try:
            reply = json.loads(line)
        except ValueError:
            self._kill()
            text = line[:2000].decode("utf-8", "replace")
            raise self._violation("reply is not JSON", request, raw=text) from None
        try:
            return check_reply(request, reply, {})
        except ProtocolViolation as exc:
            exc.evidence["stderr_tail"] = self.stderr_tail()
            raise

    def _readline(self, wait: float, request: dict[str, Any]) -> bytes:
        """The next line from the child, within `wait` seconds."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + wait
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(remaining, 0))[0] if remaining > 0 else []
            if not ready:
                self._kill()
                raise self._violation(f"no reply within {wait:g} s", request)
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                code = self._proc.wait(timeout=5)
                self._proc = None
                raise self._violation(
                    f"implementation exited (status {code}) before replying", request
                )
            self._buffer += chunk
            if len(self._buffer) > MAX_LINE:
                self._kill()
                raise self._violation(f"reply longer than {MAX_LINE} bytes", request)
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

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
