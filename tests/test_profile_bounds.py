"""Profile files at and beyond their edges (docs/profiles.md, "Bounds" and "Approved
variations"): odds, multiples and claimed figures bounded, integral and finite, each
refusal naming its file and line (exit 4); the pricing exact up to the bounds; paths
without a suffix, long chains of variations, copies of a bundled profile, and claims a
profile cannot state."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.errors import SpecError
from harness.gamemath import main_game
from harness.gamemath.census import load_census
from harness.gamemath.kernel import ANTE_PAID, COMPLETIONS, LOST, NQ_NOT_BEATEN, WON
from harness.gamemath.pricing import call_values
from harness.rules.evaluator import Category
from harness.rules.profiles import (
    MAX_CALL_MULTIPLE,
    MAX_EXTENDS_DEPTH,
    MAX_ODDS,
    AnteTable,
    NonQualifyingAnte,
    Profile,
    load_profile,
)

ROOT = Path(__file__).resolve().parent.parent
STANDARD = ROOT / "specs" / "profiles" / "standard.yaml"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text("schema: profile.schema.json\n" + text, encoding="utf-8")
    return path


def refused(path: Path) -> SpecError:
    with pytest.raises(SpecError) as caught:
        load_profile(str(path))
    assert caught.value.path == str(path)
    return caught.value


# ------------------------------------------------------------------ the bounds


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("ante_pay_table:\n  straight_flush: 10000000000000\n", 5, "maximum of 10000"),
        ("ante_pay_table:\n  straight_flush: 10001\n", 5, "maximum of 10000"),
        ("aa_bonus_pay_table:\n  royal_flush: 100000000000000000000000000000\n", 5, "10000"),
        ("call_multiple: 100000000000000000\n", 4, "maximum of 10"),
        ("call_multiple: 11\n", 4, "maximum of 10"),
        ("ante_pay_table:\n  straight_flush: 49.0\n", 5, "49.0 is not an integer: write 49"),
        ("aa_bonus_pay_table:\n  flush: 25.0\n", 5, "25.0 is not an integer: write 25"),
        ("call_multiple: 2.0\n", 4, "2.0 is not an integer: write 2"),
        ("required_limits: {ante: [100, 5000.0]}\n", 4, "5000.0 is not an integer"),
        (
            "claims:\n  - figure: house_edge\n    value: .nan\n    source: {file: a, ref: b}\n",
            6,
            "claims.0.value: nan is not a number",
        ),
        (
            "claims:\n  - figure: house_edge\n    value: .inf\n    source: {file: a, ref: b}\n",
            6,
            "greater than the maximum of 1",
        ),
    ],
    ids=[
        "odds 10^13",
        "odds 10,001",
        "AA odds 10^29",
        "call multiple 10^17",
        "call multiple 11",
        "odds 49.0",
        "AA odds 25.0",
        "call multiple 2.0",
        "limit 5000.0",
        "claim NaN",
        "claim inf",
    ],
)
def test_a_number_beyond_the_bounds_or_not_integral_names_its_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = write(tmp_path, "v.yaml", "name: v\nextends: standard\n" + text)
    error = refused(path)
    assert error.line == line and message in error.message


def test_a_copy_of_standard_declaring_49_0_is_refused_at_its_line(tmp_path: Path) -> None:
    """A float in a whole profile, not only a variation: JSON Schema counts 49.0 as an
    integer, and the copy would otherwise be compared with standard's 20 by value."""
    text = STANDARD.read_text().replace("straight_flush: 20", "straight_flush: 20.0")
    copy = tmp_path / "standard.yaml"
    copy.write_text(text)
    error = refused(copy)
    line = text.splitlines().index("  straight_flush: 20.0") + 1
    assert error.line == line and "ante_pay_table.straight_flush: 20.0 is not an integer" in str(
        error
    )


