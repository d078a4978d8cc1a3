"""The Markdown summaries for a CI page (harness/report/markdown.py, docs/ci.md).

The renderers are checked on results as results.json holds them, read into the model (a
PASS, a FAIL whose message and command carry a `|` and backticks, an INCOMPLETE with
gaps, a stub, reasons as sentences and as codes) and on chcert diff's comparison; one
certification and one diff run through `--summary-md`, which appends, and refuses up
front what it must not write.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.diff import diff_results
from harness.diff.compare import ResultsDiff
from harness.report.markdown import SHOWN, certify_markdown, code, diff_markdown, escape
from harness.results.model import Results
from tests.runs import certify

ROOT = Path(__file__).resolve().parent.parent

ITEM = ["--item", "s000-antewin/nq-four-of-a-kind-std-t1"]
ATTEST = (
    "attestations:\n  - clause: s000-r1\n    result: pass\n"
    "    evidence: Shuffle source reviewed, report R-1.\n    by: A. Auditor\n"
    "    date: 2026-11-30\n"
)
REPRODUCE = "chcert certify --adapter 'subprocess:game | tee log' --item s000-r12/tie"


def _clause(cid: str, status: str) -> dict[str, Any]:
    return {"id": cid, "title": f"Clause {cid}", "status": status, "items": []}


def _results(verdict: str = "PASS", **more: Any) -> dict[str, Any]:
    """A run's results.json as parsed: a full run of the reference unless `more` says."""
    results: dict[str, Any] = {
        "schema_version": 4,
        "verdict": verdict,
        "implementation_verdict": verdict,
        "publication_verdict": "PASS",
        "incomplete_reasons": [],
        "gaps": [],
        "selection": None,
        "adapter": "reference",
        "profile": {"name": "standard"},
        "clauses": [_clause("s000-r1", "pass"), _clause("s000-r2", "attested")],
        "vectors": {"total": 94, "passed": 94, "failed": 0, "errors": 0, "not_tested": 0},
        "failures": [],
        "manifest": _manifest(seed=7),
        "rng": {"status": "pass", "decks": 20000, "tests": []},
        "differential": _differential(50_000),
        "math": {"status": "pass", "claims": [], "simulation": {"status": "pass", "rounds": 1000}},
        "evidence": {
            "minimums": {"source": "chcert's defaults"},
            "samples": [
                _sample("decks sampled for the RNG battery", 20_000, 20_000),
                _sample("rounds of the RTP simulation", 1_000, 1_000),
                _sample("seat-hands of the differential check", 50_000, 50_000),
            ],
        },
    }
    return {**results, **more}


def _md(verdict: str = "PASS", **more: Any) -> str:
    """The summary of `_results(verdict, **more)` read as results.json is."""
    return certify_markdown(Results.from_json(_results(verdict, **more)))


def _manifest(**more: Any) -> dict[str, Any]:
    digests = {k: "0" * 64 for k in ("profile_sha256", "spec_sha256", "vectors_sha256")}
    times = {"started": "2026-11-30T10:00:00Z", "finished": "2026-11-30T10:05:00Z"}
    return {"harness_version": "0.1.0", **digests, **times, "seed": 7, "run_plan": {}, **more}


def _differential(seat_hands: int) -> dict[str, Any]:
    """The differential's section as a run with no disagreement records it."""
    return {
        "status": "pass",
        "shards_run": 1,
        "shards": 1,
        "seat_hands": seat_hands,
        "uniform_seat_hands": seat_hands,
        "stratified_seat_hands": 0,
        "rounds": seat_hands,
        "strata": {"met": 0},
        "disagreeing_seat_hands": 0,
        "causes": [],
        "detectable_fault_rate": 1e-4,
    }


def _sample(what: str, size: int, minimum: int, judged: bool = True) -> dict[str, Any]:
    """A sample as `evidence` records it (named by `what`: the summary prints only that)."""
    met = size >= minimum or not judged
    return {
        "name": what,
        "what": what,
        "size": size,
        "minimum": minimum,
        "judged": judged,
        "met": met,
    }


def _failure(n: int, message: str = "seat 1 ante [100, 0]") -> dict[str, Any]:
    return {
        "kind": "implementation",
        "clause": "s000-r12",
        "item": f"s000-r12/tie-{n}",
        "item_kind": "vector",
        "message": message,
        "reproduce": REPRODUCE,
    }


def _diff(old: dict[str, Any], new: dict[str, Any]) -> ResultsDiff:
    """The comparison of two results.json files as parsed."""
    return diff_results(Results.from_json(old), Results.from_json(new))


