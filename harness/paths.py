"""Where chcert's data lives: the one place that decides (docs/install.md).

chcert reads its clause catalogs, profiles and JSON schemas (`specs/`) and its vectors
(`vectors/`) as files, and must read the same files however it was installed:

- from a source tree (a checkout, `pip install -e .`): the checkout's `specs/` and
  `vectors/`, beside `harness/`, so that an edited clause or vector takes effect at once;
- from a wheel (built directly or through the sdist, as `pip install git+URL` does): the
  copies that the build put inside the package, `harness/_data/specs` and
  `harness/_data/vectors` (setup.py copies them; the package has no other way to reach
  a repository it was built from).

Every module that reads data takes its folder from here, never from its own `__file__`.
The folders are resolved (no symlinks): the plugin gives them to pytest as the paths to
collect (harness/run/plugin.py) and the worker recognises collected files by them
(harness/run/controller.py), so both must spell a folder alike.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
"""The installed `harness` package itself (its sources key the census cache)."""

BUNDLED_DIR = PACKAGE_DIR / "_data"
"""Where a wheel carries the data; a source tree never has it (builds write to build/)."""


def _data_root() -> Path:
    """The folder holding `specs/` and `vectors/`: the wheel's copy when there is one,
    else the source tree the package sits in."""
    if (BUNDLED_DIR / "specs").is_dir():
        return BUNDLED_DIR
    return PACKAGE_DIR.parent


DATA_ROOT = _data_root()
"""The folder holding `specs/` and `vectors/`; also pytest's rootdir in a certification
run, so that item node ids read `specs/clauses/...` and `vectors/...` either way."""

SPECS_DIR = DATA_ROOT / "specs"
"""Clause catalogs (clauses/), profiles (profiles/), JSON schemas (schemas/)."""

VECTORS_DIR = DATA_ROOT / "vectors"
"""Settlement vectors, refusals/ and the generated corpus (generated/)."""


def verify_regular(path: Path) -> None:
    """OSError unless `path` is a regular file, before anything opens it: a FIFO would wait
    for a writer for ever and a device never end (EINVAL), and a folder is no file
    (IsADirectoryError); a missing file is FileNotFoundError, as ever."""
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file (a FIFO or a device is never read)")


def read_input(path: Path) -> bytes:
    """The bytes of a file chcert was given to read (verify_regular first), or OSError."""
    verify_regular(path)
    return path.read_bytes()


def output_problem(
    path: Path, reserved: Iterable[Path], reader: str = "this command"
) -> str | None:
    """Why `path` cannot take an output a user named (--junitxml, --summary-md), checked
    before anything runs, or None: it is one of `reserved` (a file the command reads,
    by any name: a symlink or a hard link to it too), lies in chcert's own data (the
    catalogs, profiles, schemas and vectors every run reads), is a folder, in a folder
    that does not exist, or not writable. The file itself may not exist yet."""
    if _same_file(path, reserved):
        return f"is a file {reader} reads"
    if in_data(path) or (path.exists() and _same_file(path, _data_files())):
        return f"is in chcert's own data, which {reader} reads"
    if path.is_dir():
        return "is a folder"
    if not path.parent.is_dir():
        return f"the folder {path.parent} does not exist"
    if path.exists():
        writable = os.access(path, os.W_OK)
    else:
        writable = os.access(path.parent, os.W_OK | os.X_OK)
    return None if writable else "cannot be written"


def in_data(path: Path) -> bool:
    """Whether `path` is, or lies in, chcert's own data folders (specs/, vectors/), which
    every run reads and no output may touch."""
    target = path.resolve()
    return any(folder == target or folder in target.parents for folder in (SPECS_DIR, VECTORS_DIR))


def _data_files() -> list[Path]:
    return [p for folder in (SPECS_DIR, VECTORS_DIR) for p in folder.rglob("*") if p.is_file()]


def _same_file(path: Path, others: Iterable[Path]) -> bool:
    """Whether `path` names one of `others`: the same resolved path, or, for files that
    exist, the same file (device and inode: a hard link is another name for it)."""
    try:
        mine = path.stat()
    except OSError:
        mine = None
    for other in others:
        if other.resolve() == path.resolve():
            return True
        try:
            theirs = other.stat()
        except OSError:
            continue
        if mine is not None and (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino):
            return True
    return False
