"""Declarations judged by meaning (harness/checks/declarations.py, docs/profiles.md).

Protocol v1 (docs/adapter-protocol.md, `config`) reads a pay table's missing rows: an ante
category not listed pays 1 to 1, an AA Bonus row not listed loses. A game that writes the
default out (`straight: 1`) declares the profile's table; one that pays a row otherwise
declares another table and fails the pay table's clause. The house rule that caps the AA
Bonus at a multiple of the ante is judged with the limits (`declared-limits`, the clause
of wagers, s000-r2): a cap that leaves no AA Bonus to stake is a declaration that
contradicts itself, a failure, not a side bet with nothing to test.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.checks.declarations import declared_limits, rows_that_differ, same_meaning
from harness.checks.registry import CHECKS, CheckFailure, Context
from harness.protocol.declaration import Declaration
from harness.rules.profiles import load_profile
from tests.runs import certify

VENDOR = Path(__file__).parent / "fixtures" / "vendor_game.py"
VARIATION = Path(__file__).resolve().parent.parent / "examples" / "variation" / "ante-49-17.yaml"
DECLARATIONS = "declared-ante-table or declared-aa-table or declared-qualifier or declared-call"


def vendor(*options: str) -> str:
    return "subprocess:" + shlex.join([sys.executable, str(VENDOR), *options])


def _context(config: dict[str, Any], profile: str = "standard") -> Context:
    hello = {"protocol": 1, "capabilities": [], "config": config}
    return Context(None, Declaration(hello), load_profile(profile), seed=7)  # type: ignore[arg-type]


def _standard(**rows: Any) -> dict[str, Any]:
    config = load_profile("standard").declared_config()
    return config | rows


# ------------------------------------------------------------ by meaning, unit


def test_an_ante_row_written_at_the_unlisted_default_is_the_same_table() -> None:
    want = load_profile("standard").declared_config()["ante_pay_table"]
    assert "straight" not in want
    assert same_meaning("ante_pay_table", want, want | {"straight": 1, "high_card": 1})
    assert not same_meaning("ante_pay_table", want, want | {"straight": 2})
    assert not same_meaning("ante_pay_table", want, want | {"flush": 1})  # the profile's 2
    assert not same_meaning("ante_pay_table", want, {k: v for k, v in want.items() if k != "flush"})
    # Not a table of categories to whole odds: it means only itself.
    assert not same_meaning("ante_pay_table", want, want | {"straights": 1})
    assert not same_meaning("ante_pay_table", want, want | {"straight": 1.0})
    assert not same_meaning("ante_pay_table", want, want | {"straight": True})
    assert not same_meaning("ante_pay_table", want, None)


def test_an_aa_row_not_listed_loses_and_one_listed_at_zero_pushes() -> None:
    """A row listed at 0 pays 0 to 1: the stake comes back, which is not the loss an
    unlisted row means; so `pair_of_aces: 0` is not the table without the row."""
    full = load_profile("standard").declared_config()["aa_bonus_pay_table"]
    without_aces = {k: v for k, v in full.items() if k != "pair_of_aces"}
    assert same_meaning("aa_bonus_pay_table", without_aces, dict(without_aces))
    assert not same_meaning("aa_bonus_pay_table", without_aces, without_aces | {"pair_of_aces": 0})
    assert not same_meaning("aa_bonus_pay_table", full, without_aces)
    assert not same_meaning("aa_bonus_pay_table", full, full | {"pair": 7})  # not an AA row
    assert same_meaning("aa_bonus_pay_table", None, None)
    assert not same_meaning("aa_bonus_pay_table", None, {})  # an AA Bonus that always loses
    assert rows_that_differ(
        "aa_bonus_pay_table", without_aces, without_aces | {"pair_of_aces": 0}
    ) == {"pair_of_aces": {"profile": None, "declared": 0}}


def test_the_declaration_checks_pass_a_default_row_written_out_and_fail_a_row_changed() -> None:
    written_out = _standard(ante_pay_table=_standard()["ante_pay_table"] | {"straight": 1})
    for name in ("declared-ante-table", "declared-aa-table"):
        CHECKS[name].func(_context(written_out))
    changed = _standard(ante_pay_table=_standard()["ante_pay_table"] | {"straight": 2})
    with pytest.raises(CheckFailure, match="straight pays 2 to 1, the profile's 1 to 1") as exc:
        CHECKS["declared-ante-table"].func(_context(changed))
    assert exc.value.evidence == {"rows": {"straight": {"profile": 1, "declared": 2}}}
    aa = _standard()["aa_bonus_pay_table"] | {"pair_of_aces": 0}
    with pytest.raises(CheckFailure, match="pair_of_aces pays 0 to 1, the profile's 7 to 1"):
        CHECKS["declared-aa-table"].func(_context(_standard(aa_bonus_pay_table=aa)))
    aa = {k: v for k, v in _standard()["aa_bonus_pay_table"].items() if k != "flush"}
    with pytest.raises(CheckFailure, match=r"flush pays nothing \(loses\), the profile's 20 to 1"):
        CHECKS["declared-aa-table"].func(_context(_standard(aa_bonus_pay_table=aa)))


# ------------------------------------------------------------ by meaning, certified


def test_a_game_of_an_approved_variation_writing_a_default_row_out_passes(tmp_path: Path) -> None:
    """The variation's own tables (examples/variation/ante-49-17.yaml) with `straight: 1`
    written out: the declarations are the profile's."""
    rows = {"straight_flush": 49, "four_of_a_kind": 17, "straight": 1}
    game = vendor("--ante-table", json.dumps(rows))
    args = ("--adapter", game, "--profile", str(VARIATION), "-k", DECLARATIONS)
    code, results = certify(tmp_path, *args)
    items = {
        i["name"]: i["status"]
        for c in results["clauses"]
        for i in c["items"]
        if i["kind"] == "check"
        and i["name"].split("/")[1].startswith("declared-")
        and i["name"].split("/")[1] != "declared-limits"
    }
    assert set(items.values()) == {"pass"} and len(items) >= 4, items
    assert code == 2 and results["verdict"] == "INCOMPLETE"  # a selection: nothing failed