def _cells(row: str) -> list[str]:
    """A GitHub table row's cells: split at every `|` no backslash escapes."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def _row(markdown: str, starting: str) -> list[str]:
    (row,) = [line for line in markdown.splitlines() if line.startswith(f"| {starting}")]
    return _cells(row)


def test_a_pass_is_a_heading_with_its_verdicts_counts_and_sample_sizes() -> None:
    md = _md()
    assert md.startswith("## chcert certify: PASS\n")
    assert _row(md, "**implementation**") == ["**implementation**", "PASS"]
    assert _row(md, "**adapter**") == ["**adapter**", "`reference`"]
    assert "**Clauses:** 2: 1 passed, 0 failed, 0 not tested, 1 attested" in md
    assert "**Vectors:** 94: 94 passed, 0 failed, 0 errors, 0 not tested" in md
    assert "### Sample sizes, drawn from seed 7" in md
    assert _row(md, "sample") == ["sample", "size", "minimum", ""]
    decks = _row(md, "decks sampled")
    assert decks == ["decks sampled for the RNG battery", "20,000", "20,000", "met"]
    assert _row(md, "seat-hands")[1:] == ["50,000", "50,000", "met"]
    assert "Minimums from chcert's defaults." in md
    assert "Failures" not in md and "Not tested" not in md


def test_a_fail_lists_each_failure_with_a_pipe_and_backticks_kept_in_their_cell() -> None:
    message = "expected `call` | got `fold` *twice* <b>"
    failures = [_failure(0, message), *(_failure(n) for n in range(1, SHOWN + 5))]
    md = _md("FAIL", failures=failures)
    assert md.startswith("## chcert certify: FAIL\n")
    assert f"### Failures ({SHOWN + 5})" in md
    header = _row(md, "clause")
    assert header == ["clause", "item", "kind", "message", "reproduce"]
    cells = _row(md, "s000-r12 | `s000-r12/tie-0`")
    assert len(cells) == len(header)  # the `|` of the message and of the command split nothing
    assert cells[3] == r"expected \`call\` \| got \`fold\` \*twice\* \<b>"
    assert cells[4] == "`" + REPRODUCE.replace("|", r"\|") + "`"
    rows = [line for line in md.splitlines() if line.startswith("| s000-r12 |")]
    assert len(rows) == SHOWN and "... and 5 more failures" in md


def test_a_code_span_outlasts_the_backticks_it_holds() -> None:
    assert code("a ``b`` c") == "```a ``b`` c```"
    assert code("`x`") == "`` `x` ``"  # padded: CommonMark strips one space each side
    assert code("a | b", in_table=True) == r"`a \| b`" and code("a | b") == "`a | b`"
    assert code("") == ""
    assert escape("two\nlines [x](http://e) $1 & 2") == r"two lines \[x](http://e) \$1 \& 2"


def test_an_incomplete_run_says_why_and_what_was_not_tested() -> None:
    gaps = [
        {
            "clause": "s000-r13",
            "title": "Recovery | resume",
            "kind": "implementation",
            "why": ["not tested: needs capability recovery"],
            "to_close": ["capability recovery", "or an attestation"],
        }
    ]
    md = _md(
        "INCOMPLETE",
        incomplete_reasons=["1 clauses not tested: s000-r13"],
        gaps=gaps,
        clauses=[_clause("s000-r1", "pass"), _clause("s000-r13", "not_tested")],
        selection={"expressions": {"-k": "s000-r12"}, "left_out": [], "ran": 1, "planned": 9},
    )
    assert md.startswith("## chcert certify: INCOMPLETE\n")
    assert "- 1 clauses not tested: s000-r13" in md
    assert "### Not tested (1)" in md
    assert _row(md, "s000-r13") == [
        "s000-r13",
        r"Recovery \| resume",
        "not tested: needs capability recovery",  # a schema-4 sentence, kept as written
        "capability recovery, or an attestation",
    ]
    assert _row(md, "**selection**")[1] == "`-k s000-r12`: never a certificate"


def test_reasons_as_codes_are_said_in_the_reports_words() -> None:
    """A file whose reasons are codes (schema 5) reads as the sentences of schema 4 did."""
    gap = {
        "clause": "s000-r13",
        "title": "Recovery",
        "why": [{"code": "not-tested", "detail": "needs capability recovery"}],
        "to_close": ["capability recovery"],
    }
    reason = {"code": "clauses-not-tested", "subject": "s000-r13"}
    coded = _md("INCOMPLETE", schema_version=5, incomplete_reasons=[reason], gaps=[gap])
    assert "- 1 clauses not tested: s000-r13" in coded
    assert _row(coded, "s000-r13")[2:] == [
        "needs capability recovery",
        "capability recovery, or an attestation",
    ]


def test_a_clause_not_tested_reads_each_way_to_close_once_in_markdown_and_on_the_console(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each item names only the capabilities it lacks, and a claim not made needs its own
    attestation: the gap's ways read once each, alike in the Markdown and the summary
    `chcert certify` prints (never "capability inject capability seats:2 or an
    attestation", run together)."""
    from harness.cli.summary import print_summary

    gap = {
        "clause": "s000-r3",
        "title": "Two hole cards",
        "why": [{"code": "not-tested", "detail": "implementation lacks capability inject"}],
        "to_close": [
            "--rng-decks 20000",
            "an attestation (not_applicable)",
            "capability inject",
            "capability inject, seats:2",
        ],
    }
    data = _results("INCOMPLETE", schema_version=5, gaps=[gap])
    ways = "--rng-decks 20000, capabilities inject and seats:2, or an attestation (not_applicable)"
    assert _row(certify_markdown(Results.from_json(data)), "s000-r3")[3] == escape(ways)
    print_summary(data, Path("results.json"), Path("report.pdf"), Path("junit.xml"), 1.0)
    (line,) = [x for x in capsys.readouterr().out.splitlines() if "not tested: s000-r3" in x]
    assert line == f"  not tested: s000-r3 - to close: {ways}"


