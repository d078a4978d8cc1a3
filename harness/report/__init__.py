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

from reportlab.graphics.shapes import Drawing
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.platypus import (
    KeepTogether,
    PageBreak,
    Paragraph,
    Preformatted,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.flowables import Flowable

from harness.evidence import (
    SAMPLED,
    SIZED,
    Minimums,
    check_of,
    floors,
    policy_problems,
    samples,
    section_at,
)
from harness.outcomes import RANK, Verdict
from harness.report.certificate import (
    certificate,
    certificate_word,
    contradiction,
    verdict_banner,
    verdict_lines,
)
from harness.report.charts import (
    ante_return_distribution,
    p_value_histogram,
    position_heatmap,
    rtp_interval,
)
from harness.report.failures import cause_block, group_failures, stderr_block
from harness.report.layout import ReportDocument, build, contents, heading
from harness.report.seal import attach_results, results_digest
from harness.report.style import (
    H1,
    H2,
    LEAD,
    MAX_LEFT_OUT_SHOWN,
    MONO,
    MONO_LINE,
    NOT_VALID,
    SELECTION_COLOUR,
    SMALL,
    STATUS_COLOURS,
    VERDICT_COLOURS,
    WIDTH,
    claimed_pct,
    colour_status,
    esc,
    grid,
    number,
    para,
    pct,
    status_label,
    text_shown,
)
from harness.results import json_bytes

MAX_CAUSES_SHOWN = 60  # causes drawn with a worked example; every failure is in results.json


def _status_line(prefix: str, section: dict[str, Any]) -> Paragraph:
    """A section that holds no figures: its status and, when given, why."""
    status = status_label(section.get("status", "not_tested"))
    reason = section.get("reason")
    return para(f"{prefix}{status}: {reason}" if reason else f"{prefix}{status}")


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


def _selection_line(selection: dict[str, Any] | None) -> list[Flowable]:
    """A selection is never a certificate: it gets a box no reader can miss."""
    if not selection:
        return []
    expressions = selection.get("expressions") or {}
    shown = " ".join(f"{k} {v!r}" for k, v in expressions.items()) or "(paths)"
    text = (
        f"<b>Selection {esc(shown)}: {selection.get('ran', '?')} of "
        f"{selection.get('planned', '?')} items ran; a selection is never a certificate</b>"
    )
    cell: list[Flowable] = [Paragraph(text, LEAD)]
    left_out = selection.get("left_out") or []
    if left_out:
        named = ", ".join(str(i) for i in left_out[:MAX_LEFT_OUT_SHOWN])
        more = len(left_out) - MAX_LEFT_OUT_SHOWN
        rest = f" and {more} more (listed in results.json)" if more > 0 else ""
        cell.append(para(f"Left out: {named}{rest}", SMALL))
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
        para(f"Incomplete: {reason}")
        for reason in results.get("incomplete_reasons") or []
        if not any(p.match(str(reason)) for p in skip)
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
        f"{figure or item}{clause}: claimed {claimed_pct(f.get('expected'))} {by}; computed "
        f"{pct(f.get('actual'))}" + (f" on the nearest reading, {reading}" if reading else "")
    )


def _publication_findings(results: dict[str, Any]) -> list[Flowable]:
    """Each refuted figure on its own line: the publication verdict's evidence."""
    found = [f for f in results.get("failures") or [] if f.get("kind") == "publication"]
    if not found:
        return []
    claims = (results.get("publication") or {}).get("claimed_by_source") or []
    sources = {str(c.get("figure")): str(c.get("source", "")) for c in claims}
    flow: list[Flowable] = [heading(f"Refuted figures ({len(found)})", 1)]
    flow += [para(f"\u2022 {_figure_finding(f, sources)}") for f in found]
    return flow


def _gaps(gaps: list[dict[str, Any]]) -> list[Flowable]:
    """Clauses not tested, grouped by reason: why each was not, and what would close it."""
    if not gaps:
        return []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for gap in gaps:
        why = "; ".join(str(w).removeprefix("not tested: ") for w in gap.get("why") or [])
        groups.setdefault((why, _close_text(gap.get("to_close") or [])), []).append(gap)
    rows: list[list[Any]] = [[para("Clauses"), para("Why not tested"), para("To close")]]
    for (why, close), members in groups.items():
        named = (
            f"{members[0].get('clause')}: {members[0].get('title', '')}"
            if len(members) == 1
            else ", ".join(str(g.get("clause")) for g in members)
        )
        rows.append([para(named, SMALL), para(why or "-", SMALL), para(close or "-", SMALL)])
    return [
        heading(f"Clauses not tested ({len(gaps)})", 1),
        grid(rows, [70 * mm, 55 * mm, 45 * mm]),
    ]


