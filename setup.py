"""The build hook that puts chcert's data into its wheel (docs/install.md).

The repository keeps its data beside the code, `specs/` and `vectors/` at the root, and
a source tree (a checkout, `pip install -e .`) reads it there (harness/paths.py). A wheel
holds only the package, so building one copies both folders into the built package as
`harness/_data/specs` and `harness/_data/vectors`, where harness/paths.py looks first.
A wheel built from the sdist (what `pip install git+URL` does) gets them the same way:
MANIFEST.in puts both folders in the sdist. An editable install copies nothing: it reads
the checkout's own files, so that an edited clause or vector takes effect at once.

It also builds the census kernel compiled ahead of time (KERNEL below, docs/install.md).
Everything else about the package is declared in pyproject.toml.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

SOURCE = Path(__file__).resolve().parent
DATA = ("specs", "vectors")  # folders at the root, copied whole: every file is data
BUNDLED = ("harness", "_data")  # where they go in the package: harness/paths.py BUNDLED_DIR


class BuildPyWithData(build_py):
    """build_py, then the data folders into the built package (never when editable)."""

    def _data_targets(self) -> list[tuple[Path, Path]]:
        if self.editable_mode:
            return []
        return [(SOURCE / name, Path(self.build_lib, *BUNDLED, name)) for name in DATA]

    def run(self) -> None:
        super().run()
        for source, target in self._data_targets():
            if not source.is_dir():
                raise FileNotFoundError(f"{source}: the package's data is missing from the tree")
            # Whole folders, replaced: a file deleted from the tree must not linger in build/.
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        """Every file the command builds, data included (`install --record` lists them)."""
        data = [
            str(target / path.relative_to(source))
            for source, target in self._data_targets()
            for path in sorted(source.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts
        ]
        return [*super().get_outputs(include_bytecode), *data]


# The census kernel compiled ahead of time (harness/gamemath/_kernel.c): optional, since
# harness/gamemath/kernel.py falls back to its numba twin where no C compiler is found.
KERNEL_SOURCE = "harness/gamemath/_kernel.c"
KERNEL = Extension(
    "harness.gamemath._kernel",
    [KERNEL_SOURCE],
    # The source's sha256, built in: harness/gamemath/kernel.py runs the binary only
    # while it matches the source beside it (an edited source not yet built is not).
    define_macros=[
        (
            "KERNEL_SOURCE_SHA256",
            f'"{hashlib.sha256((SOURCE / KERNEL_SOURCE).read_bytes()).hexdigest()}"',
        )
    ],
    extra_compile_args=["-O3"] if not sys.platform.startswith("win") else ["/O2"],
    optional=True,
)

setup(cmdclass={"build_py": BuildPyWithData}, ext_modules=[KERNEL])
