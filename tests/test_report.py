"""The PDF is written whatever results.json holds (docs/robustness.md, the report)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness._schema import validator
from harness.cli import main
from harness.report import _build, render, verdict_problem
from harness.results.model import Results
from tests.pdftext import pdf_text
from tests.runs import certify

Path_ = tuple[str | int, ...]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real results.json: a small run failing one clause (a game exiting there)."""
    out = tmp_path_factory.mktemp("run")
    adapter = "python:tests.games:ExitsOnTrigger"
    items = ["--item", "s000-antewin/nq-four-of-a-kind-std-t1"]
    items += ["--item", "s000-antewin/nq-straight-flush-std-t1"]
    _, data = certify(out, "--adapter", adapter, "--seed", "3", *items)
    assert data["verdict"] == "FAIL" and data["failures"]
    return data


def _is_pdf(path: Path) -> bool:
    data = path.read_bytes()
    return data.startswith(b"%PDF-") and b"%%EOF" in data[-64:]


def _paths(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    yield at
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*at, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*at, i))


def _replaced(doc: Any, at: Path_, value: Any) -> Any:
    if not at:
        return value
    parent = doc
    for key in at[:-1]:
        parent = parent[key]
    parent[at[-1]] = value
    return doc


HOSTILE_TEXT = st.sampled_from(
    [
        "<b>bold</b> <font color=red>red</font> &amp; &#0;",
        "\x1b[31mred\x1b[0m \x00\x07\x08 \u202eevil\u202c \u2067rtl\u2069",
        "x" * 200_000,
        "word " * 40_000,
        "",
        "PASS",
        "CERTIFIED GOLD",
    ]
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=30)
    | HOSTILE_TEXT,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_results_file_gives_a_pdf_or_a_one_line_error(
    results: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    doc: Any = copy.deepcopy(results)
    for _ in range(data.draw(st.integers(min_value=1, max_value=4), label="mutations")):
        at = data.draw(st.sampled_from(list(_paths(doc))), label="path")
        doc = _replaced(doc, at, data.draw(JSON_VALUES, label="value"))
    pdf = tmp_path / "direct.pdf"
    assert render(doc, pdf) == pdf and _is_pdf(pdf)
    if validator("results.schema.json").is_valid(doc):
        # a file of the schema is read by the model and gets the full report
        data = json.dumps(doc, default=str).encode()
        _build(Results.from_json(doc), tmp_path / "full.pdf", data, True)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    capsys.readouterr()
    code = main(["report", str(path), "--pdf", str(tmp_path / "report.pdf")])
    err = capsys.readouterr().err
    if code == 0:
        assert _is_pdf(tmp_path / "report.pdf")
    else:
        assert code == 4 and err.startswith("chcert: report:") and err.count("\n") == 1


def test_a_verdict_the_file_does_not_bear_out_is_drawn_not_valid(
    results: dict[str, Any], tmp_path: Path
) -> None:
    """A verdict outside the closed set cannot even be read (the page says why); one the
    file's own records contradict is read, and drawn NOT VALID with the contradiction."""
    assert verdict_problem(Results.from_json(results)) is None
    cases = {
        "tampered": ({**results, "verdict": "CERTIFIED GOLD"}, "could not be drawn from"),
        "pass-beside-a-failure": (
            {**results, "verdict": "PASS", "implementation_verdict": "PASS"},
            "contradicts itself",
        ),
    }
    for name, (doc, said) in cases.items():
        assert verdict_problem(doc) is not None
        render(doc, tmp_path / f"{name}.pdf")
        text = pdf_text(tmp_path / f"{name}.pdf")
        assert "VERDICT: NOT VALID" in text and said in text
        assert "CERTIFIED GOLD" not in text.split(said)[0]
    with pytest.raises(msgspec.ValidationError, match="verdict"):
        Results.from_json(cases["tampered"][0])


def test_hostile_strings_are_inert_and_huge_ones_cut(
    results: dict[str, Any], tmp_path: Path
) -> None:
    doc = copy.deepcopy(results)
    doc["implementation"]["name"] = "<b>bold</b>\x1b[31m\u202eevil"
    doc["failures"][0]["message"] = "M" * 1_000_000
    doc["failures"][0]["evidence"]["stderr_tail"] = ("E" * 70_000 + "\n") * 20
    render(Results.from_json(doc), tmp_path / "report.pdf")  # its time: benchmarks/bench_report.py
    assert (tmp_path / "report.pdf").stat().st_size < 1_000_000
    # Text as drawn, spaces aside (extraction joins wrapped lines without one).
    text = "".join(pdf_text(tmp_path / "report.pdf").split())
    assert "<b>bold</b>" in text  # drawn as characters: no markup acted
    assert "\\x1b[31m\\x202eevil" in text  # control and direction characters shown
    assert "[...cut:1,000,000charactersinall,seeresults.json]" in text
    assert "Contents" in text  # the full report, not the plainer one it falls back to


def test_a_variation_and_a_table_of_any_values_are_drawn_in_the_full_report(
    tmp_path: Path,
) -> None:
    """What a variation changes and what a table declares are the profile's and the game's
    values, not chcert's: whatever their types, the full report draws them."""
    sample = Path(__file__).resolve().parent.parent / "reports" / "samples" / "mutant"
    doc = json.loads((sample / "results.json").read_bytes())
    odd = [
        {"field": "aa_bonus_pay_table", "base": None, "approved": {"flush": 9, "x": None}},
        {"field": "rules.interrupted_rounds", "base": ["resume", "void"], "approved": ["void"]},
        {"field": "house_rules_allowed", "base": ["aa_bonus_max_ante_multiple"], "approved": []},
        {"field": "no.such.field", "base": [1, {"a": 2}], "approved": "<b>x</b>"},
        {"field": "claims.house_edge", "base": "2%", "approved": None},
    ]
    doc["profile"] |= {"extends": "standard", "variations": odd, "not_applicable": ["a", "b"]}
    doc["clauses"][0]["varied"] = odd
    doc["table"] = {
        "ante": None,
        "aa_bonus": [1, 2, 3],
        "house_rules": {"aa_bonus_max_ante_multiple": 3, "tips": 5},
        "unknown_house_rules": ["tips"],
        "house_rules_allowed": [],
        "stakes": {"restaked": 1, "sideways": 2},
    }
    render(Results.from_json(doc), tmp_path / "report.pdf")
    text = " ".join(pdf_text(tmp_path / "report.pdf").split())
    assert "Contents" in text  # the full report, not the plainer one
    assert "AA Bonus pays flush 9 to 1, x not paid (standard: no AA Bonus)" in text
    assert "interrupted rounds: voided (standard: resumed or voided)" in text
    assert "no.such.field <b>x</b> (standard: 1 or a 2)" in text
    assert "claimed house edge not claimed (standard: 2%)" in text
    assert "house rule: an AA Bonus at most 3 x the ante (the profile does not allow it)" in text
    assert "house rules not in protocol v1: tips" in text
    assert "Limits as declared: ante 100 to 50,000" in text  # no valid table read
    assert "Stakes played: 1 vector restaked inside its limits, 2 sideways" in text
    assert "Not applicable under the variation: a, b (claimed figures of standard not" in text
