"""Evidence that counts: the sample sizes a certificate rests on (docs/verdict.md#evidence).

A sampled check can only pass or fail on the sample it drew. Two RTP rounds, one
seat-hand of the differential and the RNG battery's smallest sample would each
"pass" a game that no laboratory would sign for; and the options that size them
are exactly what a vendor's pipeline can shrink. So a certificate needs minimum
sample sizes: chcert's documented defaults, raised by a profile (which may come
from the tree under test) or set by the run plan the laboratory names, never lower
than what each check needs to judge at all (the battery's own minimum). A check
that ran on less is not certified: the run is INCOMPLETE, with the shortfall as
its reason. A failure found on a small sample still fails: a fault seen is a fault.

The module is pure and light: harness/results/build.py builds the `evidence` section
from the sections it already wrote (rng, math.simulation, differential), the command line
checks a plan's policy before the run, and the report and `chcert diff` read the
section back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.defaults import DEFAULT_DECKS, DEFAULT_DIFFERENTIAL, DEFAULT_RTP_ROUNDS, MIN_DECKS
from harness.results.model import (
    DifferentialSection,
    EvidenceSection,
    Results,
    RngSection,
    Sample,
    SampleMinimums,
    Simulation,
)
from harness.results.outcomes import Status

DEFAULTS_SOURCE = "chcert's defaults"


@dataclass(frozen=True)
class SampledCheck:
    """A check whose verdict rests on a sample: what it counts, the option that sizes it,
    and where results.json records it (the `section`, its field `size`)."""

    name: str  # the minimum's key: Minimums' field, a plan's [minimums] key
    check: str  # the check's name in clause items (the differential runs as shards)
    what: str
    option: str
    section: str  # the sampled section (`sections_of`)
    size: str  # the section's field that counts the sample


# The one table of sampled checks: evidence, the report's consistency check and
# `chcert diff` all read it. The differential's strata are no sample of their own: at
# the default budget every feasible stratum meets its quota, and one that a game's
# declared limits leave short is shown in results.json's differential section.
SAMPLED = (
    SampledCheck(
        "rng_decks",
        "rng-battery",
        "decks sampled for the RNG battery",
        "--rng-decks",
        "rng",
        "decks",
    ),
    SampledCheck(
        "rtp_rounds",
        "rtp-simulation",
        "rounds of the RTP simulation",
        "--rtp-rounds",
        "simulation",
        "rounds",
    ),
    SampledCheck(
        "differential",
        "differential",
        "seat-hands of the differential check",
        "--differential",
        "differential",
        "seat_hands",
    ),
)
SIZED = {s.name: s for s in SAMPLED}
JUDGED = frozenset({Status.PASS, Status.FAIL})  # a section that ran to a verdict


Minimums = SampleMinimums  # the model's record: one type of it (harness/results/model.py)


def defaults() -> Minimums:
    """chcert's documented minimums (docs/verdict.md#evidence)."""
    return Minimums(
        rng_decks=DEFAULT_DECKS,
        rtp_rounds=DEFAULT_RTP_ROUNDS,
        differential=DEFAULT_DIFFERENTIAL,
        source=DEFAULTS_SOURCE,
    )


def floors() -> dict[str, int]:
    """What each check needs to judge at all: no policy may ask for less.

    The RNG battery's is its own (harness/gamemath/rng.py: every chi-square cell expects five
    decks); the RTP simulation judges from two rounds (harness/checks/simulation.py),
    the differential from its first seat-hand.
    """
    return {"rng_decks": MIN_DECKS, "rtp_rounds": 2, "differential": 1}


def policy_problems(stated: Mapping[str, Any], least: Mapping[str, int]) -> list[tuple[str, str]]:
    """(key, why) for each stated minimum below `least` or of the wrong kind."""
    problems = []
    for key, value in stated.items():
        if key not in SIZED:
            problems.append((key, "is not a sampled check's minimum"))
        elif isinstance(value, bool) or not isinstance(value, int):
            problems.append((key, f"a whole number is expected, found {value!r}"))
        elif value < least[key]:
            problems.append((key, f"{value:,} is below {least[key]:,} {SIZED[key].what}"))
    return problems


