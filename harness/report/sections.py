"""The report's sections, one function each, from the typed results (docs/report.md):
the summary, the failures of the game, the gaps, the traceability matrix, the
attestations, the RNG battery, the differential, the mathematics, the protocol checks,
what is out of scope and the manifest. harness/report/__init__.py puts them in order."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from reportlab.graphics.shapes import Drawing
from reportlab.lib.units import mm
from reportlab.platypus import (
    KeepTogether,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.flowables import Flowable

from harness.report.certificate import (
    game,
    hello_of,
    packed,
    verdict_lines,
)
from harness.report.charts import (
    ante_return_distribution,
    p_value_histogram,
    position_heatmap,
    rtp_interval,
)
from harness.report.failures import (
    cause_what,
    group_failures,
    stderr_block,
)
from harness.report.layout import heading
from harness.report.style import (
    CELL_LIMIT,
    LEAD,
    MAX_LEFT_OUT_SHOWN,
    MONO,
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
)
from harness.report.words import (
    base_of,
    is_variation,
    not_applicable_text,
    not_offered_text,
    reason_text,
    stakes_text,
    variation_line,
    varied_text,
    ways_to_close,
    why_text,
)
from harness.results.model import (
    Attestation,
    ClauseKind,
    ClauseRow,
    CorpusSection,
    Dieharder,
    DifferentialSection,
    Failure,
    FailureKind,
    Figure,
    Gap,
    ItemKind,
    Manifest,
    MathSection,
    OutOfScope,
    PlayFigures,
    ProfileInfo,
    Protocol,
    Publication,
    ReasonCode,
    Results,
    RngSection,
    RngStage,
    Selection,
    Simulation,
    StatTest,
    StrategyInfo,
)
from harness.results.outcomes import Status

MAX_CAUSES_SHOWN = 60  # causes drawn with a worked example; every failure is in results.json


def _status_line(prefix: str, status: Status, reason: str) -> Paragraph:
    """A section that holds no figures: its status and, when given, why."""
    shown = status_label(status)
    return para(f"{prefix}{shown}: {reason}" if reason else f"{prefix}{shown}")


def _close_text(needs: list[str]) -> str:
    """What would close a gap, each way once; an attestation always would."""
    return ", ".join(ways_to_close(needs))


def _selection_line(selection: Selection | None) -> list[Flowable]:
    """A selection is never a certificate: it gets a box no reader can miss."""
    if selection is None:
        return []
    shown = " ".join(f"{k} {v!r}" for k, v in selection.expressions.items()) or "(paths)"
    text = (
        f"<b>Selection {esc(shown)}: {selection.ran} of {selection.planned} items ran; "
        "a selection is never a certificate</b>"
    )
    cell: list[Flowable] = [Paragraph(text, LEAD)]
    left_out = selection.left_out
    if left_out:
        named = ", ".join(left_out[:MAX_LEFT_OUT_SHOWN])
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


def _shown_elsewhere(results: Results) -> set[ReasonCode]:
    """The reasons the headline gives in their own place: the selection in its box, the
    clauses not tested in the table of gaps."""
    shown: set[ReasonCode] = set()
    if results.selection is not None:
        shown.add(ReasonCode.SELECTION)
    if results.gaps:
        shown.add(ReasonCode.CLAUSES_NOT_TESTED)
    return shown


def _reasons(results: Results) -> list[Flowable]:
    """Why the run is incomplete, less what the selection box and the gaps already say."""
    skip = _shown_elsewhere(results)
    return [
        para(f"Incomplete: {reason_text(reason)}")
        for reason in results.incomplete_reasons
        if reason.code not in skip
    ]


def _refuted_figure(f: Failure, publication: Publication | None) -> Figure | None:
    """The figure a publication failure refutes, as the publication section records it:
    the refuted one of its list (claimed by the source, or published by the game) whose
    claimed and computed values the failure carries as expected and actual."""
    if publication is None:
        return None
    figures = (
        publication.published_by_game
        if f.item_kind == "published"
        else publication.claimed_by_source
    )
    return next(
        (
            g
            for g in figures
            if g.status is Status.FAIL and g.claimed == f.expected and g.computed == f.actual
        ),
        None,
    )


def _figure_finding(f: Failure, publication: Publication | None) -> str:
    """A refuted figure in a line: what was claimed, by whom, what the mathematics gives."""
    figure = _refuted_figure(f, publication)
    if f.item_kind == "published":
        by = "by the game (hello config.published)"
    else:
        by = "by the rules source" + (f" ({figure.source})" if figure is not None else "")
    clause = f" [{f.clause}]" if f.clause else ""
    reading = f.evidence.get("reading")
    return (
        f"{figure.figure if figure is not None else f.item}{clause}: claimed "
        f"{claimed_pct(f.expected)} {by}; computed {pct(f.actual)}"
        + (f" on the nearest reading, {reading}" if reading else "")
    )


def _publication_findings(results: Results) -> list[Flowable]:
    """Each refuted figure on its own line: the publication verdict's evidence."""
    found = [f for f in results.failures if f.kind is FailureKind.PUBLICATION]
    if not found:
        return []
    flow: list[Flowable] = [heading(f"Refuted figures ({len(found)})", 1)]
    flow += [para(f"\u2022 {_figure_finding(f, results.publication)}") for f in found]
    return flow


