"""`chcert certify`: certify a game against a profile (contract 2; docs/command-line.md).

Everything a run would refuse is refused before anything starts (the options, the files
it reads, the folder it writes); then the items run under pytest (harness/run/plugin.py),
the outputs are written into a stage inside OUT and published whole, and the report is
signed if asked.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import secrets
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from harness import __version__
from harness.cli.checks import check_distribution, check_ranges, check_selection
from harness.cli.common import EXIT_HELP, UsageError, check_adapter
from harness.cli.outputs import (
    OUTPUTS,
    check_replaceable,
    output_folder,
    output_target,
    publish,
    staged,
)
from harness.cli.signing import signed, signing_of
from harness.cli.summary import print_summary
from harness.paths import DATA_ROOT, in_data, verify_regular
from harness.results.model import Artifact, ProfileInfo, Reason, ReasonCode, Results
from harness.results.outcomes import EXIT_CODES, Verdict
from harness.run.handover import Handover
from harness.run.processes import Reaper, nothing_outlives
from harness.run.settings import SETTINGS, RunSettings, add_arguments, plugin_args

if TYPE_CHECKING:
    from harness.register.store import Register
    from harness.results.evidence import Minimums
    from harness.rules.profiles import Profile
    from harness.run.runspec import RunSpec


def register(sub: Any) -> None:
    cert = sub.add_parser(
        "certify",
        help="certify an implementation against a profile",
        epilog=EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_options(cert)
    cert.set_defaults(func=run)


def _add_options(cert: argparse.ArgumentParser) -> None:
    """The settings (harness/run/settings.py), and the options saying how to take them."""
    add_arguments(cert, SETTINGS)
    planned = cert.add_mutually_exclusive_group()
    planned.add_argument(
        "--plan",
        default=None,
        metavar="FILE",
        help="the laboratory's run plan (default: ./chcert.toml, else [tool.chcert] of "
        "./pyproject.toml, whose laboratory, attestations, signing and minimums are ignored); "
        "options given here override it (docs/run-plan.md)",
    )
    planned.add_argument(
        "--no-plan",
        action="store_true",
        help="read no plan from the current folder (docs/run-plan.md)",
    )
    cert.add_argument(
        "--dry-run",
        action="store_true",
        help="print every setting the run would use and where it came from, check them, "
        "and certify nothing (exit 2)",
    )


def run(args: argparse.Namespace) -> int:
    """Certify, with the run plan's settings for the options not typed."""
    return certify(_planned(args))


def certify(args: argparse.Namespace) -> int:
    from harness.compiled import choice

    choice()  # CHCERT_KERNEL: a bad value is a usage error now, not minutes into a run
    artifacts = _artifacts(args.artifact)
    signing = signing_of(args)
    from harness.run.runspec import build

    check_ranges(args)
    check_adapter(args.adapter)
    check_distribution(args)
    # The run's spec, as the plugin builds it: the profile, catalogs, vectors, attestations
    # and minimums checked once, here, before anything runs (SpecError, UsageError: exit 4).
    settings = RunSettings.of(vars(args))
    spec = build(settings, minimums=_stated_minimums(args))
    profile, minimums = spec.profile, spec.minimums
    if args.select is not None:
        check_selection(args.select)
    if in_data(Path(args.out)):
        raise UsageError(f"--out {args.out}: is in chcert's own data, which every run reads")
    out = Path(args.out) if args.dry_run else output_folder(Path(args.out))
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    check_replaceable(out, args.replace_signed)
    inputs = _input_files(args, profile.path)
    outputs = {out / name for name in OUTPUTS}
    junit = out / "junit.xml"
    if args.junitxml:
        junit = output_target("--junitxml", args.junitxml, out, inputs, outputs - {junit})
    if args.summary_md is not None:
        output_target("--summary-md", args.summary_md, out, inputs, outputs | {junit})
    book = _register_of(args, signing is not None)
    if args.dry_run:  # everything a run checks is checked: nothing is written
        return _dry_run(args, profile, minimums)
    args.report_id = f"CHC-{time.strftime('%Y%m%d', time.gmtime())}-{secrets.token_hex(4).upper()}"
    if book is not None:  # numbered before it is drawn, so the report prints its number
        from harness.register.records import entry_url

        args.report_number = book.allocate(args.report_id)
        address = book.settings()["address"]
        args.register_entry = entry_url(address, args.report_number) if address else ""
        book.close()  # no connection held through the run; the record opens its own
        print(f"chcert: report number {args.report_number}, from register {book.where}")
    with staged(out) as stage, nothing_outlives() as reaper:
        code, drawn = _run_certification(args, spec, out, stage, junit, reaper, artifacts)
    if signing is not None:  # the outputs are published: a failed signature loses none
        code = signed(signing, out / "report.pdf", drawn, code)
    if book is not None:  # recorded as published: a certificate only if signed and PASS
        from harness.cli.registry import record_run

        code = record_run(args.register, out / "report.pdf") or code
    return code


