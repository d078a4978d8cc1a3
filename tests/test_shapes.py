"""The fast readers of a game's replies hold to the strict ones (harness/strictjson.py,
harness/protocol/shapes.py): whatever the fast reader accepts, the strict one reads the
same way, and a body whose shape converts conforms to protocol v1's schema."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import strictjson
from harness._schema import compiled_def
from harness.adapters.base import check_body, decode_reply
from harness.adapters.subprocess import _encode, _line
from harness.errors import ErrorReply, ProtocolViolation
from harness.protocol import messages, serve_request
from harness.protocol import shapes as shapes_module
from harness.protocol.shapes import CARDS, CATEGORIES, conforms, read_line
from harness.reference import ReferenceGame

SCHEMA = "protocol-v1.schema.json"


def _strict(text: str) -> Any:
    """The strict reader alone, as it was before the fast one (the reference reading)."""
    return strictjson._DECIMALS.decode(text)


def _replies(rounds: int = 6) -> list[tuple[str, dict[str, Any]]]:
    """(op, ok body) of the reference game's `round` and `result` replies: rounds of
    seven seats, some with an AA Bonus, some seats folding, with its events."""
    game = ReferenceGame()
    serve_request(game, {"id": 0, "op": "hello"})
    out = []
    for n in range(rounds):
        seats = [
            {"seat": s, "ante": 100, **({"aa_bonus": 100} if (s + n) % 3 == 0 else {})}
            for s in range(1, 8)
        ]
        dealt = serve_request(game, {"id": 1, "op": "round", "seats": seats})["ok"]
        out.append(("round", dealt))
        for s in range(1, 8):
            action = "fold" if (s * n) % 4 == 1 else "call"
            act = {"id": 2, "op": "act", "round": dealt["round"], "seat": s, "action": action}
            serve_request(game, act)
        result = serve_request(game, {"id": 3, "op": "result", "round": dealt["round"]})
        out.append(("result", result["ok"]))
    return out


REPLIES = _replies()


def test_the_shapes_read_their_enums_from_the_schema() -> None:
    assert len(CARDS) == 52 and {"As", "Td", "2c"} <= set(CARDS)
    assert "royal_flush" in CATEGORIES and len(CATEGORIES) == 10


@pytest.mark.parametrize(
    ("op", "body"), REPLIES, ids=[f"{op}{i}" for i, (op, _) in enumerate(REPLIES)]
)
def test_every_reply_of_the_reference_takes_the_shortcut(op: str, body: dict[str, Any]) -> None:
    assert conforms(op, body)
    assert compiled_def(SCHEMA, op)(body) is None


ODD_VALUES = [None, True, False, 0, -1, 7, 2**70, Decimal("1.5"), Decimal("2.0"), "", "As", "x",
              "royal_flush", "call", [], ["As", "Kd"], {}, {"stake": 1, "returned": 0}]  # fmt: skip


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a body (keys of objects, indices of lists)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _paths(inner, (*prefix, index))
    return found


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A reply of the reference with one to three of its values replaced, removed or
    given a neighbour: what a sloppy game sends."""
    op, body = draw(st.sampled_from(REPLIES))
    body = copy.deepcopy(body)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(body)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = body
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        how = draw(st.sampled_from(["replace", "remove", "add"]))
        if how == "replace":
            parent[last] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
        elif how == "remove":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["status", "extra", "hand", "seat", "round"]))] = (
                copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
            )
        else:
            parent.append(copy.deepcopy(draw(st.sampled_from([*ODD_VALUES, parent[0]]))))
    return op, body


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_body_whose_shape_converts_conforms_to_the_schema(reply: tuple[str, Any]) -> None:
    op, body = reply
    if conforms(op, body):
        assert compiled_def(SCHEMA, op)(body) is None, body


def test_a_body_the_shape_refuses_is_judged_by_the_schema() -> None:
    op, body = next(r for r in REPLIES if r[0] == "result")
    wrong = copy.deepcopy(body)
    wrong["seats"][0]["wagers"]["ante"]["stake"] = -1
    assert not conforms(op, wrong)
    problem = compiled_def(SCHEMA, op)(wrong)
    assert problem is not None and "seats.0.wagers.ante.stake" in problem


# Text around which JSON documents are built: keys twice, escapes, colons in strings,
# numbers of every form, nesting.
PIECES = ['{"a":1}', '{"a":1,"a":2}', '{"a":{"b":1,"b":1}}', '"x:y"', '"\\u003a"',
          '"\\u0041"', '"\\ud800"', '1.50', '-0', '1e400', "9" * 40, "NaN", "[]", "[1,[2,[3]]]",
          '"\\t"', '"\t"', "true", "null", " ", "{", "}", ",", ":", '"a"',
          "[" * 300 + "]" * 300]  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=6), st.booleans())
