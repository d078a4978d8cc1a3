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
