"""The production shuffle against the RNG and deck battery (harness/rng.py)."""

from __future__ import annotations

from typing import Any

from harness.checks.registry import CheckFailure, Context, NotTested, check
from harness.checks.replies import request_ok
from harness.model import Outcome
from harness.protocol import Capability
from harness.rng import MIN_DECKS, BadSample, sample_and_test


@check("rng-battery", requires={Capability.SHUFFLE}, section="rng")
def rng_battery(ctx: Context) -> Outcome:
    """The production shuffle's decks (and raw RNG output, where exposed) pass the battery:
    at stage 1, or, after a stage-1 rejection, at stage 2 on a fresh sample (harness/rng.py)."""
    if ctx.rng_decks < MIN_DECKS:  # chcert certify refuses it; the plugin may be given it
        raise NotTested(
            f"{ctx.rng_decks:,} decks are fewer than the battery judges ({MIN_DECKS:,})",
            needs=f"--rng-decks {MIN_DECKS} or more",
        )
    try:

        def request(op: str, **params: Any) -> dict[str, Any]:
            return request_ok(ctx, op, **params)  # a refusal is the game's fault

        battery = sample_and_test(request, ctx.rng_decks, ctx.capabilities).to_json()
    except BadSample as exc:  # the game's fault; any other exception is the harness's
        raise CheckFailure(
            f"shuffle or rng reply does not hold what was asked: {exc}", evidence=exc.evidence
        ) from exc
    if not battery["passed"]:  # stage 1 rejected and stage 2, on a fresh sample, confirmed it
        first = [t["name"] for t in battery["tests"] if not t["passed"]]
        second = battery["stage2"]
        confirmed = [t["name"] for t in second["tests"] if not t["passed"]]
        raise CheckFailure(
            f"RNG battery failed at both stages: stage 1 {', '.join(first)}; "
            f"stage 2 (a fresh sample) {', '.join(confirmed)}",
            expected=(
                f"every test's Holm-adjusted p-value >= {battery['alpha']} (stage 1), "
                f"or, on a fresh sample, >= {second['alpha']} (stage 2)"
            ),
            actual={
                "stage 1": {t["name"]: t["p_adjusted"] for t in battery["tests"]},
                "stage 2": {t["name"]: t["p_adjusted"] for t in second["tests"]},
            },
            share=battery,
        )
    return Outcome(share=battery)
