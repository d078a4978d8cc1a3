"""`chcert verify`: the attachment hashes to what page 1 prints, the signature's digest
holds and covers the whole file, and the signer's certificate is one signing would
accept, valid now or when an authority the verifier trusts stamped it (never at the
signer's own clock); with trust anchors, that it chains to one (docs/signing.md). It
does not re-judge the verdict: results.json's is the verdict, and its hash pins it.

Everything found inside a report under verification is a fact of the `Verification`,
never an exception; SealError is for what the caller got wrong.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.results.outcomes import EXIT_USAGE
from harness.signing.attachment import (
    HASH_LABEL,
    RESULTS_NAME,
    SealError,
    _no_dsa_warning,
    _quiet,
    _read_pdf_bytes,
    _results_attachments,
    printed_digests,
    results_digest,
)
from harness.signing.keys import (
    _certs_to_pyhanko,
    _now,
    _utc,
    key_problem,
    load_certificates,
    usage_problem,
    validity_problem,
)

if TYPE_CHECKING:
    from cryptography import x509

NO_ANCHOR = "signature intact; signer identity not checked against a trust anchor"
NO_ANCHOR_BROKEN = "signer identity not checked against a trust anchor"
UNSIGNED_MATCH = (
    "not signed: the embedded results.json matches the printed hash, "
    "but both could be changed together"
)
EXIT_VERIFIED = 0
EXIT_NOT_VERIFIED = 1
EXIT_SIGNER_UNCHECKED = 2  # intact and matching, but who signed was not checked (no --trust)
SIGNER_UNCHECKED = (
    "INTACT, SIGNER NOT CHECKED: anyone can sign with a key of their own; "
    "give the laboratory's certificate with --trust CERT"
)
# pyHanko checks the signer certificate's key usage; accept either usage a laboratory's
# document-signing certificate may carry (pyHanko's default demands non_repudiation).
# `usage_problem` applies the same rule itself, for sign and verify alike: pyHanko skips
# it when the signer's certificate is itself the trust anchor.
KEY_USAGES = frozenset({"digital_signature", "non_repudiation"})
TIME_STAMPING = "1.3.6.1.5.5.7.3.8"  # the one purpose of an RFC 3161 authority's certificate
NO_TSA_ANCHOR = "no --trust-tsa anchor was given"


# ---------------------------------------------------------------------------
# Verifying


@dataclass(frozen=True)
class TimestampCheck:
    """The RFC 3161 timestamp token on a signature: when an authority says it saw the
    signature, who that authority is, and whether the verifier trusts it (`--trust-tsa`)."""

    time: str  # the token's genTime, ISO 8601
    authority: str  # the subject of the certificate that signed the token
    intact: bool  # the token's signature verifies and it stamps this very signature
    trusted: bool  # intact, and the authority chains to a --trust-tsa anchor
    trust_problem: str | None


@dataclass(frozen=True)
class SignatureCheck:
    """What pyHanko's validation says of one signature, in plain values.

    `coverage` and `modification_level` are pyHanko's enum names (ENTIRE_FILE ...,
    NONE, LTA_UPDATES, FORM_FILLING, ANNOTATIONS, OTHER); `trusted` is None when no
    trust anchor was given, for then nothing was checked. `judged_at` is the moment the
    certificate's validity was judged: now, or a trusted timestamp's time.
    """

    field_name: str
    intact: bool  # the digest of the signed byte ranges matches the signed one
    valid: bool  # the signature value verifies with the certificate's key
    coverage: str
    modification_level: str | None
    docmdp_ok: bool | None
    bottom_line: bool  # pyHanko's judgment of the signer's side, timestamp aside
    signer: str
    signing_time: str | None  # as the signer's clock gave it: a claim, nothing more
    timestamp: TimestampCheck | None
    judged_at: str
    judged_by_timestamp: bool
    certificate_problem: str | None  # key, usage or validity, as sign_pdf would refuse
    trusted: bool | None
    trust_problem: str | None
    problems: list[str] = field(default_factory=list)

    @property
    def broken(self) -> bool:
        """The signature does not hold: nothing it says of its signer can be believed."""
        return not (self.intact and self.valid)


@dataclass(frozen=True)
class Verification:
    """The facts `chcert verify` reports of one PDF, and whether they add up (`ok`)."""

    path: str
    readable: bool
    attached: bool
    embedded_sha256: str | None
    embedded_size: int | None
    printed_sha256: str | None
    hash_matches: bool
    signed: bool
    signatures: list[SignatureCheck]
    signature_error: str | None  # why pyHanko could not read the signatures, if it could not
    trust_checked: bool
    ok: bool
    problems: list[str]
    # the attached results.json itself, for a caller that reads it on (the register)
    embedded: bytes | None = field(default=None, repr=False)


def signature_problems(check: SignatureCheck, trust_checked: bool) -> list[str]:
    """What is wrong with one signature: its digest, its coverage, its timestamp token,
    its certificate, and (with anchors) trust, in that order.

    A broken signature says nothing of who signed it, so its trust is not judged at
    all: "signer not trusted" after "the signed bytes were changed" would send the
    reader after the wrong problem. Coverage: the whole file, nothing appended. chcert
    appends nothing after signing (no validation data either), so any later revision,
    whatever pyHanko's difference analysis calls it, is a change after signing.
    """
    name = f"signature {check.field_name!r}"
    problems: list[str] = []
    if not check.intact:
        problems.append(f"{name}: the signed bytes were changed (their digest does not match)")
    elif not check.valid:
        problems.append(f"{name}: the signature value does not verify with the signer's key")
    if check.coverage == "ENTIRE_REVISION":
        level = (check.modification_level or "unknown").lower().replace("_", " ")
        problems.append(
            f"{name}: the file was modified after signing (changes of kind {level!r} were appended)"
        )
    elif check.coverage != "ENTIRE_FILE":
        problems.append(f"{name}: the signature does not cover the whole file")
    if check.broken:
        return problems
    if check.timestamp is not None and not check.timestamp.intact:
        problems.append(f"{name}: its timestamp token is broken or stamps something else")
    if check.certificate_problem is not None:
        problems.append(f"{name}: {check.certificate_problem}")
    elif trust_checked and not check.trusted:
        problems.append(f"{name}: signer not trusted ({check.trust_problem or 'no path'})")
    elif trust_checked and not check.bottom_line and not problems:
        problems.append(f"{name}: pyHanko's overall judgment of the signature is negative")
    return problems


def _trust_problem(status: Any) -> str | None:
    if status.trusted:
        return None
    if status.revoked:
        return "the certificate was revoked"
    indic = status.trust_problem_indic
    if indic is None:
        return "no path from the signer to a trust anchor"
    name: str = indic.name
    return {
        "NO_CERTIFICATE_CHAIN_FOUND": "no path from the signer to a trust anchor",
        "CHAIN_CONSTRAINTS_FAILURE": "no path from the signer to a trust anchor",
        "OUT_OF_BOUNDS_NO_POE": "the certificate has expired or is not yet valid",
        "OUT_OF_BOUNDS_NOT_REVOKED": "the certificate has expired or is not yet valid",
        "EXPIRED": "the certificate has expired",
        "NOT_YET_VALID": "the certificate is not yet valid",
        "REVOKED": "the certificate was revoked",
        "SIG_CONSTRAINTS_FAILURE": "the certificate's key usage does not allow signing",
        "CRYPTO_CONSTRAINTS_FAILURE": "the signature's algorithm or key is too weak",
    }.get(name, name.lower().replace("_", " "))


def _signer_bottom_line(status: Any) -> bool:
    """pyHanko's bottom line without its timestamp clause: pyHanko calls a signature
    with an untrusted timestamp invalid, chcert judges the timestamp itself
    (`_timestamp_check`) and then validity at the present moment."""
    return bool(
        status.intact
        and status.valid
        and status.trusted
        and status.seed_value_ok
        and (status.docmdp_ok or status.modification_level is None)
    )


def _to_cryptography(cert: Any) -> x509.Certificate:
    from cryptography import x509 as x509_

    return x509_.load_der_x509_certificate(cert.dump())


def _timestamp_check(status: Any, tsa_checked: bool, now: datetime) -> TimestampCheck | None:
    """The signature's timestamp token as pyHanko validated it against the --trust-tsa
    anchors (at the present moment), or None when the signature carries none. An
    authority is trusted only if its certificate also carries the timeStamping purpose
    (RFC 3161 2.3) and is valid now, which pyHanko does not ask of a certificate that is
    its own anchor."""
    stamp = status.timestamp_validity
    if stamp is None:
        return None
    intact = bool(stamp.intact and stamp.valid)
    problem: str | None
    when = stamp.timestamp
    if not intact:
        problem = "the token is broken"
    elif when is None:
        problem = "the token states no time"
    elif not tsa_checked:
        problem = NO_TSA_ANCHOR
    elif not stamp.trusted:
        problem = (_trust_problem(stamp) or "no path").replace("signer", "authority")
    else:
        cert = _to_cryptography(stamp.signing_cert)
        problem = validity_problem(cert, now, "now")
        if TIME_STAMPING not in _extended_usages(cert):
            problem = "its certificate is not for timestamping"
    return TimestampCheck(
        time=when.astimezone(UTC).isoformat() if when is not None else "unknown",
        authority=str(stamp.signing_cert.subject.human_friendly),
        intact=intact,
        trusted=problem is None,
        trust_problem=problem,
    )


def _extended_usages(cert: x509.Certificate) -> list[str]:
    from cryptography import x509 as x509_

    try:
        ext = cert.extensions.get_extension_for_class(x509_.ExtendedKeyUsage).value
    except x509_.ExtensionNotFound:
        return []
    return [oid.dotted_string for oid in ext]


@dataclass(frozen=True)
class _Judgment:
    """When a signer's certificate is judged, and why then (docs/signing.md)."""

    moment: datetime
    basis: str
    by_timestamp: bool


