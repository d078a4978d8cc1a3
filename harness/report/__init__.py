"""The certification report: a PDF rendered from results.json alone.

The report never runs tests: it reads the results of a run (a dict or the
results.json file), so an auditor can re-render it from the archived JSON.
Every key is read with a default: a stub written when the runner stopped early,
or an archive from an older harness, still renders.

Whatever the file holds, `render` writes a PDF and does not raise
(docs/robustness.md). Every string is escaped, its control characters shown as
`\\xNN`, and cut to a stated length with its full size said (TEXT_LIMIT, or
CELL_LIMIT in a table cell); the verdict is drawn only from the closed set and
checked against the clause statuses, and a contradiction is shown as such; and
should the full report still fail to lay out, a plainer one is written in its
place, and failing that a page with the verdict and the error.
"""

from __future__ import annotations

import json
import re
import traceback
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
NOT_VALID = "NOT VALID"  # the banner of a results file whose verdict cannot stand
TEXT_LIMIT = 2_000  # characters of one string the report shows; results.json holds all
CELL_LIMIT = 300  # the same in a table cell (a table row cannot break across pages)
STATUS_COLOURS = {
    "pass": colors.HexColor("#d8f0de"),
    "fail": colors.HexColor("#f6d5d3"),
    "not_tested": colors.HexColor("#eeeeee"),
    "attested": colors.HexColor("#d6e8f7"),
    "error": colors.HexColor("#fbe3c2"),
}
SELECTION_COLOUR = colors.HexColor("#fff1d6")
MAX_FAILURES_SHOWN = 50
MAX_LEFT_OUT_SHOWN = 8  # a selection's left-out items named on the first page; all in the JSON
STDERR_LINES = 10
WIDTH = 170 * mm  # A4 less the margins

_styles = getSampleStyleSheet()
_body = ParagraphStyle("body", parent=_styles["BodyText"], fontSize=8.5, leading=10.5)
_small = ParagraphStyle("small", parent=_body, fontSize=7.5, leading=9)
_mono = ParagraphStyle("mono", parent=_body, fontName="Courier", fontSize=7, leading=8.5)
_lead = ParagraphStyle("lead", parent=_body, fontSize=10, leading=13, spaceAfter=1)
_h1 = _styles["Heading1"]
_h2 = _styles["Heading2"]
_h3 = ParagraphStyle("h3", parent=_styles["Heading3"], fontSize=10, spaceBefore=6, spaceAfter=2)
MONO_LINE = 112  # Courier 7 pt characters that fit WIDTH


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _shown(text: Any, limit: int = TEXT_LIMIT) -> str:
    """A string as the report may print it: cut to `limit` characters, its size said, and
    control and direction characters written as escapes (they must not act on the page)."""
    text = str(text)
    if len(text) > limit:
        text = f"{text[:limit]} [... cut: {len(text):,} characters in all, see results.json]"
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _esc(text: Any, limit: int = TEXT_LIMIT) -> str:
    shown = _shown(text, limit)
    return shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _p(text: Any, style: ParagraphStyle = _body) -> Paragraph:
    # _small is the table cells' style: a cell's text is cut shorter.
    return Paragraph(_esc(text, CELL_LIMIT if style is _small else TEXT_LIMIT), style)


def _label(status: Any) -> str:
    """A status as the report prints it: `not_tested` reads `not tested`."""
    return str(status).replace("_", " ")


def _pct(value: Any) -> str:
    """A figure (a fraction) as a percentage; '-' when nothing was computed."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "-" if value is None else str(value)
    return f"{100 * value:.4f}%"


def _claimed_pct(value: Any) -> str:
    """A claimed figure as its source printed it: 0.9875 reads 98.75%, not 98.7500%."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "-" if value is None else str(value)
    return f"{100 * value:.6g}%"


def _status_line(prefix: str, section: dict[str, Any]) -> Paragraph:
    """A section that holds no figures: its status and, when given, why."""
    status = _label(section.get("status", "not_tested"))
    reason = section.get("reason")
    return _p(f"{prefix}{status}: {reason}" if reason else f"{prefix}{status}")


def _close_text(to_close: list[Any]) -> str:
    """What would close a gap, once each: ["an attestation", "or an attestation"] is one."""
    seen: set[str] = set()
    shown: list[str] = []
    for way in to_close:
        key = str(way).removeprefix("or ")
        if key not in seen:
            seen.add(key)
            shown.append(str(way) if shown else key)
    return ", ".join(shown)


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


def _status_cells(table: Table, column: int, statuses: list[Any]) -> Table:
    """Colour a table's status column, one row per status (the header is row 0)."""
    table.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (column, i), (column, i), STATUS_COLOURS.get(s, colors.white))
                for i, s in enumerate(statuses, start=1)
            ]
        )
    )
    return table


