"""The certificate page: what an auditor files, a regulator reads first.

The verdict in the words a certificate uses (CERTIFIED, NOT CERTIFIED, INCOMPLETE),
the two verdicts it is the worse of, then what was certified and by whom: the game as
it declared itself, the build submitted (each file's SHA-256), the profile with its
rules sources by title, the laboratory's details from the run plan (docs/run-plan.md),
and the report's identity: its id and the SHA-256 of the results.json it was drawn
from, which travels inside the PDF (docs/signing.md) so `chcert verify` can compare
the two.
"""

from __future__ import annotations

import json
from typing import Any

from reportlab.graphics.barcode.qr import QrCodeWidget
from reportlab.graphics.shapes import Drawing
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import KeepInFrame, Paragraph, Spacer, Table, TableStyle
from reportlab.platypus.flowables import Flowable

from harness.report.style import (
    BODY,
    CELL_LIMIT,
    H1,
    LEAD,
    MONO,
    NOT_VALID,
    SMALL,
    VERDICT_COLOURS,
    WIDTH,
    esc,
    grid,
    para,
)
from harness.report.words import (
    base_of,
    count,
    is_variation,
    pay_table_text,
    plan_line,
    table_lines,
    variation_line,
    varied_text,
)
from harness.results.model import (
    ClauseKind,
    EvidenceSection,
    FailureKind,
    Manifest,
    ProfileInfo,
    Results,
    TableSection,
)
from harness.results.outcomes import Status, Verdict
from harness.signing.attachment import hash_line

# The certificate's word for each verdict (docs/verdict.md).
CERTIFICATE_WORDS = {"PASS": "CERTIFIED", "FAIL": "NOT CERTIFIED", "INCOMPLETE": "INCOMPLETE"}
ATTACHED = (
    "results.json is attached to this PDF. chcert verify checks that it matches the hash "
    "above and, where the PDF is signed, that nothing changed since the signature "
    "(docs/signing.md)."
)
NOT_ATTACHED = (
    "results.json could not be attached to this PDF: compare the hash above with the "
    "results.json archived beside it (sha256sum results.json)."
)
NOT_STATED = "not stated (give it in the run plan's [laboratory] table, docs/run-plan.md)"
_TITLE = ParagraphStyle("title", parent=H1, fontSize=17, leading=21, spaceAfter=2)
_SUBTITLE = ParagraphStyle("subtitle", parent=BODY, fontSize=10, leading=13, spaceAfter=6)
_BANNER = ParagraphStyle("banner", parent=H1, textColor=colors.white, alignment=TA_CENTER)


def certificate_word(verdict: str) -> str:
    """CERTIFIED, NOT CERTIFIED or INCOMPLETE; NOT VALID for a verdict that cannot stand."""
    return CERTIFICATE_WORDS.get(verdict, NOT_VALID)


def verdict_banner(verdict: str) -> Table:
    word = certificate_word(verdict)
    shown = f"{word} \u2014 VERDICT: {verdict}" if word != NOT_VALID else f"VERDICT: {NOT_VALID}"
    banner = Table([[Paragraph(f"<b>{esc(shown)}</b>", _BANNER)]], colWidths=[WIDTH])
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
    tail = f" \u2014 {esc(comment)}" if comment else ""
    return Paragraph(
        f'{esc(label)}: <font color="#{colour}"><b>{esc(verdict)}</b></font>{tail}', LEAD
    )


def _implementation_comment(results: Results, verdict: Verdict) -> str:
    """Which clauses failed, or how many were not tested: the verdict's reason in a line."""
    rows = [c for c in results.clauses if c.kind is not ClauseKind.PUBLICATION]
    if verdict is Verdict.FAIL:
        failed = [c.id for c in rows if c.status is Status.FAIL]
        failed += [
            f.item
            for f in results.failures
            if f.kind is FailureKind.IMPLEMENTATION and not f.clause
        ]
        return f"failed: {', '.join(failed)}" if failed else ""
    untested = sum(c.status is Status.NOT_TESTED for c in rows)
    if verdict is Verdict.INCOMPLETE and untested:
        return f"{untested} of {len(rows)} clauses not tested"
    return ""


