"""Signing the report: a certification signature over the whole PDF, permitting no later
change, optionally stamped by an RFC 3161 timestamp authority (docs/signing.md).
pyHanko is imported inside the functions that use it."""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.errors import UserError
from harness.signing.attachment import (
    SealError,
    _no_dsa_warning,
    _quiet,
    _read_pdf_bytes,
    _replace_atomic,
)
from harness.signing.keys import (
    _certs_to_pyhanko,
    _key_to_pyhanko,
    _now,
    _require_attachment,
    check_signer,
    load_certificates,
    signing_time_problem,
)

SIGNATURE_FIELD = "chcert"
TIMESTAMP_TIMEOUT = 10.0  # seconds to wait for the timestamp authority's answer


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