def _gaps(gaps: list[Gap]) -> list[Flowable]:
    """Clauses not tested, grouped by reason: why each was not, and what would close it."""
    if not gaps:
        return []
    groups: dict[tuple[str, str], list[Gap]] = {}
    for gap in gaps:
        why = "; ".join(why_text(w) for w in gap.why)
        groups.setdefault((why, _close_text(gap.to_close)), []).append(gap)
    rows: list[list[Any]] = [[para("Clauses"), para("Why not tested"), para("To close")]]
    for (why, close), members in groups.items():
        named = (
            f"{members[0].clause}: {members[0].title}"
            if len(members) == 1
            else ", ".join(g.clause for g in members)
        )
        rows.append([para(named, SMALL), para(why or "-", SMALL), para(close, SMALL)])
    return [
        heading(f"Clauses not tested ({len(gaps)})", 1),
        grid(rows, [70 * mm, 55 * mm, 45 * mm]),
    ]


FIRST_PAGE_CAUSES = 8


def _run_failures(results: Results) -> list[Flowable]:
    """The game's failures by cause, each with the command reproducing its first: what an
    auditor needs first (every failure, with evidence, is under Failures)."""
    found = [f for f in results.failures if f.kind is FailureKind.IMPLEMENTATION]
    if not found:
        return []
    groups = group_failures(found)
    title = f"Failures of the game ({len(found)}, {len(groups)} causes)"
    flow: list[Flowable] = [heading(title, 1)]
    for group in groups[:FIRST_PAGE_CAUSES]:
        first = group.members[0]
        what = cause_what(group.cause)
        count = len(group.members)
        flow.append(
            para(f"\u2022 {group.cause.clause or '-'}: {what} ({count}); first {first.item}")
        )
        if first.reproduce:
            flow.append(para(f"reproduce: {first.reproduce}", MONO))
    if len(groups) > FIRST_PAGE_CAUSES:
        flow.append(para(f"... and {len(groups) - FIRST_PAGE_CAUSES} more causes under Failures"))
    return flow


def headline(results: Results) -> list[Flowable]:
    """What an auditor reads first, under the banner: the two verdicts, the selection, why
    the run is incomplete, each refuted figure, each clause not tested."""
    return [
        *verdict_lines(results),
        *_selection_line(results.selection),
        *_reasons(results),
        *stderr_block(results.implementation_stderr, "The game's stderr (last lines):"),
        *_run_failures(results),
        *_publication_findings(results),
        *_gaps(results.gaps),
    ]


def _attestation_count(given: list[Attestation]) -> str:
    if not given:
        return "none"
    applied = sum(a.applied for a in given)
    return f"{len(given)} given: {applied} applied, {len(given) - applied} not applied"


def summary_section(results: Results) -> list[Flowable]:
    profile, manifest, vectors = results.profile, results.manifest, results.vectors
    clauses = results.clauses
    count = {s: sum(c.status is s for c in clauses) for s in Status}
    run = (
        f"{manifest.started} to {manifest.finished}, seed {manifest.seed}"
        if manifest is not None
        else "? to ?, seed ?"
    )
    rows = [
        ["Implementation", game(hello_of(results))],
        ["Adapter", results.adapter],
        ["Profile", _profile_line(profile)],
        [
            "Clauses",
            f"{len(clauses)}: {count[Status.PASS]} passed, {count[Status.FAIL]} failed, "
            f"{count[Status.NOT_TESTED]} not tested, {count[Status.ATTESTED]} attested",
        ],
        [
            "Vectors",
            f"{vectors.total}: {vectors.passed} passed, {vectors.failed} failed, "
            f"{vectors.errors} errors, {vectors.not_tested} not tested",
        ],
        ["Attestations", _attestation_count(results.attestations)],
        ["Run", run],
    ]
    return [
        Spacer(1, 3 * mm),
        grid([[para(a), para(b)] for a, b in rows], [35 * mm, 135 * mm], header=False),
    ]