def _verdict_banner(verdict: str) -> Table:
    banner = Table(
        [
            [
                Paragraph(
                    f"<b>VERDICT: {_esc(verdict)}</b>",
                    ParagraphStyle(
                        "verdict", parent=_h1, textColor=colors.white, alignment=TA_CENTER
                    ),
                )
            ]
        ],
        colWidths=[WIDTH],
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


def _verdict_line(label: str, verdict: str, comment: str) -> Paragraph:
    colour = VERDICT_COLOURS.get(verdict, colors.black).hexval()[2:]
    tail = f" \u2014 {_esc(comment)}" if comment else ""
    return Paragraph(
        f'{_esc(label)}: <font color="#{colour}"><b>{_esc(verdict)}</b></font>{tail}', _lead
    )


def _implementation_comment(results: dict[str, Any], verdict: str) -> str:
    """Which clauses failed, or how many were not tested: the verdict's reason in a line."""
    rows = [
        c for c in results.get("clauses") or [] if c.get("kind", "implementation") != "publication"
    ]
    if verdict == "FAIL":
        failed = [str(c.get("id")) for c in rows if c.get("status") == "fail"]
        failed += [
            str(f.get("item"))
            for f in results.get("failures") or []
            if f.get("kind") == "implementation" and not f.get("clause")
        ]
        return f"failed: {', '.join(failed)}" if failed else ""
    untested = sum(c.get("status") == "not_tested" for c in rows)
    if verdict == "INCOMPLETE" and untested:
        return f"{untested} of {len(rows)} clauses not tested"
    return ""


def _publication_comment(implementation: str | None, publication: str) -> str:
    """A refuted figure is the documentation's fault, whatever the play: say which is which."""
    if publication != "FAIL":
        return ""
    if implementation == "PASS":
        return "the game's documentation, not its play, is at fault"
    if implementation == "FAIL":
        return "the game's documentation is at fault, and so is its play"
    return "the game's documentation is at fault; its play was not fully tested"


def _verdicts(results: dict[str, Any]) -> list[Flowable]:
    """The two verdicts the run's verdict is the worse of (absent in older results.json)."""
    implementation = results.get("implementation_verdict")
    publication = results.get("publication_verdict")
    flow: list[Flowable] = []
    if implementation:
        flow.append(
            _verdict_line(
                "Implementation (clauses verified by vectors and checks)",
                implementation,
                _implementation_comment(results, implementation),
            )
        )
    if publication:
        flow.append(
            _verdict_line(
                "Published figures (claimed by the rules source or by the game)",
                publication,
                _publication_comment(implementation, publication),
            )
        )
    return flow


def _selection_line(selection: dict[str, Any] | None) -> list[Flowable]:
    """A selection is never a certificate: it gets a box no reader can miss."""
    if not selection:
        return []
    expressions = selection.get("expressions") or {}
    shown = " ".join(f"{k} {v!r}" for k, v in expressions.items()) or "(paths)"
    text = (
        f"<b>Selection {_esc(shown)}: {selection.get('ran', '?')} of "
        f"{selection.get('planned', '?')} items ran; a selection is never a certificate</b>"
    )
    cell: list[Flowable] = [Paragraph(text, _lead)]
    left_out = selection.get("left_out") or []
    if left_out:
        named = ", ".join(str(i) for i in left_out[:MAX_LEFT_OUT_SHOWN])
        more = len(left_out) - MAX_LEFT_OUT_SHOWN
        rest = f" and {more} more (listed in results.json)" if more > 0 else ""
        cell.append(_p(f"Left out: {named}{rest}", _small))
    box = Table([[cell]], colWidths=[WIDTH])
    box.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, -1), SELECTION_COLOUR),
                ("BOX", (0, 0), (-1, -1), 1, VERDICT_COLOURS["INCOMPLETE"]),
            ]
        )
    )
    return [Spacer(1, 1 * mm), box]


_SHOWN_ELSEWHERE = (re.compile(r"^selection "), re.compile(r"^\d+ clauses not tested: "))


def _reasons(results: dict[str, Any]) -> list[Flowable]:
    """Why the run is incomplete, less what the selection box and the gaps already say."""
    skip = [
        pattern
        for pattern, shown in zip(
            _SHOWN_ELSEWHERE, (results.get("selection"), results.get("gaps")), strict=True
        )
        if shown
    ]
    return [
        _p(f"Incomplete: {reason}")
        for reason in results.get("incomplete_reasons") or []
        if not any(p.match(str(reason)) for p in skip)
    ]


def _tail(text: Any, lines: int = STDERR_LINES) -> str:
    shown = [_shown(line, MONO_LINE * 3) for line in str(text).rstrip().splitlines()[-lines:]]
    return "\n".join(shown)


def _stderr(text: Any, title: str) -> list[Flowable]:
    if not text or not str(text).strip():
        return []
    return [
        _p(title, _small),
        Preformatted(_tail(text), _mono, maxLineLength=MONO_LINE),
    ]


