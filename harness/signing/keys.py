"""The laboratory's key and certificate: loading them, and what a signer's certificate
must be for chcert to sign with it or accept it (docs/signing.md)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.paths import read_input
from harness.signing.attachment import (
    RESULTS_NAME,
    SealError,
    _dsa_quiet,
    _no_dsa_warning,
    _quiet,
    _results_attachments,
)

if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes

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
