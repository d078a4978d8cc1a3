"""With a register (`chcert audit --register`): every build a log names, judged by what
the register says of it (docs/register.md#audits). A finding a build no valid
certificate covers for the profile audited: uncertified, withdrawn, revoked, expired,
superseded, or certified under another profile."""

from __future__ import annotations

from collections.abc import Mapping

from harness.audit.model import AuditCheck, Finding
from harness.register.records import Coverage, Standing


def build_findings(
    rows: Mapping[str, int], standings: Mapping[str, Standing], profile: str
) -> list[Finding]:
    """One finding a build not certified for `profile`, with the rows it played."""
    findings = []
    for build in sorted(rows):
        standing = standings[build]
        if standing.coverage is Coverage.CERTIFIED:
            continue
        findings.append(
            Finding(
                check=AuditCheck.REGISTER,
                kind=f"build-{standing.coverage}",
                detail=_detail(standing, profile),
                count=rows[build],
                examples=[],
                by_build={build: rows[build]},
            )
        )
    return findings


def _detail(standing: Standing, profile: str) -> str:
    build, number = standing.build, standing.number
    if standing.coverage is Coverage.UNCERTIFIED:
        return f"build {build}: no certificate in the register names it"
    if standing.coverage is Coverage.OTHER_PROFILE:
        return (
            f"build {build}: certified as {number} under profile {standing.profile}, "
            f"not under {profile}, the profile audited"
        )
    if standing.coverage is Coverage.SUPERSEDED:
        return f"build {build}: its certificate {number} was superseded by {standing.superseded_by}"
    return f"build {build}: its certificate {number} was {standing.coverage}"


def coverage_note(standings: Mapping[str, Standing]) -> str:
    certified = sum(s.coverage is Coverage.CERTIFIED for s in standings.values())
    return f"{len(standings)} build(s) in the log, {certified} certified for the profile audited"
