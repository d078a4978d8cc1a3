"""The per-situation census: computed once per dealer qualifier, cached on disk.

Everything a pay table needs to price every decision is in the census (see
`kernel`); pricing another pay table for the same qualifier is a matrix-vector
product over 1,286,792 situations, well under a second.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from itertools import chain, combinations, permutations
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from harness.gamemath import kernel

CENSUS_VERSION = 1  # bump when the kernel's output changes meaning
Progress = Callable[[int, int], None]  # (boards done, boards in all)


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
    """The suit-symmetry tables: from the cache, else built (numpy, about a second)."""
    path = _cache_file("symmetry")
    try:
        with np.load(path) as stored:
            arrays = {name: stored[name] for name in _ARRAYS}
        return Symmetry(suit_permutations(), binomials(), **arrays)
    except (OSError, KeyError, ValueError, EOFError):
        pass
    sym = _build_symmetry()
    _save(path, "symmetry", **{name: getattr(sym, name) for name in _ARRAYS})
    return sym


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
    for p in range(24):
        rep = np.where(fixes[p][:, None], np.minimum(rep, pair_image[p][None, :]), rep)
    meets = (pair_cards[None, :, :, None] == canon_flops[:, None, None, :]).any(axis=(2, 3))
    is_rep = ~meets & (rep == holes)
    number = np.cumsum(is_rep.ravel()).reshape(is_rep.shape) - 1
    situation_of = np.where(meets, -1, np.take_along_axis(number, rep, axis=1)).astype(np.int32)
    flop_index, hole_index = np.nonzero(is_rep)
    cards = np.concatenate([pair_cards[hole_index], canon_flops[flop_index]], axis=1)

    weight = np.zeros(len(cards), np.int64)
    for chunk in np.array_split(np.arange(len(flops)), 8):  # 22,100 flops x 1,326 holes
        where = situation_of[flop_canon[chunk][:, None], pair_image[flop_perm[chunk]]]
        weight += np.bincount(where[where >= 0], minlength=len(cards))
    assert weight.sum() == kernel.SITUATIONS and weight.min() > 0
    return Symmetry(
        card_map, binom, flop_canon, flop_perm, canon_flops, situation_of, weight, cards
    )


def canonical_boards() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The 134,459 boards up to suit symmetry, with the size of each one's orbit.

    Two boards are one up to suits exactly when their four per-suit rank masks,
    sorted, agree: relabelling suits only permutes the masks.
    """
    flat = chain.from_iterable(combinations(range(52), 5))
    boards = np.fromiter(flat, np.int64, count=5 * 2_598_960).reshape(-1, 5)
    masks = np.zeros((len(boards), 4), np.int64)
    rows = np.arange(len(boards))
    for i in range(5):
        masks[rows, boards[:, i] & 3] |= 1 << (boards[:, i] >> 2)
    masks.sort(axis=1)
    keys = (masks[:, 0] << 39) | (masks[:, 1] << 26) | (masks[:, 2] << 13) | masks[:, 3]
    _, first, orbit = np.unique(keys, return_index=True, return_counts=True)
    order = np.argsort(first)  # neighbours share flops, so the census rows stay in cache
    return boards[first[order]], orbit[order].astype(np.int64)


def compute_census(qualifying: int, progress: Progress | None = None) -> npt.NDArray[np.int32]:
    """The census (situations x kernel.COLUMNS) for a dealer qualifier strength."""
    sym = symmetry()
    boards, orbit = canonical_boards()
    threads = max(1, min(_usable_cpus(), 16))  # each thread has its own 82 MB of sums
    done = np.zeros(threads, np.int64)
    accs = [np.zeros((sym.situations, kernel.COLUMNS), np.int32) for _ in range(threads)]
    shares = np.array_split(np.arange(len(boards)), threads)

    def run(slot: int) -> None:
        mine = shares[slot]
        kernel.census_chunk(
            boards[mine],
            orbit[mine],
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
    sums = np.zeros((sym.situations, kernel.COLUMNS), np.int64)
    for acc in accs:
        sums += acc
    census, remainder = np.divmod(sums, sym.weight[:, None])
    assert not remainder.any(), "orbit sums must divide exactly by the situation weights"
    settled = census[:, : kernel.NQ_NOT_BEATEN].sum(axis=1) + census[:, kernel.LOST]
    assert (settled <= kernel.COMPLETIONS).all()
    return census.astype(np.int32)


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


@cache
def _digest() -> str:
    """Of the kernel's and this module's source: editing either invalidates the cache."""
    source = Path(kernel.__file__).read_bytes() + Path(__file__).read_bytes()
    return f"v{CENSUS_VERSION}-{hashlib.sha256(source).hexdigest()[:12]}"


def _cache_file(kind: str) -> Path:
    """The cache file of a kind (`symmetry`, `census-qNNN`) for this code's digest."""
    return cache_dir() / f"{kind}-{_digest()}.npz"


def _save(path: Path, kind: str, **arrays: npt.NDArray[Any]) -> None:
    """Write a cache file atomically, removing older versions of its kind; a cache
    that cannot be written is no error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)
        for stale in path.parent.glob(f"{kind}-v*"):
            if stale.name not in (path.name, path.with_suffix(".lock").name):
                stale.unlink(missing_ok=True)
    except OSError:
        pass


_LOADED: dict[int, npt.NDArray[np.int32]] = {}


def load_census(qualifying: int, progress: Progress | None = None) -> npt.NDArray[np.int32]:
    """The census for a qualifier: from this process, the disk cache, or computed.

    Processes that need the same census at once (pytest-xdist workers) take turns on
    a lock file, so it is computed once. A cache that cannot be read or written is
    not an error: the census is computed.
    """
    if qualifying not in _LOADED:
        _LOADED[qualifying] = _load_or_compute(qualifying, progress)
    return _LOADED[qualifying]


def _load_or_compute(qualifying: int, progress: Progress | None) -> npt.NDArray[np.int32]:
    kind = f"census-q{qualifying:x}"
    path = _cache_file(kind)
    census = _read(path)
    if census is not None:
        return census
    with _locked(path.with_suffix(".lock")):
        census = _read(path)  # another process may have computed it meanwhile
        if census is not None:
            return census
        census = compute_census(qualifying, progress)[:, : kernel.USED_COLUMNS].copy()
        _save(path, kind, census=census)
    return census


def _read(path: Path) -> npt.NDArray[np.int32] | None:
    try:
        with np.load(path) as stored:
            census: npt.NDArray[np.int32] = stored["census"]
    except (OSError, KeyError, ValueError, EOFError):
        return None
    return census if census.shape == (symmetry().situations, kernel.USED_COLUMNS) else None


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
