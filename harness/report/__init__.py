"""The certification report: a PDF rendered from results.json alone.

The report never runs tests: it reads the results of a run (a dict or the
results.json file), so an auditor can re-render it from the archived JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    KeepTogether,
    Paragraph,
    Preformatted,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.flowables import Flowable

VERDICT_COLOURS = {
    "PASS": colors.HexColor("#1b7f3b"),
    "FAIL": colors.HexColor("#b3261e"),
    "INCOMPLETE": colors.HexColor("#b26a00"),
}
STATUS_COLOURS = {
    "pass": colors.HexColor("#d8f0de"),
    "fail": colors.HexColor("#f6d5d3"),
    "not_tested": colors.HexColor("#eeeeee"),
}
MAX_FAILURES_SHOWN = 50

_styles = getSampleStyleSheet()
_body = ParagraphStyle("body", parent=_styles["BodyText"], fontSize=8.5, leading=10.5)
_small = ParagraphStyle("small", parent=_body, fontSize=7.5, leading=9)
_mono = ParagraphStyle("mono", parent=_body, fontName="Courier", fontSize=7, leading=8.5)
_h1 = _styles["Heading1"]
_h2 = _styles["Heading2"]


def _p(text: Any, style: ParagraphStyle = _body) -> Paragraph:
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return Paragraph(escaped, style)


def _table(rows: list[list[Any]], widths: list[float], header: bool = True) -> Table:
    table = Table(rows, colWidths=widths, repeatRows=1 if header else 0)
    style = [
        ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#dde3ea")))
    table.setStyle(TableStyle(style))
    return table


def _verdict_banner(verdict: str) -> Table:
    banner = Table(
        [
            [
                Paragraph(
                    f"<b>VERDICT: {verdict}</b>",
                    ParagraphStyle(
                        "verdict", parent=_h1, textColor=colors.white, alignment=TA_CENTER
                    ),
                )
            ]
        ],
        colWidths=[170 * mm],
    )
    banner.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, -1), VERDICT_COLOURS.get(verdict, colors.black)),
                ("TOPPADDING", (0, 0), (-1, -1), 6),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
            ]
        )
    )
    return banner


def _summary(results: dict[str, Any]) -> list[Flowable]:
    impl = results.get("implementation") or {}
    profile = results.get("profile") or {}
    manifest = results.get("manifest") or {}
    vectors = results.get("vectors") or {}
    clauses = results.get("clauses") or []
    count = {s: sum(c["status"] == s for c in clauses) for s in ("pass", "fail", "not_tested")}
    rows = [
        ["Implementation", f"{impl.get('name', '?')} {impl.get('version', '')}".strip()],
        ["Adapter", results.get("adapter", "")],
        ["Profile", f"{profile.get('name', '?')}: {profile.get('title', '')}"],
        [
            "Clauses",
            f"{len(clauses)}: {count['pass']} passed, {count['fail']} failed, "
            f"{count['not_tested']} not tested",
        ],
        [
            "Vectors",
            f"{vectors.get('total', 0)}: {vectors.get('passed', 0)} passed, "
            f"{vectors.get('failed', 0)} failed, {vectors.get('errors', 0)} errors, "
            f"{vectors.get('not_tested', 0)} not tested",
        ],
        [
            "Run",
            f"{manifest.get('started', '?')} to {manifest.get('finished', '?')}, "
            f"seed {manifest.get('seed', '?')}",
        ],
    ]
    flow: list[Flowable] = [
        _table([[_p(a), _p(b)] for a, b in rows], [35 * mm, 135 * mm], header=False)
    ]
    for reason in results.get("incomplete_reasons") or []:
        flow.append(_p(f"Incomplete: {reason}"))
    return flow


def _clause_matrix(clauses: list[dict[str, Any]]) -> Table:
    rows: list[list[Any]] = [
        [_p("Clause"), _p("Title / source"), _p("Status"), _p("Vectors"), _p("Checks")]
    ]
    style: list[tuple[Any, ...]] = []
    for i, c in enumerate(clauses, start=1):
        notes = c.get("notes") or []
        if c.get("failed"):
            notes = [f"failed: {', '.join(c['failed'])}", *notes]
        rows.append(
            [
                _p(c["id"], _small),
                [
                    _p(c["title"], _small),
                    _p("; ".join(c.get("sources", [])), _small),
                    *[_p(n, _small) for n in notes],
                ],
                _p(c["status"].replace("_", " "), _small),
                _p(c.get("vectors", 0), _small),
                _p(c.get("checks", 0), _small),
            ]
        )
        style.append(("BACKGROUND", (2, i), (2, i), STATUS_COLOURS.get(c["status"], colors.white)))
    table = _table(rows, [24 * mm, 110 * mm, 16 * mm, 10 * mm, 10 * mm])
    table.setStyle(TableStyle(style))
    return table


def _failures(failures: list[dict[str, Any]]) -> list[Flowable]:
    flow: list[Flowable] = []
    for f in failures[:MAX_FAILURES_SHOWN]:
        block: list[Flowable] = [
            _p(f"{f.get('clause')} / {f.get('vector') or f.get('check')}: {f.get('message')}"),
            Preformatted(
                "expected: " + json.dumps(f.get("expected"), default=str)[:1500],
                _mono,
                maxLineLength=120,
            ),
            Preformatted(
                "actual:   " + json.dumps(f.get("actual"), default=str)[:1500],
                _mono,
                maxLineLength=120,
            ),
        ]
        if f.get("evidence"):
            block.append(
                Preformatted(
                    "evidence: " + json.dumps(f["evidence"], default=str)[:1500],
                    _mono,
                    maxLineLength=120,
                )
            )
        block += [_p(f"Reproduce: {f.get('reproduce', '')}", _small), Spacer(1, 3 * mm)]
        flow.append(KeepTogether(block))
    if len(failures) > MAX_FAILURES_SHOWN:
        flow.append(
            _p(f"... and {len(failures) - MAX_FAILURES_SHOWN} more failures in results.json")
        )
    return flow


def _rng(section: dict[str, Any]) -> list[Flowable]:
    tests = section.get("tests") or []
    if not tests:
        return [_p(f"{section.get('status', 'not_tested')}: {section.get('reason', '')}")]
    verdict = "PASS" if section.get("passed") else "FAIL"
    head = (
        f"RNG: {verdict}. {section.get('decks', 0):,} decks from the game's shuffle; family-wise "
        f"alpha {section.get('alpha')} with {section.get('correction')} correction; 'detects' is "
        f"the smallest bias found with {100 * float(section.get('power', 0.8)):.0f}% power."
    )
    rows: list[list[Any]] = [[_p(h) for h in ("Test", "Statistic", "p", "p (Holm)", "", "Detects")]]
    for t in tests:
        rows.append(
            [
                _p(t["name"], _small),
                _p(f"{t['statistic']:.2f}", _small),
                _p(f"{t['p_value']:.3g}", _small),
                _p(f"{t['p_adjusted']:.3g}", _small),
                _p("pass" if t["passed"] else "FAIL", _small),
                _p(t["detects"], _small),
            ]
        )
    die = section.get("dieharder") or {}
    if die.get("ran"):
        shown = ", ".join(f"{t['name']} {t.get('assessment')}" for t in die.get("tests", []))
        die_line = f"dieharder ran on {die.get('bytes', 0):,} bytes (informational): {shown}"
    else:
        die_line = f"dieharder did not run: {die.get('reason', 'not installed')}"
    table = _table(rows, [32 * mm, 18 * mm, 15 * mm, 15 * mm, 10 * mm, 80 * mm])
    return [_p(head), table, _p(die_line)]


def render(results: dict[str, Any], path: str | Path) -> Path:
    """Write the certification PDF for one run's results."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = SimpleDocTemplate(
        str(path),
        pagesize=A4,
        leftMargin=20 * mm,
        rightMargin=20 * mm,
        topMargin=18 * mm,
        bottomMargin=18 * mm,
        title="Casino Hold'em certification report",
        author="chcert",
    )
    verdict = results.get("verdict", "INCOMPLETE")
    story: list[Flowable] = [
        Paragraph("Casino Hold'em certification report", _h1),
        _verdict_banner(verdict),
        Spacer(1, 4 * mm),
        *_summary(results),
        Paragraph("Clause traceability", _h2),
        _clause_matrix(results.get("clauses") or []),
    ]
    failures = results.get("failures") or []
    story += [Paragraph(f"Failures ({len(failures)})", _h2)]
    story += _failures(failures) if failures else [_p("None.")]
    checks = (results.get("protocol") or {}).get("checks") or []
    if checks:
        story += [
            Paragraph("Protocol and declaration checks", _h2),
            _table(
                [[_p("Check"), _p("Clause"), _p("Status"), _p("Message")]]
                + [
                    [
                        _p(c["name"], _small),
                        _p(c["clause"], _small),
                        _p(c["status"], _small),
                        _p(c.get("message", ""), _small),
                    ]
                    for c in checks
                ],
                [35 * mm, 25 * mm, 18 * mm, 92 * mm],
            ),
        ]
    story += [Paragraph("RNG and deck distribution", _h2), *_rng(results.get("rng") or {})]
    story += [Paragraph("Game mathematics", _h2), *_math(results.get("math") or {})]
    out = results.get("out_of_scope") or []
    if out:
        story += [
            Paragraph("Source text out of scope", _h2),
            _table(
                [[_p("Source"), _p("Text"), _p("Why out of scope")]]
                + [
                    [_p(o["source"], _small), _p(o["ref"], _small), _p(o["reason"], _small)]
                    for o in out
                ],
                [30 * mm, 80 * mm, 60 * mm],
            ),
        ]
    manifest = results.get("manifest") or {}
    story += [
        Paragraph("Manifest", _h2),
        _table(
            [[_p(k, _small), _p(v, _mono)] for k, v in manifest.items()],
            [35 * mm, 135 * mm],
            header=False,
        ),
    ]
    doc.build(story)
    return path


