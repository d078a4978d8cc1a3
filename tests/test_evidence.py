"""Evidence that counts and settings the laboratory controls (docs/verdict.md#evidence,
docs/run-plan.md): minimum samples, plans found in the tree under test, --no-plan and
--dry-run, `chcert diff` on shrunken evidence, and a PASS its own file contradicts."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness.cli import main
from harness.diff import diff_results
from harness.report import verdict_problem
from harness.results import evidence
from harness.results.evidence import Minimums, Sample
from harness.results.model import Results
from tests.games import served
from tests.pdftext import pdf_pages
from tests.results import reasons
from tests.runs import certify

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "reports" / "samples" / "reference" / "results.json"
QUICK = ROOT / "tests" / "fixtures" / "quick-samples.toml"
# The shrunken run a vendor's pipeline could ask for: each check runs, on next to nothing.
TINY = ("--rtp-rounds", "2", "--differential", "1", "--rng-decks", "2949")
# A seeded shuffle (the battery is steady), over JSON Lines (every refusal can be sent).
SEEDED = ("--adapter", served("Seeded"))
SAMPLED_CLAUSES = {"s000-r1", "s000-r8", "s000-antewin"}  # rng-battery, differential, rtp


@pytest.fixture
def elsewhere(tmp_path: Path) -> Iterator[Path]:
    """A folder of the vendor's own to run chcert from, outside this repository (whose
    pyproject.toml is no plan), with the game's module importable as from the repo."""
    folder = tmp_path / "vendor"
    folder.mkdir()
    cwd = Path.cwd()
    os.chdir(folder)
    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), path) if p)
    try:
        yield folder
    finally:
        os.chdir(cwd)
        if path is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = path


# ------------------------------------------------------------------ the policy


def _minimums(decks: int, rounds: int, seat_hands: int, source: str) -> Minimums:
    return Minimums(rng_decks=decks, rtp_rounds=rounds, differential=seat_hands, source=source)


def test_the_default_minimums_are_the_documented_defaults() -> None:
    assert evidence.defaults() == _minimums(20_000, 1_000, 50_000, "chcert's defaults")
    assert evidence.resolve("standard", None, None) == evidence.defaults()


def test_the_laboratorys_plan_overrides_the_profile_which_overrides_the_defaults() -> None:
    profile = {"rtp_rounds": 5_000, "differential": 100_000}
    raised = evidence.resolve("p", profile, None)
    assert raised == _minimums(20_000, 5_000, 100_000, "profile p over chcert's defaults")
    both = evidence.resolve("p", profile, {"rtp_rounds": 300}, "run plan lab.toml")
    source = "run plan lab.toml over profile p over chcert's defaults"
    assert both == _minimums(20_000, 300, 100_000, source)


@pytest.mark.parametrize(
    ("stated", "said"),
    [
        ({"rng_decks": 2948}, "minimums.rng_decks: 2,948 is below 2,949 decks sampled"),
        ({"rtp_rounds": 1}, "minimums.rtp_rounds: 1 is below 2 rounds"),
        ({"differential": True}, "minimums.differential: a whole number is expected"),
        ({"decks": 5}, "minimums.decks: is not a sampled check's minimum"),
    ],
)
def test_no_policy_goes_below_what_a_check_judges(stated: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=f"^run plan lab.toml: {said}"):
        evidence.resolve("p", None, stated, "run plan lab.toml")


def test_a_profile_only_raises_the_minimums() -> None:
    """A profile may come from the tree under test: were it to lower the minimums, a
    vendor's profile would shrink the evidence its own certificate rests on."""
    with pytest.raises(ValueError, match=r"profile p: minimums.rtp_rounds: 999 is below 1,000"):
        evidence.resolve("p", {"rtp_rounds": 999}, None)


def _sections(decks: int, rounds: int, seat_hands: int, status: str = "pass") -> dict[str, Any]:
    """The sampled sections of a run, as a results file holds them, read by the model."""
    data = json.loads(SAMPLE.read_text())
    data["rng"] |= {"status": status, "decks": decks}
    data["math"]["simulation"] |= {"status": status, "rounds": rounds}
    data["differential"] |= {"status": status, "seat_hands": seat_hands}
    return evidence.sections_of(Results.from_json(data))


