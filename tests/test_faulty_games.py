"""Three faulty games written from scratch, each certified the way a laboratory would.

Each game is a complete Casino Hold'em table of its own (tests/fixtures/, sharing no code
with harness/), served over `subprocess:` with inject, events, shuffle, history, pipeline
and seven seats, and right in everything but the faults listed at the top of its file.
Certified against the standard profile, each must FAIL, and the clauses that fail must be
EXACTLY those of its faults: a missing clause is a fault the harness did not find, an
extra one a clause it blamed for another's fault (a refusal item failing on a settlement,
a vector failing the clause it cites for money another clause settles, a refused legal
round, an AA Bonus item asked of a game that offers none).

* odd_odds_game.py (Python) declares the standard tables but pays the ante's straight
  flush 30 to 1 (s000-antewin, `ante-odds`) and the AA Bonus's flush 25 to 1
  (s000-sidebet-table, `aa-bonus-odds`).
* no_aa_game.py (Python) offers no AA Bonus (hello's `aa_bonus_pay_table` is null: the
  check declared-aa-table of s000-sidebet-table fails once, with the reason), its dealer
  always qualifies (s000-r9, `dealer-qualification`), and two hands of one category are
  ordered by their cards as dealt, not by significance (s000-r8, `comparison`).
* multiseat_game.js (Node, standard library only) pays a folded seat's AA Bonus
  (s000-r5, `fold-aa-bonus`) and refuses an AA Bonus above the ante, a wager the rules
  and its own declared limits allow (s000-r2, the clause of wagers).
* seven_card_aa_game.py (Python) judges the AA Bonus on the best five of the final seven
  cards, at the standard odds: the clause of what is judged (s000-sidebet: its vectors,
  aa-bonus-locked, `aa-bonus-hand` by the cards judged), never the pay table's, whose
  odds it keeps (s000-sidebet-table passes).
* copy_seat_game.py (Python) reports every seat's wagers as its first seat's: one fault,
  one clause, each hand settled against the dealer on its own (s000-r8, row 6), not the
  pay-table, tie, decision and AA Bonus rows each copied seat's money would fall in.

The decision table of docs/differential.md names each fault kind's clause. The RNG battery
is left out: its statistics are a separate concern (each game's shuffle passes `chcert
rng`), and the games shuffle unseeded.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.runs import QUICK_SAMPLES, certify
from tests.tools import need

FIXTURES = Path(__file__).parent / "fixtures"
SELECTION = "not rng-battery"
QUICK = ("--differential", "10000", "--rtp-rounds", "200", *QUICK_SAMPLES)

GAMES = {
    "odd-odds": (
        [sys.executable, str(FIXTURES / "odd_odds_game.py")],
        {"s000-antewin", "s000-sidebet-table"},
    ),
    "no-aa": (
        [sys.executable, str(FIXTURES / "no_aa_game.py")],
        {"s000-r8", "s000-r9", "s000-sidebet-table"},
    ),
    "multiseat": (
        ["node", str(FIXTURES / "multiseat_game.js")],
        {"s000-r2", "s000-r5"},
    ),
    "seven-card-aa": (
        [sys.executable, str(FIXTURES / "seven_card_aa_game.py")],
        {"s000-sidebet"},
    ),
    "copy-seat": (
        [sys.executable, str(FIXTURES / "copy_seat_game.py")],
        {"s000-r8"},
    ),
}


def _failing(results: dict[str, Any], clauses: set[str]) -> str:
    """The failing items of these clauses with their messages: what a wrong set shows."""
    lines = []
    for clause in results["clauses"]:
        if clause["id"] in clauses:
            lines.append(f"{clause['id']} ({clause['status']}):")
            lines += [
                f"  {item['name']}: {item['message'][:300]}"
                for item in clause["items"]
                if item["status"] in ("fail", "error")
            ]
    return "\n".join(lines)


# The Python game paying two odds of its own runs in the fast tier; the others, 15 to 20 s
# of CPU each, in the slow tier (the seven-card and copied-seat games' fast equivalents
# are the decision table's own tests in tests/test_attribution.py). --rtp-rounds 200 is
# the quick plan's minimum (tests/fixtures/quick-samples.toml).
FAST = {"odd-odds"}


@pytest.mark.parametrize(
    "game", [g if g in FAST else pytest.param(g, marks=pytest.mark.slow) for g in sorted(GAMES)]
)
def test_a_faulty_game_fails_exactly_the_clauses_of_its_faults(tmp_path: Path, game: str) -> None:
    argv, expected = GAMES[game]
    if argv[0] == "node":
        need("node", "nodejs")
    adapter = "subprocess:" + shlex.join(argv)
    args = ["--adapter", adapter, "--profile", "standard", *QUICK, "-k", SELECTION]
    code, results = certify(tmp_path, *args)
    failed = {clause["id"] for clause in results["clauses"] if clause["status"] == "fail"}

    assert code == 1 and results["verdict"] == "FAIL"
    errors = [i["name"] for c in results["clauses"] for i in c["items"] if i["status"] == "error"]
    assert errors == []
    assert failed == expected, (
        f"blamed besides the faults:\n{_failing(results, failed - expected)}\n"
        f"faults not found: {sorted(expected - failed)}"
    )
    section = results["differential"]
    shards = [i for c in results["clauses"] for i in c["items"] if "/differential-" in i["name"]]
    # A refused legal round is a finding and the shards go on: the section and its items
    # agree on status, on the hands compared and on the causes.
    assert len(shards) == 4 and section["shards_run"] == 4
    assert 0 < section["seat_hands"] <= 10_000 and section["detectable_fault_rate"] < 1
    assert section["status"] == ("fail" if section["causes"] else "pass")
    found_by_shards = {
        f["item"]
        for f in results["failures"]
        if f["item_kind"] == "finding" and f["fault"]["found_by"] == "differential"
    }
    assert {c["item"] for c in section["causes"]} == found_by_shards
    if game == "multiseat":  # its refusals of AA stakes above the ante: the clause of wagers
        refused = [c for c in section["causes"] if c["kind"] == "refused"]
        assert refused and all(c["clause"] == "s000-r2" for c in refused)
    if game in ("seven-card-aa", "copy-seat"):  # one fault, one cause wherever it shows
        causes = {
            (f["fault"]["kind"], f["fault"]["detail"])
            for f in results["failures"]
            if f["item_kind"] in ("finding", "vector")
        }
        assert len(causes) == 1, causes
