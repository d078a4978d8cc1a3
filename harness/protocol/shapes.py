"""The replies a round is made of, as msgspec types at least as strict as protocol v1.

Every `round` and `result` reply of a certification passes the protocol's JSON Schema
(specs/schemas/protocol-v1.schema.json) before a check reads it: tens of thousands a
run, each about ten times dearer to check with the compiled schema than to convert
to a typed record. So a body is first converted to its shape here: a body that
converts conforms to the schema, since each shape asks at least what the schema asks
(the same required fields, types, enums, bounds and lengths; the enums read from the
schema itself). A body that does not convert is judged by the schema, which alone says
what is wrong with it, and may still conform (a shape may be stricter than the schema,
never looser): `conforms` is a shortcut to "no problem", never a verdict of its own.
tests/test_shapes.py holds the shapes to the schema on the reference's replies and on
every mutation of them it draws.

`read_line` goes one step further for the subprocess transport: a reply line decoded
straight into its shape, then into the record a check reads, where the strict reader,
the schema and the reading would take it the same way (tests/test_shapes.py holds it
to them); any other line goes that longer way, which says what is wrong.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, TypeVar

import msgspec

from harness._schema import schema_contents
from harness.protocol.messages import Dealt, Settled
from harness.rules.table import MAX_AMOUNT

_COMMON = schema_contents("common.schema.json")["$defs"]
_SETTLED = schema_contents("protocol-v1.schema.json")["$defs"]["result_settled"]["properties"]
# Every two-character string the schema's card pattern takes (ranks and suits as spelled).
CARDS = tuple(
    text
    for text in map("".join, itertools.product("23456789TJQKA", "cdhs"))
    if re.search(_COMMON["card"]["pattern"], text)
)
CATEGORIES = tuple(_COMMON["category"]["enum"])
ACTIONS = tuple(_SETTLED["seats"]["items"]["properties"]["action"]["enum"])
EVENTS = tuple(_SETTLED["events"]["items"]["properties"]["type"]["enum"])

if TYPE_CHECKING:
    WireCard = str
    WireCategory = str
    WireAction = str
    WireEvent = str
else:
    WireCard = Literal[CARDS]
    WireCategory = Literal[CATEGORIES]
    WireAction = Literal[ACTIONS]
    WireEvent = Literal[EVENTS]

# At most 2^53 - 1, which the schema cannot bound: a larger amount is the schema's to pass
# and the round's to be malformed for (harness/protocol/messages.py `misstated_amounts`).
Amount = Annotated[int, msgspec.Meta(ge=0, le=MAX_AMOUNT)]
Hole = Annotated[list[WireCard], msgspec.Meta(min_length=2, max_length=2)]
Flop = Annotated[list[WireCard], msgspec.Meta(min_length=3, max_length=3)]
Board = Annotated[list[WireCard], msgspec.Meta(min_length=5, max_length=5)]


class WagerShape(msgspec.Struct):
    stake: Amount
    returned: Amount


# A field the schema does not require is UNSET when absent, never given a default: written
# again (read_line), a body has exactly the keys it was sent with.


class WagersShape(msgspec.Struct):
    ante: WagerShape
    call: WagerShape
    aa_bonus: WagerShape | msgspec.UnsetType | None = msgspec.UNSET


class SettledSeatShape(msgspec.Struct):
    seat: int
    action: WireAction
    wagers: WagersShape
    hand: WireCategory | msgspec.UnsetType | None = msgspec.UNSET
    # Not protocol v1's (any value passes its schema), but what the reference and most
    # games show: named, as cards, so that read_line keeps it.
    hole: list[WireCard] | msgspec.UnsetType = msgspec.UNSET


class DealerShape(msgspec.Struct):
    hole: Hole
    hand: WireCategory
    qualifies: bool


class EventShape(msgspec.Struct):
    type: WireEvent
    seat: int | msgspec.UnsetType = msgspec.UNSET  # absent, never null


class SettledShape(msgspec.Struct):
    """A `result` reply of a settled round (no `status`: the schema's last branch)."""

    board: Board
    dealer: DealerShape
    seats: Annotated[list[SettledSeatShape], msgspec.Meta(min_length=1)]
    round: str | int | msgspec.UnsetType = msgspec.UNSET  # absent, never null
    events: list[EventShape] | msgspec.UnsetType = msgspec.UNSET


class DealtSeatShape(msgspec.Struct):
    seat: int
    hole: Hole


class DealtShape(msgspec.Struct):
    """A `round` reply."""

    round: str | int
    seats: Annotated[list[DealtSeatShape], msgspec.Meta(min_length=1)]
    flop: Flop


class ActShape(msgspec.Struct, forbid_unknown_fields=True):
    """An `act` reply's body as the reference sends it, empty (protocol v1 takes any
    object: any other goes to the strict reader)."""


SHAPES: dict[str, type[msgspec.Struct]] = {"round": DealtShape, "result": SettledShape}


def conforms(op: str, body: dict[str, Any]) -> bool:
    """True when `body`, the `ok` object of a reply to `op`, converts to its shape, and so
    conforms to protocol v1; False when only the schema can say (no shape for the op, a
    `result` with a `status`, a body its shape refuses)."""
    shape = SHAPES.get(op)
    if shape is None or (op == "result" and "status" in body):
        return False
    try:
        msgspec.convert(body, shape)
    except msgspec.ValidationError:
        return False
    return True


T = TypeVar("T")


class _Reply(msgspec.Struct, Generic[T], forbid_unknown_fields=True):
    """An ok reply: its id and body, nothing else (an `error` beside them is the strict
    reader's to find)."""

    id: int
    ok: T


class _Body(msgspec.Struct, Generic[T]):
    ok: T


class _LineReader(msgspec.Struct, frozen=True):
    shape: msgspec.json.Decoder[Any]  # the reply in its shape: the check
    record: msgspec.json.Decoder[Any] | None  # its body as the record a check reads


_READERS = {
    "round": _LineReader(
        msgspec.json.Decoder(_Reply[DealtShape]), msgspec.json.Decoder(_Body[Dealt])
    ),
    "result": _LineReader(
        msgspec.json.Decoder(_Reply[SettledShape]), msgspec.json.Decoder(_Body[Settled])
    ),
    "act": _LineReader(msgspec.json.Decoder(_Reply[ActShape]), None),
}


def read_line(op: str, text: str) -> tuple[int, Dealt | Settled | dict[str, Any]] | None:
    """(id, body) of a reply line to `op` read in one pass: the body a round's record
    (Dealt, Settled), an act's the empty object. None when only the strict reader and
    the schema can say (harness/adapters/base.py): not an ok reply, its body not in its
    shape, an escape, a key given twice, or any other op.

    The shape refuses whatever the schema refuses (conforms), and no part of it is of
    any type, so none nests deeper than the strict reader reads; a key given twice is
    found as harness/strictjson.py finds it, by the colons of the reply written again:
    every key its shape names, and only those sent, is written again (no field has a
    default), so a key sent twice, or one the shape does not name, leaves fewer colons."""
    reader = _READERS.get(op)
    if reader is None or "\\" in text:  # an escape, which could spell a colon
        return None
    try:
        reply = reader.shape.decode(text)
    except msgspec.DecodeError:
        return None
    if msgspec.json.encode(reply).count(b":") != text.count(":"):
        return None
    body = {} if reader.record is None else reader.record.decode(text).ok
    return reply.id, body
