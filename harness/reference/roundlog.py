"""The reference game's round log: every round it ends, one JSON Lines row a seat, as a
production game writes round log v1 (docs/audit.md, The round log) for `chcert audit`.

Written by the game's own hand from its own state, not by the audit's reader: what the
audit reads is what a vendor's game would have written.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from harness.reference.rounds import Phase, Round, Seat
from harness.rules.cards import format_cards
from harness.rules.game import Action


class RoundLog:
    """Appends each ended round to a JSON Lines file, flushed at once (a line a seat)."""

    def __init__(self, path: str | Path, table: str = "reference-1", build: str = "") -> None:
        self.file: IO[str] = Path(path).open("a", encoding="utf-8")  # noqa: SIM115 (closed by close)
        self.table = table
        self.build = build

    def write(self, rnd: Round, seats: list[tuple[Seat, int]]) -> None:
        """An ended round's rows: each seat, with the stake of its call."""
        now = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        rows = [self._row(rnd, now, seat, call) for seat, call in seats]
        self.file.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
        self.file.flush()

    def _row(self, rnd: Round, time: str, seat: Seat, call_stake: int) -> dict[str, object]:
        voided = rnd.phase is Phase.VOID
        return {
            "table": self.table,
            "round": rnd.ident,
            "time": time,
            "build": self.build,
            "seat": seat.number,
            "hole": "".join(format_cards(seat.hole)),
            "flop": "".join(format_cards(rnd.flop)),
            "turn": str(rnd.turn),
            "river": str(rnd.river),
            "dealer": "".join(format_cards(rnd.dealer)),
            # A seat a void round left undecided made no call.
            "action": (seat.action or Action.FOLD).value,
            "ante": seat.ante,
            "call": call_stake,
            "aa_bonus": seat.aa_bonus,
            "ante_returned": seat.ante_returned,
            "call_returned": seat.call_returned,
            "aa_bonus_returned": seat.aa_returned,
            "status": "void" if voided else "settled",
        }

    def close(self) -> None:
        self.file.close()
