"""The optimal strategy as a compact file, its lookup, and a summary people can read.

File format (numpy .npz, about 300 kB): `flops` holds the 1,755 canonical flops
(card indices 0..51, rank * 4 + suit); `calls[f]` is a packed bit per two-card
hole (colexicographic index of the pair, low card a: a + b(b-1)/2) on flop f, set
when the optimal player calls; `meta` is JSON naming the profile and pay table.
To look up any hole and flop: relabel suits so the flop's sorted card indices
have the smallest colex index among the 24 relabellings (any such relabelling),
relabel the hole the same way, find the flop in `flops`, read the hole's bit.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.gamemath import census_reference
from harness.gamemath.census import (
    UNREADABLE,
    Symmetry,
    binomials,
    cache_file,
    colex,
    save_cache,
    source_bytes,
    suit_permutations,
    symmetry,
    tables_sha256,
    warn_cache,
)
from harness.rules.cards import Card

FORMAT = "chcert-strategy-1"
_RELABELLINGS: list[list[int]] = suit_permutations().tolist()
_RELABELLING_ARRAY = np.array(_RELABELLINGS, np.int64)  # (24, 52): a card's image


@cache
def _flop_table() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For every flop by colex index: its canonical colex index, and which of the 24
    relabellings gives it (the first with the smallest index). One numpy pass over all
    22,100 flops: a differential run meets most of them, one by one."""
    flops = np.array(list(combinations(range(52), 3)), np.int64)
    binom = binomials()
    relabelled = np.sort(np.array(_RELABELLINGS, np.int64)[:, flops], axis=2)
    keys = (
        binom[relabelled[..., 0], 1] + binom[relabelled[..., 1], 2] + binom[relabelled[..., 2], 3]
    )
    best = keys.argmin(axis=0)
    index = binom[flops[:, 0], 1] + binom[flops[:, 1], 2] + binom[flops[:, 2], 3]
    canonical, relabelling = np.empty(len(flops), np.int64), np.empty(len(flops), np.int64)
    canonical[index] = keys[best, np.arange(len(flops))]
    relabelling[index] = best
    return canonical, relabelling


@lru_cache(maxsize=256)  # the seats of a round share their flop
def _canonical_flop(flop: tuple[int, int, int]) -> tuple[int, list[int]]:
    """(colex index of the canonical flop, the relabelling that gives it)."""
    canonical, relabelling = _flop_table()
    a, b, c = sorted(flop)
    at = a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6  # colex(flop), inlined: a hot path
    return int(canonical[at]), _RELABELLINGS[int(relabelling[at])]


@dataclass(frozen=True)
class Strategy:
    """Call or fold for every hole and flop, from the packed table."""

    flops: npt.NDArray[np.uint8]
    calls: npt.NDArray[np.uint8]  # (flops, 166) packed bits over hole colex indices
    meta: dict[str, Any]

    @classmethod
    def from_decisions(
        cls, sym: Symmetry, calls: npt.NDArray[np.bool_], meta: dict[str, Any]
    ) -> Strategy:
        table = sym.situation_of
        bits = np.where(table >= 0, calls[np.maximum(table, 0)], False)
        return cls(
            sym.canon_flops.astype(np.uint8),
            np.packbits(bits, axis=1),
            {"format": FORMAT, **meta},
        )

    def calls_with(self, hole: tuple[Card, Card], flop: tuple[Card, Card, Card]) -> bool:
        """The optimal decision for a hole and flop: True to call, False to fold."""
        key, relabel = _canonical_flop((flop[0].index, flop[1].index, flop[2].index))
        row = self._row_of[key]
        a, b = sorted(relabel[c.index] for c in hole)
        bit = a + b * (b - 1) // 2
        return bool((self.calls[row, bit >> 3] >> (7 - (bit & 7))) & 1)

    def calls_for(
        self, holes: npt.NDArray[np.uint8], flops: npt.NDArray[np.uint8]
    ) -> npt.NDArray[np.bool_]:
        """`calls_with` for many seats at once: `holes` (n, 2) and `flops` (n, 3) card
        indices, one row per seat; the same decisions (tests/test_gamemath.py)."""
        canonical, relabelling = _flop_table()
        f = np.sort(flops.astype(np.int64), axis=1)
        at = f[:, 0] + f[:, 1] * (f[:, 1] - 1) // 2 + f[:, 2] * (f[:, 2] - 1) * (f[:, 2] - 2) // 6
        rows = self._rows[canonical[at]]
        relabelled = np.sort(_RELABELLING_ARRAY[relabelling[at, None], holes], axis=1)
        a, b = relabelled[:, 0], relabelled[:, 1]
        bit = a + b * (b - 1) // 2
        calls: npt.NDArray[np.bool_] = (self.calls[rows, bit >> 3] >> (7 - (bit & 7))) & 1 == 1
        return calls

    @cached_property
    def _row_of(self) -> dict[int, int]:
        return {colex(int(c) for c in f): i for i, f in enumerate(self.flops)}

    @cached_property
    def _rows(self) -> npt.NDArray[np.int64]:
        """`_row_of` as an array over every flop's colex index (-1: not canonical)."""
        rows = np.full(len(_flop_table()[0]), -1, np.int64)
        for key, row in self._row_of.items():
            rows[key] = row
        return rows

    def digest(self) -> str:
        """sha256 of the decisions and metadata (not of the compressed file's bytes)."""
        meta = json.dumps(self.meta, sort_keys=True).encode()
        return hashlib.sha256(self.flops.tobytes() + self.calls.tobytes() + meta).hexdigest()

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        meta = np.frombuffer(json.dumps(self.meta, sort_keys=True).encode(), np.uint8)
        np.savez_compressed(buffer, flops=self.flops, calls=self.calls, meta=meta)
        return buffer.getvalue()

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.to_bytes())

    @classmethod
    def load(cls, path: Path) -> Strategy:
        with np.load(path) as data:
            return cls.from_arrays(data, path)

    @classmethod
    def from_arrays(cls, data: Any, path: Path) -> Strategy:
        """The strategy in an open .npz (a saved strategy file or a cache file)."""
        meta = json.loads(data["meta"].tobytes())
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path}: not a {FORMAT} strategy file")
        return cls(data["flops"], data["calls"], meta)


