"""The JUnit XML of a run (harness/report/junit.py): one test case per item, the failures
that are no clause's item, and the verdict as a test case of its own, with the run's
reasons in the report's words (harness/report/words.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from harness.report.junit import junit_tree, write_junit
from harness.results.model import Results


def _item(name: str, status: str, message: str = "") -> dict[str, Any]:
    return {"name": name, "kind": "vector", "status": status, "message": message}


def _results(verdict: str, **more: Any) -> Results:
    """A run of two clauses: s000-r12 with an item of each status, s000-r13 attested."""
    r12 = [
        _item("s000-r12/win", "pass"),
        _item("s000-r12/tie", "fail", "seat 1 ante [100, 0]"),
        _item("s000-r12/odd", "fail", "unrecorded"),
        _item("s000-r12/hang", "error", "no reply in 10 s"),
    ]
    clauses = [
        {"id": "s000-r12", "status": "fail", "items": r12},
        {"id": "s000-r13", "status": "attested", "items": [_item("s000-r13/k", "not_tested", "x")]},
    ]
    tie = {
        "kind": "implementation",
        "clause": "s000-r12",
        "item": "s000-r12/tie",
        "item_kind": "vector",
        "message": "seat 1 ante [100, 0]",
        "expected": {"ante": [100, 100]},
        "actual": {"ante": [100, 0]},
        "reproduce": "chcert certify --item s000-r12/tie",
    }
    hello = {"kind": "implementation", "clause": None, "item": "hello", "item_kind": "hello"}
    data = {"verdict": verdict, "clauses": clauses, "failures": [tie, hello], **more}
    return Results.from_json(data)


def _case(root: ET.Element, name: str) -> ET.Element:
    (case,) = [c for c in root.iter("testcase") if c.get("name") == name]
    return case


def test_each_item_is_a_test_case_with_its_outcome() -> None:
    root = junit_tree(_results("FAIL")).getroot()
    assert root.get("verdict") == "FAIL"
    assert [s.get("name") for s in root.iter("testsuite")] == [
        "s000-r12",
        "s000-r13",
        "run",
        "verdict",
    ]
    failure = _case(root, "s000-r12/tie").find("failure")
    assert failure is not None and failure.get("message") == "seat 1 ante [100, 0]"
    assert failure.text == (
        "expected: {'ante': [100, 100]}\nactual:   {'ante': [100, 0]}\n"
        "reproduce: chcert certify --item s000-r12/tie"
    )
    unrecorded = _case(root, "s000-r12/odd").find("failure")
    assert unrecorded is not None and unrecorded.get("message") == "unrecorded"
    assert unrecorded.text == "expected: None\nactual:   None"
    error = _case(root, "s000-r12/hang").find("error")
    assert error is not None and error.get("message") == "no reply in 10 s"
    skipped = _case(root, "s000-r13/k").find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "not tested: x (clause attested by the laboratory)"
    assert _case(root, "hello").find("failure") is not None  # no clause's item: under "run"
    verdict = _case(root, "certification").find("failure")
    assert verdict is not None and verdict.get("message") == "FAIL: 2 failures"
    counts = {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": "7", "failures": "4", "errors": "1", "skipped": "1"}


def test_an_incomplete_run_is_an_error_naming_its_reasons_in_words(tmp_path: Path) -> None:
    sentences = ["implementation unreachable (subprocess:x): gone"]
    coded = [{"code": "unreachable", "subject": "subprocess:x", "detail": "gone"}]
    for version, reasons in ((4, sentences), (5, coded)):
        results = _results("INCOMPLETE", schema_version=version, incomplete_reasons=reasons)
        path = write_junit(results, tmp_path / str(version) / "junit.xml")
        error = _case(ET.parse(path).getroot(), "certification").find("error")
        assert error is not None
        assert error.get("message") == "INCOMPLETE: implementation unreachable (subprocess:x): gone"


def test_every_suite_names_the_profile_and_a_variation_its_base(tmp_path: Path) -> None:
    """The same game passes under one profile and fails under another: each suite says
    which, as a <property> inside <properties>, before its test cases (JUnit's schema)."""
    plain = _results("FAIL", profile={"name": "standard"})
    varied = _results("FAIL", profile={"name": "ante-49-17", "extends": "standard"})
    for results, expected in (
        (plain, [("profile", "standard")]),
        (varied, [("profile", "ante-49-17"), ("profile.extends", "standard")]),
    ):
        root = ET.parse(write_junit(results, tmp_path / "junit.xml")).getroot()
        suites = list(root.iter("testsuite"))
        assert [s.get("name") for s in suites] == ["s000-r12", "s000-r13", "run", "verdict"]
        for suite in suites:
            assert suite[0].tag == "properties"
            found = [(p.get("name"), p.get("value")) for p in suite[0].iter("property")]
            assert found == expected
            assert all(child.tag == "testcase" for child in suite[1:])
        assert root.get("tests") == "7"  # properties are no test case
