"""The certification report: a PDF rendered from results.json alone.

The report never runs tests: it reads the records of a run (`Results`,
harness/results/model.py), so an auditor can re-render it from the archived JSON
(`Results.from_json` reads it, and the files of earlier versions too). Every
section a stub written when the runner stopped early lacks is drawn as not
recorded.

Whatever the file holds, `render` writes a PDF and does not raise
(docs/robustness.md). A file the model cannot read gets a page saying why. Every
string is escaped, its control characters shown as `\\xNN`, and cut to a stated
length with its full size said (TEXT_LIMIT, or CELL_LIMIT in a table cell); the
verdict is checked against the clause statuses, and a contradiction is shown as
such; and should the full report still fail to lay out, a plainer one is written
in its place, and failing that a page with the verdict and the error.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.platypus import PageBreak, Paragraph, Preformatted, SimpleDocTemplate
from reportlab.platypus.flowables import Flowable

from harness.report.certificate import (
    certificate,
    certificate_word,
    contradiction,
    hello_of,
    verdict_banner,
    verdict_lines,
)
from harness.report.failures import cause_block, cause_title, group_failures
from harness.report.layout import ReportDocument, build, contents, heading
from harness.report.sections import (
    MAX_CAUSES_SHOWN,
    attestations_section,
    differential_section,
    headline,
    manifest_section,
    math_section,
    out_of_scope_section,
    protocol_checks_section,
    rng_section,
    summary_section,
    traceability_section,
)
from harness.report.style import (
    H1,
    H2,
    MONO,
    MONO_LINE,
    NOT_VALID,
    VERDICT_COLOURS,
    esc,
    para,
    text_shown,
)
from harness.results.files import json_bytes
from harness.results.model import Failure, Results
from harness.results.outcomes import Verdict, worse
from harness.results.verdict import decide
from harness.signing.attachment import attach_results, results_digest


def verdict_problem(results: Results | Mapping[str, Any]) -> str | None:
    """Why the verdict a results file records cannot stand, or None.

    It must agree with what the file itself records (docs/verdict.md): the worse of its
    two parts; a failed clause or any failure makes it FAIL; PASS needs every clause
    passed or attested and nothing incomplete; FAIL needs a failure. A file the model
    cannot read (a verdict outside the closed set among them) bears out no verdict.
    """
    try:
        typed = _typed(results)
    except Exception as exc:
        return f"the file cannot be read ({_error(exc)})"
    return _contradiction(typed)


def _typed(results: Results | Mapping[str, Any]) -> Results:
    """The records of a run, from a parsed results.json where a caller holds one."""
    return results if isinstance(results, Results) else Results.from_json(results)


def _error(exc: BaseException) -> str:
    """An error as the report shows it: its type and its words, cut."""
    return f"{type(exc).__name__}: {text_shown(exc, 500)}"


def _contradiction(results: Results) -> str | None:
    """`verdict_problem` of records the model has read: the verdict they record against
    the one they decide (harness/results/verdict.py)."""
    verdict, parts = results.verdict, (results.implementation_verdict, results.publication_verdict)
    if verdict is not worse(*parts):
        both = " and ".join(parts)
        return f"the verdict is {verdict}, not the worse of its two parts ({both})"
    decided = decide(results)
    if verdict is decided.verdict:
        return None
    if verdict is Verdict.FAIL:
        return "the verdict is FAIL, yet no clause and no item failed"
    if decided.verdict is Verdict.FAIL or verdict is Verdict.PASS:
        return f"the verdict is {verdict}, yet {text_shown(decided.why, 200)}"
    return None  # INCOMPLETE where the records would bear out a PASS: it claims less


def render(
    results: Results | Mapping[str, Any], path: str | Path, results_bytes: bytes | None = None
) -> Path:
    """Write the certification PDF for one run's results, with results.json attached;
    never raises (see the top). `results_bytes` is the file as archived, whose SHA-256
    the certificate prints; without it, the bytes chcert writes for `results`. Parsed
    results.json (a mapping) is read with `Results.from_json`; a file it cannot read
    gets a page saying why."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = results_bytes if results_bytes is not None else _bytes_of(results)
    try:
        typed = _typed(results)
    except Exception as exc:  # a file the model cannot read: no verdict it bears out
        _build_minimal(NOT_VALID, path, _error(exc), traceback.format_exc(limit=3))
        return path
    try:
        _build(typed, path, data, attached=True)
        try:
            attach_results(path, data)
        except Exception:  # the page must not say it is attached: drawn again, saying so
            _build(typed, path, data, attached=False)
    except Exception as exc:  # anything the file holds: a plainer PDF, saying why
        failure = _error(exc)
        try:
            _build_plain(typed, path, failure)
        except Exception:
            verdict = str(typed.verdict)
            _build_minimal(verdict, path, failure, traceback.format_exc(limit=3))
    return path


