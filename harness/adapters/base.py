"""The Adapter interface and the reply checking every transport shares.

What the transports (subprocess.py, pyhost.py, http.py) import, and nothing that knows
them: which transport a spec names is registry.py's to say.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from harness import strictjson
from harness._schema import compiled_def, with_decimals
from harness.errors import ErrorReply, ProtocolViolation
from harness.protocol import OPS
from harness.protocol.messages import Dealt, Settled
from harness.protocol.shapes import conforms

STARTUP_GRACE = 60.0  # seconds a game may take to answer `hello`: it may still be starting
MAX_REPLY = 64 << 20  # a reply longer than this is garbage (a shuffle of 100,000 decks is ~7 MB)

# One reply of a pipelined batch: the `ok` body, or the error reply (returned, not raised).
# A transport that reads a round's replies in one pass (harness/protocol/shapes.py
# `read_line`) answers a `round` or `result` with its record instead of its body.
Answer = dict[str, Any] | Dealt | Settled | ErrorReply


class Adapter(Protocol):
    """A connection to one implementation under test."""

    spec: str

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        """Send one request; return the `ok` body or raise ErrorReply / ProtocolViolation."""
        ...

    def exchange(self, requests: Sequence[tuple[str, dict[str, Any]]]) -> list[Answer]:
        """Send `(op, params)` requests without waiting for replies, then collect them.

        Returns, in request order, each `ok` body (or, for a `round` or `result`, the
        record a check reads of it: Answer) or the ErrorReply of an error reply
        (returned, not raised). Replies are matched to requests by `id`, so the game
        may answer in any order. A protocol violation raises ProtocolViolation for
        the whole batch, its evidence naming the request it concerns.
        """
        ...

    def close(self) -> None:
        """Say `bye` where the transport needs it and release the implementation."""
        ...


@runtime_checkable
class Crashable(Protocol):
    """An adapter that can kill the game it started and start it again (subprocess:):
    what the recovery checks need (harness/checks/recovery.py)."""

    def crash(self, op: str | None = None, after: float = 0.0, **params: Any) -> None:
        """Kill the game (after writing `op`, `after` seconds on) and start it again."""


def exchange_sequentially(
    adapter: Adapter, requests: Sequence[tuple[str, dict[str, Any]]]
) -> list[Answer]:
    """`Adapter.exchange` for a transport that cannot pipeline: one `request` at a time."""
    answers: list[Answer] = []
    for op, params in requests:
        try:
            answers.append(adapter.request(op, **params))
        except ErrorReply as exc:
            answers.append(exc)
    return answers


def decode_reply(raw: bytes | str) -> Any:
    """One reply parsed as strict JSON; ValueError saying what is wrong otherwise."""
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    return strictjson.loads(text, decimals=True)  # a reply nested too deep: the game's fault


def _floats(value: Any) -> Any:
    """A checked body with its Decimals (JSON numbers with a fraction) as floats."""
    return with_decimals(value, float)


def _finite(number: float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an integer too large for a float
        return False


def check_reply(request: dict[str, Any], reply: Any, evidence: dict[str, Any]) -> dict[str, Any]:
    """The `ok` body of a well-formed reply; ErrorReply for an error reply; else a violation."""
    if isinstance(reply, dict) and reply.get("id") != request["id"]:
        raise ProtocolViolation(
            f"reply id {reply.get('id')!r} does not match request id {request['id']!r}",
            {**evidence, "request": request, "reply": reply},
        )
    return check_body(request, reply, evidence)


def check_body(request: dict[str, Any], reply: Any, evidence: dict[str, Any]) -> dict[str, Any]:
    """`check_reply` for a reply already matched to `request` by its id: everything but the id."""
    evidence = {**evidence, "request": request, "reply": reply}
    if not isinstance(reply, dict):
        raise ProtocolViolation("reply is not a JSON object", evidence)
    if "error" in reply:
        err = reply["error"]
        if not isinstance(err, dict) or not isinstance(err.get("code"), str):
            raise ProtocolViolation("error reply without a string 'code'", evidence)
        raise ErrorReply(err["code"], str(err.get("message", "")))
    ok = reply.get("ok")
    if not isinstance(ok, dict):
        raise ProtocolViolation("reply has neither an 'ok' object nor an 'error'", evidence)
    op = request["op"]
    if op in OPS and not conforms(op, ok):  # the shortcut of every round's replies
        problem = compiled_def("protocol-v1.schema.json", op)(ok)
        if problem is not None:
            raise ProtocolViolation(
                f"{op} reply does not conform to protocol v1: {problem}",
                evidence,
                op=op,
                detail=problem,
            )
    if op != "hello":  # its body, having passed its schema, holds no Decimal that is read
        return ok
    # Only hello has numbers that are not integers (the published figures).
    hello: dict[str, Any] = _floats(ok)
    published = hello["config"].get("published") or {}
    huge = sorted(k for k, v in published.items() if not _finite(v))
    if huge:
        message = f"hello config.published.{huge[0]} is not a finite number"
        raise ProtocolViolation(message, evidence)
    return hello
