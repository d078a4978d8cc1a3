"""The defaults a run falls back on, in one light module.

`chcert --help` shows them, and must answer without importing the numerical stack
(numba, numpy, scipy) or the test runner: so they live here, where the command line,
the pytest plugin and the checks all read them (docs/command-line.md).
"""

from __future__ import annotations

from harness.paths import SPECS_DIR

DEFAULT_PROFILE = "standard"
DEFAULT_DECKS = 20_000  # decks sampled for the RNG battery
DEFAULT_RTP_ROUNDS = 1_000  # rounds of the RTP simulation
DEFAULT_DIFFERENTIAL = 50_000  # seat-hands of the differential check
PROFILE_DIR = SPECS_DIR / "profiles"


def available_profiles() -> list[str]:
    """The bundled profiles' names (their files under specs/profiles/)."""
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))
