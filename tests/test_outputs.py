"""Nothing lost (docs/robustness.md): certify and report refuse, before anything runs or is
written, an output path that would overwrite an input, another output, a user's own files
or a signed report, and never open a FIFO or a device given as an input."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from tests.certs import PASSPHRASE, make_lab
from tests.runs import certify

ITEM = ["--item", "s000-antewin/nq-four-of-a-kind-std-t1"]
ATTEST = (
    "attestations:\n  - clause: s000-r1\n    result: pass\n"
    "    evidence: Shuffle source reviewed, report R-1.\n    by: A. Auditor\n"
    "    date: 2026-11-30\n"
)


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    assert main(argv) == 4
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1, err


def test_a_junitxml_naming_an_input_or_another_output_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    attest = tmp_path / "attest.yaml"
    attest.write_text(ATTEST)
    out = tmp_path / "out"
    run = ["certify", "--out", str(out), "--attest", str(attest), *ITEM]
    _refused(capsys, [*run, "--junitxml", str(attest)], "is a file this run reads")
    assert attest.read_text() == ATTEST
    _refused(capsys, [*run, "--junitxml", str(out / "results.json")], "another of this run's")
    _refused(capsys, [*run, "--junitxml", str(out / "repro" / "j.xml")], "another of this run's")
    missing = tmp_path / "no" / "such" / "junit.xml"
    _refused(capsys, [*run, "--junitxml", str(missing)], "does not exist")
    assert not (tmp_path / "no").exists() and not (out / "results.json").exists()


def test_a_junitxml_elsewhere_is_written_there(tmp_path: Path) -> None:
    junit = tmp_path / "ci" / "chcert.xml"
    junit.parent.mkdir()
    code, _ = certify(tmp_path / "out", *ITEM, "--junitxml", str(junit))
    assert code == 2 and junit.read_text().startswith("<?xml")
    assert not (tmp_path / "out" / "junit.xml").exists()


def test_a_users_own_repro_folder_is_never_deleted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "repro").mkdir()
    (tmp_path / "repro" / "notes.txt").write_text("mine")
    _refused(capsys, ["certify", "--out", str(tmp_path), *ITEM], "was not written by chcert")
    assert (tmp_path / "repro" / "notes.txt").read_text() == "mine"
    assert not (tmp_path / "results.json").exists()


def test_an_earlier_runs_repro_files_are_replaced(tmp_path: Path) -> None:
    (tmp_path / "repro").mkdir()
    (tmp_path / "repro" / "repro-rtp-simulation-round6-seed7.yaml").write_text("stale")
    code, _ = certify(tmp_path, *ITEM)
    assert code == 2 and not (tmp_path / "repro").exists()


@pytest.fixture
def signed_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An output folder holding a run whose report the laboratory then signed."""
    out = tmp_path / "out"
    assert certify(out, *ITEM)[0] == 2
    lab = make_lab(tmp_path / "lab", "Test Laboratory signer")
    monkeypatch.setenv("LAB_PASSPHRASE", PASSPHRASE.decode())
    sign = ["--sign-key", str(lab.key), "--sign-cert", str(lab.cert)]
    signed = tmp_path / "signed.pdf"
    argv = ["report", str(out / "results.json"), "--pdf", str(signed), *sign]
    assert main([*argv, "--sign-passphrase-env", "LAB_PASSPHRASE"]) == 0
    shutil.copy(signed, out / "report.pdf")
    return out


def test_certify_never_replaces_a_signed_report_unasked(
    signed_out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (signed_out / "report.pdf").read_bytes()
    _refused(capsys, ["certify", "--out", str(signed_out), *ITEM], "is a signed report")
    assert (signed_out / "report.pdf").read_bytes() == before
    code, _ = certify(signed_out, *ITEM, "--replace-signed")
    assert code == 2 and (signed_out / "report.pdf").read_bytes() != before


def test_report_writes_beside_never_over_its_input(
    signed_out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = signed_out / "results.json"
    kept = results.read_bytes()
    _refused(capsys, ["report", str(results), "--pdf", str(results)], "the results file it reads")
    assert results.read_bytes() == kept
    nowhere = tmp_path / "no" / "such" / "r.pdf"
    _refused(capsys, ["report", str(results), "--pdf", str(nowhere)], "does not exist")
    assert not (tmp_path / "no").exists()
    pdf = tmp_path / "again.pdf"
    assert main(["report", str(results), "--pdf", str(pdf)]) == 0
    umask = os.umask(0o022)
    os.umask(umask)
    assert pdf.read_bytes().startswith(b"%PDF-") and pdf.stat().st_mode & 0o777 == 0o666 & ~umask
    assert not list(tmp_path.glob(".again.pdf.*"))  # no draft left beside it


@pytest.mark.parametrize(
    "command",
    [
        lambda fifo, tmp: ["certify", "--out", str(tmp / "o"), "--attest", fifo, *ITEM],
        lambda fifo, tmp: ["certify", "--out", str(tmp / "o"), "--artifact", fifo, *ITEM],
        lambda fifo, tmp: ["certify", "--out", str(tmp / "o"), "--vectors", fifo, *ITEM],
        lambda fifo, tmp: ["certify", "--out", str(tmp / "o"), "--profile", fifo, *ITEM],
        lambda fifo, tmp: ["verify", fifo],
        lambda fifo, tmp: ["diff", fifo, fifo],
        lambda fifo, tmp: ["report", fifo, "--pdf", str(tmp / "r.pdf")],
    ],
    ids=["attest", "artifact", "vectors", "profile", "verify", "diff", "report"],
)
def test_a_fifo_given_as_an_input_is_refused_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: Any
) -> None:
    """Opening a FIFO waits for a writer for ever: it is refused before it is opened (the
    test's timeout is what a hang would meet)."""
    fifo = tmp_path / "input.yaml"
    os.mkfifo(fifo)
    assert main(command(str(fifo), tmp_path)) == 4
    err = capsys.readouterr().err
    assert "not a regular file" in err and len(err.strip().splitlines()) == 1, err
