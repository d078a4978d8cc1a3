"""The recovery checks in a certification: the reference keeping its rounds in a
database passes 002's unfinished-rounds and malfunction clauses, and each recovery
mutant fails the malfunction clause (harness/checks/recovery.py,
docs/adapter-protocol.md "Interrupted rounds")."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.checks import Context, run_check
from harness.errors import ErrorReply
from harness.protocol import serve_request
from harness.protocol.declaration import Declaration
from harness.reference.engine import ReferenceGame
from harness.reference.mutants import RECOVERY_MUTANTS
from harness.reference.store import RoundStore
from harness.rules.profiles import load_profile
from tests.runs import certify

ITEMS = ["--item", "s002-unfinished/recovery-declared", "--item", "s002-malfunction/recovery-kills"]


def _game(db: Path, *extra: str) -> str:
    argv = [sys.executable, "-m", "harness.reference", "--profile", "source-002"]
    return "subprocess:" + shlex.join([*argv, "--db", str(db), *extra])


def _clauses(tmp_path: Path, adapter: str) -> dict[str, dict[str, str]]:
    """Each recovery clause's status and its item's message (the run FAILs anyway on
    002's refuted RTP claim, a publication finding)."""
    _, results = certify(tmp_path / "out", "--adapter", adapter, "--profile", "source-002", *ITEMS)
    rows = {c["id"]: c for c in results["clauses"]}
    return {
        clause: {"status": rows[clause]["status"], "message": rows[clause]["items"][0]["message"]}
        for clause in ("s002-unfinished", "s002-malfunction")
    }


def test_the_reference_with_a_database_survives_every_kill(tmp_path: Path) -> None:
    rows = _clauses(tmp_path, _game(tmp_path / "rounds.db"))
    assert {r["status"] for r in rows.values()} == {"pass"}, rows


def test_a_game_that_resumes_where_002_voids_fails_both_clauses(tmp_path: Path) -> None:
    rows = _clauses(tmp_path, _game(tmp_path / "rounds.db", "--recovery", "resume"))
    assert rows["s002-unfinished"]["status"] == "fail"
    assert "config.recovery is 'resume'" in rows["s002-unfinished"]["message"]
    assert rows["s002-malfunction"]["status"] == "fail"
    assert "resumes a round a failure interrupts" in rows["s002-malfunction"]["message"]


def test_without_a_database_nothing_is_certified_of_a_crash(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "harness.reference", "--profile", "source-002"]
    rows = _clauses(tmp_path, "subprocess:" + shlex.join(argv))
    assert {r["status"] for r in rows.values()} == {"not_tested"}
    assert all("capability recovery" in r["message"] for r in rows.values())


# One recovery mutant of each mode in the fast tier; the slow tier certifies every one.
@pytest.mark.parametrize(
    "mutant",
    [
        m if m == "redeals-an-interrupted-round" else pytest.param(m, marks=pytest.mark.slow)
        for m in sorted(RECOVERY_MUTANTS)
    ],
)
def test_a_recovery_mutant_fails_the_malfunction_clause(tmp_path: Path, mutant: str) -> None:
    rows = _clauses(tmp_path, _game(tmp_path / "rounds.db", "--mutant", mutant))
    assert rows["s002-malfunction"]["status"] == "fail", rows
    assert rows["s002-unfinished"]["status"] == "pass"  # each declares void, as 002 says


RESUMING = Path(__file__).resolve().parent / "fixtures" / "source-002-resume.yaml"


def _resuming(tmp_path: Path, *extra: str) -> dict[str, dict[str, str]]:
    """The recovery clauses under a variant of 002 whose rules resume interrupted rounds:
    the resume path of the checks (the same cards, the decisions kept, the settlement)."""
    argv = [sys.executable, "-m", "harness.reference", "--profile", str(RESUMING)]
    argv += ["--db", str(tmp_path / "rounds.db"), "--recovery", "resume", *extra]
    args = ["--adapter", "subprocess:" + shlex.join(argv), "--profile", str(RESUMING)]
    _, results = certify(tmp_path / "out", *args, *ITEMS)
    rows = {c["id"]: c for c in results["clauses"]}
    return {
        clause: {"status": rows[clause]["status"], "message": rows[clause]["items"][0]["message"]}
        for clause in ("s002-unfinished", "s002-malfunction")
    }


def test_a_resumed_round_keeps_its_cards_and_settles_by_the_rules(tmp_path: Path) -> None:
    rows = _resuming(tmp_path)
    assert {r["status"] for r in rows.values()} == {"pass"}, rows


@pytest.mark.parametrize(
    ("mutant", "message"),
    [
        ("redeals-an-interrupted-round", "shows other cards than were dealt"),
        pytest.param(
            "loses-a-pending-aa-bonus-on-restart",
            "settled otherwise than the rules",
            marks=pytest.mark.slow,
        ),
        ("settles-an-interrupted-round-twice", "settled otherwise than the rules"),
    ],
)
def test_a_resuming_mutant_fails_the_malfunction_clause(
    tmp_path: Path, mutant: str, message: str
) -> None:
    rows = _resuming(tmp_path, "--mutant", mutant)
    assert rows["s002-malfunction"]["status"] == "fail", rows
    assert message in rows["s002-malfunction"]["message"]


class _NoHistory(ReferenceGame):
    """The reference with a store, declaring no `history`."""

    def hello(self) -> dict[str, Any]:
        reply = super().hello()
        reply["capabilities"] = [c for c in reply["capabilities"] if c != "history"]
        return reply


class _Crashing:
    """An in-process game rebuilt from its store at each crash, as a restart would: a
    request written before the crash takes effect, its reply unread."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self._open()

    def _open(self) -> None:
        self.store = RoundStore(self.db)
        self.game = _NoHistory(load_profile("source-002"), store=self.store)

    def request(self, op: str, **params: Any) -> dict[str, Any]:
        reply = serve_request(self.game, {"id": 1, "op": op, **params})
        if "error" in reply:
            raise ErrorReply(reply["error"]["code"], reply["error"]["message"])
        answer: dict[str, Any] = reply["ok"]
        return answer

    def crash(self, op: str | None = None, after: float = 0.0, **params: Any) -> None:
        if op is not None:
            serve_request(self.game, {"id": 1, "op": op, **params})
        self.store.close()
        self._open()


def test_without_history_the_kills_are_not_a_pass(tmp_path: Path) -> None:
    """Each round once in history cannot be asked of a game without it: the item is not
    tested, never passed, though every kill was survived."""
    adapter = _Crashing(tmp_path / "rounds.db")
    ctx = Context(
        adapter, Declaration(adapter.request("hello")), load_profile("source-002"), seed=3
    )  # type: ignore[arg-type]
    outcome = run_check("recovery-kills", ctx)
    assert outcome.evidence["kills"] == 5
    assert outcome.untested is not None and outcome.untested.needs == "capability history"
    adapter.store.close()