def _evidence(f: dict[str, Any]) -> dict[str, Any]:
    evidence = f.get("evidence")
    return evidence if isinstance(evidence, dict) else {}


def _figure_finding(f: dict[str, Any], sources: dict[str, str]) -> str:
    """A refuted figure in a line: what was claimed, by whom, what the mathematics gives."""
    item = str(f.get("item") or "")
    kind, _, figure = item.partition(":")
    evidence = _evidence(f)
    by = "by the game (hello config.published)" if kind == "published" else "by the rules source"
    if kind == "claim" and figure in sources:
        by += f" ({sources[figure]})"
    clause = f" [{f['clause']}]" if f.get("clause") else ""
    reading = evidence.get("reading")
    return (
        f"{figure or item}{clause}: claimed {_claimed_pct(f.get('expected'))} {by}; computed "
        f"{_pct(f.get('actual'))}" + (f" on the nearest reading, {reading}" if reading else "")
    )


def _publication_findings(results: dict[str, Any]) -> list[Flowable]:
    """Each refuted figure on its own line: the publication verdict's evidence."""
    found = [f for f in results.get("failures") or [] if f.get("kind") == "publication"]
    if not found:
        return []
    claims = (results.get("publication") or {}).get("claimed_by_source") or []
    sources = {str(c.get("figure")): str(c.get("source", "")) for c in claims}
    flow: list[Flowable] = [Paragraph(f"Refuted figures ({len(found)})", _h3)]
    flow += [_p(f"\u2022 {_figure_finding(f, sources)}") for f in found]
    return flow


def _gaps(gaps: list[dict[str, Any]]) -> list[Flowable]:
    """Clauses not tested, grouped by reason: why each was not, and what would close it."""
    if not gaps:
        return []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for gap in gaps:
        why = "; ".join(str(w).removeprefix("not tested: ") for w in gap.get("why") or [])
        groups.setdefault((why, _close_text(gap.get("to_close") or [])), []).append(gap)
    rows: list[list[Any]] = [[_p("Clauses"), _p("Why not tested"), _p("To close")]]
    for (why, close), members in groups.items():
        named = (
            f"{members[0].get('clause')}: {members[0].get('title', '')}"
            if len(members) == 1
            else ", ".join(str(g.get("clause")) for g in members)
        )
        rows.append([_p(named, _small), _p(why or "-", _small), _p(close or "-", _small)])
    return [
        Paragraph(f"Clauses not tested ({len(gaps)})", _h3),
        _table(rows, [70 * mm, 55 * mm, 45 * mm]),
    ]


FIRST_PAGE_FAILURES = 5


def _run_failures(results: dict[str, Any]) -> list[Flowable]:
    """The game's first failures, each with the command reproducing it: what an auditor
    needs on the first page (every failure, with evidence, is in the Failures section)."""
    found = [f for f in results.get("failures") or [] if f.get("kind") == "implementation"]
    if not found:
        return []
    flow: list[Flowable] = [Paragraph(f"Failures of the game ({len(found)})", _h3)]
    for f in found[:FIRST_PAGE_FAILURES]:
        where = f.get("clause") or "-"
        flow.append(_p(f"\u2022 {where} {f.get('item', '?')}: {f.get('message', '')}"))
        if f.get("reproduce"):
            flow.append(_p(f"reproduce: {f['reproduce']}", _mono))
    if len(found) > FIRST_PAGE_FAILURES:
        flow.append(_p(f"... and {len(found) - FIRST_PAGE_FAILURES} more under Failures"))
    return flow


def _headline(results: dict[str, Any]) -> list[Flowable]:
    """What an auditor reads first, under the banner: the two verdicts, the selection, why
    the run is incomplete, each refuted figure, each clause not tested."""
    return [
        *_verdicts(results),
        *_selection_line(results.get("selection")),
        *_reasons(results),
        *_stderr(results.get("implementation_stderr"), "The game's stderr (last lines):"),
        *_run_failures(results),
        *_publication_findings(results),
        *_gaps(results.get("gaps") or []),
    ]


def _attestation_count(results: dict[str, Any]) -> str:
    given = results.get("attestations") or []
    if not given:
        return "none"
    applied = sum(bool(a.get("applied")) for a in given)
    return f"{len(given)} given: {applied} applied, {len(given) - applied} not applied"


