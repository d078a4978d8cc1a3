"""Shared fixtures for the harness's own tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.rules.profiles import Profile, load_profile

ROOT = Path(__file__).resolve().parent.parent
TEST_TIMEOUT = 300  # seconds a test may take unless it says otherwise


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The two tiers (README): without -m, the fast tier runs and the slow tier is
    deselected (`-m slow` runs it, `-m "slow or not slow"` both). Every test is bounded
    by pytest-timeout, so that a hang fails with the test's name instead of stalling CI;
    a test that legitimately runs longer says so with @pytest.mark.timeout(N)."""
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(TEST_TIMEOUT))
    if config.getoption("markexpr"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


@pytest.fixture(scope="session")
def standard() -> Profile:
    return load_profile("standard")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session", autouse=True)
def exact_census() -> None:
    """Compute (or load) the census before any test runs.

    On a cold cache it takes about 10 s of both cores (docs/performance.md); computed in the middle
    of the run it would starve the tests that time a misbehaving game. Workers take
    turns on the cache's lock, so it is computed once.
    """
    from harness.gamemath.census import load_census

    load_census(load_profile("standard").qualifying_strength)
