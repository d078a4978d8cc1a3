"""Subprocess adapter: a child process speaking JSON Lines on stdin/stdout.

Any language can implement the game this way. A reader thread moves the child's
stdout lines into a queue so that every request has a deadline: a child that
hangs, dies or writes garbage gives a ProtocolViolation carrying the request,
what came back and the tail of its stderr, and the next request starts a fresh
child, so one bad round never stops the run.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import queue
import subprocess
import tempfile
import threading
from typing import IO, Any

from harness.adapters.base import check_reply
from harness.errors import ProtocolViolation, Unreachable

STDERR_TAIL = 2000
STARTUP_GRACE = 60.0  # seconds a freshly started child may take for its first reply
_EOF = object()


class SubprocessAdapter:
    def __init__(self, argv: list[str], *, timeout: float, spec: str) -> None:
        self.argv = argv
        self.spec = spec
        self.timeout = timeout
        self.restarts = 0
        self._fresh = True
        self._ids = itertools.count(1)
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
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
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                # Its own session: a Ctrl-C meant for the harness must not kill the game
                # mid-round and be recorded as the game's fault.
                start_new_session=True,
            )
        except OSError as exc:
            raise Unreachable(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from exc
        self._lines = queue.Queue()
        self._fresh = True
        threading.Thread(target=_pump, args=(self._proc.stdout, self._lines), daemon=True).start()

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
            self._proc.stdin.write(json.dumps(request, separators=(",", ":")) + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise self._violation(f"cannot write to the implementation: {exc}", request) from exc
        # A child that is still starting (interpreter, imports) is slow, not hung.
        wait = max(self.timeout, STARTUP_GRACE) if self._fresh else self.timeout
        try:
            line = self._lines.get(timeout=wait)
        except queue.Empty:
            self._kill()
            raise self._violation(f"no reply within {wait:g} s", request) from None
        self._fresh = False
        if line is _EOF:
            self._proc.wait(timeout=5)
            code = self._proc.returncode
            raise self._violation(f"implementation exited (status {code}) before replying", request)
        assert isinstance(line, str)
        try:
            reply = json.loads(line)
        except ValueError:
            self._kill()
            raise self._violation("reply is not JSON", request, raw=line[:2000]) from None
        try:
            return check_reply(request, reply, {})
        except ProtocolViolation as exc:
            exc.evidence["stderr_tail"] = self.stderr_tail()
            raise

    def _violation(self, message: str, request: dict[str, Any], **extra: Any) -> ProtocolViolation:
        evidence = {"request": request, "stderr_tail": self.stderr_tail(), **extra}
        return ProtocolViolation(message, evidence)

    def restart(self) -> None:
        """Start a fresh child after the old one hung, died or spoke garbage."""
        self._kill()
        self.restarts += 1
        self._start()

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=5)
        if self._proc is not None and self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        self._proc = None

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            try:
                self.request("bye")
                self._proc.wait(timeout=2)
            except Exception:
                pass
        self._kill()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


def _pump(stream: IO[str] | None, lines: queue.Queue[object]) -> None:
    if stream is not None:
        for line in stream:
            lines.put(line)
    lines.put(_EOF)