def test_the_fast_reader_reads_exactly_as_the_strict_one(pieces: list[str], wrap: bool) -> None:
    text = ",".join(pieces)
    text = "{" + ",".join(f'"k{i % 3}":{p}' for i, p in enumerate(pieces)) + "}" if wrap else text
    try:
        strict: Any = ("value", _strict(text))
    except (ValueError, RecursionError) as exc:
        strict = ("refused", type(exc))
    read, value = strictjson._fast(text)
    if read:
        assert strict == ("value", value), text
    try:
        loaded: Any = ("value", strictjson.loads(text, decimals=True))
    except ValueError:
        loaded = ("refused", None)
    assert loaded[0] == strict[0] and (loaded[0] == "refused" or loaded == strict)


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=5)
    | st.decimals(allow_nan=False, allow_infinity=False, places=2)
)


@given(
    st.recursive(
        SCALARS,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
        ),
        max_leaves=20,
    )
)
@settings(max_examples=500, deadline=None)
def test_every_document_written_is_read_fast_as_written(value: Any) -> None:
    text = json.dumps(value, default=str)
    assert strictjson.loads(text, decimals=True) == _strict(text)


def test_a_number_no_decimal_holds_is_not_json_to_the_harness() -> None:
    """An exponent beyond any Decimal's is the game's garbage (a reply that is not JSON),
    never an arithmetic error the harness would report as its own."""
    with pytest.raises(ValueError, match="too large"):
        decode_reply(b'{"id":1,"ok":{"x":1e999999999999999999999999999}}')
    assert strictjson._fast('"\\ud800"') == (False, None)  # a lone surrogate: strict reads it


REQUEST_VALUES = st.recursive(
    st.integers()
    | st.text()
    | st.text(st.characters(codec=None, categories=["Cs"]))
    | st.booleans()
    | st.none(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=800, deadline=None)
@given(st.dictionaries(st.text(max_size=6), REQUEST_VALUES, max_size=5))
def test_a_request_is_written_as_the_standard_encoder_writes_it(params: dict[str, Any]) -> None:
    """The subprocess adapter's fast writer gives the standard encoder's bytes, escapes and
    characters beyond printable ASCII included (harness/adapters/subprocess.py `_line`)."""
    request = {"id": 7, "op": "act", **params}
    assert _line(request) == (_encode(request) + "\n").encode()
    assert _line({"id": 1, "op": "act", "round": "r\x7f"}).endswith(b'"r\\u007f"}\n')
    # a round id the game sent with a lone surrogate (the strict reader takes it) goes back
    assert _line({"id": 1, "op": "act", "round": "\ud800r1"}).endswith(b'"\\ud800r1"}\n')


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_the_amounts_found_misstated_are_those_of_reading_every_wager(reply: Any) -> None:
    """messages.misstated_amounts' one-pass answer for a body whose amounts are all exact
    is what reading every wager finds (harness/protocol/messages.py `_all_exact`)."""
    _, body = reply
    fast = messages.misstated_amounts(body)
    exact = messages._all_exact
    try:
        messages._all_exact = lambda _body: False  # type: ignore[assignment]
        assert fast == messages.misstated_amounts(body), body
    finally:
        messages._all_exact = exact
    huge = copy.deepcopy(next(b for op, b in REPLIES if op == "result"))
    huge["seats"][0]["wagers"]["ante"]["returned"] = 2**53
    assert [m.sent for m in messages.misstated_amounts(huge)] == [2**53]


def _line_of(body: dict[str, Any], rid: int = 9) -> str:
    return json.dumps({"id": rid, "ok": body}, separators=(",", ":"), default=str)


def _strictly(op: str, text: str, rid: int = 9) -> Any:
    """What the strict path makes of a reply line to `op` (request id `rid`): the record a
    check reads of it, or None where that path reads no record (not JSON, an error reply,
    another id, a body that is not protocol v1's, an amount beyond 2^53 - 1)."""
    try:
        reply = decode_reply(text)
    except ValueError:
        return None
    if not isinstance(reply, dict) or reply.get("id") != rid or type(reply.get("id")) is not int:
        return None
    try:
        body = check_body({"id": rid, "op": op}, reply, {})
    except (ErrorReply, ProtocolViolation):
        return None
    if set(reply) != {"id", "ok"}:
        return None
    if op == "round":
        return messages.read_dealt(body)
    if op == "result" and "status" not in body and not messages.misstated_amounts(body):
        return messages.read_result(body)
    return body if op == "act" else None


@pytest.mark.parametrize(
    ("op", "body"), REPLIES, ids=[f"{op}{i}" for i, (op, _) in enumerate(REPLIES)]
)
def test_every_reply_of_the_reference_is_read_in_one_pass(op: str, body: dict[str, Any]) -> None:
    text = _line_of(body)
    assert read_line(op, text) == (9, _strictly(op, text))
    assert read_line("act", '{"id":4,"ok":{}}') == (4, {})


# Text put in a reply line: keys twice, escapes, an error beside the body, ids of other types.
EDITS = [
    ('"ok":{', '"ok":{"round":"r0",'),
    ('"seat":1,', '"seat":1,"seat":1,'),
    ('"stake":', '"stake":1,"stake":'),
    ('"flop":', '"fl\\u006fp":'),
    ('"As"', '"A\\u0073"'),
    ('"id":9,', '"id":9,"error":{"code":"x"},'),
    ('"id":9', '"id":9.0'),
    ('"id":9', '"id":true'),
    ('"id":9', '"id":"9"'),
    ('"id":9,', ""),
    ('"hand":"', '"hand":"x:'),
    ('"round":"', '"round":"\\u003a'),
    ('"hole":["', '"hole":[":",{"\\u003a":1},"'),
    ("}}", '},"extra":1}'),
    ("}}", "}} "),
    ("}}", "}}}"),
    ('"events":[', '"events":[{"type":"settled","seat":1,"type":"action"},'),
]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.lists(st.sampled_from(EDITS), max_size=2), st.sampled_from(["", "act"]))
def test_a_line_read_in_one_pass_is_read_so_by_the_strict_path(
    reply: tuple[str, Any], edits: list[tuple[str, str]], as_op: str
) -> None:
    """Whatever read_line takes, the strict reader, the schema and the reading of
    harness/checks/replies.py take, as the same record: it is only ever a shortcut."""
    op, body = reply
    op = as_op or op
    text = _line_of(body)
    for old, new in edits:
        text = text.replace(old, new, 1)
    read = read_line(op, text)
    if read is not None:
        assert read == (9, _strictly(op, text)), text