def _register_of(args: argparse.Namespace, signing: bool) -> Register | None:
    """The laboratory's register (--register), opened before the run so that a register
    that cannot number the report stops it now (docs/register.md#issuing)."""
    if not args.register:
        return None
    from harness.register.store import Register

    plan = getattr(args, "applied_plan", None)
    if plan is not None and (plan.laboratory or {}).get("report_number"):
        raise UsageError(
            "--register numbers the report: leave report_number out of the run plan's "
            "[laboratory] table"
        )
    book = Register(args.register)
    if signing and not book.anchors():
        raise UsageError(
            f"--register {book.where}: trusts no signing certificate, so this run's signed "
            "report could not be a certificate (chcert register init --register ... "
            "--trust CERT)"
        )
    return book


def _planned(args: argparse.Namespace) -> argparse.Namespace:
    """The certify options with the run plan's settings for those not typed (`args.argv`:
    the words after `certify`, as typed)."""
    from harness.report.words import plan_line
    from harness.run.plan import apply_plan, explicit_options, find_plan

    plan = find_plan(args.plan, search=not args.no_plan)
    if plan is not None:
        print(f"chcert: {plan_line(plan.to_json())}")
    alone = argparse.ArgumentParser(add_help=False)
    _add_options(alone)
    typed = explicit_options(alone, args.argv)
    applied = apply_plan(args, plan, typed)
    applied.typed = frozenset(typed)  # for --dry-run: where each setting came from
    return applied


def _artifacts(paths: list[str]) -> list[Artifact]:
    """Each file of the build submitted: its name, size and SHA-256, read before the run
    (a missing file is a usage error, not a certificate with a gap)."""
    records = []
    for given in paths:
        path = Path(given)
        try:
            digest, size = hashlib.sha256(), 0
            verify_regular(path)  # streamed, not read whole: a build may be large
            with path.open("rb") as fh:
                while chunk := fh.read(1 << 20):
                    digest.update(chunk)
                    size += len(chunk)
        except OSError as exc:
            raise UsageError(f"--artifact {given}: {exc.strerror or exc}") from exc
        records.append(
            Artifact(
                name=path.name,
                path=str(path.resolve()),
                bytes=size,
                sha256=digest.hexdigest(),
            )
        )
    return records


def _annotated(results: Results, args: argparse.Namespace, artifacts: list[Artifact]) -> Results:
    """results.json's manifest with what the command line knows and the plugin does not:
    the report id, the build submitted, the laboratory (with the register's number) and the
    run plan (docs/results.md).
    A stub has no manifest (the schema wants one whole or none): its report's id is made
    from its hash (harness/report report_id)."""
    manifest = results.manifest
    if manifest is None:
        return results
    plan = getattr(args, "applied_plan", None)
    laboratory = dict(plan.laboratory) if plan is not None else manifest.laboratory
    number = getattr(args, "report_number", None)
    if number is not None:  # the register's (docs/register.md)
        laboratory = {**(laboratory or {}), "report_number": number}
        if getattr(args, "register_entry", ""):
            laboratory["register"] = args.register_entry
    manifest = msgspec.structs.replace(
        manifest,
        report_id=args.report_id,
        artifacts=artifacts,
        laboratory=laboratory,
        plan=plan.to_json() if plan is not None else manifest.plan,
    )
    return msgspec.structs.replace(results, manifest=manifest)


def _stated_minimums(args: argparse.Namespace) -> str | None:
    """The laboratory's minimum samples (a named plan's [minimums], docs/verdict.md
    #evidence) as the plugin takes them, JSON with their source; None without."""
    plan = getattr(args, "applied_plan", None)
    if plan is None or not plan.minimums:
        return None
    return json.dumps({**plan.minimums, "source": f"run plan {plan.path}"})


