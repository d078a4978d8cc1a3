"""HTTP adapter: POST each request as JSON to `<base URL>/<op>`; the body is the reply.

One keep-alive connection (the standard library's http.client), opened again
after a fault or when the server has closed it. Each request has a deadline over
its whole exchange (connect, headers, body): a watchdog shuts the socket down
when it passes, so a server dripping its reply a byte at a time cannot stretch
it. (A TLS handshake, inside http.client's connect, is bounded only by the
socket timeout of each read: an https:// game could stretch that phase.)

Only a 2xx answer is a reply; any other status is a fault, its status and body
kept as evidence, and a redirect is never followed (the harness talks to the
address it was given). A body longer than MAX_REPLY is not read.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import select
import socket
import threading
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.adapters.base import (
    MAX_REPLY,
    Answer,
    check_body,
    check_reply,
    decode_reply,
    exchange_sequentially,
)
from harness.errors import GameFault, ProtocolViolation, Violation

_encode = json.JSONEncoder(separators=(",", ":")).encode


@dataclass(frozen=True)
class Endpoint:
    """Where an http:// or https:// spec points."""

    scheme: str
    host: str
    port: int
    path: str  # without a trailing slash


def parse_url(url: str) -> Endpoint:
    """The endpoint of a base URL; ValueError saying what is wrong with it."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port  # raises on a port that is not a number in range
    except ValueError as exc:
        raise ValueError(f"{url!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{url!r}: use http:// or https://")
    if not parts.hostname:
        raise ValueError(f"{url!r} names no host (use http://HOST:PORT/PATH)")
    if parts.query or parts.fragment:
        raise ValueError(f"{url!r}: a base URL has no query or fragment (ops go to PATH/<op>)")
    default = 443 if parts.scheme == "https" else 80
    return Endpoint(parts.scheme, parts.hostname, port or default, parts.path.rstrip("/"))


class _Expired(GameFault):
    """The deadline of a request passed while it was being answered."""


class _Watchdog:
    """One thread an adapter: at the deadline of the exchange in progress it shuts that
    exchange's socket down, and again every 50 ms (a connection opened meanwhile), until
    the exchange is disarmed. Shutting down happens under the lock `disarm` takes, so no
    shutdown meant for one exchange can reach the next."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._conn: http.client.HTTPConnection | None = None
        self._deadline: float | None = None
        self._expired = False
        self._closed = False
        threading.Thread(target=self._run, daemon=True, name="chcert-http-deadline").start()

    def arm(self, conn: http.client.HTTPConnection, wait: float) -> None:
        with self._cond:
            self._conn, self._deadline, self._expired = conn, time.monotonic() + wait, False
            self._cond.notify()

    def disarm(self) -> bool:
        """End the watch of the exchange; whether its deadline passed."""
        with self._cond:
            self._conn = self._deadline = None
            return self._expired

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                left = None if self._deadline is None else self._deadline - time.monotonic()
                if left is None or left > 0:
                    self._cond.wait(left)
                    continue
                self._expired = True
                sock = self._conn.sock if self._conn is not None else None
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                self._cond.wait(0.05)


