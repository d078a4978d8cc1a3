"""Exact game mathematics: the main game under the optimal strategy, the AA Bonus,
and the claims of the rules sources checked against them.

* `census`/`kernel`: what every turn, river and dealer hand does to each of the
  1,286,792 situations (hole + flop up to suit symmetry), computed once per dealer
  qualifier by a compiled kernel and cached on disk;
* `pricing`: a pay table priced over the census: optimal calls, house edge,
  element of risk, raise frequency, outcome and pay-row probabilities;
* `strategy`: the optimal decisions as a compact file, with a readable summary;
* `aa`: the AA Bonus over all 2,598,960 hole + flop hands.

`profile_math` assembles results.json's `math` section from these.
"""

from __future__ import annotations

import threading
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.gamemath.aa import FIVE_CARD_HANDS, AABonusMath, aa_bonus_math, aa_row_counts
from harness.gamemath.census import (
    Progress,
    census_progress,
    load_census,
    symmetry,
    warn_cache,
)
from harness.gamemath.pricing import PlayFigures, call_values, optimal_calls, play_figures
from harness.gamemath.strategy import (
    Strategy,
    cache_strategy,
    cached_strategy,
    fold_rule,
    strategy_cache_file,
    summary,
)
from harness.results.outcomes import Status
from harness.rules.profiles import Claim, Profile

__all__ = [
    "FIVE_CARD_HANDS",
    "AABonusMath",
    "MainGame",
    "aa_bonus_math",
    "aa_row_counts",
    "census_progress",
    "check_claim",
    "check_claims",
    "main_game",
    "profile_math",
]

MIN_TOLERANCE = Fraction(5, 100_000)  # never looser than what 0.01% rounding allows


class MainGame:
    """A profile's main game priced exactly: optimal and always-call play, the strategy.

    Each part is computed when first asked for, so a process that only plays the
    strategy (a worker running the differential) reads it from the strategy cache and
    never loads the census.
    """

    def __init__(self, profile: Profile, rules: str, progress: Progress | None = None) -> None:
        self.profile = profile
        self.rules = rules  # what the decisions depend on; main_game's key
        self._progress = progress
        self._strategy: Strategy | None = None
        self._census_strategy: Strategy | None = None  # the census's decisions, priced
        # Read once though two threads ask (the controller prices the figures on a thread
        # while an in-process run's RTP simulation asks for them: harness/run/controller.py)
        self._reading = threading.Lock()
        self._census_read: npt.NDArray[np.int32] | None = None

    @property
    def _census(self) -> npt.NDArray[np.int32]:
        with self._reading:
            if self._census_read is None:
                self._census_read = load_census(self.profile.qualifying_strength, self._progress)
            return self._census_read

    @cached_property
    def _calls(self) -> npt.NDArray[np.bool_]:
        return optimal_calls(call_values(self._census, self.profile))

    @cached_property
    def optimal(self) -> PlayFigures:
        return play_figures(self._census, symmetry().weight, self.profile, self._calls, "optimal")

    @cached_property
    def always_call(self) -> PlayFigures:
        calls = np.ones_like(self._calls)
        return play_figures(self._census, symmetry().weight, self.profile, calls, "always_call")

    @property
    def strategy(self) -> Strategy:
        """The decisions this process plays: from the strategy cache, else priced (and
        cached). The same all the process long, whatever it prices meanwhile (the
        controller prices the figures on a thread while an in-process run plays): a seed
        plays the same decisions on every run."""
        if self._strategy is None:
            self._strategy = cached_strategy(self.rules)
            if self._strategy is None:
                self._strategy = self._census_strategy = self._priced_strategy()
                cache_strategy(self.rules, self._strategy)
        return self._strategy

    def checked_strategy(self) -> Strategy:
        """The decisions the census prices, for what reports the strategy or is to play
        it optimally (the mathematics, strategy.npz, the RTP simulation).

        The cache file's sha256 shows damage, not a forgery (decisions changed and the
        sha256 computed again). So where the census is priced anyway, the strategy read
        from the cache is held to the census's decisions; when they differ, that is said
        and the cache written again, for the next run (this process keeps playing what it
        played: `strategy`).
        """
        played = self.strategy
        if self._census_strategy is not None:
            return self._census_strategy
        priced = self._census_strategy = self._priced_strategy()
        if priced.digest() != played.digest():
            warn_cache(
                strategy_cache_file(self.rules), "its decisions are not the ones the census prices"
            )
            cache_strategy(self.rules, priced)
        return priced

    def _priced_strategy(self) -> Strategy:
        """The strategy of the decisions priced from the census (about 0.01 s)."""
        profile = self.profile
        return Strategy.from_decisions(
            symmetry(),
            self._calls,
            {  # the rules the decisions depend on (shared by every profile with them)
                "ante_pay_table": profile.ante_table.to_json(),
                "dealer_qualifier": profile.dealer_qualifier,
                "call_multiple": profile.call_multiple,
                "ante_when_dealer_does_not_qualify": profile.nonqualifying_ante.value,
                "house_edge": str(self.optimal.house_edge),
            },
        )

    @cached_property
    def summary(self) -> list[dict[str, Any]]:
        """The readable summary of the strategy: for the report, not for play."""
        return summary(symmetry(), self._calls)


