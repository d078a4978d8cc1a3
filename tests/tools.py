"""Programs some tests need beside Python: skipped where absent, required where CI says so.

A developer's machine may lack them, and the test is skipped with the reason; `.ci/run`
installs them and names them in CHCERT_REQUIRE_TOOLS, so that there a missing program
fails the test instead of passing it over unseen.
"""

from __future__ import annotations

import os
import shutil

import pytest


def need(tool: str, package: str) -> None:
    """Skip the calling test unless `tool` is on PATH; fail if CI requires it."""
    if shutil.which(tool) is not None:
        return
    if tool in os.environ.get("CHCERT_REQUIRE_TOOLS", "").split():
        pytest.fail(f"{tool} ({package}) is required here (CHCERT_REQUIRE_TOOLS)")
    pytest.skip(f"{tool} ({package}) is not installed")
