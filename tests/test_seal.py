"""The sealed report: results.json attached, a signature over both, and what verify catches
(docs/signing.md)."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization.pkcs12 import PKCS12PrivateKeyTypes
from cryptography.x509.oid import ExtendedKeyUsageOID
from pypdf import PdfReader, PdfWriter
from pypdf.generic import DecodedStreamObject, NameObject
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from harness.cli import build_parser, main
from harness.cli import signing as cli
from harness.cli.common import UsageError
from harness.signing import attachment, keys, sign, verify
from harness.signing.attachment import (
    SealError,
    attach_results,
    embedded_results,
    hash_line,
    printed_digests,
)
from harness.signing.keys import check_signer
from harness.signing.sign import check_timestamp_authority, sign_pdf
from harness.signing.verify import (
    EXIT_NOT_VERIFIED,
    EXIT_SIGNER_UNCHECKED,
    EXIT_VERIFIED,
    NO_ANCHOR,
    NO_TSA_ANCHOR,
    SIGNER_UNCHECKED,
    UNSIGNED_MATCH,
    verify_command,
    verify_report,
)
from tests.certs import (
    DAY,
    PASSPHRASE,
    SIGNING,
    Authority,
    Lab,
    Usage,
    issue,
    make_authority,
    make_lab,
    write_lab,
)
from tests.tsa import closed_url, serve_authority, serve_garbage

SIGNING_MODULES = (attachment, keys, sign, verify)


def _everywhere(patch: pytest.MonkeyPatch, name: str, value: object) -> None:
    """Replace a function of the signing modules in each module that holds it: one
    defines it, the others import it by name."""
    held = [m for m in SIGNING_MODULES if hasattr(m, name)]
    assert held, name
    for module in held:
        patch.setattr(module, name, value)


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


def _verify(
    pdf: Path, capsys: pytest.CaptureFixture[str], *trust: Path, tsa: tuple[Path, ...] = ()
) -> tuple[int, str]:
    code = verify_command(str(pdf), [str(t) for t in trust], [str(t) for t in tsa])
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


def test_a_changed_byte_with_a_trusted_anchor_is_called_a_change_not_distrust(
    sealed: Report, lab: Lab, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken signature says nothing of its signer: the one line names the change,
    and the trust line does not judge the signer at all."""
    _flip(sealed.pdf, sealed.pdf.read_bytes().index(PAGE_TWO) + 3)
    code, out = _verify(sealed.pdf, capsys, lab.cert)
    last = out.splitlines()[-1]
    assert code == EXIT_NOT_VERIFIED
    assert last == (
        "NOT VERIFIED: signature 'chcert': the signed bytes were changed "
        "(their digest does not match)"
    )
    assert "not trusted" not in out.lower()
    assert "  trust: not judged: the signature is broken" in out


# --- when the certificate is judged: now, or at a trusted timestamp's time ------------


def _lab_with(
    folder: Path,
    key: PKCS12PrivateKeyTypes | None = None,
    usage: Usage = SIGNING,
    valid: tuple[dt.datetime, dt.datetime] | None = None,
) -> Lab:
    """A self-signed laboratory certificate with the key, usage and validity given."""
    key = key or ec.generate_private_key(ec.SECP256R1())
    return write_lab(folder, key, issue("Lab T", key, usage=usage, valid=valid))


def _expired_lab(folder: Path) -> Lab:
    """Valid from 20 days ago until yesterday: expired now, valid ten days ago."""
    now = dt.datetime.now(dt.UTC)
    return _lab_with(folder, valid=(now - 20 * DAY, now - DAY))


