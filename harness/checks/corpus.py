"""Replaying the generated corpus (vectors/generated/, docs/corpus.md), pipelined.

The corpus holds thousands of vectors per profile; one item per clause replays
that clause's share, with requests pipelined (harness/checks/replies.py
`play_rounds`), so that every certification runs all of them. Failing vectors are
grouped by cause and each cause fails the clause the decision table names
(docs/differential.md), like the differential's, with the command that replays its
first vector alone.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from harness.checks.registry import Context, NotTested
from harness.checks.replies import Played, Stacked, play_rounds
from harness.checks.settlement import compare_settlement, verify_askable
from harness.differential.attribution import disagreements
from harness.model import Finding, Outcome, Untested
from harness.oracle import SeatPlay, settle
from harness.protocol import Capability
from harness.vectors import Vector

PIPELINE_ROUNDS = 32  # rounds in flight for a game with capability pipeline
REPORTED = 10  # failing vectors listed in the evidence; all are counted


def replay_corpus(
    ctx: Context, vectors: list[Vector], reproduce: Callable[[Vector], str]
) -> Outcome:
    """Replay generated vectors; CheckFailure naming each failing one (up to REPORTED)."""
    if Capability.INJECT not in ctx.capabilities:
        raise NotTested(
            "the corpus stacks the deck: implementation lacks capability inject",
            needs="capability inject",
        )
    started = time.perf_counter()
    runnable, outside = [], []
    for vector in vectors:
        try:
            verify_askable(ctx, vector)
        except NotTested as why:
            outside.append((vector, why))
            continue
        runnable.append(vector)
    batch = PIPELINE_ROUNDS if Capability.PIPELINE in ctx.capabilities else 1
    causes: dict[tuple[str, str], dict[str, Any]] = {}
    failed = 0
    for start in range(0, len(runnable), batch):
        chunk = runnable[start : start + batch]
        played = play_rounds(ctx, [_stacked(v) for v in chunk])
        for vector, answer in zip(chunk, played, strict=True):
            found = _judge(ctx, vector, answer)
            if found is None:
                continue
            failed += 1
            cause = causes.setdefault(found["cause"], {**found, "count": 0})
            cause["count"] += 1
    findings = [_finding(ctx, cause, reproduce) for cause in causes.values()]
    share = {
        "vectors": len(vectors),
        "ran": len(runnable),
        "failed": failed,
        "not_tested": len(outside),
        "failing": [
            {
                "vector": f.evidence["vector"],
                "message": f.message,
                "expected": f.expected,
                "actual": f.actual,
                "reproduce": f.reproduce,
            }
            for f in findings[:REPORTED]
        ],
        "seconds": time.perf_counter() - started,
    }
    # Not raised: the causes found stand as failures of their clauses all the same.
    untested = (
        Untested(
            reason=f"{len(outside)} of {len(vectors)} corpus vectors cannot be asked of "
            f"this game (first: {outside[0][1]})",
            needs=outside[0][1].needs,
        )
        if outside
        else None
    )
    return Outcome(findings=findings, untested=untested, share=share)


def _judge(ctx: Context, vector: Vector, answer: Played) -> dict[str, Any] | None:
    """A failing vector's cause (by the decision table of docs/differential.md), or None."""
    if answer.refused is not None:
        op, error = answer.refused
        return {
            "cause": ("refused", op),
            "vector": vector,
            "message": f"{op} was refused with {error.code}: {error.message}",
            "expected": "an ok reply",
            "actual": {"error": {"code": error.code, "message": error.message}},
        }
    problems, expected, actual = compare_settlement(vector, answer.result)
    if not problems:
        return None
    plays = {s.seat: SeatPlay(s.seat, s.ante, s.aa_bonus, s.action) for s in vector.seats}
    found = disagreements(settle(ctx.profile, vector.deal, plays), answer.result)
    board = answer.result.get("board") != expected["board"]
    cause = (
        (found[0].kind, found[0].detail)
        if found and not board
        else (("deal", "board other than the stacked one") if board else ("result-shape", "seats"))
    )
    return {
        "cause": cause,
        "vector": vector,
        "message": "; ".join(problems),
        "expected": expected,
        "actual": actual,
    }


def _finding(ctx: Context, cause: dict[str, Any], reproduce: Callable[[Vector], str]) -> Finding:
    """A cause as a failure of the clause the decision table names (a refusal: this
    item's own clause), with its first vector and the command that replays it."""
    kind, detail = cause["cause"]
    vector: Vector = cause["vector"]
    clause = ctx.clause if kind == "refused" else ctx.fault_owners.get(kind, ctx.clause)
    slug = re.sub(r"[^a-z0-9]+", "-", f"{kind} {detail}".lower()).strip("-")
    return Finding(
        clause=clause,
        item=f"{clause}/corpus:{slug}",
        kind=kind,
        detail=detail,
        count=cause["count"],
        message=(
            f"{kind} ({detail}): {cause['count']} corpus vector(s) settled otherwise than "
            f"the rules; first {vector.id}: {cause['message']}"
        ),
        expected=cause["expected"],
        actual=cause["actual"],
        evidence={"vector": vector.id, "file": str(vector.path), "line": vector.line},
        reproduce=reproduce(vector),
    )


def _stacked(vector: Vector) -> Stacked:
    return Stacked(
        [
            {"seat": s.seat, "ante": s.ante, **({"aa_bonus": s.aa_bonus} if s.aa_bonus else {})}
            for s in vector.seats
        ],
        vector.stacked_cards(),
        [(s.seat, s.action.value) for s in sorted(vector.seats, key=lambda s: s.seat)],
    )