def _rules_key(profile: Profile) -> str:
    """What the main game's figures and decisions depend on: the ante pay table, the
    dealer's qualifier, the call multiple and the ante when the dealer does not qualify
    (profiles differing in anything else share their main game)."""
    config = profile.declared_config()
    rules = (config["ante_pay_table"], config["dealer_qualifier"], config["call_multiple"])
    return repr((rules, profile.nonqualifying_ante.value))


class MainGames:
    """The main games this process has priced, by their rules (`_rules_key`): each is
    priced once and shared by every profile with those rules. A run prices one, a test
    session a few, so nothing is ever dropped but by `clear`."""

    def __init__(self) -> None:
        self._games: dict[str, MainGame] = {}

    def get(self, profile: Profile, progress: Progress | None = None) -> MainGame:
        key = _rules_key(profile)
        if key not in self._games:
            self._games[key] = MainGame(profile, key, progress)
        return self._games[key]

    def clear(self) -> None:
        """Forget every priced game: the next `get` prices afresh."""
        self._games.clear()


MAIN_GAMES = MainGames()


def main_game(profile: Profile, progress: Progress | None = None) -> MainGame:
    """The priced main game, once per process for a pay table and rules (MAIN_GAMES)."""
    return MAIN_GAMES.get(profile, progress)


def _definitions(game: MainGame, aa: AABonusMath | None) -> dict[str, dict[str, Fraction]]:
    """Every plausible reading of each claimable figure, by name."""
    opt, always = game.optimal, game.always_call
    edges = {
        "optimal strategy, per ante": opt.house_edge,
        "optimal strategy, per total wager (element of risk)": opt.element_of_risk,
        "always call, per ante": always.house_edge,
        "always call, per total wager": always.element_of_risk,
    }
    return {
        "house_edge": edges,
        "rtp": {name: 1 - edge for name, edge in edges.items()},
        "raise_frequency": {"optimal strategy": opt.raise_frequency},
        "aa_bonus_edge": {"per AA Bonus wager": aa.house_edge} if aa else {},
    }


def tolerance(value: float) -> Fraction:
    """Half a unit in the last decimal place the claim is quoted to (0.82: 0.005)."""
    exponent = Decimal(repr(value)).as_tuple().exponent
    places = -exponent if isinstance(exponent, int) else 0
    return max(Fraction(1, 2 * 10**places), MIN_TOLERANCE)


def check_claim(claim: Claim, readings: dict[str, Fraction]) -> dict[str, Any]:
    """A claimed figure against each reading: pass when one reading confirms it, fail with
    the nearest reading and how far, not_tested when nothing could be computed."""
    result: dict[str, Any] = {
        "figure": claim.figure,
        "claimed": claim.value,
        "source": f"{claim.source_file}: {claim.source_ref}",
    }
    if not readings:
        return {**result, "status": Status.NOT_TESTED.value, "computed": None, "definition": None}
    claimed = Fraction(Decimal(repr(claim.value)))
    name, computed = min(readings.items(), key=lambda item: abs(item[1] - claimed))
    confirmed = abs(computed - claimed) <= tolerance(claim.value)
    return {
        **result,
        "status": (Status.PASS if confirmed else Status.FAIL).value,
        "computed": float(computed),
        "definition": name,
        "difference": float(computed - claimed),
        "tolerance": float(tolerance(claim.value)),
        "readings": {k: float(v) for k, v in readings.items()},
    }


def check_claims(
    claims: tuple[Claim, ...] | list[Claim], profile: Profile, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """Claimed (or published) figures against the exact mathematics of a profile's rules."""
    aa = aa_bonus_math(profile.aa_table) if profile.aa_table is not None else None
    readings = _definitions(main_game(profile, progress), aa)
    return [check_claim(c, readings.get(c.figure, {})) for c in claims]


def profile_math(profile: Profile, progress: Progress | None = None) -> dict[str, Any]:
    """results.json's `math` section for a profile (contract 3), without the simulation.

    Priced from the census every time, never read back from a file of figures: the
    census is checked when loaded (its sha256 and invariants), figures could not be.
    """
    aa = aa_bonus_math(profile.aa_table) if profile.aa_table is not None else None
    game = main_game(profile, progress)
    readings = _definitions(game, aa)
    opt = game.optimal
    return {
        "status": Status.PASS.value,
        "method": "full enumeration: every hole, flop, turn, river and dealer hand "
        "(suit symmetry, card-removal counting); no sampling",
        "house_edge": float(opt.house_edge),
        "rtp": float(1 - opt.house_edge),
        "element_of_risk": float(opt.element_of_risk),
        "raise_frequency": float(opt.raise_frequency),
        "aa_bonus_edge": float(aa.house_edge) if aa else None,
        "optimal": opt.to_json(),
        "always_call": game.always_call.to_json(),
        "aa_bonus_rows": aa.rows if aa else [],
        "strategy": {
            "summary": game.summary,
            "rule": fold_rule(game.summary),
            "sha256": game.checked_strategy().digest(),
        },
        "claims": [check_claim(c, readings.get(c.figure, {})) for c in profile.claims],
        "simulation": None,
    }
