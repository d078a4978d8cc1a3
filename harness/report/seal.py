"""Sealing the report: results.json inside the PDF, and a signature over both (docs/signing.md).

The certificate page prints `results.json SHA-256: <hex>`. That line alone proves
nothing: whoever edits results.json can edit the PDF too. So the exact bytes of
results.json travel inside the PDF as an attached file (`attach_results`), and the
laboratory's key signs the whole file afterwards (`sign_pdf`), as a certification
signature that permits no later change, optionally stamped by an RFC 3161 timestamp
authority. `verify_report` then checks: the attachment hashes to what page 1 prints,
the signature's digest holds, the signature covers the whole file, and the signer's
certificate is one `sign_pdf` would accept, valid now or at the time an authority the
verifier trusts stamped (never at the signer's own clock); with trust anchors given,
also that the signer chains to one of them. It does not re-judge the verdict: the
verdict is results.json's, and results.json is what the hash pins.

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
import re
import stat
import sys
import warnings
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.atomic import write_bytes_atomic
from harness.errors import UserError
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
# `usage_problem` applies the same rule itself, for sign and verify alike: pyHanko skips
# it when the signer's certificate is itself the trust anchor.
KEY_USAGES = frozenset({"digital_signature", "non_repudiation"})
# The keys a report may be signed with, and verified: pyHanko's verifier refuses RSA
# below 2048 bits (and DSA below 3192); chcert refuses DSA altogether, and elliptic
# curves other than these (ETSI TS 119 312's list, which Acrobat verifies too).
MIN_RSA_BITS = 2048
EC_CURVES = frozenset(
    {"secp256r1", "secp384r1", "secp521r1", "brainpoolP256r1", "brainpoolP384r1", "brainpoolP512r1"}
)
# Extended key usages that say the key is for something else than documents. A
# certificate whose extendedKeyUsage names only these cannot sign a report (RFC 5280
# 4.2.1.12: the extension restricts, whether critical or not); any other purpose
# (documentSigning, emailProtection, Adobe's authentic documents, anyExtendedKeyUsage,
# one unknown to chcert) leaves it free to.
NOT_FOR_DOCUMENTS = {
    "1.3.6.1.5.5.7.3.1": "serverAuth",
    "1.3.6.1.5.5.7.3.2": "clientAuth",
    "1.3.6.1.5.5.7.3.3": "codeSigning",
    "1.3.6.1.5.5.7.3.8": "timeStamping",
    "1.3.6.1.5.5.7.3.9": "OCSPSigning",
}
TIME_STAMPING = "1.3.6.1.5.5.7.3.8"  # the one purpose of an RFC 3161 authority's certificate
TIMESTAMP_TIMEOUT = 10.0  # seconds to wait for the timestamp authority's answer
NO_TSA_ANCHOR = "no --trust-tsa anchor was given"
_QUIET_LOGGERS = ("pyhanko", "pyhanko_certvalidator", "pypdf")


class SealError(UserError):
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
    """Write `data` over `path` so that a reader sees the old file or the new, never half
    (harness/atomic.py), keeping the old file's mode: sealing changes what the PDF holds,
    not who may read it."""
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except OSError:  # gone meanwhile: a new file's mode
        mode = None
    write_bytes_atomic(path, data, mode)


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


@contextlib.contextmanager
def _dsa_quiet() -> Iterator[None]:
    """Without cryptography's DSA deprecation warning, and only that one, while the block
    runs: where a signing key or certificate is loaded and its key read.

    cryptography 51 warns on stderr whenever a DSA class is named: loading a DSA key,
    reading a DSA certificate's key, and pyHanko's CMS signer importing DSAPrivateKey.
    Printed before every signing error, it broke the one line a usage error is
    (docs/command-line.md). chcert refuses DSA keys itself (`key_problem`), so the
    warning tells a laboratory nothing."""
    from cryptography.utils import CryptographyDeprecationWarning

    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="DSA is deprecated", category=CryptographyDeprecationWarning
        )
        yield


@contextlib.contextmanager
def _no_dsa_warning() -> Iterator[None]:
    """Import pyHanko without the DSA warning (`_dsa_quiet`). Its validator imports the
    CMS signer lazily, mid-verification, so that module is loaded here, once, and no
    later import prints the warning."""
    with _dsa_quiet():
        import pyhanko.sign.signers.pdf_cms  # noqa: F401  (the module that names DSA)

        yield


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

    with _no_dsa_warning():
        from pyhanko.keys import load_certs_from_pemder_data

    return [
        next(load_certs_from_pemder_data(c.public_bytes(serialization.Encoding.DER))) for c in certs
    ]


def _key_to_pyhanko(key: PrivateKeyTypes) -> Any:
    """The private key as pyHanko's (asn1crypto) PrivateKeyInfo, through its public loader."""
    from cryptography.hazmat.primitives import serialization

    with _no_dsa_warning():
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