def judgment_time(stamp: TimestampCheck | None, now: datetime) -> _Judgment:
    """Now, unless an authority the verifier trusts proves the signature older: a signer
    whose clock was set back must not make an expired key look valid. A stamp later
    than now proves nothing older, so now it is then too."""
    if stamp is not None and stamp.trusted:
        moment = datetime.fromisoformat(stamp.time)
        if moment <= now:
            return _Judgment(moment, f"the timestamped signing time ({_utc(moment)})", True)
    reason = "no timestamp" if stamp is None else "its timestamp is not trusted"
    return _Judgment(now, f"now ({_utc(now)}; {reason})", False)


def certificate_problem(cert: x509.Certificate, judged: _Judgment) -> str | None:
    """What sign_pdf would refuse in this certificate, judged at `judged`: the same
    key_problem and usage_problem, and validity at that moment (pyHanko does not check
    the validity of a signer certificate that is itself the trust anchor)."""
    for problem in (key_problem(cert), usage_problem(cert)):
        if problem is not None:
            return f"the signer's certificate cannot sign reports: {problem}"
    return validity_problem(cert, judged.moment, judged.basis)


def _check_signature(
    status: Any,
    trust_status: Any,
    field_name: str,
    trust_checked: bool,
    stamp: TimestampCheck | None,
    judged: _Judgment,
) -> SignatureCheck:
    """pyHanko's PdfSignatureStatus as a SignatureCheck, with its problems judged.
    `trust_status` is the validation at `judged.moment` (the same as `status` when
    that is now)."""
    when = status.signer_reported_dt
    level = status.modification_level
    problem = certificate_problem(_to_cryptography(status.signing_cert), judged)
    trusted = bool(trust_status.trusted) and problem is None
    check = SignatureCheck(
        field_name=field_name,
        intact=bool(status.intact),
        valid=bool(status.valid),
        coverage=status.coverage.name if status.coverage is not None else "UNCLEAR",
        modification_level=level.name if level is not None else None,
        docmdp_ok=status.docmdp_ok,
        # At the moment that counts: a signer whose certificate has expired since a trusted
        # authority stamped its signature is judged as of the stamp (docs/signing.md)
        bottom_line=_signer_bottom_line(trust_status),
        signer=status.signing_cert.subject.human_friendly,
        signing_time=when.isoformat() if when is not None else None,
        timestamp=stamp,
        judged_at=judged.moment.isoformat(),
        judged_by_timestamp=judged.by_timestamp,
        certificate_problem=problem,
        trusted=trusted if trust_checked else None,
        trust_problem=(problem or _trust_problem(trust_status)) if trust_checked else None,
    )
    check.problems.extend(signature_problems(check, trust_checked))
    return check


