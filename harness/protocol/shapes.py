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
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from harness._schema import schema_contents

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

Amount = Annotated[int, msgspec.Meta(ge=0)]
Hole = Annotated[list[WireCard], msgspec.Meta(min_length=2, max_length=2)]
Flop = Annotated[list[WireCard], msgspec.Meta(min_length=3, max_length=3)]
Board = Annotated[list[WireCard], msgspec.Meta(min_length=5, max_length=5)]


class WagerShape(msgspec.Struct):
    stake: Amount
    returned: Amount


class WagersShape(msgspec.Struct):
    ante: WagerShape
    call: WagerShape
    aa_bonus: WagerShape | None = None


class SettledSeatShape(msgspec.Struct):
    seat: int
    action: WireAction
    wagers: WagersShape
    hand: WireCategory | None = None


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