@contextlib.contextmanager
def _clock_set_back(monkeypatch: pytest.MonkeyPatch, days: int) -> Iterator[dt.datetime]:
    """The signing machine's clock set back `days`: both chcert's check_signer and
    pyHanko's signing time read it. A timestamp authority keeps its own clock."""
    from pyhanko.sign.signers import pdf_signer

    moment = dt.datetime.now(dt.UTC) - days * DAY

    class Past(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> Past:
            return cls.fromtimestamp(moment.timestamp(), tz)

    with monkeypatch.context() as patch:
        _everywhere(patch, "_now", lambda: moment)
        patch.setattr(pdf_signer, "datetime", Past)
        yield moment


@pytest.fixture(scope="module")
def authority(tmp_path_factory: pytest.TempPathFactory) -> Authority:
    return make_authority(tmp_path_factory.mktemp("tsa"), "Test TSA")


@pytest.fixture(scope="module")
def other_authority(tmp_path_factory: pytest.TempPathFactory) -> Authority:
    return make_authority(tmp_path_factory.mktemp("tsa2"), "Other TSA")


@pytest.mark.parametrize("anchored", ["self-signed", "under a root"])
def test_a_backdated_signature_by_an_expired_certificate_is_not_verified(
    anchored: str,
    report: Report,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Signed with the clock set back ten days, by a certificate that expired
    yesterday: with no timestamp, validity is judged now, so it is not verified, even
    when the certificate is its own trust anchor (which pyHanko does not date)."""
    if anchored == "self-signed":
        lab = _expired_lab(tmp_path / "lab")
        anchor = lab.cert
    else:
        lab, anchor = _expired_under_a_root(tmp_path)
    attach_results(report.pdf, report.data)
    with pytest.raises(SealError, match="not now"):  # the honest clock refuses it
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    with _clock_set_back(monkeypatch, 10):
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    code, out = _verify(report.pdf, capsys, anchor)
    last = out.splitlines()[-1]
    assert code == EXIT_NOT_VERIFIED
    assert last.startswith("NOT VERIFIED: signature 'chcert': the certificate expired on ")
    assert "before now" in last and "no timestamp" in last
    assert "  timestamp: none" in out


def _expired_under_a_root(folder: Path) -> tuple[Lab, Path]:
    """A laboratory's certificate issued by its root, valid from 20 days ago until
    yesterday, and the root's certificate (the verifier's --trust)."""
    now = dt.datetime.now(dt.UTC)
    key, root_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    root = issue("Root CA", root_key)
    anchor = folder / "root.crt"
    folder.mkdir(parents=True, exist_ok=True)
    anchor.write_bytes(root.public_bytes(serialization.Encoding.PEM))
    cert = issue("Lab T", key, (root.subject, root_key), valid=(now - 20 * DAY, now - DAY))
    return write_lab(folder / "lab", key, cert), anchor


def _timestamped_backdated(
    report: Report,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    authority: Authority,
    lab: Lab | None = None,
) -> Lab:
    """A report signed ten days ago, clock and timestamp authority agreeing, by a
    certificate that expired yesterday: what a genuine old report looks like now."""
    lab = lab or _expired_lab(tmp_path / "lab")
    attach_results(report.pdf, report.data)
    with _clock_set_back(monkeypatch, 10) as then, serve_authority(authority, at=then) as url:
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE, timestamp_url=url)
    return lab


def test_a_trusted_timestamp_judges_validity_at_its_time(
    report: Report,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    authority: Authority,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lab = _timestamped_backdated(report, tmp_path, monkeypatch, authority)
    code, out = _verify(report.pdf, capsys, lab.cert, tsa=(authority.root,))
    assert code == EXIT_VERIFIED, out
    (stamp_line,) = [line for line in out.splitlines() if line.startswith("  timestamp: ")]
    assert "by Organization: Test Laboratory, Common Name: Test TSA" in stamp_line
    assert stamp_line.endswith("authority trusted (chains to a --trust-tsa anchor)")
    (sig,) = verify_report(report.pdf, [lab.cert], [authority.root]).signatures
    assert sig.timestamp is not None and sig.timestamp.trusted and sig.judged_by_timestamp
    stamped = dt.datetime.fromisoformat(sig.timestamp.time)
    assert abs(stamped - (dt.datetime.now(dt.UTC) - 10 * DAY)) < dt.timedelta(minutes=5)
    assert "valid at the timestamped time" in out


def test_a_trusted_timestamp_keeps_a_ca_issued_signer_verified_after_it_expired(
    report: Report,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    authority: Authority,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As above, with the laboratory's certificate issued by its root (which pyHanko
    dates, unlike a self-signed anchor): validated now it has expired, validated at the
    stamp it is good, and the stamp is what counts."""
    lab, root = _expired_under_a_root(tmp_path)
    _timestamped_backdated(report, tmp_path, monkeypatch, authority, lab)
    code, out = _verify(report.pdf, capsys, root, tsa=(authority.root,))
    assert code == EXIT_VERIFIED, out
    assert "valid at the timestamped time" in out
    code, out = _verify(report.pdf, capsys, root)  # the stamp's authority not trusted
    assert code == EXIT_NOT_VERIFIED and "expired" in out.splitlines()[-1]


@pytest.mark.parametrize("tsa_anchor", ["none", "another authority", "the signer's own"])
def test_an_untrusted_timestamp_rescues_nothing(
    tsa_anchor: str,
    report: Report,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    authority: Authority,
    other_authority: Authority,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same report, but the verifier does not trust the authority: its time proves
    nothing, validity is judged now, and the expiry is named. Trusting the signer
    (--trust) is not trusting a clock: only --trust-tsa vouches for time."""
    lab = _timestamped_backdated(report, tmp_path, monkeypatch, authority)
    tsa = {"none": (), "another authority": (other_authority.root,)}.get(tsa_anchor, (lab.cert,))
    code, out = _verify(report.pdf, capsys, lab.cert, tsa=tsa)
    last = out.splitlines()[-1]
    assert code == EXIT_NOT_VERIFIED
    assert last.startswith("NOT VERIFIED: signature 'chcert': the certificate expired on ")
    assert "its timestamp is not trusted" in last
    (stamp_line,) = [line for line in out.splitlines() if line.startswith("  timestamp: ")]
    assert "Test TSA; authority NOT trusted (" in stamp_line
    if tsa_anchor == "none":
        assert NO_TSA_ANCHOR in stamp_line


def test_a_current_signature_timestamped_now_verifies(
    report: Report,
    lab: Lab,
    authority: Authority,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The ordinary case: a valid certificate, an honest authority; verify by the
    command line as a verifier types it."""
    attach_results(report.pdf, report.data)
    with serve_authority(authority) as url:
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE, timestamp_url=url)
    argv = ["verify", str(report.pdf), "--trust", str(lab.cert), "--trust-tsa", str(authority.root)]
    assert main(argv) == EXIT_VERIFIED
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "VERIFIED"
    assert "authority trusted" in out
    # without --trust-tsa the stamp is reported untrusted, and the still-valid
    # certificate verifies all the same: judged now
    code, out = _verify(report.pdf, capsys, lab.cert)
    assert code == EXIT_VERIFIED and f"authority NOT trusted ({NO_TSA_ANCHOR})" in out


@pytest.mark.parametrize("kind", ["unreachable", "garbage", "not a timestamp reply", "ftp"])
def test_a_timestamp_authority_that_fails_is_one_line_and_leaves_the_report_unsigned(
    kind: str,
    report: Report,
    lab: Lab,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    attach_results(report.pdf, report.data)
    before = report.pdf.read_bytes()
    with contextlib.ExitStack() as stack:
        if kind == "unreachable":
            url = closed_url()
        elif kind == "garbage":
            url = stack.enter_context(serve_garbage())
        elif kind == "not a timestamp reply":
            url = stack.enter_context(serve_garbage("text/html", b"<html>proxy</html>"))
        else:
            url = "ftp://127.0.0.1/tsa"
        with pytest.raises(SealError) as caught:  # what chcert's start asks first
            check_timestamp_authority(url)
        assert caught.value.path == url and "\n" not in str(caught.value)
        with pytest.raises(SealError) as caught:
            sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE, timestamp_url=url)
        assert caught.value.path == url and "\n" not in str(caught.value)
        assert report.pdf.read_bytes() == before
        monkeypatch.setenv("LAB_PW", PASSPHRASE.decode())
        args = argparse.Namespace(
            sign_key=str(lab.key),
            sign_cert=str(lab.cert),
            sign_passphrase_env="LAB_PW",
            timestamp_url=url,
        )
        with pytest.raises(UsageError, match="timestamp"):  # exit 4 before a run
            cli.signing_of(args)
        signing = cli.Signing(lab.key, lab.cert, PASSPHRASE, url)
        drawn = hashlib.sha256(report.pdf.read_bytes()).hexdigest()
        assert cli.signed(signing, report.pdf, drawn, 0) == 4  # failing only at the end
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("chcert: the report was not signed: ")
    assert report.pdf.read_bytes() == before and not verify_report(report.pdf).signed


def test_signing_options_carry_the_timestamp_url(
    lab: Lab, authority: Authority, monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = build_parser()
    for command in (["certify"], ["report", "results.json"]):
        args = parser.parse_args([*command, "--timestamp-url", "http://tsa.lab:318/"])
        assert args.timestamp_url == "http://tsa.lab:318/"
    assert parser.parse_args(["verify", "r.pdf", "--trust-tsa", "t.crt"]).trust_tsa == ["t.crt"]
    monkeypatch.setenv("LAB_PW", PASSPHRASE.decode())
    with serve_authority(authority) as url:
        args = argparse.Namespace(
            sign_key=str(lab.key),
            sign_cert=str(lab.cert),
            sign_passphrase_env="LAB_PW",
            timestamp_url=url,
        )
        signing = cli.signing_of(args)
        assert signing is not None and signing.timestamp_url == url
    alone = argparse.Namespace(
        sign_key=None, sign_cert=None, sign_passphrase_env=None, timestamp_url="http://x/"
    )
    with pytest.raises(UsageError, match="--timestamp-url stamps a signature"):
        cli.signing_of(alone)


# --- what may sign: the same rules when signing and when verifying --------------------


_ADOBE = x509.ObjectIdentifier("1.2.840.113583.1.1.5")
_DOCUMENT_SIGNING = x509.ObjectIdentifier("1.3.6.1.5.5.7.3.36")
_TLS = (ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH)

REFUSED: dict[str, tuple[Any, Usage, str, str]] = {
    # name: (key factory, usage, file the message names, what it says)
    "keyEncipherment only": (
        None,
        Usage(key_usage=frozenset({"key_encipherment"})),
        "cert",
        r"key usage \(keyEncipherment\) allows neither digitalSignature nor nonRepudiation",
    ),
    "TLS-only extended key usage": (
        None,
        Usage(extended=_TLS),
        "cert",
        r"extended key usage \(serverAuth, clientAuth\) does not include signing documents",
    ),
    "RSA-1024": (
        lambda: rsa.generate_private_key(public_exponent=65537, key_size=1024),
        Usage(),
        "key",
        "RSA key has 1024 bits; at least 2048 are needed",
    ),
    "DSA": (lambda: dsa.generate_private_key(2048), Usage(), "key", "its key is DSA"),
    "P-192": (
        lambda: ec.generate_private_key(ec.SECP192R1()),
        Usage(),
        "key",
        "EC key is on the curve secp192r1",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_signing_refuses_verify_rejects(
    case: str,
    report: Report,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Refused up front, one line naming the file; and signed with the check bypassed,
    the report does not verify: signing refuses exactly what verify would reject."""
    factory, usage, named, says = REFUSED[case]
    lab = _lab_with(tmp_path / "lab", factory() if factory else None, usage)
    attach_results(report.pdf, report.data)
    with pytest.raises(SealError, match=says) as caught:
        check_signer(lab.key, lab.cert, PASSPHRASE)
    assert caught.value.path == str(lab.key if named == "key" else lab.cert)
    assert "\n" not in str(caught.value)
    with pytest.raises(SealError, match=says):
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    with monkeypatch.context() as patch:
        _everywhere(patch, "key_problem", lambda cert: None)
        _everywhere(patch, "usage_problem", lambda cert: None)
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    code, out = _verify(report.pdf, capsys, lab.cert)
    assert code == EXIT_NOT_VERIFIED
    assert out.splitlines()[-1].startswith(
        "NOT VERIFIED: signature 'chcert': the signer's certificate cannot sign reports: "
    )
    assert _verify(report.pdf, capsys)[0] == EXIT_NOT_VERIFIED  # without --trust as well


ACCEPTED: dict[str, tuple[Any, Usage]] = {
    "nonRepudiation only": (None, Usage(key_usage=frozenset({"content_commitment"}))),
    "digitalSignature only": (None, Usage(key_usage=frozenset({"digital_signature"}))),
    "documentSigning and clientAuth": (None, Usage(extended=(_DOCUMENT_SIGNING, _TLS[1]))),
    "emailProtection": (None, Usage(extended=(ExtendedKeyUsageOID.EMAIL_PROTECTION,))),
    "Adobe authentic documents": (None, Usage(extended=(_ADOBE,))),
    "anyExtendedKeyUsage": (None, Usage(extended=(ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE,))),
    "RSA-2048": (lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048), Usage()),
    "P-384": (lambda: ec.generate_private_key(ec.SECP384R1()), Usage()),
    "Ed25519": (ed25519.Ed25519PrivateKey.generate, Usage()),
    "no keyUsage extension": (None, Usage(key_usage=None)),  # RFC 5280: unrestricted
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_what_signing_accepts_verifies(
    case: str, report: Report, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    factory, usage = ACCEPTED[case]
    lab = _lab_with(tmp_path / "lab", factory() if factory else None, usage)
    attach_results(report.pdf, report.data)
    sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    code, out = _verify(report.pdf, capsys, lab.cert)
    assert code == EXIT_VERIFIED, out


def test_a_refused_usage_under_a_root_is_named_not_called_a_missing_path(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyHanko rejects a chained certificate without signing usage as "no path"; the
    reason given is the usage, as signing gives it."""
    root_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    root = issue("Root CA", root_key)
    (tmp_path / "root.crt").write_bytes(root.public_bytes(serialization.Encoding.PEM))
    usage = Usage(key_usage=frozenset({"key_encipherment"}))
    lab = write_lab(
        tmp_path / "lab", key, issue("Lab T", key, (root.subject, root_key), usage=usage)
    )
    attach_results(report.pdf, report.data)
    with monkeypatch.context() as patch:
        _everywhere(patch, "usage_problem", lambda cert: None)
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    result = verify_report(report.pdf, [tmp_path / "root.crt"])
    assert not result.ok
    assert result.problems == [
        "signature 'chcert': the signer's certificate cannot sign reports: its key usage "
        "(keyEncipherment) allows neither digitalSignature nor nonRepudiation"
    ]


def test_a_report_changed_after_it_was_drawn_is_never_signed(report: Report, lab: Lab) -> None:
    """chcert signs the report it drew (its SHA-256), never one a process left behind by
    the game replaced in the output folder meanwhile, whatever results.json it attaches."""
    attach_results(report.pdf, report.data)
    drawn = hashlib.sha256(report.pdf.read_bytes()).hexdigest()
    report.pdf.write_bytes(report.pdf.read_bytes() + b"\n% a page drawn otherwise\n")
    with pytest.raises(SealError, match="is not the report chcert drew"):
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE, drawn_sha256=drawn)
    assert not verify_report(report.pdf).signed
    report.pdf.write_bytes(report.pdf.read_bytes().removesuffix(b"\n% a page drawn otherwise\n"))
    sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE, drawn_sha256=drawn)  # as drawn: signed
    assert verify_report(report.pdf, [lab.cert]).ok


def test_a_certificate_without_key_usage_under_a_root_signs_and_verifies(
    report: Report, tmp_path: Path
) -> None:
    """No keyUsage extension is no restriction (RFC 5280 4.2.1.3): signing accepts it, and
    so does pyHanko's path validation, which checks the usage of a signer under a root
    (a self-signed signer is its own anchor, whose usage pyHanko skips)."""
    root_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    root = issue("Root CA", root_key)
    (tmp_path / "root.crt").write_bytes(root.public_bytes(serialization.Encoding.PEM))
    cert = issue("Lab T", key, (root.subject, root_key), usage=Usage(key_usage=None), ca=False)
    lab = write_lab(tmp_path / "lab", key, cert)
    attach_results(report.pdf, report.data)
    sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    result = verify_report(report.pdf, [tmp_path / "root.crt"])
    assert result.ok, result.problems
    (sig,) = result.signatures
    assert sig.trusted and sig.certificate_problem is None


@pytest.mark.parametrize("authority_clock", ["before the certificate", "after it expired"])
def test_a_timestamp_outside_the_signers_validity_is_never_signed(
    authority_clock: str,
    report: Report,
    tmp_path: Path,
    authority: Authority,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A verifier judges the certificate at the trusted stamp's time, so a stamp outside
    the signer's validity can never verify (docs/signing.md): one line, exit 4, unsigned."""
    now = dt.datetime.now(dt.UTC)
    lab = _lab_with(tmp_path / "lab", valid=(now - DAY, now + 2 * DAY))
    at, says = (
        (now - 10 * DAY, "is valid only from .*, after the time the authority stamped")
        if authority_clock == "before the certificate"
        else (now + 5 * DAY, "expired on .*, before the time the authority stamped")
    )
    attach_results(report.pdf, report.data)
    before = report.pdf.read_bytes()
    with serve_authority(authority, at=at) as url:
        with pytest.raises(SealError, match=f"could never verify: the certificate {says}") as err:
            sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE, timestamp_url=url)
        assert err.value.path == str(lab.cert) and "\n" not in str(err.value)
        signing = cli.Signing(lab.key, lab.cert, PASSPHRASE, url)
        drawn = hashlib.sha256(before).hexdigest()
        assert cli.signed(signing, report.pdf, drawn, 0) == 4
    err_text = capsys.readouterr().err
    assert len(err_text.splitlines()) == 1 and "could never verify" in err_text
    assert report.pdf.read_bytes() == before and not verify_report(report.pdf).signed


def test_a_signing_time_outside_the_signers_validity_is_never_signed(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signer's clock is read before and after signing: a certificate that expires
    while the report is signed leaves it unsigned, as check_signer would have refused."""
    now = dt.datetime.now(dt.UTC)
    lab = _lab_with(tmp_path / "lab", valid=(now - DAY, now + DAY))
    attach_results(report.pdf, report.data)
    before = report.pdf.read_bytes()
    clock = iter([now, now, now + 2 * DAY])  # check_signer, then before and after signing
    _everywhere(monkeypatch, "_now", lambda: next(clock))
    with pytest.raises(SealError, match=r"could never verify: the certificate expired on .*"):
        sign_pdf(report.pdf, lab.key, lab.cert, PASSPHRASE)
    assert report.pdf.read_bytes() == before


def _chcert(*args: str) -> tuple[int, str]:
    """chcert in a fresh interpreter, as a laboratory runs it, every warning shown: its
    exit status and its stderr."""
    import subprocess
    import sys

    env = {**os.environ, "LAB_PW": PASSPHRASE.decode(), "PYTHONWARNINGS": "default"}
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stderr


def test_a_signing_error_is_one_line_without_cryptography_s_dsa_warning(
    lab: Lab, tmp_path: Path
) -> None:
    """cryptography warns on stderr whenever DSA is named: when pyHanko loads, when a DSA
    key is loaded. In a fresh interpreter a signing error is still one line (a usage
    error's contract), signing and verifying print nothing on stderr."""
    import warnings

    from harness.results.model import ProfileInfo, Results, Verdict

    stub = Verdict.INCOMPLETE
    results = tmp_path / "results.json"
    written = Results(
        verdict=stub,
        implementation_verdict=stub,
        publication_verdict=stub,
        profile=ProfileInfo(name="standard"),
    )
    results.write_text(json.dumps(written.to_json()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dsa_lab = _lab_with(tmp_path / "dsa", dsa.generate_private_key(2048))

    def report(pdf: str, signer: Lab, *more: str) -> tuple[int, str]:
        signing = ["--sign-key", str(signer.key), "--sign-cert", str(signer.cert)]
        return _chcert(
            "report", str(results), "--pdf", str(tmp_path / pdf), *signing,
            "--sign-passphrase-env", "LAB_PW", *more,
        )  # fmt: skip

    code, err = report("a.pdf", lab, "--timestamp-url", closed_url())
    assert code == 4 and len(err.splitlines()) == 1 and "timestamp authority" in err, err
    code, err = report("b.pdf", dsa_lab)
    assert code == 4 and len(err.splitlines()) == 1 and "its key is DSA" in err, err
    assert report("c.pdf", lab) == (0, "")
    verified = _chcert("verify", str(tmp_path / "c.pdf"), "--trust", str(lab.cert))
    assert verified == (EXIT_VERIFIED, "")