def _load_anchors(trust: Sequence[Path]) -> list[Any]:
    """Trust anchors as pyHanko's certificates; SealError for a file that holds none."""
    anchors: list[x509.Certificate] = []
    for path in trust:
        anchors += load_certificates(path)
    return _certs_to_pyhanko(anchors)


@dataclass(frozen=True)
class _Anchors:
    """The verifier's trust: whom it trusts to sign (--trust), whom to tell the time
    (--trust-tsa). Kept apart: trusting a laboratory is not trusting its clock, and
    a key's owner could otherwise stamp its own backdated signatures."""

    signers: list[Any]
    authorities: list[Any]


def _context(anchors: list[Any], moment: datetime) -> Any:
    with _no_dsa_warning():
        from pyhanko_certvalidator import ValidationContext

    # trust_roots=[] (not None): no anchors means none, never the OS's TLS list;
    # moment given: the certificates are judged at that moment, never the signer's claim
    return ValidationContext(trust_roots=anchors, moment=moment, allow_fetching=False)


def _usage_constraints(signer: Any, constraints: Any) -> Any:
    """pyHanko's key-usage rule for this signer: one of KEY_USAGES when its certificate
    states a keyUsage, none when it states none (RFC 5280: unrestricted). pyHanko would
    otherwise read an absent extension as no usage at all and refuse every such signer
    that chains to an anchor, where `usage_problem` accepts it."""
    if signer is None or signer.key_usage_value is None:
        return constraints(key_usage=set(), match_all_key_usages=False)
    return constraints(key_usage=set(KEY_USAGES), match_all_key_usages=False)


