"""Throwaway signing material for tests: a laboratory's key and certificate, and a
timestamp authority's (docs/signing.md)."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.types import CertificateIssuerPrivateKeyTypes
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PASSPHRASE = b"correct horse"
DAY = datetime.timedelta(days=1)


@dataclass(frozen=True)
class Lab:
    """A laboratory's signing material: its key (encrypted PEM), certificate, both as .p12."""

    key: Path
    cert: Path
    p12: Path


@dataclass(frozen=True)
class Usage:
    """What a certificate says its key is for: keyUsage bits (None: no extension at all)
    and extendedKeyUsage purposes (None: no extension)."""

    key_usage: frozenset[str] | None = frozenset(
        {"digital_signature", "content_commitment", "key_cert_sign", "crl_sign"}
    )
    extended: tuple[x509.ObjectIdentifier, ...] | None = None
    extended_critical: bool = False


_KEY_USAGE_BITS = (
    "digital_signature",
    "content_commitment",
    "key_encipherment",
    "data_encipherment",
    "key_agreement",
    "key_cert_sign",
    "crl_sign",
)
SIGNING = Usage()
TIMESTAMPING = Usage(
    key_usage=frozenset({"digital_signature"}),
    extended=(ExtendedKeyUsageOID.TIME_STAMPING,),
    extended_critical=True,
)


def cert_name(common: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Test Laboratory"),
        ]
    )


def _key_usage(bits: frozenset[str]) -> x509.KeyUsage:
    flags = {bit: bit in bits for bit in _KEY_USAGE_BITS}
    return x509.KeyUsage(**flags, encipher_only=False, decipher_only=False)


def issue(
    name: str,
    key: CertificateIssuerPrivateKeyTypes,
    issuer: tuple[x509.Name, CertificateIssuerPrivateKeyTypes] | None = None,
    *,
    usage: Usage = SIGNING,
    valid: tuple[datetime.datetime, datetime.datetime] | None = None,
    ca: bool = True,
) -> x509.Certificate:
    """A certificate for `key`, self-signed unless an (issuer name, issuer key) is given;
    valid from yesterday for 30 days unless `valid` says otherwise."""
    issuer_name, issuer_key = issuer or (cert_name(name), key)
    now = datetime.datetime.now(datetime.UTC)
    start, end = valid or (now - DAY, now + 30 * DAY)
    builder = (
        x509.CertificateBuilder()
        .subject_name(cert_name(name))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if usage.key_usage is not None:
        builder = builder.add_extension(_key_usage(usage.key_usage), critical=True)
    if usage.extended is not None:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage(list(usage.extended)), critical=usage.extended_critical
        )
    algorithm = None if _is_eddsa(issuer_key) else hashes.SHA256()
    return builder.sign(issuer_key, algorithm)


def _is_eddsa(key: CertificateIssuerPrivateKeyTypes) -> bool:
    from cryptography.hazmat.primitives.asymmetric import ed448, ed25519

    return isinstance(key, ed25519.Ed25519PrivateKey | ed448.Ed448PrivateKey)


def write_lab(folder: Path, key: pkcs12.PKCS12PrivateKeyTypes, cert: x509.Certificate) -> Lab:
    folder.mkdir(parents=True, exist_ok=True)
    lab = Lab(folder / "lab.key", folder / "lab.crt", folder / "lab.p12")
    encrypted = serialization.BestAvailableEncryption(PASSPHRASE)
    lab.key.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encrypted)
    )
    lab.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    lab.p12.write_bytes(pkcs12.serialize_key_and_certificates(b"lab", key, cert, None, encrypted))
    return lab


def make_lab(folder: Path, name: str) -> Lab:
    """A throwaway self-signed EC certificate: its own root, so it can be its trust anchor."""
    key = ec.generate_private_key(ec.SECP256R1())
    return write_lab(folder, key, issue(name, key))


@dataclass(frozen=True)
class Authority:
    """An RFC 3161 timestamp authority's material: its root (the verifier's --trust-tsa),
    and the certificate and key it stamps with (RSA: pyHanko's DummyTimeStamper signs
    with nothing else)."""

    root: Path
    cert: x509.Certificate
    key: rsa.RSAPrivateKey
    chain: Sequence[x509.Certificate]


def make_authority(folder: Path, name: str) -> Authority:
    """A root CA and, under it, a timestamping certificate: extendedKeyUsage
    timeStamping only, critical, as RFC 3161 2.3 requires."""
    folder.mkdir(parents=True, exist_ok=True)
    root_key = ec.generate_private_key(ec.SECP256R1())
    root = issue(f"{name} Root", root_key)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = issue(name, key, (root.subject, root_key), usage=TIMESTAMPING, ca=False)
    path = folder / "tsa-root.crt"
    path.write_bytes(root.public_bytes(serialization.Encoding.PEM))
    return Authority(path, cert, key, (root,))
