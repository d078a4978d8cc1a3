"""The worker side of a certification run: collect the planned items, run each against
the game, hand its outcome to the controller (harness/run/controller.py).

Under pytest-xdist each worker is a process of its own, with its own connection to the
game; in-process (`-n 0`) the worker runs beside the controller and plays on the
connection the controller opened for `hello`. Either way an item's outcome travels as
a `Record` (harness/results/model.py), JSON on its teardown report, which survives the trip from
a worker to the controller.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Literal

import msgspec
import pytest

from harness.adapters import Adapter
from harness.checks import (
    REGISTRY,
    CheckFailure,
    Context,
    NotTested,
    replay_corpus,
    replay_refusal,
    replay_vector,
)
from harness.checks.registry import Check, refused_elsewhere
from harness.errors import ErrorReply, GameFault, HarnessFault, ProtocolViolation
from harness.gamemath.rng import preload_scipy
from harness.protocol.declaration import Declaration
from harness.results.model import (
    Fault,
    Finding,
    FoundBy,
    ItemKind,
    Outcome,
    Record,
    settlement_fault,
)
from harness.results.outcomes import Status
from harness.run.runspec import Planned, Replay, RunSpec
from harness.run.settings import RunSettings
from harness.vectors.refusals import RefusalVector
from harness.vectors.settlement import Vector

# The harness's own CPU time one item may spend (the game's time is not counted: a game
# that hangs is its adapter's timeout's to judge): a base, and an allowance per unit of
# the run's samples (seat-hands, the RTP simulation's seat-hands, decks) far above what a
# unit costs (docs/performance.md: a differential seat-hand about 0.1 ms of harness CPU).
# An item past it is a harness bug, a computation that would never end (a stake divided
# by trial division up to its square root, say), and errors instead of hanging.
ITEM_CPU_SECONDS = 1800.0
CPU_SECONDS_PER_SAMPLE = 0.002


def item_cpu_seconds(settings: RunSettings) -> float:
    """The CPU deadline of every item of a run: ITEM_CPU_SECONDS, and as much again per
    sample the run's settings ask for, so a run of ten million seat-hands is as bounded,
    and as free to finish, as the default one."""
    samples = (
        settings.differential
        + 7 * settings.rtp_rounds  # up to seven seats a round
        + settings.rng_decks
    )
    return ITEM_CPU_SECONDS + CPU_SECONDS_PER_SAMPLE * samples


RECORD_KEY = "chcert"
HELLO_KEY = "chcert_hello"  # workerinput: the hello the controller was given, as JSON
SPEC = pytest.StashKey[RunSpec]()


class ItemDeadline(HarnessFault):
    """An item spent more of the harness's CPU time than any item needs: the harness's
    fault (its record is an error, the run INCOMPLETE), never the game's."""