def test_a_sample_below_its_minimum_is_a_shortfall_only_where_judged() -> None:
    found = evidence.samples(_sections(2_949, 2, 4), evidence.defaults())
    assert [s.met for s in found] == [False, False, False]
    assert evidence.shortfalls(found, ["rtp-simulation", "differential-3"]) == [
        (
            "rtp_rounds",
            "too little evidence: 2 rounds of the RTP simulation, the certificate's minimum "
            "is 1,000 (--rtp-rounds 1000)",
        ),
        (
            "differential",
            "too little evidence: 4 seat-hands of the differential check, the certificate's "
            "minimum is 50,000 (--differential 50000)",
        ),
    ]
    not_run = evidence.samples(_sections(0, 0, 0, status="not_tested"), evidence.defaults())
    assert all(s.met and not s.judged for s in not_run)
    assert evidence.short_sample("differential-2", found) == found[2]
    assert evidence.short_sample("rng-battery", found) == found[0]
    assert evidence.short_sample("deck-integrity", found) is None


def test_the_section_records_every_sample() -> None:
    found = [
        Sample(
            name="rng_decks",
            what="decks",
            option="--rng-decks",
            size=20_000,
            minimum=20_000,
            judged=True,
            met=True,
        )
    ]
    section = evidence.section(found, evidence.defaults())
    assert section.met is True and section.samples[0].met is True
    assert section.minimums.source == "chcert's defaults"


# ------------------------------------------------------------------ whole runs


@pytest.mark.slow  # a whole certification: the fast tier stays under its bound
def test_a_run_on_trivial_samples_is_incomplete_and_says_so(tmp_path: Path) -> None:
    """Before: --rtp-rounds 2 --differential 1 --rng-decks 2949 certified PASS (exit 0)."""
    code, results = certify(tmp_path, *SEEDED, *TINY, "--no-plan")
    assert code == 2 and results["verdict"] == "INCOMPLETE"
    short = [r for r in reasons(results) if r.startswith("too little evidence")]
    assert len(short) == 3, reasons(results)
    open_ = {c["id"] for c in results["clauses"] if c["status"] == "not_tested"}
    assert open_ == SAMPLED_CLAUSES
    assert results["evidence"]["met"] is False
    assert results["evidence"]["minimums"]["source"] == "chcert's defaults"
    gaps = {g["clause"]: g["to_close"] for g in results["gaps"]}
    assert "--rng-decks 20000" in gaps["s000-r1"]
    page = pdf_pages(tmp_path / "report.pdf")[0]
    assert "BELOW THE MINIMUM" in page and "2,949 decks sampled" in page
    assert "Seed" in page and "Run plan" in page


