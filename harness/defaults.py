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
DEFAULT_TIMEOUT = 10.0  # seconds one reply may take
PROFILE_DIR = SPECS_DIR / "profiles"

# The ranges a run's numbers must fall in, from the command line or a plan
# (harness/run/settings.py declares each setting's; docs/command-line.md). Past them a run
# could not end in any reasonable time, or the number would overflow the clocks and
# generators it feeds: each is a usage error before anything runs.
MAX_TIMEOUT = 3600.0  # seconds one reply may take
MAX_SEED = 2**63 - 1
MAX_WORKERS = 64  # -n, and N in an N*SPEC gateway
MAX_REPEAT = 100
MIN_DECKS = (
    2_949  # the RNG battery's least sample: harness/gamemath/rng.py derives it (tests/test_rng.py)
)
MAX_DECKS = 2_000_000  # about 100 MB of decks
MAX_RTP_ROUNDS = 10_000_000
MAX_DIFFERENTIAL = 10_000_000  # seat-hands


def available_profiles() -> list[str]:
    """The bundled profiles' names (their files under specs/profiles/)."""
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))


# The fewest decks the RNG battery judges: every cell of its hand-category test expects
# 5 decks, and the rarest cell (a full house or better among the first five cards,
# 4,408 of 2,598,960 hands) needs 2,949. harness/gamemath/rng.py computes it again.
MIN_DECKS = 2_949