def resolve(
    profile_name: str,
    profile_minimums: Mapping[str, Any] | None,
    plan_minimums: Mapping[str, Any] | None,
    plan_source: str = "",
) -> Minimums:
    """The policy in force: the defaults, raised by the profile's, then set by the
    laboratory's plan (`plan_source` says which: `run plan PATH`).

    A profile only raises the defaults: it may come from the tree under test. The
    laboratory's plan may lower them, never below what each check judges (`floors`).
    Raises ValueError naming the first minimum that breaks its rule.
    """
    values = {key: getattr(defaults(), key) for key in SIZED}
    sources = [DEFAULTS_SOURCE]
    for stated, source, least, rule in (
        (profile_minimums, f"profile {profile_name}", dict(values), "a profile only raises them"),
        (plan_minimums, plan_source or "the laboratory's policy", floors(), "the least judged"),
    ):
        if not stated:
            continue
        problems = policy_problems(stated, least)
        if problems:
            key, why = problems[0]
            raise ValueError(f"{source}: minimums.{key}: {why} ({rule})")
        values.update({key: int(value) for key, value in stated.items()})
        sources.insert(0, source)
    return Minimums(
        rng_decks=values["rng_decks"],
        rtp_rounds=values["rtp_rounds"],
        differential=values["differential"],
        source=" over ".join(sources),
    )


def shortfall(sample: Sample) -> str | None:
    """The reason the run cannot certify on this sample, or None."""
    if sample.met:
        return None
    return (
        f"too little evidence: {sample.size:,} {sample.what}, the certificate's minimum "
        f"is {sample.minimum:,} ({sample.option} {sample.minimum})"
    )


# The sections a sample is counted in, by name: a results file's (`sections_of`) or a
# run's as it builds them.
Sections = Mapping[str, "RngSection | Simulation | DifferentialSection | None"]


def sections_of(
    results: Results,
) -> dict[str, RngSection | Simulation | DifferentialSection | None]:
    """The sampled sections of a results file."""
    return {
        "rng": results.rng,
        "simulation": results.math.simulation if results.math else None,
        "differential": results.differential,
    }


def samples(sections: Sections, minimums: Minimums) -> list[Sample]:
    """The samples of the sampled sections, each against its minimum. A sample whose
    check did not run to a verdict (not tested, a harness error) is not judged: the
    check's clause is then open anyway, and its size proves nothing."""
    found = []
    for sampled in SAMPLED:
        section = sections.get(sampled.section)
        size = getattr(section, sampled.size, 0) if section is not None else 0
        judged = section is not None and section.status in JUDGED
        minimum = getattr(minimums, sampled.name)
        found.append(
            Sample(
                name=sampled.name,
                what=sampled.what,
                option=sampled.option,
                size=size,
                minimum=minimum,
                judged=judged,
                met=not judged or size >= minimum,
            )
        )
    return found


def check_of(item: str) -> str:
    """The check an item of a clause runs, from its name `clause/target`: a shard of the
    differential (`differential-3`) is the differential's."""
    return re.sub(r"-\d+$", "", item.rpartition("/")[2])


def section(found: list[Sample], minimums: Minimums) -> EvidenceSection:
    """results.json's `evidence` (docs/results.md)."""
    return EvidenceSection(minimums=minimums, samples=found, met=all(s.met for s in found))


def shortfalls(found: list[Sample], checks: Iterable[str]) -> list[tuple[str, str]]:
    """(sample, shortfall) of the samples below their minimums that size one of `checks`
    (those left open: a clause the laboratory attested is closed anyway)."""
    named = {check_of(c) for c in checks}
    return [
        (s.name, reason)
        for s in found
        if (reason := shortfall(s)) is not None and SIZED[s.name].check in named
    ]


def short_sample(check: str, found: list[Sample]) -> Sample | None:
    """The sample below its minimum that sizes the check named `check` (a shard's name
    too), if any: a pass on it is not a pass the certificate can rest on."""
    owner = check_of(check)
    return next((s for s in found if not s.met and SIZED[s.name].check == owner), None)
