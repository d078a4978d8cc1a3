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

# The ranges a run's numbers must fall in, from the command line or a plan (the plan's
# schema states the same bounds; docs/command-line.md). Past them a run could not end in
# any reasonable time, or the number would overflow the clocks and generators it feeds:
# each is a usage error before anything runs. The battery's minimum sample is harness/rng.py's.
MAX_TIMEOUT = 3600.0  # seconds one reply may take
MAX_SEED = 2**63 - 1
MAX_WORKERS = 64  # -n, and N in an N*SPEC gateway
MAX_REPEAT = 100
MAX_DECKS = 2_000_000  # about 100 MB of decks
MAX_RTP_ROUNDS = 10_000_000
MAX_DIFFERENTIAL = 10_000_000  # seat-hands
# option -> (command-line flag, least, most)
RANGES = {
    "workers": ("-n", 0, MAX_WORKERS),
    "repeat": ("--repeat", 1, MAX_REPEAT),
    "seed": ("--seed", 0, MAX_SEED),
    "rtp_rounds": ("--rtp-rounds", 0, MAX_RTP_ROUNDS),
    "differential": ("--differential", 0, MAX_DIFFERENTIAL),
}


def available_profiles() -> list[str]:
    """The bundled profiles' names (their files under specs/profiles/)."""
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))