def test_the_cli_refuses_such_a_profile_with_exit_4_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for text in ("ante_pay_table: {straight_flush: 1000000000000000000000000000000}\n",):
        path = write(tmp_path, "huge.yaml", "name: huge\nextends: standard\n" + text)
        assert main(["math", "--profile", str(path)]) == 4
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"chcert: invalid spec: {path}:4:")


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e400"])
def test_a_claim_typed_that_is_not_a_finite_number_is_a_usage_error(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["math", "--claim", f"rtp={value}"]) == 4
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"chcert: --claim 'rtp={value}': use FIGURE=FRACTION")


def _exact_values(rows: np.ndarray, profile: Profile) -> list[int]:
    """pricing.call_values in Python integers, which cannot overflow."""
    odds = [profile.ante_table.pays(c) for c in Category]
    m = profile.call_multiple
    values = []
    for row in rows.tolist():
        value = sum(row[ANTE_PAID + c] * odds[c] for c in Category)
        value += m * row[WON] - (1 + m) * row[LOST]
        if profile.nonqualifying_ante is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN:
            value -= sum((odds[c] - 1) * row[NQ_NOT_BEATEN + c] for c in (0, 1))
        values.append(value)
    return values


@pytest.mark.parametrize("base", ["standard", "source-003"])
def test_at_the_bounds_the_pricing_is_exact_and_optimal_play_beats_always_calling(
    tmp_path: Path, base: str
) -> None:
    rows = "\n".join(f"  {c.wire}: {MAX_ODDS}" for c in Category if c > Category.STRAIGHT)
    aa = "\n".join(f"  {row}: {MAX_ODDS}" for row in ("pair_of_aces", "royal_flush"))
    text = (
        f"name: edge\nextends: {base}\ncall_multiple: {MAX_CALL_MULTIPLE}\n"
        f"ante_pay_table:\n{rows}\n"
    )
    if base == "standard":
        text += f"aa_bonus_pay_table:\n{aa}\n"
    profile = load_profile(str(write(tmp_path, "edge.yaml", text)))
    census = load_census(profile.qualifying_strength)
    sample = np.random.default_rng(7).choice(len(census), 3000, replace=False)
    sample = np.union1d(sample, np.argsort(census[:, ANTE_PAID + Category.ROYAL_FLUSH])[-200:])
    values = call_values(census, profile)
    assert values[sample].tolist() == _exact_values(census[sample], profile)
    game = main_game(profile)
    optimal, always = game.optimal, game.always_call
    assert optimal.return_per_ante >= always.return_per_ante
    assert 0 < optimal.raise_frequency <= 1
    # Calling is worth more than folding exactly where the exact value says so.
    exact = np.array(_exact_values(census[sample], profile), dtype=object)
    calls = values[sample] > -COMPLETIONS
    assert calls.tolist() == (exact > -COMPLETIONS).tolist()


def test_beyond_the_bounds_pricing_refuses_rather_than_wraps_around() -> None:
    """A table the profile loader would refuse, built directly: the pricing says so rather
    than price the optimal play below always calling."""
    standard = load_profile("standard")
    census = load_census(standard.qualifying_strength)
    for odds in (10**13, 10**18, 10**29):
        table = AnteTable({**standard.ante_table.odds, Category.STRAIGHT_FLUSH: odds})
        huge = dataclasses.replace(standard, ante_table=table)
        with pytest.raises(ValueError, match="beyond what is priced exactly"):
            call_values(census[:10], huge)


def test_the_bounds_cover_every_bundled_profile() -> None:
    for name in ("standard", "short-aa", "source-002", "source-003", "table2"):
        profile = load_profile(name)
        odds = [*profile.ante_table.odds.values(), *(profile.aa_table or _NoAA()).odds.values()]
        assert all(isinstance(o, int) and 1 <= o <= MAX_ODDS for o in odds)
        assert 1 <= profile.call_multiple <= MAX_CALL_MULTIPLE


class _NoAA:
    odds: dict[str, int] = {}  # noqa: RUF012