FIRST_PAGE_CAUSES = 8


def _run_failures(results: dict[str, Any]) -> list[Flowable]:
    """The game's failures by cause, each with the command reproducing its first: what an
    auditor needs first (every failure, with evidence, is under Failures)."""
    found = [f for f in results.get("failures") or [] if f.get("kind") == "implementation"]
    if not found:
        return []
    causes = group_failures(found)
    title = f"Failures of the game ({len(found)}, {len(causes)} causes)"
    flow: list[Flowable] = [heading(title, 1)]
    for cause in causes[:FIRST_PAGE_CAUSES]:
        _, clause, what = cause.key
        first = cause.members[0]
        flow.append(
            para(f"\u2022 {clause}: {what} ({len(cause.members)}); first {first.get('item')}")
        )
        if first.get("reproduce"):
            flow.append(para(f"reproduce: {first['reproduce']}", MONO))
    if len(causes) > FIRST_PAGE_CAUSES:
        flow.append(para(f"... and {len(causes) - FIRST_PAGE_CAUSES} more causes under Failures"))
    return flow


def _headline(results: dict[str, Any]) -> list[Flowable]:
    """What an auditor reads first, under the banner: the two verdicts, the selection, why
    the run is incomplete, each refuted figure, each clause not tested."""
    return [
        *verdict_lines(results),
        *_selection_line(results.get("selection")),
        *_reasons(results),
        *stderr_block(results.get("implementation_stderr"), "The game's stderr (last lines):"),
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
        grid([[para(a), para(b)] for a, b in rows], [35 * mm, 135 * mm], header=False),
    ]


def _clause_notes(c: dict[str, Any]) -> list[str]:
    notes = [str(n) for n in c.get("notes") or []]
    if c.get("failed"):
        notes = [f"failed: {', '.join(str(n) for n in c['failed'])}", *notes]
    if c.get("status") == "not_tested" and c.get("to_close"):
        notes.append(f"To close: {_close_text(c['to_close'])}")
    return notes


def _source_tag(source: Any) -> str:
    """A clause's source as the matrix cites it: "[000] Rules, bullet 1: ..." for
    "000_b7243a02efc0c650.txt: Rules, bullet 1: ..." (the legend above names [000])."""
    file, sep, ref = str(source).partition(": ")
    return f"[{file.split('_')[0]}] {ref}" if sep and file.endswith(".txt") else str(source)


def _source_legend(clauses: list[dict[str, Any]], profile: dict[str, Any]) -> list[Flowable]:
    """Each rules source the matrix cites, by its tag, title and file."""
    titles = {
        str(s.get("file")): str(s.get("title") or "")
        for s in profile.get("sources") or []
        if isinstance(s, dict)
    }
    files = sorted(
        {
            str(s).partition(": ")[0]
            for c in clauses
            for s in c.get("sources") or []
            if str(s).partition(": ")[0].endswith(".txt")
        }
    )
    if not files:
        return []
    rows = [
        [para(f"[{f.split('_')[0]}]", SMALL), para(f"{titles.get(f) or 'untitled'} ({f})", SMALL)]
        for f in files
    ]
    return [para("Rules sources cited below:", SMALL), grid(rows, [14 * mm, 156 * mm], False)]


def _clause_cell(c: dict[str, Any]) -> list[Flowable]:
    return [
        para(c.get("title", ""), SMALL),
        para("; ".join(_source_tag(s) for s in c.get("sources") or []), SMALL),
        *[para(n, SMALL) for n in _clause_notes(c)],
    ]


def _clause_matrix(clauses: list[dict[str, Any]]) -> Table:
    """Rules clauses: each verified by vectors and checks the profile plans."""
    head = ("Clause", "Rule and source", "Result", "Vectors", "Checks")
    rows: list[list[Any]] = [[para(h, SMALL) for h in head]]
    for c in clauses:
        rows.append(
            [
                para(c.get("id", "?"), SMALL),
                _clause_cell(c),
                para(status_label(c.get("status", "not_tested")), SMALL),
                para(c.get("vectors", 0), SMALL),
                para(c.get("checks", 0), SMALL),
            ]
        )
    table = grid(rows, [24 * mm, 104 * mm, 16 * mm, 13 * mm, 13 * mm])
    return colour_status(table, 2, [c.get("status") for c in clauses])