def _now() -> datetime:
    """The present moment, the one clock both signing and verifying judge validity by."""
    return datetime.now(UTC)


_KEY_USAGE_NAMES = (  # cryptography's attribute, RFC 5280's name
    ("digital_signature", "digitalSignature"),
    ("content_commitment", "nonRepudiation"),
    ("key_encipherment", "keyEncipherment"),
    ("data_encipherment", "dataEncipherment"),
    ("key_agreement", "keyAgreement"),
    ("key_cert_sign", "keyCertSign"),
    ("crl_sign", "cRLSign"),
)


def key_problem(cert: x509.Certificate) -> str | None:
    """Why the certificate's key is one no report may be signed with, or None.

    The same rule refuses the key when signing and the signature when verifying, so a
    laboratory never signs a report that can never verify: pyHanko's verifier refuses
    RSA below 2048 bits, chcert also DSA and curves outside EC_CURVES."""
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa

    with _dsa_quiet():
        key = cert.public_key()
    if isinstance(key, rsa.RSAPublicKey):
        if key.key_size < MIN_RSA_BITS:
            return f"its RSA key has {key.key_size} bits; at least {MIN_RSA_BITS} are needed"
        return None
    if isinstance(key, ec.EllipticCurvePublicKey):
        if key.curve.name not in EC_CURVES:
            allowed = ", ".join(sorted(EC_CURVES))
            return f"its EC key is on the curve {key.curve.name}; allowed: {allowed}"
        return None
    if isinstance(key, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey):
        return None
    with _dsa_quiet():
        kind = "DSA" if isinstance(key, dsa.DSAPublicKey) else type(key).__name__
    return (
        f"its key is {kind}; reports are signed with RSA (2048 bits or more), ECDSA or EdDSA keys"
    )


def usage_problem(cert: x509.Certificate) -> str | None:
    """Why the certificate's stated usage forbids signing a report, or None.

    A keyUsage, when present, must allow digitalSignature or nonRepudiation; when absent
    the key's use is unrestricted (RFC 5280 4.2.1.3 only restricts a key that states a
    usage), so it may sign, and `_usage_constraints` tells pyHanko's verifier the same.
    An extendedKeyUsage, when present, must name some purpose beyond NOT_FOR_DOCUMENTS
    (a TLS-only certificate signs no report)."""
    from cryptography import x509 as x509_

    try:
        usage: x509_.KeyUsage | None = cert.extensions.get_extension_for_class(x509_.KeyUsage).value
    except x509_.ExtensionNotFound:
        usage = None
    if usage is not None and not (usage.digital_signature or usage.content_commitment):
        stated = [name for attr, name in _KEY_USAGE_NAMES if getattr(usage, attr)]
        return (
            f"its key usage ({', '.join(stated) or 'none'}) allows neither "
            "digitalSignature nor nonRepudiation"
        )
    try:
        purposes = cert.extensions.get_extension_for_class(x509_.ExtendedKeyUsage).value
    except x509_.ExtensionNotFound:
        return None
    dotted = [oid.dotted_string for oid in purposes]
    if dotted and all(d in NOT_FOR_DOCUMENTS for d in dotted):
        names = ", ".join(NOT_FOR_DOCUMENTS[d] for d in dotted)
        return f"its extended key usage ({names}) does not include signing documents"
    return None