# --------------------------------------------------------------- cache

# What a cached strategy is derived from besides the census: editing either makes
# every cached strategy stale (recomputed, without a warning).
STRATEGY_SOURCES = ("gamemath/pricing.py", "gamemath/strategy.py")


@cache
def _code_digest() -> str:
    return hashlib.sha256(b"".join(source_bytes(n) for n in STRATEGY_SOURCES)).hexdigest()


def _strategy_kind(rules: str) -> str:
    return f"strategy-{hashlib.sha256(rules.encode()).hexdigest()[:16]}"


def strategy_cache_file(rules: str) -> Path:
    """Where the strategy for `rules` (a MainGame's key) is cached."""
    return cache_file(_strategy_kind(rules))


def cached_strategy(rules: str) -> Strategy | None:
    """The strategy cached for `rules` (a MainGame's key), or None when there is none,
    it is stale, or it fails its sha256 (then a line on stderr says so).

    A process that only plays the strategy (a worker running the differential) reads
    it back in milliseconds instead of pricing the census for seconds.
    """
    path = strategy_cache_file(rules)
    try:
        with np.load(path) as data:
            if str(data["code"][()]) != _code_digest() or str(data["rules"][()]) != rules:
                return None
            made = Strategy.from_arrays(data, path)
            stored = str(data["sha256"][()])
    except FileNotFoundError:
        return None
    except UNREADABLE as error:
        warn_cache(path, f"unreadable ({type(error).__name__}: {error})")
        return None
    if made.digest() != stored:
        warn_cache(path, "its decisions do not match the sha256 stored with them")
        return None
    return made


def cache_strategy(rules: str, strategy: Strategy) -> None:
    """Keep a priced strategy for the next process; a cache that cannot be written is no error."""
    kind = _strategy_kind(rules)
    meta = np.frombuffer(json.dumps(strategy.meta, sort_keys=True).encode(), np.uint8)
    save_cache(
        cache_file(kind),
        kind,
        flops=strategy.flops,
        calls=strategy.calls,
        meta=meta,
        sha256=np.array(strategy.digest()),
        code=np.array(_code_digest()),
        rules=np.array(rules),
    )


# --------------------------------------------------------------- summary

_CLASSES = (
    "two pair or better",
    "a pair using a hole card",
    "a pair on the flop only",
    "no pair, four to a flush",
    "no pair, open-ended straight draw",
    "no pair or draw, ace in the hole",
    "no pair or draw, king high in the hole",
    "no pair or draw, queen high or less",
)


def _runs(equal: npt.NDArray[np.bool_]) -> npt.NDArray[np.intp]:
    """Which neighbours of five sorted values are equal, as 4 bits (bit i: values i and
    i + 1): an index into _PAIRS and _LONGEST."""
    return (  # type: ignore[no-any-return]
        equal[:, 0] | equal[:, 1] << 1 | equal[:, 2] << 2 | equal[:, 3] << 3
    ).astype(np.intp)


def _run_tables() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """By the 4 bits of `_runs`: (values seen exactly twice, the longest run of equals)."""
    pairs, longest = np.zeros(16, np.int64), np.zeros(16, np.int64)
    for bits in range(16):
        lengths, run = [], 1
        for i in range(4):
            if bits >> i & 1:
                run += 1
            else:
                lengths.append(run)
                run = 1
        lengths.append(run)
        pairs[bits], longest[bits] = sum(n == 2 for n in lengths), max(lengths)
    return pairs, longest


