"""The round ids a log has met, kept on disk, so that memory stays bounded whatever the
log's size (docs/audit.md, Memory): a year of a large operator is some 3 x 10^8 rounds,
whose ids a set in memory would hold in tens of gigabytes.

Each round's id (its table and round) is hashed twice, 128 bits in all, and appended
with where it was read to one of PARTITIONS partitions by its hash (a file for each
partition and piece of the log: pieces judged at once write files of their own). At the
end each partition's files are read together (a 1/PARTITIONS share of the rounds: about
68 bytes a round), in the log's order, into a table by hash: a hash met twice is a round
id met again. The two hashes
are independent FNV-1a variants over the id's UTF-8 bytes (harness/audit/kernel.py);
two different ids colliding on both is a chance of about n^2 / 2^129, nothing at any
log's size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from harness.audit.kernel import hash_keys, prefixes, repeats, strings

PARTITIONS = 64
KEY_BYTES = 40  # the start of an id kept beside its hash, for a finding's example
RECORD = np.dtype(
    [("h1", "<u8"), ("h2", "<u8"), ("file", "<i4"), ("row", "<i8"),
     ("key", f"S{KEY_BYTES}")]
)  # fmt: skip


@dataclass(frozen=True)
class Repeat:
    """A round id met again: where it was met first and where again."""

    key: str  # its table and round, joined by a unit separator (cut at KEY_BYTES)
    first: tuple[int, int]  # (file index, row)
    again: tuple[int, int]


class RoundIds:
    """The round ids met so far, in partition files under `folder`."""

    def __init__(self, folder: Path, piece: int = 0) -> None:
        self.folder = folder
        self.piece = piece  # the piece of the log (harness/audit/pieces.py) met in
        self.files: dict[int, BinaryIO] = {}  # by partition, open while the piece is read

    def close(self) -> None:
        """The piece read: its partition files written out."""
        for file in self.files.values():
            file.close()
        self.files.clear()

    def add(self, keys: pa.Array, file: int, rows: npt.NDArray[np.int64]) -> None:
        """Rounds met, in order: their ids (text), the file they are in and each one's
        first row."""
        if not len(keys):
            return
        offsets, data = strings(keys)
        h1, h2 = hash_keys(offsets, data)
        records = np.empty(len(keys), RECORD)
        records["h1"], records["h2"] = h1, h2
        records["file"], records["row"] = file, rows
        records["key"] = prefixes(offsets, data, KEY_BYTES).view(f"S{KEY_BYTES}").ravel()
        part = (h1 % np.uint64(PARTITIONS)).astype(np.uint8)
        order = np.argsort(part, kind="stable")  # a radix sort, on bytes
        bounds = np.searchsorted(part[order], np.arange(PARTITIONS + 1))
        for p in map(int, np.flatnonzero(np.diff(bounds))):
            if p not in self.files:
                self.files[p] = (self.folder / f"ids-{p:03d}-{self.piece:06d}.bin").open("ab")
            self.files[p].write(records[order[bounds[p] : bounds[p + 1]]].tobytes())

    def repeated(self) -> Iterator[Repeat]:
        """Every id met more than once: each later meeting, beside the first."""
        self.close()
        for p in range(PARTITIONS):
            parts = sorted(self.folder.glob(f"ids-{p:03d}-*.bin"), key=_piece)
            if not parts:
                continue
            records = np.concatenate([np.fromfile(path, RECORD) for path in parts])
            for i, j in zip(*repeats(records["h1"], records["h2"]), strict=True):
                a, b = records[i], records[j]
                yield Repeat(
                    b["key"].decode("utf-8", "replace"),
                    (int(a["file"]), int(a["row"])),
                    (int(b["file"]), int(b["row"])),
                )


def _piece(path: Path) -> int:
    """A partition file's piece, the log's order of the files."""
    return int(path.stem.rsplit("-", 1)[1])
