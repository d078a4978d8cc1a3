"""The C extensions and their numba twins (harness/compiled.py): built, trusted only while
they match their sources, equal to the last bit, safe on bad input, and never a reason
for a run to import numba."""

from __future__ import annotations

import subprocess
import sys
from itertools import combinations

import numpy as np
import pytest

from harness import compiled
from harness.differential import pools
from harness.errors import UsageError
from harness.rules import evaluator, evaluator_jit
from harness.rules.cards import parse_cards


def test_every_extension_is_built_from_the_sources_beside_it() -> None:
    for name in compiled.SOURCES:
        module, problem = compiled._load(name)
        assert problem is None, problem
        assert compiled.extension(name) is module


def test_an_extension_built_from_other_sources_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    built = compiled.extension("harness.rules._evaluator")
    assert built is not None
    try:
        compiled._load.cache_clear()
        monkeypatch.setattr(built, "SOURCE_SHA256", "0" * 64)  # as if _evaluator.h were edited
        assert compiled.extension("harness.rules._evaluator") is None
        err = capsys.readouterr().err
        assert "harness/rules/_evaluator.c changed since it was built" in err
        royal = evaluator.strength_of(parse_cards("As Ks Qs Js Ts"))  # by numba's twin
        assert royal == (9 << 20) | (12 << 16)
        monkeypatch.setenv("CHCERT_KERNEL", "compiled")
        with pytest.raises(UsageError, match="changed since it was built"):
            compiled.extension("harness.rules._evaluator")
    finally:
        monkeypatch.undo()
        compiled._load.cache_clear()
    assert compiled.extension("harness.rules._evaluator") is built


def test_the_twins_are_chosen_on_chcert_kernel_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHCERT_KERNEL", "numba")
    assert all(compiled.extension(name) is None for name in compiled.SOURCES)
    monkeypatch.setenv("CHCERT_KERNEL", "fortran")
    with pytest.raises(UsageError, match="CHCERT_KERNEL='fortran'"):
        compiled.extension("harness.rules._evaluator")


# ---------------------------------------------------------------- the evaluator


def test_both_evaluators_give_every_five_card_hand_the_same_strength() -> None:
    hands = np.array(list(combinations(range(52), 5)), np.uint8)
    assert np.array_equal(evaluator.evaluate_each(hands), evaluator_jit.evaluate_each(hands))


@pytest.mark.parametrize("cards", [6, 7])
def test_both_evaluators_agree_on_random_hands_of_six_and_seven(cards: int) -> None:
    rng = np.random.default_rng(cards)
    hands = np.argsort(rng.random((200_000, 52)), axis=1)[:, :cards].astype(np.uint8)
    built = evaluator.evaluate_each(hands)
    assert np.array_equal(built, evaluator_jit.evaluate_each(hands))
    assert np.array_equal(evaluator.evaluate_batch(hands[::-1]), built[::-1])  # any order
    for row in hands[:500]:
        assert evaluator._built().strength(bytes(row)) == int(evaluator_jit._strength_of(row))


def test_the_compiled_evaluator_refuses_what_it_cannot_evaluate() -> None:
    built = evaluator._built()
    assert built is not None
    out = np.empty(1, np.int32)
    with pytest.raises(ValueError, match=r"card index 52 outside 0\.\.51"):
        built.evaluate(np.array([[0, 1, 2, 3, 52]], np.uint8), 5, out)
    with pytest.raises(ValueError, match="hands of 5 to 7 cards"):
        built.evaluate(np.array([[0, 1, 2, 3]], np.uint8), 4, out)
    with pytest.raises(ValueError, match="hands of 5 to 7 cards"):
        built.evaluate(np.zeros((2, 5), np.uint8), 5, out)  # out too short
    with pytest.raises(ValueError, match="from 5 to 7 cards, got 8"):
        built.strength(bytes(range(8)))
    with pytest.raises(ValueError, match=r"card indices outside 0\.\.51"):
        evaluator.evaluate_each(np.array([[48, 44, 40, 36, 288]], np.int64))  # not card 32
    with pytest.raises(ValueError, match=r"a lowest card outside 0\.\.45"):
        built.count_seven_card_hands(bytes([46]), np.empty(10, np.int64))


# ---------------------------------------------------------------- the pools


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_both_builds_draw_the_same_biased_decks(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    built = pools.draw_pool(np.random.default_rng(seed), 20_000)
    monkeypatch.setenv("CHCERT_KERNEL", "numba")
    assert np.array_equal(built, pools.draw_pool(np.random.default_rng(seed), 20_000))
    ordered = np.sort(built, axis=1)
    assert (ordered[:, 1:] != ordered[:, :-1]).all()  # nine distinct cards a row


def test_the_compiled_draw_refuses_what_would_send_it_astray() -> None:
    built = compiled.extension("harness.differential._pools")
    assert built is not None
    params = np.zeros((1, 6), np.int64)
    weight = np.ones(1, np.float32)
    uniforms = np.full((1, 48), 0.5, np.float32)
    windows = np.array(pools.WINDOWS, np.int64)
    out = np.empty((1, 9), np.uint8)
    built.draw(params, weight, uniforms, windows, out)
    assert len(set(out[0].tolist())) == 9
    params[0, 3] = len(pools.WINDOWS)
    with pytest.raises(ValueError, match="a window outside windows"):
        built.draw(params, weight, uniforms, windows, out)
    params[0, 3] = 0
    uniforms[0, 7] = 1.0
    with pytest.raises(ValueError, match=r"a uniform outside \[0, 1\)"):
        built.draw(params, weight, uniforms, windows, out)
    with pytest.raises(ValueError, match="out"):
        built.draw(params, weight, uniforms[:, :47].copy(), windows, out[:, :8].copy())
    with pytest.raises(ValueError, match="m >= 1"):  # no uniform at all to shuffle with
        built.draw(params, weight, np.empty((1, 0), np.float32), windows, out)


# ---------------------------------------------------------------- no numba


def test_the_rules_the_differential_and_the_mathematics_run_without_importing_numba() -> None:
    """What a certification runs in every process (the oracle, the batch settlement, the
    strata, the pools, a census read and priced) never imports numba where the extensions
    are built: it costs a process most of a second before its first compiled call."""
    script = """
import sys
import numpy as np
from harness.differential import pools, strata
from harness.gamemath import main_game
from harness.rules import evaluator, oracle
from harness.rules.cards import parse_cards
from harness.rules.profiles import load_profile
evaluator.best_hand(parse_cards("As Ks Qs Js Ts 2c 3d"))
strata.evaluate(pools.draw_pool(np.random.default_rng(1), 1000))
main_game(load_profile("standard")).optimal
assert "numba" not in sys.modules, sorted(m for m in sys.modules if m.startswith("numba"))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
