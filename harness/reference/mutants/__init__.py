"""Deliberately broken variants of the reference game, one rule fault each.

The harness must prove its power: each mutant has to certify FAIL with the clause
it breaks named (tests/test_mutants.py), while the reference passes. A mutant that
survives means a missing vector or check. Run one by hand with

    chcert certify --adapter "subprocess:python -m harness.reference --mutant NAME"

One module per family of fault (`Family`: settlement, pay tables, AA Bonus, information
hiding, refusals, deck, history, evaluation, recovery). Each mutant is registered where
its class is defined, with the `mutant` decorator of registry.py: its name, the profile
it is certified under, the clause that must fail, its family and its tiers, in
`REGISTRY`. Every class is importable from this package by its class name, as a
python: adapter names it (`python:harness.reference.mutants:FlushPaysEvenMoney`).
"""

from __future__ import annotations

from harness.reference.engine import ReferenceGame

# The families register their mutants as they are imported, in the registry above.
from harness.reference.mutants import (  # noqa: F401
    aabonus,
    deck,
    evaluation,
    hiding,
    history,
    paytables,
    recovery,
    refusals,
    settlement,
)
from harness.reference.mutants.registry import REGISTRY, Family, Mutant, mutant

# Every mutant's class by its `--mutant` name.
MUTANTS: dict[str, type[ReferenceGame]] = {name: m.cls for name, m in REGISTRY.items()}

# Mutants that differ from the reference only across a restart of a game with a store.
RECOVERY_MUTANTS = frozenset(name for name, m in REGISTRY.items() if m.recovery)

_CLASSES = {m.cls.__name__: m.cls for m in REGISTRY.values()}


def __getattr__(name: str) -> type[ReferenceGame]:
    """A mutant's class by its class name, as a python: adapter imports it."""
    try:
        return _CLASSES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted({*globals(), *_CLASSES})


__all__ = ["MUTANTS", "RECOVERY_MUTANTS", "REGISTRY", "Family", "Mutant", "mutant"]
