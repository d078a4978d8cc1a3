"""The build hook that puts chcert's data into its wheel (docs/install.md).

The repository keeps its data beside the code, `specs/` and `vectors/` at the root, and
a source tree (a checkout, `pip install -e .`) reads it there (harness/paths.py). A wheel
holds only the package, so building one copies both folders into the built package as
`harness/_data/specs` and `harness/_data/vectors`, where harness/paths.py looks first.
A wheel built from the sdist (what `pip install git+URL` does) gets them the same way:
MANIFEST.in puts both folders in the sdist. An editable install copies nothing: it reads
the checkout's own files, so that an edited clause or vector takes effect at once.

It also builds the code compiled ahead of time (EXTENSIONS below, docs/install.md).
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


# The code compiled ahead of time (harness/compiled.py, docs/install.md): each extension is
# optional, since harness/compiled.py runs its numba twin where no C compiler was found.
# Each is built with the sha256 of its sources, hashed in this order (compiled.SOURCES):
# harness/compiled.py trusts the binary only while it matches the sources beside it (an
# edited source not yet built is not).
EXTENSIONS = {
    "harness.gamemath._kernel": ("harness/gamemath/_kernel.c", "harness/rules/_evaluator.h"),
    "harness.rules._evaluator": ("harness/rules/_evaluator.c", "harness/rules/_evaluator.h"),
    "harness.differential._pools": ("harness/differential/_pools.c",),
}


def extension(name: str, sources: tuple[str, ...]) -> Extension:
    sha = hashlib.sha256(b"".join((SOURCE / source).read_bytes() for source in sources))
    return Extension(
        name,
        [sources[0]],
        depends=list(sources[1:]),
        define_macros=[("SOURCE_SHA256", f'"{sha.hexdigest()}"')],
        extra_compile_args=["-O3"] if not sys.platform.startswith("win") else ["/O2"],
        optional=True,
    )


setup(
    cmdclass={"build_py": BuildPyWithData},
    ext_modules=[extension(name, sources) for name, sources in EXTENSIONS.items()],
)