def _profile_line(profile: ProfileInfo) -> str:
    """The profile by name and title, and what it varies when it is a variation."""
    line = f"{profile.name}: {profile.title}"
    if is_variation(profile):
        line += f" ({variation_line(profile)})"
    return line


def _clause_notes(c: ClauseRow) -> list[str]:
    notes = [reason_text(n) for n in c.notes]
    if c.failed:
        notes = [f"failed: {', '.join(c.failed)}", *notes]
    if c.status is Status.NOT_TESTED:
        notes.append(f"To close: {_close_text(c.to_close)}")
    return notes


def _source_tag(source: str) -> str:
    """A clause's source as the matrix cites it: "[000] Rules, bullet 1: ..." for
    "000_b7243a02efc0c650.txt: Rules, bullet 1: ..." (the legend above names [000])."""
    file, sep, ref = source.partition(": ")
    return f"[{file.split('_')[0]}] {ref}" if sep and file.endswith(".txt") else source


def _source_legend(clauses: list[ClauseRow], profile: ProfileInfo) -> list[Flowable]:
    """Each rules source the matrix cites, by its tag, title and file."""
    titles = {s.file: s.title for s in profile.sources}
    files = sorted(
        {
            s.partition(": ")[0]
            for c in clauses
            for s in c.sources
            if s.partition(": ")[0].endswith(".txt")
        }
    )
    if not files:
        return []
    rows = [
        [para(f"[{f.split('_')[0]}]", SMALL), para(f"{titles.get(f) or 'untitled'} ({f})", SMALL)]
        for f in files
    ]
    return [para("Rules sources cited below:", SMALL), grid(rows, [14 * mm, 156 * mm], False)]


def _clause_cell(c: ClauseRow, base: str | None) -> list[Flowable]:
    """A clause's title, what an approved variation changes of it, its sources, notes."""
    varied = packed([varied_text(v, base) for v in c.varied], "") if c.varied else []
    marked = [f"<b>varied:</b> {esc(line, CELL_LIMIT)}" for line in varied[:1]]
    return [
        para(c.title, SMALL),
        *[Paragraph(line, SMALL) for line in marked],
        *[para(line, SMALL) for line in varied[1:]],
        para("; ".join(_source_tag(s) for s in c.sources), SMALL),
        *[para(n, SMALL) for n in _clause_notes(c)],
    ]


def _clause_matrix(clauses: list[ClauseRow], base: str | None) -> Table:
    """Rules clauses: each verified by vectors and checks the profile plans."""
    head = ("Clause", "Rule and source", "Result", "Vectors", "Checks")
    rows: list[list[Any]] = [[para(h, SMALL) for h in head]]
    for c in clauses:
        rows.append(
            [
                para(c.id, SMALL),
                _clause_cell(c, base),
                para(status_label(c.status), SMALL),
                para(c.vectors, SMALL),
                para(c.checks, SMALL),
            ]
        )
    table = grid(rows, [24 * mm, 104 * mm, 16 * mm, 13 * mm, 13 * mm])
    return colour_status(table, 2, [c.status for c in clauses])


def _figure_matrix(clauses: list[ClauseRow], base: str | None) -> Table:
    """Published figures: each clause a figure its source claims, checked by exact mathematics."""
    rows: list[list[Any]] = [
        [para(h, SMALL) for h in ("Clause", "Figure and source", "Result", "Finding")]
    ]
    for c in clauses:
        findings = [i for i in c.items if i.kind is ItemKind.CLAIM]
        rows.append(
            [
                para(c.id, SMALL),
                _clause_cell(c, base),
                para(status_label(c.status), SMALL),
                [para(i.message, SMALL) for i in findings],
            ]
        )
    table = grid(rows, [24 * mm, 84 * mm, 16 * mm, 46 * mm])
    return colour_status(table, 2, [c.status for c in clauses])


