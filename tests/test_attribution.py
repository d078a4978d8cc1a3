"""One attribution for every settlement comparison (docs/differential.md, decision table).

A game that breaks one rule fails that rule's clause alone, wherever the fault shows:
a hand-worked vector citing another clause passes and hands its round to the clause
broken, as a worked example; pytest's counts are chcert's.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness.differential.attribution import (
    COPIED,
    COPY_CAUSE,
    SEVEN_CARDS,
    disagreements,
    expected_seat,
    resolve_copies,
)
from harness.protocol.messages import Settled
from harness.rules.cards import parse_cards
from harness.rules.catalogs import fault_owners, load_catalogs
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, Settlement, settle
from harness.rules.profiles import load_profile
from harness.rules.table import REFERENCE_TABLE
from tests.runs import certify

# The vectors and the corpus, where the dealer's qualification shows in every kind of hand.
SELECTION = "not rng-battery and not rtp-simulation and not differential"
PYTEST_KINDS = {"vector", "check", "corpus", "differential"}  # items pytest runs or reports


@pytest.fixture(scope="module")
def qualifies_on_threes(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """A game whose dealer qualifies with a pair of threes (s000-r9 alone), certified,
    with what pytest printed."""
    out = tmp_path_factory.mktemp("threes")
    printed = io.StringIO()
    game = "python:harness.reference.mutants:QualifyPairOfThrees"
    with contextlib.redirect_stdout(printed):
        code, results = certify(out, "--adapter", game, "-k", SELECTION)
    assert code == 1
    return results, printed.getvalue()


def _settled(result: dict[str, Any]) -> Settled:
    """A test's result body (dealer's hand, seats) read as the decision table reads one,
    the cards it does not judge filled in."""
    dealer = {"hole": ["2c", "2d"], **result["dealer"]}
    return msgspec.convert({"board": ["3c"] * 5, **result, "dealer": dealer}, Settled)


def _items(results: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(i, clause=c["id"]) for c in results["clauses"] for i in c["items"]]


def test_a_vector_fails_only_the_clause_it_breaks(
    qualifies_on_threes: tuple[dict[str, Any], str],
) -> None:
    results, _ = qualifies_on_threes
    failed = {c["id"] for c in results["clauses"] if c["status"] == "fail"}
    assert failed == {"s000-r9"}
    items = _items(results)
    # The ante pay table's vectors show the fault (a dealer pair of threes beaten, the ante
    # paid where it should be even money) and pass: their clause is kept.
    antewin = [i for i in items if i["clause"] == "s000-antewin" and i["kind"] == "vector"]
    assert antewin and all(i["status"] == "pass" for i in antewin)
    causes = [f for f in results["failures"] if "/vectors:" in f["item"]]
    assert causes and all(f["clause"] == "s000-r9" for f in causes)
    for cause in causes:  # a worked example: the vector, its round, a command replaying it
        assert cause["fault"]["kind"] == "dealer-qualification"
        assert cause["evidence"]["vector"] and cause["evidence"]["cards"]
        assert "--item s000-" in cause["reproduce"]


def test_pytest_counts_what_chcert_counts(qualifies_on_threes: tuple[dict[str, Any], str]) -> None:
    """A passing item is never under pytest's FAILURES; each cause found is an item of its
    own, in pytest's count as in chcert's summary (its `items:` line)."""
    results, printed = qualifies_on_threes
    line = next(x for x in printed.splitlines() if re.search(r"\d+ passed.* in ", x))
    said = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", line)}
    summary = next(x for x in printed.splitlines() if x.startswith("  items: "))
    chcert = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors|not)", summary)}
    assert said.get("passed", 0) == chcert["passed"] > 0
    assert said.get("failed", 0) == chcert["failed"] == len(results["failures"]) > 0
    assert said.get("error", 0) == chcert["errors"]
    assert said.get("skipped", 0) + said.get("deselected", 0) == chcert["not"]
    items = _items(results)
    ran = [i for i in items if i["kind"] in PYTEST_KINDS]
    assert sum(i["status"] == "pass" for i in ran) == chcert["passed"]
    failing = set(re.findall(r"^FAILED \S+::(\S+)", printed, re.M))
    passing = {i["name"] for i in items if i["status"] == "pass"}
    assert failing and not failing & passing


def test_a_check_item_that_found_only_other_clauses_faults_passes(tmp_path: Path) -> None:
    """The corpus item of a clause the game keeps passes; the causes it found fail theirs."""
    game = "python:harness.reference.mutants:QualifyPairOfThrees"
    _, results = certify(tmp_path, "--adapter", game, "-k", "corpus")
    corpus = {i["clause"]: i["status"] for i in _items(results) if i["kind"] == "corpus"}
    assert corpus and {c for c, s in corpus.items() if s == "fail"} <= {"s000-r9"}
    assert corpus["s000-r10"] == "pass"


def test_the_catalogs_name_every_fault_kind_of_the_table() -> None:
    """Every kind the decision table gives is one a catalog can assign to a clause
    (specs/schemas/clauses.schema.json), but `malfunction`, which no clause owns."""
    import json

    from harness._schema import SCHEMA_DIR
    from harness.differential.attribution import KINDS

    schema = json.loads((SCHEMA_DIR / "clauses.schema.json").read_text())
    enums = {
        tuple(v[key]["items"]["enum"])
        for v in _walk(schema)
        if isinstance(v, dict)
        for key in ("differential", "judges")
        if isinstance(v.get(key), dict) and "items" in v[key]
    }
    assert {frozenset(e) for e in enums} == {frozenset(KINDS) - {"malfunction"}}


def _walk(value: Any) -> list[Any]:
    found = [value]
    if isinstance(value, dict):
        found += [x for v in value.values() for x in _walk(v)]
    elif isinstance(value, list):
        found += [x for v in value for x in _walk(v)]
    return found


# ------------------------------------------------------ the cards judged, one fault one finding
#
# The fast equivalents of the two whole certifications of tests/test_faulty_games.py
# (seven-card-aa, copy-seat): the decision table itself, on rounds worked by hand.


def _owners() -> dict[str, str]:

    profile = load_profile("standard")
    return fault_owners(
        [c for cat in load_catalogs(profile.catalogs) for c in cat.for_profile("standard")]
    )


def _round(
    seats: dict[int, tuple[str, int, int, str]], dealer: str, board: str
) -> tuple[Settlement, dict[str, Any]]:
    """The rules' settlement of a stacked round (seat -> hole, ante, AA Bonus, action) and
    a game's `result` that agrees with it, to be spoilt by the test."""

    b = parse_cards(board)
    deal = Deal(
        {n: tuple(parse_cards(h)) for n, (h, *_) in seats.items()},  # type: ignore[misc]
        tuple(parse_cards(dealer)),  # type: ignore[arg-type]
        (b[0], b[1], b[2]),
        b[3],
        b[4],
    )
    plays = {n: SeatPlay(n, ante, aa, Action(act)) for n, (_, ante, aa, act) in seats.items()}
    want = settle(load_profile("standard"), deal, plays, REFERENCE_TABLE)
    result = {
        "dealer": {"hand": want.dealer_hand.wire, "qualifies": want.dealer_qualifies},
        "seats": [
            {
                "seat": s.seat,
                "action": s.action.value,
                "hand": s.hand.wire if s.action.value == "call" else None,
                "wagers": {
                    "ante": {"stake": s.ante.stake, "returned": s.ante.returned},
                    "call": {"stake": s.call.stake, "returned": s.call.returned},
                    "aa_bonus": {"stake": s.aa_bonus.stake, "returned": s.aa_bonus.returned}
                    if s.aa_bonus
                    else None,
                },
            }
            for s in want.seats
        ],
    }
    return want, result


