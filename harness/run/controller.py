"""The controller side of a certification run: say hello, collect what the workers
found, write results.json (docs/architecture.md, A certification run).

As pytest-xdist keeps its scheduler (DSession) apart from its workers, the controller
runs no item: it opens the game once for `hello` (so an unreachable game stops the run
before any worker starts), collects each item's `Record` from its report, turns the
findings a check attributes to other clauses into records of their own, writes the
repro vectors, and builds results.json (harness/results/build.py) when the session ends,
also after Ctrl-C (INCOMPLETE). In-process (`-n 0`) it hands its connection to the
worker beside it (harness/run/worker.py).
"""

from __future__ import annotations

import contextlib
import json
import shlex
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Literal, TypeVar

import msgspec
import pytest
import yaml

from harness.adapters import Adapter
from harness.checks import MERGES
from harness.errors import ChcertError, ErrorReply, ProtocolViolation
from harness.gamemath import census_progress, main_game, profile_math
from harness.gamemath.publication import published_figures
from harness.protocol.declaration import Declaration
from harness.report.words import reason_text
from harness.results.build import (
    RunFacts,
    build_results,
    failure_entry,
    now,
)
from harness.results.files import plain_json, write_json_atomic
from harness.results.model import (
    Attestation,
    Failure,
    FailureKind,
    Fault,
    Figure,
    FoundBy,
    ItemKind,
    MathSection,
    Reason,
    ReasonCode,
    Record,
    Simulation,
)
from harness.results.outcomes import Status
from harness.run.handover import HANDOVER
from harness.run.runspec import RunSpec
from harness.run.worker import HELLO_KEY, RECORD_KEY, STATUS_KEY, Worker, call_report

REPRO_DIR = "repro"