def _summary(results: dict[str, Any]) -> list[Flowable]:
    impl = results.get("implementation") or {}
    profile = results.get("profile") or {}
    manifest = results.get("manifest") or {}
    vectors = results.get("vectors") or {}
    clauses = results.get("clauses") or []
    count = {
        s: sum(c.get("status") == s for c in clauses)
        for s in ("pass", "fail", "not_tested", "attested")
    }
    rows = [
        ["Implementation", f"{impl.get('name', '?')} {impl.get('version', '')}".strip()],
        ["Adapter", results.get("adapter", "")],
        ["Profile", f"{profile.get('name', '?')}: {profile.get('title', '')}"],
        [
            "Clauses",
            f"{len(clauses)}: {count['pass']} passed, {count['fail']} failed, "
            f"{count['not_tested']} not tested, {count['attested']} attested",
        ],
        [
            "Vectors",
            f"{vectors.get('total', 0)}: {vectors.get('passed', 0)} passed, "
            f"{vectors.get('failed', 0)} failed, {vectors.get('errors', 0)} errors, "
            f"{vectors.get('not_tested', 0)} not tested",
        ],
        ["Attestations", _attestation_count(results)],
        [
            "Run",
            f"{manifest.get('started', '?')} to {manifest.get('finished', '?')}, "
            f"seed {manifest.get('seed', '?')}",
        ],
    ]
    return [
        Spacer(1, 3 * mm),
        _table([[_p(a), _p(b)] for a, b in rows], [35 * mm, 135 * mm], header=False),
    ]


def _clause_notes(c: dict[str, Any]) -> list[str]:
    notes = [str(n) for n in c.get("notes") or []]
    if c.get("failed"):
        notes = [f"failed: {', '.join(str(n) for n in c['failed'])}", *notes]
    if c.get("status") == "not_tested" and c.get("to_close"):
        notes.append(f"To close: {_close_text(c['to_close'])}")
    return notes


def _clause_cell(c: dict[str, Any]) -> list[Flowable]:
    return [
        _p(c.get("title", ""), _small),
        _p("; ".join(str(s) for s in c.get("sources") or []), _small),
        *[_p(n, _small) for n in _clause_notes(c)],
    ]


def _clause_matrix(clauses: list[dict[str, Any]]) -> Table:
    """Rules clauses: each verified by vectors and checks the profile plans."""
    head = ("Clause", "Title / source", "Status", "Vectors", "Checks")
    rows: list[list[Any]] = [[_p(h, _small) for h in head]]
    for c in clauses:
        rows.append(
            [
                _p(c.get("id", "?"), _small),
                _clause_cell(c),
                _p(_label(c.get("status", "not_tested")), _small),
                _p(c.get("vectors", 0), _small),
                _p(c.get("checks", 0), _small),
            ]
        )
    table = _table(rows, [24 * mm, 104 * mm, 16 * mm, 13 * mm, 13 * mm])
    return _status_cells(table, 2, [c.get("status") for c in clauses])


def _figure_matrix(clauses: list[dict[str, Any]]) -> Table:
    """Published figures: each clause a figure its source claims, checked by exact mathematics."""
    rows: list[list[Any]] = [
        [_p(h, _small) for h in ("Clause", "Title / source", "Status", "Finding")]
    ]
    for c in clauses:
        findings = [i for i in c.get("items") or [] if i.get("kind") == "claim"]
        rows.append(
            [
                _p(c.get("id", "?"), _small),
                _clause_cell(c),
                _p(_label(c.get("status", "not_tested")), _small),
                [_p(i.get("message", ""), _small) for i in findings],
            ]
        )
    table = _table(rows, [24 * mm, 84 * mm, 16 * mm, 46 * mm])
    return _status_cells(table, 2, [c.get("status") for c in clauses])


def _traceability(clauses: list[dict[str, Any]]) -> list[Flowable]:
    """The matrix, split as the verdicts are: rules clauses, then published figures."""
    rules = [c for c in clauses if c.get("kind", "implementation") != "publication"]
    figures = [c for c in clauses if c.get("kind") == "publication"]
    flow: list[Flowable] = [Paragraph("Clause traceability", _h2)]
    if not clauses:
        return [*flow, _p("No clause was judged.")]
    if rules:
        flow += [Paragraph(f"Rules clauses ({len(rules)})", _h3), _clause_matrix(rules)]
    if figures:
        flow += [Paragraph(f"Published figures ({len(figures)})", _h3), _figure_matrix(figures)]
    return flow


def _attestations(entries: list[dict[str, Any]]) -> list[Flowable]:
    """The laboratory's attestations: which closed a gap, which were not needed or rejected."""
    flow: list[Flowable] = [Paragraph("Attestations", _h2)]
    if not entries:
        return [*flow, _p("None were given.")]
    head = ("Clause", "Result", "By, date", "Evidence", "Applied")
    rows: list[list[Any]] = [[_p(h, _small) for h in head]]
    for a in entries:
        applied = "applied" if a.get("applied") else "not applied"
        note = f": {a['note']}" if a.get("note") else ""
        rows.append(
            [
                _p(a.get("clause", "?"), _small),
                _p(_label(a.get("result", "")), _small),
                _p(f"{a.get('by', '?')}, {a.get('date', '?')}", _small),
                _p(a.get("evidence", ""), _small),
                _p(applied + note, _small),
            ]
        )
    table = _table(rows, [24 * mm, 20 * mm, 34 * mm, 52 * mm, 40 * mm])
    table.setStyle(
        TableStyle(
            [
                (
                    "BACKGROUND",
                    (4, i),
                    (4, i),
                    STATUS_COLOURS["attested" if a.get("applied") else "not_tested"],
                )
                for i, a in enumerate(entries, start=1)
            ]
        )
    )
    return [*flow, table]


