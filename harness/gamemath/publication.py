"""Figures a game publishes to its players, checked against exact mathematics.

A game may declare in `hello` `config.published` the figures it shows players
(`house_edge`, `rtp`, `raise_frequency`, `aa_bonus_edge`, each a fraction;
docs/adapter-protocol.md). They are priced on the pay tables, dealer qualifier
and call the game *declares* (whether those match the profile is the declared-*
checks' judgement), with the profile's rule flags, and each must agree with one
plausible reading of the exact figure (docs/verdict.md, publication findings).
A figure that does not is the game's documentation at fault: a publication
finding, apart from the implementation's verdict.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

from harness.errors import SpecError
from harness.gamemath import check_claims
from harness.results.outcomes import Status
from harness.rules.profiles import Claim, Profile, load_profile

DECLARED_RULES = ("ante_pay_table", "aa_bonus_pay_table", "dealer_qualifier", "call_multiple")


def published_figures(
    profile: Profile, profile_arg: str, config: Any, folder: Path, shown: Path
) -> list[dict[str, Any]]:
    """Each figure of `config.published`, checked on the declared rules; [] when none.

    When the declared rules differ from the profile's, the profile they make is
    written to `folder/declared-profile.yaml`, so the reproduce command prices
    exactly what was priced here; the command names it in `shown`, the folder
    where the run's outputs end up (chcert certify writes them elsewhere first).
    """
    published = config.get("published") if isinstance(config, dict) else None
    if not isinstance(published, dict) or not published:
        return []
    claims = [
        Claim(figure, float(value), "hello", "config.published")
        for figure, value in sorted(published.items())
    ]
    try:
        priced, priced_arg = _declared_profile(profile, profile_arg, config, folder, shown)
    except SpecError as exc:
        reason = f"the declared pay tables cannot be priced: {exc.message}"
        return [_unpriced(c, reason) for c in claims]
    findings = []
    for claim, checked in zip(claims, check_claims(claims, priced), strict=True):
        command = ["chcert", "math", "--profile", priced_arg, "--claim"]
        findings.append(
            {
                **checked,
                "source": "hello config.published",
                "clause": None,  # the game's own statement, not the rules source's claim
                "priced_on": priced.name,
                "reproduce": shlex.join([*command, f"{claim.figure}={claim.value!r}"]),
            }
        )
    return findings


def _unpriced(claim: Claim, reason: str) -> dict[str, Any]:
    return {
        "figure": claim.figure,
        "claimed": claim.value,
        "status": Status.NOT_TESTED.value,
        "computed": None,
        "definition": None,
        "source": "hello config.published",
        "clause": None,
        "reason": reason,
    }


def _declared_profile(
    profile: Profile, profile_arg: str, config: dict[str, Any], folder: Path, shown: Path
) -> tuple[Profile, str]:
    """The profile with the game's declared rules, and how a command line names it."""
    ours = profile.declared_config()
    if all(config.get(key) == ours[key] for key in DECLARED_RULES):
        return profile, profile_arg
    data = {
        **profile.raw,
        "name": f"{profile.name}-declared",
        "title": f"{profile.title}, with the pay tables the game declares",
        **{key: config.get(key) for key in DECLARED_RULES},
        "claims": [],
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "declared-profile.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return load_profile(str(path)), str((shown / path.name).resolve())
