"""The verdict, decided in one place from a run's records (docs/verdict.md).

`decide` reads the records of results.json: the clause rows, the failures, the
reasons the run is incomplete, the selection, the vector counts, the sections and
the evidence. The run calls it to set the verdicts of the file it writes
(harness/results/build.py); the report calls it on a file it is given, and a file whose
recorded verdict is not the one its own records decide is drawn NOT VALID
(harness/report/__init__.py). So no one can hand-edit a FAIL into a PASS, and the
run and the report can never judge by two sets of rules.

Two verdicts come out: the implementation's (clauses verified by vectors and checks,
hello, the required capabilities) and the publication's (figures claimed by the
rules source or published by the game); the run's is the worse of the two. A PASS
needs every clause passed or attested, nothing incomplete, no selection, every
section behind a passed clause passed, and samples at their minimums.
"""

from __future__ import annotations

from harness.results import evidence
from harness.results.model import (
    ClauseKind,
    CorpusSection,
    DifferentialSection,
    FailureKind,
    ReasonCode,
    Results,
    RngSection,
    Simulation,
)
from harness.results.outcomes import Status, Verdict, clause_status, verdict_of, worse

# The reasons that leave the publication's verdict incomplete; any other, the game's.
PUBLICATION_REASONS = frozenset(
    {ReasonCode.MATH_FAILED, ReasonCode.FIGURES_NOT_CHECKED, ReasonCode.NO_HELLO}
)


class Decision:
    """The verdicts a file's records decide, and, when they keep it from a PASS or make
    it a FAIL, the first record that does (`why`, in the report's words)."""

    __slots__ = ("implementation", "publication", "verdict", "why")

    def __init__(self, implementation: Verdict, publication: Verdict, why: str = "") -> None:
        self.implementation = implementation
        self.publication = publication
        self.verdict = worse(implementation, publication)
        self.why = why


def decide(results: Results) -> Decision:
    """The verdicts of a run from its records (the module's docstring)."""
    failed = [c.id for c in results.clauses if c.status is Status.FAIL]
    failed += [f.item for f in results.failures]
    implementation_failed = any(
        f.kind is FailureKind.IMPLEMENTATION for f in results.failures
    ) or any(
        c.status is Status.FAIL and c.kind is ClauseKind.IMPLEMENTATION for c in results.clauses
    )
    publication_failed = any(f.kind is FailureKind.PUBLICATION for f in results.failures) or any(
        c.status is Status.FAIL and c.kind is ClauseKind.PUBLICATION for c in results.clauses
    )
    codes = [r.code for r in results.incomplete_reasons]
    implementation = verdict_of(
        implementation_failed, any(c not in PUBLICATION_REASONS for c in codes)
    )
    publication = verdict_of(publication_failed, any(c in PUBLICATION_REASONS for c in codes))
    if failed:
        return Decision(implementation, publication, f"{', '.join(sorted(set(failed))[:5])} failed")
    if implementation is not Verdict.PASS or publication is not Verdict.PASS:
        return Decision(implementation, publication, "the run records reasons it is incomplete")
    why = _open(results)
    if why:
        return Decision(Verdict.INCOMPLETE, publication, why)
    return Decision(implementation, publication)


def _open(results: Results) -> str:
    """What in records with no failure and no reason still keeps them from a PASS: a
    clause neither passed nor attested, a selection, an item of a passed clause that did
    not pass, failed vectors, a section behind a passed clause that did not pass, a
    sample below its minimum (docs/verdict.md); "" for none."""
    closed = (Status.PASS, Status.ATTESTED)
    still = [c.id for c in results.clauses if c.status not in closed]
    if still or not results.clauses:
        what = ", ".join(still[:5]) if still else "no clause"
        return f"{what} passed neither tested nor attested"
    if results.selection is not None:
        return "the run was a selection, which never certifies"
    if results.gaps:
        return "the file lists clauses not tested (gaps)"
    checks: set[str] = set()  # the checks behind a passed clause
    for c in results.clauses:
        if c.status is not Status.PASS:
            continue
        if not c.items:
            return f"clause {c.id} passed on no item"
        if clause_status(i.status for i in c.items) is not Status.PASS:
            item = next(i for i in c.items if i.status is not Status.PASS)
            return f"{item.name} of passed clause {c.id} is {item.status}"
        checks.update(evidence.check_of(i.name) for i in c.items)
    vectors = results.vectors
    if vectors.failed > 0 or vectors.errors > 0:
        return f"{vectors.failed} vectors failed, {vectors.errors} erred"
    for check, where, section in _sections(results):
        if section is None:
            if check in checks:
                return f"its {where} section is missing"
            continue
        if section.status is Status.FAIL or getattr(section, "passed", None) is False:
            return f"its {where} section failed"
        if check in checks and section.status is not Status.PASS:
            return f"its {where} section is {section.status} behind a passed clause"
    return _short_evidence(results, checks)


def _sections(
    results: Results,
) -> list[tuple[str, str, RngSection | Simulation | DifferentialSection | CorpusSection | None]]:
    """(the check in clause items, where results.json has it, the section) of each
    section a check fills: the sampled checks' and the generated corpus's."""
    sampled = evidence.sections_of(results)
    where = {"rng": "rng", "simulation": "math.simulation", "differential": "differential"}
    found: list[
        tuple[str, str, RngSection | Simulation | DifferentialSection | CorpusSection | None]
    ] = [(s.check, where[s.section], sampled[s.section]) for s in evidence.SAMPLED]
    return [*found, ("corpus", "corpus", results.corpus)]


def _short_evidence(results: Results, checks: set[str]) -> str:
    """A PASS rests on samples at their minimums (docs/verdict.md#evidence): those its
    evidence section records (held to the floors, and to chcert's defaults unless a run
    plan the laboratory named set them), or chcert's defaults for a file that records
    none; each recomputed from the sections, and each as the section itself says it."""
    section = results.evidence
    if section is None and results.schema_version >= 4:
        return "the file records no evidence section"
    minimums = section.minimums if section is not None else evidence.defaults()
    sized = {name: getattr(minimums, name) for name in evidence.SIZED}
    problems = evidence.policy_problems(sized, evidence.floors())
    if problems:
        key, why = problems[0]
        return f"its minimum {key} {why}"
    defaults = evidence.defaults()
    lowered = [name for name in evidence.SIZED if sized[name] < getattr(defaults, name)]
    if lowered and "run plan" not in minimums.source:
        return (
            f"its minimum {lowered[0]} is below chcert's default, which only a run plan the "
            "laboratory names may lower"
        )
    for sample in evidence.samples(evidence.sections_of(results), minimums):
        if not sample.met and evidence.SIZED[sample.name].check in checks:
            return evidence.shortfall(sample) or ""
    for entry in section.samples if section is not None else []:
        if (
            entry.name in evidence.SIZED
            and not entry.met
            and evidence.SIZED[entry.name].check in checks
        ):
            return f"its evidence says {entry.name} fell short of its minimum"
    return ""
