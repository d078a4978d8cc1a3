"""Files written whole or not at all (harness/atomic.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from harness.atomic import atomic_path, copy_atomic, write_bytes_atomic


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_a_file_is_written_with_the_mode_the_umask_allows(tmp_path: Path) -> None:
    target = tmp_path / "new" / "results.json"  # its folder made too
    write_bytes_atomic(target, b"{}\n")
    assert target.read_bytes() == b"{}\n"
    assert _mode(target) == 0o666 & ~_umask()  # not mkstemp's 0600
    assert [p.name for p in target.parent.iterdir()] == ["results.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "census.npz"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_bytes(b"half")
        raise RuntimeError("killed midway")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["census.npz"]


def test_a_write_may_keep_a_mode_and_a_copy_keeps_its_source_s(tmp_path: Path) -> None:
    kept = tmp_path / "report.pdf"
    write_bytes_atomic(kept, b"%PDF-", 0o640)
    assert _mode(kept) == 0o640
    copy = tmp_path / "out" / "report.pdf"
    copy_atomic(kept, copy)
    assert copy.read_bytes() == b"%PDF-" and _mode(copy) == 0o640
