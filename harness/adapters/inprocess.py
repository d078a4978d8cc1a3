"""In-process adapter: a Python game object whose methods are named like the ops.

Requests and replies go through JSON encoding even in-process, so a game that
returns something the wire could not carry fails here exactly as it would behind
a pipe, and the harness never shares mutable objects with the game.

The game's methods run on a thread of their own, so every request has the same
deadline as over a pipe: a call that does not return in time is a fault, its
thread is left behind (a daemon: it cannot hold the harness's exit) and a fresh
game object, greeted with `hello`, answers the next request, as a subprocess
game is restarted. A game that calls `sys.exit` or raises any other exception
that is not an Exception faults the same way instead of stopping the harness.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

from harness.adapters.base import (
    STARTUP_GRACE,
    Answer,
    check_reply,
    decode_reply,
    exchange_sequentially,
)
from harness.errors import ProtocolViolation
from harness.protocol import serve_request


class _GameRaised(Exception):
    """What a game's call raised on its thread (SystemExit too), carried to the harness:
    only this is judged the game's; a Ctrl-C or signal in the waiting thread is not."""

    def __init__(self, raised: BaseException) -> None:
        super().__init__(f"{type(raised).__name__}: {raised}")


class _Caller:
    """A daemon thread making the game's calls, each awaited with a deadline."""

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        threading.Thread(target=self._serve, daemon=True, name="chcert-game").start()

    def _serve(self) -> None:
        while (call := self._calls.get()) is not None:
            fn, args, box, done = call
            try:
                box.append((True, fn(*args)))
            except BaseException as exc:  # SystemExit too: the game's fault, reported
                box.append((False, exc))
            done.set()

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], wait: float) -> Any:
        """fn(*args) on the thread; TimeoutError if it has not returned within `wait` s,
        _GameRaised if it raised."""
        box: list[tuple[bool, Any]] = []
        done = threading.Event()
        self._calls.put((fn, args, box, done))
        if not done.wait(wait):
            raise TimeoutError
        returned, value = box[0]
        if returned:
            return value
        raise _GameRaised(value)

    def stop(self) -> None:
        self._calls.put(None)


class InProcessAdapter:
    def __init__(self, factory: Callable[[], Any], *, spec: str, timeout: float) -> None:
        self.factory = factory
        self.spec = spec
        self.timeout = timeout
        self.restarts = 0
        self._ids = itertools.count(1)
        self._caller: _Caller | None = _Caller()
        self.game: Any = self._construct()

    def _construct(self) -> Any:
        """A new game object, built on the game's thread within the start-up grace."""
        assert self._caller is not None
        try:
            return self._caller.call(self.factory, (), STARTUP_GRACE)
        except TimeoutError:
            self._caller = None
            raise TimeoutError(f"no game object within {STARTUP_GRACE:g} s") from None
        except _GameRaised as exc:  # sys.exit in the constructor too: not the harness's exit
            raise RuntimeError(f"the constructor raised {exc}") from None

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        if self._caller is None:  # the last call hung or stopped the game: a fresh one
            self._restart()
        assert self._caller is not None
        request = {"id": next(self._ids), "op": op, **params}
        wire_request = json.loads(json.dumps(request))  # what a game reading JSON gets
        wait = max(self.timeout, STARTUP_GRACE) if op == "hello" else self.timeout
        try:
            reply = self._caller.call(serve_request, (self.game, wire_request), wait)
        except TimeoutError:
            self._caller = None  # its thread is the hung game's now
            raise ProtocolViolation(f"no reply within {wait:g} s", {"request": request}) from None
        except _GameRaised as exc:  # not an Exception: serve_request turned those into errors
            self._caller.stop()
            self._caller = None
            raise ProtocolViolation(f"the game raised {exc}", {"request": request}) from None
        try:
            wire_reply = decode_reply(json.dumps(reply))
        except (TypeError, ValueError, RecursionError) as exc:
            raise ProtocolViolation(
                f"reply is not JSON-serialisable: {exc}",
                {"request": request, "raw": repr(reply)[:2000]},
            ) from exc
        return check_reply(request, wire_reply, {})

    def _restart(self) -> None:
        self.restarts += 1
        self._caller = _Caller()
        try:
            self.game = self._construct()
        except Exception as exc:
            self._caller = None
            raise ProtocolViolation(f"constructing the game again failed: {exc!r}") from exc
        self.request("hello")

    def exchange(self, requests: Sequence[tuple[str, dict[str, Any]]]) -> list[Answer]:
        return exchange_sequentially(self, requests)

    def close(self) -> None:
        if self._caller is not None:
            self._caller.stop()
            self._caller = None
