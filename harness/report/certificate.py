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

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, Spacer, Table, TableStyle
from reportlab.platypus.flowables import Flowable

from harness.report.seal import hash_line
from harness.report.style import (
    BODY,
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


def verdict_lines(results: dict[str, Any]) -> list[Flowable]:
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


def _grouped(value: Any) -> str:
    """An integer with thousands separators: money in minor units, as the game declares
    it, and counts of decks, rounds and bytes."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _pay_table(table: Any) -> str:
    if not isinstance(table, dict) or not table:
        return "none"
    return ", ".join(f"{str(k).replace('_', ' ')} {v} to 1" for k, v in table.items())


def _limits(limits: Any) -> str:
    if not isinstance(limits, dict) or not limits:
        return "none declared"
    shown = []
    for wager, bounds in limits.items():
        if isinstance(bounds, list) and len(bounds) == 2:
            shown.append(
                f"{wager.replace('_', ' ')} {_grouped(bounds[0])} to {_grouped(bounds[1])}"
            )
        else:
            shown.append(f"{wager}: {json.dumps(bounds, default=str)}")
    return "; ".join(shown) + " (minor units)"


def _configuration(implementation: dict[str, Any]) -> list[Flowable]:
    """The rules the game says it plays (hello config), one line each."""
    config = implementation.get("config")
    if not isinstance(config, dict):
        return [para("not declared", SMALL)]
    qualifier = str(config.get("dealer_qualifier", "?")).replace("_", " ")
    lines = [
        f"Ante pays: {_pay_table(config.get('ante_pay_table'))}",
        f"AA Bonus pays: {_pay_table(config.get('aa_bonus_pay_table'))}",
        f"Dealer qualifies with {qualifier} or better; call "
        f"{config.get('call_multiple', '?')} x ante",
        f"Limits: {_limits(config.get('limits'))}",
        f"Capabilities: {', '.join(map(str, implementation.get('capabilities') or [])) or 'none'}",
    ]
    return [para(line, SMALL) for line in lines]


def _artifacts(manifest: dict[str, Any]) -> list[Flowable]:
    artifacts = [a for a in manifest.get("artifacts") or [] if isinstance(a, dict)]
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
        out.append(para(f"{a.get('name', '?')} ({_grouped(a.get('bytes', '?'))} bytes)", SMALL))
        out.append(para(f"SHA-256 {a.get('sha256', '?')}", MONO))
    return out


def _sources(profile: dict[str, Any]) -> list[Flowable]:
    sources = [s for s in profile.get("sources") or [] if isinstance(s, dict)]
    if not sources:
        resolved = profile.get("resolved") if isinstance(profile.get("resolved"), dict) else {}
        sources = [s for s in (resolved or {}).get("sources") or [] if isinstance(s, dict)]
    if not sources:
        return [para("not recorded", SMALL)]
    return [
        para(
            f"{s.get('title') or s.get('file', '?')}" + (f" ({s['ref']})" if s.get("ref") else ""),
            SMALL,
        )
        for s in sources
    ]


def _laboratory(manifest: dict[str, Any]) -> list[list[Any]]:
    lab = manifest.get("laboratory") if isinstance(manifest.get("laboratory"), dict) else {}
    assert isinstance(lab, dict)
    rows = [
        ("Laboratory", lab.get("name")),
        ("Report number", lab.get("report_number")),
        ("Jurisdiction / standard", _jurisdiction(lab)),
        ("Signatory", lab.get("signatory")),
    ]
    return [[para(label, SMALL), para(value or NOT_STATED, SMALL)] for label, value in rows]


def _evidence(section: Any) -> list[Flowable]:
    """The samples the verdict rests on, each against its minimum (docs/verdict.md#evidence)."""
    if not isinstance(section, dict):
        return [para("not recorded (a results file from before minimum samples)", SMALL)]
    lines = []
    for s in section.get("samples") or []:
        if not isinstance(s, dict):
            continue
        size = f"{_grouped(s.get('size'))} {s.get('what', '?')}"
        if not s.get("judged"):
            lines.append(f"{size}: the check did not run to a verdict")
        else:
            mark = "" if s.get("met") else " - BELOW THE MINIMUM"
            lines.append(f"{size} (minimum {_grouped(s.get('minimum'))}){mark}")
    minimums = section.get("minimums") if isinstance(section.get("minimums"), dict) else {}
    lines.append(f"minimums from {(minimums or {}).get('source', 'not recorded')}")
    return [para(line, SMALL) for line in lines]


def _profile(profile: dict[str, Any], manifest: dict[str, Any]) -> list[Flowable]:
    """The profile by name and title, and, when it was read from a file rather than
    chcert's bundled profile of that name, a line of its own saying so (a long title
    cannot push it out of the cell), then the file and its SHA-256: a copy may keep the
    name and change the tables."""
    shown = [para(f"{profile.get('name', '?')}: {profile.get('title', '')}", SMALL)]
    run_plan = manifest.get("run_plan") if isinstance(manifest.get("run_plan"), dict) else {}
    given = (run_plan or {}).get("profile")
    if given and given != profile.get("name"):
        shown.append(para("not chcert's bundled profile: read from a file", SMALL))
        shown.append(para(str(given), SMALL))
        shown.append(para(f"SHA-256 {manifest.get('profile_sha256', '?')}", MONO))
    return shown


def _plan(record: Any) -> str:
    if not isinstance(record, dict):
        return "none"
    from harness.plan import plan_line

    return plan_line(record)


def _jurisdiction(lab: dict[str, Any]) -> str | None:
    shown = [str(lab[k]) for k in ("jurisdiction", "standard") if lab.get(k)]
    return "; ".join(shown) or None


def contradiction(problem: str) -> Paragraph:
    """Why a results file's verdict cannot stand, where its verdict would be."""
    return para(f"This results file contradicts itself and certifies nothing: {problem}.", LEAD)


def certificate(
    results: dict[str, Any], problem: str | None, report_id: str, data: bytes, attached: bool
) -> list[Flowable]:
    """The first page: the verdict, the game, the build, the profile, who certified it."""
    verdict = str(results.get("verdict")) if problem is None else NOT_VALID
    impl = results.get("implementation") if isinstance(results.get("implementation"), dict) else {}
    profile = results.get("profile") if isinstance(results.get("profile"), dict) else {}
    manifest = results.get("manifest") if isinstance(results.get("manifest"), dict) else {}
    assert isinstance(impl, dict) and isinstance(profile, dict) and isinstance(manifest, dict)
    flow: list[Flowable] = [
        Paragraph("Casino Hold'em certification report", _TITLE),
        para("A game's conformance to the rules profile named below, as tested", _SUBTITLE),
        verdict_banner(verdict),
    ]
    if problem is not None:
        flow.append(contradiction(problem))
    flow += [Spacer(1, 2 * mm), *verdict_lines(results), Spacer(1, 2 * mm)]
    game = f"{impl.get('name', '?')} {impl.get('version', '')}".strip()
    finished = str(manifest.get("finished") or "not recorded")
    rows: list[list[Any]] = [
        [para("Game", SMALL), para(f"{game} (protocol {impl.get('protocol', '?')})", SMALL)],
        [para("Declared configuration", SMALL), _configuration(impl)],
        [para("Build submitted", SMALL), _artifacts(manifest)],
        [para("Adapter", SMALL), para(results.get("adapter", "?"), SMALL)],
        [para("Profile", SMALL), _profile(profile, manifest)],
        [para("Profile's rules sources", SMALL), _sources(profile)],
        *_laboratory(manifest),
        [para("Evidence", SMALL), _evidence(results.get("evidence"))],
        [para("Seed", SMALL), para(str(manifest.get("seed", "not recorded")), SMALL)],
        [para("Run plan", SMALL), para(_plan(manifest.get("plan")), SMALL)],
        [para("Date of issue", SMALL), para(finished[:10], SMALL)],
        [para("Harness", SMALL), para(f"chcert {manifest.get('harness_version', '?')}", SMALL)],
        [para("Report id", SMALL), para(report_id, SMALL)],
        [para("Results", SMALL), para(hash_line(data), MONO)],  # chcert verify reads it
    ]
    flow.append(grid(rows, [38 * mm, 132 * mm], header=False))
    flow.append(para(ATTACHED if attached else NOT_ATTACHED, SMALL))
    return flow