def _paid_aa(result: dict[str, Any], seat: int, returned: int) -> dict[str, Any]:
    entry = next(s for s in result["seats"] if s["seat"] == seat)
    entry["wagers"]["aa_bonus"]["returned"] = returned
    return result


@pytest.mark.parametrize(
    ("hole", "board", "paid", "kind", "seven"),
    [
        # Trips on the flop, quads on the river, paid 40 (the table's quads): seven cards.
        ("7c 7d", "7h 2s 9d Kc 7s", 4100, "aa-bonus-hand", True),
        # A straight on the flop that the turn makes a flush, paid the flush's 20.
        ("5h 6h", "7h 8c 9h 2h Kd", 2100, "aa-bonus-hand", True),
        # Kings on the flop, two pair by the turn, paid 7 where kings lose: seven cards.
        ("Kc Kd", "2h 7s 9d 2c 4s", 800, "aa-bonus-hand", True),
        # A flush on the flop paid 25: the flush row at other odds (the table's clause).
        ("5h 6h", "7h 8h Qh 2c Kd", 2600, "aa-bonus-odds", False),
        # Trips paid 40 where the seven cards are only trips: the trips row's odds.
        ("7c 7d", "7h 2s 9d Kc 4s", 4100, "aa-bonus-odds", False),
        # Kings paid 7 where the seven cards add nothing: what wins is misjudged.
        ("Kc Kd", "2h 7s 9d 3c 4s", 800, "aa-bonus-hand", False),
    ],
)
def test_an_aa_bonus_difference_goes_by_the_cards_that_explain_it(
    hole: str, board: str, paid: int, kind: str, seven: bool
) -> None:
    """docs/differential.md rows 9 to 11: paid the table's own odds for the best five of
    seven is the seven cards judged (the clause of what is judged, s000-sidebet); paid
    other odds for the hole + flop hand's row is the pay table's (s000-sidebet-table)."""

    want, result = _round({1: (hole, 100, 100, "call")}, "2d 3d", board)
    (found,) = disagreements(want, _settled(_paid_aa(result, 1, paid)))
    assert found.kind == kind and (found.detail == SEVEN_CARDS) is seven
    owner = _owners()[found.kind]
    assert owner == ("s000-sidebet" if kind == "aa-bonus-hand" else "s000-sidebet-table")


