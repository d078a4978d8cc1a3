"""Adapter protocol v1: op names, error codes, capabilities, and the dispatcher.

The wire format is one JSON object per request, `{"id": N, "op": NAME, ...params}`,
answered by `{"id": N, "ok": {...}}` or `{"id": N, "error": {"code", "message"}}`
(docs/adapter-protocol.md). `serve_request` maps a request onto a game object
whose methods are named like the ops; the JSON Lines server of the reference game
and the child process a python: game runs in (harness/adapters/pyhost.py) both use
it, so a vendor's Python class behaves the same whichever way it is certified.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
from collections.abc import Callable
from enum import StrEnum, unique
from typing import IO, Any

import msgspec

from harness.errors import ErrorReply

PROTOCOL_VERSION = 1

OPS = ("hello", "round", "act", "result", "shuffle", "rng", "history", "bye")


@unique
class ErrorCode(StrEnum):
    INVALID_BET = "invalid_bet"
    INVALID_ACTION = "invalid_action"
    OUT_OF_TURN = "out_of_turn"
    UNKNOWN_ROUND = "unknown_round"
    ROUND_IN_PROGRESS = "round_in_progress"
    INVALID_CARDS = "invalid_cards"
    UNSUPPORTED = "unsupported"
    INVALID_REQUEST = "invalid_request"
    INTERNAL = "internal"


@unique
class Capability(StrEnum):
    INJECT = "inject"
    EVENTS = "events"
    SHUFFLE = "shuffle"
    RNG = "rng"
    HISTORY = "history"
    PIPELINE = "pipeline"  # several rounds open at once, kept apart by round id
    RECOVERY = "recovery"  # rounds survive a kill: resumed or voided (docs/adapter-protocol.md)


def seats_capability(capabilities: list[str]) -> int:
    """The number of seats a game declares with `seats:N` (1 when it declares none)."""
    for cap in capabilities:
        if cap.startswith("seats:") and cap[6:].isascii() and cap[6:].isdigit():
            return int(cap[6:])
    return 1


def serve_request(game: Any, request: Any) -> dict[str, Any]:
    """Answer one request with a game object's method of the same name.

    The method gets the request's params as keyword arguments and returns the
    `ok` body; an exception with a `code` attribute becomes that error reply,
    any other exception an `internal` error naming its type.
    """
    rid = request.get("id") if isinstance(request, dict) else None
    if not isinstance(request, dict) or not isinstance(request.get("op"), str):
        return _error(rid, ErrorCode.INVALID_REQUEST, "a request is an object with an 'op' string")
    op = request["op"]
    method = getattr(game, op, None) if op in OPS else None
    if method is None:
        return _error(rid, ErrorCode.UNSUPPORTED, f"op {op!r} is not supported")
    params = {k: v for k, v in request.items() if k not in ("id", "op")}
    keywords = _keywords(method)
    if keywords is None or not keywords[1] <= params.keys() <= keywords[0]:
        try:  # binding explains what is wrong (or accepts what the shortcut cannot judge)
            _signature(method).bind(**params)
        except TypeError as exc:
            return _error(rid, ErrorCode.INVALID_REQUEST, f"bad parameters for {op}: {exc}")
    try:
        body = method(**params)
    except ErrorReply as exc:
        return _error(rid, exc.code, exc.message)
    except Exception as exc:
        code = getattr(exc, "code", None)
        if isinstance(code, str):
            return _error(rid, code, str(exc))
        return _error(rid, ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}")
    return {"id": rid, "ok": body if body is not None else {}}


def _keywords(method: Any) -> tuple[frozenset[str], frozenset[str]] | None:
    """(the params a method takes by keyword, those it requires), cached per function.

    Checking a request's keys against these two sets is what `Signature.bind`
    decides for such a method, at a fraction of its cost on every request; None
    (bind instead) for a method taking `**kwargs` or not a plain method.
    """
    func = getattr(method, "__func__", None)
    return None if func is None else _keyword_sets(func)


@functools.lru_cache(maxsize=256)
def _keyword_sets(func: Any) -> tuple[frozenset[str], frozenset[str]] | None:
    params = _unbound_signature(func).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    named = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    required = [p for p in params if p.default is p.empty and p.kind is not p.VAR_POSITIONAL]
    return frozenset(p.name for p in named), frozenset(p.name for p in required)


def _signature(method: Any) -> inspect.Signature:
    """The signature a request must bind to, cached per function (asked every request)."""
    func = getattr(method, "__func__", None)
    if func is None:
        return inspect.signature(method)
    return _unbound_signature(func)


@functools.lru_cache(maxsize=256)
def _unbound_signature(func: Any) -> inspect.Signature:
    """A method's signature without its first (instance) parameter."""
    signature = inspect.signature(func)
    return signature.replace(parameters=list(signature.parameters.values())[1:])


