"""One attribution for every settlement comparison (docs/differential.md, decision table).

Hand-worked vectors, the corpus, the differential and the RTP simulation all play
stacked rounds and judge the game's settlement against the rules oracle. Each
disagreement is attributed by the table to one fault kind, and each kind to the clause
that owns it (the catalogs' `differential:` lists): an item is judged on what its own
clause states, and every other disagreement it shows becomes a finding of the clause
it breaks, with the item's round as its worked example.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.checks.registry import Context
from harness.checks.replies import Played, Stacked
from harness.differential.attribution import Disagreement, judge, refused
from harness.protocol.messages import StackedCards
from harness.rules.game import Deal
from harness.rules.oracle import SeatPlay, settle


def owner(ctx: Context, kind: str) -> str:
    """The clause a fault kind breaks under the profile; a kind no clause owns falls to
    the clause whose item found it."""
    return ctx.fault_owners.get(kind, ctx.clause)


def judge_played(
    ctx: Context, deal: Deal, plays: dict[int, SeatPlay], stacked: StackedCards, played: Played
) -> list[Disagreement]:
    """A played stacked round's disagreements with the rules: a legal round refused is
    one (the clause of wagers'), else the table's rows seat by seat."""
    if played.refused is not None:
        op, error = played.refused
        return [refused(min(plays, default=1), op, error.code, error.message)]
    assert played.dealt is not None and played.result is not None  # neither refused nor malformed
    return judge(settle(ctx.profile, deal, plays, ctx.table), stacked, played.dealt, played.result)


def by_cause(found: Iterable[Disagreement]) -> dict[tuple[str, str], Disagreement]:
    """The first disagreement of each cause (kind, detail), in the order found."""
    first: dict[tuple[str, str], Disagreement] = {}
    for d in found:
        first.setdefault(d.cause, d)
    return first


def split(
    ctx: Context, found: Iterable[Disagreement]
) -> tuple[list[Disagreement], list[Disagreement]]:
    """(the causes the item's own clause owns or judges, the causes of other clauses):
    one disagreement each; a kind the clause judges but another owns is in both."""
    causes = list(by_cause(found).values())
    own = [d for d in causes if owner(ctx, d.kind) == ctx.clause or d.kind in ctx.judges]
    return own, [d for d in causes if owner(ctx, d.kind) != ctx.clause]


def refused_request(played: Played, stacked: Stacked) -> dict[str, object]:
    """The request a refused round's game refused, as sent (the evidence beside its reply)."""
    assert played.refused is not None
    op = played.refused[0]
    if op == "round":
        return {"op": op, "seats": stacked.wagers, "cards": stacked.cards}
    return {"op": op, "round": played.round_id}
