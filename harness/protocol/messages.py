"""Protocol v1's messages as types (docs/adapter-protocol.md, Operations).

What the harness sends, the stakes and stacked cards of a `round` request, are typed
dicts: they go out as JSON as they are. What a game answers is read once into frozen
records, after its `ok` body has passed its schema (specs/schemas/protocol-v1.schema.json,
checked by harness/adapters/base.py): the schema has already refused a field missing
or of the wrong type, so the reading cannot fail on a reply the adapter let through,
and a check reads fields, never keys. A key protocol v1 does not name is dropped here
(what a round reply may show beyond its fields is the information-hiding check's, which
reads the reply as sent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, TypedDict

import msgspec

from harness.rules.table import MAX_AMOUNT


class StackedCards(TypedDict):
    """A `round` request's `cards` (capability inject): each seat's hole cards by seat
    number, the dealer's two, the flop, the turn and the river."""

    seats: dict[str, list[str]]
    dealer: list[str]
    flop: list[str]
    turn: str
    river: str


class SeatStakes(TypedDict):
    """One seat of a `round` request's `seats`: its ante, and its AA Bonus if it bets one."""

    seat: int
    ante: int
    aa_bonus: NotRequired[int]


def seat_stakes(seat: int, ante: int, aa_bonus: int = 0) -> SeatStakes:
    """One seat of a `round` request: its ante, and its AA Bonus if it bets one."""
    if aa_bonus:
        return {"seat": seat, "ante": ante, "aa_bonus": aa_bonus}
    return {"seat": seat, "ante": ante}


class Wager(msgspec.Struct, frozen=True):
    stake: int
    returned: int

    @property
    def pair(self) -> tuple[int, int]:
        return self.stake, self.returned


class Wagers(msgspec.Struct, frozen=True):
    """A seat's wagers; `aa_bonus` None for a seat without one."""

    ante: Wager
    call: Wager
    aa_bonus: Wager | None = None

    @property
    def aa_bonus_staked(self) -> tuple[int, int] | None:
        """The AA Bonus as (stake, returned); None for a seat that staked none (the wager
        absent, null, or 0 staked and 0 returned)."""
        aa = self.aa_bonus
        return None if aa is None or aa.pair == (0, 0) else aa.pair


class DealtSeat(msgspec.Struct, frozen=True):
    seat: int
    hole: tuple[str, ...]


class Dealt(msgspec.Struct, frozen=True):
    """The `round` reply: the round's id, each seat's hole cards and the flop."""

    round: str | int
    seats: tuple[DealtSeat, ...]
    flop: tuple[str, ...]

    def holes(self) -> dict[int, tuple[str, ...]]:
        return {s.seat: s.hole for s in self.seats}


class Dealer(msgspec.Struct, frozen=True):
    hole: tuple[str, ...]
    hand: str
    qualifies: bool


class Event(msgspec.Struct, frozen=True):
    """One event of a settled round's `events` (capability events)."""

    type: str
    seat: int | None = None


class SettledSeat(msgspec.Struct, frozen=True):
    seat: int
    action: Literal["call", "fold"]
    wagers: Wagers
    hand: str | None = None


class Settled(msgspec.Struct, frozen=True):
    """A settled round: a `result` reply, or an entry of `history`."""

    board: tuple[str, ...]
    dealer: Dealer
    seats: tuple[SettledSeat, ...]
    round: str | int | None = None
    events: tuple[Event, ...] = ()

    def seat(self, number: int) -> SettledSeat | None:
        return next((s for s in self.seats if s.seat == number), None)


class PendingSeat(msgspec.Struct, frozen=True):
    seat: int
    hole: tuple[str, ...]
    action: Literal["call", "fold"] | None


class InProgress(msgspec.Struct, frozen=True):
    """A round interrupted while it awaited decisions, resumed after a restart
    (capability recovery)."""

    round: str | int
    seats: tuple[PendingSeat, ...]
    flop: tuple[str, ...]
    status: Literal["in_progress"] = "in_progress"


class VoidSeat(msgspec.Struct, frozen=True):
    seat: int
    wagers: Wagers


class Voided(msgspec.Struct, frozen=True):
    """A round interrupted and voided after a restart, every stake returned (capability
    recovery)."""

    round: str | int
    seats: tuple[VoidSeat, ...]
    status: Literal["void"] = "void"


Result = Settled | InProgress | Voided


def fields_of(reply: msgspec.Struct) -> dict[str, object]:
    """A reply read, as JSON with protocol v1's names (evidence of what a check read)."""
    fields = msgspec.json.decode(msgspec.json.encode(reply))  # lists, as JSON has them
    assert isinstance(fields, dict)
    return fields


