"""The CI examples of examples/ci/ run as written, so that they cannot drift (docs/ci.md).

The shell commands of each example's chcert steps are read from its YAML (`run:` of the
GitHub steps, `script:` of the GitLab job) and run in order with bash in a temporary
workspace. Only the install and cache steps are skipped, and the test asserts that they
are only that. The examples take their settings from variables; the test sets two of
them: CHCERT_ARGS to a small `-k` selection for speed (so certify must exit 2: a
selection is never a certificate, and a real pipeline fails on it), and CHCERT_CACHE to
the harness's own warm cache (cold, the mathematics takes a minute). The slow test runs
the examples as a vendor would, in full, and they pass.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.gamemath.census import cache_dir
from tests.games import served
from tests.results import load_results

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "ci"
QUICK = "-k s000-r12"  # the tie vectors of one clause: about 8 s, and INCOMPLETE (exit 2)
ARTIFACTS = ("reports/results.json", "reports/junit.xml", "reports/report.pdf")
ACTIONS = {  # the only steps of the GitHub example that are not shell commands
    "actions/checkout",
    "actions/setup-python",
    "actions/cache/restore",
    "actions/cache/save",
    "actions/upload-artifact",
}
INSTALL = re.compile(r"python -m pip install \S")
EXIT_PASS, EXIT_FAIL, EXIT_INCOMPLETE = 0, 1, 2


@dataclass(frozen=True)
class Pipeline:
    """What an example runs: its variables, and the shell scripts of its chcert steps in
    order (GitHub: one per step, each its own shell; GitLab: the job's script, one shell)."""

    variables: dict[str, str]
    scripts: list[str]
    raw: dict[str, Any]


def _commands(script: str) -> list[str]:
    """The command lines of a script, continued lines joined, comments and blanks left out."""
    lines = (line.strip() for line in script.replace("\\\n", " ").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _only_installs(script: str) -> bool:
    return all(INSTALL.match(line) for line in _commands(script))


def _github() -> Pipeline:
    workflow = yaml.safe_load((EXAMPLES / "github-actions.yml").read_text())
    assert workflow["defaults"]["run"]["shell"] == "bash"  # bash -eo pipefail, as run here
    (job,) = workflow["jobs"].values()
    scripts = []
    for step in job["steps"]:
        if "uses" in step:
            assert "run" not in step and step["uses"].split("@")[0] in ACTIONS, step
        elif _only_installs(step["run"]):
            continue
        else:
            assert "${{" not in step["run"], "values reach a run: step through env:, as here"
            scripts.append(step["run"])
    return Pipeline({k: str(v) for k, v in workflow["env"].items()}, scripts, workflow)


def _gitlab() -> Pipeline:
    config = yaml.safe_load((EXAMPLES / "gitlab-ci.yml").read_text())
    job = config["chcert"]
    assert _only_installs("\n".join(job["before_script"]))
    assert set(job) <= {"image", "variables", "cache", "before_script", "script", "artifacts"}
    return Pipeline(
        {k: str(v) for k, v in job["variables"].items()}, ["\n".join(job["script"])], job
    )


def _environment(pipeline: Pipeline, work: Path, **values: str) -> dict[str, str]:
    """The pipeline's variables as its CI system would set them in `work`, with `values`
    in place of theirs, and the chcert of this checkout's environment on PATH."""
    ci = {"CI_PROJECT_DIR": str(work)}  # GitLab's; GitHub's ${{ github.workspace }} below
    env = dict(os.environ)
    for name, value in pipeline.variables.items():
        value = value.replace("${{ github.workspace }}", str(work))
        env[name] = re.sub(r"\$\{?(\w+)\}?", lambda m: ci.get(m[1], env.get(m[1], "")), value)
    chcert = shutil.which("chcert") or shutil.which("chcert", path=str(Path(sys.executable).parent))
    assert chcert, "chcert is not installed in this environment (pip install -e .)"
    env["PATH"] = f"{Path(chcert).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)  # the slow test's game is tests.games:Seeded
    return {**env, **values}


def _bash(script: str, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A script as GitHub's `shell: bash` and GitLab's runner run it: stop at the first error."""
    argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script]
    return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=900)


def _regressed_baseline(results_json: Path, baseline: Path) -> None:
    """A baseline the run fell short of: a clause the run did not test, passed there."""
    results = json.loads(results_json.read_text())
    clause = next(c for c in results["clauses"] if c["id"] == "s000-r1")
    assert clause["status"] == "not_tested"  # left out by the selection
    clause["status"] = "pass"
    for item in clause["items"]:
        item.update(status="pass", message="", needs="")
    baseline.parent.mkdir(parents=True, exist_ok=True)
    baseline.write_text(json.dumps(results))


def _workspace(tmp_path: Path, pipeline: Pipeline) -> tuple[Path, Path]:
    work = tmp_path / "workspace"
    work.mkdir()
    return work, work / pipeline.variables["CHCERT_BASELINE"]


def _said(result: subprocess.CompletedProcess[str]) -> str:
    return f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"


def test_the_examples_keep_their_reports_and_cache_whatever_the_verdict() -> None:
    """What the test cannot run: the CI systems' own keys for artifacts and caches."""
    gh, gl = _github(), _gitlab()
    for pipeline in (gh, gl):
        assert pipeline.variables["CHCERT_ARGS"] == ""  # no selection by default
        assert pipeline.variables["CHCERT_ADAPTER"] == "reference"
        assert re.fullmatch(r"\d+", pipeline.variables["CHCERT_SEED"])
        (certify,) = [line for s in pipeline.scripts for line in _commands(s) if "certify" in line]
        words = shlex.split(certify)
        assert words[:2] == ["chcert", "certify"] and "--out reports" in " ".join(words)
        assert not {"-k", "--item", "-m"} & set(words)  # a selection is never a certificate
    steps = {s.get("name", s.get("uses")): s for s in next(iter(gh.raw["jobs"].values()))["steps"]}
    assert gh.variables["CHCERT_CACHE"] == "${{ github.workspace }}/.chcert-cache"
    for name in ("Restore the mathematics cache", "Save the mathematics cache"):
        assert steps[name]["with"]["path"] == "${{ env.CHCERT_CACHE }}"
    assert "always()" in steps["Save the mathematics cache"]["if"]
    keep = steps["Keep the reports"]
    assert keep["if"] == "always()" and keep["uses"].startswith("actions/upload-artifact@")
    assert set(keep["with"]["path"].split()) == set(ARTIFACTS)
    assert steps["Compare with the baseline"]["if"] == "${{ !cancelled() }}"  # after a FAIL too
    assert gl.variables["CHCERT_CACHE"] == "$CI_PROJECT_DIR/.chcert-cache"
    assert gl.raw["cache"]["paths"] == [".chcert-cache/"] and gl.raw["cache"]["when"] == "always"
    artifacts = gl.raw["artifacts"]
    assert artifacts["when"] == "always" and set(artifacts["paths"]) == set(ARTIFACTS)
    assert artifacts["reports"]["junit"] == "reports/junit.xml"


@pytest.mark.slow  # the CI examples
def test_the_github_actions_example_gates(tmp_path: Path) -> None:
    pipeline = _github()
    work, baseline = _workspace(tmp_path, pipeline)
    env = _environment(pipeline, work, CHCERT_ARGS=QUICK, CHCERT_CACHE=str(cache_dir()))
    certify, compare = pipeline.scripts

    done = _bash(certify, work, env)
    assert done.returncode == EXIT_INCOMPLETE, _said(done)  # a selection fails the job
    assert all((work / path).stat().st_size > 0 for path in ARTIFACTS)
    results = load_results(work / "reports")
    assert results["verdict"] == "INCOMPLETE" and results["selection"]["expressions"] == {
        "-k": "s000-r12"
    }

    done = _bash(compare, work, env)
    assert done.returncode == 0 and "no baseline at chcert/baseline.json" in done.stdout

    baseline.parent.mkdir()
    shutil.copy(work / "reports" / "results.json", baseline)
    done = _bash(compare, work, env)
    assert done.returncode == 0 and "no change" in done.stdout, _said(done)

    _regressed_baseline(work / "reports" / "results.json", baseline)
    done = _bash(compare, work, env)
    assert done.returncode == EXIT_FAIL, _said(done)
    assert "REGRESSED" in done.stdout and "clause s000-r1 (" in done.stdout


@pytest.mark.slow  # the CI examples
def test_the_gitlab_example_gates(tmp_path: Path) -> None:
    pipeline = _gitlab()
    work, baseline = _workspace(tmp_path, pipeline)
    env = _environment(pipeline, work, CHCERT_ARGS=QUICK, CHCERT_CACHE=str(cache_dir()))
    (script,) = pipeline.scripts

    # No baseline: the job ends with certify's own exit code, after the comparison step.
    done = _bash(script, work, env)
    assert done.returncode == EXIT_INCOMPLETE, _said(done)
    assert "no baseline at chcert/baseline.json" in done.stdout
    assert all((work / path).stat().st_size > 0 for path in ARTIFACTS)

    _regressed_baseline(work / "reports" / "results.json", baseline)
    done = _bash(script, work, env)
    assert done.returncode == EXIT_FAIL, _said(done)
    assert "REGRESSED" in done.stdout and "clause s000-r1 (" in done.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_examples_pass_a_correct_game_in_full(tmp_path: Path) -> None:
    """No selection: a correct game is certified (exit 0) by both examples, and the second
    run, the first as its baseline, shows no change. The game deals from a seeded
    generator, so the RNG battery cannot fail it by chance (tests/games.py)."""
    game = served("Seeded", "standard")  # a subprocess adapter: quoted as the examples do
    github, gitlab = _github(), _gitlab()
    work, baseline = _workspace(tmp_path, github)
    env = _environment(github, work, CHCERT_ADAPTER=game, CHCERT_CACHE=str(cache_dir()))
    certify, compare = github.scripts
    done = _bash(certify, work, env)
    assert done.returncode == EXIT_PASS, _said(done)
    baseline.parent.mkdir()
    shutil.copy(work / "reports" / "results.json", baseline)
    assert _bash(compare, work, env).returncode == 0

    env = _environment(gitlab, work, CHCERT_ADAPTER=game, CHCERT_CACHE=str(cache_dir()))
    done = _bash(gitlab.scripts[0], work, env)
    assert done.returncode == EXIT_PASS, _said(done)
    assert "no change" in done.stdout
    assert load_results(work / "reports")["verdict"] == "PASS"
