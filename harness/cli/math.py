"""`chcert math`: a profile's exact game mathematics, and the verdict on each claim."""

from __future__ import annotations

import argparse
import json
import time
from math import isfinite
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.common import UsageError
from harness.defaults import DEFAULT_PROFILE
from harness.results.outcomes import Status

if TYPE_CHECKING:
    from harness.rules.profiles import Claim


def register(sub: Any) -> None:
    math = sub.add_parser("math", help="exact game mathematics of a profile, and its claims")
    math.add_argument("--profile", default=DEFAULT_PROFILE, help="profile name or path")
    math.add_argument("--json", action="store_true", help="print the figures as JSON")
    math.add_argument(
        "--strategy", default=None, help="also write the optimal strategy file (.npz) here"
    )
    math.add_argument(
        "--claim",
        action="append",
        default=[],
        metavar="FIGURE=VALUE",
        help="also check a figure someone claims (house_edge, rtp, raise_frequency, "
        "aa_bonus_edge; a fraction), e.g. --claim rtp=0.9875",
    )
    math.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print a profile's exact figures and the verdict on each claim (0 none refuted, 1 not)."""
    from harness.compiled import choice
    from harness.gamemath import census_progress, check_claims, main_game, profile_math
    from harness.rules.profiles import load_profile

    choice()  # CHCERT_KERNEL checked before a census is computed (exit 4)
    profile = load_profile(args.profile)
    extra = [_parse_claim(text) for text in args.claim]
    started = time.monotonic()
    figures = profile_math(profile, census_progress(quiet=False))  # on stderr: --json stays clean
    figures["claims"] += check_claims(extra, profile)
    elapsed = time.monotonic() - started
    if args.strategy:
        main_game(profile).checked_strategy().save(Path(args.strategy))
    if args.json:
        print(json.dumps({"profile": profile.name, **figures}, indent=2))
    else:
        _print_math(profile.name, profile.title, figures)
        print(f"computed in {elapsed:.1f} s")
        if args.strategy:
            print(f"strategy written to {args.strategy}")
    refuted = any(c["status"] == Status.FAIL for c in figures["claims"])
    return 1 if refuted else 0


FIGURES = ("house_edge", "rtp", "raise_frequency", "aa_bonus_edge")


def _parse_claim(text: str) -> Claim:
    """`--claim rtp=0.9875`: a figure someone claims, checked like a source's claim."""
    from harness.rules.profiles import Claim

    figure, _, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if figure not in FIGURES or not isfinite(number):  # nan, inf: no figure to judge
        raise UsageError(f"--claim {text!r}: use FIGURE=FRACTION with FIGURE one of {FIGURES}")
    return Claim(figure, number, "command line", f"--claim {text}")


def _print_math(name: str, title: str, figures: dict[str, Any]) -> None:
    print(f"profile {name}: {title}")
    print(f"method: {figures['method']}")
    print(f"  {'':30} {'optimal':>12} {'always call':>12}")
    opt, always = figures["optimal"], figures["always_call"]
    for key, label in (
        ("house_edge", "house edge per ante"),
        ("rtp", "RTP per ante"),
        ("element_of_risk", "element of risk"),
        ("rtp_per_total_wager", "RTP per total wager"),
        ("raise_frequency", "raise frequency"),
        ("average_wager", "average wager (antes)"),
    ):
        print(f"  {label:30} {_pct(opt[key], key):>12} {_pct(always[key], key):>12}")
    print("  outcome probabilities:")
    for key in opt["outcomes"]:
        print(f"    {key:28} {opt['outcomes'][key]:12.6f} {always['outcomes'][key]:12.6f}")
    print("  ante pay rows (optimal): odds, probability paid, contribution per ante")
    for row in opt["rows"]:
        print(
            f"    {row['row']:28} {row['odds']:>4} {row['probability']:12.8f} "
            f"{row['contribution']:12.8f}"
        )
    print("  return per ante by source (optimal):")
    for key, value in opt["breakdown"].items():
        print(f"    {key:28} {value:+12.8f}")
    print(f"strategy: {figures['strategy']['rule']}")
    for row in figures["strategy"]["summary"]:
        print(f"    {row['hand']:42} {row['share']:7.2%} of deals, called {row['call_rate']:7.2%}")
    if figures["aa_bonus_edge"] is None:
        print("AA Bonus: none in this profile")
    else:
        print(
            f"AA Bonus house edge {100 * figures['aa_bonus_edge']:.4f}% "
            f"(exact over all 2,598,960 hole + flop hands)"
        )
        print(f"  {'row':22} {'hands':>9} {'probability':>12} {'pays':>5} {'contribution':>13}")
        for row in figures["aa_bonus_rows"]:
            pays = "lose" if row["pays"] is None else str(row["pays"])
            print(
                f"  {row['row']:22} {row['hands']:9,} {row['probability']:12.6f} "
                f"{pays:>5} {row['contribution']:13.6f}"
            )
    for claim in figures["claims"]:
        computed = "-" if claim["computed"] is None else f"{claim['computed']:.6f}"
        print(
            f"claim {claim['figure']} {claim['claimed']}: {claim['status']} "
            f"(computed {computed}, {claim['definition']}) [{claim['source']}]"
        )


def _pct(value: float, key: str) -> str:
    return f"{value:.4f}" if key == "average_wager" else f"{100 * value:.5f}%"