def traceability_section(clauses: list[ClauseRow], profile: ProfileInfo) -> list[Flowable]:
    """The matrix, split as the verdicts are: rules clauses, then published figures."""
    rules = [c for c in clauses if c.kind is not ClauseKind.PUBLICATION]
    figures = [c for c in clauses if c.kind is ClauseKind.PUBLICATION]
    base = base_of(profile)
    flow: list[Flowable] = [heading("Clause traceability")]
    if is_variation(profile):
        flow.append(
            para(
                f"The profile is an {variation_line(profile)}: its clauses "
                "apply, and a clause whose statement the variation changes is marked "
                "varied, with the approved value and the base's.",
                SMALL,
            )
        )
    if profile.not_applicable:
        flow.append(para(not_applicable_text(profile.not_applicable, base), SMALL))
    if profile.not_offered:
        flow.append(para(not_offered_text(profile.not_offered), SMALL))
    if not clauses:
        return [*flow, para("No clause was judged.")]
    flow += _source_legend(clauses, profile)
    if rules:
        flow += [heading(f"Rules clauses ({len(rules)})", 1), _clause_matrix(rules, base)]
    if figures:
        flow += [
            heading(f"Published figures ({len(figures)})", 1),
            _figure_matrix(figures, base),
        ]
    return flow


def attestations_section(entries: list[Attestation]) -> list[Flowable]:
    """The laboratory's attestations: which closed a gap, which were not needed or rejected."""
    flow: list[Flowable] = [heading("Attestations")]
    if not entries:
        return [*flow, para("None were given.")]
    head = ("Clause", "Result", "By, date", "Evidence", "Applied")
    rows: list[list[Any]] = [[para(h, SMALL) for h in head]]
    for a in entries:
        applied = "applied" if a.applied else "not applied"
        note = f": {a.note}" if a.note else ""
        rows.append(
            [
                para(a.clause, SMALL),
                para(status_label(a.result), SMALL),
                para(f"{a.by}, {a.date}", SMALL),
                para(a.evidence, SMALL),
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
                    STATUS_COLOURS["attested" if a.applied else "not_tested"],
                )
                for i, a in enumerate(entries, start=1)
            ]
        )
    )
    return [*flow, table]


def differential_section(
    section: DifferentialSection | None, corpus: CorpusSection | None
) -> list[Flowable]:
    """The differential check and the generated corpus: how much ran, how strong it was."""
    flow: list[Flowable] = [heading("Differential conformance and generated corpus")]
    if section is None and corpus is None:
        return [*flow, para("Not available: this results file records neither.")]
    if section is not None:
        flow += _differential_lines(section)
    if corpus is not None:
        flow.append(
            para(
                f"Generated corpus: {status_label(corpus.status)}. {corpus.ran:,} of "
                f"{corpus.vectors:,} vectors replayed in {corpus.items} items, "
                f"{corpus.failed:,} failed, {corpus.not_tested:,} could not be asked of the game."
                + (f" Stakes: {stakes_text(corpus.stakes)}." if stakes_text(corpus.stakes) else "")
            )
        )
    return flow


def _differential_lines(section: DifferentialSection) -> list[Flowable]:
    """How many seat-hands the differential dealt and how, how many disagreed, the
    smallest fault rate it finds, and the causes it attributed to clauses."""
    strata, rate = section.strata, section.detectable_fault_rate
    head = (
        f"Differential: {status_label(section.status)}. "
        f"{section.seat_hands:,} seat-hands in {section.rounds:,} stacked rounds from the "
        f"seed ({section.shards_run} of {section.shards} shards): "
        f"{section.uniform_seat_hands:,} uniform, {section.stratified_seat_hands:,} "
        f"stratified; strata at quota {strata.quota}: {strata.met} of {strata.total} met"
        + (f" (short: {', '.join(sorted(strata.short))})" if strata.short else "")
        + f". {section.disagreeing_seat_hands:,} seat-hands disagreed with the "
        f"oracle. A fault in one hand in {1 / rate:,.0f} or more often is found with 99% "
        f"probability (rate {rate:.2e}, from the uniform part)."
    )
    if section.reason:
        head += f" {section.reason}."
    flow: list[Flowable] = [para(head)]
    if section.causes:
        rows = [[para("Clause"), para("Fault kind"), para("Detail"), para("Seat-hands")]] + [
            [
                para(c.clause, SMALL),
                para(c.kind, SMALL),
                para(c.detail, SMALL),
                para(f"{c.count:,}", SMALL),
            ]
            for c in section.causes
        ]
        flow.append(grid(rows, [30 * mm, 35 * mm, 75 * mm, 25 * mm]))
    return flow


def rng_section(section: RngSection | None) -> list[Flowable]:
    if section is None:
        return [_status_line("RNG: ", Status.NOT_TESTED, "")]
    if not section.tests:
        return [_status_line("RNG: ", section.status, section.reason)]
    power = 0.8 if section.power is None else section.power
    verdict = "PASS" if section.passed else "FAIL"
    flow: list[Flowable]
    if section.stage1_passed is None:  # a file from before the two stages: one battery
        head = (
            f"RNG: {verdict}. {section.decks:,} decks from the "
            f"game's shuffle; family-wise alpha {section.alpha} with {section.correction} "
            f"correction; 'detects' is the smallest bias found with {100 * power:.0f}% power."
        )
        flow = [para(head), _rng_tests(section.tests)]
    else:
        second = section.stage2 or RngStage(ran=False)
        rate = section.false_fail_rate
        if section.gross_alpha is None:  # schema 6 or before: stage 2 on the fresh sample
            how = (
                "a rejection by stage 1 is confirmed on a fresh, independent sample from the "
                "game before the clause fails"
            )
        else:
            how = (
                f"a rejection by stage 1 below {section.gross_alpha} (Holm-adjusted) fails at "
                "once; any other is confirmed on stage 1's sample and a fresh one from the "
                "game together before the clause fails"
            )
        head = (
            f"RNG: {verdict}. Two stages: {how}; {section.correction} correction in each, so "
            "a fair shuffle fails "
            + (f"at most {rate:.1e} of the time" if rate is not None else "rarely")
            + f". 'Detects' is the smallest bias each test finds with {100 * power:.0f}% power "
            "at its stage's alpha and sample size."
        )
        failed = [t.name for t in section.tests if not t.passed]
        flow = [
            para(head),
            para(
                f"Stage 1: {section.decks:,} decks{_raw_bytes(section.raw_bytes)}, family-wise "
                f"alpha {section.alpha}: "
                + ("passed." if section.stage1_passed else f"rejected ({', '.join(failed)}).")
            ),
            _rng_tests(section.tests),
        ]
        if not second.ran:
            why = second.reason or "stage 1 rejected nothing"
            flow.append(para(f"Stage 2 (family-wise alpha {second.alpha}): not run ({why})."))
        else:
            confirmed = [t.name for t in second.tests if not t.passed]
            outcome = (
                f"rejected too ({', '.join(confirmed)}): the failure is confirmed."
                if second.passed is False
                else "passed: stage 1's rejection is not confirmed, and the shuffle passes."
            )
            sample = (
                f"{second.decks:,} fresh decks"
                if second.fresh_decks is None
                else f"{second.decks:,} decks, {second.fresh_decks:,} of them fresh"
            )
            flow += [
                para(
                    f"Stage 2: {sample}{_raw_bytes(second.raw_bytes)}, "
                    f"family-wise alpha {second.alpha}: {outcome}"
                ),
                _rng_tests(second.tests),
                para("The charts below show stage 1's sample."),
            ]
    return [
        *flow,
        para(_dieharder_line(section.dieharder)),
        _chart(position_heatmap(section.position_counts, section.decks), "card x position"),
        _chart(p_value_histogram(section.position_p_values), "per-position p-values"),
    ]


def _raw_bytes(count: int) -> str:
    return f" and {count:,} bytes of raw RNG output" if count else ""


def _rng_tests(tests: list[StatTest]) -> Flowable:
    """One stage's table: each test's statistic, p, Holm-adjusted p, result, what it detects."""
    rows: list[list[Any]] = [
        [para(h) for h in ("Test", "Statistic", "p", "p (Holm)", "", "Detects")]
    ]
    for t in tests:
        rows.append(
            [
                para(t.name, SMALL),
                para(number(t.statistic), SMALL),
                para(number(t.p_value, 3), SMALL),
                para(number(t.p_adjusted, 3), SMALL),
                para("pass" if t.passed else "FAIL", SMALL),
                para(t.detects, SMALL),
            ]
        )
    return grid(rows, [32 * mm, 18 * mm, 15 * mm, 15 * mm, 10 * mm, 80 * mm])


