"""The JSON Lines server reads requests and writes replies as the standard json module
would (harness/protocol/__init__.py): msgspec where it is exact, json elsewhere."""

from __future__ import annotations

import io
import json
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.protocol import read_request, serve_json_lines
from harness.reference import engine
from harness.reference.engine import ReferenceGame
from harness.reference.mutants import MUTANTS

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down (1 is not 1.0, nor True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _read_both(line: bytes) -> tuple[Any, Any]:
    def read(reader: Any) -> Any:
        try:
            return reader(line)
        except ValueError as exc:
            return ("refused", type(exc).__mro__[-3].__name__)

    return read(read_request), read(json.loads)


@settings(max_examples=300, deadline=None)
@given(JSON, st.booleans())
def test_a_request_is_read_as_json_reads_it(value: Any, ascii_only: bool) -> None:
    line = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    ours, theirs = _read_both(line)
    assert _same(ours, theirs)


@pytest.mark.parametrize(
    "line",
    [
        b"NaN",
        b'{"a": Infinity}',
        b"1e400",
        b'"\\ud800"',
        b'{"a":1,"a":2}',
        b"\xef\xbb\xbf{}",  # a byte-order mark
        '{"op":"hello"}'.encode("utf-16"),
        b"[1,2",
        b'{"a":"\xff"}',
        b"123456789012345678901234567890",
        b'  {"id": 1, "op": "hello"}  ',
    ],
)
def test_what_only_json_reads_is_read_by_json(line: bytes) -> None:
    ours, theirs = _read_both(line)
    assert _same(ours, theirs)


def _served(game: Any, lines: list[bytes], native: bool) -> list[Any]:
    """The replies, read back, of a game served these lines; its shuffles the same from
    one call to the next (a mutant deals a round of its own on a refused bet)."""
    order = random.Random(7)
    out = io.BytesIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "production_shuffle", lambda: order.sample(range(52), 52))
        serve_json_lines(game, io.BytesIO(b"\n".join(lines) + b"\n"), out, native=native)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _requests() -> list[bytes]:
    requests: list[dict[str, Any]] = [
        {"op": "hello"},
        {
            "op": "round",
            "seats": [{"seat": 1, "ante": 100, "aa_bonus": 100}, {"seat": 2, "ante": 250}],
            "cards": {
                "seats": {"1": ["As", "Ad"], "2": ["7c", "2d"]},
                "dealer": ["Kh", "Qh"],
                "flop": ["Ac", "9h", "4h"],
                "turn": "Jh",
                "river": "2s",
            },
        },
        {"op": "act", "round": "r1", "seat": 1, "action": "call"},
        {"op": "act", "round": "r1", "seat": 2, "action": "fold"},
        {"op": "result", "round": "r1"},
        {"op": "act", "round": "r1", "seat": 9, "action": "call"},  # an error reply
        {"op": "round", "seats": [{"seat": 1, "ante": "ünï"}]},  # its message quotes them
        {"op": "history", "last": 5},
        {"op": "bye"},
    ]
    return [json.dumps({"id": n, **r}).encode() for n, r in enumerate(requests, 1)]


@pytest.mark.parametrize("name", ["reference", *sorted(MUTANTS)])
def test_a_native_game_s_replies_are_the_standard_encoder_s_values(name: str) -> None:
    """The reference and every mutant (each a native game: harness/reference/__main__.py)
    through a round, its errors and its history, written both ways."""

    def game() -> ReferenceGame:
        return ReferenceGame() if name == "reference" else MUTANTS[name]()

    native = _served(game(), _requests(), native=True)
    standard = _served(game(), _requests(), native=False)
    assert len(native) == len(_requests()) and _same(native, standard)
    assert any("error" in r for r in native)


@pytest.mark.parametrize(
    "sent,echoed",
    [
        (b"NaN", b"NaN"),
        (b"Infinity", b"Infinity"),
        (b"1e400", b"Infinity"),
        (b"[1]", b"[1]"),
        (b"true", b"true"),
        (b"1.5", b"1.5"),
    ],
)
def test_an_id_msgspec_would_write_otherwise_is_echoed_as_json_would(
    sent: bytes, echoed: bytes
) -> None:
    replies = []
    for native in (True, False):
        out = io.BytesIO()
        line = b'{"id":' + sent + b',"op":"hello"}\n'
        serve_json_lines(ReferenceGame(), io.BytesIO(line), out, native=native)
        replies.append(out.getvalue())
    assert replies[0] == replies[1] and replies[0].startswith(b'{"id":' + echoed + b",")


class _Cycle(ReferenceGame):
    def hello(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        body["again"] = body
        return body


def test_a_body_no_json_can_carry_is_a_line_that_is_not_json_either_way() -> None:
    for native in (True, False):
        out = io.BytesIO()
        serve_json_lines(_Cycle(), io.BytesIO(b'{"id":1,"op":"hello"}\n'), out, native=native)
        assert out.getvalue().startswith(b"not JSON-serialisable (ValueError: Circular")