def _utc(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


def validity_problem(cert: x509.Certificate, moment: datetime, basis: str) -> str | None:
    """Why the certificate was not valid at `moment` (`basis` says which moment that is:
    now, or a trusted timestamp's time), or None."""
    start, end = cert.not_valid_before_utc, cert.not_valid_after_utc
    if moment > end:
        return f"the certificate expired on {_utc(end)}, before {basis}"
    if moment < start:
        return f"the certificate is valid only from {_utc(start)}, after {basis}"
    return None


def signing_time_problem(
    cert: x509.Certificate, signed_at: Sequence[datetime], stamped_at: Sequence[datetime]
) -> str | None:
    """Why a signature made at `signed_at` (the signer's clock, before and after signing:
    the signing time lies between) and stamped by an authority at `stamped_at` could
    never verify with `cert`, or None: a verifier judges the certificate at the trusted
    timestamp's time, else now (`judgment_time`), so a stamp outside the certificate's
    validity, or a signing time outside it, is never signed (docs/signing.md)."""
    moments = [(m, "the signing time") for m in signed_at]
    moments += [(m, "the time the authority stamped") for m in stamped_at]
    problems = (validity_problem(cert, m, f"{basis} ({_utc(m)})") for m, basis in moments)
    return next((p for p in problems if p is not None), None)


def check_signer(
    key: Path, cert: Path, passphrase: bytes | None = None
) -> tuple[PrivateKeyTypes, list[x509.Certificate]]:
    """The key and its certificates, once it is known they can sign now: the key loads
    (with its passphrase), belongs to the first certificate, which is valid today, has
    a key `verify_report` accepts (`key_problem`) and a usage that allows signing
    (`usage_problem`). Called before a run as well, so that a certification never ends
    unsigned, or signed so that it can never verify, for a mistake visible at its start."""
    with _dsa_quiet():  # a DSA key is refused below, in one line
        key_obj = load_private_key(key, passphrase)
        certs = load_certificates(cert, passphrase)
        signer_cert = certs[0]
        belongs = _public_der(key_obj.public_key()) == _public_der(signer_cert.public_key())
    if not belongs:
        raise SealError(key, f"this private key does not belong to the certificate {cert}")
    weak = key_problem(signer_cert)
    if weak is not None:
        raise SealError(key, f"cannot sign reports: {weak}")
    usage = usage_problem(signer_cert)
    if usage is not None:
        raise SealError(
            cert,
            f"the certificate cannot sign reports: {usage} (docs/signing.md, What may sign)",
        )
    now = _now()
    if not signer_cert.not_valid_before_utc <= now <= signer_cert.not_valid_after_utc:
        raise SealError(
            cert,
            f"the certificate is valid from {signer_cert.not_valid_before_utc:%Y-%m-%d} "
            f"to {signer_cert.not_valid_after_utc:%Y-%m-%d}, not now",
        )
    return key_obj, certs


# ---------------------------------------------------------------------------
# Timestamps (RFC 3161)


def _check_url(url: str) -> None:
    if not re.match(r"^https?://[^\s/]+", url):
        raise SealError(url, "not a timestamp authority's http:// or https:// URL")


def _authority_failure(exc: BaseException) -> str:
    """A timestamp authority's failure in a few words: pyHanko wraps the network's
    error, whose own message says more."""
    with _no_dsa_warning():
        from pyhanko.sign.timestamps import TimestampRequestError

    cause = exc.__cause__ or exc
    text = " ".join((str(getattr(cause, "message", "")) or str(cause)).split())
    text = text or type(cause).__name__
    if isinstance(cause, OSError) and not isinstance(cause, TimestampRequestError):
        return f"it cannot be reached ({text})"
    status = getattr(cause, "status", None)  # aiohttp's HTTP errors carry one
    if isinstance(status, int) and status >= 400:
        return f"it answered HTTP {status} ({text})"
    if isinstance(cause, TimestampRequestError):
        return f"it refused or answered wrongly ({text})"
    return f"its answer is not an RFC 3161 timestamp response ({text})"


class _AuthorityError(UserError):
    """The timestamp authority could not be reached, or answered something not a token."""


def _timestamper(url: str) -> Any:
    """pyHanko's HTTP client for the authority at `url`, checking more than pyHanko does:
    any failure is an _AuthorityError, and a token must stamp the digest asked for;
    `stamped_at` keeps the time (genTime) of every token, for sign_pdf to judge."""
    with _no_dsa_warning():
        from pyhanko.sign.timestamps import HTTPTimeStamper

    class Stamper(HTTPTimeStamper):  # type: ignore[misc]
        stamped_at: list[datetime]

        async def async_timestamp(self, message_digest: bytes, md_algorithm: str) -> Any:
            try:
                token = await super().async_timestamp(message_digest, md_algorithm)
                info = token["content"]["encap_content_info"]["content"].parsed
                stamped = info["message_imprint"]["hashed_message"].native
            except Exception as exc:  # network, HTTP, ASN.1: all mean no usable token
                raise _AuthorityError(_authority_failure(exc)) from exc
            if stamped != message_digest:
                raise _AuthorityError("its token stamps another digest than the one sent")
            when = info["gen_time"].native
            if isinstance(when, datetime):
                self.stamped_at.append(when)
            return token

    stamper = Stamper(url, timeout=TIMESTAMP_TIMEOUT)
    stamper.stamped_at = []
    return stamper


def _token_authority(token: Any) -> str:
    """The name of whoever signed a timestamp token, as its embedded certificate says."""
    signed = token["content"]
    sid = signed["signer_infos"][0]["sid"]
    if sid.name == "issuer_and_serial_number":
        wanted = sid.chosen
        for choice in signed["certificates"]:
            cert = choice.chosen
            if (cert.issuer, cert.serial_number) == (
                wanted["issuer"],
                wanted["serial_number"].native,
            ):
                return str(cert.subject.human_friendly)
    return "an authority whose certificate the token does not carry"


def check_timestamp_authority(url: str) -> str:
    """Ask the authority at `url` for one token, before a run, so that a certification
    never ends unsigned because its timestamp authority is down or misconfigured; the
    authority's name, as its token gives it. SealError (naming the URL) otherwise."""
    import asyncio

    _check_url(url)
    digest = hashlib.sha256(b"chcert: is the timestamp authority there?").digest()
    try:
        with _quiet():
            token = asyncio.run(_timestamper(url).async_timestamp(digest, "sha256"))
            return _token_authority(token)
    except _AuthorityError as exc:
        raise SealError(url, f"the timestamp authority gave no timestamp: {exc}") from None
    except Exception as exc:  # a token pyHanko accepted but whose parts are not there
        raise SealError(url, f"the timestamp authority's token is unreadable: {exc}") from None


def sign_pdf(
    pdf: Path,
    key: Path,
    cert: Path,
    passphrase: bytes | None = None,
    chain: Sequence[Path] = (),
    timestamp_url: str | None = None,
    drawn_sha256: str | None = None,
) -> None:
    """Sign `pdf` in place with the laboratory's key, as an incremental update.

    `key` is a PEM or DER private key, or a PKCS#12 bundle; `cert` the signer's
    certificate (PEM or DER; it may be the same PKCS#12 bundle); `chain` further
    certificates to embed (intermediates) so a verifier can build the path to its
    anchor. The signature goes into the field "chcert" as a certification signature
    permitting no changes (DocMDP 1): a viewer then flags any later edit, and
    `verify_report` calls one a modification after signing. Signs after attaching:
    attach_results refuses a signed PDF. With `timestamp_url`, an RFC 3161 timestamp
    authority stamps the signature (a signature timestamp token in the CMS): proof of
    when it was signed that the signer's own clock cannot give; an authority that
    cannot be reached or answers no token is a SealError naming the URL. Given the
    SHA-256 of the PDF the caller drew (`drawn_sha256`), the file must still be exactly
    that one: a report changed since (by a process the game left behind, say) is never
    signed.
    """
    if timestamp_url is not None:
        _check_url(timestamp_url)
    key_obj, certs = check_signer(key, cert, passphrase)
    signer_cert = certs[0]
    extra = list(certs[1:])
    for path in chain:
        extra += load_certificates(path, passphrase)
    original = _read_pdf_bytes(pdf)
    if drawn_sha256 is not None and hashlib.sha256(original).hexdigest() != drawn_sha256:
        raise SealError(pdf, "is not the report chcert drew: it changed before signing")
    _require_attachment(pdf, original)

    with _no_dsa_warning():
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
    stamper = _timestamper(timestamp_url) if timestamp_url is not None else None
    out = io.BytesIO()
    try:
        with _quiet():
            writer = IncrementalPdfFileWriter(io.BytesIO(original))
            if writer.prev.embedded_signatures:
                raise SealError(pdf, "already signed: a report is sealed once")
            before = _now()
            signers.sign_pdf(writer, meta, signer=signer, timestamper=stamper, output=out)
        stamped = stamper.stamped_at if stamper is not None else []
        late = signing_time_problem(signer_cert, (before, _now()), stamped)
        if late is not None:
            raise SealError(cert, f"not signed, as it could never verify: {late}")
    except SealError:
        raise
    except _AuthorityError as exc:
        url = str(timestamp_url)
        raise SealError(url, f"the timestamp authority gave no timestamp: {exc}") from None
    except Exception as exc:  # pyHanko's errors share no base class worth naming here
        raise SealError(pdf, f"cannot sign: {exc}") from exc
    _replace_atomic(pdf, out.getvalue())


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
    original: bytes, anchors: _Anchors, trust_checked: bool
) -> tuple[list[SignatureCheck], str | None]:
    """Every signature of the file, validated; or the reason pyHanko could not read it."""
    with _no_dsa_warning():
        from pyhanko.pdf_utils.reader import PdfFileReader

    checks: list[SignatureCheck] = []
    now = _now()
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
    pdf: Path, trust: Sequence[Path] = (), trust_tsa: Sequence[Path] = ()
) -> Verification:
    """Check a sealed report: printed hash == attachment's hash, signature intact and
    covering the whole file, a signer's certificate sign_pdf would accept, valid now or
    at the time a trusted authority (`trust_tsa` roots) stamped, and (given `trust`
    certificates as roots) a trusted signer.

    An unsigned report is never verified, whatever its hashes say: anyone can rewrite
    results.json and the line that prints its hash together. Raises SealError only for
    the caller's mistakes (no such file, not a PDF, an unreadable trust certificate).
    """
    original = _read_pdf_bytes(pdf)
    anchors = _Anchors(_load_anchors(trust), _load_anchors(trust_tsa))
    trust_checked = bool(anchors.signers)
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
