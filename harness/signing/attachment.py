"""results.json inside the report: the SHA-256 line page 1 prints, the attached file,
and whether a PDF is signed (docs/signing.md).

The certificate page prints `results.json SHA-256: <hex>`. That line alone proves
nothing: whoever edits results.json can edit the PDF too. So the exact bytes of
results.json travel inside the PDF as an attached file (`attach_results`), which the
signature then covers (harness/signing/sign.py). pypdf is imported inside the
functions that use it, so `chcert --help` stays fast.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import re
import stat
import warnings
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.atomic import write_bytes_atomic
from harness.errors import UserError
from harness.paths import read_input

RESULTS_NAME = "results.json"
RESULTS_MIME = "application/json"
RESULTS_DESCRIPTION = "The certification run's full results; page 1 prints its SHA-256"
HASH_LABEL = "results.json SHA-256:"
PDF_HEADER_WINDOW = 1024  # ISO 32000: readers look for %PDF- within the first 1024 bytes
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
