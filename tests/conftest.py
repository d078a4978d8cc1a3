"""Shared fixtures for the harness's own tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.profiles import Profile, load_profile

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def standard() -> Profile:
    return load_profile("standard")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session", autouse=True)
def exact_census() -> None:
    """Compute (or load) the census before any test runs.

    On a cold cache it takes most of a minute of both cores; computed in the middle
    of the run it would starve the tests that time a misbehaving game. Workers take
    turns on the cache's lock, so it is computed once.
    """
    from harness.gamemath.census import load_census

    load_census(load_profile("standard").qualifying_strength)
