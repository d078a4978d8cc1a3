"""Recovery mutants: interrupted rounds (capability recovery) mishandled.

Faults of a game that keeps its rounds in a store (--db) and voids (as 002 demands,
s002-malfunction) or resumes the rounds a crash interrupts; each shows only across a
restart, so tests/test_recovery_checks.py certifies them, not tests/test_mutants.py.
"""

from __future__ import annotations

from harness.reference.engine import ReferenceGame
from harness.reference.mutants.registry import Family, mutant
from harness.reference.rounds import Phase, Round
from harness.reference.store import RoundStore


@mutant(
    "redeals-an-interrupted-round",
    profile="source-002",
    clause="s002-malfunction",
    family=Family.RECOVERY,
)
class RedealsAnInterruptedRound(ReferenceGame):
    """After a restart, an interrupted round is dealt again and played on, not voided: a
    crash then lets a player (or the house) escape a bad hand."""

    def _recover(self, store: RoundStore) -> None:
        declared, self.recovery = self.recovery, "resume"
        super()._recover(store)  # interrupted rounds kept open...
        self.recovery = declared  # ...while hello still says void
        for ident in self._interrupted:
            rnd = self._rounds[ident]
            order = sorted(rnd.seats)
            holes, rnd.dealer, rnd.flop, rnd.turn, rnd.river = self._dealt(order)
            for n in order:
                rnd.seats[n].hole = holes[n]


@mutant(
    "loses-a-pending-aa-bonus-on-restart",
    profile="source-002",
    clause="s002-malfunction",
    family=Family.RECOVERY,
)
class LosesAPendingAABonusOnRestart(ReferenceGame):
    """The AA Bonus staked in an interrupted round is lost: a voided round returns only
    the ante and call, a resumed one goes on without it."""

    def _void(self, rnd: Round) -> None:
        super()._void(rnd)
        for seat in rnd.seats.values():
            seat.aa_returned = 0

    def _recover(self, store: RoundStore) -> None:
        super()._recover(store)
        for ident in self._interrupted:  # resumed rounds (none when voiding)
            for seat in self._rounds[ident].seats.values():
                seat.aa_bonus = 0


@mutant(
    "settles-an-interrupted-round-twice",
    profile="source-002",
    clause="s002-malfunction",
    family=Family.RECOVERY,
)
class SettlesAnInterruptedRoundTwice(ReferenceGame):
    """An interrupted round is settled twice: every restart voids again the rounds an
    earlier crash voided (each shows in the history once more), and a resumed round is
    paid twice when it ends."""

    def _recover(self, store: RoundStore) -> None:
        super()._recover(store)
        earlier = [i for i in self._history if self._rounds[i].phase is Phase.VOID]
        self._history.extend(earlier)

    def _finish(self, rnd: Round) -> None:
        super()._finish(rnd)
        if rnd.ident in self._interrupted:  # settled again on top of the first settlement
            for seat in rnd.seats.values():
                seat.ante_returned *= 2
                seat.call_returned *= 2
                seat.aa_returned *= 2


@mutant(
    "voids-but-keeps-the-ante",
    profile="source-002",
    clause="s002-malfunction",
    family=Family.RECOVERY,
)
class VoidsButKeepsTheAnte(ReferenceGame):
    """The voided round returns the call and the AA Bonus, but keeps the ante."""

    def _void(self, rnd: Round) -> None:
        super()._void(rnd)
        for seat in rnd.seats.values():
            seat.ante_returned = 0