_PAIRS, _LONGEST = _run_tables()


def classify(cards: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Index into _CLASSES of each hole + flop (rows: hole 2 cards, flop 3 cards).

    Plain numpy over whole columns (a census has 1,286,792 rows): each row's ranks and
    suits sorted, so that which neighbours are equal names its pairs, trips and most
    cards of a suit (_runs); its ranks as bits name its straights and draws.
    """
    ranks = (cards >> 2).astype(np.int8)
    by_rank = np.sort(ranks, axis=1)
    equal = by_rank[:, 1:] == by_rank[:, :-1]
    runs = _runs(equal)
    pairs, most_of_a_rank = _PAIRS[runs], _LONGEST[runs]
    by_suit = np.sort((cards & 3).astype(np.int8), axis=1)
    most_suited = _LONGEST[_runs(by_suit[:, 1:] == by_suit[:, :-1])]
    mask = np.zeros(len(cards), np.int64)  # ranks present, as bits
    for column in range(cards.shape[1]):
        mask |= 1 << ranks[:, column].astype(np.int64)
    straight = np.zeros(len(cards), bool)
    open_ended = np.zeros(len(cards), bool)
    for low in range(9):
        straight |= (mask & (0x1F << low)) == 0x1F << low
    straight |= (mask & 0x100F) == 0x100F  # the wheel, A-2-3-4-5
    for low in range(1, 9):  # four in a row with a rank free at each end (not A-2-3-4, J-Q-K-A)
        open_ended |= (mask & (0xF << low)) == 0xF << low
    pair_rank = by_rank[np.arange(len(cards)), equal.argmax(axis=1)]  # of a one-pair row
    top_hole = np.maximum(ranks[:, 0], ranks[:, 1])
    result = np.select(
        [
            (pairs >= 2) | (most_of_a_rank >= 3) | straight | (most_suited == 5),
            (pairs == 1) & ((ranks[:, 0] == pair_rank) | (ranks[:, 1] == pair_rank)),
            pairs == 1,
            most_suited == 4,
            open_ended,
            top_hole == 12,
            top_hole == 11,
        ],
        [0, 1, 2, 3, 4, 5, 6],
        default=7,
    )
    return result  # type: ignore[no-any-return]


@cache
def situation_classes() -> npt.NDArray[np.int8]:
    """The class of every situation: the same for every pay table, so worked out once
    and kept in the cache beside the suit-symmetry tables, held as they are to a sha256
    recorded with the code (census_reference.CLASSES_SHA256): a quarter of a second of
    every run's mathematics, read in milliseconds."""
    path = cache_file("classes")
    try:
        with np.load(path) as stored:
            classes: npt.NDArray[np.int8] = stored["classes"]
    except FileNotFoundError:
        pass
    except UNREADABLE as error:
        warn_cache(path, f"unreadable ({type(error).__name__}: {error})")
    else:
        if tables_sha256({"classes": classes}) == census_reference.CLASSES_SHA256:
            return classes
        warn_cache(path, "its classes are not the ones recorded in census_reference.py")
    classes = classify(symmetry().cards).astype(np.int8)
    if tables_sha256({"classes": classes}) != census_reference.CLASSES_SHA256:
        raise RuntimeError(
            "the strategy's situation classes are not the ones recorded in "
            "harness/gamemath/census_reference.py (tests/test_gamemath.py)"
        )
    save_cache(path, "classes", classes=classes)
    return classes


def summary(sym: Symmetry, calls: npt.NDArray[np.bool_]) -> list[dict[str, Any]]:
    """Share of all hole + flop deals in each class, and how often the optimal player calls."""
    classes = situation_classes()
    rows = []
    total = int(sym.weight.sum())
    for index, name in enumerate(_CLASSES):
        mine = classes == index
        deals = int(sym.weight[mine].sum())
        called = int(sym.weight[mine & calls].sum())
        rows.append(
            {
                "hand": name,
                "share": deals / total,
                "call_rate": called / deals if deals else 0.0,
            }
        )
    return rows


def fold_rule(rows: list[dict[str, Any]]) -> str:
    """The strategy in a sentence: which kinds of hole + flop are called, which folded."""
    tiers = (("Call", 0.99, 1.01), ("Usually call", 0.5, 0.99), ("Usually fold", 0.0, 0.5))
    parts = []
    for verb, low, high in tiers:
        hands = [
            f"{r['hand']} ({r['call_rate']:.1%} called)"
            for r in rows
            if low <= r["call_rate"] < high
        ]
        if hands:
            parts.append(f"{verb}: {'; '.join(hands)}.")
    return " ".join(parts) + " The exact decision for every hole and flop is in the strategy file."
