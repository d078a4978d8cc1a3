"""A game the harness has never seen, certified the way a laboratory would.

tests/fixtures/sloppy_game.js is Casino Hold'em written independently in JavaScript
(Node, standard library only), over `subprocess:`. Its hand evaluation and settlement are
right; it has three realistic JavaScript faults, listed at the top of the file: wagers
coerced with Number() (an ante of "100" or 100.5 is taken), a seat number never checked
against the table (seat 4 at a table of seats:3), and a second decision for one seat
taken (the last one counts). The mutants of tests/test_mutants.py all share the
reference's code; this game shares nothing with the harness, so it shows that the
harness names the faults of foreign code, and only those.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.runs import certify
from tests.tools import need

GAME = Path(__file__).parent / "fixtures" / "sloppy_game.js"

# The RNG battery and the RTP simulation are statistical and slow, the differential and
# the corpus slower still; none of them can see a refused request.
SELECTION = "not rng-battery and not rtp-simulation and not differential and not corpus"

# Refusal vectors the game accepts, one or more per fault. The fractional and string
# wagers are fault a, seat-beyond-the-table fault b, act-twice fault c.
ACCEPTED_BY_FAULT = {
    "s000-r2/bet-fractional-ante",
    "s000-r2/bet-ante-as-string",
    "s000-r2/bet-fractional-aa-bonus",
    "s000-r2/bet-aa-bonus-as-string",
    "s000-r2/seat-beyond-the-table",
    "s000-r5/act-twice",
}


def _items(results: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for clause in results["clauses"] for item in clause["items"]]


def test_a_sloppy_javascript_game_fails_on_its_faults_only(tmp_path: Path) -> None:
    """FAIL on the wager and decision clauses; settlement passes, nothing is a harness error.

    The game's round with an ante of 100.5 stays in its history, which is then no longer
    protocol v1 (an amount that is not an integer). A refusal item reads only the last
    round of the history, and one that found a request taken plays a valid round after
    it, so that round spoils few items; any it does spoil says so with the 100.5 in its
    message, after judging its own refusal (docs/refusals.md).
    """
    need("node", "Node.js")
    args = ["--adapter", f"subprocess:node {GAME}", "--profile", "standard"]
    code, results = certify(tmp_path, *args, "-k", SELECTION)
    status = {c["id"]: c["status"] for c in results["clauses"]}
    failed = {clause for clause, s in status.items() if s == "fail"}
    items = _items(results)
    by_name = {item["name"]: item for item in items}

    assert code == 1 and results["verdict"] == "FAIL"
    assert {"s000-r2", "s000-r5"} <= failed
    assert [i["name"] for i in items if i["status"] == "error"] == []
    # The first wager the game took is refused as such, before its history says more.
    fractional = by_name["s000-r2/bet-fractional-ante"]
    assert fractional["status"] == "fail" and "the game accepted" in fractional["message"]
    for name in ("s000-r2/seat-beyond-the-table", "s000-r5/act-twice"):
        assert by_name[name]["status"] == "fail", name
        assert "the game accepted" in by_name[name]["message"], by_name[name]
    # Every failure is one of the three faults: a request taken, or the history holding
    # the fractional ante's round.
    strays = [
        (i["name"], i["message"])
        for i in items
        if i["status"] == "fail"
        and i["name"] not in ACCEPTED_BY_FAULT
        and "100.5" not in i["message"]
    ]
    assert strays == []
    # Settlement is right: the dealer's qualifier, hand ranking and pay tables pass.
    assert status["s000-r7"] == status["s000-r9"] == "pass"
    assert status["s000-sidebet"] == status["s000-sidebet-table"] == "pass"
    # s000-r12 (ties) is not tested as a clause only because the selection leaves out its
    # corpus item; every item of it that ran passed.
    r12 = next(c for c in results["clauses"] if c["id"] == "s000-r12")
    left_out = [i for i in r12["items"] if i["status"] == "not_tested"]
    ran = [i for i in r12["items"] if i["status"] != "not_tested"]
    assert all(i["message"] == "left out by the selection" for i in left_out)
    assert ran and all(i["status"] == "pass" for i in ran)
