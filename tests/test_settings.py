"""Each setting declared once (harness/run/settings.py): the command line, the plugin and a
reproduce command all take it from its declaration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import msgspec

from harness.run.settings import SETTINGS, RunSettings


def _settings(**given: object) -> RunSettings:
    values = {s.dest: [] if s.many else s.default for s in SETTINGS}
    return RunSettings.of({**values, "seed": 7, **given})


def test_the_typed_settings_are_the_declared_ones() -> None:
    """RunSettings has a field for each setting the plugin carries, of its declared type:
    what a worker receives is what the command line was parsed into."""
    fields = {f.name: f for f in msgspec.structs.fields(RunSettings)}
    assert set(fields) == {s.dest for s in SETTINGS if s.plugin}
    for setting in (s for s in SETTINGS if s.plugin):
        wanted = setting.type
        typed = fields[setting.dest].type
        if setting.many:
            assert typed == tuple[wanted, ...], setting.dest  # type: ignore[valid-type]
        else:
            assert typed in (wanted, wanted | None), setting.dest  # type: ignore[operator]
    settings = _settings(vectors=["a.yaml"], item=["s000-r1/x"])
    again = msgspec.json.decode(msgspec.json.encode(settings), type=RunSettings)
    assert again == settings and again.vectors == ("a.yaml",)


def test_a_reproduce_command_carries_what_differs_from_its_default() -> None:
    out = Path("/tmp/out")
    plain = _settings().reproduce("standard", out, "s000-r9/nq-pair")
    assert plain == (
        "chcert certify --adapter reference --profile standard --seed 7 "
        "--out /tmp/out/reproduce --item s000-r9/nq-pair"
    )
    changed = _settings(timeout=2.5, rng_decks=3000, differential=10, repeat=3)
    shown = changed.reproduce("standard", out, "s000-r9/nq-pair")
    assert "--timeout 2.5" in shown and "--repeat 3" in shown
    # a sample size only where the item draws that sample
    assert "--rng-decks" not in shown and "--differential" not in shown
    battery = changed.reproduce("standard", out, "s000-r1/rng-battery")
    assert "--rng-decks 3000" in battery
    whole = changed.reproduce("standard", out, None)
    assert "--rng-decks 3000" in whole and "--differential 10" in whole


def test_the_plugin_refuses_what_certify_refuses(tmp_path: Path) -> None:
    """`pytest --chcert-profile` alone holds its settings to the declared ranges too."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--chcert-profile",
               "standard", "--chcert-repeat", "0", "--chcert-out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "--repeat 0: a whole number from 1 to 100" in done.stderr
    assert not (tmp_path / "results.json").exists()
