"""Shuffles, deliberately flawed and one correct, to prove the RNG battery's power.

Each function returns `n` decks as an (n, 52) array of card indices, starting
every deck from the same fresh order (0..51) as a live shuffler does. The flawed
ones reproduce the famous failures of online card games; the battery must flag
each at the default sample size (tests/test_rng.py) and pass the correct ones:
PCG64 here, and the reference game's own `production_decks`.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from harness.reference.engine import production_decks

Decks = npt.NDArray[np.uint8]


def _fisher_yates(randbelow: Callable[[int], int]) -> list[int]:
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = randbelow(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def pcg64_shuffle(n: int, seed: int | None = None) -> Decks:
    """numpy's PCG64 permutation: correct."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1).astype(np.uint8)


def naive_swap_with_any(n: int) -> Decks:
    """Swap each position with any position: 52^52 equally likely paths onto 52! decks."""
    decks = []
    for _ in range(n):
        deck = list(range(52))
        for i in range(52):
            j = secrets.randbelow(52)
            deck[i], deck[j] = deck[j], deck[i]
        decks.append(deck)
    return np.array(decks, dtype=np.uint8)


def sattolo(n: int) -> Decks:
    """Sattolo's algorithm: a single cycle, so no card ever stays where it started."""
    return np.array([_fisher_yates(lambda k: secrets.randbelow(k - 1)) for _ in range(n)], np.uint8)


def off_by_one(n: int) -> Decks:
    """The last card is never swapped with itself: it never stays in the last position."""

    def deck() -> list[int]:
        cards = list(range(52))
        for i in range(51, 0, -1):
            j = secrets.randbelow(i) if i == 51 else secrets.randbelow(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        return cards

    return np.array([deck() for _ in range(n)], dtype=np.uint8)


def small_seed(n: int, bits: int = 24) -> Decks:
    """A fresh PRNG per deck seeded from only `bits` bits: decks repeat (birthday)."""
    decks = []
    for _ in range(n):
        rng = random.Random(secrets.randbits(bits))
        decks.append(_fisher_yates(rng.randrange))
    return np.array(decks, dtype=np.uint8)


def clock_seed(n: int) -> Decks:
    """A fresh PRNG per deck seeded from the clock in milliseconds."""
    decks = []
    for _ in range(n):
        rng = random.Random(time.time_ns() // 1_000_000)
        decks.append(_fisher_yates(rng.randrange))
    return np.array(decks, dtype=np.uint8)


def modulo_bias(n: int) -> Decks:
    """Fisher-Yates fed one random byte per swap, reduced modulo (i + 1)."""
    return np.array(
        [_fisher_yates(lambda k: secrets.randbits(8) % k) for _ in range(n)], dtype=np.uint8
    )


def duplicated_card(n: int, rate: int = 200) -> Decks:
    """A correct shuffle, but about one deck in `rate` carries a card twice."""
    decks = production_decks(n)
    for d in range(n):
        if secrets.randbelow(rate) == 0:
            decks[d, 51] = decks[d, 0]
    return decks


def one_card_bias(n: int, card: int, position: int, bias: float, seed: int) -> Decks:
    """A slight flaw of a size the battery states it detects: n fair decks, then in each,
    with probability bias/51, `card` swapped into `position`. So P(card at position) is
    (1 + bias)/52, every other card there (1 - bias/51)/52, and the card evenly less
    likely at every other position: one cell off, as each test's `detects` names it
    (harness/gamemath/rng.py; benchmarks/bench_rng.py measures the stated power with it)."""
    source = np.random.default_rng(seed)
    decks = np.argsort(source.random((n, 52)), axis=1).astype(np.uint8)
    rows = np.flatnonzero(source.random(n) < bias / 51)
    where = np.argmax(decks[rows] == card, axis=1)
    decks[rows, where] = decks[rows, position]
    decks[rows, position] = card
    return decks


def sorted_start(n: int, cards: int = 2) -> Decks:
    """A correct shuffle whose first `cards` cards are dealt in sorted order: grossly
    biased (half the card x position table is twice as likely as the other half)."""
    decks = pcg64_shuffle(n)
    decks[:, :cards] = np.sort(decks[:, :cards], axis=1)
    return decks


FLAWED: dict[str, Callable[[int], Decks]] = {
    "naive-swap-with-any": naive_swap_with_any,
    "sattolo": sattolo,
    "off-by-one": off_by_one,
    "24-bit-seed": small_seed,
    "clock-seed": clock_seed,
    "modulo-bias": modulo_bias,
    "duplicated-card": duplicated_card,
}
