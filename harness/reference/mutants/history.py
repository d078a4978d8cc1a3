"""History mutants: past rounds recalled wrongly, or not at all."""

from __future__ import annotations

from typing import Any

from harness.reference.engine import ReferenceGame
from harness.reference.mutants.registry import Family, mutant


@mutant(
    "history-forgets", profile="source-002", clause="s002-history", family=Family.HISTORY, fast=True
)
class HistoryForgets(ReferenceGame):
    """Game history recalls nothing."""

    def history(self, last: Any = 10) -> dict[str, Any]:
        return {"rounds": []}


@mutant("history-keeps-five", profile="source-002", clause="s002-history", family=Family.HISTORY)
class HistoryKeepsFive(ReferenceGame):
    """Game history recalls only the last five rounds, whatever is asked."""

    def history(self, last: Any = 10) -> dict[str, Any]:
        return super().history(last=min(last, 5) if isinstance(last, int) else last)


@mutant(
    "history-shows-losses-as-pushes",
    profile="source-002",
    clause="s002-history",
    family=Family.HISTORY,
)
class HistoryShowsLossesAsPushes(ReferenceGame):
    """Game history rewrites a lost ante as a push when it recalls a round."""

    def history(self, last: Any = 10) -> dict[str, Any]:
        recalled = super().history(last=last)
        for rnd in recalled["rounds"]:
            for seat in rnd["seats"]:
                ante = seat["wagers"]["ante"]
                ante["returned"] = max(ante["returned"], ante["stake"])
        return recalled


@mutant(
    "history-shows-the-oldest-antes-as-lost",
    profile="source-002",
    clause="s002-history",
    family=Family.HISTORY,
)
class HistoryShowsTheOldestAntesAsLost(ReferenceGame):
    """Game history shows the antes of the oldest round it recalls as lost: on the game's
    own cards it shows only when that round's antes happened to return money."""

    def history(self, last: Any = 10) -> dict[str, Any]:
        recalled = super().history(last=last)
        for seat in recalled["rounds"][0]["seats"] if recalled["rounds"] else []:
            seat["wagers"]["ante"]["returned"] = 0
        return recalled
