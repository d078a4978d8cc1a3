"""Strict JSON (RFC 8259), read the same way wherever chcert reads it: a game's replies,
results.json for `report` and `diff`.

A key given twice is refused, not resolved as "the last one wins" (which would let a file
say two things and mean the second); NaN and Infinity are refused (not JSON); so is a
number too long to read or nesting deeper than the parser goes. Each problem is a
ValueError saying what is wrong.

A game's replies (numbers with a fraction read as Decimals) are read first by msgspec's
C reader, four times faster, whose reading is the strict reader's in every case but one:
a key given twice, which it keeps once. So its reading is taken only when the document
has as many colons as the same value written again (a key given twice loses at least
its colon), no backslash-u escape (which could spell a colon) and little nesting (below both
readers' depth limits); in any other case, and whenever it refuses a document, the
strict reader reads it and says what is wrong. tests/test_shapes.py holds the two to
the same reading.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import msgspec


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


_FAST_DECIMALS = msgspec.json.Decoder(float_hook=Decimal)
_FAST_BRACKETS = 256  # brackets a document may have to be read fast: far below any depth limit


def _fast(text: str) -> tuple[bool, Any]:
    """(True, the document) when msgspec's reading is exactly the strict reader's;
    (False, None) when only the strict reader can say."""
    if "\\u" in text or text.count("[") + text.count("{") > _FAST_BRACKETS:
        return False, None
    try:
        value = _FAST_DECIMALS.decode(text)
    except (msgspec.DecodeError, RecursionError, UnicodeEncodeError, ArithmeticError):
        return False, None  # the strict reader says what is wrong, if anything
    if msgspec.json.encode(value).count(b":") != text.count(":"):
        return False, None  # a key given twice, kept once
    return True, value


def loads(text: str, *, decimals: bool = False) -> Any:
    """One JSON document, strictly; ValueError saying what is wrong otherwise."""
    if decimals:
        read, value = _fast(text)
        if read:
            return value
    try:
        return (_DECIMALS if decimals else _FLOATS).decode(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ArithmeticError:  # decimal.InvalidOperation: an exponent beyond any Decimal's
        raise ValueError("a number too large to read") from None
