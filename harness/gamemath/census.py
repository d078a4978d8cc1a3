"""The per-situation census: computed once per dealer qualifier, cached on disk.

Everything a pay table needs to price every decision is in the census (see
`kernel`); pricing another pay table for the same qualifier is a matrix-vector
product over 1,286,792 situations, well under a second.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from itertools import combinations, permutations, product
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.atomic import atomic_path
from harness.gamemath import census_reference, kernel
from harness.rules.evaluator import CATEGORY_SHIFT, Category

CENSUS_VERSION = 1  # bump when the kernel's output changes meaning
Progress = Callable[[int, int], None]  # (boards done, boards in all)

# Every source the cached numbers (census and symmetry files) are computed from, relative
# to the `harness` package: editing any of them changes `_digest` and so every cache
# file's name. Not harness/rules/cards.py: the evaluator imports it for its scalar API only;
# the functions the kernel calls, like the kernel and this module, work on bare card
# indices (rank = c >> 2, suit = c & 3).
DIGEST_SOURCES = (
    "gamemath/census.py",  # suit symmetry, canonical boards, summing and dividing the census
    "gamemath/kernel.py",  # the census's column layout, the choice of build
    "gamemath/kernel_jit.py",  # the census kernel compiled by numba
    "gamemath/_kernel.c",  # the same kernel compiled ahead of time
    "rules/_evaluator.h",  # its hand strengths
    "rules/evaluator_jit.py",  # numba's: _rank_strength, _flush_strength, _popcount
    "rules/evaluator.py",  # the categories' numbering
)
_PACKAGE = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Symmetry:
    """Suit-symmetry tables: flops and situations to their canonical forms."""

    card_map: npt.NDArray[np.int64]  # (24, 52): card under each suit relabelling
    binom: npt.NDArray[np.int64]
    flop_canon: npt.NDArray[np.int64]  # flop colex index -> canonical flop id
    flop_perm: npt.NDArray[np.int64]  # flop colex index -> relabelling taking it there
    canon_flops: npt.NDArray[np.int64]  # (1755, 3)
    situation_of: npt.NDArray[np.int32]  # (1755, 1326): [flop id, hole colex] -> situation
    weight: npt.NDArray[np.int64]  # (hole, flop) pairs per situation, sums to 25,989,600
    cards: npt.NDArray[np.int64]  # (situations, 5): a representative hole, then flop

    @property
    def situations(self) -> int:
        return int(self.weight.shape[0])

    def situation(self, hole: tuple[int, int], flop: tuple[int, int, int]) -> int:
        """The situation of a hole and flop given as card indices (0..51)."""
        fi = colex(flop)
        p = int(self.flop_perm[fi])
        x, y = sorted(int(self.card_map[p, c]) for c in hole)
        return int(self.situation_of[self.flop_canon[fi], x + y * (y - 1) // 2])


def colex(cards: Iterable[int]) -> int:
    """Colexicographic index of a set of card indices among the sets of its size."""
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(cards)))


def suit_permutations() -> npt.NDArray[np.int64]:
    """CARD_MAP[p, c]: card c with its suit relabelled by the p-th of the 24 permutations."""
    perms = list(permutations(range(4)))
    return np.array([[(c & ~3) | p[c & 3] for c in range(52)] for p in perms], np.int64)


def binomials() -> npt.NDArray[np.int64]:
    """binom[n, k] = C(n, k) for n < 53, k < 6: the colex index of a sorted card set
    c0 < c1 < ... is the sum of binom[c_i, i + 1]."""
    table = np.zeros((53, 6), np.int64)
    table[:, 0] = 1
    for n in range(1, 53):
        table[n, 1:] = table[n - 1, :-1] + table[n - 1, 1:]
    return table


def _colex(sets: npt.NDArray[np.int64], binom: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Colex index of each sorted set along the last axis."""
    k = sets.shape[-1]
    return sum((binom[sets[..., i], i + 1] for i in range(k)), np.zeros(sets.shape[:-1], np.int64))


_ARRAYS = ("flop_canon", "flop_perm", "canon_flops", "situation_of", "weight", "cards")