@contextmanager
def cpu_deadline(seconds: float) -> Iterator[None]:
    """Raise ItemDeadline in the block once this process has spent `seconds` of CPU time
    in it (a virtual-time interval timer: waiting for the game costs nothing). Where no
    such timer can be set (not the main thread, a platform without one) the block runs
    unbounded, as it did before."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise ItemDeadline(f"the item used more than {seconds:g} s of the harness's CPU time")

    previous = signal.signal(signal.SIGVTALRM, expired)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


class Worker:
    """Runs the items of one process; registered as the plugin `chcert-worker`."""

    def __init__(self, config: pytest.Config, spec: RunSpec) -> None:
        self.config = config
        self.spec = spec
        self._adapter: Adapter | None = None
        self._context: Context | None = None
        self._preloading: threading.Thread | None = None

    def adopt(self, adapter: Adapter, declared: Declaration) -> None:
        """Play on the connection the controller opened for hello (in-process runs)."""
        self._adapter = adapter
        self._context = self._new_context(adapter, declared)

    # ---------------------------------------------------------- collection

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path.resolve() in self.spec.files:
            return PlannedFile.from_parent(parent, path=file_path)
        return None

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """`--item NAME`: exactly the items named (all repeats of each), where -k would
        match every name containing NAME."""
        wanted = set(self.spec.settings.item)
        if not wanted:
            return
        kept = [i for i in items if i.name.partition("#")[0] in wanted]
        left = [i for i in items if i.name.partition("#")[0] not in wanted]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = kept

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """scipy.stats imported while the game starts, where an item selected needs it
        (a run of `-k differential` never does)."""
        targets = {i.target for i in session.items if isinstance(i, ChcertItem)}
        if targets & {"rng-battery", "rtp-simulation"}:
            self._preloading = preload_scipy()

    # ------------------------------------------------------------- running

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> bool | None:
        """Run a chcert item in one step and log its reports (see ChcertItem)."""
        if not isinstance(item, ChcertItem):
            return None
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        start = time.perf_counter()
        record = self.run_item(item)
        for report in item.reports(record, time.perf_counter() - start):
            item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None
        if self._preloading is not None:  # no thread left importing when the process ends
            self._preloading.join()

    def _new_context(self, adapter: Adapter, declared: Declaration) -> Context:
        settings = self.spec.settings
        workers = int(getattr(self.config, "workerinput", {}).get("workercount", 1))
        return Context(
            adapter,
            declared,
            self.spec.profile,
            self.spec.seed,
            settings.rng_decks,
            rtp_rounds=settings.rtp_rounds,
            differential=settings.differential,
            fault_owners=self.spec.fault_owners,
            shared=str(settings.adapter).startswith(("http://", "https://")) and workers > 1,
        )

    def context(self) -> Context:
        """The game this process plays, said hello to once."""
        if self._context is None:
            self._adapter = self.spec.open_game()
            hello = self._adapter.request("hello")
            declared = getattr(self.config, "workerinput", {}).get(HELLO_KEY)
            # The controller's hello is the declaration certified: a game answering each
            # connection otherwise is asked inside what it declared to the controller.
            self._context = self._new_context(
                self._adapter, Declaration(json.loads(declared) if declared else hello)
            )
        return self._context

    def run_item(self, item: ChcertItem) -> Record:
        """Run one item and turn whatever happens into a Record; never raises. Whose fault
        it is, the type says (harness/errors.py)."""
        extra = (
            ["--vectors", str(item.path)]
            if item.path.resolve() in self.spec.extra_vector_files
            else []
        )
        record = Record(
            node=item.nodeid,
            clause=item.clause,
            kind=item.kind,
            name=item.target,
            status=Status.PASS,
            reproduce=self.spec.command(f"{item.clause}/{item.target}", extra),
            section=item.section,
        )
        try:
            context = self.context()
            with cpu_deadline(item_cpu_seconds(self.spec.settings)):
                outcome = item.execute(context)
            record.findings = [item.completed(f) for f in outcome.findings]
            record.share = outcome.share
            record.evidence.update(outcome.evidence)
            elsewhere = sorted({f.clause for f in record.findings} - {item.clause})
            if elsewhere:
                record.message = f"failures attributed to {', '.join(elsewhere)}"
            own = [f for f in record.findings if f.clause == item.clause]
            if own:  # each cause is an item of its own, with its message (the controller)
                record.status = Status.FAIL
                record.message = f"{len(own)} cause(s) of this clause's failures found"
                record.fault = item.fault((item.fault_kind, ""))
            if outcome.untested and record.status is Status.PASS:  # a part could not run
                record.status = Status.NOT_TESTED
                record.message, record.needs = outcome.untested.reason, outcome.untested.needs
        except NotTested as exc:
            record.status, record.message, record.needs = Status.NOT_TESTED, str(exc), exc.needs
        except CheckFailure as exc:
            record.status, record.message = Status.FAIL, exc.message
            record.expected, record.actual, record.evidence = exc.expected, exc.actual, exc.evidence
            record.protocol_fault = exc.violation is not None
            record.repro, record.share = exc.repro, exc.share
            record.findings = [item.completed(f) for f in exc.findings]
            cause = ("protocol", str(exc.violation)) if exc.violation else exc.cause
            record.fault = item.fault(cause or (item.fault_kind, ""), exc.expected, exc.actual)
        except ProtocolViolation as exc:  # e.g. the hello of a fresh worker connection
            record.status, record.message = Status.FAIL, f"protocol violation: {exc}"
            record.evidence, record.protocol_fault = exc.evidence, True
            record.fault = item.fault(("protocol", str(exc.kind)))
        except ErrorReply as exc:  # a refusal no check expected: of a valid request
            record.status, record.message = Status.FAIL, f"refused a valid request: {exc}"
            record.actual = {"error": {"code": exc.code, "message": exc.message}}
            record.fault = item.fault(("refused", exc.code))
        except GameFault as exc:  # any other fault of the game's
            record.status, record.message = Status.FAIL, str(exc)
            record.fault = item.fault((item.fault_kind, ""))
        except Exception as exc:  # the harness's fault (HarnessFault), or a bug of its own
            record.status = Status.ERROR
            record.message = (
                f"harness error in {item.kind} {item.target}: {type(exc).__name__}: {exc}"
            )
            record.evidence = {"traceback": traceback.format_exc()[-4000:]}
            self._hang_up()
        return record

    def _hang_up(self) -> None:
        """Close the game's connection after the harness's own error: the error (an item's
        CPU deadline, say) may have come between a request and its reply, and the next
        item must not read that reply as its own and blame the game. The next item opens
        a fresh connection and says hello again."""
        adapter, self._adapter, self._context = self._adapter, None, None
        if adapter is not None:
            with suppress(Exception):  # it may be broken: the fresh one counts
                adapter.close()


# ---------------------------------------------------------------- the items


class ChcertItem(pytest.Item):
    """One planned item: a vector replay, a bad request, a clause check, a corpus share.

    Items run through `Worker.pytest_runtest_protocol`, not pytest's generic
    setup/call/teardown: they have no fixtures and print nothing, and the generic
    protocol (fixture setup, output capture and log capture per phase) costs more than
    replaying a vector does.
    """

    clause: str
    kind: ItemKind
    target: str
    section = ""  # the results section the item's outcome has a share of
    found_by = FoundBy.VECTOR  # the source the faults it finds name

    @property
    def fault_kind(self) -> str:
        """The kind of a failure of the item whose check names none (harness/results/model.py
        Fault): the item's own."""
        return self.found_by.value

    def fault(self, cause: tuple[str, str], expected: Any = None, actual: Any = None) -> Fault:
        """The key of the item's own failure."""
        kind, detail = cause
        return settlement_fault(self.clause, kind, detail, self.found_by, expected, actual)

    def completed(self, finding: Finding) -> Finding:
        """A finding with its key: the decision table's kind and detail, found by this
        item's source."""
        fault = settlement_fault(
            finding.clause,
            finding.kind,
            finding.detail,
            self.found_by,
            finding.expected,
            finding.actual,
        )
        return msgspec.structs.replace(finding, fault=fault)

    def take(self, planned: Planned, spec: RunSpec) -> None:
        self.clause = planned.item.clause
        self.target = planned.item.target
        self.section = planned.item.section
        self.payload = planned.payload
        self.spec = spec
        self.add_marker(self.clause)

    def execute(self, ctx: Context) -> Outcome:
        raise NotImplementedError

    def runtest(self) -> None:  # pragma: no cover - Worker.pytest_runtest_protocol runs items
        raise NotImplementedError("chcert items run through pytest_runtest_protocol")

    def reports(self, record: Record, duration: float) -> list[pytest.TestReport]:
        """The call and teardown reports of a record, as pytest would make them."""
        # Reports carry the ids that matter; walking every node keyword costs more than a replay.
        keywords: dict[str, Literal[1]] = {self.name: 1, self.clause: 1, self.target: 1}
        # Every report crosses from an xdist worker, so an item sends two, not three: the
        # call with the outcome, the teardown with the record (where JUnit XML reads
        # properties). There is no setup to report: items have no fixtures.
        teardown = pytest.TestReport(
            self.nodeid, self.location, keywords, "passed", None, "teardown"
        )
        teardown.user_properties = [*self.user_properties, (RECORD_KEY, record.to_json())]
        return [call_report(record, self.nodeid, self.location, keywords, duration), teardown]

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


