"""The sealed report: results.json attached, a signature over both, and what verify catches
(docs/signing.md)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pypdf import PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, NameObject
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from harness.report.seal import (
    EXIT_NOT_VERIFIED,
    EXIT_SIGNER_UNCHECKED,
    EXIT_VERIFIED,
    NO_ANCHOR,
    SIGNER_UNCHECKED,
    UNSIGNED_MATCH,
    SealError,
    attach_results,
    embedded_results,
    hash_line,
    printed_digests,
    sign_pdf,
    verify_command,
    verify_report,
)
from tests.certs import PASSPHRASE, Lab, issue, make_lab, write_lab

RESULTS = {"verdict": "PASS", "clauses": [{"id": "s000-antewin", "status": "pass"}], "n": "é"}
PAGE_TWO = b"Second page: the clause table"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    return make_lab(tmp_path_factory.mktemp("lab"), "Lab A")


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    """Someone else's key and certificate: no path from Lab A's signature to it."""
    return make_lab(tmp_path_factory.mktemp("stranger"), "Someone Else")


def _render(path: Path, printed: str) -> None:
    """A two-page report; page 1 draws `printed` in Courier as the certificate page does.
    Uncompressed, so a test can find page 2's text among the file's bytes."""
    pdf = canvas.Canvas(str(path), pagesize=A4, pageCompression=0)
    pdf.setFont("Helvetica-Bold", 16)
    pdf.drawString(60, 780, "Certificate: PASS")
    pdf.setFont("Courier", 8)
    pdf.drawString(60, 760, printed)
    pdf.showPage()
    pdf.setFont("Helvetica", 10)
    pdf.drawString(60, 780, PAGE_TWO.decode())
    pdf.showPage()
    pdf.save()


@dataclass(frozen=True)
class Report:
    pdf: Path
    data: bytes


@pytest.fixture
def report(tmp_path: Path) -> Report:
    """An unsealed report whose page 1 prints the SHA-256 of its results.json bytes."""
    data = (json.dumps(RESULTS, indent=2) + "\n").encode()
    pdf = tmp_path / "report.pdf"
    _render(pdf, f"results.json SHA-256: {hashlib.sha256(data).hexdigest()}")
    return Report(pdf, data)


@pytest.fixture
def sealed(report: Report, lab: Lab) -> Report:
    attach_results(report.pdf, report.data)
    sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    return report


def _verify(pdf: Path, capsys: pytest.CaptureFixture[str], *trust: Path) -> tuple[int, str]:
    code = verify_command(str(pdf), [str(t) for t in trust])
    return code, capsys.readouterr().out


# --- the printed line ----------------------------------------------------------------


def test_hash_line_is_the_certificate_pages_spelling() -> None:
    data = b'{"verdict": "PASS"}\n'
    assert hash_line(data) == f"results.json SHA-256: {hashlib.sha256(data).hexdigest()}"


def test_printed_digest_survives_the_breaks_text_extraction_inserts() -> None:
    digest = hashlib.sha256(b"x").hexdigest()
    broken = f"Verdict PASS\nresults.json\nSHA-256:\n{digest[:30]} {digest[30:]}\nDeck 1"
    assert printed_digests(broken) == [digest]
    assert printed_digests(f"results.json SHA-256: {digest.upper()}") == [digest]
    assert printed_digests(f"results.json SHA-256: {digest}0") == []  # 65 digits: not one
    assert printed_digests(f"results.json SHA-256: {digest[:63]}") == []


# --- attaching -----------------------------------------------------------------------


def test_attach_then_read_back_the_identical_bytes(report: Report) -> None:
    data = report.data + bytes(range(256)) * 4  # any bytes, not only this JSON
    report.pdf.chmod(0o644)
    rendered = report.pdf.read_bytes()
    attach_results(report.pdf, data)
    assert embedded_results(report.pdf) == data
    sealed = report.pdf.read_bytes()
    assert sealed.startswith(rendered)  # appended as an incremental update
    assert stat.S_IMODE(os.stat(report.pdf).st_mode) == 0o644  # not mkstemp's 0600
    assert not [p for p in report.pdf.parent.iterdir() if p.name.endswith(".tmp")]


def test_the_attachment_is_listed_where_viewers_look(report: Report) -> None:
    attach_results(report.pdf, report.data)
    reader = PdfReader(report.pdf)
    (entry,) = reader.attachment_list
    assert entry.name == "results.json" and entry.alternative_name == "results.json"
    assert entry.subtype == "/application/json" and entry.description
    assert entry.associated_file_relationship == "/Data"
    catalog: Any = reader.trailer["/Root"]
    assert catalog["/AF"][0].get_object() == entry.pdf_object
    assert embedded_results(report.pdf) == report.data


def test_a_report_without_attachment_reads_none(report: Report) -> None:
    assert embedded_results(report.pdf) is None


def test_a_report_is_attached_once_and_signed_once(sealed: Report, lab: Lab) -> None:
    with pytest.raises(SealError, match=r"already carries a results\.json"):
        attach_results(sealed.pdf, b"{}")
    with pytest.raises(SealError, match="already signed"):
        sign_pdf(sealed.pdf, lab.key, lab.cert, PASSPHRASE)
    assert verify_report(sealed.pdf).ok


def test_signing_needs_the_attachment_first(report: Report, lab: Lab) -> None:
    with pytest.raises(SealError, match=r"attach exactly one results\.json before signing"):
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)


# --- a sealed report verifies --------------------------------------------------------


def test_a_sealed_report_verifies(sealed: Report, capsys: pytest.CaptureFixture[str]) -> None:
    result = verify_report(sealed.pdf)
    assert result.ok and not result.problems
    assert result.hash_matches and result.embedded_sha256 == result.printed_sha256
    (sig,) = result.signatures
    assert sig.field_name == "chcert" and sig.intact and sig.valid
    assert sig.coverage == "ENTIRE_FILE" and sig.trusted is None
    assert "Lab A" in sig.signer and sig.signing_time
    code, out = _verify(sealed.pdf, capsys)  # intact, but anyone can sign with a key
    assert code == EXIT_SIGNER_UNCHECKED
    assert NO_ANCHOR in out and "Lab A" in out
    assert out.splitlines()[-1] == SIGNER_UNCHECKED


def test_its_own_certificate_as_anchor_makes_it_trusted(
    sealed: Report, lab: Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    (sig,) = verify_report(sealed.pdf, [lab.cert]).signatures
    assert sig.trusted is True
    code, out = _verify(sealed.pdf, capsys, lab.cert)
    assert code == EXIT_VERIFIED and NO_ANCHOR not in out


def test_an_unrelated_anchor_leaves_it_untrusted(
    sealed: Report, stranger: Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    result = verify_report(sealed.pdf, [stranger.cert])
    assert not result.ok and result.signatures[0].trusted is False
    assert result.hash_matches and result.signatures[0].intact  # only trust is missing
    code, out = _verify(sealed.pdf, capsys, stranger.cert)
    assert code == EXIT_NOT_VERIFIED
    assert out.splitlines()[-1].startswith("NOT VERIFIED: ") and "not trusted" in out


def test_a_pkcs12_bundle_signs_too(report: Report, lab: Lab) -> None:
    attach_results(report.pdf, report.data)
    sign_pdf(report.pdf, lab.p12, lab.p12, PASSPHRASE)
    assert verify_report(report.pdf, [lab.cert]).ok


def test_chain_certificates_are_embedded_for_the_verifier(report: Report, tmp_path: Path) -> None:
    """root -> intermediate -> signer: given the intermediate as `chain`, the signature
    carries it, and the root alone is enough as anchor; without it, no path."""
    root_key, mid_key, leaf_key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    root = issue("Root CA", root_key)
    mid = issue("Intermediate CA", mid_key, (root.subject, root_key))
    leaf = write_lab(tmp_path / "leaf", leaf_key, issue("Lab B", leaf_key, (mid.subject, mid_key)))
    (tmp_path / "root.crt").write_bytes(root.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "mid.crt").write_bytes(mid.public_bytes(serialization.Encoding.PEM))
    attach_results(report.pdf, report.data)
    unchained = tmp_path / "unchained.pdf"
    unchained.write_bytes(report.pdf.read_bytes())
    sign_pdf(report.pdf, leaf.key, leaf.cert, PASSPHRASE, [tmp_path / "mid.crt"])
    sign_pdf(unchained, leaf.key, leaf.cert, PASSPHRASE)
    assert verify_report(report.pdf, [tmp_path / "root.crt"]).ok
    result = verify_report(unchained, [tmp_path / "root.crt"])
    assert not result.ok and result.signatures[0].trusted is False


# --- tampering is caught -------------------------------------------------------------


def _flip(pdf: Path, offset: int) -> None:
    data = bytearray(pdf.read_bytes())
    assert offset < data.index(b"/ByteRange")  # inside the first signed range
    data[offset] ^= 0x01
    pdf.write_bytes(bytes(data))


def test_a_changed_byte_in_the_signed_range_is_caught(
    sealed: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    """Page 2's text changed: the hashes still agree, only the signature can tell."""
    _flip(sealed.pdf, sealed.pdf.read_bytes().index(PAGE_TWO) + 3)
    result = verify_report(sealed.pdf)
    assert result.hash_matches and not result.ok
    assert any("signed bytes were changed" in p for p in result.problems)
    assert _verify(sealed.pdf, capsys)[0] == EXIT_NOT_VERIFIED