def _dieharder_line(die: Dieharder | None) -> str:
    """dieharder's assessments, informational: the section as harness/gamemath/rng.py wrote it."""
    if die is None or not die.ran:
        return f"dieharder did not run: {die.reason if die else 'not installed'}"
    shown = ", ".join(f"{t.name} {t.assessment}" for t in die.tests)
    return f"dieharder ran on {die.bytes or 0:,} bytes (informational): {shown}"


def _chart(drawing: Drawing | None, what: str) -> Flowable:
    """A chart, or why it is not drawn (older results files do not record its data)."""
    if drawing is None:
        return para(f"Chart of the {what} not drawn: this results file does not record it.")
    return KeepTogether([Spacer(1, 3 * mm), drawing])


def protocol_checks_section(protocol: Protocol | None) -> list[Flowable]:
    checks = protocol.checks if protocol is not None else []
    if not checks:
        return []
    table = grid(
        [[para("Check"), para("Clause"), para("Status"), para("Message")]]
        + [
            [
                para(c.name, SMALL),
                para(c.clause, SMALL),
                para(status_label(c.status), SMALL),
                para(c.message, SMALL),
            ]
            for c in checks
        ],
        [35 * mm, 25 * mm, 18 * mm, 92 * mm],
    )
    return [
        heading("Protocol and declaration checks"),
        colour_status(table, 2, [c.status for c in checks]),
    ]


def out_of_scope_section(out: list[OutOfScope]) -> list[Flowable]:
    if not out:
        return []
    return [
        heading("Source text out of scope"),
        grid(
            [[para("Source"), para("Text"), para("Why out of scope")]]
            + [
                [
                    para(_source_tag(f"{o.source}: ").strip(), SMALL),
                    para(o.ref, SMALL),
                    para(o.reason, SMALL),
                ]
                for o in out
            ],
            [16 * mm, 94 * mm, 60 * mm],
        ),
    ]


def manifest_section(manifest: Manifest | None) -> list[Flowable]:
    """Every entry of the manifest as results.json holds it: a value that is no string
    as JSON."""
    if manifest is None:
        return [heading("Manifest"), para("Not recorded: the run stopped before its end.")]
    entries = msgspec.to_builtins(manifest).items()
    return [
        heading("Manifest"),
        grid(
            [
                [para(k, SMALL), para(v if isinstance(v, str) else json.dumps(v), MONO)]
                for k, v in entries
            ],
            [35 * mm, 135 * mm],
            header=False,
        ),
    ]


def math_section(section: MathSection | None, publication: Publication | None) -> list[Flowable]:
    """Exact figures, claims, the optimal strategy's summary and the RTP simulation."""
    if section is None:
        return [_status_line("", Status.NOT_TESTED, "")]
    opt = section.optimal
    if section.status is not Status.PASS or opt is None:
        return [_status_line("", section.status, section.reason)]
    out: list[Flowable] = [para(f"Method: {section.method}.")]
    out += _figures(section, opt, section.always_call)
    out += _figure_checks("Claimed by the rules source", section.claims)
    out += _published(publication.published_by_game if publication is not None else [])
    out.append(_chart(ante_return_distribution(opt.rows), "ante rows' returns"))
    out += _strategy(section.strategy or StrategyInfo())
    simulation = section.simulation
    out.append(_simulation(simulation))
    if simulation.rounds:
        out.append(_chart(rtp_interval(simulation), "simulation's interval"))
    return out


FIGURES = (
    "house edge per ante",
    "RTP per ante",
    "element of risk (per total wager)",
    "RTP per total wager",
    "raise frequency",
)


def _play(figures: PlayFigures | None) -> list[float | None]:
    """A strategy's figures in the order of FIGURES; none for a strategy not computed."""
    if figures is None:
        return [None] * len(FIGURES)
    return [
        figures.house_edge,
        figures.rtp,
        figures.element_of_risk,
        figures.rtp_per_total_wager,
        figures.raise_frequency,
    ]


