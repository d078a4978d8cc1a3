"""The round ids a log has met, kept on disk, so that memory stays bounded whatever the
log's size (docs/audit.md, Memory): a year of a large operator is some 3 x 10^8 rounds,
whose ids a set in memory would hold in tens of gigabytes.

Each round's id (its table and round) is hashed twice, 128 bits in all, and kept with
where it was read (not the id itself: a finding's examples read theirs from the log
again, harness/audit/log.py `keys_at`); a piece of the log (harness/audit/pieces.py)
writes what it keeps, 32 bytes a round, as a file grouped into PARTITIONS partitions by
the first hash
(pieces judged at once write files of their own, a file at least a piece). At the end
each partition is read from every file together (a 1/PARTITIONS share of the rounds),
in the log's order, into a table by hash: a hash met twice is a round id met again. The
two hashes are independent FNV-1a variants over the id's UTF-8 bytes
(harness/audit/kernel.py); two different ids colliding on both is a chance of about
n^2 / 2^129, nothing at any log's size.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from harness.atomic import atomic_path
from harness.audit.kernel import id_records, repeats, strings

PARTITIONS = 64
CHUNK_RECORDS = 1 << 18  # a piece's records kept in memory (some 8 MB) before a file
# A record: 64-bit little-endian words as the compiled loop writes them (kernel.py
# `id_records`).
RECORD = np.dtype([("h1", "<u8"), ("h2", "<u8"), ("row", "<i8"), ("file", "<i8")])
if sys.byteorder != "little":
    raise ImportError("the audit's round ids are written as a little-endian machine's words")


@dataclass(frozen=True)
class Repeat:
    """A round id met again: where it was met first and where again."""

    first: tuple[int, int]  # (file index, row)
    again: tuple[int, int]


class RoundIds:
    """The round ids met so far, in files under `folder`: a piece's records are kept in
    memory up to CHUNK_RECORDS, then written as one file grouped by partition."""

    def __init__(self, folder: Path, piece: int = 0) -> None:
        self.folder = folder
        self.piece = piece  # the piece of the log (harness/audit/pieces.py) met in
        self.kept: list[tuple[npt.NDArray[np.void], npt.NDArray[np.int64]]] = []
        self.count = 0  # records kept
        self.chunks = 0  # files written

    def close(self) -> None:
        """The records kept written out: the partitions' bounds, then the records in
        partition order (the log's order within each)."""
        if not self.kept:
            return
        sizes = sum(np.diff(bounds) for _, bounds in self.kept)
        path = self.folder / f"ids-{self.piece:06d}-{self.chunks:06d}.bin"
        # whole or not at all: a piece a cluster runs twice at once writes its files twice
        with atomic_path(path) as temporary, temporary.open("wb") as file:
            file.write(np.append(0, np.cumsum(sizes)).astype("<i8").tobytes())
            for p in range(PARTITIONS):
                for records, bounds in self.kept:
                    file.write(records[bounds[p] : bounds[p + 1]].data)  # no copy
        self.kept, self.count = [], 0
        self.chunks += 1

    def add(
        self, names: pa.Array, table: npt.NDArray[np.int64], ids: pa.Array,
        first: npt.NDArray[np.int64], file: int, rows: npt.NDArray[np.int64],
    ) -> None:  # fmt: skip
        """Rounds met, in order: each one's table (a code into the text array `names`),
        its first row among the text array `ids` of the round ids, the file they are in
        and each one's first row's number in it."""
        if not len(first):
            return
        words, bounds = id_records(
            table, *strings(names), *strings(ids), first, rows, file, PARTITIONS
        )
        records = words.view(RECORD).ravel()
        self.kept.append((records, bounds))
        self.count += len(records)
        if self.count >= CHUNK_RECORDS:
            self.close()

    def repeated(self, partitions: range = range(PARTITIONS)) -> Iterator[Repeat]:
        """Every id of the `partitions` met more than once: each later meeting, beside the
        first (in the log's order within a partition, not across them). Partitions are
        apart: processes may read a share each."""
        self.close()
        paths = sorted(self.folder.glob("ids-*.bin"), key=_place)  # the log's order
        if not paths:
            return
        bounds = [np.fromfile(path, "<i8", PARTITIONS + 1) for path in paths]
        for p in partitions:
            records = np.empty(sum(int(at[p + 1] - at[p]) for at in bounds), RECORD)
            done = 0
            for path, at in zip(paths, bounds, strict=True):
                size = int(at[p + 1] - at[p])
                _read(path, int(at[p]), records[done : done + size])
                done += size
            for i, j in zip(*repeats(records["h1"], records["h2"]), strict=True):
                a, b = records[i], records[j]
                yield Repeat((int(a["file"]), int(a["row"])), (int(b["file"]), int(b["row"])))


def _read(path: Path, start: int, into: npt.NDArray[np.void]) -> None:
    """A file's records from `start` on, as many as `into` holds, read into it (not
    mapped: a mapped page a process has read counts in its resident memory)."""
    with path.open("rb") as file:
        file.seek((PARTITIONS + 1) * 8 + start * RECORD.itemsize)
        if file.readinto(into.view(np.uint8).data) != into.nbytes:
            raise OSError(f"{path}: its round ids end early")


def _place(path: Path) -> tuple[int, int]:
    """A file's place in the log: its piece, then its order in the piece."""
    piece, chunk = path.stem.split("-")[1:]
    return int(piece), int(chunk)