def _dump(label: str, value: Any) -> Preformatted:
    text = json.dumps(value, default=str)
    if len(text) > 1500:
        text = f"{text[:1500]} [... cut: {len(text):,} characters in all, see results.json]"
    return Preformatted(label + text, _mono, maxLineLength=MONO_LINE)


def _failure(f: dict[str, Any]) -> KeepTogether:
    """One failure: what was expected and seen, the game's stderr, and how to reproduce it."""
    item = f.get("item") or f.get("vector") or f.get("check") or "?"
    kind = f" ({f['item_kind']})" if f.get("item_kind") else ""
    where = f"[{f['kind']}] " if f.get("kind") else ""
    evidence = _evidence(f)
    stderr = evidence.get("stderr_tail")
    rest = {k: v for k, v in evidence.items() if k != "stderr_tail"}
    block: list[Flowable] = [
        Paragraph(
            f"<b>{_esc(where)}{_esc(f.get('clause') or '-')} / {_esc(item)}{_esc(kind)}:</b> "
            + _esc(f.get("message", "")),
            _body,
        )
    ]
    if f.get("item_kind") == "differential":
        block.append(_side_by_side(f.get("expected"), f.get("actual")))
    else:
        block += [_dump("expected: ", f.get("expected")), _dump("actual:   ", f.get("actual"))]
    if rest:
        block.append(_dump("evidence: ", rest))
    block += _stderr(stderr, "The game's stderr (last lines):")
    if f.get("repro"):
        block.append(_p(f"Repro vector: {f['repro']} (in the folder of results.json)", _small))
    block += [_p(f"Reproduce: {f.get('reproduce', '')}", _small), Spacer(1, 3 * mm)]
    return KeepTogether(block)


def _side_by_side(expected: Any, actual: Any) -> Table:
    """A seat's settlement by the rules and by the game, one row per field."""
    want = expected if isinstance(expected, dict) else {}
    got = actual if isinstance(actual, dict) else {}
    rows: list[list[Any]] = [[_p("Seat"), _p("The rules (oracle)"), _p("The game")]]
    for key in ("action", "hand", "ante", "call", "aa_bonus"):
        if key in want or key in got:
            mark = "" if want.get(key) == got.get(key) else "  <- differs"
            rows.append(
                [
                    _p(key, _small),
                    _p(json.dumps(want.get(key)), _small),
                    _p(json.dumps(got.get(key)) + mark, _small),
                ]
            )
    return _table(rows, [25 * mm, 60 * mm, 65 * mm])


def _differential(section: dict[str, Any], corpus: dict[str, Any]) -> list[Flowable]:
    """The differential check and the generated corpus: how much ran, how strong it was."""
    flow: list[Flowable] = [Paragraph("Differential conformance and generated corpus", _h2)]
    if not section and not corpus:
        return [*flow, _p("Not available: this results file records neither.")]
    if section:
        strata = section.get("strata") or {}
        rate = float(section.get("detectable_fault_rate", 1.0))
        short = strata.get("short") or {}
        head = (
            f"Differential: {_label(section.get('status'))}. "
            f"{section.get('seat_hands', 0):,} seat-hands in {section.get('rounds', 0):,} stacked "
            f"rounds from the seed ({section.get('shards_run', 0)} of {section.get('shards', 0)} "
            f"shards): {section.get('uniform_seat_hands', 0):,} uniform, "
            f"{section.get('stratified_seat_hands', 0):,} stratified; strata at quota "
            f"{strata.get('quota')}: {strata.get('met', 0)} of {strata.get('total', 0)} met"
            + (f" (short: {', '.join(sorted(short))})" if short else "")
            + f". {section.get('disagreeing_seat_hands', 0):,} seat-hands disagreed with the "
            f"oracle. A fault in one hand in {1 / rate:,.0f} or more often is found with 99% "
            f"probability (rate {rate:.2e}, from the uniform part)."
        )
        if section.get("reason"):
            head += f" {section['reason']}."
        flow.append(_p(head))
        causes = section.get("causes") or []
        if causes:
            rows = [[_p("Clause"), _p("Fault kind"), _p("Detail"), _p("Seat-hands")]] + [
                [
                    _p(c.get("clause"), _small),
                    _p(c.get("kind"), _small),
                    _p(c.get("detail"), _small),
                    _p(f"{c.get('count', 0):,}", _small),
                ]
                for c in causes
            ]
            flow.append(_table(rows, [30 * mm, 35 * mm, 75 * mm, 25 * mm]))
    if corpus:
        flow.append(
            _p(
                f"Generated corpus: {_label(corpus.get('status'))}. {corpus.get('ran', 0):,} of "
                f"{corpus.get('vectors', 0):,} vectors replayed in {corpus.get('items', 0)} "
                f"items, {corpus.get('failed', 0):,} failed, {corpus.get('not_tested', 0):,} "
                "could not be asked of the game."
            )
        )
    return flow


