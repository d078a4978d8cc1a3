"""The registry: what a check is given, how it reports, and how it is looked up and run.

A check is a function of a `Context`, registered under the name the clause
catalogs use (`checks: [declared-ante-table]`). It raises CheckFailure (the game
broke the clause) or NotTested (it cannot run here, and what would let it), or
returns an `Outcome` (harness/results/model.py): evidence, findings attributed to clauses, a
part that could not run, its share of a results section.

This module knows nothing of the checks themselves; the concern modules of the
package register into `REGISTRY` when `harness.checks` is imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from harness.adapters import Adapter
from harness.defaults import DEFAULT_DECKS, DEFAULT_DIFFERENTIAL, DEFAULT_RTP_ROUNDS
from harness.differential.attribution import refused, slug
from harness.errors import GameFault, ProtocolViolation, Violation
from harness.protocol.declaration import Declaration
from harness.results.model import Finding, FoundBy, Model, Outcome, Share, Shares, Untested
from harness.rules.profiles import Profile
from harness.rules.table import Table


@dataclass
class Context:
    """What a check needs: the adapter, what the game declared in hello, the profile."""

    adapter: Adapter
    declared: Declaration
    profile: Profile
    seed: int
    rng_decks: int = DEFAULT_DECKS
    rtp_rounds: int = DEFAULT_RTP_ROUNDS
    differential: int = DEFAULT_DIFFERENTIAL  # seat-hands of the differential, all shards
    shard: tuple[int, int] = (0, 1)  # (index, count) of the item's share of a sharded check
    clause: str = ""  # the clause whose item runs the check
    fault_owners: dict[str, str] = field(default_factory=dict)  # fault kind -> clause
    judges: tuple[str, ...] = ()  # kinds of other clauses the item's clause judges too
    # One game server several workers play at once (an http:// game with -n or --tx): its
    # history interleaves their rounds, so what it recalls is not this worker's alone.
    shared: bool = False

    @property
    def capabilities(self) -> frozenset[str]:
        return self.declared.capabilities

    @property
    def table(self) -> Table | None:
        """The table the game declares (limits, house rules; harness/rules/table.py), None when
        its hello declares no valid ante limits."""
        return self.declared.table

    @property
    def seats(self) -> int:
        return self.declared.seats


class CheckFailure(GameFault):
    """The implementation broke the clause: what was expected, what came back.

    A failure found in a randomized round carries `repro`, the round as a stacked
    settlement vector (without its clause, which the controller adds) that replays it.
    `violation` is set when the game broke protocol v1 rather than a rule of the game.
    `findings`: what the same item showed of other clauses' rules (docs/differential.md,
    decision table), failures of those clauses whatever becomes of this one. `refused`:
    the failure is a legal request the game refused (`refused_elsewhere`). `cause`: the
    fault's kind and detail where the check knows them (the decision table's).
    """

    def __init__(
        self,
        message: str,
        *,
        expected: Any = None,
        actual: Any = None,
        evidence: dict[str, Any] | None = None,
        repro: dict[str, Any] | None = None,
        violation: Violation | None = None,
        share: Share | None = None,
        findings: list[Finding] | None = None,
        refused: tuple[str, str, str] | None = None,
        cause: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        # (kind, detail) of the fault (harness/results/model.py Fault): the decision table's, else
        # the item's own kind, or the protocol violation's (`violation`).
        self.cause = cause
        self.findings = findings or []
        self.refused = refused  # (op, code, message) of a legal request the game refused
        self.violation = violation
        self.share = share  # the item's part of its check's results section, as Outcome's
        self.message = message
        self.expected = expected
        self.actual = actual
        self.evidence = evidence or {}
        self.repro = repro


class NotTested(Exception):
    """The check cannot run against this implementation; `needs` says what would let it
    (a capability to declare, a setting), for the report's list of gaps."""

    def __init__(self, reason: str, *, needs: str = "") -> None:
        super().__init__(reason)
        self.needs = needs


@dataclass(frozen=True)
class Check:
    """A registered check: its catalog name, its function, the capabilities it needs."""

    name: str
    func: CheckFunc
    requires: frozenset[str] = field(default_factory=frozenset)
    shards: int = 1  # items the check is split into (`name-1` ...), each a share of the work
    section: str = ""  # the results section its items' shares make (`Registry.section`)
    found_by: FoundBy = FoundBy.CHECK  # the source its faults name (harness/results/model.py Fault)
    # A legal request refused is another clause's finding (refused_elsewhere), except in
    # a check for which a refusal is the very fault it looks for (a game restarted).
    forwards_refusals: bool = True

    def targets(self) -> list[tuple[str, tuple[int, int]]]:
        """The item targets of the check, with the (index, count) of each one's share."""
        if self.shards == 1:
            return [(self.name, (0, 1))]
        return [(f"{self.name}-{k + 1}", (k, self.shards)) for k in range(self.shards)]


