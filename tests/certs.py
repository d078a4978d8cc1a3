"""Throwaway signing material for tests: a laboratory's key and certificate (docs/signing.md)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

PASSPHRASE = b"correct horse"


@dataclass(frozen=True)
class Lab:
    """A laboratory's signing material: its key (encrypted PEM), certificate, both as .p12."""

    key: Path
    cert: Path
    p12: Path


def cert_name(common: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Test Laboratory"),
        ]
    )


def issue(
    name: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None = None,
) -> x509.Certificate:
    """A certificate for `key`, self-signed unless an (issuer name, issuer key) is given."""
    issuer_name, issuer_key = issuer or (cert_name(name), key)
    now = datetime.datetime.now(datetime.UTC)
    usage = x509.KeyUsage(
        digital_signature=True,
        content_commitment=True,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=True,
        crl_sign=True,
        encipher_only=False,
        decipher_only=False,
    )
    return (
        x509.CertificateBuilder()
        .subject_name(cert_name(name))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(usage, critical=True)
        .sign(issuer_key, hashes.SHA256())
    )


def write_lab(folder: Path, key: ec.EllipticCurvePrivateKey, cert: x509.Certificate) -> Lab:
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