@cache
def symmetry() -> Symmetry:
    """The suit-symmetry tables: from the cache (their sha256 checked), else built
    (numpy, under a second)."""
    path = cache_file("symmetry")
    try:
        with np.load(path) as stored:
            arrays = {name: stored[name] for name in _ARRAYS}
            checksum = str(stored["sha256"][()]) if "sha256" in stored.files else None
    except FileNotFoundError:
        pass
    except UNREADABLE as error:
        warn_cache(path, f"unreadable ({type(error).__name__}: {error})")
    else:
        sym = Symmetry(suit_permutations(), binomials(), **arrays)
        problem = _symmetry_problem(sym)
        digest = tables_sha256(arrays) if problem is None else None
        if problem is None and checksum != digest:
            problem = "its tables do not match the sha256 stored with them"
        if problem is None and digest != census_reference.SYMMETRY_SHA256:
            problem = "its tables are not the ones recorded in harness/gamemath/census_reference.py"
        if problem is None:
            return sym
        warn_cache(path, problem)
    sym = _build_symmetry()
    arrays = {name: getattr(sym, name) for name in _ARRAYS}
    digest = tables_sha256(arrays)
    if digest != census_reference.SYMMETRY_SHA256:
        raise RuntimeError(
            "the suit-symmetry tables built are not the ones recorded in "
            "harness/gamemath/census_reference.py (tests/test_census_reference.py)"
        )
    save_cache(path, "symmetry", **arrays, sha256=np.array(digest))
    return sym


def tables_sha256(arrays: dict[str, npt.NDArray[Any]]) -> str:
    """The sha256 of named tables: each name, dtype, shape and bytes."""
    sha = hashlib.sha256()
    for name in sorted(arrays):
        table = np.ascontiguousarray(arrays[name])
        sha.update(f"{name}\0{table.dtype.str}\0{table.shape}\0".encode())
        sha.update(table.data)
    return sha.hexdigest()


def _symmetry_problem(sym: Symmetry) -> str | None:
    """Why loaded symmetry tables cannot be used (a cheap sanity check), or None."""
    n = len(sym.weight)
    if sym.situation_of.shape != (1755, 1326) or sym.cards.shape != (n, 5):
        return "tables of the wrong shape"
    if int(sym.weight.sum()) != kernel.SITUATIONS or int(sym.weight.min()) <= 0:
        return f"situation weights do not sum to {kernel.SITUATIONS:,}"
    if int(sym.situation_of.max()) != n - 1:
        return "situation numbers out of range"
    return None


def _build_symmetry() -> Symmetry:
    card_map, binom = suit_permutations(), binomials()
    flops = np.array(list(combinations(range(52), 3)), np.int64)
    own = _colex(flops, binom)
    images = _colex(np.sort(card_map[:, flops], axis=2), binom)  # (24, 22,100)
    canon, perm = images.min(axis=0), images.argmin(axis=0)
    canonical, canon_id = np.unique(canon, return_inverse=True)
    flop_canon = np.empty(len(flops), np.int64)
    flop_perm = np.empty(len(flops), np.int64)
    flop_canon[own], flop_perm[own] = canon_id, perm
    by_colex = np.empty_like(flops)
    by_colex[own] = flops
    canon_flops = by_colex[canonical]

    # Holes on each canonical flop, merged when a relabelling fixing the flop maps one
    # onto the other; numbered flop by flop, holes in colex order.
    pairs = np.array(list(combinations(range(52), 2)), np.int64)
    pair_colex = _colex(pairs, binom)
    pair_cards = np.empty_like(pairs)
    pair_cards[pair_colex] = pairs
    pair_image = np.empty((24, 1326), np.int64)
    pair_image[:, pair_colex] = _colex(np.sort(card_map[:, pairs], axis=2), binom)
    fixes = _colex(np.sort(card_map[:, canon_flops], axis=2), binom) == canonical  # (24, F)
    holes = np.arange(1326)
    rep = np.broadcast_to(holes, (len(canon_flops), 1326)).copy()
    for p in range(24):  # only the flops this relabelling fixes: most it moves
        fixed = np.flatnonzero(fixes[p])
        rep[fixed] = np.minimum(rep[fixed], pair_image[p][None, :])
    meets = (pair_cards[None, :, :, None] == canon_flops[:, None, None, :]).any(axis=(2, 3))
    is_rep = (~meets & (rep == holes)).ravel()
    number = np.cumsum(is_rep, dtype=np.int32).reshape(meets.shape) - 1
    situation_of = np.take_along_axis(number, rep, axis=1)
    situation_of[meets] = -1
    flop_index, hole_index = np.divmod(np.flatnonzero(is_rep), 1326)
    cards = np.empty((len(hole_index), 5), np.int64)
    cards[:, :2] = np.take(pair_cards, hole_index, axis=0)
    cards[:, 2:] = np.take(canon_flops, flop_index, axis=0)

    # Each of a canonical flop's orbit of flops sees its holes as the canonical flop does,
    # relabelled: a situation's (hole, flop) pairs are its holes on the canonical flop
    # times the flops of that orbit.
    orbit = np.bincount(flop_canon, minlength=len(canon_flops))
    holes_on = np.bincount(situation_of[situation_of >= 0], minlength=len(cards))
    weight = holes_on * np.repeat(orbit, np.count_nonzero(is_rep.reshape(meets.shape), axis=1))
    assert weight.sum() == kernel.SITUATIONS and weight.min() > 0
    return Symmetry(
        card_map, binom, flop_canon, flop_perm, canon_flops, situation_of, weight, cards
    )


