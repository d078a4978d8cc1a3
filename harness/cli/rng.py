"""`chcert rng`: sample a game's shuffle (and raw RNG) and run the battery (docs/rng.md)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from typing import TYPE_CHECKING, Any

import msgspec

from harness.cli.common import UsageError, check_adapter, deck_progress
from harness.defaults import DEFAULT_DECKS, DEFAULT_PROFILE
from harness.errors import ChcertError
from harness.results.outcomes import EXIT_CODES, Verdict
from harness.run.settings import BY_DEST

if TYPE_CHECKING:
    from harness.gamemath.rng import Battery, StagedBattery

# The battery's sample and the wait for each reply, ranged as certify's are.
DECKS = dataclasses.replace(BY_DEST["rng_decks"], flags=("--decks",))
TIMEOUT = dataclasses.replace(BY_DEST["timeout"], default=60.0)


def register(sub: Any) -> None:
    rng = sub.add_parser("rng", help="run the RNG and deck-distribution battery")
    rng.add_argument("--adapter", default="reference", help="adapter spec (as for certify)")
    rng.add_argument("--profile", default=DEFAULT_PROFILE, help="profile the reference game plays")
    rng.add_argument("--decks", type=int, default=DEFAULT_DECKS, help="decks to sample")
    rng.add_argument(
        "--timeout", type=float, default=TIMEOUT.default, help="seconds to wait for each reply"
    )
    rng.add_argument("--json", action="store_true", help="print the results as JSON")
    rng.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Sample the game's shuffle (and raw RNG) and run the battery in two stages, the second
    on a fresh sample only after the first rejects (exit 0, 1, or 2)."""
    from harness.adapters import open_adapter
    from harness.gamemath.rng import sample_and_test
    from harness.protocol.declaration import Declaration
    from harness.rules.profiles import load_profile

    for problem in (DECKS.out_of_range(args.decks), TIMEOUT.out_of_range(args.timeout)):
        if problem:
            raise UsageError(problem)
    check_adapter(args.adapter)
    profile = load_profile(args.profile)
    try:
        adapter = open_adapter(args.adapter, profile_path=str(profile.path), timeout=args.timeout)
        try:
            declared = Declaration(adapter.request("hello"))
            capabilities = declared.capabilities
            if "shuffle" not in capabilities:
                print("chcert rng: not tested: the game lacks capability shuffle", file=sys.stderr)
                return EXIT_CODES[Verdict.INCOMPLETE]
            started = time.monotonic()
            progress = deck_progress(args.decks, args.json)
            staged = sample_and_test(adapter.request, args.decks, capabilities, progress)
            seconds = time.monotonic() - started
        finally:
            adapter.close()
    except ChcertError as exc:  # the game's or the harness's: nothing judged
        print(f"chcert rng: {exc}", file=sys.stderr)
        return EXIT_CODES[Verdict.INCOMPLETE]
    if args.json:
        named = {"implementation": declared.sent.get("name")}
        section = msgspec.to_builtins(staged.section())
        print(json.dumps({**named, **section}, indent=2))
    else:
        _print_battery(staged, declared.name, seconds)
    return 0 if staged.passed else 1


def _print_battery(staged: StagedBattery, name: str, seconds: float) -> None:
    from harness.gamemath.rng import POWER

    battery, second = staged.stage1, staged.stage2
    raw = f" and {battery.raw_bytes:,} bytes of raw RNG output" if battery.raw_bytes else ""
    print(f"{battery.decks:,} decks{raw} from {name}, sampled and analysed in {seconds:.1f} s")
    print(
        f"two stages: a rejection at family-wise alpha {battery.alpha} ({battery.correction} "
        f"correction) fails at once below {staged.gross_alpha}, and is otherwise confirmed"
    )
    print(
        f"on this sample and a fresh one together at {staged.confirm_alpha}; a fair shuffle "
        f"fails at most {staged.false_fail_rate:.1e} of the time"
    )
    print(
        f"'detects' is the smallest bias each test finds with {POWER:.0%} power at this sample "
        "size and alpha"
    )
    print(f"stage 1: {battery.decks:,} decks, family-wise alpha {battery.alpha}")
    _print_tests(battery)
    die = battery.dieharder
    if die is not None and die.ran:
        shown = ", ".join(f"{t.name} {t.assessment}" for t in die.tests)
        print(f"dieharder (informational, outside the corrected family): {shown}")
    else:
        print(f"dieharder: not run ({die.reason if die else 'not asked'})")
    if second is None:
        why = "stage 1's rejection is gross" if staged.gross else "stage 1 rejected nothing"
        print(f"stage 2: not run: {why}")
    else:
        raw = f" and {second.raw_bytes:,} bytes" if second.raw_bytes else ""
        print(
            f"stage 2: {second.decks:,} decks{raw}, {staged.fresh_decks:,} of them fresh, "
            f"family-wise alpha {second.alpha}: "
            + ("the rejection is confirmed" if not second.passed else "not confirmed")
        )
        _print_tests(second)
    print(f"RNG: {'PASS' if staged.passed else 'FAIL'}")


def _print_tests(battery: Battery) -> None:
    print(f"{'test':24} {'statistic':>12} {'p':>10} {'p (Holm)':>10}  result")
    for t in battery.tests:
        verdict = "pass" if t.passed else "FAIL"
        print(f"{t.name:24} {t.statistic:12.4g} {t.p_value:10.3g} {t.p_adjusted:10.3g}  {verdict}")
        print(f"{'':24}   detects {t.detects}")
