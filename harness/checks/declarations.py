"""The game declares what the profile says: its pay tables, qualifier, call
multiple (`declared-*`); and the table it declares, its limits and house rules, is
one the profile allows and the game enforces (`declared-limits`).

A declaration is compared by what it means, not by how it is written: protocol v1
(docs/adapter-protocol.md, `config`) says an ante category not listed pays 1 to 1 and an
AA Bonus row not listed loses, so a table that lists `straight: 1` is the profile's table
that leaves the row out. An AA row listed at 0 pays 0 to 1, the stake back: a push, which
is not the loss an unlisted row means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.checks.registry import CheckFailure, Context, check
from harness.checks.replies import finish_round
from harness.errors import ErrorReply
from harness.rules.evaluator import Category
from harness.rules.table import HOUSE_RULES, Table

ANTE_ROWS = tuple(c.wire for c in Category)
# The AA Bonus's rows: a pair counts only as a pair of aces, a high card never wins.
AA_ROWS = ("pair_of_aces", *(c.wire for c in Category if c > Category.PAIR))
ANTE_UNLISTED_ODDS = 1  # protocol v1: an ante category not listed pays 1 to 1
LOSES = None  # protocol v1: an AA Bonus row not listed loses


def _odds(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def table_meaning(table: Any, rows: tuple[str, ...], unlisted: int | None) -> Any:
    """What a declared pay table pays, row by row, with protocol v1's reading of a row not
    listed (`unlisted`: 1 for the ante, LOSES for the AA Bonus); anything that is not a
    table of known rows to whole odds (null, a row of another name, odds of 2.5) means
    only itself, and so equals only the same declaration."""
    if not isinstance(table, dict) or not all(r in rows and _odds(o) for r, o in table.items()):
        return ("as declared", repr(table))
    return {row: table.get(row, unlisted) for row in rows}


MEANINGS: dict[str, Callable[[Any], Any]] = {
    "ante_pay_table": lambda t: table_meaning(t, ANTE_ROWS, ANTE_UNLISTED_ODDS),
    "aa_bonus_pay_table": lambda t: None if t is None else table_meaning(t, AA_ROWS, LOSES),
}


def rows_that_differ(field_name: str, want: Any, have: Any) -> dict[str, Any]:
    """The rows of two declared tables that pay differently ({} for anything but two
    tables): what a mismatch's message names."""
    mine, theirs = MEANINGS[field_name](want), MEANINGS[field_name](have)
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return {}
    return {
        row: {"profile": mine[row], "declared": theirs[row]}
        for row in mine
        if mine[row] != theirs[row]
    }


def same_meaning(field_name: str, want: Any, have: Any) -> bool:
    """Whether a declared field means what the profile's does (a table row by row, with
    the unlisted rows at protocol v1's default; the rest as written)."""
    meaning = MEANINGS.get(field_name)
    if meaning is None:
        return bool(want == have)
    return bool(meaning(want) == meaning(have))


def _declared(field_name: str) -> Callable[[Context], None]:
    def declared(ctx: Context) -> None:
        config = ctx.declared.config
        if field_name not in config:
            raise CheckFailure(f"hello config does not declare {field_name}")
        want = ctx.profile.declared_config()[field_name]
        have = config[field_name]
        if not same_meaning(field_name, want, have):
            differ = rows_that_differ(field_name, want, have) if field_name in MEANINGS else {}
            rows = "".join(
                f"; {row} pays {_words(d['declared'])}, the profile's {_words(d['profile'])}"
                for row, d in differ.items()
            )
            raise CheckFailure(
                f"declared {field_name} differs from profile {ctx.profile.name}{rows}",
                expected=want,
                actual=have,
                evidence={"rows": differ} if differ else None,
            )

    declared.__doc__ = (
        f"The game's hello declares the profile's {field_name}, compared by meaning "
        "(protocol v1's default for a row a table does not list)."
    )
    return declared


def _words(odds: int | None) -> str:
    return "nothing (loses)" if odds is LOSES else f"{odds} to 1"


check("declared-ante-table")(_declared("ante_pay_table"))
check("declared-aa-table")(_declared("aa_bonus_pay_table"))
check("declared-qualifier")(_declared("dealer_qualifier"))
check("declared-call-multiple")(_declared("call_multiple"))


