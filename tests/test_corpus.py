"""The generated corpus (docs/corpus.md): stored, loadable, reproducible, cross-checked."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import harness.rules.oracle
from harness.errors import SpecError
from harness.rules.catalogs import clause_index, load_catalogs
from harness.rules.profiles import available_profiles
from harness.vectors.corpus import CORPUS_DIR, CorpusError, CorpusMismatch, generate_corpus
from harness.vectors.settlement import load_vector_file


def test_the_stored_corpus_covers_every_profile_with_20000_vectors() -> None:
    index = clause_index(load_catalogs())
    per_profile: Counter[str] = Counter()
    for path in sorted(CORPUS_DIR.glob("*.json")):
        for vector in load_vector_file(path, index):  # schema, clauses, flags, cards
            (profile,) = vector.profiles
            per_profile[profile] += 1
            assert vector.flags and vector.comment
    assert set(per_profile) == set(available_profiles())
    assert sum(per_profile.values()) >= 20_000


def test_regeneration_reproduces_a_stored_file_exactly() -> None:
    summary = generate_corpus(check=True, profiles=["table2"])
    assert summary["profiles"]["table2"]["vectors"] == 2_500


def test_a_stored_file_that_differs_is_found(tmp_path: Path) -> None:
    stored = (CORPUS_DIR / "table2.json").read_text(encoding="utf-8")
    (tmp_path / "table2.json").write_text(stored.replace('"ante":100', '"ante":101', 1))
    with pytest.raises(CorpusMismatch, match=r"table2\.json"):
        generate_corpus(tmp_path, check=True, profiles=["table2"])


def test_generation_stops_when_eval7_disagrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An oracle evaluator that calls every wheel a high card is caught at generation."""
    real = harness.rules.oracle.strength_of_distinct

    def no_wheel(cards: object) -> int:
        strength = real(cards)  # type: ignore[arg-type]
        ranks = {c.rank for c in cards}  # type: ignore[attr-defined]
        return strength & 0xFFFFF if strength >> 20 == 4 and {12, 0, 1, 2, 3} <= ranks else strength

    monkeypatch.setattr(harness.rules.oracle, "strength_of_distinct", no_wheel)
    with pytest.raises(CorpusError, match="eval7 disagree"):
        generate_corpus(tmp_path, profiles=["standard"])


def test_a_corpus_line_that_breaks_the_schema_names_its_line(tmp_path: Path) -> None:
    lines = (CORPUS_DIR / "table2.json").read_text(encoding="utf-8").split("\n")
    at = next(n for n, line in enumerate(lines) if line.startswith('{"id":')) + 3
    lines[at - 1] = lines[at - 1].replace('"result":"valid"', '"result":"maybe"')
    broken = tmp_path / "table2.json"
    broken.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(SpecError, match=rf"table2\.json:{at}"):
        load_vector_file(broken, clause_index(load_catalogs()))
