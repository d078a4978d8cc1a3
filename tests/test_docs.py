"""Counts the docs state are the code's: clauses, bad requests, generated vectors.

A count that changes with the data is checked here, or not stated (the mutants are
counted nowhere: harness/reference/mutants/ registers them)."""

from __future__ import annotations

import re
from pathlib import Path

from harness.defaults import available_profiles
from harness.rules.catalogs import clause_index, load_catalogs
from harness.vectors.refusals import load_all_refusals
from harness.vectors.settlement import load_vector_file

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def test_the_readme_counts_the_clauses() -> None:
    stated = re.search(r"\((\d+) clauses, each with its source reference", README)
    assert stated is not None
    assert _number(stated[1]) == sum(len(c.clauses) for c in load_catalogs())


def test_the_readme_counts_the_bad_requests() -> None:
    stated = re.search(
        r"A battery of (\d+) bad requests \((\d+) to (\d+) under a profile\)", README
    )
    assert stated is not None
    refusals = load_all_refusals(clause_index(load_catalogs()))
    per_profile = [sum(name in r.profiles for r in refusals) for name in available_profiles()]
    assert tuple(map(_number, stated.groups())) == (
        len(refusals),
        min(per_profile),
        max(per_profile),
    )


def test_the_corpus_doc_counts_the_generated_vectors() -> None:
    text = (ROOT / "docs" / "corpus.md").read_text()
    stated = re.search(
        r"holds ([\d,]+) vectors for each bundled profile\n\(([\d,]+) in all\)", text
    )
    assert stated is not None
    index = clause_index(load_catalogs())
    folder = ROOT / "vectors" / "generated"
    counts = [
        len(load_vector_file(folder / f"{name}.json", index)) for name in available_profiles()
    ]
    assert set(counts) == {_number(stated[1])}
    assert sum(counts) == _number(stated[2])
