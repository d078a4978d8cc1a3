"""The CI examples of examples/ci/ run as written, so that they cannot drift (docs/ci.md).

The shell commands of each example's chcert steps are read from its YAML (`run:` of the
GitHub steps, `script:` of the GitLab job) and run in order with bash in a temporary
workspace. Only the install and cache steps are skipped, and the test asserts that they
are only that. The examples take their settings from variables; the test sets some of
them: CHCERT_ARGS to a small `-k` selection for speed (so certify must exit 2: a
selection is never a certificate, and a real pipeline fails on it), CHCERT_CACHE to the
harness's own warm cache (cold, the mathematics takes about 10 s), GITHUB_STEP_SUMMARY as
GitHub would, and CHCERT_GAME_START with an http:// CHCERT_ADAPTER to serve the bundled
reference game over HTTP on a free loopback port, as a vendor's own build would be. The
slow test runs the examples as a vendor would, in full, and they pass.

What no bash run can show, the CI systems' own keys (caches, artifacts, timeouts, the
cancelling of superseded runs, the conditions on steps), is read from the YAML.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
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
GAME_LOG = "reports/game.log"  # the output of a game the pipeline started
SUMMARY = "reports/summary.md"  # GitLab's Markdown summary; GitHub's is $GITHUB_STEP_SUMMARY
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
    config: dict[str, Any]  # the whole file: the workflow's or pipeline's own keys


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
    return Pipeline({k: str(v) for k, v in workflow["env"].items()}, scripts, job, workflow)


GITLAB_JOB_KEYS = {"image", "variables", "cache", "before_script", "script", "artifacts"}


def _gitlab() -> Pipeline:
    config = yaml.safe_load((EXAMPLES / "gitlab-ci.yml").read_text())
    job = config["chcert"]
    assert _only_installs("\n".join(job["before_script"]))
    assert set(job) <= GITLAB_JOB_KEYS | {"interruptible", "timeout"}
    return Pipeline(
        {k: str(v) for k, v in job["variables"].items()}, ["\n".join(job["script"])], job, config
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


def _free_port() -> int:
    """A loopback port nothing listens on now (the game binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def _game(tmp_path: Path, command: str) -> Iterator[dict[str, str]]:
    """The variables that make an example's start step run `command` as the game, served
    at an http:// adapter on a free loopback port; the game is ended afterwards. The
    command appends its pid to a file first (`exec` keeps the pid), so the test ends
    only the processes it started, each by its id, however often a pipeline started one."""
    pids = tmp_path / "game.pids"
    port = _free_port()
    start = f"echo $$ >> {shlex.quote(str(pids))}; exec {command.format(port=port)}"
    try:
        yield {"CHCERT_GAME_START": start, "CHCERT_ADAPTER": f"http://127.0.0.1:{port}/chcert"}
    finally:
        for pid in pids.read_text().split() if pids.exists() else []:
            _end(int(pid), shlex.split(command)[0])
        pids.unlink(missing_ok=True)


def _end(pid: int, program: str) -> None:
    """End a game the test started, unless it exited already (its step said so) and its
    pid now names another program."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return  # gone
    except OSError:
        argv = [program.encode()]  # no /proc to read: the pid is the one it wrote
    if program.encode() in argv:
        os.kill(pid, signal.SIGTERM)


REFERENCE_OVER_HTTP = f"{shlex.quote(sys.executable)} -m harness.reference --http {{port}}"


def _start_step(pipeline: Pipeline) -> str:
    """The script that starts the game: GitHub's step of its own, GitLab's first entry."""
    if "steps" in pipeline.raw:
        (step,) = [s for s in pipeline.raw["steps"] if s.get("name") == "Start the game"]
        assert step["run"] == pipeline.scripts[0]  # the first step after the install
        return str(step["run"])
    return str(pipeline.raw["script"][0])


def _steps(pipeline: Pipeline) -> dict[str, dict[str, Any]]:
    return {s.get("name", s.get("uses")): s for s in pipeline.raw["steps"]}


def test_the_examples_keep_their_reports_and_cache_whatever_the_verdict() -> None:
    """What the test cannot run: the CI systems' own keys for artifacts and caches."""
    gh, gl = _github(), _gitlab()
    for pipeline in (gh, gl):
        assert pipeline.variables["CHCERT_ARGS"] == ""  # no selection by default
        assert pipeline.variables["CHCERT_ADAPTER"] == "reference"
        assert pipeline.variables["CHCERT_GAME_START"] == ""  # no game to start by default
        assert re.fullmatch(r"\d+", pipeline.variables["CHCERT_SEED"])
        (certify,) = [line for s in pipeline.scripts for line in _commands(s) if "certify" in line]
        words = shlex.split(certify)
        assert words[:2] == ["chcert", "certify"] and "--out reports" in " ".join(words)
        assert not {"-k", "--item", "-m"} & set(words)  # a selection is never a certificate
    steps = _steps(gh)
    assert gh.variables["CHCERT_CACHE"] == "${{ github.workspace }}/.chcert-cache"
    for name in ("Restore the mathematics cache", "Save the mathematics cache"):
        assert steps[name]["with"]["path"] == "${{ env.CHCERT_CACHE }}"
    assert "always()" in steps["Save the mathematics cache"]["if"]
    keep = steps["Keep the reports"]
    assert keep["if"] == "always()" and keep["uses"].startswith("actions/upload-artifact@")
    assert set(keep["with"]["path"].split()) == {*ARTIFACTS, GAME_LOG}
    assert gl.variables["CHCERT_CACHE"] == "$CI_PROJECT_DIR/.chcert-cache"
    assert gl.raw["cache"]["paths"] == [".chcert-cache/"] and gl.raw["cache"]["when"] == "always"
    artifacts = gl.raw["artifacts"]
    assert artifacts["when"] == "always"
    assert set(artifacts["paths"]) == {*ARTIFACTS, SUMMARY, GAME_LOG}
    assert artifacts["reports"]["junit"] == "reports/junit.xml"


def test_the_examples_are_bounded_cancelled_when_superseded_and_compare_after_install() -> None:
    """A job timeout, one run per change, and no comparison without an installed chcert."""
    gh, gl = _github(), _gitlab()
    assert 10 <= gh.raw["timeout-minutes"] <= 360  # GitHub's own limit is six hours
    concurrency = gh.config["concurrency"]
    assert "${{ github.ref }}" in concurrency["group"]  # per branch or pull request
    assert concurrency["cancel-in-progress"] is True

    steps = _steps(gh)
    install = steps["Install chcert"]
    assert install["id"] == "install" and _only_installs(install["run"])
    guard = steps["Compare with the baseline"]["if"]
    assert guard.startswith("${{") and guard.endswith("}}")
    terms = {t.strip() for t in guard.removeprefix("${{").removesuffix("}}").split("&&")}
    assert terms == {"!cancelled()", "steps.install.outcome == 'success'"}  # after a FAIL too
    assert "if" not in steps["Certify"]  # runs only when every earlier step succeeded

    assert re.fullmatch(r"(\d+h)?\s*(\d+m(in)?)?", gl.raw["timeout"]) and gl.raw["timeout"]
    assert gl.raw["interruptible"] is True
    assert gl.config["workflow"]["auto_cancel"]["on_new_commit"] == "interruptible"


def test_gitlab_a_failed_install_never_reaches_the_comparison(tmp_path: Path) -> None:
    """GitLab runs before_script and script as one shell that stops at the first failing
    command: with the install failing, no chcert command runs. A stub chcert on PATH
    records its calls; with the install succeeding it is called to certify and compare."""
    pipeline = _gitlab()
    calls = tmp_path / "calls"
    stub = tmp_path / "bin" / "chcert"
    stub.parent.mkdir()
    stub.write_text(f'#!/bin/sh\necho "$1" >> {shlex.quote(str(calls))}\n')
    stub.chmod(0o755)
    for install, reached in (("false", []), ("true", ["certify", "diff"])):
        calls.unlink(missing_ok=True)
        work = tmp_path / install
        work.mkdir()
        (work / "reports").mkdir()
        (work / "reports" / "results.json").write_text("{}")  # as if certify had written it
        baseline = work / pipeline.variables["CHCERT_BASELINE"]
        baseline.parent.mkdir()
        baseline.write_text("{}")
        env = _environment(pipeline, work)
        env["PATH"] = f"{stub.parent}{os.pathsep}{env['PATH']}"
        before = [
            install if INSTALL.match(line) else line for line in pipeline.raw["before_script"]
        ]
        done = _bash("\n".join([*before, *pipeline.raw["script"]]), work, env)
        assert (done.returncode != 0) == (install == "false"), _said(done)
        assert (calls.read_text().split() if calls.exists() else []) == reached


@pytest.mark.parametrize("example", [_github, _gitlab], ids=["github", "gitlab"])
def test_the_start_step_waits_for_a_game_served_over_http(example: Any, tmp_path: Path) -> None:
    """The bundled reference game, served over HTTP as a vendor's build would be: the
    step returns once it answers hello, and the game keeps serving for certify."""
    pipeline = example()
    work, _ = _workspace(tmp_path, pipeline)
    done = _bash(_start_step(pipeline), work, _environment(pipeline, work))
    assert done.returncode == 0 and done.stdout == "", _said(done)  # nothing to start
    assert not (work / GAME_LOG).exists()

    with _game(tmp_path, REFERENCE_OVER_HTTP) as game:
        done = _bash(_start_step(pipeline), work, _environment(pipeline, work, **game))
        assert done.returncode == 0, _said(done)
        url = f"{game['CHCERT_ADAPTER']}/hello"
        assert done.stdout.strip() == f"the game answers hello at {url}"
        request = json.dumps({"id": 1, "op": "hello"}).encode()
        with urllib.request.urlopen(urllib.request.Request(url, request), timeout=30) as reply:
            assert json.load(reply)["ok"]["name"] == "chcert-reference"  # still serving


@pytest.mark.parametrize("example", [_github, _gitlab], ids=["github", "gitlab"])
def test_the_start_step_fails_the_job_with_one_line_when_the_game_never_answers(
    example: Any, tmp_path: Path
) -> None:
    """A game that exits, or that never answers within CHCERT_GAME_WAIT: the job fails at
    that step, its first line says why, and the game's output follows. In GitLab the
    rest of the script (certify, the comparison) never runs."""
    pipeline = example()
    work, _ = _workspace(tmp_path, pipeline)
    script = "\n".join(pipeline.raw["script"]) if "script" in pipeline.raw else None
    cases = [
        ("echo 'cannot open build/holdem.conf' >&2; exit 3", "exited before answering hello"),
        ("sleep 600", "did not answer hello at"),  # alive, but listening nowhere
    ]
    for command, said in cases:
        with _game(tmp_path, command) as game:
            env = _environment(pipeline, work, CHCERT_GAME_WAIT="1", **game)
            done = _bash(script or _start_step(pipeline), work, env)
            assert done.returncode == 1, _said(done)
            first = done.stdout.splitlines()[0]
            assert first.startswith("chcert: the game") and said in first, _said(done)
            assert f"{game['CHCERT_ADAPTER']}/hello" in first
        if "exit 3" in command:
            assert "cannot open build/holdem.conf" in done.stdout  # reports/game.log
    assert not (work / "reports" / "results.json").exists()


@pytest.mark.slow  # the CI examples
def test_the_github_actions_example_gates(tmp_path: Path) -> None:
    """The whole workflow against the reference game started over HTTP by its own step,
    each step's Markdown appended to the step summary."""
    pipeline = _github()
    work, baseline = _workspace(tmp_path, pipeline)
    summary = tmp_path / "step_summary.md"
    summary.touch()  # GitHub creates it for each step
    start, certify, compare = pipeline.scripts
    with _game(tmp_path, REFERENCE_OVER_HTTP) as game:
        env = _environment(
            pipeline,
            work,
            CHCERT_ARGS=QUICK,
            CHCERT_CACHE=str(cache_dir()),
            GITHUB_STEP_SUMMARY=str(summary),
            **game,
        )
        done = _bash(start, work, env)
        assert done.returncode == 0, _said(done)
        done = _bash(certify, work, env)
        assert done.returncode == EXIT_INCOMPLETE, _said(done)  # a selection fails the job
        assert all((work / path).stat().st_size > 0 for path in ARTIFACTS)
        results = load_results(work / "reports")
        assert results["adapter"] == game["CHCERT_ADAPTER"]
        assert results["verdict"] == "INCOMPLETE" and results["selection"]["expressions"] == {
            "-k": "s000-r12"
        }
        assert summary.read_text().startswith("## chcert certify: INCOMPLETE\n")

        done = _bash(compare, work, env)
        assert done.returncode == 0 and "no baseline at chcert/baseline.json" in done.stdout
        assert "no baseline at chcert/baseline.json" in summary.read_text()

        baseline.parent.mkdir()
        shutil.copy(work / "reports" / "results.json", baseline)
        done = _bash(compare, work, env)
        assert done.returncode == 0 and "no change" in done.stdout, _said(done)

        _regressed_baseline(work / "reports" / "results.json", baseline)
        done = _bash(compare, work, env)
        assert done.returncode == EXIT_FAIL, _said(done)
        assert "REGRESSED" in done.stdout and "clause s000-r1 (" in done.stdout
    headings = [line for line in summary.read_text().splitlines() if line.startswith("## ")]
    assert headings[:2] == ["## chcert certify: INCOMPLETE", "## chcert diff: no change"]
    assert len(headings) == 3 and headings[2].startswith("## chcert diff: REGRESSED: ")
    assert "clause `s000-r1` (" in summary.read_text()


@pytest.mark.slow  # the CI examples
def test_the_gitlab_example_gates(tmp_path: Path) -> None:
    pipeline = _gitlab()
    work, baseline = _workspace(tmp_path, pipeline)
    (script,) = pipeline.scripts
    with _game(tmp_path, REFERENCE_OVER_HTTP) as game:
        env = _environment(pipeline, work, CHCERT_ARGS=QUICK, CHCERT_CACHE=str(cache_dir()), **game)

        # No baseline: the job ends with certify's own exit code, after the comparison step.
        done = _bash(script, work, env)
        assert done.returncode == EXIT_INCOMPLETE, _said(done)
        assert "the game answers hello at" in done.stdout
        assert "no baseline at chcert/baseline.json" in done.stdout
        assert all((work / path).stat().st_size > 0 for path in ARTIFACTS)
        assert load_results(work / "reports")["adapter"] == game["CHCERT_ADAPTER"]

        _regressed_baseline(work / "reports" / "results.json", baseline)
        done = _bash(script, work, env)
        assert done.returncode == EXIT_FAIL, _said(done)
        assert "REGRESSED" in done.stdout and "clause s000-r1 (" in done.stdout
    markdown = (work / SUMMARY).read_text()
    assert [line for line in markdown.splitlines() if line.startswith("## ")][:1] == [
        "## chcert certify: INCOMPLETE"
    ]
    assert "no baseline at chcert/baseline.json" in markdown
    assert "## chcert diff: REGRESSED" in markdown


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_examples_pass_a_correct_game_in_full(tmp_path: Path) -> None:
    """No selection: a correct game is certified (exit 0) by both examples, and the second
    run, the first as its baseline, shows no change. The game deals from a seeded
    generator, so the RNG battery cannot fail it by chance (tests/games.py)."""
    game = served("Seeded", "standard")  # a subprocess adapter: quoted as the examples do
    github, gitlab = _github(), _gitlab()
    work, baseline = _workspace(tmp_path, github)
    summary = tmp_path / "step_summary.md"
    env = _environment(
        github,
        work,
        CHCERT_ADAPTER=game,
        CHCERT_CACHE=str(cache_dir()),
        GITHUB_STEP_SUMMARY=str(summary),
    )
    start, certify, compare = github.scripts
    assert _bash(start, work, env).returncode == 0  # no game to start: chcert starts it
    done = _bash(certify, work, env)
    assert done.returncode == EXIT_PASS, _said(done)
    assert summary.read_text().startswith("## chcert certify: PASS\n")
    baseline.parent.mkdir()
    shutil.copy(work / "reports" / "results.json", baseline)
    assert _bash(compare, work, env).returncode == 0

    env = _environment(gitlab, work, CHCERT_ADAPTER=game, CHCERT_CACHE=str(cache_dir()))
    done = _bash(gitlab.scripts[0], work, env)
    assert done.returncode == EXIT_PASS, _said(done)
    assert "no change" in done.stdout
    assert load_results(work / "reports")["verdict"] == "PASS"
    assert "## chcert diff: no change" in (work / SUMMARY).read_text()
