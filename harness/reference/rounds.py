"""The state of a round at the reference table: plain records, no rules.

The engine (harness/reference/engine.py) plays rounds on these records and the store
(harness/reference/store.py) maps them to rows and back. They live apart from both so
that each imports them and neither imports the other: the store holds no rules, and the
engine needs of the store only what it calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from harness.rules.cards import Card
from harness.rules.game import Action

# What a deal gives: each seat's hole cards, the dealer's two, the flop, the turn, the river.
Dealt = tuple[dict[int, tuple[Card, Card]], tuple[Card, Card], tuple[Card, Card, Card], Card, Card]


class Phase(Enum):
    DECISIONS = "decisions"
    DONE = "done"
    VOID = "void"  # interrupted by a failure and voided, every stake returned


@dataclass
class Seat:
    number: int
    ante: int
    aa_bonus: int
    hole: tuple[Card, Card]
    action: Action | None = None
    ante_returned: int = 0
    call_returned: int = 0
    aa_returned: int = 0
    final_strength: int | None = None


@dataclass
class Round:
    ident: str
    seats: dict[int, Seat]
    dealer: tuple[Card, Card]
    flop: tuple[Card, Card, Card]
    turn: Card
    river: Card
    phase: Phase = Phase.DECISIONS
    events: list[dict[str, Any]] = field(default_factory=list)
    dealer_strength: int | None = None

    def log(self, kind: str, seat: int | None = None) -> None:
        self.events.append({"type": kind} if seat is None else {"type": kind, "seat": seat})