def test_a_claimed_figure_is_judged_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        "c.yaml",
        "name: c\nextends: standard\nclaims:\n  - figure: house_edge\n    value: 0.0216\n"
        "    source: {file: approval, ref: sheet}\n",
    )
    assert main(["math", "--profile", str(path), "--json"]) == 0
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert claim["status"] == "pass" and Fraction(claim["claimed"]) == Fraction(0.0216)


# ------------------------------------------------------------- edge cases of files


def test_a_base_named_by_a_path_without_a_suffix_is_that_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "house", "name: house\nextends: standard\ncall_multiple: 3\n")
    path = write(tmp_path, "v.yaml", "name: v\nextends: ./house\n")
    monkeypatch.chdir(tmp_path)
    for given in (str(path), "v.yaml", "./v.yaml"):
        profile = load_profile(given)
        assert profile.call_multiple == 3 and profile.files[1].name == "house"
    assert load_profile("./house").name == "house"  # --profile ./house: the file


def test_a_path_to_a_file_named_as_a_bundled_profile_is_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--profile ./standard` names the file in this folder, never the bundled profile."""
    write(tmp_path, "standard", "name: mine\nextends: standard\ncall_multiple: 3\n")
    monkeypatch.chdir(tmp_path)
    assert load_profile("./standard").name == "mine"
    assert load_profile("standard").name == "standard"  # a bare name is the bundled one


def test_a_chain_of_variations_is_bounded_and_named_for_what_it_is(tmp_path: Path) -> None:
    def chain(length: int) -> Path:
        folder = tmp_path / str(length)
        folder.mkdir()
        for i in range(length):
            base = f"./v{i + 1}.yaml" if i + 1 < length else "standard"
            write(folder, f"v{i}.yaml", f"name: v{i}\nextends: {base}\n")
        return folder / "v0.yaml"

    assert load_profile(str(chain(MAX_EXTENDS_DEPTH))).clauses_from == "standard"
    for length in (MAX_EXTENDS_DEPTH + 1, 1200):
        with pytest.raises(SpecError) as caught:
            load_profile(str(chain(length)))
        assert f"a chain of more than {MAX_EXTENDS_DEPTH} variations" in caught.value.message
        assert caught.value.line == 3  # the extends line of the file one too deep


def test_a_copy_of_a_bundled_profile_is_compared_by_meaning_not_by_order(
    tmp_path: Path,
) -> None:
    text = STANDARD.read_text()
    head, claims = text.split("claims:\n")
    first, second = ("  - figure:" + c for c in claims.split("  - figure:")[1:])
    reordered = tmp_path / "standard.yaml"
    reordered.write_text(f"{head}claims:\n{second}{first}")
    assert load_profile(str(reordered)).name == "standard"
    changed = tmp_path / "changed.yaml"
    changed.write_text(text.replace("value: 0.82", "value: 0.85"))
    assert "changes claims" in refused(changed).message


def test_a_profile_without_an_aa_bonus_cannot_claim_its_edge(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "noaa.yaml",
        "name: noaa\nextends: standard\naa_bonus_pay_table: null\nclaims:\n"
        "  - figure: house_edge\n    value: 0.0216\n    source: {file: a, ref: b}\n"
        "  - figure: aa_bonus_edge\n    value: 0.0626\n    source: {file: a, ref: b}\n",
    )
    error = refused(path)
    assert error.line == 9 and "claims an AA Bonus edge, but noaa offers no AA Bonus" in str(error)
    table2 = (ROOT / "specs" / "profiles" / "table2.yaml").read_text()
    claims = "claims:\n  - figure: aa_bonus_edge\n    value: 0.06\n    source: {file: a, ref: b}\n"
    whole = tmp_path / "t2.yaml"  # a whole profile, not a variation
    whole.write_text(table2.replace("name: table2", "name: t2").split("claims: []")[0] + claims)
    assert "offers no AA Bonus" in refused(whole).message