def _figure_matrix(clauses: list[dict[str, Any]]) -> Table:
    """Published figures: each clause a figure its source claims, checked by exact mathematics."""
    rows: list[list[Any]] = [
        [para(h, SMALL) for h in ("Clause", "Figure and source", "Result", "Finding")]
    ]
    for c in clauses:
        findings = [i for i in c.get("items") or [] if i.get("kind") == "claim"]
        rows.append(
            [
                para(c.get("id", "?"), SMALL),
                _clause_cell(c),
                para(status_label(c.get("status", "not_tested")), SMALL),
                [para(i.get("message", ""), SMALL) for i in findings],
            ]
        )
    table = grid(rows, [24 * mm, 84 * mm, 16 * mm, 46 * mm])
    return colour_status(table, 2, [c.get("status") for c in clauses])


def _traceability(clauses: list[dict[str, Any]], profile: dict[str, Any]) -> list[Flowable]:
    """The matrix, split as the verdicts are: rules clauses, then published figures."""
    rules = [c for c in clauses if c.get("kind", "implementation") != "publication"]
    figures = [c for c in clauses if c.get("kind") == "publication"]
    flow: list[Flowable] = [heading("Clause traceability")]
    if not clauses:
        return [*flow, para("No clause was judged.")]
    flow += _source_legend(clauses, profile)
    if rules:
        flow += [heading(f"Rules clauses ({len(rules)})", 1), _clause_matrix(rules)]
    if figures:
        flow += [heading(f"Published figures ({len(figures)})", 1), _figure_matrix(figures)]
    return flow


def _attestations(entries: list[dict[str, Any]]) -> list[Flowable]:
    """The laboratory's attestations: which closed a gap, which were not needed or rejected."""
    flow: list[Flowable] = [heading("Attestations")]
    if not entries:
        return [*flow, para("None were given.")]
    head = ("Clause", "Result", "By, date", "Evidence", "Applied")
    rows: list[list[Any]] = [[para(h, SMALL) for h in head]]
    for a in entries:
        applied = "applied" if a.get("applied") else "not applied"
        note = f": {a['note']}" if a.get("note") else ""
        rows.append(
            [
                para(a.get("clause", "?"), SMALL),
                para(status_label(a.get("result", "")), SMALL),
                para(f"{a.get('by', '?')}, {a.get('date', '?')}", SMALL),
                para(a.get("evidence", ""), SMALL),
                para(applied + note, SMALL),
            ]
        )
    table = grid(rows, [24 * mm, 20 * mm, 34 * mm, 52 * mm, 40 * mm])
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