def _error(rid: Any, code: str, message: str) -> dict[str, Any]:
    return {"id": rid, "error": {"code": str(code), "message": message}}


def serve_json_lines(
    game: Any, stdin: IO[bytes], stdout: IO[bytes], *, native: bool = False
) -> None:
    """Serve a game over JSON Lines until `bye` or end of input (one object per line).

    Binary streams, no text layer. Input is taken as it arrives, one read at a time
    (`read1`): the replies to every complete line a read brings go out in one write
    and flush before the next read waits. A harness that waits for each reply gets
    it at once; one that pipelines (docs/adapter-protocol.md) costs a few system
    calls per batch instead of two per request.

    `native`: the game's bodies hold only JSON's own types (objects with string keys,
    arrays, strings, integers, booleans, null and finite floats), as the reference
    game's and its mutants' do (tests/test_serving.py plays every one both ways); they
    are written by msgspec, several times faster than the standard encoder, as the
    same JSON values. msgspec would write what the standard encoder refuses (a set, a
    Decimal, bytes) and NaN as null: a game whose bodies may hold them is not native.
    Any other game's replies are written by `reply_line`, which turns a body JSON
    cannot carry into a line that is not JSON.
    """
    write = _native_line if native else _standard_line
    read1 = getattr(stdin, "read1", None)
    chunks = iter(stdin.readline if read1 is None else lambda: read1(1 << 16), b"")
    partial: list[bytes] = []  # the start of a line still arriving
    for chunk in chunks:
        if b"\n" not in chunk:
            partial.append(chunk)
            continue
        lines = b"".join([*partial, chunk]).split(b"\n")
        last = lines.pop()
        partial = [last] if last else []
        if _serve_lines(game, lines, stdout, write):
            return
    _serve_lines(game, [b"".join(partial)], stdout, write)  # a last line without its newline


_encode = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps(...) builds one per call


def reply_line(reply: dict[str, Any]) -> str:
    """A reply as one line of JSON, or, when the body a game's method returned is something
    JSON cannot carry (a set, a Decimal, a cycle), a line that is *not* JSON saying so.

    The harness refuses that line as it refuses any reply that is not JSON, with the
    line as its evidence: the game's fault, never a reply that could pass, and never a
    server that dies and leaves the request without an answer (docs/adapter-protocol.md).
    """
    try:
        return _encode(reply)
    except (TypeError, ValueError, RecursionError) as exc:
        text = f"not JSON-serialisable ({type(exc).__name__}: {exc}): {reply!r}"
        return " ".join(text.splitlines())[:2000]