@pytest.mark.slow  # the fast tier keeps the run on trivial samples, refused by the defaults
def test_a_laboratorys_named_policy_accepts_its_own_minimums(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same samples PASS under a plan the laboratory names that states them; the same
    table in a plan found in the vendor's folder is ignored, and says so."""
    policy = "[minimums]\nrng_decks = 2949\nrtp_rounds = 2\ndifferential = 1\n"
    (tmp_path / "lab.toml").write_text(policy)
    code, results = certify(
        tmp_path / "named", *SEEDED, *TINY, "--plan", str(tmp_path / "lab.toml")
    )
    assert code == 0 and results["verdict"] == "PASS", reasons(results)
    source = f"run plan {tmp_path / 'lab.toml'} over chcert's defaults"
    assert results["evidence"]["minimums"]["source"] == source
    assert results["manifest"]["plan"]["found"] == "named"

    (elsewhere / "chcert.toml").write_text(policy)
    capsys.readouterr()
    assert main(["certify", "--dry-run", *TINY]) == 2  # what a run would use, run above
    out = capsys.readouterr().out
    assert "its minimums ignored" in out
    assert "minimum samples (chcert's defaults): 20,000 decks, 1,000 RTP rounds" in out


def test_a_profile_raises_the_minimums_and_cannot_lower_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: a copy of the standard profile with evidence_minimums of 1, named by a plan
    in the vendor's folder, certified trivial samples PASS."""
    standard = (ROOT / "specs" / "profiles" / "standard.yaml").read_text()
    lowered = tmp_path / "lowered.yaml"
    lowered.write_text(standard + "evidence_minimums: {rtp_rounds: 2, differential: 1}\n")
    assert main(["certify", "--profile", str(lowered), "--out", str(tmp_path / "o")]) == 4
    assert "evidence_minimums" in capsys.readouterr().err

    raised = tmp_path / "raised.yaml"
    raised.write_text(standard + "evidence_minimums: {rtp_rounds: 2000}\n")
    item = "s000-antewin/rtp-simulation"
    code, results = certify(tmp_path / "out", *SEEDED, "--profile", str(raised), "--item", item)
    assert code == 2
    minimums = results["evidence"]["minimums"]
    assert minimums["rtp_rounds"] == 2000
    assert minimums["source"] == "profile standard over chcert's defaults"
    (row,) = [i for c in results["clauses"] for i in c["items"] if i["name"] == item]
    assert row["status"] == "not_tested" and row["needs"] == "--rtp-rounds 2000"
    assert "1,000 rounds of the RTP simulation" in row["message"]
    page = " ".join(pdf_pages(tmp_path / "out" / "report.pdf")[0].split())
    assert "not chcert's bundled profile" in page  # a copy keeping the name is said so


def test_a_plan_in_the_vendors_tree_supplies_no_laboratory_attestation_or_signing(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: [tool.chcert] of the folder's pyproject.toml printed its laboratory on the
    certificate, applied its attestations, with one line of notice."""
    attest = elsewhere / "attest.yaml"
    attest.write_text(
        "attestations:\n  - clause: s000-r1\n    result: pass\n    evidence: trust us\n"
        '    by: the vendor\n    date: "2024-01-02"\n'
    )
    (elsewhere / "pyproject.toml").write_text(
        '[tool.chcert]\nseed = 11\nattest = "attest.yaml"\n'
        '[tool.chcert.laboratory]\nname = "Vendor Self-Certification Ltd"\n'
        'report_number = "V-1"\nsignatory = "The Vendor"\nstandard = "none"\n'
        '[tool.chcert.signing]\nkey = "missing.key"\ncert = "missing.pem"\n'
        "[tool.chcert.minimums]\nrtp_rounds = 2\n"
    )
    code, results = certify(tmp_path / "out", *SEEDED, "--item", "s000-r1/rng-battery")
    out = capsys.readouterr().out
    assert code == 2  # a selection, never a certificate; the point is what was applied
    plan = results["manifest"]["plan"]
    assert plan["found"] == "implicit" and plan["laboratory"] == {}
    assert plan["ignored"] == ["laboratory", "minimums", "seed", "attest", "signing"]
    assert results["evidence"]["minimums"]["source"] == "chcert's defaults"
    assert plan["settings"] == {} and plan["overridden"] == []
    assert results["manifest"]["seed"] == 7  # the helper's --seed 7, never the vendor's 11
    assert results["manifest"]["laboratory"] == {} and results["attestations"] == []
    assert "found in the folder chcert ran from" in out and "ignored" in out
    page = pdf_pages(tmp_path / "out" / "report.pdf")[0]
    assert "Vendor Self-Certification" not in page
    assert "found in the folder chcert ran from" in " ".join(page.split())


def test_no_plan_reads_nothing_from_the_folder(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (elsewhere / "chcert.toml").write_text("seed = 11\nrtp_rounds = 300\n")
    assert main(["certify", "--no-plan", "--dry-run"]) == 2
    out = capsys.readouterr().out
    assert "run plan: none (--no-plan)" in out and "rtp_rounds = 1000  (default)" in out


def test_dry_run_shows_each_setting_and_where_it_came_from_and_certifies_nothing(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (elsewhere / "chcert.toml").write_text('seed = 11\nrtp_rounds = 300\nout = "lab-out"\n')
    code = main(["certify", "--dry-run", "--differential", "60000"])
    out = capsys.readouterr().out
    assert code == 2  # never 0: a gate given --dry-run by mistake does not pass
    plan = elsewhere / "chcert.toml"
    assert "seed = 'drawn at random when the run starts'  (default)" in out  # not the vendor's
    assert "its seed ignored" in out
    assert f"rtp_rounds = 300  (run plan {plan})" in out
    assert "differential = 60000  (command line)" in out
    assert "adapter = 'reference'  (default)" in out
    assert "minimum samples (chcert's defaults): 20,000 decks, 1,000 RTP rounds" in out
    assert not (elsewhere / "lab-out").exists()  # nothing written


def test_dry_run_still_checks_what_a_run_would(
    tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "lab.toml").write_text("[minimums]\nrng_decks = 100\n")
    assert main(["certify", "--dry-run", "--plan", str(tmp_path / "lab.toml")]) == 4
    err = capsys.readouterr().err
    assert "minimums.rng_decks" in err and "lab.toml" in err and err.count("\n") == 1


# ------------------------------------------------------------------ chcert diff


def _sample() -> dict[str, Any]:
    return json.loads(SAMPLE.read_text())


def test_less_evidence_than_the_baseline_is_a_regression() -> None:
    """Before: a default baseline against a shrunken run said "no change", exit 0."""
    baseline = _sample()
    shrunk = copy.deepcopy(baseline)
    shrunk["rng"]["decks"] = 2_949
    shrunk["math"]["simulation"]["rounds"] = 2
    shrunk["differential"]["seat_hands"] = 4
    shrunk["differential"]["strata"]["met"] = 0
    d = diff_results(Results.from_json(baseline), Results.from_json(shrunk))
    assert d.regressed
    assert {e.name for e in d.evidence} == {"rng_decks", "rtp_rounds", "differential", "strata_met"}
    assert all(e.direction == "regression" for e in d.evidence)
    back = diff_results(Results.from_json(shrunk), Results.from_json(baseline))
    assert not back.regressed and all(e.direction == "improvement" for e in back.evidence)


def test_evidence_a_file_no_longer_states_is_none() -> None:
    """Before: a section removed compared as "no change": evidence a file does not
    state, a gate cannot credit."""
    baseline = _sample()
    hidden = copy.deepcopy(baseline)
    del hidden["rng"]
    d = diff_results(Results.from_json(baseline), Results.from_json(hidden))
    assert d.regressed
    (change,) = [e for e in d.evidence if e.name == "rng_decks"]
    assert (change.old, change.new, change.direction) == (20_000, 0, "regression")


@pytest.mark.parametrize("size", [20_000.0, "20000", None], ids=["a float", "a string", "null"])
def test_a_sample_size_that_is_no_whole_number_is_no_results_file(size: Any) -> None:
    """Before: a size written as 20000.0 or "20000" compared as a number; now the file is
    refused (`chcert diff` exits 4): a gate ranks only what it can read as written."""
    hidden = _sample()
    hidden["rng"]["decks"] = size
    with pytest.raises(msgspec.ValidationError, match=r"\$\.rng\.decks"):
        Results.from_json(hidden)


def test_fewer_items_run_is_a_regression() -> None:
    baseline = _sample()
    fewer = copy.deepcopy(baseline)
    item = fewer["clauses"][0]["items"][0]
    item["status"] = "not_tested"
    d = diff_results(Results.from_json(baseline), Results.from_json(fewer))
    assert d.regressed and [e.name for e in d.evidence] == ["items_run"]


def test_diff_says_less_evidence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shrunk = _sample()
    shrunk["math"]["simulation"]["rounds"] = 2
    (tmp_path / "new.json").write_text(json.dumps(shrunk))
    assert main(["diff", str(SAMPLE), str(tmp_path / "new.json")]) == 1
    out = capsys.readouterr().out
    assert "less evidence: rounds of the RTP simulation 1,000 -> 2" in out


# ------------------------------------------------------------------ a PASS that contradicts itself


def _forged(edit: str) -> dict[str, Any]:
    doc = _sample()
    if edit == "selection":
        doc["selection"] = {"expressions": {"-k": "r1"}, "left_out": ["x"], "ran": 1, "planned": 2}
    elif edit == "failed item":
        doc["clauses"][0]["items"][0]["status"] = "fail"
    elif edit == "failed battery":
        doc["rng"]["passed"] = False
    elif edit == "differential not tested":
        doc["differential"]["status"] = "not_tested"
    elif edit == "vectors failed":
        doc["vectors"]["failed"] = 3
    elif edit == "too little evidence":
        doc["schema_version"] = 4
        doc["evidence"] = {
            "minimums": msgspec.to_builtins(evidence.defaults()),
            "samples": [],
            "met": True,
        }
        doc["math"]["simulation"]["rounds"] = 2
    elif edit == "no evidence":
        doc["schema_version"] = 4
        doc.pop("evidence", None)
    elif edit == "no schema version":
        doc.pop("schema_version")
        doc.pop("evidence", None)
    elif edit == "no items":
        doc["clauses"][0]["items"] = []
    elif edit == "no rng section":
        doc.pop("rng")
    elif edit == "gaps":
        doc["gaps"] = [
            {
                "clause": "s000-r1",
                "title": "t",
                "kind": "implementation",
                "why": [],
                "to_close": ["--rng-decks 20000"],
            }
        ]
    elif edit == "an old file on small samples":  # from before minimums: held to the defaults
        doc["schema_version"] = 3
        doc.pop("evidence", None)
        doc["math"]["simulation"]["rounds"] = 2
    elif edit == "lowered minimums called the defaults":
        doc["schema_version"] = 4
        lowered = {**msgspec.to_builtins(evidence.defaults()), "rtp_rounds": 2}
        doc["evidence"] = {"minimums": lowered, "samples": [], "met": True}
        doc["math"]["simulation"]["rounds"] = 2
    elif edit == "lowered minimums said to be a profile's":
        doc["schema_version"] = 4
        source = "profile standard over chcert's defaults"
        lowered = {**msgspec.to_builtins(evidence.defaults()), "rtp_rounds": 2, "source": source}
        doc["evidence"] = {"minimums": lowered, "samples": [], "met": True}
        doc["math"]["simulation"]["rounds"] = 2
    elif edit == "a sample it says fell short":
        doc["schema_version"] = 4
        short = {
            "name": "rtp_rounds",
            "what": "rounds",
            "option": "--rtp-rounds",
            "size": 2,
            "minimum": 2,
            "judged": True,
            "met": False,
        }
        doc["evidence"] = {
            "minimums": {
                **msgspec.to_builtins(evidence.defaults()),
                "rtp_rounds": 2,
                "source": "run plan x",
            },
            "samples": [short],
            "met": False,
        }
        doc["math"]["simulation"]["rounds"] = 2
    elif edit == "minimums below the floors":
        doc["schema_version"] = 4
        doc["evidence"] = {
            "minimums": {**msgspec.to_builtins(evidence.defaults()), "rng_decks": 5},
            "samples": [],
        }
    return doc


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("selection", "a selection"),
        ("failed item", "of passed clause"),
        ("failed battery", "rng section failed"),
        ("differential not tested", "differential section is not_tested behind a passed clause"),
        ("vectors failed", "3 vectors failed"),
        ("too little evidence", "too little evidence: 2 rounds of the RTP simulation"),
        ("no evidence", "no evidence section"),
        ("no schema version", "no evidence section"),
        ("no items", "passed on no item"),
        ("no rng section", "its rng section is missing"),
        ("minimums below the floors", "its minimum rng_decks 5 is below 2,949"),
        ("gaps", "lists clauses not tested"),
        ("an old file on small samples", "too little evidence: 2 rounds of the RTP simulation"),
        (
            "lowered minimums called the defaults",
            "its minimum rtp_rounds is below chcert's default",
        ),
        ("lowered minimums said to be a profile's", "only a run plan the laboratory names"),
        ("a sample it says fell short", "its evidence says rtp_rounds fell short"),
    ],
)
def test_a_pass_its_own_file_contradicts_is_not_certified(
    edit: str, said: str, tmp_path: Path
) -> None:
    """Before: chcert report drew CERTIFIED for each of these files edited to PASS."""
    assert verdict_problem(_sample()) is None
    doc = _forged(edit)
    problem = verdict_problem(doc)
    assert problem is not None and said in problem, problem
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    code = main(["report", str(path), "--pdf", str(tmp_path / "r.pdf")])
    if code == 4:  # refused outright: the file breaks results.schema.json as well
        return
    assert code == 0
    page = " ".join(pdf_pages(tmp_path / "r.pdf")[0].split())
    assert "NOT VALID" in page and "CERTIFIED" not in page.replace("NOT CERTIFIED", "")


@pytest.mark.slow  # a whole certification through the plugin
def test_a_run_its_own_records_bar_from_a_pass_says_why(tmp_path: Path) -> None:
    """Minimums lowered below chcert's defaults by no run plan (the plugin's own option):
    nothing failed and nothing was left untested, yet the verdict's rules bar a PASS. The
    run is INCOMPLETE and says why, and the report bears the file out."""
    minimums = json.dumps({"rng_decks": 3_000, "source": "a laboratory's policy"})
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
               "--chcert-profile", "standard", "--chcert-seed", "7",
               "--chcert-rng-decks", "3000", f"--chcert-minimums={minimums}",
               "--chcert-out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["verdict"] == "INCOMPLETE", done.stdout[-2000:]
    (reason,) = data["incomplete_reasons"]
    assert reason["code"] == "not-borne-out" and "rng_decks" in reason["detail"]
    assert verdict_problem(data) is None
