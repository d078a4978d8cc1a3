"""JUnit XML from results.json, so a vendor's CI shows the verdict item by item.

Written by `chcert certify` on every run, INCOMPLETE included: one test suite
per clause, one test case per item (vector, check, claimed figure, manual
review); a publication finding (a figure the game publishes that the exact
mathematics refutes) and a failure with no clause (hello, required
capabilities) are test cases too, and so is the verdict (a failure when FAIL,
an error when INCOMPLETE). fail -> <failure>, error -> <error>, not_tested ->
<skipped>; an attested clause's untested items are skipped with the
attestation named.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any


def junit_tree(results: dict[str, Any]) -> ET.ElementTree[ET.Element]:
    """The JUnit XML document of one run's results."""
    root = ET.Element("testsuites", name="chcert", verdict=str(results.get("verdict")))
    failures = results.get("failures") or []
    by_item = {(f.get("clause"), f.get("item")): f for f in failures}
    for clause in results.get("clauses") or []:
        suite = ET.SubElement(root, "testsuite", name=clause["id"])
        for item in clause.get("items") or []:
            case = ET.SubElement(suite, "testcase", classname=clause["id"], name=item["name"])
            _outcome(case, item, by_item.get((clause["id"], item["name"])), clause)
        _count(suite)
    # Failures that are no clause's item: hello, required capabilities, published figures
    # (a claim clause's refuted figure is already a test case of that clause).
    loose = [f for f in failures if f.get("clause") is None or f.get("item_kind") == "published"]
    if loose:
        suite = ET.SubElement(root, "testsuite", name="run")
        for f in loose:
            case = ET.SubElement(suite, "testcase", classname="run", name=str(f.get("item")))
            _failure(case, f)
        _count(suite)
    # The verdict is a test case of its own, so a CI that reads only failures and errors
    # never shows an INCOMPLETE run (nothing failed, something not tested) as green.
    suite = ET.SubElement(root, "testsuite", name="verdict")
    case = ET.SubElement(suite, "testcase", classname="verdict", name="certification")
    verdict = str(results.get("verdict"))
    reasons = "; ".join(results.get("incomplete_reasons") or [])
    if verdict == "FAIL":
        ET.SubElement(case, "failure", message=f"FAIL: {len(failures)} failures").text = reasons
    elif verdict != "PASS":
        ET.SubElement(case, "error", message=f"{verdict}: {reasons}")
    _count(suite)
    _count(root)
    return ET.ElementTree(root)


def _outcome(
    case: ET.Element, item: dict[str, Any], failure: dict[str, Any] | None, clause: dict[str, Any]
) -> None:
    status = item["status"]
    if status == "fail":
        _failure(case, failure or {"message": item.get("message", "")})
    elif status == "error":
        ET.SubElement(case, "error", message=item.get("message", ""))
    elif status == "not_tested":
        why = item.get("message", "")
        if clause["status"] == "attested":
            why += " (clause attested by the laboratory)"
        ET.SubElement(case, "skipped", message=f"not tested: {why}")


def _failure(case: ET.Element, f: dict[str, Any]) -> None:
    node = ET.SubElement(case, "failure", message=str(f.get("message", "")))
    lines = [f"expected: {f.get('expected')}", f"actual:   {f.get('actual')}"]
    if f.get("reproduce"):
        lines.append(f"reproduce: {f['reproduce']}")
    node.text = "\n".join(lines)


def _count(element: ET.Element) -> None:
    cases = list(element.iter("testcase"))
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    element.set("errors", str(sum(c.find("error") is not None for c in cases)))
    element.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))


def write_junit(results: dict[str, Any], path: str | Path) -> Path:
    """Write the JUnit XML of one run's results."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    junit_tree(results).write(path, encoding="utf-8", xml_declaration=True)
    return path