def _publication_comment(implementation: Verdict, publication: Verdict) -> str:
    """A refuted figure is the documentation's fault, whatever the play: say which is which."""
    if publication is not Verdict.FAIL:
        return ""
    if implementation is Verdict.PASS:
        return "the game's documentation, not its play, is at fault"
    if implementation is Verdict.FAIL:
        return "the game's documentation is at fault, and so is its play"
    return "the game's documentation is at fault; its play was not fully tested"


def verdict_lines(results: Results) -> list[Flowable]:
    """The two verdicts the run's verdict is the worse of."""
    implementation, publication = results.implementation_verdict, results.publication_verdict
    return [
        _verdict_line(
            "Implementation (clauses verified by vectors and checks)",
            implementation,
            _implementation_comment(results, implementation),
        ),
        _verdict_line(
            "Published figures (claimed by the rules source or by the game)",
            publication,
            _publication_comment(implementation, publication),
        ),
    ]


def hello_of(results: Results) -> dict[str, Any]:
    """The game's hello as it sent it, when it is an object: the game's words, not chcert's,
    so read key by key (`{}` when the game never answered, or answered something else)."""
    return results.implementation if isinstance(results.implementation, dict) else {}


def game(hello: dict[str, Any]) -> str:
    """The game as it names itself: "chcert-reference 0.1.0"."""
    return f"{hello.get('name', '?')} {hello.get('version', '')}".strip()


def _limits(limits: Any) -> str:
    if not isinstance(limits, dict) or not limits:
        return "none declared"
    shown = []
    for wager, bounds in limits.items():
        if isinstance(bounds, list) and len(bounds) == 2:
            shown.append(f"{wager.replace('_', ' ')} {count(bounds[0])} to {count(bounds[1])}")
        else:
            shown.append(f"{wager}: {json.dumps(bounds, default=str)}")
    return "; ".join(shown) + " (minor units)"


def _configuration(hello: dict[str, Any], table: TableSection | None) -> list[Flowable]:
    """The rules the game says it plays (hello config), one line each, then its table as
    the run read it (schema 6 on): limits and house rules, what the profile requires of
    a table, the stakes played; its limits as declared where it declared no valid table
    or the file records none."""
    config = hello.get("config")
    lines = []
    if isinstance(config, dict):
        qualifier = str(config.get("dealer_qualifier", "?")).replace("_", " ")
        lines += [
            f"Ante pays: {pay_table_text(config.get('ante_pay_table'))}",
            f"AA Bonus pays: {pay_table_text(config.get('aa_bonus_pay_table'))}",
            f"Dealer qualifies with {qualifier} or better; call "
            f"{config.get('call_multiple', '?')} x ante",
        ]
        if table is None:
            lines.append(f"Limits: {_limits(config.get('limits'))}")
        elif table.ante is None:
            lines.append(f"Limits as declared: {_limits(config.get('limits'))}")
    elif table is None:
        return [para("not declared", SMALL)]
    else:
        lines.append("not declared")
    if table is not None:
        lines += table_lines(table)
    if isinstance(config, dict):
        capabilities = ", ".join(map(str, hello.get("capabilities") or [])) or "none"
        lines.append(f"Capabilities: {capabilities}")
    return [para(line, SMALL) for line in lines]


def _artifacts(manifest: Manifest | None) -> list[Flowable]:
    artifacts = manifest.artifacts if manifest is not None else None
    if not artifacts:
        return [
            para(
                "none submitted: the build is identified only by the name and version the "
                "game reports (chcert certify --artifact FILE hashes each file)",
                SMALL,
            )
        ]
    out: list[Flowable] = [
        para(
            "as declared by the submitter: chcert hashes these files; it cannot see that "
            "the game it played was built from them",
            SMALL,
        )
    ]
    for a in artifacts:
        out.append(para(f"{a.name} ({count(a.bytes)} bytes)", SMALL))
        out.append(para(f"SHA-256 {a.sha256}", MONO))
    return out