def canonical_boards() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The 134,459 boards up to suit symmetry, with the size of each one's orbit.

    Two boards are one up to suits exactly when their keys agree (kernel.five_card_sets).
    """
    boards, keys = kernel.five_card_sets()
    _, first, orbit = np.unique(keys, return_index=True, return_counts=True)
    order = np.argsort(first)  # neighbours share flops, so the census rows stay in cache
    return boards[first[order]], orbit[order].astype(np.int64)


SHARE_PIECES = 32  # runs of boards per thread in compute_census


def compute_census(qualifying: int, progress: Progress | None = None) -> npt.NDArray[np.int32]:
    """The census (situations x kernel.COLUMNS) for a dealer qualifier strength."""
    # The boards are found on another thread while the symmetry tables are read or built:
    # both are mostly numpy's sorting, which lets the other thread run.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="chcert-boards") as pool:
        found = pool.submit(canonical_boards)
        sym = symmetry()
        boards, orbit = found.result()
    build = kernel.compiled()
    threads = max(1, min(_usable_cpus(), 16))  # each thread has its own 82 MB of sums
    done = np.zeros(threads, np.int64)
    # The compiled kernel adds into rows of 8 packed int64 (_kernel.c PACKED), numba's
    # into census rows; either is 64 bytes a situation.
    width, dtype = (8, np.uint64) if build else (kernel.COLUMNS, np.int32)
    accs = [np.zeros((sym.situations, width), dtype) for _ in range(threads)]
    # Each thread takes every threads-th of SHARE_PIECES runs of neighbouring boards: the
    # work of a board varies along their order, and with contiguous halves one thread ran
    # 3.5 s and the other 3.1 s; sums of integers do not depend on the split.
    pieces = np.array_split(np.arange(len(boards)), threads * SHARE_PIECES)
    shares = [np.concatenate(pieces[slot::threads]) for slot in range(threads)]
    if build:
        chunk = build.census_chunk
    else:
        from harness.gamemath import kernel_jit  # numba, imported only when it runs

        chunk = kernel_jit.census_chunk

    def run(slot: int) -> None:
        mine = shares[slot]
        chunk(
            np.ascontiguousarray(boards[mine]),
            np.ascontiguousarray(orbit[mine]),
            sym.flop_canon,
            sym.flop_perm,
            sym.situation_of,
            sym.card_map,
            sym.binom,
            qualifying,
            accs[slot],
            done,
            slot,
        )

    workers = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(threads)]
    for worker in workers:
        worker.start()
    while any(w.is_alive() for w in workers):
        workers[0].join(0.5)
        if progress and any(w.is_alive() for w in workers):
            progress(int(done.sum()), len(boards))
    if progress:
        progress(len(boards), len(boards))
    if int(done.sum()) != len(boards):
        raise RuntimeError("the census kernel did not finish every board")
    if build:  # packed halves never carry: each count's total fits in 31 bits (_kernel.c)
        packed = accs[0]
        for acc in accs[1:]:
            packed += acc
        census = np.empty((sym.situations, kernel.COLUMNS), np.int32)
        build.unpack_rows(packed, sym.weight, census)  # divided, each exactly, or it raises
    else:
        sums = np.zeros((sym.situations, kernel.COLUMNS), np.int64)
        for acc in accs:
            sums += acc
        census, remainder = np.divmod(sums, sym.weight[:, None])
        assert not remainder.any(), "orbit sums must divide exactly by the situation weights"
    settled = census[:, : kernel.NQ_NOT_BEATEN].sum(axis=1) + census[:, kernel.LOST]
    assert (settled <= kernel.COMPLETIONS).all()
    return census.astype(np.int32, copy=False)


def census_progress(quiet: bool) -> Progress:
    """A progress bar on stderr for the census computation (nothing when quiet)."""

    tty = sys.stderr.isatty()
    shown = [-1]

    def show(done: int, total: int) -> None:
        step = 100 * done // max(total, 1) // (1 if tty else 25)
        if not quiet and step != shown[0]:  # a line per quarter when not a terminal
            shown[0] = step
            filled = 30 * done // max(total, 1)
            print(
                f"\rexact enumeration: [{'#' * filled}{'.' * (30 - filled)}] "
                f"{done:,}/{total:,} boards",
                end="" if done < total and tty else "\n",
                file=sys.stderr,
                flush=True,
            )

    return show


def _usable_cpus() -> int:
    """CPUs this process may run on (a container's share, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cache_dir() -> Path:
    """Where computed censuses are kept: $CHCERT_CACHE, else the user's cache folder."""
    explicit = os.environ.get("CHCERT_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chcert"


def source_bytes(name: str) -> bytes:
    """The bytes of one of the DIGEST_SOURCES."""
    return (_PACKAGE / name).read_bytes()


def _sources_digest() -> str:
    """CENSUS_VERSION and a hash of every one of the DIGEST_SOURCES, each with its name
    and length so that no two sets of sources hash alike."""
    sha = hashlib.sha256()
    for name in DIGEST_SOURCES:
        data = source_bytes(name)
        sha.update(f"{name}\0{len(data)}\0".encode())
        sha.update(data)
    return f"v{CENSUS_VERSION}-{sha.hexdigest()[:12]}"


@cache
def _digest() -> str:
    """The cache key of this code: editing any of the DIGEST_SOURCES invalidates the
    cache files of every kind (census and symmetry)."""
    return _sources_digest()


def cache_file(kind: str) -> Path:
    """The cache file of a kind (`symmetry`, `census-qNNN`) for this code's digest."""
    return cache_dir() / f"{kind}-{_digest()}.npz"


def save_cache(path: Path, kind: str, **arrays: npt.NDArray[Any]) -> None:
    """Write a cache file atomically (harness/atomic.py), removing older versions of its
    kind; a cache that cannot be written is no error. Uncompressed: a census is 72 MB
    that way and 22 MB compressed, but compressing took 2.7 s of a 10 s first run and
    reading it back 0.3 s of every later one."""
    try:
        with atomic_path(path) as temporary, temporary.open("wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]
        for stale in path.parent.glob(f"{kind}-v*"):
            if stale.name not in (path.name, path.with_suffix(".lock").name):
                stale.unlink(missing_ok=True)
    except OSError:
        pass


class Censuses:
    """The censuses this process has loaded, by dealer qualifier: each is read (or
    computed) once, and kept. A run needs one, a test session a few: a handful of
    qualifiers at most, so nothing is ever dropped but by `clear`."""

    def __init__(self) -> None:
        self._loaded: dict[int, npt.NDArray[np.int32]] = {}

    def get(self, qualifying: int, progress: Progress | None = None) -> npt.NDArray[np.int32]:
        if qualifying not in self._loaded:
            self._loaded[qualifying] = _load_or_compute(qualifying, progress)
        return self._loaded[qualifying]

    def clear(self) -> None:
        """Forget every census: the next `get` reads the disk cache again."""
        self._loaded.clear()


CENSUSES = Censuses()


def load_census(qualifying: int, progress: Progress | None = None) -> npt.NDArray[np.int32]:
    """The census for a qualifier: from this process (CENSUSES), the disk cache, or computed.

    Processes that need the same census at once (pytest-xdist workers) take turns on
    a lock file, so it is computed once. A cache that cannot be read or written is
    not an error: the census is computed.
    """
    return CENSUSES.get(qualifying, progress)


def _load_or_compute(qualifying: int, progress: Progress | None) -> npt.NDArray[np.int32]:
    path = _census_file(qualifying)
    census = _read(path, qualifying)
    if census is not None:
        return census
    with _locked(path.with_suffix(".lock")):
        census = _read(path, qualifying)  # another process may have computed it meanwhile
        if census is not None:
            return census
        census = compute_census(qualifying, progress)[:, : kernel.USED_COLUMNS].copy()
        broken = census_violation(census, qualifying) or _reference_problem(census, qualifying)
        if broken is not None:
            raise RuntimeError(f"the computed census breaks an invariant: {broken}")
        _save_census(qualifying, census)
    return census


def _census_kind(qualifying: int) -> str:
    return f"census-q{qualifying:x}"


def _census_file(qualifying: int) -> Path:
    return cache_file(_census_kind(qualifying))


def _save_census(qualifying: int, census: npt.NDArray[np.int32]) -> None:
    """Cache a census with its sha256 and what it is the census of (the qualifier, the
    census version, the kernel build that computed it), which `_read` checks."""
    save_cache(
        _census_file(qualifying),
        _census_kind(qualifying),
        census=census,
        sha256=np.array(_checksum(census)),
        qualifying=np.array(qualifying, np.int64),
        census_version=np.array(CENSUS_VERSION, np.int64),
        kernel=np.array("compiled" if kernel.compiled() is not None else "numba"),
    )


UNREADABLE = (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)


def _read(path: Path, qualifying: int) -> npt.NDArray[np.int32] | None:
    """The census of a qualifier cached at `path`, or None when there is none or it fails
    a check.

    A file that is there but unreadable, of the wrong form, not matching the sha256
    stored with it, recording another qualifier or census version, breaking an invariant
    of the census (`census_violation`) or not the census recorded for its qualifier in
    harness/gamemath/census_reference.py is reported in a line on stderr and treated as
    missing: recomputed, never used.
    """
    try:
        with np.load(path) as stored:
            census: npt.NDArray[np.int32] = stored["census"]
            record = {
                key: stored[key][()].item()
                for key in ("sha256", "qualifying", "census_version")
                if key in stored.files
            }
    except FileNotFoundError:
        return None
    except UNREADABLE as error:
        problem: str | None = f"unreadable ({type(error).__name__}: {error})"
    else:
        problem = _census_problem(census, record, qualifying)
    if problem is None:
        return census
    warn_cache(path, problem)
    return None


def _checksum(census: npt.NDArray[np.int32]) -> str:
    """The sha256 of a census's bytes (int32, little-endian), stored with it in the cache
    file and recorded per qualifier in census_reference."""
    return hashlib.sha256(np.ascontiguousarray(census, "<i4").data).hexdigest()


def _census_problem(
    census: npt.NDArray[np.int32], record: dict[str, Any], qualifying: int
) -> str | None:
    """Why a loaded census of `qualifying` cannot be used, or None: its form; the sha256
    stored with it (damage); what it says it is the census of; then what does not rest
    on the file: its invariants, the qualifier's among them (`census_violation`), and
    the census recorded for the qualifier (`_reference_problem`). A census whose sha256
    is the recorded one is that census, whose invariants tests/test_census_reference.py
    holds: the sha256 (0.05 s) is then the whole check; the invariants (0.06 s, and
    their per-situation tables 0.05 s on first use) run only for another census, to
    say what is wrong with it (docs/performance.md)."""
    if census.dtype != np.int32:
        return f"dtype {census.dtype}, not int32"
    shape = (symmetry().situations, kernel.USED_COLUMNS)
    if census.shape != shape:
        return f"shape {census.shape}, not {shape}"
    if "sha256" not in record:
        return "no sha256 stored with it"
    checksum = _checksum(census)
    if checksum != record["sha256"]:
        return "its sha256 does not match the one stored with it"
    if record.get("census_version") != CENSUS_VERSION:
        return f"census version {record.get('census_version')}, not {CENSUS_VERSION}"
    if "qualifying" not in record:
        return "it does not record which dealer qualifier it is the census of"
    if record["qualifying"] != qualifying:
        return (
            f"it says it is the census of dealer qualifier {_strength(record.get('qualifying'))}"
            f", not {_strength(qualifying)}"
        )
    reference = census_reference.BY_QUALIFYING.get(qualifying)
    if reference is not None and checksum == reference.sha256:
        return None  # the recorded census itself, whose invariants the tests hold
    return census_violation(census, qualifying) or _reference_problem(census, qualifying, checksum)


def _strength(qualifying: object) -> str:
    """A qualifier strength as profiles name it (`pair_of_fours`), else in hex."""
    if isinstance(qualifying, int) and qualifying in census_reference.BY_QUALIFYING:
        return census_reference.BY_QUALIFYING[qualifying].qualifier
    return hex(qualifying) if isinstance(qualifying, int) else "unrecorded"


def _reference_problem(
    census: npt.NDArray[np.int32], qualifying: int, checksum: str | None = None
) -> str | None:
    """How a census differs from the one census_reference records for its qualifier, or
    None (or when none is recorded: a qualifier no profile can name). The sha256 decides;
    the column totals, computed only then, say which counts moved."""
    reference = census_reference.BY_QUALIFYING.get(qualifying)
    if reference is None or (checksum or _checksum(census)) == reference.sha256:
        return None
    totals = symmetry().weight @ census.astype(np.int64)
    moved = [COLUMN_NAMES[i] for i, t in enumerate(totals) if t != reference.column_totals[i]]
    where = (
        f"its totals over all deals differ in {', '.join(moved)}"
        if moved
        else "its totals over all deals agree, but counts moved between situations"
    )
    return (
        f"not the census of {reference.qualifier} recorded in "
        f"harness/gamemath/census_reference.py: {where}"
    )


COLUMN_NAMES = (
    *(f"ante paid ({c.wire})" for c in Category),
    *(f"not beaten ({c.wire})" for c in (Category.HIGH_CARD, Category.PAIR)),
    "won",
    "lost",
)


# In how many deals (player hole, dealer hole, flop, turn and river: SITUATIONS x
# COMPLETIONS in all) one 7-card set is a given player's (or dealer's) seven cards:
# C(7,2) holes x C(5,3) flops of the other five x C(45,2) holes for the other player.
DEALS_PER_SEVEN_CARDS = 21 * 10 * 990  # SITUATIONS * COMPLETIONS = C(52,7) x this
# Deals where the player holds a royal flush that the board is not: 4,324 seven-card
# royal flushes, less the 4 royal boards x C(47,2) x C(45,2) holes x 10 flops of each.
ROYAL_FLUSH_WINS = 4324 * DEALS_PER_SEVEN_CARDS - 4 * 1081 * 990 * 10
# The published counts of the C(52,7) = 133,784,560 seven-card hands by best five-card
# category: the two a dealer's qualifier cuts, which `_seven_card_counts` counts again
# from the ranks and suits alone (tests/test_census_reference.py).
HIGH_CARD_HANDS = 23_294_460
ONE_PAIR_HANDS = 58_627_800
_STRAIGHTS = (
    *(frozenset(range(low, low + 5)) for low in range(9)),
    frozenset({12, 0, 1, 2, 3}),  # the wheel: A-2-3-4-5
)


def hands_below(qualifying: int) -> int | None:
    """How many seven-card hands are below a dealer qualifier of a pair (the weakest pair
    of a rank, harness/rules/evaluator.py `minimum_strength`): every high card, and every one
    pair of a lower rank. None for any other strength, which no profile names."""
    category, rank = qualifying >> CATEGORY_SHIFT, (qualifying >> 16) & 0xF
    weakest = (category << CATEGORY_SHIFT) | (rank << 16)
    if category != Category.PAIR or rank > 12 or qualifying != weakest:
        return None
    high_card, pairs = _seven_card_counts()
    return high_card + sum(pairs[:rank])


@cache
def _seven_card_counts() -> tuple[int, tuple[int, ...]]:
    """The seven-card hands whose best five are a high card, and a pair of each rank
    (deuces first), counted from ranks and suits, not by an evaluator: rank sets with no
    five in a row, times the suitings with no five of a suit. About 30 ms."""

    def straight(ranks: frozenset[int]) -> bool:
        return any(run <= ranks for run in _STRAIGHTS)

    def suitings(sizes: tuple[int, ...]) -> int:  # each rank's cards in distinct suits
        count = 0
        for choice in product(*(list(combinations(range(4), n)) for n in sizes)):
            per_suit = [0, 0, 0, 0]
            for suits in choice:
                for suit in suits:
                    per_suit[suit] += 1
            count += max(per_suit) < 5
        return count

    high = sum(not straight(frozenset(r)) for r in combinations(range(13), 7))
    high_card = high * suitings((1,) * 7)
    pair_suitings = suitings((2, 1, 1, 1, 1, 1))
    pairs = tuple(
        pair_suitings
        * sum(
            not straight(frozenset((*others, rank)))
            for others in combinations([r for r in range(13) if r != rank], 5)
        )
        for rank in range(13)
    )
    return high_card, pairs


def census_violation(census: npt.NDArray[np.int32], qualifying: int | None = None) -> str | None:
    """The first invariant a census (situations x USED_COLUMNS) breaks, or None; with
    `qualifying`, also the one that pins the census to that dealer qualifier.

    What the columns count (`kernel`): ANTE_PAID + category, completions whose ante
    the pay table settles (the dealer does not qualify, or the player wins); the two
    NQ_NOT_BEATEN columns, the high-card and pair ones of those where the dealer does
    not qualify and is not beaten; WON, the dealer qualifies and is beaten; LOST, the
    dealer qualifies and wins; pushes are the rest. So no exact total per situation:
    pushes are not counted. What holds, for every dealer qualifier:

    * every count is in 0..COMPLETIONS;
    * per situation, ante-settled + lost <= COMPLETIONS (pushes are not negative),
      not-beaten <= ante-settled for high card and for a pair, won <= ante-settled;
    * a category the hole and flop rule out has no completions: no high card once
      they hold a pair, nor a pair once they hold two pairs or trips, no full house
      or four of a kind from five different ranks, no flush without three of a suit;
    * over all deals (rows weighted by their (hole, flop) count): won by a royal
      flush, exactly ROYAL_FLUSH_WINS (it loses to nothing and ties only when it is
      the board); dealer does not qualify (ante-settled - won), a multiple of
      DEALS_PER_SEVEN_CARDS (it is a count of the dealer's seven cards); lost - won,
      the deals where the player qualifies and the dealer does not, in 0..that;
    * of the qualifier's census: the deals where the dealer does not qualify are
      exactly `hands_below(qualifying)` x DEALS_PER_SEVEN_CARDS (another qualifier's
      census differs by the one-pair hands of the ranks between, 4.47 to 4.57 million
      a rank, each in 207,900 deals).

    About 60 ms: the census is transposed once, block by block, so that each check
    reads a contiguous column.
    """
    if int(census.min()) < 0:
        return "a negative count"
    if int(census.max()) > kernel.COMPLETIONS:
        return f"a count above the {kernel.COMPLETIONS:,} completions of a situation"
    column = np.empty(census.shape[::-1], np.int32)
    for start in range(0, len(census), 4096):
        column[:, start : start + 4096] = census[start : start + 4096].T
    # No overflow in int32 from here: 14 x 1,070,190 < 2**31.
    ante = column[kernel.ANTE_PAID].copy()
    for category in range(1, len(Category)):
        ante += column[kernel.ANTE_PAID + category]
    won, lost = column[kernel.WON], column[kernel.LOST]
    if (ante + lost > kernel.COMPLETIONS).any():
        return "ante-settled and lost completions add up to more than all of them"
    for category in (Category.HIGH_CARD, Category.PAIR):
        if (column[kernel.NQ_NOT_BEATEN + category] > column[kernel.ANTE_PAID + category]).any():
            return f"more not-beaten than ante-settled completions for {category.name}"
    if (won > ante).any():
        return "more won than ante-settled completions"
    for where, columns, rule in _impossible_categories():
        held = column[columns[0]].copy()
        for other in columns[1:]:
            held |= column[other]  # nonzero where any of the columns is
        if held[where].any():
            return f"completions in a category ruled out by the hole and flop ({rule})"
    weight = symmetry().weight
    royal, won_all, lost_all, nq_all = (
        int(weight @ counts.astype(np.int64))
        for counts in (column[kernel.ANTE_PAID + Category.ROYAL_FLUSH], won, lost, ante - won)
    )
    if royal != ROYAL_FLUSH_WINS:
        return f"royal flush wins {royal:,}, not {ROYAL_FLUSH_WINS:,}, over all deals"
    if nq_all % DEALS_PER_SEVEN_CARDS:
        return "the deals where the dealer does not qualify are not a count of hands"
    below = None if qualifying is None else hands_below(qualifying)
    if below is not None and nq_all != below * DEALS_PER_SEVEN_CARDS:
        return (
            f"the dealer does not qualify with {nq_all // DEALS_PER_SEVEN_CARDS:,} seven-card "
            f"hands, not the {below:,} below {_strength(qualifying)}: another qualifier's census"
        )
    if not 0 <= lost_all - won_all <= nq_all:
        return "lost minus won is not between 0 and the deals the dealer does not qualify"
    return None


_Rule = tuple[npt.NDArray[np.bool_], tuple[int, ...], str]  # situations, columns, why


@cache
def _impossible_categories() -> tuple[_Rule, ...]:
    """(situations, census columns, why): the completions those columns count cannot
    happen in those situations, from the situation's five known cards."""
    cards = symmetry().cards.astype(np.uint8)  # (situations, 5): small types are quick
    one = np.uint16(1)
    ranks = np.zeros(len(cards), np.uint16)  # a bit per rank held
    suits = np.zeros(len(cards), np.uint16)  # four 4-bit counts, one per suit
    for card in cards.T:
        ranks |= np.left_shift(one, card >> 2, dtype=np.uint16)
        suits += np.left_shift(one, (card & 3) << 2, dtype=np.uint16)
    distinct = np.bitwise_count(ranks)
    three_of_a_suit = (suits + 0x5555) & 0x8888 != 0  # a 4-bit count of 3 to 5 carries
    paid, nq = kernel.ANTE_PAID, kernel.NQ_NOT_BEATEN
    high, pair = Category.HIGH_CARD, Category.PAIR
    full_house, quads = paid + Category.FULL_HOUSE, paid + Category.FOUR_OF_A_KIND
    flushes = tuple(
        paid + c for c in (Category.FLUSH, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH)
    )
    return (
        (distinct < 5, (paid + high, nq + high), "a pair: no high card"),
        (distinct < 4, (paid + pair, nq + pair), "two pairs or trips: no one pair"),
        (distinct == 5, (full_house, quads), "five ranks: no full house or four of a kind"),
        (~three_of_a_suit, flushes, "no three of a suit: no flush"),
    )


_WARNED: set[tuple[Path, str]] = set()


def warn_cache(path: Path, problem: str) -> None:
    """One line on stderr, once per file and problem, for a cache file not used."""
    if (path, problem) not in _WARNED:
        _WARNED.add((path, problem))
        print(f"chcert: cache file {path} not used, recomputing: {problem}", file=sys.stderr)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on a file, where the platform and the folder allow one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("a")
    except OSError:
        yield
        return
    with handle:
        try:
            import fcntl

            fcntl.flock(handle, fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass
        yield