def read_dealt(body: Mapping[str, object]) -> Dealt:
    """A `round` reply's ok body, as its schema has checked it."""
    return msgspec.convert(body, Dealt)


def read_result(body: Mapping[str, object]) -> Result:
    """A `result` reply's ok body (or a `history` entry), by its status, as its schema
    has checked it."""
    status = body.get("status")
    if status == "in_progress":
        return msgspec.convert(body, InProgress)
    if status == "void":
        return msgspec.convert(body, Voided)
    return msgspec.convert(body, Settled)


def read_history(body: Mapping[str, object]) -> tuple[Result, ...]:
    """A `history` reply's rounds, oldest first as the game lists them."""
    rounds = body["rounds"]
    assert isinstance(rounds, list)  # the schema's
    return tuple(read_result(r) for r in rounds)


WAGERS = ("ante", "call", "aa_bonus")  # a seat's wagers, as the wire names them


class Misstated(msgspec.Struct, frozen=True):
    """An amount of a `result` body that is not an integer from 0 to 2^53 - 1."""

    seat: int  # 0 when the seat's own number is not an integer
    wager: str
    field: Literal["stake", "returned"]
    sent: int | str  # the amount as sent: an integer, or the text of a number with a fraction


def misstated_amounts(body: Mapping[str, object]) -> tuple[Misstated, ...]:
    """Each amount of a `result` body as the game sent it (its schema unchecked or failed)
    that is not an integer from 0 to 2^53 - 1 (a JSON number with a fraction reads as a
    Decimal: harness/strictjson.py)."""
    if _all_exact(body):
        return ()
    found = []
    seats = body.get("seats")
    for entry in seats if isinstance(seats, list) else []:
        if not isinstance(entry, dict):
            continue
        seat = entry.get("seat")
        wagers = entry.get("wagers")
        for wager in WAGERS:
            pair = wagers.get(wager) if isinstance(wagers, dict) else None
            for field in ("stake", "returned"):
                if not isinstance(pair, dict) or field not in pair:
                    continue
                value = pair[field]
                exact = isinstance(value, int) and not isinstance(value, bool)
                if not exact or not 0 <= value <= MAX_AMOUNT:
                    number = seat if isinstance(seat, int) and not isinstance(seat, bool) else 0
                    sent = value if isinstance(value, int) else str(value)
                    found.append(Misstated(number, wager, field, sent))  # type: ignore[arg-type]
    return tuple(found)


def _all_exact(body: Mapping[str, object]) -> bool:
    """Whether every amount of every wager of a `result` body is an integer from 0 to
    2^53 - 1, as almost every body's are: misstated_amounts' answer is then none, found
    in one pass. False for a body of any other form, which misstated_amounts reads."""
    try:
        return all(
            type(amount) is int and 0 <= amount <= MAX_AMOUNT
            for entry in body["seats"]  # type: ignore[attr-defined]
            for wager in entry["wagers"].values()
            if wager is not None
            for amount in (wager["stake"], wager["returned"])
        )
    except (KeyError, TypeError, AttributeError, IndexError):
        return False


def seat_as_sent(body: Mapping[str, object], seat: int) -> dict[str, object]:
    """One seat's settlement in a `result` body as the game sent it (a malformed reply's),
    in the shape the decision table shows a seat (harness/differential/attribution.py
    SeatMoney): action, hand, each wager as [stake, returned]; None where it sent none."""
    seats = body.get("seats")
    entries = [e for e in seats if isinstance(e, dict)] if isinstance(seats, list) else []
    entry = next((e for e in entries if e.get("seat") == seat), {})
    wagers = entry.get("wagers")
    sent = wagers if isinstance(wagers, dict) else {}

    def pair(wager: str) -> list[object] | None:
        value = sent.get(wager)
        return [value.get("stake"), value.get("returned")] if isinstance(value, dict) else None

    aa = pair("aa_bonus")
    return {
        "action": entry.get("action"),
        "hand": entry.get("hand"),
        "ante": pair("ante"),
        "call": pair("call"),
        "aa_bonus": None if aa in (None, [0, 0]) else aa,
    }


def cards_as_sent(body: Mapping[str, object]) -> tuple[object, object]:
    """The board and the dealer's hole cards of a `result` body as the game sent them
    (a malformed reply's: its schema failed), to be parsed as cards or refused."""
    dealer = body.get("dealer")
    return body.get("board"), dealer.get("hole") if isinstance(dealer, dict) else None
