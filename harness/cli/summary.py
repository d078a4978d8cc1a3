"""The summary `chcert certify` prints when a run is over: the verdict, the counts, what
failed with its reproduce command, what was not tested and how to close it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.results.model import ItemKind, Results
from harness.results.outcomes import Status

SHOWN = 10  # failures and gaps printed on screen; results.json and the PDF hold them all


def print_summary(
    results: Results | Mapping[str, Any],
    results_path: Path,
    pdf: Path,
    junit: Path,
    seconds: float,
) -> None:
    """Print the summary of one run's results (a parsed results.json is read first)."""
    # Imported here: the report's package and the plan's schemas are heavy, and `chcert
    # --help` imports this module (tests/test_architecture.py).
    from harness.report.words import (
        close_text,
        plan_line,
        reason_text,
        table_summary,
        variation_summary,
    )

    if not isinstance(results, Results):
        results = Results.from_json(results)
    clauses, v = results.clauses, results.vectors
    count = {s: [c.id for c in clauses if c.status is s] for s in Status}
    print()
    print(f"VERDICT: {results.verdict}  ({seconds:.1f} s)")
    print(
        f"  implementation: {results.implementation_verdict}   "
        f"published figures: {results.publication_verdict}"
    )
    print(
        f"  clauses: {len(clauses)} - {len(count[Status.PASS])} passed, "
        f"{len(count[Status.FAIL])} failed, {len(count[Status.NOT_TESTED])} not tested, "
        f"{len(count[Status.ATTESTED])} attested"
    )
    print(
        f"  vectors: {v.total} - {v.passed} passed, {v.failed} failed, {v.errors} errors, "
        f"{v.not_tested} not tested"
    )
    ran = [i for c in clauses for i in c.items if i.kind not in (ItemKind.CLAIM, ItemKind.MANUAL)]
    items = {s: sum(i.status is s for i in ran) for s in Status}
    print(  # the items pytest runs, and each cause found: its counts are these
        f"  items: {len(ran)} - {items[Status.PASS]} passed, {items[Status.FAIL]} failed, "
        f"{items[Status.ERROR]} errors, {items[Status.NOT_TESTED]} not tested"
    )
    print(f"  {_samples_line(results)}")
    for line in (variation_summary(results.profile), table_summary(results.table)):
        if line:
            print(f"  {line}")
    if results.manifest and results.manifest.plan:
        print(f"  {plan_line(results.manifest.plan)}")
    if count[Status.FAIL]:
        print(f"  failed clauses: {', '.join(count[Status.FAIL])}")
    for reason in results.incomplete_reasons:
        print(f"  incomplete: {reason_text(reason)}")
    gaps = results.gaps
    for gap in gaps[:SHOWN]:
        print(f"  not tested: {gap.clause} - to close: {close_text(gap.to_close)}")
    if len(gaps) > SHOWN:
        print(f"  ... and {len(gaps) - SHOWN} more clauses not tested (see the report)")
    failures = results.failures
    for f in failures[:SHOWN]:
        print(f"  FAIL [{f.kind}] {f.clause or '-'} {f.item}: {f.message}")
        if f.reproduce:
            print(f"       reproduce: {f.reproduce}")
        if f.repro:
            print(f"       repro vector: {results_path.parent / f.repro}")
    if len(failures) > SHOWN:
        print(f"  ... and {len(failures) - SHOWN} more failures (see the report)")
    stderr = _stderr_shown(results)
    if stderr:
        print("  the game's stderr (last lines):")
        for line in stderr:
            print(f"    | {line}")
    print(f"  results: {results_path}")
    print(f"  junit:   {junit}")
    print(f"  report:  {pdf}")


def _samples_line(results: Results) -> str:
    """The samples the verdict rests on, and the seed that drew them, on one line."""
    evidence = results.evidence
    shown = [
        f"{s.size:,}/{s.minimum:,} {s.name.replace('_', ' ')}" + ("" if s.judged else " (not run)")
        for s in (evidence.samples if evidence else [])
    ]
    source = evidence.minimums.source if evidence else "not recorded"
    seed = results.manifest.seed if results.manifest else "?"
    return f"samples (run/minimum): {', '.join(shown) or 'none'} (minimums: {source}); seed {seed}"


def _stderr_shown(results: Results, lines: int = 20) -> list[str]:
    """The last lines of the game's stderr, when it exited or misbehaved."""
    text = results.implementation_stderr or next(
        (f.evidence["stderr_tail"] for f in results.failures if f.evidence.get("stderr_tail")),
        "",
    )
    return str(text).rstrip().splitlines()[-lines:]
