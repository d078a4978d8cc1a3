"""The report as an auditor reads it: its pages' text (pypdf), its pages drawn (pdftoppm),
the run plan and the build submitted on the certificate page, and a signed report that
`chcert verify` accepts and a tampered one it refuses (docs/report.md, docs/signing.md)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from harness.cli import main
from harness.report import render
from harness.report.words import varied_text
from harness.results.model import Results, VariedField
from harness.signing.attachment import embedded_results
from tests.certs import PASSPHRASE, make_lab
from tests.pdftext import pdf_pages
from tests.tools import need

MUTANT = "python:harness.reference.mutants:FlushPaysEvenMoney"
FAILING = ["--item", "s000-antewin/q-flush", "--item", "s000-antewin/nq-flush"]
HOSTILE = "<b>Lab</b> &amp; \x1b[31m\u202eevil\u2067 \u05e9\u05dc\u05d5\u05dd"


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mutant paying a flush at even money, on two flush vectors, with a run plan giving
    the laboratory (hostile text in its name) and a build file."""
    folder = tmp_path_factory.mktemp("run")
    (folder / "game-1.2.3.tgz").write_bytes(b"the vendor's build" * 1000)
    (folder / "chcert.toml").write_text(
        "artifacts = ['game-1.2.3.tgz']\n"
        f"[laboratory]\nname = {json.dumps(HOSTILE)}\nreport_number = 'EX-0042'\n"
        "jurisdiction = 'Examplia'\nsignatory = 'Dr. A. Tester'\n",
        encoding="utf-8",
    )
    out = folder / "out"
    args = ["certify", "--plan", str(folder / "chcert.toml"), "--adapter", MUTANT]
    assert main([*args, "--out", str(out), "--seed", "3", *FAILING]) == 1
    return out


