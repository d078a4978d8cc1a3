"""Strata of a seat-hand: which kinds of hand a settlement was checked on.

A seat-hand is one seat's two hole cards, the dealer's two and the five board
cards (the columns of `SEAT_HAND`). Its strata are the cells and structures that
hand-evaluation and settlement code gets wrong (docs/differential.md):

* `cell:P/D/q|nq`: the player's final category, the dealer's, and whether the
  dealer qualifies;
* `ranks:pNtNqN`: how many pairs, trips and quads among the player's seven cards;
* `suited:5|6|7`: five, six or seven of the seven in one suit;
* `straight:H` and `straight:H+paired`: a straight to H among the seven (5 is the
  wheel), without or with a pair inside its five ranks;
* `board-plays`: the player's best five is the board's;
* `counterfeit`: a hole card that paired on the flop (or with the other hole card)
  no longer plays in the final hand;
* `kicker:1..5` and `kicker:tie`: against a qualifying dealer with the same
  category, the first of the five ranks of significance that differs (or none);
* `aa:ROW`: the AA Bonus row of hole cards and flop (`aa:lose` below the table).

Everything here is vectorised over many seat-hands at once (numpy arrays of card
indices), because the differential samples pools of a million candidates to fill
rare cells; the evaluator is the proved one (harness/rules/evaluator.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from harness.rules.evaluator import CATEGORY_SHIFT, Category, evaluate_batch
from harness.rules.profiles import Profile

# Column order of a seat-hand array: hole, dealer, flop, turn, river.
SEAT_HAND = ("hole1", "hole2", "dealer1", "dealer2", "flop1", "flop2", "flop3", "turn", "river")
PLAYER = [0, 1, 4, 5, 6, 7, 8]
DEALER = [2, 3, 4, 5, 6, 7, 8]
BOARD = [4, 5, 6, 7, 8]
HOLE_AND_FLOP = [0, 1, 4, 5, 6]

RANK_PATTERNS = [
    (p, t, q)
    for q in range(2)
    for t in range(3)
    for p in range(4)
    if 2 * p + 3 * t + 4 * q <= 7 and t + q <= 2 and not (q and t > 1)
]
HEIGHTS = tuple("56789TJQKA")  # straight heights, the wheel (5) first
CARD_BITS = 4  # bits per rank field of a strength


def _rank_key(p: int, t: int, q: int) -> str:
    return f"ranks:p{p}t{t}q{q}"


def _cell_key(player: int, dealer: int, qualifies: bool) -> str:
    return f"cell:{Category(player).wire}/{Category(dealer).wire}/{'q' if qualifies else 'nq'}"


@cache
def card_strata() -> tuple[str, ...]:
    """Every stratum a seat-hand's cards can fall in, AA Bonus rows aside, in a fixed order."""
    keys = [_cell_key(p, d, q) for p in range(10) for d in range(10) for q in (False, True)]
    keys += [_rank_key(*pattern) for pattern in RANK_PATTERNS]
    keys += ["suited:5", "suited:6", "suited:7"]
    keys += [f"straight:{h}{paired}" for h in HEIGHTS for paired in ("", "+paired")]
    keys += ["board-plays", "counterfeit"]
    keys += [f"kicker:{d}" for d in range(1, 6)] + ["kicker:tie"]
    return tuple(keys)


def aa_strata(profile: Profile) -> tuple[str, ...]:
    """The AA Bonus rows of a profile as strata (none without an AA Bonus)."""
    if profile.aa_table is None:
        return ()
    return (*(f"aa:{row}" for row in profile.aa_table.odds), "aa:lose")


@dataclass(frozen=True)
class Evaluated:
    """Strengths of many seat-hands, evaluated once and shared by strata and settlement."""

    cards: npt.NDArray[np.uint8]  # (n, 9), columns SEAT_HAND
    player: npt.NDArray[np.int32]
    dealer: npt.NDArray[np.int32]
    aa: npt.NDArray[np.int32]  # hole + flop


def evaluate(cards: npt.NDArray[np.uint8]) -> Evaluated:
    cards = np.ascontiguousarray(cards, dtype=np.uint8)
    return Evaluated(
        cards,
        evaluate_batch(np.ascontiguousarray(cards[:, PLAYER])),
        evaluate_batch(np.ascontiguousarray(cards[:, DEALER])),
        evaluate_batch(np.ascontiguousarray(cards[:, HOLE_AND_FLOP])),
    )


