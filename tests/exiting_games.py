"""Python games that end their own process, for tests/test_pyhost.py: each is certified
with `python:tests.exiting_games:NAME` and must cost chcert neither its exit status nor
its outputs (docs/robustness.md). The games that end it while their module is imported
live in modules of their own (tests/exits_at_import.py, tests/raises_at_import.py), and
one that writes junk to its stdout in tests/noisy_game.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

from harness.reference import ReferenceGame
from tests.games import Seeded

ONCE = "CHCERT_TEST_ONCE"  # a file naming the run: the game's fault strikes while it is absent


def exit_once(status: int) -> None:
    """`os._exit(status)` the first time in a run (the file ONCE names does not exist yet):
    the game started again after the crash behaves."""
    once = Path(os.environ[ONCE])
    if not once.exists():
        once.write_text("exited\n")
        os._exit(status)


class ExitsInHello(ReferenceGame):
    """Ends its process with status 0, the PASS code, instead of greeting."""

    def hello(self) -> NoReturn:
        os._exit(0)


class ExitsOnFirstAct(Seeded):
    """Ends its process with status 3 on the first `act` of the run, then plays correctly."""

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        exit_once(3)
        return super().act(round=round, seat=seat, action=action)


class NamedByItsProcess(ReferenceGame):
    """Names itself by the process it runs in: a python: game's is not the harness's."""

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": f"pid {os.getpid()}"}
