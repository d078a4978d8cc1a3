"""The reference game: a real game engine speaking protocol v1 in full."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from typing import Any

import pytest

from harness.errors import ErrorReply
from harness.protocol import serve_request
from harness.reference import ReferenceGame, production_shuffle

STACK = {
    "seats": {"1": ["As", "Ad"], "2": ["7c", "2d"]},
    "dealer": ["5c", "5d"],
    "flop": ["Kh", "7d", "2c"],
    "turn": "9s",
    "river": "4h",
}


@pytest.fixture
def game() -> ReferenceGame:
    return ReferenceGame("standard")


def play(game: ReferenceGame, actions: dict[int, str], **bets: Any) -> dict[str, Any]:
    seats = [{"seat": n, "ante": 100, "aa_bonus": bets.get(f"aa{n}", 0)} for n in sorted(actions)]
    reply = game.round(seats=seats, cards=bets.get("cards"))
    for n, action in actions.items():
        game.act(round=reply["round"], seat=n, action=action)
    return game.result(round=reply["round"])


def test_hello_declares_protocol_capabilities_and_config(game: ReferenceGame) -> None:
    hello = game.hello()
    assert hello["protocol"] == 1
    assert set(hello["capabilities"]) == {
        "pipeline",
        "inject",
        "events",
        "shuffle",
        "rng",
        "history",
        "seats:7",
    }
    assert hello["config"]["dealer_qualifier"] == "pair_of_fours"
    assert hello["config"]["ante_pay_table"]["royal_flush"] == 100


def test_round_reply_shows_only_hole_cards_and_flop(game: ReferenceGame) -> None:
    reply = game.round(seats=[{"seat": 3, "ante": 100}, {"seat": 6, "ante": 100}])
    assert set(reply) == {"round", "seats", "flop"}
    assert [s["seat"] for s in reply["seats"]] == [3, 6]
    assert len(reply["flop"]) == 3


def test_stacked_round_settles_per_the_rules(game: ReferenceGame) -> None:
    result = play(game, {1: "call", 2: "fold"}, aa1=100, cards=STACK)
    assert result["board"] == ["Kh", "7d", "2c", "9s", "4h"]
    assert result["dealer"] == {"hole": ["5c", "5d"], "hand": "pair", "qualifies": True}
    one, two = result["seats"]
    assert one["wagers"] == {
        "ante": {"stake": 100, "returned": 200},
        "call": {"stake": 200, "returned": 400},
        "aa_bonus": {"stake": 100, "returned": 800},
    }
    assert two["hand"] is None and two["wagers"]["ante"] == {"stake": 100, "returned": 0}


def test_aa_bonus_is_settled_before_the_turn_is_dealt(game: ReferenceGame) -> None:
    events = [e["type"] for e in play(game, {1: "call", 2: "call"}, aa1=100, cards=STACK)["events"]]
    assert (
        events.index("aa_bonus_settled") < events.index("turn_dealt") < events.index("river_dealt")
    )
    assert events.index("dealer_revealed") < events.index("settled")
    assert events[:3] == ["hole_dealt", "hole_dealt", "flop_dealt"]


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ([{"seat": 1, "ante": 0, "aa_bonus": 100}], "without an ante"),
        ([{"seat": 1, "ante": 99}], "outside"),
        ([{"seat": 1, "ante": 50_001}], "outside"),
        ([{"seat": 1, "ante": 100.5}], "integers"),
        ([{"seat": 8, "ante": 100}], "seat number"),
        ([{"seat": 1, "ante": 100}, {"seat": 1, "ante": 100}], "repeated"),
        ([], "list of 1..7"),
    ],
)
def test_bad_wagers_are_refused_with_invalid_bet(
    game: ReferenceGame, seats: Any, message: str
) -> None:
    with pytest.raises(ErrorReply, match=message) as err:
        game.round(seats=seats)
    assert err.value.code == "invalid_bet"


def test_invalid_actions(game: ReferenceGame) -> None:
    r = game.round(seats=[{"seat": 1, "ante": 100}, {"seat": 2, "ante": 100}])["round"]
    with pytest.raises(ErrorReply) as err:
        game.act(round=r, seat=1, action="raise")
    assert err.value.code == "invalid_action"
    with pytest.raises(ErrorReply) as err:
        game.result(round=r)
    assert err.value.code == "round_in_progress"
    other = game.round(seats=[{"seat": 1, "ante": 100}])["round"]  # capability pipeline
    assert other != r
    game.act(round=r, seat=1, action="call")
    with pytest.raises(ErrorReply, match="already acted") as err:
        game.act(round=r, seat=1, action="fold")
    assert err.value.code == "invalid_action"
    with pytest.raises(ErrorReply) as err:
        game.act(round=r, seat=5, action="fold")
    assert err.value.code == "invalid_action"
    game.act(round=r, seat=2, action="fold")
    with pytest.raises(ErrorReply, match="finished") as err:
        game.act(round=r, seat=2, action="call")
    assert err.value.code == "invalid_action"
    with pytest.raises(ErrorReply) as err:
        game.result(round="nope")
    assert err.value.code == "unknown_round"


def test_stacked_cards_are_verified(game: ReferenceGame) -> None:
    bad = json.loads(json.dumps(STACK))
    bad["river"] = "As"
    with pytest.raises(ErrorReply, match="twice") as err:
        game.round(seats=[{"seat": 1, "ante": 100}, {"seat": 2, "ante": 100}], cards=bad)
    assert err.value.code == "invalid_cards"
    with pytest.raises(ErrorReply) as err:
        game.round(seats=[{"seat": 1, "ante": 100}], cards=STACK)
    assert err.value.code == "invalid_cards"


def test_seven_seats_play_one_round(game: ReferenceGame) -> None:
    result = play(game, {n: "call" for n in range(1, 8)})
    cards = (
        result["board"] + result["dealer"]["hole"] + [c for s in result["seats"] for c in s["hole"]]
    )
    assert len(cards) == len(set(cards)) == 5 + 2 + 14


def test_production_shuffle_is_a_permutation() -> None:
    for _ in range(200):
        assert sorted(production_shuffle()) == list(range(52))


def test_shuffle_rng_and_history_ops(game: ReferenceGame) -> None:
    decks = base64.b64decode(game.shuffle(count=10)["decks"])
    assert len(decks) == 520 and all(
        sorted(decks[i : i + 52]) == list(range(52)) for i in range(0, 520, 52)
    )
    assert len(base64.b64decode(game.rng(bytes=4096)["data"])) == 4096
    for _ in range(3):
        play(game, {1: "call"})
    rounds = game.history(last=2)["rounds"]
    assert [r["round"] for r in rounds] == ["r2", "r3"]
    with pytest.raises(ErrorReply):
        game.shuffle(count=0)


def test_dispatcher_maps_errors_and_unknown_ops(game: ReferenceGame) -> None:
    assert serve_request(game, {"id": 1, "op": "dance"})["error"]["code"] == "unsupported"
    assert serve_request(game, {"id": 2, "op": "act"})["error"]["code"] == "invalid_request"
    assert serve_request(game, "junk")["error"]["code"] == "invalid_request"
    assert serve_request(game, {"id": 3, "op": "hello"})["ok"]["protocol"] == 1


def test_json_lines_server_speaks_the_protocol() -> None:
    requests = [
        {"id": 1, "op": "hello"},
        {
            "id": 2,
            "op": "round",
            "seats": [{"seat": 1, "ante": 100}],
            "cards": {
                "seats": {"1": ["As", "Ad"]},
                "dealer": ["5c", "5d"],
                "flop": ["Kh", "7d", "2c"],
                "turn": "9s",
                "river": "4h",
            },
        },
        {"id": 3, "op": "act", "round": "r1", "seat": 1, "action": "call"},
        {"id": 4, "op": "result", "round": "r1"},
        {"id": 5, "op": "bye"},
    ]
    stdin = "".join(json.dumps(r) + "\n" for r in requests) + "not json\n"
    proc = subprocess.run(
        [sys.executable, "-m", "harness.reference"],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2, 3, 4, 5]  # stops after bye
    assert replies[3]["ok"]["seats"][0]["wagers"]["call"] == {"stake": 200, "returned": 400}


@pytest.mark.parametrize(
    ("option", "edge", "beyond", "message"),
    [
        ("--aa-cap", "1000000", "1000001", "1 <= M <= 1,000,000"),
        ("--aa-cap", "1", "0", "1 <= M <= 1,000,000"),
        ("--ante-limits", f"1:{2**53 - 1}", f"1:{2**53}", "MAX <= 9,007,199,254,740,991"),
        ("--aa-limits", f"1:{2**53 - 1}", f"1:{2**53}", "MAX <= 9,007,199,254,740,991"),
    ],
)
def test_options_beyond_what_protocol_v1_declares_are_refused_at_start_up(
    option: str, edge: str, beyond: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table the options set is declared in hello: at the edge, a hello that conforms
    to specs/schemas/protocol-v1.schema.json; one step beyond, no game at all, but a
    usage error naming the option and its range (a hello that could not conform)."""
    import dataclasses

    from harness._schema import compiled_def
    from harness.reference.__main__ import _cap, _limits, main
    from harness.rules.profiles import load_profile
    from harness.rules.table import REFERENCE_TABLE

    parse = _cap if option == "--aa-cap" else _limits
    field = {"--aa-cap": "aa_bonus_max_ante_multiple", "--ante-limits": "ante"}.get(
        option, "aa_bonus"
    )
    conforms = compiled_def("protocol-v1.schema.json", "hello")
    for value, ok in ((edge, True), (beyond, False)):
        amount = int(value) if option == "--aa-cap" else tuple(map(int, value.split(":")))
        table = dataclasses.replace(REFERENCE_TABLE, **{field: amount})
        hello = ReferenceGame(load_profile("standard"), table=table).hello()
        assert (conforms(hello) is None) is ok, (value, conforms(hello))
        if ok:
            assert parse(value) == amount
    with pytest.raises(SystemExit) as ended:
        main([option, beyond])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"python -m harness.reference: error: argument {option}: ")
    assert message in err