STATUS_KEY = "chcert_status"  # the item's status, on its call report (Controller.teststatus)


def call_report(
    record: Record,
    nodeid: str,
    location: tuple[str, int | None, str],
    keywords: dict[str, Literal[1]],
    duration: float = 0.0,
) -> pytest.TestReport:
    """The call report of a record: pytest counts it as chcert does (docs/verdict.md), so
    an item that passed is never listed under FAILURES, whatever it found of other
    clauses (those are items of their own, reported by the controller)."""
    outcome: Literal["passed", "failed", "skipped"] = "passed"
    longrepr: Any = None
    if record.status is Status.NOT_TESTED:
        outcome = "skipped"
        longrepr = (location[0], 0, f"Skipped: not tested: {record.message}")
    elif record.status is not Status.PASS:
        outcome, longrepr = "failed", _describe(record)
    report = pytest.TestReport(
        nodeid, location, keywords, outcome, longrepr, "call", duration=duration
    )
    report.user_properties = [(STATUS_KEY, record.status.value)]
    return report


def _describe(r: Record) -> str:
    lines = [f"{r.status.value.upper()} {r.clause} {r.name}: {r.message}"]
    lines += [f"  elsewhere {f.item}: {f.message}" for f in r.findings]
    if r.expected is not None or r.actual is not None:
        lines += [f"  expected: {r.expected}", f"  actual:   {r.actual}"]
    lines.append(f"  reproduce: {r.reproduce}")
    return "\n".join(lines)


