"""A profile's figures (results.json's `math` section), cached on disk.

Pricing a profile means loading its census (72 MB), checking it and pricing two
strategies over 1,286,792 situations: a second or two, which every run paid again.
The figures it yields are small: a warm run reads them back in milliseconds.

They are keyed by everything they depend on: the rules the main game is priced under,
the AA Bonus pay table, the claims, and every source that computes them (FIGURES_SOURCES).
The file keeps the sha256 of its figures: one that fails it or does not parse is
reported on stderr and recomputed, never used.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

from harness.atomic import atomic_path
from harness.gamemath.census import DIGEST_SOURCES, cache_file, source_bytes, warn_cache

# Every source the figures are computed by, relative to the harness package.
FIGURES_SOURCES = (
    *DIGEST_SOURCES,
    "gamemath/__init__.py",  # the math section, the claims' readings and tolerance
    "gamemath/aa.py",
    "gamemath/pricing.py",
    "gamemath/strategy.py",
)


@cache
def _code_digest() -> str:
    sha = hashlib.sha256()
    for name in FIGURES_SOURCES:
        data = source_bytes(name)
        sha.update(f"{name}\0{len(data)}\0".encode())
        sha.update(data)
    return sha.hexdigest()


def figures_key(rules: str, aa_table: dict[str, Any] | None, claims: list[list[Any]]) -> str:
    """The key of a profile's figures: what they depend on, as one JSON text."""
    inputs = {"rules": rules, "aa_bonus": aa_table, "claims": claims, "code": _code_digest()}
    return json.dumps(inputs, sort_keys=True)


def _kind(key: str) -> str:
    return f"math-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def _sha256(figures: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(figures, sort_keys=True).encode()).hexdigest()


def cached_figures(key: str) -> dict[str, Any] | None:
    """The figures cached under `key`, or None: none cached, stale, or failing a check."""
    path = cache_file(_kind(key), ".json")
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        fresh = stored["key"] == key
        figures, checksum = stored["figures"], stored["sha256"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as error:
        warn_cache(path, f"unreadable ({type(error).__name__}: {error})")
        return None
    if not fresh:
        return None
    if not isinstance(figures, dict) or _sha256(figures) != checksum:
        warn_cache(path, "its figures do not match the sha256 stored with them")
        return None
    return figures


def cache_figures(key: str, figures: dict[str, Any]) -> None:
    """Keep a profile's figures for the next run; a cache that cannot be written is no error."""
    kind = _kind(key)
    path = cache_file(kind, ".json")
    text = json.dumps({"key": key, "figures": figures, "sha256": _sha256(figures)})
    try:
        with atomic_path(path) as temporary:
            temporary.write_text(text, encoding="utf-8")
        for stale in path.parent.glob(f"{kind}-v*"):
            if stale.name != path.name:
                stale.unlink(missing_ok=True)
    except OSError:
        pass
