"""`chcert report`: draw report.pdf again from an archived results.json."""

from __future__ import annotations

import argparse
import hashlib
import tempfile
from pathlib import Path
from typing import Any

from harness import strictjson
from harness.atomic import copy_atomic
from harness.cli.common import UsageError
from harness.cli.signing import signed, signing_of
from harness.paths import read_input
from harness.results.files import results_problem
from harness.run.settings import SIGNING, add_arguments


def register(sub: Any) -> None:
    rep = sub.add_parser("report", help="re-render report.pdf from an archived results.json")
    rep.add_argument("results", help="path to results.json")
    rep.add_argument("--pdf", default=None, help="output path (default: beside results.json)")
    add_arguments(rep, SIGNING)
    rep.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Re-render the PDF of an archived results.json; a missing or invalid file is a usage
    error (one line, exit 4)."""
    from harness.report import render
    from harness.signing.attachment import is_signed

    results = Path(args.results)
    try:
        raw = read_input(results)
        data = strictjson.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise UsageError(f"report: cannot read {results}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise UsageError(f"report: {results} is not JSON: {exc}") from exc
    problem = results_problem(data)
    if problem is not None:
        raise UsageError(f"report: {results} is not a results.json of this harness {problem}")
    signing = signing_of(args)
    pdf = Path(args.pdf) if args.pdf else results.with_name("report.pdf")
    if pdf.resolve() == results.resolve():
        raise UsageError(f"report: --pdf {pdf} is the results file it reads")
    if pdf.is_dir() or not pdf.parent.is_dir():
        where = "is a folder" if pdf.is_dir() else f"the folder {pdf.parent} does not exist"
        raise UsageError(f"report: --pdf {pdf}: {where}")
    if pdf.exists() and is_signed(pdf):  # a laboratory's signed original is never replaced
        raise UsageError(f"report: {pdf} is a signed report: give another --pdf PATH")
    # Drawn apart, then put in place whole: an earlier report is replaced, never half.
    with tempfile.TemporaryDirectory(prefix="chcert-report-") as folder:
        drawn = render(data, Path(folder) / pdf.name, raw)
        digest = hashlib.sha256(drawn.read_bytes()).hexdigest()
        copy_atomic(drawn, pdf)
    print(pdf)
    return signed(signing, pdf, digest, 0) if signing is not None else 0
