"""The hand-over between `chcert certify` and the run it starts in its own process
(harness/cli/certify.py, harness/run/plugin.py, harness/run/controller.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from harness.results.model import Results
    from harness.run.runspec import RunSpec


class Handover:
    """What `chcert certify` hands the run in its own process, and takes back: the spec
    it built (and so checked) before the run, so the controller loads the profile,
    catalogs, vectors and corpus once, not twice (workers under xdist build their own);
    and the results as built, in memory, never read back from results.json in the output
    folder, which a process the game left behind could replace (docs/robustness.md).

    Given to pytest as a plugin, it puts itself in the run's stash (HANDOVER) as pytest
    configures, where the plugin and the controller find it."""

    def __init__(self, spec: RunSpec) -> None:
        self.spec = spec
        self.results: Results | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        config.stash[HANDOVER] = self


HANDOVER = pytest.StashKey[Handover]()