def _validate_one(
    embedded: Any, anchors: _Anchors, trust_checked: bool, now: datetime
) -> SignatureCheck:
    """One signature: validated now, then, if an authority the verifier trusts stamped
    it, its signer's certificate again at the stamped time."""
    with _no_dsa_warning():
        from pyhanko.sign.validation import validate_pdf_signature
        from pyhanko.sign.validation.settings import KeyUsageConstraints

    usage = _usage_constraints(embedded.signer_cert, KeyUsageConstraints)
    tsa_context = _context(anchors.authorities, now)
    status = validate_pdf_signature(
        embedded, _context(anchors.signers, now), tsa_context, key_usage_settings=usage
    )
    stamp = _timestamp_check(status, bool(anchors.authorities), now)
    judged = judgment_time(stamp, now)
    trust_status = status
    if judged.by_timestamp:
        trust_status = validate_pdf_signature(
            embedded,
            _context(anchors.signers, judged.moment),
            tsa_context,
            key_usage_settings=usage,
            skip_diff=True,
        )
    return _check_signature(status, trust_status, embedded.field_name, trust_checked, stamp, judged)


def _validate_signatures(
    original: bytes, anchors: _Anchors, trust_checked: bool, at: datetime | None = None
) -> tuple[list[SignatureCheck], str | None]:
    """Every signature of the file, validated; or the reason pyHanko could not read it."""
    with _no_dsa_warning():
        from pyhanko.pdf_utils.reader import PdfFileReader

    checks: list[SignatureCheck] = []
    now = at or _now()
    try:
        reader = PdfFileReader(io.BytesIO(original))
        for embedded in reader.embedded_signatures:
            checks.append(_validate_one(embedded, anchors, trust_checked, now))
    except Exception as exc:  # a damaged file: pyHanko's errors share no useful base
        return checks, f"the signatures could not be read ({_damage(exc)})"
    return checks, None