class Controller:
    """One run's outcomes; registered as the plugin `chcert-controller`."""

    def __init__(self, config: pytest.Config, spec: RunSpec, worker: Worker | None) -> None:
        self.config = config
        self.spec = spec
        self.worker = worker  # in-process: the worker that plays on the hello connection
        self.started = now()
        self.records: list[Record] = []
        self.collected: set[str] | None = None
        self.declared: Declaration | None = None  # the game's hello, read once
        self.incomplete: list[Reason] = []
        self.hello_fault: Failure | None = None
        self.stderr_tail = ""
        self.interrupted_by = "Ctrl-C"
        self._math_ahead: Future[dict[str, Any]] | None = None  # profile_math, on a thread

    @property
    def adapter_spec(self) -> str:
        spec: str = self.spec.settings.adapter
        return spec

    def selection(self) -> dict[str, str]:
        """The selection expressions given to pytest (-k, -m), as results.json records them."""
        given = {
            "-k": self.config.getoption("keyword"),
            "-m": self.config.getoption("markexpr"),
            "--item": " ".join(self.spec.settings.item),
        }
        return {flag: str(expr) for flag, expr in given.items() if expr}

    # ------------------------------------------------------------ session

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Say hello once, so an unreachable game stops the run early."""
        # The exact mathematics, computed (or loaded from the cache) once, here, before
        # workers need it: the strategy the differential and the RTP simulation play
        # is then in the strategy cache. Should it fail, the simulation and the math
        # section record the error where it shows.
        with contextlib.suppress(Exception):
            _ = main_game(self.spec.profile, census_progress(quiet=False)).strategy
        # The exact figures priced on a thread while the items run (mostly reading the
        # census and numpy, which let the items' threads run): the session's end then
        # finds them priced, and so does an in-process run's RTP simulation, which asks for
        # the same main game. A failure is raised where the figures are taken (`_math`).
        self._math_ahead = _ahead(profile_math, self.spec.profile)
        adapter: Adapter | None = None
        try:
            adapter = self.spec.open_game()
            self.declared = Declaration(adapter.request("hello"))
        except ProtocolViolation as exc:
            self._hello_failed(exc)
        except ErrorReply as exc:
            reply = {"error": {"code": exc.code, "message": exc.message}}
            self._hello_failed(ProtocolViolation(f"refused with {exc}", {"reply": reply}))
        except (ChcertError, OSError) as exc:
            self._stop(self._unreachable(exc))
        finally:
            if adapter is not None and (self.worker is None or self.declared is None):
                adapter.close()  # each worker opens its own connection
        if adapter is not None and self.worker is not None:
            assert self.declared is not None
            self.worker.adopt(adapter, self.declared)  # items run here: the game is up

    def _hello_failed(self, exc: ProtocolViolation) -> None:
        """A game that answers hello outside protocol v1 fails; one that never answers it
        (it exited, or hung) cannot be judged: unreachable, with its stderr shown."""
        self.stderr_tail = str(exc.evidence.get("stderr_tail", ""))
        if "reply" not in exc.evidence and "raw" not in exc.evidence:
            self._stop(self._unreachable(exc))
        self.hello_fault = failure_entry(
            FailureKind.IMPLEMENTATION,
            Fault(clause=None, kind="protocol", detail=str(exc.kind), found_by=FoundBy.HELLO),
            "hello",
            f"hello does not conform to protocol v1: {exc.detail}",
            self.spec.command(None),  # hello comes first: the whole run shows it
            expected="a hello reply conforming to protocol v1 (docs/adapter-protocol.md)",
            actual=exc.evidence.get("reply", exc.evidence.get("raw")),
            evidence=exc.evidence,
        )
        self.write_results()
        pytest.exit(self.hello_fault.message, returncode=1)

    def _unreachable(self, exc: BaseException) -> Reason:
        return Reason(code=ReasonCode.UNREACHABLE, subject=self.adapter_spec, detail=str(exc))

    def _stop(self, reason: Reason) -> None:
        """End the run INCOMPLETE, its results written: the game could not be judged."""
        self.incomplete.append(reason)
        self.write_results()
        pytest.exit(reason_text(reason), returncode=2)

    @pytest.hookimpl(trylast=True)
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """pytest-xdist: hand each worker the configuration the game declared to this
        controller (sessionstart ran first: xdist starts its nodes last). The table and
        rules a run certifies are the ones its report prints, whatever a game says to
        another connection (harness/run/worker.py)."""
        if self.declared is not None:
            node.workerinput[HELLO_KEY] = json.dumps(self.declared.sent, default=plain_json)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """In-process: which planned items the selection kept."""
        if self.worker is not None:
            self.collected = {item.name for item in session.items}

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Under xdist: the items a worker collected, after the selection."""
        names = {i.rpartition("::")[2] for i in ids}
        self.collected = names if self.collected is None else self.collected | names

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        """A signal `chcert certify` turns into an interruption names itself
        (harness/cli/certify.py)."""
        if str(excinfo.value):
            self.interrupted_by = str(excinfo.value)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect each item's record from its report, wherever the item ran."""
        props = dict(report.user_properties)
        if RECORD_KEY in props:
            record = Record.from_json(str(props[RECORD_KEY]))
            self.records.append(record)
            self._add_findings(record, str(report.location[0]))
        elif (report.failed and report.when != "call") or str(report.when) == "???":
            # A setup/teardown error or a crashed worker: no record came back.
            item = report.nodeid.rpartition("::")[2]
            planned = next((p for p in self.spec.planned if p.name == item), None)
            clause, _, target = item.partition("/")  # an item of no plan: as pytest named it
            self.records.append(
                Record(
                    node=report.nodeid,
                    clause=planned.clause if planned else clause,
                    kind=planned.kind if planned else ItemKind.VECTOR,
                    name=planned.target if planned else target,
                    status=Status.ERROR,
                    message=f"item did not run to completion ({report.when}): "
                    + str(report.longrepr)[-300:],
                    section=planned.section if planned else "",
                )
            )

    def _add_findings(self, record: Record, report_path: str) -> None:
        """Failures a check attributes to clauses (the differential's and the corpus's
        causes) become records of their own clause; one cause found by several shards
        counts once."""
        if not record.findings:
            return
        known = {r.item: r for r in self.records}
        for finding in record.findings:
            same = known.get(finding.item)
            if same is not None:
                same.count += finding.count
                continue
            derived = Record(
                node=f"{record.node.rpartition('::')[0]}::{finding.item}",
                clause=finding.clause,
                kind=ItemKind.FINDING,  # an item no check planned: a cause found
                name=finding.item.partition("/")[2],
                status=Status.FAIL,
                message=finding.message,
                expected=finding.expected,
                actual=finding.actual,
                evidence=finding.evidence,
                fault=finding.fault,
                count=finding.count,
                found_by_item=record.item,
                reproduce=finding.reproduce or record.reproduce,
                repro=finding.repro,
            )
            self.records.append(derived)
            known[derived.item] = derived
            # An item of its own in pytest's counts too, as in chcert's (docs/verdict.md).
            location = (report_path, None, derived.item)
            keywords: dict[str, Literal[1]] = {derived.item: 1, derived.clause: 1}
            self.config.hook.pytest_runtest_logreport(
                report=call_report(derived, derived.node, location, keywords)
            )
        record.findings = []

    def pytest_report_teststatus(
        self, report: pytest.TestReport, config: pytest.Config
    ) -> tuple[str, str, str] | None:
        """A harness error is counted as pytest counts errors, apart from the game's
        failures, as chcert's summary does."""
        if report.when == "call" and (STATUS_KEY, Status.ERROR.value) in report.user_properties:
            return "error", "E", "ERROR"
        if str(report.when) == "???" and report.failed:  # a worker that crashed: an error
            return "error", "E", "ERROR"
        return None

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            self.incomplete.append(Reason(code=ReasonCode.INTERRUPTED, subject=self.interrupted_by))
        elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:
            self.incomplete.append(Reason(code=ReasonCode.RUNNER_ERROR))
        elif exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.selection():
            return  # a selection matching nothing is a usage error: no certificate at all
        self.write_results()

    # ------------------------------------------------------------ results

    def write_results(self) -> None:
        for record in self.records:
            if record.repro is not None and not record.repro_file:
                self._write_repro(record)
        spec = self.spec
        results = build_results(
            RunFacts(
                profile=spec.profile,
                catalogs=list(spec.catalogs),
                adapter=self.adapter_spec,
                declared=self.declared,
                planned=spec.planned,
                records=self.records,
                started=self.started,
                seed=spec.seed,
                math=self._math(),
                collected=self.collected,
                selection=self.selection(),
                incomplete=self.incomplete,
                hello_fault=self.hello_fault,
                stderr_tail=self.stderr_tail,
                published=self._published(),
                attestations=msgspec.convert(spec.attestations, list[Attestation]),
                run_plan=spec.settings.manifest(spec.profile_arg, self.selection()),
                run_command=spec.command(None),
                math_command=shlex.join(["chcert", "math", "--profile", spec.profile_arg]),
                minimums=spec.minimums,
                merges=MERGES,
            )
        )
        handover = self.config.stash.get(HANDOVER, None)
        if handover is not None:  # `chcert certify` takes them in memory, first: kept
            handover.results = results  # even should the file not be written
        write_json_atomic(spec.stage / "results.json", results.to_json())

    def _published(self) -> list[Figure]:
        """The figures the game publishes (hello config.published), against the exact
        mathematics of the pay tables it declares."""
        if self.declared is None:
            return []
        try:
            figures = published_figures(
                self.spec.profile,
                self.spec.profile_arg,
                self.declared.config,
                self.spec.stage / REPRO_DIR,
                self.spec.out / REPRO_DIR,
            )
        except Exception as exc:  # the harness's own failure: reported, never the game's
            reason = f"{type(exc).__name__}: {exc}"
            return [
                Figure(
                    figure="all", claimed=None, computed=None, status=Status.ERROR, reason=reason
                )
            ]
        return msgspec.convert(figures, list[Figure])

    def _write_repro(self, record: Record) -> None:
        """Write a failing randomized round as a vector file, and the command replaying it."""
        assert record.repro is not None
        test = record.repro["groups"][0]["tests"][0]
        test["clauses"] = [record.clause]
        written = self.spec.stage / REPRO_DIR / f"{test['id']}.yaml"
        written.parent.mkdir(parents=True, exist_ok=True)
        written.write_text(yaml.safe_dump(record.repro, sort_keys=False), encoding="utf-8")
        path = (self.spec.out / REPRO_DIR / written.name).resolve()
        record.repro_file = f"{REPRO_DIR}/{path.name}"
        if self.declared is None or "inject" not in self.declared.capabilities:
            # The game dealt the round itself: the vector is evidence, but cannot be asked of
            # it, and its own shuffle will not deal that round again. The item's command
            # runs the check again; it is no exact replay.
            record.evidence["reproduction"] = (
                "the game lacks capability inject: the repro vector cannot be replayed "
                "against it, and the reproduce command plays new rounds of its own shuffle"
            )
            return
        record.reproduce = self.spec.command(
            f"{record.clause}/{test['id']}", ["--vectors", str(path), "--rtp-rounds", "0"]
        )

    def _math(self) -> MathSection:
        """The profile's exact figures, and the strategy file beside results.json; its
        `simulation` is the run's, which the results put in."""
        try:
            ahead = self._math_ahead
            math = ahead.result() if ahead is not None else profile_math(self.spec.profile)
            main_game(self.spec.profile).checked_strategy().save(self.spec.stage / "strategy.npz")
        except Exception as exc:  # the report is still written, marked so
            reason = f"{type(exc).__name__}: {exc}"
            return MathSection(status=Status.ERROR, reason=reason, claims=[], simulation=_NONE)
        math["strategy"]["file"] = "strategy.npz"
        return msgspec.convert({**math, "simulation": _NONE}, MathSection)


_NONE = Simulation(status=Status.NOT_TESTED)  # until the run's is merged in
T = TypeVar("T")


def _ahead(work: Callable[..., T], *args: Any) -> Future[T]:
    """`work(*args)` started on a daemon thread (an interrupted run does not wait for
    it), its result or its exception taken from the future."""
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(work(*args))
        except BaseException as exc:  # the taker's to raise
            future.set_exception(exc)

    threading.Thread(target=run, name="chcert-math", daemon=True).start()
    return future
