"""The round ids a log has met, kept on disk, so that memory stays bounded whatever the
log's size (docs/audit.md, Memory): a year of a large operator is some 3 x 10^8 rounds,
whose ids a set in memory would hold in tens of gigabytes.

Each round's id (its table and round) is hashed twice, 128 bits in all, and appended
with where it was read to one of PARTITIONS files by its hash. At the end each file is
read alone (a 1/PARTITIONS share of the rounds: about 40 bytes a round) and sorted: a
hash met twice is a round id met again. The two hashes are independent FNV-1a variants
over the id's UTF-8 bytes, computed for a whole batch at once; two different ids
colliding on both is a chance of about n^2 / 2^129, nothing at any log's size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

PARTITIONS = 64
KEY_BYTES = 40  # the start of an id kept beside its hash, for a finding's example
RECORD = np.dtype(
    [("h1", "<u8"), ("h2", "<u8"), ("seq", "<i8"), ("file", "<i4"), ("row", "<i8"),
     ("key", f"S{KEY_BYTES}")]
)  # fmt: skip

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_OTHER_OFFSET = np.uint64(0x84222325CBF29CE4)
_OTHER_PRIME = np.uint64(0x00000100000001B3 ^ 0x5BD1E995 << 8)


def hashes(keys: npt.NDArray[np.bytes_]) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Two 64-bit hashes of each key (bytes), over its own length only."""
    keys = keys.astype(f"S{max(keys.dtype.itemsize, 1)}")  # a width of 0 views as nothing
    width = keys.dtype.itemsize
    data = (
        keys.view(np.uint8).reshape(len(keys), width)
        if width
        else np.zeros((len(keys), 0), np.uint8)
    )
    lengths = np.char.str_len(keys)
    h1 = np.full(len(keys), _FNV_OFFSET, np.uint64)
    h2 = np.full(len(keys), _OTHER_OFFSET, np.uint64)
    with np.errstate(over="ignore"):
        for j in range(width):
            inside = j < lengths
            byte = data[:, j].astype(np.uint64)
            h1 = np.where(inside, (h1 ^ byte) * _FNV_PRIME, h1)
            h2 = np.where(inside, (h2 ^ (byte + np.uint64(j))) * _OTHER_PRIME, h2)
    return h1, h2


@dataclass(frozen=True)
class Repeat:
    """A round id met again: where it was met first and where again."""

    key: str  # its table and round, joined by a unit separator (cut at KEY_BYTES)
    first: tuple[int, int]  # (file index, row)
    again: tuple[int, int]


class RoundIds:
    """The round ids met so far, in partition files under `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.seq = 0

    def add(self, keys: list[str], file: int, rows: npt.NDArray[np.int64]) -> None:
        """Rounds met, in order: their ids, the file they are in and each one's first row."""
        if not keys:
            return
        encoded = np.array([k.encode("utf-8") for k in keys], dtype=bytes)
        h1, h2 = hashes(encoded)
        records = np.empty(len(keys), RECORD)
        records["h1"], records["h2"] = h1, h2
        records["seq"] = self.seq + np.arange(len(keys))
        records["file"], records["row"] = file, rows
        records["key"] = encoded.astype(f"S{KEY_BYTES}")
        self.seq += len(keys)
        part = (h1 % np.uint64(PARTITIONS)).astype(np.int64)
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(PARTITIONS + 1))
        for p in range(PARTITIONS):
            chunk = records[order[bounds[p] : bounds[p + 1]]]
            if len(chunk):
                with (self.folder / f"ids-{p:03d}.bin").open("ab") as out:
                    out.write(chunk.tobytes())

    def repeated(self) -> Iterator[Repeat]:
        """Every id met more than once: each later meeting, beside the first."""
        for path in sorted(self.folder.glob("ids-*.bin")):
            records = np.fromfile(path, RECORD)
            records = records[np.lexsort((records["seq"], records["h2"], records["h1"]))]
            same = (records["h1"][1:] == records["h1"][:-1]) & (
                records["h2"][1:] == records["h2"][:-1]
            )
            index = np.arange(len(records))
            first_of_run = np.maximum.accumulate(np.where(np.r_[True, ~same], index, 0))
            for i in np.flatnonzero(same) + 1:
                a, b = records[first_of_run[i]], records[i]
                yield Repeat(
                    b["key"].decode("utf-8", "replace"),
                    (int(a["file"]), int(a["row"])),
                    (int(b["file"]), int(b["row"])),
                )
