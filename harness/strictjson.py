"""Strict JSON (RFC 8259), read the same way wherever chcert reads it: a game's replies,
results.json for `report` and `diff`.

A key given twice is refused, not resolved as "the last one wins" (which would let a file
say two things and mean the second); NaN and Infinity are refused (not JSON); so is a
number too long to read or nesting deeper than the parser goes. Each problem is a
ValueError saying what is wrong.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        keys = [key for key, _ in pairs]
        twice = next(key for i, key in enumerate(keys) if key in keys[:i])
        raise ValueError(f"key {twice!r} appears twice in one object")
    return obj


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


_FLOATS = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant)
# A number with a fraction or an exponent kept a Decimal: where a schema says "integer"
# (money, seats, limits), 200.0 is then refused as no amount.
_DECIMALS = json.JSONDecoder(
    object_pairs_hook=_object, parse_constant=_constant, parse_float=Decimal
)


def loads(text: str, *, decimals: bool = False) -> Any:
    """One JSON document, strictly; ValueError saying what is wrong otherwise."""
    try:
        return (_DECIMALS if decimals else _FLOATS).decode(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