def test_a_byte_flipped_mid_file_is_caught(
    sealed: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    """Wherever it lands (an object, an xref offset), the report no longer verifies."""
    data = sealed.pdf.read_bytes()
    _flip(sealed.pdf, data.index(b"/ByteRange") // 2)
    assert not verify_report(sealed.pdf).ok
    code, out = _verify(sealed.pdf, capsys)
    assert code == EXIT_NOT_VERIFIED and "NOT VERIFIED: " in out


def _replace_attachment(pdf: Path, data: bytes, reprint: bool) -> None:
    """Append an incremental update, after the signature, that swaps in other JSON and,
    with `reprint`, a page-1 content stream printing the new hash as well."""
    writer = PdfWriter(pdf, incremental=True)
    (entry,) = [e for e in writer.attachment_list if e.name == "results.json"]
    entry.content = data
    if reprint:
        page = writer.pages[0]
        resources: Any = page["/Resources"]
        font = next(iter(resources["/Font"]))
        text = f"BT {font} 8 Tf 60 760 Td ({hash_line(data)}) Tj ET".encode()
        stream = DecodedStreamObject()
        stream.set_data(text)
        page[NameObject("/Contents")] = writer._add_object(stream)
    writer.write(pdf)


def test_a_title_changed_after_signing_is_caught(
    sealed: Report, lab: Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    """pyHanko may call such an update harmless; a report is sealed once, so it is not."""
    writer = PdfWriter(sealed.pdf, incremental=True)
    writer.add_metadata({"/Title": "CERTIFIED by someone else"})
    writer.write(sealed.pdf)
    code, out = _verify(sealed.pdf, capsys, lab.cert)
    assert code == EXIT_NOT_VERIFIED and "MODIFIED after signing" in out


def test_a_replaced_attachment_appended_after_signing_is_caught(
    sealed: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    forged = b'{"verdict": "PASS", "forged": true}\n'
    _replace_attachment(sealed.pdf, forged, reprint=False)
    assert embedded_results(sealed.pdf) == forged  # what a viewer now shows
    result = verify_report(sealed.pdf)
    assert not result.ok and not result.hash_matches
    assert any("modified after signing" in p for p in result.problems)
    assert any("does not match the hash printed" in p for p in result.problems)
    code, out = _verify(sealed.pdf, capsys)
    assert code == EXIT_NOT_VERIFIED and "MODIFIED after signing" in out


def test_a_consistent_forgery_appended_after_signing_is_caught(sealed: Report) -> None:
    """Attachment and printed hash replaced together: they agree, the signature does not."""
    forged = b'{"verdict": "PASS", "forged": true}\n'
    _replace_attachment(sealed.pdf, forged, reprint=True)
    result = verify_report(sealed.pdf)
    assert result.hash_matches and result.printed_sha256 == hashlib.sha256(forged).hexdigest()
    assert not result.ok
    assert any("modified after signing" in p for p in result.problems)


def test_an_unsigned_report_with_a_mismatched_attachment(
    report: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    attach_results(report.pdf, b'{"verdict": "PASS", "other": 1}\n')
    result = verify_report(report.pdf)
    assert not result.signed and not result.hash_matches
    assert result.problems[-1] == "not signed"
    assert any("does not match the hash printed" in p for p in result.problems)
    assert _verify(report.pdf, capsys)[0] == EXIT_NOT_VERIFIED


def test_an_unsigned_matching_report_is_not_verified(
    report: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    attach_results(report.pdf, report.data)
    result = verify_report(report.pdf)
    assert result.hash_matches and result.problems == [UNSIGNED_MATCH]
    code, out = _verify(report.pdf, capsys)
    assert code == EXIT_NOT_VERIFIED
    assert out.splitlines()[-1] == f"NOT VERIFIED: {UNSIGNED_MATCH}"


def test_a_report_with_nothing_attached_is_not_verified(report: Report) -> None:
    result = verify_report(report.pdf)
    assert not result.attached and "no results.json is attached" in result.problems


# --- usage errors --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["not a pdf", "missing", "folder", "bad trust file"])
def test_usage_errors_exit_4_with_one_line(
    kind: str, sealed: Report, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target, trust = str(sealed.pdf), []
    if kind == "not a pdf":
        target = str(tmp_path / "results.json")
        Path(target).write_bytes(sealed.data)
    elif kind == "missing":
        target = str(tmp_path / "absent.pdf")
    elif kind == "folder":
        target = str(tmp_path)
    else:
        trust = [target]  # a PDF is no certificate
    assert verify_command(target, trust) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1 and captured.err.startswith("chcert verify: ")


def test_a_wrong_passphrase_names_the_key(report: Report, lab: Lab) -> None:
    attach_results(report.pdf, report.data)
    with pytest.raises(SealError, match="wrong passphrase") as caught:
        sign_pdf(report.pdf, lab.key, lab.cert, b"wrong")
    assert caught.value.path == str(lab.key) and str(lab.key) in str(caught.value)
    with pytest.raises(SealError, match="encrypted: give its passphrase"):
        sign_pdf(report.pdf, lab.key, lab.cert)
    with pytest.raises(SealError, match="passphrase is wrong") as caught:
        sign_pdf(report.pdf, lab.p12, lab.p12, b"wrong")
    assert caught.value.path == str(lab.p12)


def test_a_key_not_matching_the_certificate_names_both(
    report: Report, lab: Lab, stranger: Lab
) -> None:
    attach_results(report.pdf, report.data)
    with pytest.raises(SealError, match="does not belong to the certificate") as caught:
        sign_pdf(report.pdf, lab.key, stranger.cert, PASSPHRASE)
    assert caught.value.path == str(lab.key) and str(stranger.cert) in str(caught.value)


def test_unreadable_key_and_certificate_files(report: Report, lab: Lab, tmp_path: Path) -> None:
    attach_results(report.pdf, report.data)
    garbage = tmp_path / "garbage.pem"
    garbage.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n")
    with pytest.raises(SealError, match="not a private key") as caught:
        sign_pdf(report.pdf, garbage, lab.cert, PASSPHRASE)
    assert caught.value.path == str(garbage)
    with pytest.raises(SealError, match="no such file") as caught:
        sign_pdf(report.pdf, tmp_path / "absent.key", lab.cert, PASSPHRASE)
    with pytest.raises(SealError) as caught:
        sign_pdf(report.pdf, lab.key, report.pdf, PASSPHRASE)  # a PDF as the certificate
    assert caught.value.path == str(report.pdf)
    assert embedded_results(report.pdf) == report.data  # the report is left as it was
    assert not verify_report(report.pdf).signed
