"""The summary `chcert certify` prints when a run is over: the verdict, the counts, what
failed with its reproduce command, what was not tested and how to close it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.outcomes import Status

SHOWN = 10  # failures and gaps printed on screen; results.json and the PDF hold them all


def print_summary(
    results: dict[str, Any], results_path: Path, pdf: Path, junit: Path, seconds: float
) -> None:
    clauses = results.get("clauses", [])
    vectors = results.get("vectors", {})
    count = {s.value: [c["id"] for c in clauses if c["status"] == s] for s in Status}
    print()
    print(f"VERDICT: {results['verdict']}  ({seconds:.1f} s)")
    print(
        f"  implementation: {results.get('implementation_verdict', '?')}   "
        f"published figures: {results.get('publication_verdict', '?')}"
    )
    print(
        f"  clauses: {len(clauses)} - {len(count['pass'])} passed, {len(count['fail'])} failed, "
        f"{len(count['not_tested'])} not tested, {len(count['attested'])} attested"
    )
    print(
        f"  vectors: {vectors.get('total', 0)} - {vectors.get('passed', 0)} passed, "
        f"{vectors.get('failed', 0)} failed, {vectors.get('errors', 0)} errors, "
        f"{vectors.get('not_tested', 0)} not tested"
    )
    print(f"  {_samples_line(results)}")
    plan = (results.get("manifest") or {}).get("plan")
    if plan:
        from harness.plan import plan_line

        print(f"  {plan_line(plan)}")
    if count["fail"]:
        print(f"  failed clauses: {', '.join(count['fail'])}")
    for reason in results.get("incomplete_reasons", []):
        print(f"  incomplete: {reason}")
    gaps = results.get("gaps", [])
    for gap in gaps[:SHOWN]:
        print(f"  not tested: {gap['clause']} - to close: {' '.join(gap['to_close'])}")
    if len(gaps) > SHOWN:
        print(f"  ... and {len(gaps) - SHOWN} more clauses not tested (see the report)")
    failures = results.get("failures", [])
    for f in failures[:SHOWN]:
        print(f"  FAIL [{f['kind']}] {f.get('clause') or '-'} {f.get('item')}: {f['message']}")
        if f.get("reproduce"):
            print(f"       reproduce: {f['reproduce']}")
        if f.get("repro"):
            print(f"       repro vector: {results_path.parent / f['repro']}")
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


def _samples_line(results: dict[str, Any]) -> str:
    """The samples the verdict rests on, and the seed that drew them, on one line."""
    evidence = results.get("evidence") or {}
    shown = [
        f"{s['size']:,}/{s['minimum']:,} {s['name'].replace('_', ' ')}"
        + ("" if s["judged"] else " (not run)")
        for s in evidence.get("samples", [])
    ]
    source = (evidence.get("minimums") or {}).get("source", "not recorded")
    seed = (results.get("manifest") or {}).get("seed", "?")
    return f"samples (run/minimum): {', '.join(shown) or 'none'} (minimums: {source}); seed {seed}"


def _stderr_shown(results: dict[str, Any], lines: int = 20) -> list[str]:
    """The last lines of the game's stderr, when it exited or misbehaved."""
    text = results.get("implementation_stderr") or next(
        (
            f["evidence"]["stderr_tail"]
            for f in results.get("failures", [])
            if isinstance(f.get("evidence"), dict) and f["evidence"].get("stderr_tail")
        ),
        "",
    )
    return str(text).rstrip().splitlines()[-lines:]
