"""Signing the report with the laboratory's key (docs/signing.md): checked before a run,
applied to the PDF chcert drew once everything is published."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from harness.cli.common import UsageError
from harness.results.outcomes import EXIT_USAGE


@dataclasses.dataclass(frozen=True)
class Signing:
    """The laboratory's key and certificate, loaded before the run so that a wrong path
    or passphrase stops it at once, and the timestamp authority, asked once before the
    run for the same reason (docs/signing.md)."""

    key: Path
    cert: Path
    passphrase: bytes | None = dataclasses.field(repr=False)
    timestamp_url: str | None = None

    def sign(self, pdf: Path, drawn_sha256: str) -> None:
        """Sign `pdf`, which must still be the PDF chcert drew (its SHA-256): never a
        report changed since."""
        from harness.signing.sign import sign_pdf

        sign_pdf(
            pdf,
            self.key,
            self.cert,
            self.passphrase,
            timestamp_url=self.timestamp_url,
            drawn_sha256=drawn_sha256,
        )


def signing_of(args: argparse.Namespace) -> Signing | None:
    from harness.signing.attachment import SealError
    from harness.signing.keys import check_signer
    from harness.signing.sign import check_timestamp_authority

    timestamp_url = getattr(args, "timestamp_url", None)
    if not args.sign_key and not args.sign_cert:
        if timestamp_url:
            raise UsageError("--timestamp-url stamps a signature: give --sign-key and --sign-cert")
        return None
    if not (args.sign_key and args.sign_cert):
        raise UsageError("--sign-key and --sign-cert go together")
    passphrase = None
    if args.sign_passphrase_env:
        value = os.environ.get(args.sign_passphrase_env)
        if value is None:
            raise UsageError(f"--sign-passphrase-env: {args.sign_passphrase_env} is not set")
        passphrase = value.encode("utf-8")
    try:
        check_signer(Path(args.sign_key), Path(args.sign_cert), passphrase)
        if timestamp_url:
            authority = check_timestamp_authority(timestamp_url)
            print(f"chcert: timestamp authority {timestamp_url} answers ({authority})")
    except SealError as exc:
        raise UsageError(str(exc)) from exc
    return Signing(Path(args.sign_key), Path(args.sign_cert), passphrase, timestamp_url or None)


def signed(signing: Signing, pdf: Path, drawn_sha256: str, code: int) -> int:
    """Sign the published report, as drawn (its SHA-256); a signature that fails is a
    usage error (exit 4), the report stays as written, unsigned."""
    from harness.signing.attachment import SealError

    try:
        signing.sign(pdf, drawn_sha256)
    except SealError as exc:
        print(f"chcert: the report was not signed: {exc}", file=sys.stderr)
        return EXIT_USAGE
    stamped = f", timestamped by {signing.timestamp_url}" if signing.timestamp_url else ""
    print(f"  signed:  {pdf}{stamped} (chcert verify {pdf})")
    return code