def _failures(failures: list[dict[str, Any]]) -> list[Flowable]:
    flow: list[Flowable] = [_failure(f) for f in failures[:MAX_FAILURES_SHOWN]]
    if len(failures) > MAX_FAILURES_SHOWN:
        flow.append(
            _p(f"... and {len(failures) - MAX_FAILURES_SHOWN} more failures in results.json")
        )
    return flow


def _rng(section: dict[str, Any]) -> list[Flowable]:
    tests = section.get("tests") or []
    if not tests:
        return [_status_line("RNG: ", section)]
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
                _p(t.get("name", "?"), _small),
                _p(f"{t.get('statistic', float('nan')):.2f}", _small),
                _p(f"{t.get('p_value', float('nan')):.3g}", _small),
                _p(f"{t.get('p_adjusted', float('nan')):.3g}", _small),
                _p("pass" if t.get("passed") else "FAIL", _small),
                _p(t.get("detects", ""), _small),
            ]
        )
    die = section.get("dieharder") or {}
    if die.get("ran"):
        shown = ", ".join(f"{t.get('name')} {t.get('assessment')}" for t in die.get("tests", []))
        die_line = f"dieharder ran on {die.get('bytes', 0):,} bytes (informational): {shown}"
    else:
        die_line = f"dieharder did not run: {die.get('reason', 'not installed')}"
    table = _table(rows, [32 * mm, 18 * mm, 15 * mm, 15 * mm, 10 * mm, 80 * mm])
    return [_p(head), table, _p(die_line)]


def _protocol_checks(checks: list[dict[str, Any]]) -> list[Flowable]:
    if not checks:
        return []
    table = _table(
        [[_p("Check"), _p("Clause"), _p("Status"), _p("Message")]]
        + [
            [
                _p(c.get("name", "?"), _small),
                _p(c.get("clause", ""), _small),
                _p(_label(c.get("status", "")), _small),
                _p(c.get("message", ""), _small),
            ]
            for c in checks
        ],
        [35 * mm, 25 * mm, 18 * mm, 92 * mm],
    )
    return [
        Paragraph("Protocol and declaration checks", _h2),
        _status_cells(table, 2, [c.get("status") for c in checks]),
    ]


def _out_of_scope(out: list[dict[str, Any]]) -> list[Flowable]:
    if not out:
        return []
    return [
        Paragraph("Source text out of scope", _h2),
        _table(
            [[_p("Source"), _p("Text"), _p("Why out of scope")]]
            + [
                [
                    _p(o.get("source", ""), _small),
                    _p(o.get("ref", ""), _small),
                    _p(o.get("reason", ""), _small),
                ]
                for o in out
            ],
            [30 * mm, 80 * mm, 60 * mm],
        ),
    ]


def _manifest(manifest: dict[str, Any]) -> list[Flowable]:
    def shown(value: Any) -> str:
        return value if isinstance(value, str) else json.dumps(value, default=str)

    if not manifest:
        return [Paragraph("Manifest", _h2), _p("Not recorded: the run stopped before its end.")]
    return [
        Paragraph("Manifest", _h2),
        _table(
            [[_p(k, _small), _p(shown(v), _mono)] for k, v in manifest.items()],
            [35 * mm, 135 * mm],
            header=False,
        ),
    ]


VERDICTS = ("PASS", "FAIL", "INCOMPLETE")
VERDICTS_BY_RANK = ("PASS", "INCOMPLETE", "FAIL")  # the run's verdict is the worse of two


def verdict_problem(results: dict[str, Any]) -> str | None:
    """Why the verdict a results file records cannot stand, or None.

    The verdict must be one of the closed set, and agree with what the file itself
    records (docs/verdict.md): a failed clause or any failure makes it FAIL; PASS needs
    every clause passed or attested and nothing incomplete; FAIL needs a failure.
    """
    verdict = results.get("verdict")
    for key in ("verdict", "implementation_verdict", "publication_verdict"):
        value = results.get(key, "PASS" if key != "verdict" else None)
        if value not in VERDICTS:
            return f"{key} is {_shown(value, 80)!r}, none of {', '.join(VERDICTS)}"
    parts = [results.get(k) for k in ("implementation_verdict", "publication_verdict")]
    if all(parts) and verdict != max(parts, key=VERDICTS_BY_RANK.index):
        both = " and ".join(map(str, parts))
        return f"the verdict is {verdict}, not the worse of its two parts ({both})"
    clauses = [c for c in results.get("clauses") or [] if isinstance(c, dict)]
    failed = [str(c.get("id")) for c in clauses if c.get("status") == "fail"]
    failed += [str(f.get("item")) for f in results.get("failures") or [] if isinstance(f, dict)]
    if verdict != "FAIL" and failed:
        return f"the verdict is {verdict}, yet {', '.join(sorted(set(failed))[:5])} failed"
    if verdict == "FAIL" and not failed:
        return "the verdict is FAIL, yet no clause and no item failed"
    if verdict == "PASS":
        open_ = [str(c.get("id")) for c in clauses if c.get("status") not in ("pass", "attested")]
        if open_ or not clauses:
            what = ", ".join(open_[:5]) if open_ else "no clause"
            return f"the verdict is PASS, yet {what} passed neither tested nor attested"
        if results.get("incomplete_reasons"):
            return "the verdict is PASS, yet the run records reasons it is incomplete"
    return None