def _bytes_of(results: Results | Mapping[str, Any]) -> bytes:
    """The bytes chcert writes for these results; for a value JSON cannot hold, what the
    report can say of it."""
    try:
        return json_bytes(results.to_json() if isinstance(results, Results) else results)
    except Exception:
        return json.dumps(results, default=str).encode("utf-8")


def report_id(results: Results, results_sha256: str) -> str:
    """The id the run gave its report; an archive from before ids, one from its hash."""
    given = results.manifest.report_id if results.manifest is not None else None
    return text_shown(given, 60) if given else f"CHC-{results_sha256[:12].upper()}"


def _build_plain(results: Results, path: Path, failure: str) -> None:
    """The report's headline and summary only, each string cut to a cell's length."""
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="Casino Hold'em certification report")
    story: list[Flowable] = [
        Paragraph("Casino Hold'em certification report", H1),
        *_banner(results),
        para(
            f"The full report could not be laid out ({failure}); this plainer one shows the "
            "verdicts and the summary. results.json holds everything."
        ),
        *verdict_lines(results),
        *summary_section(results),
    ]
    doc.build(story)


def _build_minimal(verdict: str, path: Path, failure: str, trace: str) -> None:
    """A page with the verdict and why nothing more could be drawn."""
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="Casino Hold'em certification report")
    doc.build(
        [
            Paragraph("Casino Hold'em certification report", H1),
            Paragraph(f"VERDICT: {esc(verdict, 80)}", H2),
            para(f"The report could not be drawn from this results file: {failure}"),
            Preformatted(text_shown(trace, 3000), MONO, maxLineLength=MONO_LINE),
        ]
    )


def _banner(results: Results) -> list[Flowable]:
    """The verdict, only when the file bears it out."""
    problem = verdict_problem(results)
    if problem is None:
        return [verdict_banner(str(results.verdict))]
    return [verdict_banner(NOT_VALID), contradiction(problem)]


def _failures(failures: list[Failure]) -> list[Flowable]:
    """Failures grouped by cause, a bookmark each (harness/report/failures.py)."""
    groups = group_failures(failures)
    flow: list[Flowable] = [
        heading(f"Failures ({len(failures)}, {len(groups)} causes)"),
        para(
            "Failures alike but for their cards and numbers are shown once, with a worked "
            "example and the command that reproduces it; results.json holds each in full."
        ),
    ]
    for group in groups[:MAX_CAUSES_SHOWN]:
        flow += cause_block(group, heading(cause_title(group), 1))
    if len(groups) > MAX_CAUSES_SHOWN:
        flow.append(para(f"... and {len(groups) - MAX_CAUSES_SHOWN} more causes in results.json"))
    return flow


def _build(results: Results, path: Path, data: bytes, attached: bool) -> None:
    digest = results_digest(data)
    problem = verdict_problem(results)
    verdict = str(results.verdict) if problem is None else NOT_VALID
    ident = report_id(results, digest)
    word = certificate_word(verdict)
    doc = ReportDocument(
        path,
        header=f"Casino Hold'em certification report {ident}",
        verdict=word if word == verdict else f"{word} ({verdict})",
        colour=VERDICT_COLOURS.get(verdict, colors.black),
        title=f"Casino Hold'em certification report {ident}",
        author="chcert",
        subject=f"{word}: {text_shown(hello_of(results).get('name'), 80)}",
        keywords=f"results.json sha256 {digest}",
    )
    failures = results.failures
    story: list[Flowable] = [
        *certificate(results, problem, ident, data, attached),
        PageBreak(),
        Paragraph("Contents", H1),
        contents(),
        PageBreak(),
        heading("Summary"),
        *headline(results),
        *summary_section(results),
        *traceability_section(results.clauses, results.profile),
        *attestations_section(results.attestations),
        *(_failures(failures) if failures else [heading("Failures"), para("None.")]),
        *protocol_checks_section(results.protocol),
        *differential_section(results.differential, results.corpus),
        heading("RNG and deck distribution"),
        *rng_section(results.rng),
        heading("Game mathematics"),
        *math_section(results.math, results.publication),
        *out_of_scope_section(results.out_of_scope),
        *manifest_section(results.manifest),
    ]
    build(doc, story)
