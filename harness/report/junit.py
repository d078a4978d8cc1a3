"""JUnit XML from results.json, so a vendor's CI shows the verdict item by item.

Written by `chcert certify` on every run, INCOMPLETE included: one test suite
per clause, one test case per item (vector, check, claimed figure, manual
review); a publication finding (a figure the game publishes that the exact
mathematics refutes) and a failure with no clause (hello, required
capabilities) are test cases too, and so is the verdict (a failure when FAIL,
an error when INCOMPLETE). fail -> <failure>, error -> <error>, not_tested ->
<skipped>; an attested clause's untested items are skipped with the
attestation named. Every test suite carries the profile certified against as a
property (`profile`; for an approved variation also `profile.extends`, the profile
it varies), since the same game passes under one profile and fails under another
and a CI page shows a suite without the run around it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.report.words import reason_text
from harness.results.model import ClauseRow, Failure, Item, Results
from harness.results.outcomes import Status, Verdict


def junit_tree(results: Results) -> ET.ElementTree[ET.Element]:
    """The JUnit XML document of one run's results."""
    root = ET.Element("testsuites", name="chcert", verdict=str(results.verdict))
    by_item = {(f.clause, f.item): f for f in results.failures}
    properties = _properties(results)
    for clause in results.clauses:
        suite = _suite(root, clause.id, properties)
        for item in clause.items:
            case = ET.SubElement(suite, "testcase", classname=clause.id, name=item.name)
            _outcome(case, item, by_item.get((clause.id, item.name)), clause)
        _count(suite)
    # Failures that are no clause's item: hello, required capabilities, published figures
    # (a claim clause's refuted figure is already a test case of that clause).
    loose = [f for f in results.failures if f.clause is None or f.item_kind == "published"]
    if loose:
        suite = _suite(root, "run", properties)
        for f in loose:
            case = ET.SubElement(suite, "testcase", classname="run", name=f.item)
            _failure(case, f.message, f)
        _count(suite)
    # The verdict is a test case of its own, so a CI that reads only failures and errors
    # never shows an INCOMPLETE run (nothing failed, something not tested) as green.
    suite = _suite(root, "verdict", properties)
    case = ET.SubElement(suite, "testcase", classname="verdict", name="certification")
    reasons = "; ".join(reason_text(r) for r in results.incomplete_reasons)
    if results.verdict is Verdict.FAIL:
        message = f"FAIL: {len(results.failures)} failures"
        ET.SubElement(case, "failure", message=message).text = reasons
    elif results.verdict is not Verdict.PASS:
        ET.SubElement(case, "error", message=f"{results.verdict}: {reasons}")
    _count(suite)
    _count(root)
    return ET.ElementTree(root)


def _properties(results: Results) -> list[tuple[str, str]]:
    """The run's facts every suite names: the profile, and the one a variation varies."""
    found = [("profile", results.profile.name)]
    if results.profile.extends:
        found.append(("profile.extends", results.profile.extends))
    return found


def _suite(root: ET.Element, name: str, properties: list[tuple[str, str]]) -> ET.Element:
    """A <testsuite> whose first child is its <properties>, where the JUnit schema puts
    them (before any <testcase>)."""
    suite = ET.SubElement(root, "testsuite", name=name)
    listed = ET.SubElement(suite, "properties")
    for key, value in properties:
        ET.SubElement(listed, "property", name=key, value=value)
    return suite


def _outcome(case: ET.Element, item: Item, failure: Failure | None, clause: ClauseRow) -> None:
    if item.status is Status.FAIL:
        _failure(case, failure.message if failure else item.message, failure)
    elif item.status is Status.ERROR:
        ET.SubElement(case, "error", message=item.message)
    elif item.status is Status.NOT_TESTED:
        why = item.message
        if clause.status is Status.ATTESTED:
            why += " (clause attested by the laboratory)"
        ET.SubElement(case, "skipped", message=f"not tested: {why}")


def _failure(case: ET.Element, message: str, f: Failure | None) -> None:
    """A <failure>: the message, then what the rules and the game gave and the command
    reproducing it, as far as the run recorded the failure (an item may fail unrecorded)."""
    node = ET.SubElement(case, "failure", message=message)
    expected, actual = (f.expected, f.actual) if f else (None, None)
    lines = [f"expected: {expected}", f"actual:   {actual}"]
    if f and f.reproduce:
        lines.append(f"reproduce: {f.reproduce}")
    node.text = "\n".join(lines)


def _count(element: ET.Element) -> None:
    cases = list(element.iter("testcase"))
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    element.set("errors", str(sum(c.find("error") is not None for c in cases)))
    element.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))


def write_junit(results: Results | Mapping[str, Any], path: str | Path) -> Path:
    """Write the JUnit XML of one run's results (a parsed results.json is read first)."""
    if not isinstance(results, Results):
        results = Results.from_json(results)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    junit_tree(results).write(path, encoding="utf-8", xml_declaration=True)
    return path