def _figures(section: MathSection, opt: PlayFigures, always: PlayFigures | None) -> list[Flowable]:
    rows = [[para("Figure"), para("Optimal strategy"), para("Always call")]]
    rows += [
        [para(label), para(pct(o)), para(pct(a))]
        for label, o, a in zip(FIGURES, _play(opt), _play(always), strict=True)
    ]
    if isinstance(section.aa_bonus_edge, float):
        rows.append([para("AA Bonus house edge"), para(pct(section.aa_bonus_edge)), para("")])
    return [
        grid(rows, [70 * mm, 50 * mm, 50 * mm]),
        Spacer(1, 2 * mm),
        grid(
            [[para("Outcome (optimal)"), para("Probability")]]
            + [[para(k.replace("_", " ")), para(f"{v:.6f}")] for k, v in opt.outcomes.items()]
            + [[para("Ante row"), para("Odds / probability / contribution")]]
            + [
                [
                    para(r.row),
                    para(f"{r.odds} to 1 / {r.probability:.8f} / {r.contribution:.8f}"),
                ]
                for r in opt.rows
            ],
            [70 * mm, 100 * mm],
        ),
    ]


def _computed(c: Figure) -> str:
    if c.computed is None:
        return f"- ({c.reason})" if c.reason else "-"
    return f"{pct(c.computed)} ({c.definition})"


def _figure_checks(title: str, figures: list[Figure], note: str = "") -> list[Flowable]:
    """Claimed or published figures, each against the exact mathematics (nearest reading)."""
    if not figures:
        return []
    table = grid(
        [[para(h) for h in ("Figure", "Claimed", "Computed", "Status", "Source")]]
        + [
            [
                para(c.figure, SMALL),
                para(claimed_pct(c.claimed), SMALL),
                para(_computed(c), SMALL),
                para(status_label(c.status), SMALL),
                para(c.source, SMALL),
            ]
            for c in figures
        ],
        [25 * mm, 17 * mm, 48 * mm, 18 * mm, 62 * mm],
    )
    return [
        heading(title, 1),
        colour_status(table, 3, [c.status for c in figures]),
        *([para(note, SMALL)] if note else []),
    ]


def _published(findings: list[Figure]) -> list[Flowable]:
    """Figures the game itself publishes (hello config.published), on its declared rules."""
    priced = sorted({f.priced_on for f in findings if f.priced_on})
    note = f"Priced on profile {', '.join(priced)} (the rules the game declares)." if priced else ""
    return _figure_checks("Published by the game", findings, note)


def _strategy(strategy: StrategyInfo) -> list[Flowable]:
    out: list[Flowable] = [
        Spacer(1, 2 * mm),
        para(f"Optimal strategy: {strategy.rule}"),
        grid(
            [[para("Hole + flop"), para("Share of deals"), para("Called")]]
            + [
                [
                    para(r.hand, SMALL),
                    para(f"{100 * r.share:.2f}%"),
                    para(f"{100 * r.call_rate:.2f}%"),
                ]
                for r in strategy.summary
            ],
            [90 * mm, 40 * mm, 40 * mm],
        ),
    ]
    if strategy.file:
        out.append(para(f"Strategy file {strategy.file}, sha256 {strategy.sha256}", SMALL))
    return out


def _or_nan(value: float | None) -> float:
    """A figure not recorded, as a number that prints as nan."""
    return float("nan") if value is None else value


def _simulation(sim: Simulation) -> Paragraph:
    if not sim.rounds:
        return _status_line("RTP simulation: ", sim.status, sim.reason)
    low, high = sim.interval or (float("nan"), float("nan"))
    if sim.interval_judged is not False:
        judged = (
            f"Shifts beyond about {_or_nan(sim.detectable_shift):.3f} antes per "
            "hand are detectable at this size."
        )
    else:
        judged = (
            "The rounds were stacked from the seed, so the interval judges only the "
            "harness's own draw: it is information, not a test of the game."
        )
    return para(
        f"RTP simulation ({status_label(sim.status)}): {sim.rounds:,} rounds, "
        f"{sim.hands:,} hands ({sim.dealt_by or 'dealt by the game'}), played "
        "optimally; every round re-settled by the oracle. Observed return per ante "
        f"{_or_nan(sim.observed_return_per_ante):+.5f}, "
        f"{100 * (sim.confidence or 0):.0f}% interval {low:+.5f} .. {high:+.5f}; exact "
        f"{_or_nan(sim.exact_return_per_ante):+.5f}. {judged}"
    )