class HttpAdapter:
    def __init__(self, base_url: str, *, timeout: float) -> None:
        self.spec = base_url
        self.base_url = base_url.rstrip("/")
        self.endpoint = parse_url(base_url)
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._conn: http.client.HTTPConnection | None = None
        self._watchdog = _Watchdog()

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        request = {"id": next(self._ids), "op": op, **params}
        return self._send(op, _encode(request), request)

    def request_text(self, op: str, text: str) -> dict[str, Any]:
        """POST a body as it is, to `op`'s path: a request that is not well-formed, which
        the game must refuse (docs/refusals.md). Its reply may carry any id."""
        return self._send(op, text, {"id": None, "op": op, "text": text})

    def _send(self, op: str, body: str, request: dict[str, Any]) -> dict[str, Any]:
        evidence: dict[str, Any] = {"url": f"{self.base_url}/{op}", "request": request}
        # No start-up grace, hello included: the server was running before chcert came.
        wait = self.timeout
        try:
            status, raw = self._post(f"{self.endpoint.path}/{op}", body, wait)
        except _Expired:
            self._drop()
            raise ProtocolViolation(
                f"no complete reply within {wait:g} s", evidence, kind=Violation.NO_REPLY, op=op
            ) from None
        except (OSError, http.client.HTTPException) as exc:
            self._drop()
            why = str(exc) or type(exc).__name__
            raise ProtocolViolation(
                f"HTTP request failed: {why}", evidence, kind=Violation.EXITED, op=op
            ) from exc
        evidence["http_status"] = status
        if raw is None:
            self._drop()
            raise ProtocolViolation(f"HTTP body longer than {MAX_REPLY} bytes", evidence)
        text = raw[:2000].decode("utf-8", "replace")
        if not 200 <= status < 300:
            self._drop()
            what = "a redirect, not followed" if 300 <= status < 400 else "not a reply"
            raise ProtocolViolation(f"HTTP status {status} ({what})", {**evidence, "raw": text})
        try:
            reply = decode_reply(raw)
        except ValueError as exc:
            raise ProtocolViolation(
                f"HTTP reply is not JSON: {exc}",
                {**evidence, "raw": text},
                kind=Violation.NOT_JSON,
                op=op,
            ) from None
        if request["id"] is None:  # a text request: the game had no id to answer with
            return check_body(request, reply, evidence)
        return check_reply(request, reply, evidence)

    def _post(self, path: str, body: str, wait: float) -> tuple[int, bytes | None]:
        """POST one request within `wait` seconds: its status and body (None: longer than
        MAX_REPLY, and not read beyond that)."""
        conn = self._connection(wait)
        self._watchdog.arm(conn, wait)
        failure: Exception | None = None
        try:
            conn.request("POST", path or "/", body.encode(), {"Content-Type": "application/json"})
            response = conn.getresponse()
            declared = response.getheader("Content-Length", "")
            too_long = declared.isdigit() and int(declared) > MAX_REPLY
            raw = None if too_long else response.read(MAX_REPLY + 1)
        except (OSError, http.client.HTTPException) as exc:
            failure = exc
        finally:
            expired = self._watchdog.disarm()
        if expired or isinstance(failure, TimeoutError):
            raise _Expired
        if failure is not None:
            raise failure
        if response.will_close:
            self._drop()
        return response.status, raw if raw is not None and len(raw) <= MAX_REPLY else None

    def _connection(self, wait: float) -> http.client.HTTPConnection:
        """The open connection, unless the server has closed it meanwhile; else a new one.

        Its sockets time out a second after the deadline: the watchdog is the measure, and
        the socket's own timeout only a backstop (a connect to a silent address)."""
        wait += 1.0
        if self._conn is not None and self._conn.sock is not None:
            readable, _, _ = select.select([self._conn.sock], [], [], 0)
            if readable:  # an idle connection has nothing to read but the server's close
                self._drop()
        if self._conn is None:
            cls = (
                http.client.HTTPSConnection
                if self.endpoint.scheme == "https"
                else http.client.HTTPConnection
            )
            self._conn = cls(self.endpoint.host, self.endpoint.port, timeout=wait)
        else:
            self._conn.timeout = wait
            if self._conn.sock is not None:
                self._conn.sock.settimeout(wait)
        return self._conn

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def exchange(self, requests: Sequence[tuple[str, dict[str, Any]]]) -> list[Answer]:
        return exchange_sequentially(self, requests)

    def close(self) -> None:
        self._drop()
        self._watchdog.close()


def check_spec(spec: str) -> None:
    """ValueError saying what is wrong with an http:// or https:// spec."""
    parse_url(spec)


def open_spec(spec: str, *, profile_path: str | None, timeout: float) -> HttpAdapter:
    """The adapter of a checked spec. The server plays the rules it was started with:
    `profile_path` configures only the bundled game."""
    return HttpAdapter(spec, timeout=timeout)
