"""A correct Python game that writes junk to its stdout, at import and in every call:
through `print`, through `sys.stdout` replaced, and straight to file descriptor 1.
None of it may reach the channel its replies travel on (docs/adapter-protocol.md)."""

from __future__ import annotations

import os
import sys
from typing import Any

from tests.games import Seeded

print("junk at import: {not json")
os.write(1, b'{"id": 1, "ok": {}}\n')  # a forged reply, straight to the descriptor


class Noisy(Seeded):
    """The seeded reference game, chatty on stdout."""

    def __init__(self) -> None:
        print("constructing", end="")  # no newline: the next reply would be glued to it
        super().__init__()

    def hello(self) -> dict[str, Any]:
        sys.stdout.write("hello junk\n")
        sys.stdout.flush()
        os.write(1, b"\n\n\x00garbage\n")
        return super().hello()

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        print("round junk", flush=True)
        return super().round(seats=seats, cards=cards)

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        print("act junk", flush=True)
        return super().act(round=round, seat=seat, action=action)

    def result(self, round: Any) -> dict[str, Any]:
        sys.stdout = sys.stderr  # tampering with the stream itself
        print("result junk")
        return super().result(round=round)
