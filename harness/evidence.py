"""Evidence that counts: the sample sizes a certificate rests on (docs/verdict.md#evidence).

A sampled check can only pass or fail on the sample it drew. Two RTP rounds, one
seat-hand of the differential and the RNG battery's smallest sample would each
"pass" a game that no laboratory would sign for; and the options that size them
are exactly what a vendor's pipeline can shrink. So a certificate needs minimum
sample sizes: chcert's documented defaults, or the policy a profile or the
laboratory's run plan states, never lower than what each check needs to judge at
all (the battery's own minimum). A check that ran on less is not certified: the
run is INCOMPLETE, with the shortfall as its reason. A failure found on a small
sample still fails: a fault seen is a fault.

The module is pure and light: results.py builds the `evidence` section from the
sections it already wrote (rng, math.simulation, differential), the command line
checks a plan's policy before the run, and the report and `chcert diff` read the
section back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from harness.defaults import DEFAULT_DECKS, DEFAULT_DIFFERENTIAL, DEFAULT_RTP_ROUNDS
from harness.outcomes import Status

DEFAULTS_SOURCE = "chcert's defaults"
# What each minimum counts, and the option that sets the sample (docs/command-line.md).
SIZED = {
    "rng_decks": ("decks sampled for the RNG battery", "--rng-decks"),
    "rtp_rounds": ("rounds of the RTP simulation", "--rtp-rounds"),
    "differential": ("seat-hands of the differential check", "--differential"),
}
# The check whose items each sample sizes (harness/checks/; the differential runs as shards
# named differential-1, differential-2, ...). The differential's strata are no sample of
# their own: at the default budget every feasible stratum meets its quota, and one that a
# game's declared limits leave short is shown in results.json's differential section.
CHECK_OF = {
    "rng_decks": "rng-battery",
    "rtp_rounds": "rtp-simulation",
    "differential": "differential",
}
JUDGED = frozenset({Status.PASS.value, Status.FAIL.value})  # a section that ran to a verdict


@dataclass(frozen=True)
class Minimums:
    """The least sample of each sampled check a certificate accepts, and who said so."""

    rng_decks: int = DEFAULT_DECKS
    rtp_rounds: int = DEFAULT_RTP_ROUNDS
    differential: int = DEFAULT_DIFFERENTIAL
    source: str = DEFAULTS_SOURCE

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Minimums:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def floors() -> dict[str, int]:
    """What each check needs to judge at all: no policy may ask for less.

    The RNG battery's is its own (harness/rng.py: every chi-square cell expects five
    decks); the RTP simulation and the differential judge from their first round.
    """
    from harness.rng import MIN_DECKS  # numpy: only when a policy is checked

    return {"rng_decks": MIN_DECKS, "rtp_rounds": 1, "differential": 1}


def policy_problems(stated: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, why) for each stated minimum below its check's floor or of the wrong kind."""
    problems = []
    for key, floor in floors().items():
        if key not in stated:
            continue
        value = stated[key]
        if isinstance(value, bool) or not isinstance(value, int):
            problems.append((key, f"a whole number is expected, found {value!r}"))
        elif value < floor:
            what, _ = SIZED[key]
            problems.append(
                (key, f"{value:,} is below the least the check judges ({floor:,} {what})")
            )
    problems += [(key, "is not a sampled check's minimum") for key in stated if key not in SIZED]
    return problems


def resolve(
    profile_name: str,
    profile_minimums: Mapping[str, Any] | None,
    plan_minimums: Mapping[str, Any] | None,
    plan_source: str = "",
) -> Minimums:
    """The policy in force: the defaults, then the profile's, then the laboratory's plan
    (`plan_source` says which: `run plan PATH`).

    Raises ValueError naming the first minimum below its floor: a policy that would let
    a check certify on less than it can judge is no policy.
    """
    minimums = Minimums()
    for stated, source in (
        (profile_minimums, f"profile {profile_name}"),
        (plan_minimums, plan_source or "the laboratory's policy"),
    ):
        if not stated:
            continue
        problems = policy_problems(stated)
        if problems:
            key, why = problems[0]
            raise ValueError(f"{source}: minimums.{key}: {why}")
        minimums = replace(minimums, **{k: int(v) for k, v in stated.items()}, source=source)
    return minimums


@dataclass(frozen=True)
class Sample:
    """One sample a certificate rests on: how large it was, and how large it had to be.

    `judged` is False when its check did not run to a verdict (not tested, a harness
    error): the check's clause is then open anyway, and its size proves nothing.
    """

    name: str
    what: str
    option: str
    size: int
    minimum: int
    judged: bool

    @property
    def met(self) -> bool:
        return not self.judged or self.size >= self.minimum

    def shortfall(self) -> str | None:
        """The reason the run cannot certify on this sample, or None."""
        if self.met:
            return None
        return (
            f"too little evidence: {self.size:,} {self.what}, the certificate's minimum "
            f"is {self.minimum:,} ({self.option} {self.minimum})"
        )


def _section(results: Mapping[str, Any], *path: str) -> Mapping[str, Any]:
    node: Any = results
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else {}


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def samples(results: Mapping[str, Any], minimums: Minimums) -> list[Sample]:
    """The samples of a results file's sampled sections, each against its minimum."""
    rng = _section(results, "rng")
    simulation = _section(results, "math", "simulation")
    differential = _section(results, "differential")
    sized = {
        "rng_decks": (rng, "decks"),
        "rtp_rounds": (simulation, "rounds"),
        "differential": (differential, "seat_hands"),
    }
    return [
        Sample(
            name=key,
            what=SIZED[key][0],
            option=SIZED[key][1],
            size=_count(section.get(size)),
            minimum=getattr(minimums, key),
            judged=section.get("status") in JUDGED,
        )
        for key, (section, size) in sized.items()
    ]


def section(found: list[Sample], minimums: Minimums) -> dict[str, Any]:
    """results.json's `evidence` (docs/results.md)."""
    return {
        "minimums": minimums.to_json(),
        "samples": [{**asdict(s), "met": s.met} for s in found],
        "met": all(s.met for s in found),
    }


def _sizes(sample: Sample, check: str) -> bool:
    owner = CHECK_OF[sample.name]
    return check == owner or check.startswith(f"{owner}-")


def shortfalls(found: list[Sample], checks: Iterable[str]) -> list[str]:
    """The incomplete reasons of the samples below their minimums that size one of
    `checks` (those left open: a clause the laboratory attested is closed anyway)."""
    named = list(checks)
    return [
        reason
        for s in found
        if (reason := s.shortfall()) is not None and any(_sizes(s, c) for c in named)
    ]


def short_sample(check: str, found: list[Sample]) -> Sample | None:
    """The first sample below its minimum that sizes the check named `check` (a shard's
    name too): a pass on it is not a pass the certificate can rest on."""
    return next((s for s in found if not s.met and _sizes(s, check)), None)
