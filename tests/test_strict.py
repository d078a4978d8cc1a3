"""Strict reading (docs/robustness.md): a file that could be read two ways, or holds what no
calendar or number has, is refused with its file and line, exit 4, never resolved quietly
nor a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness._schema import load_yaml
from harness.cli import main
from harness.errors import SpecError

ENTRY = (
    "  - clause: s000-r1\n    result: pass\n    evidence: {evidence}\n"
    "    by: A. Auditor, Example Test Lab\n    date: {date}\n"
)


def _attest(tmp_path: Path, *, evidence: str = "Report R-1", date: str = "2026-11-30") -> Path:
    path = tmp_path / "attest.yaml"
    path.write_text("attestations:\n" + ENTRY.format(evidence=evidence, date=date))
    return path


def _certify_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], attest: Path) -> str:
    argv = ["certify", "--out", str(tmp_path / "out"), "--attest", str(attest)]
    assert main(argv) == 4
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out" / "results.json").exists()
    return err


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("a: 1\nb: 2\na: 3\n", 3, "key 'a' appears twice"),
        ("base: {a: 1}\nm:\n  <<: {a: 2}\n  b: 1\n", 3, "merge keys (<<) are not allowed"),
        ("when: 2024-02-30\n", 1, "2024-02-30 is not a date"),
        ("when: 0000-00-00\n", 1, "0000-00-00 is not a date"),
    ],
)
def test_yaml_that_could_be_read_two_ways_is_a_spec_error(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as caught:
        load_yaml(path)
    assert caught.value.line == line and words in caught.value.message


def test_an_attested_clause_given_twice_in_one_entry_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Last-wins would silently attest the second clause named."""
    path = tmp_path / "attest.yaml"
    path.write_text("attestations:\n" + ENTRY.format(evidence="R-1", date="2026-11-30")
                    + "    clause: s000-r2\n")  # fmt: skip
    assert f"{path}:7: key 'clause' appears twice" in _certify_error(tmp_path, capsys, path)


@pytest.mark.parametrize(
    ("date", "words"),
    [
        ("2024-02-30", "2024-02-30 is not a date"),
        ("'2024-02-30'", "'2024-02-30' is not a date"),
        ("'0000-00-00'", "is not a date"),
        ("2999-01-01", "2999-01-01 is in the future"),
    ],
)
def test_an_attestation_dated_no_real_past_day_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], date: str, words: str
) -> None:
    err = _certify_error(tmp_path, capsys, _attest(tmp_path, date=date))
    assert words in err and "attest.yaml:" in err


def test_blank_evidence_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _certify_error(tmp_path, capsys, _attest(tmp_path, evidence="'   '"))
    assert "evidence is blank" in err


def test_an_impossible_date_in_a_vector_file_names_file_and_line(
    tmp_path: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = root / "vectors" / "aa-bonus.yaml"
    vectors = tmp_path / "aa-bonus.yaml"
    shutil.copy(source, vectors)
    vectors.write_text(vectors.read_text() + "reviewed: 2024-02-30\n")
    argv = ["certify", "--out", str(tmp_path / "out"), "--vectors", str(vectors)]
    assert main(argv) == 4
    lines = len(vectors.read_text().splitlines())
    assert f"{vectors}:{lines}: 2024-02-30 is not a date" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"verdict": "PASS", "verdict": "FAIL", "clauses": []}', "key 'verdict' appears twice"),
        ('{"verdict": "PASS", "clauses": [], "n": ' + "9" * 5000 + "}", "not JSON"),
        ('{"verdict": "PASS", "clauses": [], "n": ' + "[" * 100_000 + "]" * 100_000 + "}", "deep"),
        ('{"verdict": "PASS", "clauses": [], "n": NaN}', "NaN is not JSON"),
    ],
    ids=["duplicate-key", "5000-digits", "deep", "nan"],
)
def test_results_that_could_be_read_two_ways_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"verdict": "PASS", "clauses": []}))
    for argv in (["diff", str(good), str(bad)], ["report", str(bad)]):
        assert main(argv) == 4, argv
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"verdict": "pass"}, "verdict 'pass' is none of PASS, FAIL, INCOMPLETE"),
        ({"implementation_verdict": "CERTIFIED"}, "implementation_verdict 'CERTIFIED' is none"),
        ({"schema_version": 99}, "schema_version 99 is not one this chcert knows (1 to 8)"),
        ({"schema_version": "3"}, "schema_version '3' is not one this chcert knows"),
    ],
)
def test_diff_refuses_what_it_cannot_rank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], words: str
) -> None:
    """A verdict outside the three, or a schema from a later chcert, is no baseline to gate
    on: read as "no change" it would let a regression through."""
    base = {"schema_version": 3, "verdict": "FAIL", "clauses": []}
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(base))
    new.write_text(json.dumps({**base, **change}))
    assert main(["diff", str(old), str(new)]) == 4
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1, err
