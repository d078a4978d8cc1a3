"""Replaying the generated corpus (vectors/generated/, docs/corpus.md), pipelined.

The corpus holds thousands of vectors per profile; one item per clause replays
that clause's share, with requests pipelined (harness/checks/replies.py
`play_batches`), so that every certification runs all of them. Failing vectors are
grouped by cause and each cause fails the clause the decision table names
(docs/differential.md), like the differential's, with the command that replays its
first vector alone.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, replace

from harness.checks.judgement import by_cause, owner
from harness.checks.registry import Context, NotTested, section
from harness.checks.replies import Played, play_batches
from harness.checks.settlement import AtTable, at_table, judge_answer, problems_of
from harness.differential.attribution import Disagreement, resolve_copies, slug
from harness.protocol import Capability
from harness.results.model import (
    CorpusFailing,
    CorpusSection,
    CorpusShare,
    Finding,
    Outcome,
    Shares,
    Untested,
)
from harness.results.outcomes import Status, clause_status
from harness.rules.table import stakes_kind
from harness.vectors.settlement import Vector

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
    judged = []
    # Closed on the way out, a fault included: no batch is left in flight on the connection.
    with closing(play_batches(ctx, (at.stacked() for at in runnable))) as answers:
        for at, answer in zip(runnable, answers, strict=True):
            found = judge_answer(ctx, at.vector.deal, at.plays, at.vector.stacked_cards(), answer)
            if found:
                judged.append((at, answer, found))
    # A seat that may have been settled as another seat is that when another vector shows
    # it beyond doubt (docs/differential.md, row 6).
    resolved = iter(resolve_copies([d for _, _, found in judged for d in found]))
    causes: dict[tuple[str, str], Example] = {}
    counts: Counter[tuple[str, str]] = Counter()
    for at, answer, found in judged:
        mine = [next(resolved) for _ in found]
        # A cause shown only by seats that may be copies: replayed alone, its vector
        # would show another; an example that shows it on its own replaces it.
        alone = {d.cause for d in mine if d.alternative is None}
        for one in _judge(ctx, at, answer, mine):
            one = replace(one, alone=one.cause in alone)
            if one.cause not in causes or (one.alone and not causes[one.cause].alone):
                causes[one.cause] = one
            counts[one.cause] += 1
    failed = len(judged)
    findings = [_finding(ctx, one, counts[one.cause], reproduce) for one in causes.values()]
    share = CorpusShare(
        vectors=len(vectors),
        ran=len(runnable),
        failed=failed,
        not_tested=len(outside),
        stakes=dict(Counter(stakes_kind(at.how).value for at in runnable)),
        failing=[
            CorpusFailing(
                vector=str(f.evidence["vector"]),
                message=f.message,
                expected=f.expected,
                actual=f.actual,
                reproduce=f.reproduce,
            )
            for f in findings[:REPORTED]
        ],
        seconds=time.perf_counter() - started,
    )
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


@dataclass(frozen=True)
class Example:
    """A failing vector as the worked example of one cause it shows."""

    cause: tuple[str, str]  # (kind, detail)
    vector: Vector
    played: dict[str, object]  # the stakes played (AtTable.evidence)
    message: str
    expected: object
    actual: object
    alone: bool = False  # shown by a seat that is no possible copy of another


def _judge(ctx: Context, at: AtTable, answer: Played, found: list[Disagreement]) -> list[Example]:
    """A failing vector's causes, one per (kind, detail) of its disagreements `found` by
    the decision table of docs/differential.md (a legal round refused is one)."""
    problems, expected, actual = problems_of(ctx, at, answer)
    message = "; ".join(problems)
    return [
        Example(cause, at.vector, at.evidence, message, expected, actual)
        for cause in by_cause(found)
    ]


def _finding(
    ctx: Context, example: Example, count: int, reproduce: Callable[[Vector], str]
) -> Finding:
    """A cause as a failure of the clause the decision table names, with its first vector
    and the command that replays it."""
    kind, detail = example.cause
    vector = example.vector
    clause = owner(ctx, kind)
    return Finding(
        clause=clause,
        item=f"{clause}/corpus:{slug(kind, detail)}",
        kind=kind,
        detail=detail,
        count=count,
        message=(
            f"{kind} ({detail}): {count} corpus vector(s) settled otherwise than "
            f"the rules; first {vector.id}: {example.message}"
        ),
        expected=example.expected,
        actual=example.actual,
        evidence={
            "vector": vector.id,
            "file": str(vector.path),
            "line": vector.line,
            **example.played,
        },
        reproduce=reproduce(vector),
    )


@section("corpus")
def corpus_section(shares: Shares) -> CorpusSection:
    """The generated corpus's items summed (contract 3 `corpus`, docs/corpus.md)."""
    found = [r.share for r in shares.records if isinstance(r.share, CorpusShare)]
    statuses = [r.status for r in shares.records]
    statuses += [Status.NOT_TESTED] * (len(shares.planned) - len(shares.records))
    failed = sum(f.failed for f in found)  # failures attributed to other clauses count too
    stakes: Counter[str] = Counter()
    for f in found:
        stakes.update(f.stakes)
    return CorpusSection(
        status=Status.FAIL if failed else clause_status(statuses),
        items=len(shares.planned),
        vectors=sum(f.vectors for f in found),
        ran=sum(f.ran for f in found),
        failed=failed,
        not_tested=sum(f.not_tested for f in found),
        stakes=dict(stakes),
        failing=[v for f in found for v in f.failing],
        seconds=sum(f.seconds for f in found),
    )
