"""The production shuffle against the RNG and deck battery (harness/gamemath/rng.py)."""

from __future__ import annotations

from typing import Any

from harness.checks.registry import NOT_RUN, CheckFailure, Context, NotTested, check, section
from harness.checks.replies import request_ok
from harness.defaults import MIN_DECKS
from harness.gamemath.rng import BadSample, sample_and_test
from harness.protocol import Capability
from harness.results.model import Outcome, RngSection, RngShare, Shares
from harness.results.outcomes import Status


@check("rng-battery", requires={Capability.SHUFFLE}, section="rng")
def rng_battery(ctx: Context) -> Outcome:
    """The production shuffle's decks (and raw RNG output, where exposed) pass the battery:
    at stage 1, or, after a stage-1 rejection that is not gross, at stage 2 on stage 1's
    sample and a fresh one together (harness/gamemath/rng.py)."""
    if ctx.rng_decks < MIN_DECKS:  # chcert certify refuses it; the plugin may be given it
        raise NotTested(
            f"{ctx.rng_decks:,} decks are fewer than the battery judges ({MIN_DECKS:,})",
            needs=f"--rng-decks {MIN_DECKS} or more",
        )
    try:

        def request(op: str, **params: Any) -> dict[str, Any]:
            return request_ok(ctx, op, **params)  # a refusal is the game's fault

        battery = sample_and_test(request, ctx.rng_decks, ctx.capabilities).section()
    except BadSample as exc:  # the game's fault; any other exception is the harness's
        raise CheckFailure(
            f"shuffle or rng reply does not hold what was asked: {exc}", evidence=exc.evidence
        ) from exc
    share = RngShare(section=battery)
    if not battery.passed:
        message, expected, actual = _failure(battery)
        raise CheckFailure(message, expected=expected, actual=actual, share=share)
    return Outcome(share=share)


@section("rng")
def rng_section(shares: Shares) -> RngSection:
    """The deck battery's table (contract 3 `rng`): its one item's share, or why none."""
    r = shares.records[0] if shares.records else None
    if r is None:
        return RngSection(status=Status.NOT_TESTED, reason=NOT_RUN, decks=0, tests=[])
    if isinstance(r.share, RngShare):
        return r.share.section
    return RngSection(status=r.status, reason=r.message, decks=0, tests=[])


def _failure(battery: RngSection) -> tuple[str, str, dict[str, object]]:
    """The failure's words (message, expected, actual): a gross stage-1 rejection (no
    confirmation ran), or stage 1's rejection confirmed by the battery on both samples
    together."""
    first = [t.name for t in battery.tests if not t.passed]
    stage1 = {t.name: t.p_adjusted for t in battery.tests}
    second = battery.stage2
    if battery.gross or second is None:
        limit = battery.gross_alpha
        gross = [t.name for t in battery.tests if limit is not None and t.p_adjusted < limit]
        return (
            f"RNG battery failed at stage 1 beyond what any fair shuffle gives "
            f"(Holm-adjusted p < {limit}): {', '.join(gross)}; no later sample can rescue it",
            f"every test's Holm-adjusted p-value >= {limit}",
            {"stage 1": stage1},
        )
    confirmed = [t.name for t in second.tests if not t.passed]
    return (
        f"RNG battery failed at both stages: stage 1 {', '.join(first)}; stage 2 (stage "
        f"1's sample and a fresh one together) {', '.join(confirmed)}",
        f"every test's Holm-adjusted p-value >= {battery.alpha} (stage 1), or, on "
        f"stage 1's sample and a fresh one together, >= {second.alpha} (stage 2)",
        {"stage 1": stage1, "stage 2": {t.name: t.p_adjusted for t in second.tests}},
    )
