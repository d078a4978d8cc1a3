"""Replaying the generated corpus (vectors/generated/, docs/corpus.md), pipelined.

The corpus holds thousands of vectors per profile; one item per clause replays
that clause's share, with requests pipelined (harness/checks/replies.py
`play_rounds`), so that every certification runs all of them. Failing vectors are
grouped by cause and each cause fails the clause the decision table names
(docs/differential.md), like the differential's, with the command that replays its
first vector alone.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from harness.checks.judgement import by_cause, judge_played, owner
from harness.checks.registry import Context, NotTested
from harness.checks.replies import Played, play_rounds
from harness.checks.settlement import AtTable, at_table, compare_settlement
from harness.differential.attribution import slug
from harness.model import Finding, Outcome, Untested
from harness.protocol import Capability
from harness.table import stakes_kind
from harness.vectors import Vector

PIPELINE_ROUNDS = 32  # rounds in flight for a game with capability pipeline
REPORTED = 10  # failing vectors listed in the evidence; all are counted


def replay_corpus(
    ctx: Context, vectors: list[Vector], reproduce: Callable[[Vector], str]
) -> Outcome:
    """Replay generated vectors; each cause of failure is a finding of the clause the
    decision table names (the first REPORTED listed in the share)."""
    if Capability.INJECT not in ctx.capabilities:
        raise NotTested(
            "the corpus stacks the deck: implementation lacks capability inject",
            needs="capability inject",
        )
    started = time.perf_counter()
    runnable: list[AtTable] = []
    outside = []
    for vector in vectors:
        try:
            runnable.append(at_table(ctx, vector))
        except NotTested as why:
            outside.append((vector, why))
    batch = PIPELINE_ROUNDS if Capability.PIPELINE in ctx.capabilities else 1
    causes: dict[tuple[str, str], dict[str, Any]] = {}
    failed = 0
    for start in range(0, len(runnable), batch):
        chunk = runnable[start : start + batch]
        played = play_rounds(ctx, [at.stacked() for at in chunk])
        for at, answer in zip(chunk, played, strict=True):
            found = _judge(ctx, at, answer)
            failed += bool(found)
            for one in found:
                cause = causes.setdefault(one["cause"], {**one, "count": 0})
                cause["count"] += 1
    findings = [_finding(ctx, cause, reproduce) for cause in causes.values()]
    share = {
        "vectors": len(vectors),
        "ran": len(runnable),
        "failed": failed,
        "not_tested": len(outside),
        "stakes": dict(Counter(stakes_kind(at.how).value for at in runnable)),
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


def _judge(ctx: Context, at: AtTable, answer: Played) -> list[dict[str, Any]]:
    """A vector's causes of failure, one per (kind, detail), by the decision table of
    docs/differential.md (a legal round refused is one); [] when it settled right."""
    vector = at.vector
    found = judge_played(ctx, vector.deal, at.plays, vector.stacked_cards(), answer)
    if not found:
        return []
    if answer.refused is not None:
        op, error = answer.refused
        problems = [f"{op} was refused with {error.code}: {error.message}"]
        expected: Any = "an ok reply"
        actual: Any = {"error": {"code": error.code, "message": error.message}}
    else:
        problems, expected, actual = compare_settlement(ctx, at, answer.result)
    return [
        {
            "cause": cause,
            "vector": vector,
            "played": at.evidence,
            "message": "; ".join(problems),
            "expected": expected,
            "actual": actual,
        }
        for cause in by_cause(found)
    ]


def _finding(ctx: Context, cause: dict[str, Any], reproduce: Callable[[Vector], str]) -> Finding:
    """A cause as a failure of the clause the decision table names, with its first vector
    and the command that replays it."""
    kind, detail = cause["cause"]
    vector: Vector = cause["vector"]
    clause = owner(ctx, kind)
    return Finding(
        clause=clause,
        item=f"{clause}/corpus:{slug(kind, detail)}",
        kind=kind,
        detail=detail,
        count=cause["count"],
        message=(
            f"{kind} ({detail}): {cause['count']} corpus vector(s) settled otherwise than "
            f"the rules; first {vector.id}: {cause['message']}"
        ),
        expected=cause["expected"],
        actual=cause["actual"],
        evidence={
            "vector": vector.id,
            "file": str(vector.path),
            "line": vector.line,
            **cause["played"],
        },
        reproduce=reproduce(vector),
    )