@check("declared-limits")
def declared_limits(ctx: Context) -> None:
    """The table the game declares (docs/profiles.md): its limits are a range, include
    what the profile requires, and are enforced (one unit outside refused with
    invalid_bet, the edges accepted); its house rules are ones protocol v1 documents, the
    profile allows, and the game enforces."""
    limits = ctx.declared.limits
    table = ctx.table
    if table is None:
        raise CheckFailure(
            f"declared ante limits {limits.get('ante')!r} are not a range [min, max] with "
            "1 <= min <= max",
            expected="config.limits.ante: [min, max]",
            actual=limits.get("ante"),
        )
    _judge_declaration(ctx, table)
    lo, hi = table.ante
    cases: list[tuple[dict[str, int], bool]] = [
        ({"seat": 1, "ante": lo - 1}, False),
        ({"seat": 1, "ante": hi + 1}, False),
        ({"seat": 1, "ante": lo}, True),
        ({"seat": 1, "ante": hi}, True),
    ]
    if table.aa_bonus is not None:
        aa_lo, aa_hi = table.aa_bonus
        _verify_aa_stakable(table)
        cases += [
            ({"seat": 1, "ante": lo, "aa_bonus": aa_lo - 1}, aa_lo - 1 == 0),
            ({"seat": 1, "ante": hi, "aa_bonus": aa_hi + 1}, False),
        ]
        least = table.smallest_aa_ante
        if least is not None:
            cases.append(({"seat": 1, "ante": least, "aa_bonus": aa_lo}, True))
            largest = table.aa_range(hi)
            assert largest is not None  # hi >= least
            cases.append(({"seat": 1, "ante": hi, "aa_bonus": largest[1]}, True))
        cap = table.aa_bonus_max_ante_multiple
        if cap is not None and least is not None:
            # the house rule wherever it binds inside the AA Bonus limits: beside the
            # smallest ante that takes an AA Bonus, an odd one between, and the largest
            middle = (least + hi) // 2 | 1
            for ante in sorted({least, min(middle, hi), hi}):
                if cap * ante + 1 <= aa_hi:
                    cases += [
                        ({"seat": 1, "ante": ante, "aa_bonus": cap * ante}, True),
                        ({"seat": 1, "ante": ante, "aa_bonus": cap * ante + 1}, False),
                    ]
    elif ctx.declared.offers_aa_bonus:  # an AA Bonus offered at no valid limits
        declared = limits.get("aa_bonus")
        why = (
            "declares no AA Bonus limits (config.limits.aa_bonus)"
            if declared is None
            else f"its declared AA Bonus limits {declared!r} are not a range [min, max] "
            "with 1 <= min <= max"
        )
        raise CheckFailure(
            f"the game offers an AA Bonus but {why}",
            expected="config.limits.aa_bonus: [min, max]",
            actual=declared,
        )
    for wager, legal in cases:
        try:
            reply = ctx.adapter.request("round", seats=[wager])
        except ErrorReply as exc:
            if legal:
                raise CheckFailure(
                    f"wager {wager} the declared table takes was refused ({exc.code})",
                    expected="accepted",
                    actual={"error": exc.code},
                    evidence=_table_evidence(table),
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
                f"wager {wager} the declared table refuses "
                f"({table.refuses(wager['ante'], wager.get('aa_bonus', 0))}) was accepted",
                expected={"error": "invalid_bet"},
                actual=reply,
                evidence=_table_evidence(table),
            )


def _verify_aa_stakable(table: Table) -> None:
    """An AA Bonus offered must be one a seat can stake: a house cap (an AA Bonus at most
    M times the ante) under the AA Bonus minimum beside every ante the table takes leaves
    the side bet offered in hello and refused at the table, a declaration that
    contradicts itself (docs/profiles.md, "House rules"), not a table with nothing to
    test."""
    if table.aa_bonus is None or table.smallest_aa_ante is not None:
        return
    cap = table.aa_bonus_max_ante_multiple
    hi = table.ante[1]
    raise CheckFailure(
        f"the declared table takes no AA Bonus: house rule aa_bonus_max_ante_multiple {cap} "
        f"caps it at {cap} x the largest ante {hi} = {(cap or 0) * hi}, under the AA Bonus "
        f"minimum {table.aa_bonus[0]}",
        expected="an AA Bonus the declared limits and house rules take beside some ante",
        actual=table.to_config(),
    )


def _table_evidence(table: Table) -> dict[str, Any]:
    return {"declared": table.to_config()}


def _judge_declaration(ctx: Context, table: Table) -> None:
    """House rules known to protocol v1 and allowed by the profile; the limits the
    profile requires (a jurisdiction's) inside the declared ones."""
    if table.unknown_house_rules:
        raise CheckFailure(
            f"house rules {', '.join(table.unknown_house_rules)} are not ones protocol v1 "
            f"documents ({', '.join(HOUSE_RULES)}): the harness cannot judge them",
            expected=list(HOUSE_RULES),
            actual=ctx.declared.house_rules,
        )
    offered = ctx.declared.config.get("aa_bonus_pay_table")
    if ctx.profile.aa_table is None and offered:
        # the AA Bonus clauses do not apply here: the clause of wagers judges the offer
        raise CheckFailure(
            f"the game offers an AA Bonus; profile {ctx.profile.name} has none",
            expected={"aa_bonus_pay_table": None},
            actual={"aa_bonus_pay_table": offered},
        )
    forbidden = [r for r in table.house_rules if r not in ctx.profile.house_rules_allowed]
    if forbidden:
        raise CheckFailure(
            f"house rules {', '.join(forbidden)} are not allowed by profile "
            f"{ctx.profile.name} (house_rules_allowed: "
            f"{', '.join(ctx.profile.house_rules_allowed) or 'none'})",
            expected=list(ctx.profile.house_rules_allowed),
            actual=table.house_rules,
        )
    required = ctx.profile.required_limits
    if required is None:
        return
    for wager, need, have in (
        ("ante", required.ante, table.ante),
        ("aa_bonus", required.aa_bonus, table.aa_bonus),
    ):
        if need is not None and (have is None or have[0] > need[0] or have[1] < need[1]):
            raise CheckFailure(
                f"declared {wager} limits {list(have) if have else None} do not include the "
                f"{need[0]}..{need[1]} profile {ctx.profile.name} requires a table to accept",
                expected={wager: list(need)},
                actual={wager: list(have) if have else None},
            )