def test_a_stub_and_a_run_without_samples_still_render() -> None:
    stub = {"verdict": "INCOMPLETE", "clauses": [], "vectors": {}, "profile": {"name": "x"}}
    md = certify_markdown(Results.from_json(stub))
    assert md.startswith("## chcert certify: INCOMPLETE\n") and "**Vectors:** 0: 0 passed" in md
    assert "Sample sizes" not in md and _row(md, "**seed**") == ["**seed**", "-"]
    assert "Sample sizes" not in _md(evidence={"samples": []})
    assert "Sample sizes" not in _md(evidence=None)


def test_a_sample_below_its_minimum_or_not_run_is_said_so() -> None:
    evidence = {
        "minimums": {"source": "run plan lab | toml"},
        "samples": [
            _sample("rounds of the RTP | simulation", 2, 1_000),
            _sample("decks sampled for the RNG battery", 0, 20_000, judged=False),
        ],
    }
    md = _md("INCOMPLETE", evidence=evidence)
    assert _row(md, "rounds") == [r"rounds of the RTP \| simulation", "2", "1,000", "**below**"]
    assert _row(md, "decks")[1:] == ["0", "20,000", "not run"]
    assert r"Minimums from run plan lab \| toml." in md


def test_a_diff_gives_its_verdict_regressions_and_fixes() -> None:
    old = _results(failures=[])
    new = copy.deepcopy(old)
    new.update(verdict="FAIL", implementation_verdict="FAIL", failures=[_failure(1, "a | b")])
    new["clauses"] = [_clause("s000-r1", "fail"), _clause("s000-r2", "pass")]
    md = diff_markdown(_diff(old, new), "base|line.json", "reports/results.json")
    assert md.startswith("## chcert diff: REGRESSED: 4 regression(s)\n")
    assert "OLD `base|line.json` -> NEW `reports/results.json`" in md
    assert _row(md, "**verdict**") == ["**verdict**", "PASS", "FAIL"]
    regressions = md.split("### Regressions (4)")[1].split("###")[0]
    assert "- clause `s000-r1` (Clause s000-r1): pass -> fail" in regressions
    assert r"- new failure `s000-r12/tie-1`: a \| b" in regressions
    assert f"  - reproduce: `{REPRODUCE}`" in regressions
    assert "### Fixed (1)\n\n- clause `s000-r2` (Clause s000-r2): attested -> pass" in md
    assert diff_markdown(_diff(old, old)).startswith("## chcert diff: no change\n")


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    assert main(argv) == 4
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1, err