def _sources(profile: ProfileInfo) -> list[Flowable]:
    """The profile's rules sources by title; a file from before they were recorded
    (schema 2) still has them in the profile as loaded."""
    shown = [_source_line(s.title or s.file, s.ref) for s in profile.sources]
    shown = shown or _loaded_sources(profile.resolved)
    return [para(line, SMALL) for line in shown] or [para("not recorded", SMALL)]


def _source_line(title: str, ref: str) -> str:
    return f"{title} ({ref})" if ref else title


def _loaded_sources(resolved: dict[str, Any]) -> list[str]:
    """The sources of the profile as loaded: the profile file's own words, not chcert's."""
    sources = resolved.get("sources")
    return [
        _source_line(str(s.get("title") or s.get("file", "?")), str(s.get("ref") or ""))
        for s in (sources if isinstance(sources, list) else [])
        if isinstance(s, dict)
    ]


def _laboratory(manifest: Manifest | None) -> list[list[Any]]:
    lab = (manifest.laboratory if manifest is not None else None) or {}
    rows = [
        ("Laboratory", lab.get("name")),
        ("Report number", lab.get("report_number")),
        ("Jurisdiction / standard", _jurisdiction(lab)),
        ("Signatory", lab.get("signatory")),
    ]
    shown = [[para(label, SMALL), para(value or NOT_STATED, SMALL)] for label, value in rows]
    entry = lab.get("register")
    if entry:  # the laboratory's register numbered it (docs/register.md)
        shown.append([para("Register entry", SMALL), _register_entry(str(entry))])
    return shown


QR_SIDE = 24 * mm


def _register_entry(url: str) -> Table:
    """The register's page for this report, as its address and a QR code of it, for a
    regulator or operator holding the report to look its status up."""
    widget = QrCodeWidget(url, barLevel="M")
    left, bottom, right, top = widget.getBounds()
    drawing = Drawing(
        QR_SIDE, QR_SIDE, transform=[QR_SIDE / (right - left), 0, 0, QR_SIDE / (top - bottom), 0, 0]
    )
    drawing.add(widget)
    words = [para(url, SMALL), para("its status now: scan the code or open the address", SMALL)]
    table = Table([[drawing, words]], colWidths=[QR_SIDE + 2 * mm, None])
    table.setStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (-1, -1), 0)])
    return table


def _evidence(section: EvidenceSection | None) -> list[Flowable]:
    """The samples the verdict rests on, each against its minimum (docs/verdict.md#evidence)."""
    if section is None:
        return [para("not recorded (a results file from before minimum samples)", SMALL)]
    lines = []
    for s in section.samples:
        size = f"{count(s.size)} {s.what}"
        if not s.judged:
            lines.append(f"{size}: the check did not run to a verdict")
        else:
            mark = "" if s.met else " - BELOW THE MINIMUM"
            lines.append(f"{size} (minimum {count(s.minimum)}){mark}")
    lines.append(f"minimums from {section.minimums.source}")
    return [para(line, SMALL) for line in lines]


def _profile(profile: ProfileInfo, manifest: Manifest | None) -> list[Flowable]:
    """The profile by name and title, and, when it was read from a file rather than
    chcert's bundled profile of that name, a line of its own saying so (a long title
    cannot push it out of the cell), then the file and its SHA-256: a copy may keep the
    name and change the tables."""
    shown = [para(f"{profile.name}: {profile.title}", SMALL)]
    if is_variation(profile):
        base = base_of(profile)
        said = [varied_text(v, base) for v in profile.variations] or ["nothing changed"]
        head = f"{variation_line(profile)}: "
        shown += [para(line, SMALL) for line in packed(said, head)]
    if manifest is None:
        return shown
    given = manifest.run_plan.get("profile")
    if given and given != profile.name:
        shown.append(para("not chcert's bundled profile: read from a file", SMALL))
        shown.append(para(str(given), SMALL))
        shown.append(para(f"SHA-256 {manifest.profile_sha256}", MONO))
    return shown


