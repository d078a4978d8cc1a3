"""The game declares what the profile says: its pay tables, qualifier, call
multiple (`declared-*`), and it enforces the wager limits it declares
(`declared-limits`)."""

from __future__ import annotations

from collections.abc import Callable

from harness.checks.registry import CheckFailure, Context, NotTested, check
from harness.checks.replies import finish_round
from harness.errors import ErrorReply


def _declared(field_name: str) -> Callable[[Context], None]:
    def declared(ctx: Context) -> None:
        config = ctx.hello.get("config")
        if not isinstance(config, dict) or field_name not in config:
            raise CheckFailure(f"hello config does not declare {field_name}")
        want = ctx.profile.declared_config()[field_name]
        have = config[field_name]
        if have != want:
            raise CheckFailure(
                f"declared {field_name} differs from profile {ctx.profile.name}",
                expected=want,
                actual=have,
            )

    declared.__doc__ = f"The game's hello declares the profile's {field_name}."
    return declared


check("declared-ante-table")(_declared("ante_pay_table"))
check("declared-aa-table")(_declared("aa_bonus_pay_table"))
check("declared-qualifier")(_declared("dealer_qualifier"))
check("declared-call-multiple")(_declared("call_multiple"))


@check("declared-limits")
def declared_limits(ctx: Context) -> None:
    """Wagers one unit outside the declared limits are refused; the limits are accepted."""
    config = ctx.hello.get("config") or {}
    limits = config.get("limits") if isinstance(config, dict) else None
    if not isinstance(limits, dict) or not isinstance(limits.get("ante"), list):
        raise NotTested("the game declares no ante limits", needs="config.limits in hello")
    lo, hi = limits["ante"]
    cases: list[tuple[dict[str, int], bool]] = [
        ({"seat": 1, "ante": lo - 1}, False),
        ({"seat": 1, "ante": hi + 1}, False),
        ({"seat": 1, "ante": lo}, True),
        ({"seat": 1, "ante": hi}, True),
    ]
    aa = limits.get("aa_bonus")
    if config.get("aa_bonus_pay_table") and isinstance(aa, list):
        cases += [
            ({"seat": 1, "ante": lo, "aa_bonus": aa[0] - 1}, aa[0] - 1 == 0),
            ({"seat": 1, "ante": lo, "aa_bonus": aa[1] + 1}, False),
            ({"seat": 1, "ante": lo, "aa_bonus": aa[1]}, True),
        ]
    for wager, legal in cases:
        try:
            reply = ctx.adapter.request("round", seats=[wager])
        except ErrorReply as exc:
            if legal:
                raise CheckFailure(
                    f"wager {wager} within the declared limits was refused ({exc.code})",
                    expected="accepted",
                    actual={"error": exc.code},
                ) from exc
            if exc.code != "invalid_bet":
                raise CheckFailure(
                    f"wager {wager} refused with {exc.code}, expected invalid_bet",
                    expected={"error": "invalid_bet"},
                    actual={"error": exc.code},
                ) from exc
            continue
        finish_round(ctx, reply.get("round"), [1])
        if not legal:
            raise CheckFailure(
                f"wager {wager} outside the declared limits {limits} was accepted",
                expected={"error": "invalid_bet"},
                actual=reply,
            )