@dataclass(frozen=True)
class _Contents:
    """What pypdf reads of a report: the attachment, the hash page 1 prints, and what's amiss."""

    readable: bool
    embedded: bytes | None
    printed: str | None
    problems: list[str]


def _damage(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"


def _read_contents(original: bytes) -> _Contents:
    """The attached results.json and the printed hash, each read on its own, so a damaged
    attachment still leaves page 1 read and the reverse (pypdf raises a dozen kinds of
    exception on a damaged file, hence the broad catches)."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(original))
        pages = reader.pages
        first = pages[0] if len(pages) else None
    except Exception as exc:
        return _Contents(False, None, None, [f"not a readable PDF ({_damage(exc)})"])
    problems: list[str] = []
    embedded = printed = None
    try:
        found = _results_attachments(reader)
    except Exception as exc:
        problems.append(f"the attached {RESULTS_NAME} cannot be read ({_damage(exc)})")
    else:
        if not found:
            problems.append(f"no {RESULTS_NAME} is attached")
        elif len(found) > 1:
            problems.append(f"{len(found)} attachments are named {RESULTS_NAME}")
        else:
            embedded = found[0]
    try:
        text = str(first.extract_text()) if first is not None else ""
    except Exception as exc:
        problems.append(f"the text of page 1 cannot be read ({_damage(exc)})")
    else:
        digests = printed_digests(text)
        if not digests:
            problems.append(f"page 1 prints no '{HASH_LABEL}' line")
        elif len(digests) > 1:
            problems.append(f"page 1 prints {len(digests)} different {RESULTS_NAME} hashes")
        else:
            printed = digests[0]
    return _Contents(True, embedded, printed, problems)


def verify_report(
    pdf: Path,
    trust: Sequence[Path] = (),
    trust_tsa: Sequence[Path] = (),
    at: datetime | None = None,
) -> Verification:
    """Check a sealed report: printed hash == attachment's hash, signature intact and
    covering the whole file, a signer's certificate sign_pdf would accept, valid now or
    at the time a trusted authority (`trust_tsa` roots) stamped, and (given `trust`
    certificates as roots) a trusted signer.

    An unsigned report is never verified, whatever its hashes say: anyone can rewrite
    results.json and the line that prints its hash together. Raises SealError only for
    the caller's mistakes (no such file, not a PDF, an unreadable trust certificate).
    `at`: the moment "now" stands for (the register judges a kept report as of when it was
    recorded; a certificate that expired since was valid then).
    """
    original = _read_pdf_bytes(pdf)
    anchors = _Anchors(_load_anchors(trust), _load_anchors(trust_tsa))
    trust_checked = bool(anchors.signers)
    with _quiet():
        contents = _read_contents(original)
        signatures, unreadable = _validate_signatures(original, anchors, trust_checked, at)
    problems = list(contents.problems)
    embedded, printed = contents.embedded, contents.printed
    actual = results_digest(embedded) if embedded is not None else None
    matches = actual is not None and actual == printed
    if actual is not None and printed is not None and not matches:
        problems.append(
            f"the attached {RESULTS_NAME} (SHA-256 {actual}) does not match "
            f"the hash printed on page 1 ({printed})"
        )
    if unreadable:
        problems.append(unreadable)
    elif not signatures:
        problems.append(UNSIGNED_MATCH if matches else "not signed")
    for check in signatures:
        problems.extend(check.problems)
    return Verification(
        path=str(pdf),
        readable=contents.readable,
        attached=embedded is not None,
        embedded_sha256=actual,
        embedded_size=len(embedded) if embedded is not None else None,
        embedded=embedded,
        printed_sha256=printed,
        hash_matches=matches,
        signed=bool(signatures),
        signatures=signatures,
        signature_error=unreadable,
        trust_checked=trust_checked,
        ok=not problems,
        problems=problems,
    )


def _describe_timestamp(stamp: TimestampCheck | None) -> str:
    """The timestamp line: time, authority, trusted or why not."""
    if stamp is None:
        return "none (the signing time is the signer's claim)"
    said = f"{stamp.time} by {stamp.authority}"
    if stamp.trusted:
        return f"{said}; authority trusted (chains to a --trust-tsa anchor)"
    return f"{said}; authority NOT trusted ({stamp.trust_problem}): it proves nothing"


def _describe_trust(check: SignatureCheck) -> str:
    """The trust line: never a judgment of the signer when the signature is broken."""
    if check.broken:
        return f"trust: not judged: the signature is broken ({NO_ANCHOR_BROKEN})"
    if check.trusted is None:
        if check.certificate_problem is not None:
            return f"trust: {NO_ANCHOR}; and {check.certificate_problem}"
        return f"trust: {NO_ANCHOR}"
    if check.trusted:
        when = "at the timestamped time" if check.judged_by_timestamp else "now"
        return f"trust: the signer chains to a given trust anchor, valid {when}"
    return f"trust: NOT trusted: {check.trust_problem}"


def describe(result: Verification) -> list[str]:
    """The human-readable account: one line per fact, then VERIFIED or NOT VERIFIED."""
    lines = [f"report: {result.path}"]
    if result.embedded_sha256 is not None:
        lines.append(
            f"attached {RESULTS_NAME}: {result.embedded_size:,} bytes, "
            f"SHA-256 {result.embedded_sha256}"
        )
    else:
        lines.append(f"attached {RESULTS_NAME}: none")
    lines.append(f"printed on page 1: {result.printed_sha256 or 'no hash found'}")
    if result.embedded_sha256 is not None and result.printed_sha256 is not None:
        lines.append(f"hashes: {'match' if result.hash_matches else 'DO NOT MATCH'}")
    if result.signature_error is not None:
        lines.append("signature: the file's signatures could not be read")
    elif not result.signatures:
        lines.append("signature: none")
    for check in result.signatures:
        state = "intact" if check.intact and check.valid else "BROKEN"
        if check.coverage == "ENTIRE_FILE":
            cover = "covers the whole file"
        elif check.coverage == "ENTIRE_REVISION":
            cover = "the file was MODIFIED after signing"
        else:
            cover = "does NOT cover the whole file"
        lines.append(f"signature {check.field_name!r}: {state}; {cover}")
        lines.append(f"  signed by: {check.signer}")
        lines.append(f"  signing time (the signer's clock): {check.signing_time or 'not stated'}")
        lines.append(f"  timestamp: {_describe_timestamp(check.timestamp)}")
        lines.append(f"  {_describe_trust(check)}")
    if result.ok:
        lines.append("VERIFIED" if result.trust_checked else SIGNER_UNCHECKED)
    else:
        lines.append("NOT VERIFIED: " + "; ".join(result.problems))
    return lines


def verify_command(pdf: str, trust: Sequence[str], trust_tsa: Sequence[str] = ()) -> int:
    """`chcert verify REPORT_PDF [--trust CERT ...] [--trust-tsa CERT ...]`: 0 verified,
    1 not verified, 2 intact and matching but the signer not checked (no --trust: anyone
    may sign with a key of their own), 4 a usage error (no such file, not a PDF, a
    --trust or --trust-tsa file that is no certificate) with one line on stderr, as every
    chcert command (docs/command-line.md)."""
    try:
        result = verify_report(Path(pdf), [Path(t) for t in trust], [Path(t) for t in trust_tsa])
    except SealError as exc:
        print(f"chcert verify: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for line in describe(result):
        print(line)
    if not result.ok:
        return EXIT_NOT_VERIFIED
    return EXIT_VERIFIED if result.trust_checked else EXIT_SIGNER_UNCHECKED
