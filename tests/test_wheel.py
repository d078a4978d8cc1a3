"""chcert installs like any tool: its wheel carries the data (docs/install.md).

Built by `python -m build`: the sdist from the checkout, then the wheel from the sdist, so
that both are checked to carry `specs/` and `vectors/`. It builds without isolation, from
the setuptools of this environment, so that it needs no network. The wheel goes into a
brand-new virtual environment outside the checkout, which sees this environment's installed
packages as its dependencies (offline too: the package index is not asked; that
pyproject.toml declares every package harness imports is tests/test_architecture.py's
business). That environment's chcert, run from a folder outside the checkout, then
certifies the bundled reference game.

The census is read from the cache this test session uses already (tests/conftest.py
computes it first): its key is a digest of the package's sources, the same bytes in the
wheel as in the checkout, so the installed chcert finds it (harness/gamemath/census.py).
It is the slow tier: building and installing take a minute.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness import compiled
from harness.paths import SPECS_DIR, VECTORS_DIR
from harness.results.build import tree_sha256

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 900  # seconds, for any one command: a hang fails the test, never CI as a whole


def _data_files() -> dict[str, bytes]:
    """Every file of the data, by its path from the root of the checkout."""
    return {
        path.relative_to(ROOT).as_posix(): path.read_bytes()
        for folder in (SPECS_DIR, VECTORS_DIR)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _run(
    args: list[str | Path], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )


@dataclass(frozen=True)
class Dist:
    """The sdist and the wheel built from it; the data they were built from, its files
    and its digests (results.json's manifest.spec_sha256 and manifest.vectors_sha256)."""

    sdist: Path
    wheel: Path
    data: dict[str, bytes]
    spec_sha256: str
    vectors_sha256: str


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    assert SPECS_DIR.parent == ROOT, "the tests run from a checkout (harness/paths.py)"
    out = tmp_path_factory.mktemp("dist")
    data = _data_files()  # taken first: the checkout may be edited meanwhile
    digests = tree_sha256(SPECS_DIR), tree_sha256(VECTORS_DIR)
    # The sdist is staged in the checkout (casino_holdem_cert-*/, then removed): two
    # pytest-xdist workers each running a test of this module would build at once and
    # remove each other's staging folder, so builds take turns under a lock beside the
    # workers' temporary folders.
    lock = tmp_path_factory.getbasetemp().parent / "chcert-wheel-build.lock"
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        built = _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT])
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return Dist(sdist, wheel, data, *digests)


@pytest.fixture(scope="module")
def venv(dist: Dist, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment, outside the checkout, with the wheel installed."""
    home = tmp_path_factory.mktemp("venv") / "env"
    assert ROOT not in home.parents
    made = _run([sys.executable, "-m", "venv", home])
    assert made.returncode == 0, made.stderr
    python = home / "bin" / "python"
    # This environment's packages, as the new one's dependencies: a path file adds their
    # folders after its own site-packages, and no .pth file in them runs (the editable
    # install of the checkout among them), so `harness` is the wheel's.
    site = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (Path(site.stdout.strip()) / "outer-packages.pth").write_text("\n".join(sorted(ours)) + "\n")
    offline = ["--no-index", "--no-deps", "--ignore-installed"]
    installed = _run(
        [python, "-m", "pip", "install", "--quiet", *offline, dist.wheel], env=_env(home)
    )
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    return home


def _env(home: Path) -> dict[str, str]:
    """This process's environment with the new venv in place of the one running the tests;
    nothing points back to the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}
    outer = Path(sys.prefix) / "bin"
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p) != outer]
    env["PATH"] = os.pathsep.join([str(home / "bin"), *path])
    env["VIRTUAL_ENV"] = str(home)
    return env


def test_the_sdist_and_the_wheel_carry_every_data_file(dist: Dist) -> None:
    data = dist.data
    assert len(data) > 30 and "vectors/generated/standard.json" in data
    with tarfile.open(dist.sdist) as tar:
        prefix = tar.getnames()[0].split("/")[0]
        for name, contents in data.items():
            member = tar.extractfile(f"{prefix}/{name}")
            assert member is not None and member.read() == contents, name
        assert f"{prefix}/setup.py" in tar.getnames()  # the hook the wheel is built with
        for sources in compiled.SOURCES.values():  # what setup.py builds the extensions from
            assert {f"{prefix}/harness/{source}" for source in sources} <= set(tar.getnames())
    with zipfile.ZipFile(dist.wheel) as whl:
        bundled = {n for n in whl.namelist() if n.startswith("harness/_data/")}
        assert bundled == {f"harness/_data/{name}" for name in data}
        for name, contents in data.items():
            assert whl.read(f"harness/_data/{name}") == contents, name
        for name, sources in compiled.SOURCES.items():
            binary = name.replace(".", "/") + "."
            built = [n for n in whl.namelist() if n.startswith(binary)]
            assert any(n.endswith((".so", ".pyd")) for n in built), f"{name} compiled"
            # its sources too: the census cache key hashes them, and an extension runs only
            # while it was built from them (harness/compiled.py)
            assert {f"harness/{source}" for source in sources} <= set(whl.namelist())


def test_the_installed_chcert_certifies_from_anywhere(
    dist: Dist, venv: Path, tmp_path: Path
) -> None:
    env = _env(venv)
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    where = _run(
        [
            venv / "bin" / "python",
            "-c",
            "import harness, harness.paths as p; print(harness.__file__); print(p.DATA_ROOT)",
        ],
        cwd=cwd,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    module, data_root = (Path(line).resolve() for line in where.stdout.split())
    assert venv.resolve() in module.parents and ROOT not in module.parents
    assert data_root == module.parent / "_data"

    chcert = venv / "bin" / "chcert"
    checked = _run([chcert, "vectors", "check"], cwd=cwd, env=env)
    assert checked.returncode == 0 and checked.stdout.rstrip().endswith("OK"), (
        checked.stdout[-3000:] + checked.stderr[-3000:]
    )

    # the register's migrations travel in the package (harness/register/migrations/)
    made = _run([chcert, "register", "init", "--register", tmp_path / "reg.db"], cwd=cwd, env=env)
    assert made.returncode == 0 and "created (schema r0002)" in made.stdout, made.stderr

    out = tmp_path / "out"
    run = _run([chcert, "certify", "--out", out, "--seed", "7"], cwd=cwd, env=env)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert (out / "report.pdf").stat().st_size > 0 and (out / "junit.xml").stat().st_size > 0
    # The run read the installed copy of the data: the checkout's, byte for byte.
    assert results["manifest"]["spec_sha256"] == dist.spec_sha256
    assert results["manifest"]["vectors_sha256"] == dist.vectors_sha256
    # A fair shuffle fails the two-stage RNG battery at most once in 20,000 runs by design
    # (docs/verdict.md): no confirmation by hand.
    assert run.returncode == 0 and results["verdict"] == "PASS", (
        run.stdout[-3000:] + run.stderr[-3000:]
    )
    assert results["vectors"]["passed"] == results["vectors"]["total"] > 50
    assert results["corpus"]["ran"] == results["corpus"]["vectors"] > 1000