def render(results: dict[str, Any], path: str | Path) -> Path:
    """Write the certification PDF for one run's results; never raises (see the top)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _build(results, path)
    except Exception as exc:  # anything the file holds: a plainer PDF, saying why
        failure = f"{type(exc).__name__}: {_shown(exc, 500)}"
        try:
            _build_plain(results, path, failure)
        except Exception:
            _build_minimal(results, path, failure, traceback.format_exc(limit=3))
    return path


def _build_plain(results: Any, path: Path, failure: str) -> None:
    """The report's headline and summary only, each string cut to a cell's length."""
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="Casino Hold'em certification report")
    story: list[Flowable] = [
        Paragraph("Casino Hold'em certification report", _h1),
        *_banner(results),
        _p(
            f"The full report could not be laid out ({failure}); this plainer one shows the "
            "verdicts and the summary. results.json holds everything."
        ),
        *_verdicts(results),
        *_summary(results),
    ]
    doc.build(story)


def _build_minimal(results: Any, path: Path, failure: str, trace: str) -> None:
    """A page with the verdict and why nothing more could be drawn."""
    verdict = results.get("verdict") if isinstance(results, dict) else None
    shown = verdict if verdict in VERDICTS else NOT_VALID
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="Casino Hold'em certification report")
    doc.build(
        [
            Paragraph("Casino Hold'em certification report", _h1),
            Paragraph(f"VERDICT: {_esc(shown, 80)}", _h2),
            _p(f"The report could not be drawn from this results file: {failure}"),
            Preformatted(_shown(trace, 3000), _mono, maxLineLength=MONO_LINE),
        ]
    )


def _banner(results: dict[str, Any]) -> list[Flowable]:
    """The verdict, only from the closed set and only when the file bears it out."""
    problem = verdict_problem(results)
    if problem is None:
        return [_verdict_banner(str(results["verdict"]))]
    return [
        _verdict_banner(NOT_VALID),
        _p(f"This results file contradicts itself and certifies nothing: {problem}.", _lead),
    ]


def _build(results: dict[str, Any], path: Path) -> None:
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
    failures = results.get("failures") or []
    story: list[Flowable] = [
        Paragraph("Casino Hold'em certification report", _h1),
        *_banner(results),
        Spacer(1, 3 * mm),
        *_headline(results),
        *_summary(results),
        *_traceability(results.get("clauses") or []),
        *_attestations(results.get("attestations") or []),
        Paragraph(f"Failures ({len(failures)})", _h2),
        *(_failures(failures) if failures else [_p("None.")]),
        *_protocol_checks((results.get("protocol") or {}).get("checks") or []),
        *_differential(results.get("differential") or {}, results.get("corpus") or {}),
        Paragraph("RNG and deck distribution", _h2),
        *_rng(results.get("rng") or {}),
        Paragraph("Game mathematics", _h2),
        *_math(results.get("math") or {}, results.get("publication") or {}),
        *_out_of_scope(results.get("out_of_scope") or []),
        *_manifest(results.get("manifest") or {}),
    ]
    doc.build(story)


COMPUTED = ("pass", "complete")  # math.status when the figures were computed (then, before)


def _math(section: dict[str, Any], publication: dict[str, Any]) -> list[Flowable]:
    """Exact figures, claims, the optimal strategy's summary and the RTP simulation."""
    opt, always = section.get("optimal"), section.get("always_call")
    if section.get("status") not in COMPUTED or not isinstance(opt, dict):
        return [_status_line("", section)]
    always = always if isinstance(always, dict) else {}
    out: list[Flowable] = [_p(f"Method: {section.get('method', '')}.")]
    out += _figures(section, opt, always)
    out += _figure_checks("Claimed by the rules source", section.get("claims") or [])
    out += _published(publication.get("published_by_game") or [])
    out += _strategy(section.get("strategy") or {})
    out.append(_simulation(section.get("simulation") or {}))
    return out