def strata_matrix(
    hands: Evaluated, profile: Profile, called: npt.NDArray[np.bool_] | None = None
) -> tuple[tuple[str, ...], npt.NDArray[np.bool_]]:
    """(keys, membership): membership[i, k] when seat-hand i falls in stratum keys[k].

    Cells and kicker depths count only for seats that called (`called`, default
    all): a folded hand is never compared with the dealer's.
    """
    keys = (*card_strata(), *aa_strata(profile))
    index = {k: i for i, k in enumerate(keys)}
    n = len(hands.player)
    # Column by column: each stratum is written, and read (pools.select_stratified), in a row.
    out = np.zeros((n, len(keys)), np.bool_, order="F")
    rows = np.arange(n)
    called = np.ones(n, np.bool_) if called is None else called
    cards = hands.cards
    ranks, suits = cards // 4, cards % 4

    pcat = hands.player >> CATEGORY_SHIFT
    dcat = hands.dealer >> CATEGORY_SHIFT
    qualifies = hands.dealer >= profile.qualifying_strength
    cell = np.array(
        [index[_cell_key(p, d, q)] for p in range(10) for d in range(10) for q in (False, True)]
    )
    # `out` is column-major: its transpose, flattened, is a view of it
    flat = out.T.reshape(-1)
    flat[cell[(pcat * 20 + dcat * 2 + qualifies)[called]] * n + rows[called]] = True

    counts = np.zeros((n, 13), np.int8)
    for column in PLAYER:
        counts[rows, ranks[:, column]] += 1
    # pairs * 16 + trips * 4 + quads, each at most 3: one number a pattern
    pattern_of = np.array([0, 0, 16, 4, 1], np.int64)[counts].sum(axis=1)
    for pattern in RANK_PATTERNS:
        p, t, q = pattern
        out[:, index[_rank_key(*pattern)]] = pattern_of == p * 16 + t * 4 + q

    by_suit = np.zeros((n, 4), np.int8)
    for column in PLAYER:
        by_suit[rows, suits[:, column]] += 1
    most_suited = by_suit.max(axis=1)
    for m in (5, 6, 7):
        out[:, index[f"suited:{m}"]] = most_suited == m

    high = _straight_high(counts > 0)
    for h, name in enumerate(HEIGHTS):
        has = high == h + 3
        window = [12, 0, 1, 2, 3] if h == 0 else list(range(h - 1, h + 4))
        paired = (counts[:, window] >= 2).any(axis=1)
        out[:, index[f"straight:{name}"]] = has & ~paired
        out[:, index[f"straight:{name}+paired"]] = has & paired

    board = evaluate_batch(np.ascontiguousarray(cards[:, BOARD]))
    out[:, index["board-plays"]] = hands.player == board
    out[:, index["counterfeit"]] = _counterfeit(cards, ranks, hands.player)

    same = called & qualifies & (pcat == dcat)
    differing = hands.player ^ hands.dealer
    for depth in range(1, 6):
        shift = 20 - CARD_BITS * depth
        first = (differing >> shift) & 0xF != 0
        above = differing >> (shift + CARD_BITS) & ((1 << (CARD_BITS * (depth - 1))) - 1) == 0
        out[:, index[f"kicker:{depth}"]] = same & first & above
    out[:, index["kicker:tie"]] = same & (differing == 0)

    if profile.aa_table is not None:
        rows_of = _aa_rows(hands.aa, profile)
        for number, row in enumerate((*profile.aa_table.odds, "lose")):
            out[:, index[f"aa:{row}"]] = rows_of == number
    return keys, out


def _straight_high(present: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """The top rank of the best straight among each row's ranks (3 = the wheel), -1 if none."""
    bits = np.packbits(present, axis=1, bitorder="little").astype(np.int64)
    mask = bits[:, 0] | bits[:, 1] << 8  # the ranks present, as bits
    high = np.full(len(present), -1, np.int64)
    for top in range(4, 13):  # ascending, so the highest straight wins
        high[(mask >> (top - 4)) & 0x1F == 0x1F] = top
    wheel = (mask & 0x100F == 0x100F) & (high < 0)  # A-2-3-4-5
    high[wheel] = 3
    return high


def _counterfeit(
    cards: npt.NDArray[np.uint8], ranks: npt.NDArray[np.integer], player: npt.NDArray[np.int32]
) -> npt.NDArray[np.bool_]:
    """A hole card that made a pair with the other hole card or the flop, and yet the
    final hand is as good without it."""
    found = np.zeros(len(player), np.bool_)
    for mine, other in ((0, 1), (1, 0)):
        paired = np.flatnonzero((ranks[:, [other, 4, 5, 6]] == ranks[:, [mine]]).any(axis=1))
        without = evaluate_batch(np.ascontiguousarray(cards[paired][:, [other, *BOARD]]))
        found[paired] |= without == player[paired]  # only a paired hole card can be one
    return found


def _aa_rows(aa: npt.NDArray[np.int32], profile: Profile) -> npt.NDArray[np.int64]:
    """The AA Bonus row of each hole + flop strength, as its place in the table's rows
    followed by `lose` (below the table)."""
    assert profile.aa_table is not None
    rows = list(profile.aa_table.odds)
    category = aa >> CATEGORY_SHIFT
    pair_of_aces = (category == Category.PAIR) & ((aa >> 16) & 0xF == 12)
    places = np.array([_place(rows, Category(c).wire) for c in range(10)], np.int64)
    place: npt.NDArray[np.int64] = places[category]
    place[pair_of_aces] = _place(rows, "pair_of_aces")
    return place


def _place(rows: list[str], row: str) -> int:
    return rows.index(row) if row in rows else len(rows)