def _differential(section: dict[str, Any], corpus: dict[str, Any]) -> list[Flowable]:
    """The differential check and the generated corpus: how much ran, how strong it was."""
    flow: list[Flowable] = [heading("Differential conformance and generated corpus")]
    if not section and not corpus:
        return [*flow, para("Not available: this results file records neither.")]
    if section:
        strata = section.get("strata") or {}
        rate = float(section.get("detectable_fault_rate", 1.0))
        short = strata.get("short") or {}
        head = (
            f"Differential: {status_label(section.get('status'))}. "
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
        flow.append(para(head))
        causes = section.get("causes") or []
        if causes:
            rows = [[para("Clause"), para("Fault kind"), para("Detail"), para("Seat-hands")]] + [
                [
                    para(c.get("clause"), SMALL),
                    para(c.get("kind"), SMALL),
                    para(c.get("detail"), SMALL),
                    para(f"{c.get('count', 0):,}", SMALL),
                ]
                for c in causes
            ]
            flow.append(grid(rows, [30 * mm, 35 * mm, 75 * mm, 25 * mm]))
    if corpus:
        flow.append(
            para(
                f"Generated corpus: {status_label(corpus.get('status'))}. "
                f"{corpus.get('ran', 0):,} of "
                f"{corpus.get('vectors', 0):,} vectors replayed in {corpus.get('items', 0)} "
                f"items, {corpus.get('failed', 0):,} failed, {corpus.get('not_tested', 0):,} "
                "could not be asked of the game."
            )
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
    rows: list[list[Any]] = [
        [para(h) for h in ("Test", "Statistic", "p", "p (Holm)", "", "Detects")]
    ]
    for t in tests:
        rows.append(
            [
                para(t.get("name", "?"), SMALL),
                para(number(t.get("statistic")), SMALL),
                para(number(t.get("p_value"), 3), SMALL),
                para(number(t.get("p_adjusted"), 3), SMALL),
                para("pass" if t.get("passed") else "FAIL", SMALL),
                para(t.get("detects", ""), SMALL),
            ]
        )
    die = section.get("dieharder") or {}
    if die.get("ran"):
        shown = ", ".join(f"{t.get('name')} {t.get('assessment')}" for t in die.get("tests", []))
        die_line = f"dieharder ran on {die.get('bytes', 0):,} bytes (informational): {shown}"
    else:
        die_line = f"dieharder did not run: {die.get('reason', 'not installed')}"
    table = grid(rows, [32 * mm, 18 * mm, 15 * mm, 15 * mm, 10 * mm, 80 * mm])
    return [
        para(head),
        table,
        para(die_line),
        _chart(
            position_heatmap(section.get("position_counts"), section.get("decks")),
            "card x position",
        ),
        _chart(p_value_histogram(section.get("position_p_values")), "per-position p-values"),
    ]


def _chart(drawing: Drawing | None, what: str) -> Flowable:
    """A chart, or why it is not drawn (older results files do not record its data)."""
    if drawing is None:
        return para(f"Chart of the {what} not drawn: this results file does not record it.")
    return KeepTogether([Spacer(1, 3 * mm), drawing])


def _protocol_checks(checks: list[dict[str, Any]]) -> list[Flowable]:
    if not checks:
        return []
    table = grid(
        [[para("Check"), para("Clause"), para("Status"), para("Message")]]
        + [
            [
                para(c.get("name", "?"), SMALL),
                para(c.get("clause", ""), SMALL),
                para(status_label(c.get("status", "")), SMALL),
                para(c.get("message", ""), SMALL),
            ]
            for c in checks
        ],
        [35 * mm, 25 * mm, 18 * mm, 92 * mm],
    )
    return [
        heading("Protocol and declaration checks"),
        colour_status(table, 2, [c.get("status") for c in checks]),
    ]


def _out_of_scope(out: list[dict[str, Any]]) -> list[Flowable]:
    if not out:
        return []
    return [
        heading("Source text out of scope"),
        grid(
            [[para("Source"), para("Text"), para("Why out of scope")]]
            + [
                [
                    para(_source_tag(f"{o.get('source', '')}: ").strip(), SMALL),
                    para(o.get("ref", ""), SMALL),
                    para(o.get("reason", ""), SMALL),
                ]
                for o in out
            ],
            [16 * mm, 94 * mm, 60 * mm],
        ),
    ]


def _manifest(manifest: dict[str, Any]) -> list[Flowable]:
    def shown(value: Any) -> str:
        return value if isinstance(value, str) else json.dumps(value, default=str)

    if not manifest:
        return [heading("Manifest"), para("Not recorded: the run stopped before its end.")]
    return [
        heading("Manifest"),
        grid(
            [[para(k, SMALL), para(shown(v), MONO)] for k, v in manifest.items()],
            [35 * mm, 135 * mm],
            header=False,
        ),
    ]


VERDICTS = ("PASS", "FAIL", "INCOMPLETE")


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
            return f"{key} is {text_shown(value, 80)!r}, none of {', '.join(VERDICTS)}"
    parts = [results.get(k) for k in ("implementation_verdict", "publication_verdict")]
    if all(parts) and verdict != max(parts, key=lambda v: RANK[Verdict(str(v))]):
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
        return _pass_problem(results, clauses)
    return None


# The sections of results.json that a check fills, by the check's name in clause items:
# the sampled checks' (harness/evidence.py), and the generated corpus's.
SECTION_OF_CHECK = {s.check: s.path for s in SAMPLED} | {"corpus": ("corpus",)}


def _pass_problem(results: dict[str, Any], clauses: list[dict[str, Any]]) -> str | None:
    """What in a PASS file's own records says it is no PASS: a selection, an item of a
    passed clause that did not pass, a section that failed or did not run behind a passed
    clause, failed vectors, or a sample below its minimum (docs/verdict.md)."""
    if results.get("selection"):
        return "the verdict is PASS, yet the run was a selection, which never certifies"
    if results.get("gaps"):
        return "the verdict is PASS, yet the file lists clauses not tested (gaps)"
    passed = [c for c in clauses if c.get("status") == "pass"]
    checks_behind_a_pass: set[str] = set()
    for c in passed:
        if not c.get("items"):
            return (
                f"the verdict is PASS, yet clause {text_shown(c.get('id'), 40)} passed on no item"
            )
        for item in c.get("items") or []:
            if not isinstance(item, dict):
                continue
            if item.get("status") != "pass":
                return (
                    f"the verdict is PASS, yet {text_shown(item.get('name'), 80)} of passed "
                    f"clause {text_shown(c.get('id'), 40)} is {text_shown(item.get('status'), 20)}"
                )
            checks_behind_a_pass.add(check_of(str(item.get("name", ""))))
    vectors = results.get("vectors") if isinstance(results.get("vectors"), dict) else {}
    bad = {k: (vectors or {}).get(k) for k in ("failed", "errors")}
    if any(isinstance(n, int) and n > 0 for n in bad.values()):
        return f"the verdict is PASS, yet {bad['failed']} vectors failed, {bad['errors']} erred"
    for check, path in SECTION_OF_CHECK.items():
        section = section_at(results, path)
        if section is None:
            if check in checks_behind_a_pass:
                return f"the verdict is PASS, yet its {'.'.join(path)} section is missing"
            continue
        status = section.get("status")
        if status == "fail" or section.get("passed") is False:
            return f"the verdict is PASS, yet its {'.'.join(path)} section failed"
        if check in checks_behind_a_pass and status != "pass":
            return (
                f"the verdict is PASS, yet its {'.'.join(path)} section is "
                f"{text_shown(status, 20)} behind a passed clause"
            )
    return _evidence_problem(results, checks_behind_a_pass)


def _evidence_problem(results: dict[str, Any], checks: set[str]) -> str | None:
    """A PASS rests on samples at their minimums (docs/verdict.md#evidence): those its
    evidence section records (held to the floors, and to chcert's defaults unless a run
    plan the laboratory named set them), or chcert's defaults for a file that records
    none; each recomputed from the sections, and each as the section itself says it."""
    version = results.get("schema_version")
    section = results.get("evidence")
    if not isinstance(section, dict):
        if not (isinstance(version, int) and version < 4):
            return "the verdict is PASS, yet the file records no evidence section"
        stated: Any = Minimums().to_json()  # a file from before minimums: today's defaults
        recorded: list[Any] = []
    else:
        stated, recorded = section.get("minimums"), section.get("samples") or []
    if not isinstance(stated, dict) or not isinstance(recorded, list):
        return "the verdict is PASS, yet its evidence section cannot be read"
    sized = {k: v for k, v in stated.items() if k != "source"}
    problems = policy_problems(sized, floors())
    if problems:
        key, why = problems[0]
        return f"the verdict is PASS, yet its minimum {text_shown(key, 40)} {why}"
    defaults = Minimums().to_json()
    lowered = [k for k in SIZED if isinstance(sized.get(k), int) and sized[k] < defaults[k]]
    if lowered and "run plan" not in str(stated.get("source", "")):
        return (
            f"the verdict is PASS, yet its minimum {lowered[0]} is below chcert's default, "
            "which only a run plan the laboratory names may lower"
        )
    try:
        found = samples(results, Minimums.from_json(stated))
    except (TypeError, ValueError):
        return "the verdict is PASS, yet its evidence section cannot be read"
    for sample in found:
        if not sample.met and SIZED[sample.name].check in checks:
            return f"the verdict is PASS, yet {sample.shortfall()}"
    for entry in recorded:
        name = entry.get("name") if isinstance(entry, dict) else None
        if name in SIZED and entry.get("met") is False and SIZED[name].check in checks:
            return f"the verdict is PASS, yet its evidence says {name} fell short of its minimum"
    return None


def render(results: dict[str, Any], path: str | Path, results_bytes: bytes | None = None) -> Path:
    """Write the certification PDF for one run's results, with results.json attached;
    never raises (see the top). `results_bytes` is the file as archived, whose SHA-256
    the certificate prints; without it, the bytes chcert writes for `results`."""
    path = Path(path)
    try:
        data = results_bytes if results_bytes is not None else json_bytes(results)
    except Exception:  # a value JSON cannot hold: the report says what it can
        data = json.dumps(results, default=str).encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _build(results, path, data, attached=True)
        try:
            attach_results(path, data)
        except Exception:  # the page must not say it is attached: drawn again, saying so
            _build(results, path, data, attached=False)
    except Exception as exc:  # anything the file holds: a plainer PDF, saying why
        failure = f"{type(exc).__name__}: {text_shown(exc, 500)}"
        try:
            _build_plain(results, path, failure)
        except Exception:
            _build_minimal(results, path, failure, traceback.format_exc(limit=3))
    return path


def report_id(results: dict[str, Any], results_sha256: str) -> str:
    """The id the run gave its report; an archive from before ids, one from its hash."""
    manifest = results.get("manifest")
    given = manifest.get("report_id") if isinstance(manifest, dict) else None
    return text_shown(given, 60) if given else f"CHC-{results_sha256[:12].upper()}"


def _build_plain(results: Any, path: Path, failure: str) -> None:
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
            Paragraph("Casino Hold'em certification report", H1),
            Paragraph(f"VERDICT: {esc(shown, 80)}", H2),
            para(f"The report could not be drawn from this results file: {failure}"),
            Preformatted(text_shown(trace, 3000), MONO, maxLineLength=MONO_LINE),
        ]
    )


