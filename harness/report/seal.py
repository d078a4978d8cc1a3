"""Sealing the report: results.json inside the PDF, and a signature over both (docs/signing.md).

The certificate page prints `results.json SHA-256: <hex>`. That line alone proves
nothing: whoever edits results.json can edit the PDF too. So the exact bytes of
results.json travel inside the PDF as an attached file (`attach_results`), and the
laboratory's key signs the whole file afterwards (`sign_pdf`), as a certification
signature that permits no later change. `verify_report` then checks three things
and nothing else: the attachment hashes to what page 1 prints, the signature's
digest holds, and the signature covers the whole file; with trust anchors given,
also that the signer chains to one of them. It does not re-judge the verdict:
the verdict is results.json's, and results.json is what the hash pins.

pypdf (~70 ms) and pyHanko (~300 ms) are imported inside the functions that use
them: the CLI imports `harness.report`, and `chcert --help` stays fast.

`SealError` is for what the caller got wrong (a missing file, a key that does not
load, a PDF that is not one); everything found *inside* a report under
verification is a fact of the `Verification`, never an exception.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
import shutil
import sys
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import HarnessError
from harness.outcomes import EXIT_USAGE
from harness.paths import read_input

if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes

RESULTS_NAME = "results.json"
RESULTS_MIME = "application/json"
RESULTS_DESCRIPTION = "The certification run's full results; page 1 prints its SHA-256"
HASH_LABEL = "results.json SHA-256:"
SIGNATURE_FIELD = "chcert"
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
PDF_HEADER_WINDOW = 1024  # ISO 32000: readers look for %PDF- within the first 1024 bytes
# pyHanko checks the signer certificate's key usage; accept either usage a laboratory's
# document-signing certificate may carry (pyHanko's default demands non_repudiation).
KEY_USAGES = frozenset({"digital_signature", "non_repudiation"})
_QUIET_LOGGERS = ("pyhanko", "pyhanko_certvalidator", "pypdf")


class SealError(HarnessError):
    """A file given to seal or verify cannot be used; `path` names it, the message says why."""

    def __init__(self, path: str | Path, message: str) -> None:
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")


# ---------------------------------------------------------------------------
# The printed line


def results_digest(data: bytes) -> str:
    """SHA-256 of the exact bytes of results.json, as page 1 prints it (lowercase hex)."""
    return hashlib.sha256(data).hexdigest()


def hash_line(data: bytes) -> str:
    """The certificate page's line, `results.json SHA-256: <hex>`: what `printed_digests`
    finds again, so the renderer and the verifier share one spelling."""
    return f"{HASH_LABEL} {results_digest(data)}"


def _spaced(text: str) -> str:
    """A pattern for `text` allowing any whitespace between its characters: text
    extraction splits and joins lines as the glyph positions suggest, not as drawn."""
    return r"\s*".join(re.escape(ch) for ch in text if not ch.isspace())


# 64 hex digits, any whitespace between them, and no 65th digit straight after.
_PRINTED = re.compile(
    _spaced(HASH_LABEL) + r"\s*((?:[0-9a-fA-F]\s*){63}[0-9a-fA-F])(?![0-9a-fA-F])"
)


def printed_digests(text: str) -> list[str]:
    """Every distinct results.json SHA-256 printed in `text`, lowercase, in order found."""
    found: list[str] = []
    for match in _PRINTED.finditer(text):
        digest = re.sub(r"\s+", "", match.group(1)).lower()
        if digest not in found:
            found.append(digest)
    return found


# ---------------------------------------------------------------------------
# Files


def _read_pdf_bytes(pdf: Path) -> bytes:
    """The file's bytes, or a SealError saying why it is not a PDF one can seal or verify."""
    try:
        data = read_input(pdf)
    except FileNotFoundError:
        raise SealError(pdf, "no such file") from None
    except IsADirectoryError:
        raise SealError(pdf, "is a folder, not a PDF") from None
    except OSError as exc:
        raise SealError(pdf, f"cannot be read ({exc.strerror or exc})") from None
    if b"%PDF-" not in data[:PDF_HEADER_WINDOW]:
        raise SealError(pdf, "not a PDF (no %PDF- header)")
    return data