def _results(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return data


def _records(out: Path) -> Results:
    """The run's records, as the report reads them."""
    return Results.from_json(_results(out))


def test_the_certificate_page_says_what_was_certified(failing_run: Path) -> None:
    manifest = _records(failing_run).manifest
    assert manifest is not None and manifest.artifacts and manifest.plan and manifest.laboratory
    page = " ".join(pdf_pages(failing_run / "report.pdf")[0].split())
    assert "NOT CERTIFIED" in page and "VERDICT: FAIL" in page
    assert "FlushPaysEvenMoney" in page and "chcert-reference" in page
    digest = hashlib.sha256((failing_run / "results.json").read_bytes()).hexdigest()
    assert f"results.json SHA-256: {digest}" in page
    (artifact,) = manifest.artifacts
    assert artifact.sha256 == hashlib.sha256(b"the vendor's build" * 1000).hexdigest()
    assert artifact.sha256 in page and "game-1.2.3.tgz" in page
    assert manifest.report_id and manifest.report_id in page
    assert "EX-0042" in page and "Dr. A. Tester" in page
    assert "Encyclopedia article" in page  # the profile's rules sources by title
    # Hostile text from the plan is drawn as characters: markup inert, controls shown.
    assert "<b>Lab</b> &amp;" in page and "\\x1b[31m\\x202eevil\\x2067" in page
    assert manifest.plan["sha256"] and manifest.laboratory["report_number"] == "EX-0042"


def test_every_page_names_the_report_its_verdict_and_its_number(failing_run: Path) -> None:
    manifest = _records(failing_run).manifest
    assert manifest is not None and manifest.report_id
    report_id = manifest.report_id
    pages = pdf_pages(failing_run / "report.pdf")
    for number, text in enumerate(pages, start=1):
        assert report_id in text and "NOT CERTIFIED (FAIL)" in text
        assert f"Page {number} of {len(pages)}" in text
    assert "Contents" in pages[1] and "Failures" in pages[1] and "Clause traceability" in pages[1]


def test_bookmarks_lead_to_each_section(failing_run: Path) -> None:
    outline = PdfReader(failing_run / "report.pdf").outline
    titles = [entry.title for entry in outline if not isinstance(entry, list)]
    for section in ("Summary", "Clause traceability", "RNG and deck distribution", "Manifest"):
        assert section in titles
    assert any(title.startswith("Failures (2, 1 causes)") for title in titles)


def test_a_failing_round_reads_as_cards_and_money(failing_run: Path) -> None:
    text = "\n".join(pdf_pages(failing_run / "report.pdf"))
    heading = "s000-antewin: ante-odds (ante flush): ante settled otherwise than the rules"
    assert f"{heading} (2 failures, found by vector)" in " ".join(text.split())
    (example, *_) = _records(failing_run).failures
    cards = example.evidence["cards"]
    assert f"Board {' '.join([*cards['flop'], cards['turn'], cards['river']])}" in text
    assert f"dealer {' '.join(cards['dealer'])}" in text
    assert " ".join(cards["seats"]["1"]) in text
    assert "stake 100, returned 300" in text and "stake 100, returned 200" in text
    assert "Reproduce: chcert certify" in text and "The 1 others:" in text


def test_results_json_travels_inside_the_pdf(failing_run: Path) -> None:
    attached = embedded_results(failing_run / "report.pdf")
    assert attached == (failing_run / "results.json").read_bytes()


def test_every_page_renders_to_a_picture(failing_run: Path, tmp_path: Path) -> None:
    need("pdftoppm", "Debian poppler-utils")
    pages = len(PdfReader(failing_run / "report.pdf").pages)
    subprocess.run(
        ["pdftoppm", "-r", "30", "-gray", str(failing_run / "report.pdf"), str(tmp_path / "p")],
        check=True,
        capture_output=True,
    )
    pictures = sorted(tmp_path.glob("p-*.pgm"))
    assert len(pictures) == pages
    for picture in pictures:  # binary PGM: a header, then one byte a pixel
        pixels = picture.read_bytes().split(b"\n", 3)[3]
        assert min(pixels) < 128 < max(pixels), f"{picture.name} is blank"


def test_a_signed_report_verifies_and_a_tampered_one_does_not(
    failing_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    lab = make_lab(tmp_path / "lab", "Test Laboratory signer")
    monkeypatch.setenv("LAB_PASSPHRASE", PASSPHRASE.decode())
    pdf = tmp_path / "signed.pdf"
    sign = ["--sign-key", str(lab.key), "--sign-cert", str(lab.cert)]
    sign += ["--sign-passphrase-env", "LAB_PASSPHRASE"]
    assert main(["report", str(failing_run / "results.json"), "--pdf", str(pdf), *sign]) == 0
    assert main(["verify", str(pdf), "--trust", str(lab.cert)]) == 0
    assert "VERIFIED" in capsys.readouterr().out
    assert main(["verify", str(pdf)]) == 2  # intact, but who signed was not checked
    again = ["report", str(failing_run / "results.json"), "--pdf", str(pdf)]
    assert main(again) == 4  # a signed original is never replaced
    assert "is a signed report" in capsys.readouterr().err
    # The attached results.json changed in place: its bytes no longer what was signed.
    tampered = tmp_path / "tampered.pdf"
    data = pdf.read_bytes()
    at = data.index(b"/Subtype /application#2Fjson")
    tampered.write_bytes(data[:at] + data[at:].replace(b"stream\n", b"stream\n ", 1))
    assert main(["verify", str(tampered)]) == 1
    assert "NOT VERIFIED" in capsys.readouterr().out


def test_a_key_of_another_certificate_stops_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    lab, other = make_lab(tmp_path / "lab", "Lab"), make_lab(tmp_path / "other", "Other")
    monkeypatch.setenv("LAB_PASSPHRASE", PASSPHRASE.decode())
    args = ["certify", "--out", str(tmp_path / "out"), "--sign-key", str(lab.key)]
    args += ["--sign-cert", str(other.cert), "--sign-passphrase-env", "LAB_PASSPHRASE"]
    assert main(args) == 4
    assert "does not belong" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_a_wrong_passphrase_stops_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    lab = make_lab(tmp_path / "lab", "Test Laboratory signer")
    monkeypatch.setenv("LAB_PASSPHRASE", "wrong")
    args = ["certify", "--out", str(tmp_path / "out"), "--sign-key", str(lab.key)]
    args += ["--sign-cert", str(lab.cert), "--sign-passphrase-env", "LAB_PASSPHRASE"]
    assert main(args) == 4
    assert "lab.key" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_re_rendering_an_archive_prints_the_hash_of_its_bytes(
    failing_run: Path, tmp_path: Path
) -> None:
    """An archived results.json, whatever its spacing, is hashed as it is on disk."""
    archive = tmp_path / "results.json"
    archive.write_text(json.dumps(_results(failing_run)), encoding="utf-8")  # one line
    render(_records(failing_run), tmp_path / "report.pdf", archive.read_bytes())
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    assert digest in " ".join(pdf_pages(tmp_path / "report.pdf")[0].split())


def test_a_report_that_could_not_carry_results_json_does_not_claim_it(
    failing_run: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    import harness.report

    def refuse(pdf: Path, data: bytes) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(harness.report, "attach_results", refuse)
    render(_records(failing_run), tmp_path / "report.pdf")
    page = " ".join(pdf_pages(tmp_path / "report.pdf")[0].split())
    assert "could not be attached" in page and "is attached to this PDF" not in page
    assert embedded_results(tmp_path / "report.pdf") is None


SAMPLES = Path(__file__).resolve().parent.parent / "reports" / "samples"


@pytest.mark.parametrize("sample", ["reference", "mutant"])
def test_the_committed_samples_are_what_the_report_draws_today(sample: str, tmp_path: Path) -> None:
    """A sample drawn by older code misleads whoever reads it: regenerate it with
    reports/samples/regenerate.sh (docs/report.md) when the report changes."""
    archive = SAMPLES / sample / "results.json"
    records = Results.from_json(json.loads(archive.read_bytes()))
    render(records, tmp_path / "report.pdf", archive.read_bytes())
    assert pdf_pages(tmp_path / "report.pdf") == pdf_pages(SAMPLES / sample / "report.pdf"), (
        "stale sample: run reports/samples/regenerate.sh"
    )
    signed = embedded_results(SAMPLES / sample / "report.pdf")
    assert signed == archive.read_bytes()


# ---------------------------------------------------------------------------- variations


def _variation_of(sample: str, table: dict[str, Any] | None) -> dict[str, Any]:
    """A committed sample's results.json (schema 5) edited as a run of an approved
    variation of standard writes it (schema 6): the straight flush at 49, the house edge
    claimed anew, standard's raise-frequency clause not restated, and `table` given."""
    doc: dict[str, Any] = json.loads((SAMPLES / sample / "results.json").read_bytes())
    sf = {"field": "ante_pay_table.straight_flush", "base": 20, "approved": 49}
    edge = {"field": "claims.house_edge", "base": 0.0216, "approved": 0.0035}
    doc["schema_version"] = 6
    doc["profile"] |= {
        "name": "ante-49",
        "extends": "standard",
        "clauses_from": "standard",
        "variations": [sf, edge],
        "not_applicable": ["s000-strategy"],
    }
    for clause in doc["clauses"]:
        if clause["id"] == "s000-antewin":
            clause["varied"] = [sf]
    if table is not None:
        doc["table"] = table
    # As `chcert certify --profile FILE` records it: the certificate names the file.
    doc["manifest"]["run_plan"]["profile"] = "/labs/approvals/examples/variation/ante-49.yaml"
    return doc


TABLE = {
    "ante": [500, 10_000],
    "aa_bonus": [100, 5_000],
    "house_rules": {"aa_bonus_max_ante_multiple": 1},
    "unknown_house_rules": [],
    "required_limits": None,
    "house_rules_allowed": ["aa_bonus_max_ante_multiple"],
    "stakes": {"as written": 95, "scaled": 2_500, "restaked": 3},
}


def _pages(doc: dict[str, Any], pdf: Path) -> list[str]:
    """Each page's text with its line breaks and runs of spaces as one space."""
    render(Results.from_json(doc), pdf)
    return [" ".join(page.split()) for page in pdf_pages(pdf)]


def test_the_certificate_page_of_a_variation_says_what_it_varies_and_the_table(
    tmp_path: Path,
) -> None:
    pages = _pages(_variation_of("reference", TABLE), tmp_path / "report.pdf")
    page = pages[0]
    assert "approved variation of standard" in page
    assert "straight flush 49 to 1 (standard: 20)" in page
    assert "claimed house edge 0.35% (standard: 2.16%)" in page
    assert (
        "Limits: ante 500 to 10,000; AA Bonus 100 to 5,000 (minor units); "
        "house rule: an AA Bonus at most 1 x the ante"
    ) in page
    assert "not chcert's bundled profile: read from a file" in page
    assert "Stakes played: 95 vectors as written, 2,500 scaled to the table, 3 restaked" in page
    assert "is attached to this PDF" in page  # the whole certificate on its page
    assert pages[1].split("CERTIFIED")[-1].lstrip(" ()PASFIL").startswith("Contents")
    rest = " ".join(pages[2:])
    assert "varied: straight flush 49 to 1 (standard: 20)" in rest  # the matrix marks it
    assert "Not applicable under the variation: s000-strategy" in rest
    assert "(approved variation of standard)" in rest  # the summary's profile


def test_a_table_without_an_aa_bonus_and_a_demand_of_the_profile_are_said(
    tmp_path: Path,
) -> None:
    table = TABLE | {
        "aa_bonus": None,
        "house_rules": {},
        "required_limits": {"ante": [100, 50_000]},
        "stakes": {"as written": 1},
    }
    page = _pages(_variation_of("reference", table), tmp_path / "report.pdf")[0]
    assert "Limits: ante 500 to 10,000; no AA Bonus (minor units); no house rules" in page
    assert "The profile requires a table to accept ante 100 to 50,000" in page
    assert "Stakes played: 1 vector as written" in page and "house rule:" not in page


def test_a_results_file_without_a_table_is_drawn_as_before(tmp_path: Path) -> None:
    """A file before schema 6 has no `table`: its limits stay in the configuration."""
    page = _pages(_variation_of("reference", None), tmp_path / "report.pdf")[0]
    assert "Declared table" not in page and "Limits: ante 100 to 50,000" in page
    assert "straight flush 49 to 1 (standard: 20)" in page


@pytest.mark.parametrize(
    ("field", "base", "approved", "said"),
    [
        ("ante_pay_table.four_of_a_kind", 10, 17, "four of a kind 17 to 1 (standard: 10)"),
        ("ante_pay_table.straight", None, 3, "straight 3 to 1 (standard: 1)"),
        ("ante_pay_table.royal_flush", 100, None, "royal flush 1 to 1 (standard: 100)"),
        ("aa_bonus_pay_table.flush", 20, 25, "AA Bonus flush 25 to 1 (standard: 20)"),
        (
            "aa_bonus_pay_table.pair_of_aces",
            7,
            None,
            "AA Bonus pair of aces not paid (standard: 7)",
        ),
        ("aa_bonus_pay_table.two_pair", None, 5, "AA Bonus two pair 5 to 1 (standard: not paid)"),
        ("aa_bonus_pay_table", {"flush": 20}, None, "no AA Bonus (standard: AA Bonus offered)"),
        (
            "rules.fold_forfeits_aa_bonus",
            True,
            False,
            "fold forfeits the AA Bonus: no (standard: yes)",
        ),
        ("claims.house_edge", 0.0216, 0.0035, "claimed house edge 0.35% (standard: 2.16%)"),
        ("claims.rtp", None, 0.98, "claimed return to player 98% (standard: not claimed)"),
        ("call_multiple", 2, 3, "call 3 x the ante (standard: 2)"),
        (
            "dealer_qualifier",
            "pair_of_fours",
            "pair_of_twos",
            "dealer qualifies with pair of twos or better (standard: pair of fours)",
        ),
        (
            "required_limits.ante",
            None,
            [500, 10_000],
            "required ante limits 500 to 10,000 (standard: none)",
        ),
    ],
)
def test_a_variation_is_said_in_words(field: str, base: Any, approved: Any, said: str) -> None:
    varied = VariedField(field=field, base=base, approved=approved)
    assert varied_text(varied, "standard") == said