def _banner(results: dict[str, Any]) -> list[Flowable]:
    """The verdict, only from the closed set and only when the file bears it out."""
    problem = verdict_problem(results)
    if problem is None:
        return [verdict_banner(str(results["verdict"]))]
    return [verdict_banner(NOT_VALID), contradiction(problem)]


def _failures(failures: list[Any]) -> list[Flowable]:
    """Failures grouped by cause, a bookmark each (harness/report/failures.py)."""
    causes = group_failures(failures)
    flow: list[Flowable] = [
        heading(f"Failures ({len(failures)}, {len(causes)} causes)"),
        para(
            "Failures alike but for their cards and numbers are shown once, with a worked "
            "example and the command that reproduces it; results.json holds each in full."
        ),
    ]
    for cause in causes[:MAX_CAUSES_SHOWN]:
        kind, clause, what = cause.key
        count = f"{len(cause.members)} failures" if len(cause.members) > 1 else "1 failure"
        title = f"{clause}: {text_shown(what, 120)} ({count}, {kind})"
        flow += cause_block(cause, heading(title, 1))
    if len(causes) > MAX_CAUSES_SHOWN:
        flow.append(para(f"... and {len(causes) - MAX_CAUSES_SHOWN} more causes in results.json"))
    return flow


def _build(results: dict[str, Any], path: Path, data: bytes, attached: bool) -> None:
    digest = results_digest(data)
    problem = verdict_problem(results)
    verdict = str(results.get("verdict")) if problem is None else NOT_VALID
    ident = report_id(results, digest)
    word = certificate_word(verdict)
    doc = ReportDocument(
        path,
        header=f"Casino Hold'em certification report {ident}",
        verdict=word if word == verdict else f"{word} ({verdict})",
        colour=VERDICT_COLOURS.get(verdict, colors.black),
        title=f"Casino Hold'em certification report {ident}",
        author="chcert",
        subject=f"{word}: {text_shown((results.get('implementation') or {}).get('name'), 80)}",
        keywords=f"results.json sha256 {digest}",
    )
    failures = results.get("failures") or []
    story: list[Flowable] = [
        *certificate(results, problem, ident, data, attached),
        PageBreak(),
        Paragraph("Contents", H1),
        contents(),
        PageBreak(),
        heading("Summary"),
        *_headline(results),
        *_summary(results),
        *_traceability(results.get("clauses") or [], results.get("profile") or {}),
        *_attestations(results.get("attestations") or []),
        *(_failures(failures) if failures else [heading("Failures"), para("None.")]),
        *_protocol_checks((results.get("protocol") or {}).get("checks") or []),
        *_differential(results.get("differential") or {}, results.get("corpus") or {}),
        heading("RNG and deck distribution"),
        *_rng(results.get("rng") or {}),
        heading("Game mathematics"),
        *_math(results.get("math") or {}, results.get("publication") or {}),
        *_out_of_scope(results.get("out_of_scope") or []),
        *_manifest(results.get("manifest") or {}),
    ]
    build(doc, story)


