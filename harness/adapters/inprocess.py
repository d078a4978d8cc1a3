"""In-process adapter: a Python game object whose methods are named like the ops.

Requests and replies go through JSON encoding even in-process, so a game that
returns something the wire could not carry fails here exactly as it would behind
a pipe, and the harness never shares mutable objects with the game.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

from harness.adapters.base import Answer, check_reply, exchange_sequentially
from harness.errors import ProtocolViolation
from harness.protocol import serve_request


class InProcessAdapter:
    def __init__(self, game: Any, *, spec: str = "python") -> None:
        self.game = game
        self.spec = spec
        self._ids = itertools.count(1)

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        request = {"id": next(self._ids), "op": op, **params}
        wire_request = json.loads(json.dumps(request))
        reply = serve_request(self.game, wire_request)
        try:
            wire_reply = json.loads(json.dumps(reply))
        except (TypeError, ValueError) as exc:
            raise ProtocolViolation(
                f"reply is not JSON-serialisable: {exc}",
                {"request": request, "raw": repr(reply)[:2000]},
            ) from exc
        return check_reply(request, wire_reply, {})

    def exchange(self, requests: Sequence[tuple[str, dict[str, Any]]]) -> list[Answer]:
        return exchange_sequentially(self, requests)

    def close(self) -> None:
        pass