class VectorItem(ChcertItem):
    kind = ItemKind.VECTOR

    def execute(self, ctx: Context) -> Outcome:
        assert isinstance(self.payload, Vector)
        judges = self.spec.judges.get(self.clause, ())
        return replay_vector(
            dataclasses.replace(ctx, clause=self.clause, judges=judges), self.payload
        )


class RefusalItem(ChcertItem):
    """One bad request the game must refuse, and stay whole (docs/refusals.md)."""

    kind = ItemKind.VECTOR
    found_by = FoundBy.REFUSAL

    def execute(self, ctx: Context) -> Outcome:
        assert isinstance(self.payload, RefusalVector)
        ctx = dataclasses.replace(ctx, clause=self.clause)
        try:
            return replay_refusal(ctx, self.payload)
        except CheckFailure as exc:  # a legal round refused: another clause's fault
            elsewhere = refused_elsewhere(ctx, self.target, exc)
            if elsewhere is None:
                raise
            return elsewhere


class CheckItem(ChcertItem):
    kind = ItemKind.CHECK

    check: Check
    shard: tuple[int, int]

    def take(self, planned: Planned, spec: RunSpec) -> None:
        super().take(planned, spec)
        self.check, self.shard = REGISTRY.target(self.target)
        self.found_by = self.check.found_by

    @property
    def fault_kind(self) -> str:
        return self.check.name

    def execute(self, ctx: Context) -> Outcome:
        shard, clause = self.shard, self.clause
        return REGISTRY.run(self.check.name, dataclasses.replace(ctx, shard=shard, clause=clause))


class CorpusItem(ChcertItem):
    """One clause's share of the generated corpus, replayed pipelined (docs/corpus.md)."""

    kind = ItemKind.CORPUS
    found_by = FoundBy.CORPUS

    def execute(self, ctx: Context) -> Outcome:
        assert isinstance(self.payload, tuple)
        spec = self.spec

        def reproduce(vector: Vector) -> str:
            clause = vector.clause_for[spec.profile.clauses_from]
            return spec.command(f"{clause}/{vector.id}", ["--vectors", str(vector.path)])

        share = list(self.payload)
        judges = spec.judges.get(self.clause, ())
        return replay_corpus(
            dataclasses.replace(ctx, clause=self.clause, judges=judges), share, reproduce
        )


ITEM_CLASSES: dict[Replay, type[ChcertItem]] = {
    Replay.VECTOR: VectorItem,
    Replay.REFUSAL: RefusalItem,
    Replay.CHECK: CheckItem,
    Replay.CORPUS: CorpusItem,
}


class PlannedFile(pytest.File):
    """A catalog, vector, refusal or corpus file: the planned items collected from it
    (a --vectors file yields its vectors only, even the corpus's file)."""

    def collect(self) -> Iterator[pytest.Item]:
        spec = self.config.stash[SPEC]
        path = self.path.resolve()
        extra = path in spec.extra_vector_files
        for planned in spec.plan:
            if planned.path != path or (extra and planned.item.kind is not ItemKind.VECTOR):
                continue
            item = ITEM_CLASSES[planned.replays].from_parent(self, name=planned.item.name)
            item.take(planned, spec)
            yield item