def _dry_run(args: argparse.Namespace, profile: Profile, minimums: Minimums) -> int:
    """Every setting the run would use and where it came from; certifies nothing, so it
    exits 2 (INCOMPLETE): a pipeline given --dry-run by mistake never passes its gate."""
    plan = getattr(args, "applied_plan", None)
    typed: frozenset[str] = getattr(args, "typed", frozenset())
    planned = set(plan.settings) - set(plan.overridden) if plan is not None else set()

    def origin(dest: str) -> str:
        if dest in typed:
            return "command line"
        if dest in planned:
            return f"run plan {plan.path}" if plan is not None else "run plan"
        return "default"

    print(f"chcert certify --dry-run: profile {profile.name} ({profile.path})")
    if plan is None:  # a plan's own line was printed as it was read
        print("  run plan: none" + (" (--no-plan)" if args.no_plan else ""))
    for setting in sorted(SETTINGS, key=lambda s: s.dest):
        shown = getattr(args, setting.dest)
        if setting.dest == "seed" and shown is None:
            shown = "drawn at random when the run starts"
        print(f"  {setting.dest} = {shown!r}  ({origin(setting.dest)})")
    print(
        f"  minimum samples ({minimums.source}): {minimums.rng_decks:,} decks, "
        f"{minimums.rtp_rounds:,} RTP rounds, {minimums.differential:,} seat-hands"
    )
    print("nothing certified (a dry run): exit 2")
    return EXIT_CODES[Verdict.INCOMPLETE]


def _input_files(args: argparse.Namespace, profile: Path) -> list[Path]:
    """The files a certification reads that a user named (and its profile's, and the run
    plan, found or named): never one of its outputs."""
    plan = getattr(args, "applied_plan", None)
    named = [args.attest, plan and plan.path, args.sign_key, args.sign_cert, *args.vectors]
    return [profile, *(Path(p) for p in [*named, *args.artifact] if p)]


class _Signals:
    """SIGTERM and SIGHUP during a run stop it as Ctrl-C (SIGINT) does: the items stop,
    the test workers are interrupted too, and results.json and the PDF are written,
    INCOMPLETE, with the signal named. Once the items are over (`armed` off, by the hook
    below: results are being written), or after the first signal, a signal is ignored:
    the outputs are still completed. A signal ignored when chcert started (nohup) stays
    ignored."""

    HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    WORKERS_GRACE = 2.0  # seconds

    def __init__(self, reaper: Reaper) -> None:
        self.reaper = reaper
        self.armed = True
        self.interrupted_by = ""  # the signal that stopped the run, as results.json names it
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
            for sig in self.HANDLED:
                if signal.getsignal(sig) is not signal.SIG_IGN:
                    self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self.armed = False

    def _handle(self, signum: int, frame: object) -> None:
        if not self.armed:
            return
        self.armed = False
        if signum == signal.SIGINT:
            self.interrupted_by = "Ctrl-C"  # a terminal sent it to the workers too
        else:
            self.interrupted_by = signal.Signals(signum).name
            self.reaper.interrupt_workers()
        # The workers get a moment to close their games; then whatever the run started is
        # ended, so that the test runner's wait for its workers is short.
        ender = threading.Timer(self.WORKERS_GRACE, self.reaper.end_all)
        ender.daemon = True
        ender.start()
        raise KeyboardInterrupt(self.interrupted_by)


