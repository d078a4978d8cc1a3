"""A certification runs on its own pytest plugins only, never on one the machine has
installed (harness/cli/certify.py): the controller's and every worker's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PLUGIN = """
import os


def pytest_configure(config):
    marker = os.environ["MACHINE_PLUGIN_MARKER"]
    with open(marker, "a", encoding="utf-8") as file:
        file.write("loaded\\n")
"""


def _machine_plugin(root: Path) -> None:
    """A pytest plugin installed as any would be: a module and its entry point."""
    (root / "machine_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = root / "machine_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: machine-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\nmachine = machine_plugin\n")


def test_a_plugin_the_machine_installed_has_no_say_in_a_certification(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _machine_plugin(site)
    marker = tmp_path / "marker"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        "MACHINE_PLUGIN_MARKER": str(marker),
    }
    # The plugin is installed: a plain pytest run loads it.
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "--co", "-q", str(tmp_path / "none")],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert marker.read_text(encoding="utf-8") == "loaded\n", plain.stdout + plain.stderr
    marker.unlink()
    command = [sys.executable, "-m", "harness.cli", "certify", "--out", str(tmp_path / "out")]
    command += ["--seed", "7", "-n", "2", "-k", "declared-qualifier or declared-limits"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr  # a selection: INCOMPLETE
    assert (tmp_path / "out" / "results.json").is_file()
    assert not marker.exists(), "a plugin of the machine's ran in the certification"