def take_stdio() -> tuple[IO[bytes], IO[bytes]]:
    """This process's stdin and stdout, taken for the JSON Lines of the protocol: returned
    as binary streams on descriptors of their own, while descriptor 0 now reads /dev/null
    and descriptor 1 writes to stderr.

    A server calls it before it imports a game's module, so nothing the game does reaches
    the channel: a `print`, a replaced `sys.stdout`, a write to descriptor 1 (from C code
    or a child process too) lands on stderr, which the harness keeps as evidence, and a
    read of stdin finds its end instead of taking the requests. The new descriptors are
    not inherited by the game's own child processes.
    """
    sys.stdout.flush()
    channel_in = os.fdopen(os.dup(0), "rb")
    channel_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return channel_in, channel_out


def read_request(line: bytes) -> Any:
    """A request line as the standard json module reads it: by msgspec where it reads
    the line (strict JSON, a subset of what json takes, read to the same values), by
    json otherwise (NaN, an exponent beyond a float, a lone surrogate, another encoding)."""
    try:
        return msgspec.json.decode(line)
    except msgspec.MsgspecError:
        return json.loads(line)


def _standard_line(reply: dict[str, Any]) -> bytes:
    return reply_line(reply).encode()


def _native_line(reply: dict[str, Any]) -> bytes:
    """A native game's reply (serve_json_lines), by msgspec; by reply_line when its id,
    echoed as the request gave it, is not an integer or a string (NaN, which msgspec
    would write as null, a list), and for what msgspec cannot write (a lone surrogate,
    an integer beyond its range, a cycle)."""
    if type(reply.get("id")) not in (int, str, type(None)):
        return _standard_line(reply)
    try:
        return msgspec.json.encode(reply)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return _standard_line(reply)


def _serve_lines(
    game: Any, lines: list[bytes], stdout: IO[bytes], write: Callable[[dict[str, Any]], bytes]
) -> bool:
    """Answer lines in order with one write; True when `bye` was answered (stop)."""
    replies: list[bytes] = []
    bye = False
    for line in lines:
        if not line.strip():
            continue
        request: Any = None
        try:
            request = read_request(line)
        except ValueError as exc:
            reply = _error(None, ErrorCode.INVALID_REQUEST, f"not JSON: {exc}")
        else:
            reply = serve_request(game, request)
        replies.append(write(reply))
        if isinstance(request, dict) and request.get("op") == "bye" and "ok" in reply:
            bye = True
            break
    if replies:
        replies.append(b"")
        stdout.write(b"\n".join(replies))
        stdout.flush()
    return bye


MAX_REQUEST = 64 << 20  # the largest request body a game server reads (a deck stack is ~200 B)


def serve_http(game: Any, host: str, port: int, ready: Any = None) -> None:
    """Serve a game over HTTP until interrupted: `POST <any path>/<op>`, the request as
    the JSON body, the reply as the JSON body of a 200 (an error reply too: it is a
    reply). HTTP/1.1 keep-alive; one request at a time reaches the game, whatever the
    number of connections. `ready(url)` is called once the socket listens (port 0: any
    free port)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Lock

    lock = Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in one segment, at once: without these, Nagle's algorithm
        # holds the body until the client's delayed ACK of the headers, 40 ms a request.
        wbufsize = -1
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            length = self.headers.get("Content-Length", "")
            if not length.isdigit() or int(length) > MAX_REQUEST:
                self.send_error(411 if not length.isdigit() else 413)
                return
            body = self.rfile.read(int(length))
            try:
                request: Any = json.loads(body)
            except ValueError as exc:
                reply = _error(None, ErrorCode.INVALID_REQUEST, f"not JSON: {exc}")
            else:
                op = self.path.rstrip("/").rpartition("/")[2]
                if isinstance(request, dict) and request.get("op") != op:
                    reply = _error(
                        request.get("id"),
                        ErrorCode.INVALID_REQUEST,
                        f"the path names op {op!r}, the body {request.get('op')!r}",
                    )
                else:
                    with lock:
                        reply = serve_request(game, request)
            data = reply_line(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # a server for a test harness: stderr stays for the game's own news

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    if ready is not None:
        ready(f"http://{host}:{server.server_address[1]}/")
    with server:
        server.serve_forever()