def _run_certification(
    args: argparse.Namespace,
    spec: RunSpec,
    out: Path,
    stage: Path,
    junit: Path,
    reaper: Reaper,
    artifacts: list[Artifact],
) -> tuple[int, str]:
    """Run the items, then write, draw and publish the outputs: the exit code and the
    SHA-256 of report.pdf as drawn (what may be signed)."""
    from harness.atomic import write_bytes_atomic
    from harness.report import render
    from harness.report.junit import write_junit
    from harness.results.files import json_bytes

    results_path = stage / "results.json"
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    # Each option is one `--name=VALUE` token and every path is absolute, and no path is
    # given as a test path: pytest-xdist forwards this command line to each worker, which
    # may run on another host, in another directory (--tx). There the plugin collects the
    # catalogs and vectors of its own installed package (harness/run/plugin.py); xdist would
    # refuse to forward a token that is a local path outside its rsync roots.
    pytest_args = [
        f"--config-file={os.devnull}",
        f"--rootdir={DATA_ROOT}",
        # The plugins a certification runs on, and no other installed one: a plugin of the
        # machine's (say one that reorders or reseeds tests, or only imports itself) has
        # no say in a certification, on the controller or on any worker (they are given
        # this command line).
        "--disable-plugin-autoload",
        "-p",
        "xdist.plugin",
        "-p",
        "harness.run.plugin",
        "-p",
        "no:cacheprovider",
        # Its hooks collect the garbage of the whole heap twice at the session's end (a
        # few tenths of a second after a run) to report exceptions raised in finalizers,
        # which a certification neither raises nor reads.
        "-p",
        "no:unraisableexception",
        "--assert=plain",  # nothing here relies on assertion rewriting; it costs start-up time
        "-q",
        f"--chcert-stage={stage.resolve()}",
        *plugin_args(
            {**vars(args), "profile": spec.profile.path.resolve(), "seed": seed, "out": out}
        ),
    ]
    if args.tx:  # -n would replace these workers by local ones; -n 0 would drop them
        pytest_args += [f"--tx={spec}" for spec in args.tx]
        pytest_args.append(f"--dist={args.dist or 'load'}")
    else:
        pytest_args.append(f"--numprocesses={args.workers}")
        if args.dist is not None:
            pytest_args.append(f"--dist={args.dist}")
    if (args.tx or args.workers) and args.dist in (None, "load"):
        # Small batches: xdist's first ones would otherwise give one worker every long
        # check (the catalog's first items) while the others finish theirs and wait.
        pytest_args.append("--maxschedchunk=1")
    stated = _stated_minimums(args)
    if stated is not None:  # the laboratory's policy (docs/verdict.md#evidence)
        pytest_args.append(f"--chcert-minimums={stated}")
    if args.select is not None:
        pytest_args.append(f"-k{args.select}")
    print(
        f"chcert {__version__}: certifying {args.adapter} against profile "
        f"{spec.profile.name} ({len(spec.clauses)} clauses, seed {seed})"
    )
    started = time.monotonic()
    handover = Handover(spec)  # in this process, the plugin takes what was built
    with _Signals(reaper) as signals:
        try:
            code = pytest.main(pytest_args, plugins=[signals, handover])
        except KeyboardInterrupt:  # before or after pytest's own handling of it
            code = pytest.ExitCode.INTERRUPTED
        signals.armed = False
        reaper.end_all()  # the items are over: any worker or game still alive is a leftover
        if code == pytest.ExitCode.USAGE_ERROR:
            raise UsageError("the test runner refused its arguments (see above)")
        if code == pytest.ExitCode.NO_TESTS_COLLECTED and (args.select is not None or args.item):
            shown = f"-k {args.select!r}" if args.select is not None else f"--item {args.item}"
            raise UsageError(f"{shown} matches no item of profile {spec.profile.name}")
        built = handover.results
        if built is None:  # the test runner stopped before the plugin could build them
            hint = f"interrupted ({signals.interrupted_by})" if signals.interrupted_by else ""
            if args.tx and code == pytest.ExitCode.INTERNAL_ERROR:
                hint = "could every --tx gateway be reached (socket server listening, ssh login)?"
            built = _stub_results(spec.profile.name, int(code), hint)
        # From memory: what is written, drawn and summed is what the plugin built, whatever
        # a leftover process did to the files in the meantime
        results = _annotated(built, args, artifacts)
        data = json_bytes(results.to_json())
        write_bytes_atomic(results_path, data)  # the bytes the report attaches and hashes
        write_junit(results, stage / "junit.xml")
        render(results, stage / "report.pdf", data)
        drawn = hashlib.sha256((stage / "report.pdf").read_bytes()).hexdigest()
        publish(stage, out, junit)
    seconds = time.monotonic() - started
    print_summary(results, out / "results.json", out / "report.pdf", junit, seconds)
    if args.summary_md:  # checked before the run (_summary_target)
        from harness.report.markdown import append_markdown, certify_markdown

        append_markdown(Path(args.summary_md), certify_markdown(results))
    return EXIT_CODES[results.verdict], drawn


def _stub_results(profile: str, code: int, hint: str = "") -> Results:
    """results.json when the test runner stopped before the plugin could write it."""
    reason = Reason(code=ReasonCode.RUNNER_STOPPED, subject=str(code), detail=hint)
    return Results(
        verdict=Verdict.INCOMPLETE,
        implementation_verdict=Verdict.INCOMPLETE,
        publication_verdict=Verdict.INCOMPLETE,
        incomplete_reasons=[reason],
        profile=ProfileInfo(name=profile),
    )