def _figures(
    section: dict[str, Any], opt: dict[str, Any], always: dict[str, Any]
) -> list[Flowable]:
    figures = [
        ("house edge per ante", "house_edge"),
        ("RTP per ante", "rtp"),
        ("element of risk (per total wager)", "element_of_risk"),
        ("RTP per total wager", "rtp_per_total_wager"),
        ("raise frequency", "raise_frequency"),
    ]
    rows = [[_p("Figure"), _p("Optimal strategy"), _p("Always call")]]
    rows += [[_p(label), _p(_pct(opt.get(k))), _p(_pct(always.get(k)))] for label, k in figures]
    if section.get("aa_bonus_edge") is not None:
        rows.append([_p("AA Bonus house edge"), _p(_pct(section["aa_bonus_edge"])), _p("")])
    outcomes = opt.get("outcomes") or {}
    return [
        _table(rows, [70 * mm, 50 * mm, 50 * mm]),
        Spacer(1, 2 * mm),
        _table(
            [[_p("Outcome (optimal)"), _p("Probability")]]
            + [[_p(k.replace("_", " ")), _p(f"{v:.6f}")] for k, v in outcomes.items()]
            + [[_p("Ante row"), _p("Odds / probability / contribution")]]
            + [
                [
                    _p(r.get("row", "?")),
                    _p(
                        f"{r.get('odds')} to 1 / {r.get('probability', 0):.8f} / "
                        f"{r.get('contribution', 0):.8f}"
                    ),
                ]
                for r in opt.get("rows") or []
            ],
            [70 * mm, 100 * mm],
        ),
    ]


def _computed(c: dict[str, Any]) -> str:
    computed = c.get("computed")
    if computed is None:
        return f"- ({c['reason']})" if c.get("reason") else "-"
    return f"{_pct(computed)} ({c.get('definition')})"


def _figure_checks(heading: str, figures: list[dict[str, Any]], note: str = "") -> list[Flowable]:
    """Claimed or published figures, each against the exact mathematics (nearest reading)."""
    if not figures:
        return []
    table = _table(
        [[_p(h) for h in ("Figure", "Claimed", "Computed", "Status", "Source")]]
        + [
            [
                _p(c.get("figure", "?"), _small),
                _p(_claimed_pct(c.get("claimed")), _small),
                _p(_computed(c), _small),
                _p(_label(c.get("status", "")), _small),
                _p(c.get("source", ""), _small),
            ]
            for c in figures
        ],
        [25 * mm, 17 * mm, 48 * mm, 18 * mm, 62 * mm],
    )
    return [
        Paragraph(heading, _h3),
        _status_cells(table, 3, [c.get("status") for c in figures]),
        *([_p(note, _small)] if note else []),
    ]


def _published(findings: list[dict[str, Any]]) -> list[Flowable]:
    """Figures the game itself publishes (hello config.published), on its declared rules."""
    priced = sorted({str(f["priced_on"]) for f in findings if f.get("priced_on")})
    note = f"Priced on profile {', '.join(priced)} (the rules the game declares)." if priced else ""
    return _figure_checks("Published by the game", findings, note)


def _strategy(strategy: dict[str, Any]) -> list[Flowable]:
    out: list[Flowable] = [
        Spacer(1, 2 * mm),
        _p(f"Optimal strategy: {strategy.get('rule', '')}"),
        _table(
            [[_p("Hole + flop"), _p("Share of deals"), _p("Called")]]
            + [
                [
                    _p(r.get("hand", "?"), _small),
                    _p(f"{100 * r.get('share', 0):.2f}%"),
                    _p(f"{100 * r.get('call_rate', 0):.2f}%"),
                ]
                for r in strategy.get("summary") or []
            ],
            [90 * mm, 40 * mm, 40 * mm],
        ),
    ]
    if strategy.get("file"):
        out.append(_p(f"Strategy file {strategy['file']}, sha256 {strategy.get('sha256')}", _small))
    return out


def _simulation(sim: dict[str, Any]) -> Paragraph:
    if not sim.get("rounds"):
        return _status_line("RTP simulation: ", sim)
    low, high = sim.get("interval") or (float("nan"), float("nan"))
    if sim.get("interval_judged", True):
        judged = (
            f"Shifts beyond about {sim.get('detectable_shift', float('nan')):.3f} antes per "
            "hand are detectable at this size."
        )
    else:
        judged = (
            "The rounds were stacked from the seed, so the interval judges only the "
            "harness's own draw: it is information, not a test of the game."
        )
    return _p(
        f"RTP simulation ({_label(sim.get('status', ''))}): {sim['rounds']:,} rounds, "
        f"{sim.get('hands', 0):,} hands ({sim.get('dealt_by', 'dealt by the game')}), played "
        "optimally; every round re-settled by the oracle. Observed return per ante "
        f"{sim.get('observed_return_per_ante', float('nan')):+.5f}, "
        f"{100 * sim.get('confidence', 0):.0f}% interval {low:+.5f} .. {high:+.5f}; exact "
        f"{sim.get('exact_return_per_ante', float('nan')):+.5f}. {judged}"
    )
