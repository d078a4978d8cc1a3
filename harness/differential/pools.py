"""Pools of candidate seat-hands, drawn from a seed, and stratified selection from them.

A uniform deal rarely makes the hands that break poker code: a royal flush, two
trips, a straight flush beside a flush, quads against quads. So candidates are
drawn from a mixture of biased decks (a few ranks, one suit, one straight window,
a suited window) as well as the full deck, and the stratified part of a run takes
from them, rarest stratum first, until every stratum has its quota. Every draw
comes from one numpy Generator: the same seed gives the same candidates anywhere.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from harness import compiled
from harness.differential.strata import Evaluated, evaluate, strata_matrix
from harness.rules.profiles import Profile

POOL_SIZE = 100_000
RANKS = np.arange(52) // 4
SUITS = np.arange(52) % 4
WINDOWS = [[12, 0, 1, 2, 3], *[list(range(low, low + 5)) for low in range(9)]]


MODES = 8
RANDOMS_PER_ROW = 48


def draw_pool(rng: np.random.Generator, size: int = POOL_SIZE) -> npt.NDArray[np.uint8]:
    """`size` seat-hands (columns harness.differential.strata.SEAT_HAND), nine distinct
    cards each, from a mixture of biased decks (see `_draw`)."""
    params = np.stack(
        [
            rng.integers(0, MODES, size),
            rng.integers(3, 6, size),  # how many ranks in a few-ranks deck
            rng.integers(0, 4, size),  # the suit
            # the straight window: 0 the wheel ... 9 ten to ace, which royals need
            np.where(rng.random(size) < 0.25, 9, rng.integers(0, len(WINDOWS), size)),
            rng.integers(0, 13, size),  # a rank for quads and full houses
            rng.integers(1, 13, size),  # the second rank, as an offset from the first
        ],
        axis=1,
    )
    weight = rng.choice(np.array([0.5, 0.8, 1.0], np.float32), size)
    uniforms = rng.random((size, RANDOMS_PER_ROW), np.float32)
    windows = np.array(WINDOWS, np.int64)
    build = compiled.extension("harness.differential._pools")
    if build is None:
        return _draw_jit()(params, weight, uniforms, windows)  # type: ignore[no-any-return]
    out = np.empty((size, 9), np.uint8)
    build.draw(params, weight, uniforms, windows, out)
    return out


@cache
def _draw_jit() -> Any:
    """`_draw` compiled by numba: where _pools.c is not built, or CHCERT_KERNEL=numba."""
    from numba import njit

    return njit(cache=True)(_draw)


def _draw(
    params: npt.NDArray[np.int64],
    weight: npt.NDArray[np.float32],
    uniforms: npt.NDArray[np.float32],
    windows: npt.NDArray[np.int64],
) -> npt.NDArray[np.uint8]:
    """Nine distinct cards per row; each card comes from the row's biased deck with
    probability `weight` (while it has cards left), else from the whole deck.

    Decks by mode: 0 the whole deck; 1 three to five ranks (pairs, trips, quads,
    full houses); 2 one suit (flushes of five to seven, both hands flushed); 3 a
    straight window (straights of every height, paired or not); 4 a suited window
    (straight flushes and royals); 5 ten to ace (kicker battles, AA Bonus rows);
    6 one rank and a suited window (quads beside straight flushes); 7 two ranks and
    a suit (full houses and quads beside flushes). Randomness comes only from
    `uniforms`, drawn by the caller's seeded Generator: the same seed, the same cards.
    """
    size = params.shape[0]
    out = np.empty((size, 9), np.uint8)
    allowed = np.empty(52, np.int64)
    for i in range(size):
        mode, few, suit, window, rank, offset = params[i]
        second = (rank + offset) % 13
        n = 0
        for card in range(52):
            r, s = card // 4, card % 4
            in_window = False
            for w in range(5):
                if windows[window, w] == r:
                    in_window = True
            if mode == 0:
                ok = True
            elif mode == 1:
                ok = (r * 7 + rank) % 13 < few  # `few` ranks, spread by the row's rank
            elif mode == 2:
                ok = s == suit
            elif mode == 3:
                ok = in_window
            elif mode == 4:
                ok = in_window and s == suit
            elif mode == 5:
                ok = r >= 8
            elif mode == 6:
                ok = r == rank or (in_window and s == suit)
            else:
                ok = r in (rank, second) or s == suit
            if ok:
                allowed[n] = card
                n += 1
        used = np.zeros(52, np.bool_)
        k = 0
        left = n
        for pos in range(9):
            card = -1
            while card < 0 and k + 1 < uniforms.shape[1]:
                biased = left > 0 and uniforms[i, k] < weight[i]
                pick = uniforms[i, k + 1]
                k += 2
                candidate = allowed[int(pick * n) % n] if biased else int(pick * 52) % 52
                if not used[candidate]:
                    card = candidate
            if card < 0:  # out of randomness: the lowest unused card, deterministically
                card = 0
                while used[card]:
                    card += 1
            used[card] = True
            for j in range(n):
                if allowed[j] == card:
                    left -= 1
            out[i, pos] = card
        # Shuffle the nine over hole, dealer and board, so biased cards land anywhere.
        for pos in range(8, 0, -1):
            j = int(uniforms[i, (k + pos) % uniforms.shape[1]] * (pos + 1)) % (pos + 1)
            out[i, pos], out[i, j] = out[i, j], out[i, pos]
    return out


def select_stratified(
    rng: np.random.Generator,
    profile: Profile,
    quota: int,
    wanted: list[str],
    room: int,
    max_pools: int = 8,
) -> tuple[Evaluated, dict[str, int]]:
    """Seat-hands meeting `quota` of every stratum in `wanted`, rarest first, until
    `room` seat-hands are chosen.

    Returns the chosen seat-hands and the count of each wanted stratum among them;
    a stratum still short after `max_pools` pools is reported short, never padded.
    """
    counts = dict.fromkeys(wanted, 0)
    chosen: list[npt.NDArray[np.uint8]] = []
    for _ in range(max_pools):
        short = [k for k in wanted if counts[k] < quota]
        if not short or sum(len(c) for c in chosen) >= room:
            break
        pool = evaluate(draw_pool(rng))
        keys, member = strata_matrix(pool, profile)
        column = {k: i for i, k in enumerate(keys)}
        by_stratum = np.ascontiguousarray(member.T)  # a stratum's seat-hands read in a row
        free = np.ones(len(pool.player), np.bool_)
        frequency = by_stratum.sum(axis=1)
        for key in sorted(short, key=lambda k: frequency[column[k]]):
            need = quota - counts[key]
            if need <= 0:
                continue
            rows = np.flatnonzero(by_stratum[column[key]] & free)[:need]
            free[rows] = False
            for k, n in zip(keys, member[rows].sum(axis=0), strict=True):
                if k in counts:
                    counts[k] += int(n)
        chosen.append(pool.cards[~free])
    cards = np.concatenate(chosen) if chosen else np.zeros((0, 9), np.uint8)
    return evaluate(cards), counts