def test_a_key_sent_twice_is_never_read_in_one_pass() -> None:
    """Not even where the colons of the line written again could make up for it: a colon
    spelled as an escape, or a key the shape does not require left out."""
    op, body = next(r for r in REPLIES if r[0] == "result")
    seat = body["seats"][0]
    text = _line_of(body)
    twice = text.replace('"seat":1,', '"seat":1,"seat":1,', 1)
    assert read_line(op, text) is not None and read_line(op, twice) is None
    assert read_line(op, twice.replace('"round":"', '"round":"\\u003a', 1)) is None
    bare = copy.deepcopy(body)
    for key in ("hole", "hand"):
        del bare["seats"][0][key]
    del bare["seats"][0]["wagers"]["aa_bonus"]
    assert read_line(op, _line_of(bare)) is not None  # what it may leave out, left out
    text = _line_of(bare).replace(f'"seat":{seat["seat"]},', f'"seat":{seat["seat"]},' * 2, 1)
    assert read_line(op, text) is None


def test_no_field_of_a_shape_has_a_default_but_unset() -> None:
    """read_line's count of colons needs a body written again with exactly the keys sent:
    a field absent stays absent (UNSET), never written with a default."""
    shapes = [s for s in vars(shapes_module).values() if isinstance(s, type)]
    shapes = [s for s in shapes if issubclass(s, msgspec.Struct) and s.__name__.endswith("Shape")]
    assert len(shapes) >= 7
    for shape in shapes:
        for field in msgspec.structs.fields(shape):
            assert field.default in (msgspec.NODEFAULT, msgspec.UNSET), (shape, field.name)
            assert field.default_factory is msgspec.NODEFAULT, (shape, field.name)


@pytest.mark.parametrize(
    ("op", "text"),
    [
        ("act", '{"id":9,"ok":{"x":1e99999999999999999999999}}'),
        ("act", '{"id":9,"ok":{"x":' + "[" * 990 + "]" * 990 + "}}"),
        ("act", '{"id":9,"ok":{"x":1}}'),
        ("result", "HOLE"),
    ],
)
def test_what_only_the_strict_reader_can_judge_is_left_to_it(op: str, text: str) -> None:
    """A number no Decimal holds, nesting deeper than the strict reader reads, any body
    of an act but the empty one: read_line declines, and the strict path says."""
    if text == "HOLE":
        body = copy.deepcopy(next(b for o, b in REPLIES if o == "result"))
        body["seats"][0]["hole"] = [[]] * 3
        text = _line_of(body)
    assert read_line(op, text) is None