def test_a_round_settled_as_its_first_seat_is_one_finding_of_independent_settlement() -> None:
    """Row 6: seats 2 to 4 report seat 1's wagers as they are (a fold paid as a call, a
    tie as a win, a flush at a pair's odds, an AA Bonus won): one cause, s000-r8's."""

    seats = {
        1: ("Ac Ad", 100, 100, "call"),  # aces beat the dealer's queens
        2: ("Qc Jd", 200, 0, "call"),  # queens, jack kicker: the dealer's hand, a tie
        3: ("8h 7h", 100, 300, "call"),  # a flush
        4: ("3c 4d", 500, 0, "fold"),
    }
    want, result = _round(seats, "Qh Js", "Qs 2h 5h 9h Kd")
    first = result["seats"][0]["wagers"]
    for entry in result["seats"][1:]:
        entry["wagers"] = json.loads(json.dumps(first))
    found = disagreements(want, _settled(result))
    assert [d.seat for d in found] == [2, 3, 4]
    assert {d.cause for d in found} == {("comparison", COPIED)}
    assert _owners()["comparison"] == "s000-r8"


def test_two_seats_copied_at_their_own_stakes_and_a_tie_beside_a_loss() -> None:
    """The copy seen in two seats at different stakes is row 6; a tie settled as lost
    beside a seat that lost at other stakes stays the tie's fault (its own cards explain
    it, and nothing shows a copy: every lost wager returns 0)."""

    seats = {1: ("Ac Ad", 100, 0, "call"), 2: ("Qc Jd", 300, 0, "call")}
    want, result = _round(seats, "Qh Js", "Qs 2h 5h 9h Kd")
    result["seats"][1]["wagers"] = json.loads(json.dumps(result["seats"][0]["wagers"]))
    assert [d.cause for d in disagreements(want, _settled(result))] == [("comparison", COPIED)]

    seats = {1: ("3c 4d", 100, 0, "call"), 2: ("Qc Jd", 300, 0, "call")}  # 1 loses, 2 ties
    want, result = _round(seats, "Qh Js", "Qs 2h 5h 9h Kd")
    result["seats"][1]["wagers"]["ante"]["returned"] = 0
    result["seats"][1]["wagers"]["call"]["returned"] = 0
    (found,) = disagreements(want, _settled(result))
    assert found.kind == "tie" and found.seat == 2


def test_a_one_row_fault_beside_other_seats_is_not_a_copy() -> None:
    """A flush paid even money in a round of three, the other two seats settled by their
    own cards: the ante's pay table, not row 6."""

    seats = {
        1: ("Ac Ad", 100, 0, "call"),
        2: ("8h 7h", 100, 0, "call"),
        3: ("3c 4d", 100, 0, "call"),
    }
    want, result = _round(seats, "Qh Js", "Qs 2h 5h 9h Kd")
    flush = result["seats"][1]["wagers"]["ante"]
    assert flush["returned"] == 300
    flush["returned"] = 200
    (found,) = disagreements(want, _settled(result))
    assert (found.kind, found.seat) == ("ante-odds", 2)


def test_a_pay_table_fault_beside_a_push_at_twice_the_stake_is_the_seat_s_own() -> None:
    """A flush whose ante is paid at even money, beside a straight paid right at the same
    stake and a tie pushed at twice it: each other seat's money reads as a copy of the
    push (the same returns), yet one seat wrong, owed one rate, is one pay-table row's
    fault as well. The seat keeps its own row, with the copy as its alternative, which
    the item takes only where another round shows a copy beyond doubt."""

    def cards(text: str) -> tuple[Any, ...]:
        return tuple(parse_cards(text.split()))

    deal = Deal(
        {1: cards("Tc 6d"), 2: cards("2c 3h"), 3: cards("As 2s")},
        cards("3c 4d"),
        cards("Ks Kd 9s"),
        cards("8h")[0],
        cards("7s")[0],
    )
    stakes = {1: 10, 2: 20, 3: 10}
    plays = {n: SeatPlay(n, ante, 0, Action.CALL) for n, ante in stakes.items()}
    want = settle(load_profile("standard"), deal, plays)
    seats = []
    for seat in want.seats:
        row = expected_seat(seat)
        wagers = {
            w: {"stake": pair[0], "returned": pair[1]}
            for w, pair in (("ante", row.ante), ("call", row.call))
        }
        seats.append({"seat": seat.seat, "action": "call", "hand": row.hand, "wagers": wagers})
    assert seats[2]["hand"] == "flush" and seats[2]["wagers"]["ante"]["returned"] == 30
    seats[2]["wagers"]["ante"]["returned"] = 20  # paid 1 to 1, as seat 2's push returns
    result = {"dealer": {"hand": want.dealer_hand.wire, "qualifies": True}, "seats": seats}
    (found,) = disagreements(want, _settled(result))
    assert found.cause == ("ante-odds", "ante flush") and found.alternative == COPY_CAUSE
    assert resolve_copies([found]) == [found]  # no round of the item shows a copy
