"""Files written whole or not at all: a temporary file beside the target, renamed onto it.

A reader, or a run killed midway, sees the old file or the new one, never half of one:
a rename within a folder is atomic, which is why the temporary file is made beside its
target and not in /tmp. It is made private (mkstemp's 0600) and given its mode only
once written: as the umask allows any new file, unless the caller says otherwise (a
copy keeps its source's). Should anything fail, it is removed and the target is as it
was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(path: Path, mode: int | None = None) -> Iterator[Path]:
    """A temporary path beside `path` for the caller to write, renamed onto `path` with
    `mode` (default: what the umask allows) when the block ends, removed if it raises."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        temporary.chmod(_umask_mode() if mode is None else mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def write_bytes_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """`data` written to `path` whole or not at all, with `mode` (default: the umask's)."""
    with atomic_path(path, mode) as temporary:
        temporary.write_bytes(data)


def copy_atomic(source: Path, target: Path) -> None:
    """`source` copied to `target` whole or not at all, keeping the source's mode (as the
    umask made it when the source was written)."""
    with atomic_path(target, stat.S_IMODE(source.stat().st_mode)) as temporary:
        shutil.copyfile(source, temporary)


def _umask_mode() -> int:
    """The mode a new file gets under this process's umask (read by setting it: the only
    way, and set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask
