"""chcert's C extensions, each trusted only while it matches its sources, else numba's twin.

Three pieces of chcert are compiled ahead of time when it is installed (setup.py,
docs/install.md): the census kernel (harness/gamemath/_kernel.c), the hand evaluator's
batch and scalar calls (harness/rules/_evaluator.c) and the differential's biased decks
(harness/differential/_pools.c). Each has a numba twin that runs where no C compiler
was found, or on CHCERT_KERNEL=numba; the two agree to the last bit (tests/test_compiled.py,
tests/test_gamemath.py). A run that never needs the twins never imports numba, which
costs a process most of a second before the first compiled call.

setup.py builds into each extension the sha256 of its sources (SOURCE_SHA256): an
extension built from other sources than the ones beside it (edited since
`pip install -e .`) is not trusted.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from harness.errors import UsageError

CHOICES = ("compiled", "numba")
_PACKAGE = Path(__file__).resolve().parent

# Each extension and its sources, relative to the package: setup.py hashes the same files
# in the same order (its EXTENSIONS).
SOURCES = {
    "harness.gamemath._kernel": ("gamemath/_kernel.c", "rules/_evaluator.h"),
    "harness.rules._evaluator": ("rules/_evaluator.c", "rules/_evaluator.h"),
    "harness.differential._pools": ("differential/_pools.c",),
}


def choice() -> str:
    """CHCERT_KERNEL, checked: "" (each compiled extension where built, else numba's
    twin), "compiled" or "numba". A bad value is a usage error (exit 4): `chcert certify`,
    its --dry-run too, and `chcert math` ask before anything runs, not when a census is
    first computed or the AA Bonus first counted, minutes into a run."""
    chosen = os.environ.get("CHCERT_KERNEL", "")
    if chosen not in ("", *CHOICES):
        raise UsageError(f"CHCERT_KERNEL={chosen!r}: use {' or '.join(CHOICES)}, or unset")
    return chosen


def extension(name: str) -> ModuleType | None:
    """The extension `name` compiled ahead of time, or None, where its numba twin runs:
    not built, built from other sources, or CHCERT_KERNEL=numba."""
    chosen = choice()
    if chosen == "numba":
        return None
    module, problem = _load(name)
    if problem is None:
        return module
    if chosen == "compiled":
        raise UsageError(f"CHCERT_KERNEL=compiled, but {problem}")
    _say_once(f"{problem}: numba compiles its twin instead (seconds more)")
    return None


def sources_sha256(name: str) -> str:
    """The sha256 of an extension's sources, one after the other (setup.py's)."""
    sha = hashlib.sha256()
    for source in SOURCES[name]:
        sha.update((_PACKAGE / source).read_bytes())
    return sha.hexdigest()


@cache
def _load(name: str) -> tuple[ModuleType | None, str | None]:
    """The extension and why it cannot be used (None when it can)."""
    main = f"harness/{SOURCES[name][0]}"
    try:
        module = importlib.import_module(name)
    except ImportError:
        return None, f"{main} is not built"
    if getattr(module, "SOURCE_SHA256", None) != sources_sha256(name):
        return module, f"{main} changed since it was built (pip install -e . rebuilds it)"
    return module, None


_SAID: set[str] = set()


def _say_once(line: str) -> None:
    if line not in _SAID:
        _SAID.add(line)
        print(f"chcert: {line}", file=sys.stderr)