def _replace_atomic(path: Path, data: bytes) -> None:
    """Write `data` over `path` so that a reader sees the old file or the new, never half:
    a temporary file beside it, renamed into place, keeping the old file's mode (as
    harness/cli.py's _copy_atomic does; mkstemp alone would leave it 0600)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        with contextlib.suppress(OSError):
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence pyHanko's and pypdf's loggers: they log a traceback for every untrusted
    chain and a warning for every odd xref, while the caller reports those facts itself."""
    loggers = [logging.getLogger(name) for name in _QUIET_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _results_attachments(reader: Any) -> list[bytes]:
    """The contents of every attached file a viewer would list as results.json."""
    return list(reader.attachments.get(RESULTS_NAME, []))


def _is_signed(reader: Any) -> bool:
    """Whether any signature field of the PDF holds a signature."""
    fields = reader.get_fields() or {}
    return any(f.get("/FT") == "/Sig" and f.get("/V") is not None for f in fields.values())


def is_signed(pdf: Path) -> bool:
    """Whether the file at `pdf` is a PDF holding a signature (False for anything else)."""
    from pypdf import PdfReader

    try:
        with _quiet():
            return _is_signed(PdfReader(pdf))
    except Exception:  # not a PDF, unreadable: nothing signed to lose
        return False


# ---------------------------------------------------------------------------
# Attaching


def attach_results(pdf: Path, data: bytes) -> None:
    """Embed `data` in `pdf` as the attached file results.json, in place.

    The attachment goes into the EmbeddedFiles name tree (what viewers list) and the
    catalog's /AF (PDF 2.0 associated files: the data the document presents). It is
    appended as an incremental update, so the rendered report's bytes stay its prefix,
    and Flate-compressed: a 5 MB results.json adds a few hundred KB. Refuses a PDF that
    already carries a results.json (two would be ambiguous) or is already signed (the
    signature would no longer cover the file): attach first, then sign.
    """
    from pypdf import PdfReader, PdfWriter
    from pypdf.errors import PyPdfError
    from pypdf.generic import ArrayObject, NameObject, NumberObject, TextStringObject

    original = _read_pdf_bytes(pdf)
    try:
        with _quiet():
            reader = PdfReader(io.BytesIO(original))
            if _results_attachments(reader):
                raise SealError(pdf, f"already carries a {RESULTS_NAME}; render a fresh report")
            if _is_signed(reader):
                raise SealError(pdf, f"already signed: attach {RESULTS_NAME} before signing")
            writer = PdfWriter(io.BytesIO(original), incremental=True)
            attachment = writer.add_attachment(RESULTS_NAME, b"")
            attachment.alternative_name = TextStringObject(RESULTS_NAME)  # /UF, as viewers read
            attachment.description = TextStringObject(RESULTS_DESCRIPTION)
            attachment.associated_file_relationship = NameObject("/Data")
            attachment.subtype = NameObject("/" + RESULTS_MIME)
            attachment.size = NumberObject(len(data))
            # pypdf's add_attachment stores the bytes uncompressed; its stream object
            # writes whatever data it holds, so hand it the Flate-encoded bytes and say so.
            spec: Any = attachment.pdf_object
            stream = spec["/EF"]["/F"].get_object()
            stream[NameObject("/Filter")] = NameObject("/FlateDecode")
            stream.set_data(zlib.compress(data, 6))
            root: Any = writer.root_object
            if "/AF" in root:
                root["/AF"].get_object().append(spec.indirect_reference)
            else:
                root[NameObject("/AF")] = ArrayObject([spec.indirect_reference])
            out = io.BytesIO()
            writer.write(out)
    except SealError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise SealError(pdf, f"cannot attach {RESULTS_NAME}: {exc}") from exc
    _replace_atomic(pdf, out.getvalue())


def embedded_results(pdf: Path) -> bytes | None:
    """The bytes of the attached results.json, or None when there is none.

    Raises SealError when the file is not a readable PDF, or carries more than one
    results.json (which of them the hash speaks for would be a guess).
    """
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    original = _read_pdf_bytes(pdf)
    try:
        with _quiet():
            found = _results_attachments(PdfReader(io.BytesIO(original)))
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise SealError(pdf, f"not a readable PDF: {exc}") from exc
    if len(found) > 1:
        raise SealError(pdf, f"carries {len(found)} attachments named {RESULTS_NAME}")
    return found[0] if found else None


# ---------------------------------------------------------------------------
# Keys and certificates


def _read_file(path: Path, what: str) -> bytes:
    try:
        return read_input(path)
    except FileNotFoundError:
        raise SealError(path, f"no such file (the {what})") from None
    except OSError as exc:
        raise SealError(path, f"cannot read the {what} ({exc.strerror or exc})") from None


def _pkcs12(
    path: Path, data: bytes, passphrase: bytes | None, what: str
) -> tuple[PrivateKeyTypes | None, list[x509.Certificate]]:
    """A PKCS#12 bundle's key and certificates (its own first), or a SealError naming it."""
    from cryptography.hazmat.primitives.serialization import pkcs12

    try:
        key, cert, extra = pkcs12.load_key_and_certificates(data, passphrase)
    except (ValueError, TypeError):
        if passphrase is None:
            reason = "not a PEM, DER or PKCS#12 {what}, or a PKCS#12 file needing a passphrase"
        else:
            reason = "not a PEM, DER or PKCS#12 {what}, or the passphrase is wrong"
        raise SealError(path, reason.format(what=what)) from None
    return key, [*([cert] if cert is not None else []), *extra]


def load_private_key(path: Path, passphrase: bytes | None = None) -> PrivateKeyTypes:
    """The signing key from a PEM or DER file, or from a PKCS#12 bundle."""
    from cryptography.hazmat.primitives import serialization

    data = _read_file(path, "private key")
    pem = b"-----BEGIN" in data
    load = serialization.load_pem_private_key if pem else serialization.load_der_private_key
    try:
        return load(data, password=passphrase)
    except TypeError as exc:  # cryptography's way of saying the passphrase is missing or extra
        if passphrase is None:
            raise SealError(path, "the private key is encrypted: give its passphrase") from exc
        raise SealError(
            path, "the private key is not encrypted, yet a passphrase was given"
        ) from exc
    except ValueError as exc:
        if pem:
            encrypted = b"ENCRYPTED" in data
            if encrypted and passphrase is not None:
                raise SealError(path, "wrong passphrase for the private key") from exc
            raise SealError(path, "not a private key this harness can read (PEM)") from exc
        # not DER: perhaps a PKCS#12 bundle, the form many laboratories are issued
    except Exception as exc:  # unsupported key types, as cryptography reports them
        raise SealError(path, f"cannot load the private key: {exc}") from exc
    key, _ = _pkcs12(path, data, passphrase, "private key")
    if key is None:
        raise SealError(path, "the PKCS#12 file holds no private key")
    return key


def load_certificates(path: Path, passphrase: bytes | None = None) -> list[x509.Certificate]:
    """Every certificate in a PEM (one or more), DER or PKCS#12 file, in file order."""
    from cryptography import x509

    data = _read_file(path, "certificate")
    try:
        if b"-----BEGIN CERTIFICATE" in data:
            return x509.load_pem_x509_certificates(data)
        return [x509.load_der_x509_certificate(data)]
    except ValueError:
        if b"-----BEGIN" in data:
            raise SealError(path, "not a certificate this harness can read (PEM)") from None
    _, certs = _pkcs12(path, data, passphrase, "certificate")
    if not certs:
        raise SealError(path, "the PKCS#12 file holds no certificate")
    return certs


def _public_der(key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return bytes(
        key.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


def _certs_to_pyhanko(certs: Sequence[x509.Certificate]) -> list[Any]:
    """Certificates as pyHanko's (asn1crypto) objects, through its public loader."""
    from cryptography.hazmat.primitives import serialization
    from pyhanko.keys import load_certs_from_pemder_data

    return [
        next(load_certs_from_pemder_data(c.public_bytes(serialization.Encoding.DER))) for c in certs
    ]


def _key_to_pyhanko(key: PrivateKeyTypes) -> Any:
    """The private key as pyHanko's (asn1crypto) PrivateKeyInfo, through its public loader."""
    from cryptography.hazmat.primitives import serialization
    from pyhanko.keys import load_private_key_from_pemder_data

    der = key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return load_private_key_from_pemder_data(der, passphrase=None)


# ---------------------------------------------------------------------------
# Signing


def _require_attachment(pdf: Path, original: bytes) -> None:
    """A signature over a report without its results.json would seal nothing to check."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        with _quiet():
            found = _results_attachments(PdfReader(io.BytesIO(original)))
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise SealError(pdf, f"not a readable PDF: {exc}") from exc
    if len(found) != 1:
        raise SealError(pdf, f"attach exactly one {RESULTS_NAME} before signing")


def check_signer(
    key: Path, cert: Path, passphrase: bytes | None = None
) -> tuple[PrivateKeyTypes, list[x509.Certificate]]:
    """The key and its certificates, once it is known they can sign now: the key loads
    (with its passphrase), belongs to the first certificate, which is valid today.
    Called before a run as well, so that a certification never ends unsigned for a
    mistake that could be seen at its start."""
    key_obj = load_private_key(key, passphrase)
    certs = load_certificates(cert, passphrase)
    signer_cert = certs[0]
    if _public_der(key_obj.public_key()) != _public_der(signer_cert.public_key()):
        raise SealError(key, f"this private key does not belong to the certificate {cert}")
    now = datetime.now(UTC)
    if not signer_cert.not_valid_before_utc <= now <= signer_cert.not_valid_after_utc:
        raise SealError(
            cert,
            f"the certificate is valid from {signer_cert.not_valid_before_utc:%Y-%m-%d} "
            f"to {signer_cert.not_valid_after_utc:%Y-%m-%d}, not now",
        )
    return key_obj, certs


def sign_pdf(
    pdf: Path,
    key: Path,
    cert: Path,
    passphrase: bytes | None = None,
    chain: Sequence[Path] = (),
) -> None:
    """Sign `pdf` in place with the laboratory's key, as an incremental update.

    `key` is a PEM or DER private key, or a PKCS#12 bundle; `cert` the signer's
    certificate (PEM or DER; it may be the same PKCS#12 bundle); `chain` further
    certificates to embed (intermediates) so a verifier can build the path to its
    anchor. The signature goes into the field "chcert" as a certification signature
    permitting no changes (DocMDP 1): a viewer then flags any later edit, and
    `verify_report` calls one a modification after signing. Signs after attaching:
    attach_results refuses a signed PDF.
    """
    key_obj, certs = check_signer(key, cert, passphrase)
    signer_cert = certs[0]
    extra = list(certs[1:])
    for path in chain:
        extra += load_certificates(path, passphrase)
    original = _read_pdf_bytes(pdf)
    _require_attachment(pdf, original)

    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    converted = _certs_to_pyhanko([signer_cert, *extra])
    store = SimpleCertificateStore.from_certs(converted[1:])  # type: ignore[no-untyped-call]
    signer = signers.SimpleSigner(
        signing_cert=converted[0],
        signing_key=_key_to_pyhanko(key_obj),
        cert_registry=store,
    )
    meta = signers.PdfSignatureMetadata(
        field_name=SIGNATURE_FIELD,
        certify=True,
        docmdp_permissions=fields.MDPPerm.NO_CHANGES,
    )
    out = io.BytesIO()
    try:
        with _quiet():
            writer = IncrementalPdfFileWriter(io.BytesIO(original))
            if writer.prev.embedded_signatures:
                raise SealError(pdf, "already signed: a report is sealed once")
            signers.sign_pdf(writer, meta, signer=signer, output=out)
    except SealError:
        raise
    except Exception as exc:  # pyHanko's errors share no base class worth naming here
        raise SealError(pdf, f"cannot sign: {exc}") from exc
    _replace_atomic(pdf, out.getvalue())


# ---------------------------------------------------------------------------
# Verifying


@dataclass(frozen=True)
class SignatureCheck:
    """What pyHanko's validation says of one signature, in plain values.

    `coverage` and `modification_level` are pyHanko's enum names (ENTIRE_FILE ...,
    NONE, LTA_UPDATES, FORM_FILLING, ANNOTATIONS, OTHER); `trusted` is None when no
    trust anchor was given, for then nothing was checked.
    """

    field_name: str
    intact: bool  # the digest of the signed byte ranges matches the signed one
    valid: bool  # the signature value verifies with the certificate's key
    coverage: str
    modification_level: str | None
    docmdp_ok: bool | None
    bottom_line: bool
    signer: str
    signing_time: str | None  # as the signer's clock gave it (no timestamp authority)
    trusted: bool | None
    trust_problem: str | None
    problems: list[str] = field(default_factory=list)


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


def signature_problems(check: SignatureCheck, trust_checked: bool) -> list[str]:
    """What is wrong with one signature: its digest, its coverage, and (with anchors) trust.

    Coverage: the whole file, nothing appended. chcert appends nothing after signing
    (no validation data either), so any later revision, whatever pyHanko's difference
    analysis calls it, is a change after signing: the report is sealed once.
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
    if trust_checked and not check.trusted:
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
    }.get(name, name.lower().replace("_", " "))


def _check_signature(status: Any, field_name: str, trust_checked: bool) -> SignatureCheck:
    """pyHanko's PdfSignatureStatus as a SignatureCheck, with its problems judged."""
    when = status.signer_reported_dt
    level = status.modification_level
    check = SignatureCheck(
        field_name=field_name,
        intact=bool(status.intact),
        valid=bool(status.valid),
        coverage=status.coverage.name if status.coverage is not None else "UNCLEAR",
        modification_level=level.name if level is not None else None,
        docmdp_ok=status.docmdp_ok,
        bottom_line=bool(status.bottom_line),
        signer=status.signing_cert.subject.human_friendly,
        signing_time=when.isoformat() if when is not None else None,
        trusted=bool(status.trusted) if trust_checked else None,
        trust_problem=_trust_problem(status) if trust_checked else None,
    )
    check.problems.extend(signature_problems(check, trust_checked))
    return check


def _load_anchors(trust: Sequence[Path]) -> list[Any]:
    """Trust anchors as pyHanko's certificates; SealError for a file that holds none."""
    anchors: list[x509.Certificate] = []
    for path in trust:
        anchors += load_certificates(path)
    return _certs_to_pyhanko(anchors)


def _validate_signatures(
    original: bytes, anchors: list[Any], trust_checked: bool
) -> tuple[list[SignatureCheck], str | None]:
    """Every signature of the file, validated; or the reason pyHanko could not read it."""
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.settings import KeyUsageConstraints
    from pyhanko_certvalidator import ValidationContext

    usage = KeyUsageConstraints(key_usage=set(KEY_USAGES), match_all_key_usages=False)
    checks: list[SignatureCheck] = []
    try:
        reader = PdfFileReader(io.BytesIO(original))
        for embedded in reader.embedded_signatures:
            # trust_roots=[] (not None): no anchors means none, never the OS's TLS list
            context = ValidationContext(trust_roots=anchors, allow_fetching=False)
            status = validate_pdf_signature(embedded, context, key_usage_settings=usage)
            checks.append(_check_signature(status, embedded.field_name, trust_checked))
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


def verify_report(pdf: Path, trust: Sequence[Path] = ()) -> Verification:
    """Check a sealed report: printed hash == attachment's hash, signature intact and
    covering the whole file, and (given `trust` certificates as roots) a trusted signer.

    An unsigned report is never verified, whatever its hashes say: anyone can rewrite
    results.json and the line that prints its hash together. Raises SealError only for
    the caller's mistakes (no such file, not a PDF, an unreadable trust certificate).
    """
    original = _read_pdf_bytes(pdf)
    anchors = _load_anchors(trust)
    trust_checked = bool(anchors)
    with _quiet():
        contents = _read_contents(original)
        signatures, unreadable = _validate_signatures(original, anchors, trust_checked)
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
        printed_sha256=printed,
        hash_matches=matches,
        signed=bool(signatures),
        signatures=signatures,
        signature_error=unreadable,
        trust_checked=trust_checked,
        ok=not problems,
        problems=problems,
    )


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
        if check.trusted is None:
            lines.append(f"  trust: {NO_ANCHOR if state == 'intact' else NO_ANCHOR_BROKEN}")
        elif check.trusted:
            lines.append("  trust: the signer chains to a given trust anchor")
        else:
            lines.append(f"  trust: NOT trusted: {check.trust_problem}")
    if result.ok:
        lines.append("VERIFIED" if result.trust_checked else SIGNER_UNCHECKED)
    else:
        lines.append("NOT VERIFIED: " + "; ".join(result.problems))
    return lines


def verify_command(pdf: str, trust: Sequence[str]) -> int:
    """`chcert verify REPORT_PDF [--trust CERT ...]`: 0 verified, 1 not verified, 2 intact
    and matching but the signer not checked (no --trust: anyone may sign with a key of
    their own), 4 a usage error (no such file, not a PDF, a --trust file that is no
    certificate) with one line on stderr, as every chcert command (docs/command-line.md)."""
    try:
        result = verify_report(Path(pdf), [Path(t) for t in trust])
    except SealError as exc:
        print(f"chcert verify: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for line in describe(result):
        print(line)
    if not result.ok:
        return EXIT_NOT_VERIFIED
    return EXIT_VERIFIED if result.trust_checked else EXIT_SIGNER_UNCHECKED
