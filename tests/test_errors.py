"""Whose fault it is, by type (harness/errors.py): every exception chcert defines derives
from exactly one of the three roots the verdict rules read."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import harness
from harness.checks.registry import NotTested
from harness.errors import ChcertError, GameFault, HarnessFault, UserError

ROOTS = (GameFault, HarnessFault, UserError)
# Not an error: an item the game rightly cannot be asked (a capability it does not
# declare, a sample of 0), which the run records as not tested.
SIGNALS = (NotTested,)


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(harness.__path__, "harness."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == info.name:
                found.append(value)
    return found


def test_every_exception_has_one_root() -> None:
    classes = _exception_classes()
    assert len(classes) > 15
    for cls in classes:
        if cls in (ChcertError, *ROOTS, *SIGNALS):
            continue
        roots = [root for root in ROOTS if issubclass(cls, root)]
        assert len(roots) == 1, f"{cls.__module__}.{cls.__qualname__} derives from {roots}"


def test_the_roots_are_apart() -> None:
    for a in ROOTS:
        for b in ROOTS:
            assert a is b or not issubclass(a, b)