def packed(said: list[str], head: str) -> list[str]:
    """Phrases joined by "; " into as few lines as a cell shows whole (each under
    CELL_LIMIT, a phrase longer than that on its own), the first led by `head`."""
    lines: list[str] = []
    line = head
    for phrase in said:
        if line not in ("", head) and len(line) + 2 + len(phrase) > CELL_LIMIT:
            lines.append(line)
            line = ""
        line = f"{line}; {phrase}" if line not in ("", head) else line + phrase
    return [*lines, line]


def _plan(record: dict[str, Any] | None) -> str:
    return "none" if record is None else plan_line(record)


def _jurisdiction(lab: dict[str, str]) -> str | None:
    shown = [str(lab[k]) for k in ("jurisdiction", "standard") if lab.get(k)]
    return "; ".join(shown) or None


def contradiction(problem: str) -> Paragraph:
    """Why a results file's verdict cannot stand, where its verdict would be."""
    return para(f"This results file contradicts itself and certifies nothing: {problem}.", LEAD)


def certificate(
    results: Results, problem: str | None, report_id: str, data: bytes, attached: bool
) -> list[Flowable]:
    """The first page: the verdict, the game, the build, the profile, who certified it;
    shrunk to fit the page should it list more than one holds."""
    verdict = str(results.verdict) if problem is None else NOT_VALID
    said = hello_of(results)
    manifest = results.manifest
    flow: list[Flowable] = [
        Paragraph("Casino Hold'em certification report", _TITLE),
        para("A game's conformance to the rules profile named below, as tested", _SUBTITLE),
        verdict_banner(verdict),
    ]
    if problem is not None:
        flow.append(contradiction(problem))
    flow += [Spacer(1, 2 * mm), *verdict_lines(results), Spacer(1, 2 * mm)]
    protocol = said.get("protocol", "?")
    rows: list[list[Any]] = [
        [para("Game", SMALL), para(f"{game(said)} (protocol {protocol})", SMALL)],
        [para("Declared configuration", SMALL), _configuration(said, results.table)],
        [para("Build submitted", SMALL), _artifacts(manifest)],
        [para("Adapter", SMALL), para(results.adapter or "?", SMALL)],
        [para("Profile", SMALL), _profile(results.profile, manifest)],
        [para("Profile's rules sources", SMALL), _sources(results.profile)],
        *_laboratory(manifest),
        [para("Evidence", SMALL), _evidence(results.evidence)],
        *_run_rows(manifest),
        [para("Report id", SMALL), para(report_id, SMALL)],
        [para("Results", SMALL), para(hash_line(data), MONO)],  # chcert verify reads it
    ]
    flow.append(grid(rows, [38 * mm, 132 * mm], header=False))
    flow.append(para(ATTACHED if attached else NOT_ATTACHED, SMALL))
    # One page, whatever it lists (a variation's many rows, a long build): drawn a little
    # smaller rather than spilling onto the contents' page.
    return [KeepInFrame(0, 0, flow, mode="shrink")]


def _run_rows(manifest: Manifest | None) -> list[list[Any]]:
    """The run's seed, plan, date and harness, from its manifest ("not recorded" when the
    run stopped before writing one)."""
    if manifest is None:
        shown = ["not recorded", "none", "not recorded", "chcert ?"]
    else:
        shown = [
            str(manifest.seed),
            _plan(manifest.plan),
            manifest.finished[:10] or "not recorded",
            f"chcert {manifest.harness_version}",
        ]
    labels = ("Seed", "Run plan", "Date of issue", "Harness")
    return [
        [para(label, SMALL), para(value, SMALL)] for label, value in zip(labels, shown, strict=True)
    ]