# A section whose items never ran (harness/results/model.py Shares) says so in these words.
NOT_RUN = "did not run: the game was unreachable, or no clause names it, or a selection"

CheckFunc = Callable[[Context], Outcome | None]  # None: passed, nothing to add
# A results section made from its items' shares (harness/results/model.py Shares).
Merge = Callable[[Shares], Model]


class Registry:
    """Checks by name. `checks` is the name -> Check mapping, in registration order;
    `merges`, each results section's merge, by the section's name."""

    def __init__(self) -> None:
        self.checks: dict[str, Check] = {}
        self.merges: dict[str, Merge] = {}

    def section(self, name: str) -> Callable[[Merge], Merge]:
        """Register the merge that makes results section `name` from the shares of the
        items of the checks (or the corpus) naming it: registered beside the check, so a
        new field of a section touches its check's module and the model only."""

        def register(merge: Merge) -> Merge:
            if name in self.merges:
                raise ValueError(f"section {name!r} has two merges")
            self.merges[name] = merge
            return merge

        return register

    def register(
        self,
        name: str,
        *,
        requires: set[str] | None = None,
        shards: int = 1,
        section: str = "",
        forwards_refusals: bool = True,
        found_by: FoundBy = FoundBy.CHECK,
    ) -> Callable[[CheckFunc], CheckFunc]:
        """Register a check under a unique name; clause catalogs refer to it by that name.

        A check raises CheckFailure or NotTested, or returns an Outcome. A check with
        `shards` > 1 runs as that many items, each given its share in `Context.shard`;
        one with a `section` makes that section of results.json from its items' shares.
        """

        def register(func: CheckFunc) -> CheckFunc:
            if name in self.checks:
                raise ValueError(f"check {name!r} is registered twice")
            self.checks[name] = Check(
                name, func, frozenset(requires or ()), shards, section, found_by, forwards_refusals
            )
            return func

        return register

    def __contains__(self, name: object) -> bool:
        return name in self.checks

    def __getitem__(self, name: str) -> Check:
        return self.checks[name]

    def target(self, target: str) -> tuple[Check, tuple[int, int]]:
        """The check and share an item target names (`differential-2`, `stacked-deal`)."""
        for entry in self.checks.values():
            for name, shard in entry.targets():
                if name == target:
                    return entry, shard
        raise KeyError(target)

    def run(self, name: str, ctx: Context) -> Outcome:
        """Run a registered check; NotTested when the implementation lacks a capability."""
        entry = self.checks[name]
        missing = sorted(entry.requires - ctx.capabilities)
        if missing:
            raise NotTested(
                f"implementation lacks capability {', '.join(missing)}",
                needs=f"capability {', '.join(missing)}",
            )
        with game_faults_fail():
            try:
                return entry.func(ctx) or Outcome()
            except CheckFailure as exc:
                elsewhere = None
                if entry.forwards_refusals:
                    elsewhere = refused_elsewhere(ctx, name, exc)
                if elsewhere is None:
                    raise
                return elsewhere


REGISTRY = Registry()
CHECKS: dict[str, Check] = REGISTRY.checks
MERGES: dict[str, Merge] = REGISTRY.merges
check = REGISTRY.register
section = REGISTRY.section


def run_check(name: str, ctx: Context) -> Outcome:
    """Run a registered check; NotTested when the implementation lacks a capability."""
    return REGISTRY.run(name, ctx)


def refused_elsewhere(ctx: Context, source: str, exc: CheckFailure) -> Outcome | None:
    """A legal round or decision the game refused while an item played it breaks the
    clause the decision table gives refusals (docs/differential.md, row 0), not the
    item's: there it is a finding, and the item could not judge its own clause (not
    tested). None when the refusal is the item's own clause's, or no refusal."""
    if exc.refused is None:
        return None
    d = refused(1, *exc.refused)
    clause = ctx.fault_owners.get(d.kind, ctx.clause)
    if clause == ctx.clause:
        return None
    finding = Finding(
        clause=clause,
        item=f"{clause}/{source}:{slug(d.kind, d.detail)}",
        kind=d.kind,
        detail=d.detail,
        message=f"{d.kind} ({d.detail}): {exc.message}",
        expected=exc.expected,
        actual=exc.actual,
        evidence=exc.evidence,
    )
    why = f"the game refused a legal request before {source} could judge: {exc.message}"
    return Outcome(findings=[finding], untested=Untested(reason=why, needs=f"{clause} kept"))


@contextmanager
def game_faults_fail() -> Iterator[None]:
    """Turn a hang, crash or garbage reply into a failure of the clause being checked."""
    try:
        yield
    except ProtocolViolation as exc:
        raise CheckFailure(
            f"protocol violation: {exc}", evidence=exc.evidence, violation=exc.kind
        ) from exc