def test_summary_md_appends_a_certification_and_a_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before the run when it names an input or output, a folder, a folder that
    does not exist, or nothing; otherwise certify, then diff, append to the file."""
    out, summary = tmp_path / "out", tmp_path / "summary.md"
    attest = tmp_path / "attest.yaml"
    attest.write_text(ATTEST)
    run = ["certify", "--out", str(out), "--attest", str(attest), *ITEM]
    _refused(capsys, [*run, "--summary-md", str(attest)], "is a file this run reads")
    _refused(capsys, [*run, "--summary-md", str(out / "results.json")], "another of this run's")
    _refused(capsys, [*run, "--summary-md", str(out / "repro" / "s.md")], "another of this run's")
    _refused(capsys, [*run, "--summary-md", str(tmp_path)], "is a folder")
    _refused(capsys, [*run, "--summary-md", str(tmp_path / "no" / "s.md")], "does not exist")
    _refused(capsys, [*run, "--summary-md", ""], "names no file")
    linked = tmp_path / "linked.md"
    os.link(attest, linked)  # another name for an input: appending would spoil it
    _refused(capsys, [*run, "--summary-md", str(linked)], "is a file this run reads")
    catalog = ROOT / "specs" / "clauses" / "s000.yaml"  # a dry run: were the check to fail,
    dry = [*run, "--dry-run"]  # the repository's own catalog would still be untouched
    _refused(capsys, [*dry, "--summary-md", str(catalog)], "is in chcert's own data")
    _refused(capsys, [*dry, "--out", str(ROOT / "vectors" / "generated")], "chcert's own data")
    assert not (out / "results.json").exists() and not summary.exists()

    summary.write_text("## an earlier step\n")
    code, results = certify(out, *ITEM, "--summary-md", str(summary))
    assert code == 2 and results["verdict"] == "INCOMPLETE"  # a selection
    text = summary.read_text()
    assert text.startswith("## an earlier step\n\n## chcert certify: INCOMPLETE\n")
    assert text.endswith(certify_markdown(Results.from_json(results)))

    old = tmp_path / "old.json"
    old.write_text(json.dumps(results))
    new = str(out / "results.json")
    _refused(capsys, ["diff", str(old), new, "--summary-md", str(old)], "is a file this")
    _refused(capsys, ["diff", str(old), new, "--summary-md", str(tmp_path)], "is a folder")
    assert main(["diff", str(old), new, "--summary-md", str(summary)]) == 0
    assert "no change" in capsys.readouterr().out
    assert summary.read_text().startswith(text + "\n## chcert diff: no change\n")


def test_a_diff_on_less_evidence_is_a_regression_in_markdown_too() -> None:
    old = _results()
    new = copy.deepcopy(old)
    new["math"]["simulation"]["rounds"] = 2
    md = diff_markdown(_diff(old, new))
    assert md.startswith("## chcert diff: REGRESSED: 1 regression(s)\n")
    assert "- less evidence: rounds of the RTP simulation 1,000 -> 2" in md


def test_the_run_plan_and_where_it_was_found_are_said() -> None:
    plan = {"path": "/src/game/chcert.toml", "table": None, "found": "implicit"}
    md = _md(manifest=_manifest(plan={**plan, "ignored": ["seed"]}))
    (row,) = [line for line in md.splitlines() if line.startswith("| **run plan** |")]
    assert "found in the folder chcert ran from" in row and "its seed ignored" in row


def test_a_variation_and_the_table_it_was_played_at_are_said() -> None:
    profile = {
        "name": "ante-49",
        "extends": "standard",
        "clauses_from": "standard",
        "variations": [
            {"field": "ante_pay_table.straight_flush", "base": 20, "approved": 49},
            {"field": "rules.fold_forfeits_aa_bonus", "base": True, "approved": False},
        ],
        "not_applicable": ["s000-strategy"],
    }
    table = {
        "ante": [500, 10_000],
        "aa_bonus": None,
        "house_rules": {"aa_bonus_max_ante_multiple": 2},
        "house_rules_allowed": ["aa_bonus_max_ante_multiple"],
        "stakes": {"scaled": 2_500, "as written": 95},
    }
    md = _md(schema_version=6, profile=profile, table=table)
    assert _row(md, "**variation**")[1] == (
        "approved variation of standard: straight flush 49 to 1 (standard: 20); "
        "fold forfeits the AA Bonus: no (standard: yes). Not applicable under the "
        "variation: s000-strategy (claimed figure of standard not restated)"
    )
    assert _row(md, "**table**")[1] == (
        "Limits: ante 500 to 10,000; no AA Bonus (minor units); house rule: an AA Bonus "
        "at most 2 x the ante. Stakes played: 95 vectors as written, 2,500 scaled to the table"
    )
    # A bundled profile, in a file from before tables were recorded: neither row.
    assert "**variation**" not in _md() and "**table**" not in _md()
