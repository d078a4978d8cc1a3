"""The register of mutants: each one is entered where its class is defined.

Everything known of a mutant (the profile it is certified under, the clause that must
fail, its family, the tier that certifies it, whether the differential must kill it)
is written once, on its class, with the `mutant` decorator; the command line
(`--mutant`), the tests and the benchmarks read it from `REGISTRY`.

This module imports no family module (they import it): importing one family alone
cannot loop back through the package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from harness.reference.engine import ReferenceGame

Game = TypeVar("Game", bound=type[ReferenceGame])


class Family(Enum):
    """What a mutant breaks; the value is the module of harness/reference/mutants/ that
    holds the family."""

    SETTLEMENT = "settlement"  # qualification, comparison, ante and call settlement
    PAY_TABLES = "paytables"  # the ante pay table
    AA_BONUS = "aabonus"  # the AA Bonus side bet
    HIDING = "hiding"  # cards shown before the decisions
    REFUSALS = "refusals"  # bad requests accepted
    DECK = "deck"  # the shuffle and the deal
    HISTORY = "history"  # recall of past rounds
    EVALUATION = "evaluation"  # hand evaluators as real poker code got them wrong
    RECOVERY = "recovery"  # interrupted rounds, across a restart of a game with a store


@dataclass(frozen=True)
class Mutant:
    """One deliberately broken game and what certifying it must show.

    Certified under `profile`, the game must FAIL on exactly `clause` and the clauses
    `also` names (tests/test_mutants.py): the rules its fault breaks, as the decision
    table of docs/differential.md attributes them, no more. `fast`: certified in the
    fast tier too (one of each family but evaluation and recovery), not in the slow
    tier only. `differential`: a fault
    found in real poker code, rare on random deals (benchmarks/mutant_rates.py measures
    how rare), whose kill by the differential check alone is proven; its clause is the
    one the decision table of docs/differential.md attributes it to: a wrong best five
    whose hand names stay right shows only as hands compared wrongly (s000-r8), and an
    AA Bonus row not paid as a hand judged not to win (s000-sidebet).
    """

    name: str
    cls: type[ReferenceGame]
    profile: str
    clause: str
    family: Family
    fast: bool = False
    differential: bool = False
    also: tuple[str, ...] = ()
    differential_also: tuple[str, ...] = ()

    @property
    def fails(self) -> frozenset[str]:
        """Exactly the clauses a certification of the mutant fails."""
        return frozenset({self.clause, *self.also})

    @property
    def fails_by_differential(self) -> frozenset[str]:
        """Exactly the clauses the differential alone fails (its seed 1, default budget):
        an evaluation fault shows on more hands there than the vectors hold."""
        return self.fails | set(self.differential_also)

    @property
    def recovery(self) -> bool:
        """Differs from the reference only across a restart of a game with a store (--db),
        which a python: game has not: tests/test_recovery_checks.py certifies it."""
        return self.family is Family.RECOVERY


REGISTRY: dict[str, Mutant] = {}


def mutant(
    name: str,
    *,
    profile: str,
    clause: str,
    family: Family,
    fast: bool = False,
    differential: bool = False,
    also: tuple[str, ...] = (),
    differential_also: tuple[str, ...] = (),
) -> Callable[[Game], Game]:
    """Enter the decorated class in REGISTRY as `name` (the `--mutant` name).

    Names and class names are unique: a python: adapter names the class
    (`python:harness.reference.mutants:FlushPaysEvenMoney`), the command line the name.
    """

    def register(cls: Game) -> Game:
        taken = {m.cls.__name__ for m in REGISTRY.values()}
        if name in REGISTRY or cls.__name__ in taken:
            raise ValueError(f"mutant {name!r} ({cls.__name__}) is registered twice")
        REGISTRY[name] = Mutant(
            name, cls, profile, clause, family, fast, differential, also, differential_also
        )
        return cls

    return register
