"""The output folder of `chcert certify`: what a run may replace, where it writes while it
runs (a stage inside OUT), and how its outputs replace the earlier ones
(docs/robustness.md)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from harness.atomic import copy_atomic
from harness.cli.common import UsageError
from harness.paths import output_problem

OUTPUTS = ("results.json", "report.pdf", "junit.xml", "strategy.npz", "repro")


# What a run writes into repro/ (harness/run/controller.py,
# harness/gamemath/publication.py): only these are ever removed with the earlier run's
# outputs.
REPRO_FILES = re.compile(r"repro-[^/]*\.yaml|declared-profile\.yaml")


STAGE_PREFIX = ".chcert-run-"


def check_replaceable(out: Path, replace_signed: bool) -> None:
    """OUT's earlier outputs are replaced only when chcert wrote them: a repro/ holding
    anything else (a user's own folder of that name) is a usage error, and so is a signed
    report.pdf unless --replace-signed says to replace it."""
    from harness.signing.attachment import is_signed

    repro = out / "repro"
    if repro.is_symlink() or (repro.exists() and not repro.is_dir()):
        strangers = [repro]
    elif repro.is_dir():
        strangers = [
            p
            for p in sorted(repro.iterdir())
            if not (p.is_file() and REPRO_FILES.fullmatch(p.name))
        ]
    else:
        strangers = []
    if strangers:
        raise UsageError(
            f"--out {out}: {strangers[0]} was not written by chcert, and a run replaces "
            "repro/: choose another --out"
        )
    pdf = out / "report.pdf"
    if not replace_signed and pdf.is_file() and is_signed(pdf):
        raise UsageError(
            f"--out {out}: report.pdf is a signed report; keep it elsewhere, or give "
            "--replace-signed"
        )


def output_target(
    option: str, given: str, out: Path, inputs: list[Path], others: set[Path]
) -> Path:
    """A file the user names for one of the run's outputs (--junitxml, --summary-md),
    refused before the run when it would overwrite an input or another output (inside
    OUT/repro or a stage folder too), or could not be written: the run's outputs and
    inputs are never lost for it."""
    if not given:
        raise UsageError(f"{option}: names no file (is the variable it was given set?)")
    path = Path(given)
    target = path.resolve()
    inside = [(out / "repro").resolve(), *out.resolve().glob(f"{STAGE_PREFIX}*")]
    if target in {p.resolve() for p in others} or any(f in target.parents for f in inside):
        raise UsageError(f"{option} {given}: is another of this run's outputs in {out}")
    problem = output_problem(path, inputs, "this run")
    if problem:
        raise UsageError(f"{option} {given}: {problem}")
    return path


def output_folder(out: Path) -> Path:
    """--out, created if need be: a usage error when it cannot be a folder of outputs."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create the folder: {exc.strerror}") from exc
    if not os.access(out, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: the folder is not writable")
    return out


@contextlib.contextmanager
def staged(out: Path) -> Iterator[Path]:
    """A folder inside OUT where the run writes its outputs, so that OUT keeps the
    previous run's until this one has written all of its own (publish); removed at the
    end whatever happens. One that a killed run left behind is removed by the next."""
    for left in out.glob(f"{STAGE_PREFIX}*"):
        pid = left.name.removeprefix(STAGE_PREFIX).partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(left, ignore_errors=True)
    stage = Path(tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{os.getpid()}-", dir=out))
    try:
        yield stage
    except _NotPublished:
        raise  # the stage holds the run's outputs: kept, and named in the message
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    shutil.rmtree(stage, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _NotPublished(UsageError):
    """The outputs could not be moved into OUT; they stay in the stage, which is named."""


def publish(stage: Path, out: Path, junit: Path) -> None:
    """Replace OUT's outputs by the run's. results.json is the first to go and the last to
    come: a results.json in OUT always stands beside the outputs of its own run, and a run
    killed at any moment leaves the previous run's or none (docs/robustness.md)."""
    try:
        elsewhere = junit.resolve() != (out / "junit.xml").resolve()
        if elsewhere:
            copy_atomic(stage / "junit.xml", junit)
        (out / "results.json").unlink(missing_ok=True)
        for name in OUTPUTS[1:]:
            old = out / name
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
            else:
                old.unlink(missing_ok=True)
            if (stage / name).exists() and not (name == "junit.xml" and elsewhere):
                (stage / name).rename(old)
        (stage / "results.json").rename(out / "results.json")
    except OSError as exc:
        raise _NotPublished(
            f"--out {out}: the outputs could not be put in place ({exc}); "
            f"this run's outputs are in {stage}"
        ) from exc