COMPUTED = ("pass", "complete")  # math.status when the figures were computed (then, before)


def _math(section: dict[str, Any], publication: dict[str, Any]) -> list[Flowable]:
    """Exact figures, claims, the optimal strategy's summary and the RTP simulation."""
    opt, always = section.get("optimal"), section.get("always_call")
    if section.get("status") not in COMPUTED or not isinstance(opt, dict):
        return [_status_line("", section)]
    always = always if isinstance(always, dict) else {}
    out: list[Flowable] = [para(f"Method: {section.get('method', '')}.")]
    out += _figures(section, opt, always)
    out += _figure_checks("Claimed by the rules source", section.get("claims") or [])
    out += _published(publication.get("published_by_game") or [])
    out.append(_chart(ante_return_distribution(opt.get("rows")), "ante rows' returns"))
    out += _strategy(section.get("strategy") or {})
    simulation = section.get("simulation") or {}
    out.append(_simulation(simulation))
    if simulation.get("rounds"):
        out.append(_chart(rtp_interval(simulation), "simulation's interval"))
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
    rows = [[para("Figure"), para("Optimal strategy"), para("Always call")]]
    rows += [[para(label), para(pct(opt.get(k))), para(pct(always.get(k)))] for label, k in figures]
    if section.get("aa_bonus_edge") is not None:
        rows.append([para("AA Bonus house edge"), para(pct(section["aa_bonus_edge"])), para("")])
    outcomes = opt.get("outcomes") or {}
    return [
        grid(rows, [70 * mm, 50 * mm, 50 * mm]),
        Spacer(1, 2 * mm),
        grid(
            [[para("Outcome (optimal)"), para("Probability")]]
            + [[para(k.replace("_", " ")), para(f"{v:.6f}")] for k, v in outcomes.items()]
            + [[para("Ante row"), para("Odds / probability / contribution")]]
            + [
                [
                    para(r.get("row", "?")),
                    para(
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
    return f"{pct(computed)} ({c.get('definition')})"


def _figure_checks(title: str, figures: list[dict[str, Any]], note: str = "") -> list[Flowable]:
    """Claimed or published figures, each against the exact mathematics (nearest reading)."""
    if not figures:
        return []
    table = grid(
        [[para(h) for h in ("Figure", "Claimed", "Computed", "Status", "Source")]]
        + [
            [
                para(c.get("figure", "?"), SMALL),
                para(claimed_pct(c.get("claimed")), SMALL),
                para(_computed(c), SMALL),
                para(status_label(c.get("status", "")), SMALL),
                para(c.get("source", ""), SMALL),
            ]
            for c in figures
        ],
        [25 * mm, 17 * mm, 48 * mm, 18 * mm, 62 * mm],
    )
    return [
        heading(title, 1),
        colour_status(table, 3, [c.get("status") for c in figures]),
        *([para(note, SMALL)] if note else []),
    ]


def _published(findings: list[dict[str, Any]]) -> list[Flowable]:
    """Figures the game itself publishes (hello config.published), on its declared rules."""
    priced = sorted({str(f["priced_on"]) for f in findings if f.get("priced_on")})
    note = f"Priced on profile {', '.join(priced)} (the rules the game declares)." if priced else ""
    return _figure_checks("Published by the game", findings, note)


def _strategy(strategy: dict[str, Any]) -> list[Flowable]:
    out: list[Flowable] = [
        Spacer(1, 2 * mm),
        para(f"Optimal strategy: {strategy.get('rule', '')}"),
        grid(
            [[para("Hole + flop"), para("Share of deals"), para("Called")]]
            + [
                [
                    para(r.get("hand", "?"), SMALL),
                    para(f"{100 * r.get('share', 0):.2f}%"),
                    para(f"{100 * r.get('call_rate', 0):.2f}%"),
                ]
                for r in strategy.get("summary") or []
            ],
            [90 * mm, 40 * mm, 40 * mm],
        ),
    ]
    if strategy.get("file"):
        out.append(
            para(f"Strategy file {strategy['file']}, sha256 {strategy.get('sha256')}", SMALL)
        )
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
    return para(
        f"RTP simulation ({status_label(sim.get('status', ''))}): {sim['rounds']:,} rounds, "
        f"{sim.get('hands', 0):,} hands ({sim.get('dealt_by', 'dealt by the game')}), played "
        "optimally; every round re-settled by the oracle. Observed return per ante "
        f"{sim.get('observed_return_per_ante', float('nan')):+.5f}, "
        f"{100 * sim.get('confidence', 0):.0f}% interval {low:+.5f} .. {high:+.5f}; exact "
        f"{sim.get('exact_return_per_ante', float('nan')):+.5f}. {judged}"
    )