def test_a_game_declaring_a_row_of_its_own_fails_the_pay_table_clause(tmp_path: Path) -> None:
    rows = {"straight_flush": 49, "four_of_a_kind": 17, "straight": 2}
    game = vendor("--ante-table", json.dumps(rows))
    args = ("--adapter", game, "--profile", str(VARIATION), "-k", DECLARATIONS)
    code, results = certify(tmp_path, *args)
    assert code == 1
    (failure,) = results["failures"]
    assert failure["item"] == "s000-antewin/declared-ante-table"
    assert "straight pays 2 to 1, the profile's 1 to 1" in failure["message"]


# ------------------------------------------------------------ declared limits


def test_a_house_cap_that_leaves_no_aa_bonus_fails_declared_limits_unit() -> None:
    config = _standard(
        limits={"ante": [100, 50_000], "aa_bonus": [60_000, 70_000]},
        house_rules={"aa_bonus_max_ante_multiple": 1},
    )
    with pytest.raises(CheckFailure, match="takes no AA Bonus: house rule") as exc:
        declared_limits(_context(config))
    assert "1 x the largest ante 50000 = 50000, under the AA Bonus minimum 60000" in str(exc.value)


def test_a_house_cap_that_leaves_no_aa_bonus_fails_declared_limits(tmp_path: Path) -> None:
    game = vendor("--aa-limits", "60000:70000", "--aa-cap", "1", "--declare-aa-cap")
    code, results = certify(tmp_path, "--adapter", game, "-k", "declared-limits")
    assert code == 1 and results["verdict"] == "FAIL"
    (failure,) = results["failures"]
    assert failure["item"] == "s000-r2/declared-limits"
    assert "takes no AA Bonus" in failure["message"]


def test_missing_aa_bonus_limits_are_said_plainly() -> None:
    config = _standard(limits={"ante": [100, 50_000]})
    with pytest.raises(CheckFailure) as exc:
        declared_limits(_context(config))
    assert str(exc.value) == (
        "the game offers an AA Bonus but declares no AA Bonus limits (config.limits.aa_bonus)"
    )
    assert "None" not in str(exc.value)
    config = _standard(limits={"ante": [100, 50_000], "aa_bonus": [500, 100]})
    with pytest.raises(CheckFailure, match=r"limits \[500, 100\] are not a range"):
        declared_limits(_context(config))
