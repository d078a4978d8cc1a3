"""The model's codes in words, the same in every rendering: the PDF, JUnit, the Markdown
summary and the command line's (harness/model.py holds codes, never sentences)."""

from __future__ import annotations

from collections.abc import Iterable

from harness.model import Reason, ReasonCode


def reason_text(reason: Reason) -> str:
    """One reason as a sentence without its leading capital (it follows a label)."""
    s, d = reason.subject, reason.detail
    match reason.code:
        case ReasonCode.UNREACHABLE:
            return f"implementation unreachable ({s}): {d}"
        case ReasonCode.INTERRUPTED:
            return f"run interrupted ({s}) before every item had run"
        case ReasonCode.RUNNER_ERROR:
            return "internal error in the test runner"
        case ReasonCode.RUNNER_STOPPED:
            said = f"; {d}" if d else ""
            return f"the test runner stopped before writing results (exit {s}){said}"
        case ReasonCode.HARNESS_ERROR:
            return f"harness error in {s}: {d}"
        case ReasonCode.SELECTION:
            return f"selection {s}: {d} items selected; a selection is never a certificate"
        case ReasonCode.CLAUSES_NOT_TESTED:
            return f"{len(s.split(', '))} clauses not tested: {s}"
        case ReasonCode.SHORT_SAMPLE:
            return d
        case ReasonCode.MATH_FAILED:
            return f"game mathematics failed: {d}"
        case ReasonCode.FIGURES_NOT_CHECKED:
            return f"figures not checked: {s}"
        case ReasonCode.NO_HELLO:
            return "the figures the game publishes are unknown: no conforming hello"
        case ReasonCode.NOT_TESTED:
            return f"not tested: {d}"
        case ReasonCode.NOTHING_APPLIES:
            return "no vector or check applies under this profile"
        case ReasonCode.ATTESTED:
            return f"{d}, attested by {s}"
        case ReasonCode.ALSO_ATTESTED:
            return f"also attested by {s}"
        case ReasonCode.ATTESTATION_REJECTED:
            return f"attestation by {s} rejected: the clause failed here"
        case _:
            return d


def why_text(reason: Reason) -> str:
    """A clause's reason as a gap lists it: an item's reason without "not tested: "."""
    return reason.detail if reason.code is ReasonCode.NOT_TESTED else reason_text(reason)


def ways_to_close(needs: Iterable[str]) -> list[str]:
    """What would close a gap, each once: the needs, then a laboratory's attestation,
    which always would (named once, even where a need already names one)."""
    ways = list(dict.fromkeys(needs))
    if any("attestation" in w for w in ways):
        return ways
    return [*ways, "or an attestation"] if ways else ["an attestation"]