def _math(section: dict[str, Any]) -> list[Flowable]:
    """Exact figures, claims, the optimal strategy's summary and the RTP simulation."""
    if section.get("status") != "complete":
        return [_p(f"{section.get('status', 'not_tested')}: {section.get('reason', '')}")]
    opt, always = section["optimal"], section["always_call"]
    out: list[Flowable] = [_p(f"Method: {section.get('method', '')}.")]
    figures = [
        ("house edge per ante", "house_edge"),
        ("RTP per ante", "rtp"),
        ("element of risk (per total wager)", "element_of_risk"),
        ("RTP per total wager", "rtp_per_total_wager"),
        ("raise frequency", "raise_frequency"),
    ]
    rows = [[_p("Figure"), _p("Optimal strategy"), _p("Always call")]]
    rows += [
        [_p(label), _p(f"{100 * opt[k]:.4f}%"), _p(f"{100 * always[k]:.4f}%")]
        for label, k in figures
    ]
    if section.get("aa_bonus_edge") is not None:
        rows.append(
            [_p("AA Bonus house edge"), _p(f"{100 * section['aa_bonus_edge']:.4f}%"), _p("")]
        )
    out.append(_table(rows, [70 * mm, 50 * mm, 50 * mm]))
    out.append(Spacer(1, 2 * mm))
    out.append(
        _table(
            [[_p("Outcome (optimal)"), _p("Probability")]]
            + [[_p(k.replace("_", " ")), _p(f"{v:.6f}")] for k, v in opt["outcomes"].items()]
            + [[_p("Ante row"), _p("Odds / probability / contribution")]]
            + [
                [
                    _p(r["row"]),
                    _p(f"{r['odds']} to 1 / {r['probability']:.8f} / {r['contribution']:.8f}"),
                ]
                for r in opt["rows"]
            ],
            [70 * mm, 100 * mm],
        )
    )
    claims = section.get("claims") or []
    if claims:
        out += [
            Spacer(1, 2 * mm),
            _table(
                [[_p("Claim"), _p("Claimed"), _p("Computed"), _p("Verdict"), _p("Source")]]
                + [
                    [
                        _p(c["figure"], _small),
                        _p(str(c["claimed"]), _small),
                        _p(
                            "-"
                            if c["computed"] is None
                            else f"{c['computed']:.6f} ({c.get('definition')})",
                            _small,
                        ),
                        _p(c["status"], _small),
                        _p(c["source"], _small),
                    ]
                    for c in claims
                ],
                [25 * mm, 15 * mm, 50 * mm, 25 * mm, 55 * mm],
            ),
        ]
    strategy = section.get("strategy") or {}
    out += [Spacer(1, 2 * mm), _p(f"Optimal strategy: {strategy.get('rule', '')}")]
    out.append(
        _table(
            [[_p("Hole + flop"), _p("Share of deals"), _p("Called")]]
            + [
                [
                    _p(r["hand"], _small),
                    _p(f"{100 * r['share']:.2f}%"),
                    _p(f"{100 * r['call_rate']:.2f}%"),
                ]
                for r in strategy.get("summary", [])
            ],
            [90 * mm, 40 * mm, 40 * mm],
        )
    )
    if strategy.get("file"):
        out.append(_p(f"Strategy file {strategy['file']}, sha256 {strategy.get('sha256')}", _small))
    sim = section.get("simulation") or {}
    if sim.get("rounds"):
        low, high = sim["interval"]
        out.append(
            _p(
                f"RTP simulation ({sim['status']}): {sim['rounds']:,} rounds, "
                f"{sim['hands']:,} hands dealt by the implementation and played optimally; "
                "every round re-settled by the oracle. Observed return per ante "
                f"{sim['observed_return_per_ante']:+.5f}, "
                f"{100 * sim['confidence']:.0f}% interval {low:+.5f} .. {high:+.5f}; exact "
                f"{sim['exact_return_per_ante']:+.5f}. Shifts beyond about "
                f"{sim['detectable_shift']:.3f} antes per hand are detectable at this size."
            )
        )
    else:
        out.append(
            _p(f"RTP simulation: {sim.get('status', 'not_tested')}: {sim.get('reason', '')}")
        )
    return out


def render_file(results_json: str | Path, pdf: str | Path) -> Path:
    """Re-render a report from an archived results.json."""
    with Path(results_json).open(encoding="utf-8") as fh:
        return render(json.load(fh), pdf)
