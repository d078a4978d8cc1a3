"""Specs, profiles and vectors: schema-validated, and errors name the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import SpecError
from harness.rules.catalogs import clause_index, load_catalog, load_catalogs
from harness.rules.profiles import available_profiles, load_profile
from harness.vectors.settlement import load_all_vectors, load_vector_file

ROOT = Path(__file__).resolve().parent.parent


def test_every_schema_is_a_valid_json_schema_and_a_broken_one_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness import _schema

    assert _schema.check_schemas() == len(list(_schema.SCHEMA_DIR.glob("*.json"))) > 5
    (tmp_path / "bad.schema.json").write_text('{"type": "no-such-type"}', encoding="utf-8")
    monkeypatch.setattr(_schema, "SCHEMA_DIR", tmp_path)
    monkeypatch.setattr(_schema, "_registry", _schema._registry.__wrapped__)
    with pytest.raises(SpecError, match=r"bad\.schema\.json.*not a valid JSON Schema at type"):
        _schema.check_schemas()


def test_every_bundled_profile_loads() -> None:
    names = available_profiles()
    assert {"standard", "short-aa", "table2"} <= set(names)
    assert {f"source-00{i}" for i in range(5)} <= set(names)
    for name in names:
        assert load_profile(name).name == name


def test_profiles_are_faithful_to_their_sources() -> None:
    assert load_profile("source-004").fold_forfeits_aa_bonus is False
    assert load_profile("source-001").fold_forfeits_aa_bonus is True
    assert load_profile("source-003").aa_table is None
    assert (
        load_profile("source-003").nonqualifying_ante.value == "pay_table_if_player_wins_else_even"
    )
    assert load_profile("source-002").aa_table is not None
    assert load_profile("source-002").aa_table.odds["flush"] == 25
    assert load_profile("standard").aa_table is not None
    assert load_profile("standard").aa_table.odds["royal_flush"] == 100
    table2 = load_profile("table2").ante_table
    assert [table2.pays(c) for c in table2.odds] == [25, 25, 12, 3, 2]


def test_unknown_profile_lists_the_bundled_ones() -> None:
    with pytest.raises(SpecError, match=r"bundled profiles: .*standard"):
        load_profile("nonesuch")


def test_yaml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema: profile.schema.json\nname: x\ntitle: [unclosed\n")
    with pytest.raises(SpecError) as err:
        load_profile(str(bad))
    assert err.value.path == str(bad) and err.value.line is not None
    assert str(bad) in str(err.value)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a: 1\nb:\n  c: 2\n  d: *x\n", 4, "undefined alias *x"),
        ("a: &x 1\nb:\n  c: 2\n  d: 3\n  e: *x\n", 5, "aliases (*name) are not allowed"),
        ("a: &x [1]\nb: 2\nc:\n  - 3\n  - *x\n", 5, "aliases (*name) are not allowed"),
        ("a: &x 1\nb: 2\n? *x\n: 3\n", 3, "aliases (*name) are not allowed"),
        ("? &x k\n: 1\nb: 2\nc: *x\n", 4, "aliases (*name) are not allowed"),
        ("a: &x 1\nb: 2\nc: &x 3\n", 3, "duplicate anchor (first on line 1"),
    ],
    ids=["undefined", "in a mapping", "in a sequence", "as a key", "of a key", "anchor twice"],
)
def test_a_yaml_alias_or_anchor_error_names_the_alias_s_own_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    """An alias node carries its anchor's marks, so the line must come from the alias itself."""
    from harness._schema import load_yaml

    bad = tmp_path / "alias.yaml"
    bad.write_text(text)
    with pytest.raises(SpecError) as err:
        load_yaml(bad)
    assert (err.value.line, err.value.path) == (line, str(bad))
    assert message in str(err.value)


def test_schema_error_names_file_line_field_and_allowed_values(tmp_path: Path) -> None:
    text = (ROOT / "specs/profiles/standard.yaml").read_text()
    bad = tmp_path / "p.yaml"
    bad.write_text(
        text.replace("dealer_qualifier: pair_of_fours", "dealer_qualifier: pair_of_nines")
    )
    with pytest.raises(SpecError) as err:
        load_profile(str(bad))
    lines = bad.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "pair_of_nines" in text)
    assert err.value.line == line
    assert "dealer_qualifier" in err.value.message and "pair_of_fours" in err.value.message


CLAUSES = clause_index(load_catalogs())


def test_vector_with_a_card_twice_names_its_line(tmp_path: Path) -> None:
    text = (ROOT / "vectors/ante-and-call.yaml").read_text()
    bad = tmp_path / "v.yaml"
    bad.write_text(text.replace("dealer: [2c, 7d]", "dealer: [Ah, 7d]", 1))
    with pytest.raises(SpecError, match=r"nq-high-card.*Ah") as err:
        load_vector_file(bad, CLAUSES)
    line = bad.read_text().splitlines()[(err.value.line or 0) - 1]
    assert "nq-high-card" in line


def test_vector_citing_an_unknown_clause_is_refused(tmp_path: Path) -> None:
    text = (ROOT / "vectors/ante-and-call.yaml").read_text()
    bad = tmp_path / "v.yaml"
    bad.write_text(text.replace("clauses: [s000-r10,", "clauses: [s000-r99,", 1))
    with pytest.raises(SpecError, match=r"unknown clause 's000-r99'"):
        load_vector_file(bad, CLAUSES)


def test_vector_must_name_one_clause_per_profile(tmp_path: Path) -> None:
    """A vector whose group holds for source-003 must cite an s003 clause, and only one."""
    text = (ROOT / "vectors/ante-and-call.yaml").read_text()
    bad = tmp_path / "v.yaml"
    bad.write_text(text.replace("s002-nq, s003-nq, s004-nq]", "s002-nq, s004-nq]", 1))
    with pytest.raises(
        SpecError,
        match=r"under profile (table2|source-003) exactly one cited clause must apply, found none",
    ):
        load_vector_file(bad, CLAUSES)


def test_catalogs_and_vectors_are_consistent() -> None:
    vectors = load_all_vectors(CLAUSES)
    assert len({v.id for v in vectors}) == len(vectors)


def test_duplicate_clause_id_is_refused(tmp_path: Path) -> None:
    text = (ROOT / "specs/clauses/s000.yaml").read_text()
    bad = tmp_path / "s000.yaml"
    bad.write_text(text.replace("id: s000-r2\n", "id: s000-r1\n"))
    with pytest.raises(SpecError, match="duplicate clause id 's000-r1'"):
        load_catalog(bad)


def test_a_clause_whose_vectors_could_never_fail_is_refused(tmp_path: Path) -> None:
    """A vector's item fails only on its clause's kinds of the decision table
    (docs/differential.md): a clause verified by vectors that owns and judges none would
    pass whatever the game does."""
    text = (ROOT / "specs/clauses/s000.yaml").read_text()
    bad = tmp_path / "s000.yaml"
    bad.write_text(text.replace("    judges: [deal]\n", "", 1))
    with pytest.raises(SpecError, match="s000-r6 is verified by vectors") as err:
        load_catalog(bad)
    assert "s000.yaml" in str(err.value) and err.value.line is not None
