"""audit.pdf: what an audit found, for an operator's compliance file (docs/audit.md).

Drawn from audit.json's records alone, with the certification report's styles and its
escaping of every string a log may carry (harness/report/style.py): the verdict and the
rows first, then each check, each finding with its first rows, each statistical check's
tests, and the return bands.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer
from reportlab.platypus.flowables import Flowable

from harness.atomic import atomic_path
from harness.audit.model import Audit, AuditCheck, Band, CheckResult, Finding
from harness.report.style import (
    BODY,
    CELL_LIMIT,
    H1,
    H2,
    LEAD,
    SMALL,
    VERDICT_COLOURS,
    colour_status,
    esc,
    grid,
    para,
)

MARGIN = 20 * mm


def _verdict(result: Audit) -> Paragraph:
    colour = VERDICT_COLOURS[result.verdict.value].hexval()[2:]
    return Paragraph(f'Verdict: <font color="#{colour}"><b>{result.verdict.value}</b></font>', H2)


def _finding_rows(findings: list[Finding]) -> list[list[object]]:
    rows: list[list[object]] = [["check", "kind", "clause", "detail", "rows", "first example"]]
    for f in findings:
        first = f.examples[0] if f.examples else None
        where = f"{first.file} row {first.row}" if first else ""
        rows.append(
            [
                para(f.check.value, SMALL),
                para(f.kind, SMALL),
                para(f.clause or "", SMALL),
                para(f.detail, SMALL),
                para(f"{f.count:,}", SMALL),
                para(where, SMALL),
            ]
        )
    return rows


def _examples(finding: Finding) -> list[Flowable]:
    title = f"<b>{esc(finding.kind)}</b> ({esc(finding.detail)}): {finding.count:,} row(s)"
    out: list[Flowable] = [Paragraph(title, BODY)]
    for e in finding.examples:
        line = f"{esc(e.file)} row {e.row}"
        if e.table or e.round:
            line += f", table {esc(e.table)} round {esc(e.round)}"
        if e.seat is not None:
            line += f", seat {e.seat}"
        line += f": {esc(e.detail)}"
        if e.expected is not None or e.actual is not None:
            rules, log = esc(e.expected, CELL_LIMIT), esc(e.actual, CELL_LIMIT)
            line += f"<br/>rules: {rules}<br/>log: {log}"
        out.append(Paragraph(line, SMALL))
    if finding.reproduce:
        out.append(para(f"Replays it: {finding.reproduce}", SMALL))
    return out


TESTS_TITLE = {AuditCheck.CARDS: "Card tests", AuditCheck.RETURN: "Return tests",
               AuditCheck.DRIFT: "Drift test", AuditCheck.LEAK: "Leak tests"}  # fmt: skip
STATISTIC = {AuditCheck.DRIFT: "CUSUM"}  # a test without df reads as z but these


def _tests(check: CheckResult) -> list[Flowable]:
    """A statistical check's tests: statistic, p-values and the effect each detects."""
    family = "One test" if len(check.tests) == 1 else "One family"
    rows = [["test", "statistic", "p", "p (adjusted)", "detects"]] + [
        [
            para(t.name, SMALL),
            para(
                f"chi-square {t.statistic:.1f} ({t.df} df)"
                if t.df
                else f"{STATISTIC.get(check.name, 'z')} {t.statistic:.2f}",
                SMALL,
            ),
            f"{t.p_value:.3g}",
            f"{t.p_adjusted:.3g}",
            para(t.detects, SMALL),
        ]
        for t in check.tests
    ]
    return [
        Paragraph(TESTS_TITLE.get(check.name, check.name.value), H2),
        para(
            f"{family}, alpha {check.alpha}, correction: {check.correction}; each test "
            f"detects the effect it names with {(check.power or 0):.0%} power at the size "
            "read.",
            BODY,
        ),
        grid(rows, [46 * mm, 30 * mm, 16 * mm, 22 * mm, 56 * mm]),
    ]


def _bands(bands: list[Band]) -> list[Flowable]:
    """Each group's return beside the return the cards its seats saw and their decisions
    lead one to expect, with its 95% and 99% bands."""
    rows = [["group", "value", "seats", "return", "expected", "95% band", "99% band", ""]] + [
        [
            b.group,
            para(b.value, SMALL),
            f"{b.seats:,}",
            f"{b.rtp:.2%}",
            f"{b.expected_rtp:.2%}",
            f"{b.band_95[0]:.2%} to {b.band_95[1]:.2%}",
            f"{b.band_99[0]:.2%} to {b.band_99[1]:.2%}",
            f"outside {b.outside}" if b.outside else "",
        ]
        for b in bands
    ]
    widths = [15 * mm, 26 * mm, 15 * mm, 16 * mm, 16 * mm, 30 * mm, 30 * mm, 22 * mm]
    return [
        Paragraph("Return bands", H2),
        para(
            "The return of each stake level, build, channel and currency (returned over "
            "staked, as the log says) against its exact expectation given the cards each "
            "seat saw and its decision; a round's seats counted as if they moved together, "
            "so the bands are wide rather than narrow.",
            BODY,
        ),
        grid(rows, widths),
    ]


def story(result: Audit) -> list[Flowable]:
    rows = result.rows
    flow: list[Flowable] = [
        Paragraph("chcert production audit", H1),
        _verdict(result),
        para(
            f"Profile {result.profile} (SHA-256 {result.profile_sha256[:16]}...); "
            f"{len(result.files)} log file(s); {rows.read:,} rows read ({rows.malformed:,} "
            f"malformed), {rows.judged:,} re-settled, {rows.rounds:,} rounds; from "
            f"{result.period.first or '-'} to {result.period.last or '-'}.",
            LEAD,
        ),
        *(para(f"- {r}") for r in result.reasons),
        Spacer(1, 3 * mm),
        Paragraph("Checks", H2),
    ]
    checks = [["check", "status", "rows", "in findings", "note"]] + [
        [c.name.value, c.status.value, f"{c.rows:,}", f"{c.findings:,}", para(c.reason, SMALL)]
        for c in result.checks
    ]
    flow.append(
        colour_status(
            grid(checks, [25 * mm, 22 * mm, 25 * mm, 22 * mm, 76 * mm]),
            1,
            [c.status.value for c in result.checks],
        )
    )
    if result.findings:
        flow += [Spacer(1, 3 * mm), Paragraph("Findings", H2)]
        widths = [18 * mm, 28 * mm, 22 * mm, 52 * mm, 16 * mm, 34 * mm]
        flow.append(grid(_finding_rows(result.findings), widths))
        for finding in result.findings:
            flow += [Spacer(1, 2 * mm), *_examples(finding)]
    for check in (c for c in result.checks if c.tests):
        flow += [Spacer(1, 3 * mm), *_tests(check)]
    if result.bands:
        flow += [Spacer(1, 3 * mm), *_bands(result.bands)]
    return flow


def write_pdf(result: Audit, path: Path) -> None:
    with atomic_path(path) as temporary:
        doc = SimpleDocTemplate(
            str(temporary),
            pagesize=A4,
            leftMargin=MARGIN,
            rightMargin=MARGIN,
            topMargin=MARGIN,
            bottomMargin=MARGIN,
            title="chcert production audit",
            author=result.tool,
        )
        doc.build(story(result))
