"""The certification run behind the pytest plugin (harness/plugin.py).

The clause catalogs and vector files named on the command line are collected
into items whose ids carry the clause and the vector (`s000-r9/nq-dealer-pair-of-
threes`), so `-k`, `-m <clause>` and pytest-xdist work as for any test. Each
worker opens its own adapter connection. Every item's outcome Record travels as
JSON on its teardown report, which survives the trip from an xdist worker; the
controller collects them and writes results.json in `pytest_sessionfinish`,
also after Ctrl-C (marked INCOMPLETE).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from harness.adapters import Adapter, open_adapter
from harness.checks import CHECKS, CheckFailure, Context, NotTested, replay_vector, run_check
from harness.errors import HarnessError, ProtocolViolation, SpecError
from harness.gamemath import census_progress, main_game, profile_math
from harness.profiles import Profile, load_profile
from harness.results import Record, Status, build_results, now, write_json_atomic
from harness.specs import Catalog, Clause, clause_index, load_catalogs
from harness.vectors import VECTOR_DIR, Vector, load_all_vectors

RECORD_KEY = "chcert"


class CertificationRun:
    """The state of one certification run, on the controller and on each worker."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.profile: Profile = load_profile(config.getoption("chcert_profile"))
        self.adapter_spec: str = config.getoption("chcert_adapter")
        self.out = Path(config.getoption("chcert_out"))
        self.seed: int = config.getoption("chcert_seed")
        self.timeout: float = config.getoption("chcert_timeout")
        self.rng_decks: int = config.getoption("chcert_rng_decks")
        self.rtp_rounds: int = config.getoption("chcert_rtp_rounds")
        all_catalogs = load_catalogs()
        self.catalogs: list[Catalog] = [c for c in all_catalogs if c.name in self.profile.catalogs]
        self.clauses: list[Clause] = [
            c for cat in self.catalogs for c in cat.for_profile(self.profile.name)
        ]
        for clause in self.clauses:
            unknown = [name for name in clause.checks if name not in CHECKS]
            if unknown:
                raise SpecError(
                    clause_path(self, clause), clause.line, f"unknown check {unknown[0]!r}"
                )
        self.vectors: list[Vector] = [
            v
            for v in load_all_vectors(clause_index(all_catalogs))
            if self.profile.name in v.profiles
        ]
        self.started = now()
        self.records: list[Record] = []
        self.implementation: dict[str, Any] | None = None
        self.incomplete: str | None = None
        self._context: Context | None = None
        self._adapter: Adapter | None = None

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    # ------------------------------------------------------------ session

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """On the controller: say hello once, so an unreachable game stops the run early."""
        if self.is_worker:
            return
        # The exact mathematics, computed (or loaded from the cache) once, here, before
        # workers need it: the RTP simulation plays its strategy. Should it fail, the
        # simulation and the math section record the error where it shows.
        with contextlib.suppress(Exception):
            main_game(self.profile, census_progress(quiet=False))
        distributed = self.config.pluginmanager.hasplugin("dsession")
        try:
            adapter = self._open()
            try:
                self.implementation = adapter.request("hello")
            finally:
                if distributed:  # each worker opens its own connection
                    adapter.close()
            if not distributed:  # items run here: keep the game that is already up
                self._adapter = adapter
                self._context = self._new_context(adapter, self.implementation)
        except (HarnessError, OSError) as exc:
            self.incomplete = f"implementation unreachable ({self.adapter_spec}): {exc}"
            self.write_results()
            pytest.exit(self.incomplete, returncode=2)

    def _new_context(self, adapter: Adapter, hello: dict[str, Any]) -> Context:
        return Context(
            adapter, hello, self.profile, self.seed, self.rng_decks, rtp_rounds=self.rtp_rounds
        )

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None
        if self.is_worker:
            return
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            self.incomplete = "run interrupted before every item had run"
        elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:
            self.incomplete = "internal error in the test runner"
        self.write_results()

    def write_results(self) -> None:
        results = build_results(
            profile=self.profile,
            catalogs=self.catalogs,
            implementation=self.implementation,
            adapter=self.adapter_spec,
            records=self.records,
            incomplete=self.incomplete,
            started=self.started,
            seed=self.seed,
            math=self._math(),
        )
        write_json_atomic(self.out / "results.json", results)

    def _math(self) -> dict[str, Any]:
        """The profile's exact figures, and the strategy file beside results.json."""
        try:
            math = profile_math(self.profile)
            main_game(self.profile).strategy.save(self.out / "strategy.npz")
        except Exception as exc:  # the report is still written, marked so
            return {"status": "error", "reason": f"{type(exc).__name__}: {exc}", "claims": []}
        math["strategy"]["file"] = "strategy.npz"
        return math

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> bool | None:
        """Run a chcert item in one step and log its three reports (see ChcertItem)."""
        if not isinstance(item, ChcertItem):
            return None
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        start = time.perf_counter()
        record = self.run_item(item)
        for report in item.reports(record, time.perf_counter() - start):
            item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect outcomes (on the controller, or in-process with -n0)."""
        if self.is_worker:
            return
        props = dict(report.user_properties)
        if RECORD_KEY in props:
            self.records.append(Record.from_json(str(props[RECORD_KEY])))
        elif (report.failed and report.when != "call") or str(report.when) == "???":
            # A setup/teardown error or a crashed worker: no record came back.
            clause, _, name = report.nodeid.rpartition("::")[2].partition("/")
            self.records.append(
                Record(
                    node=report.nodeid,
                    clause=clause,
                    kind="vector",
                    name=name,
                    status=Status.ERROR,
                    message=f"item did not run to completion ({report.when}): "
                    + str(report.longrepr)[-300:],
                )
            )

    # ---------------------------------------------------------- collection

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path.suffix != ".yaml":
            return None
        if any(file_path == cat.path.resolve() for cat in self.catalogs):
            return CatalogFile.from_parent(parent, path=file_path)
        if VECTOR_DIR in file_path.parents:
            return VectorFile.from_parent(parent, path=file_path)
        return None

    # ------------------------------------------------------------- running

    def _open(self) -> Adapter:
        return open_adapter(
            self.adapter_spec, profile_path=str(self.profile.path), timeout=self.timeout
        )

    def context(self) -> Context:
        if self._context is None:
            self._adapter = self._open()
            hello = self._adapter.request("hello")
            self._context = self._new_context(self._adapter, hello)
        return self._context

    def run_item(self, item: ChcertItem) -> Record:
        """Run one item and turn whatever happens into a Record; never raises."""
        record = Record(
            node=item.nodeid,
            clause=item.clause,
            kind=item.kind,
            name=item.target,
            status=Status.PASS,
            reproduce=(
                f"chcert certify --adapter '{self.adapter_spec}' --profile {self.profile.name}"
                f" -k '{item.target}' --seed {self.seed}"
            ),
        )
        try:
            findings = item.execute(self.context())
            if findings:
                record.evidence.update(findings)
        except NotTested as exc:
            record.status, record.message = Status.NOT_TESTED, str(exc)
        except CheckFailure as exc:
            record.status, record.message = Status.FAIL, exc.message
            record.expected, record.actual, record.evidence = exc.expected, exc.actual, exc.evidence
            record.protocol_fault = exc.message.startswith("protocol violation")
        except ProtocolViolation as exc:  # e.g. the hello of a fresh worker connection
            record.status, record.message = Status.FAIL, f"protocol violation: {exc}"
            record.evidence, record.protocol_fault = exc.evidence, True
        except Exception as exc:  # a bug or an environment problem in the harness itself
            record.status = Status.ERROR
            record.message = (
                f"harness error in {item.kind} {item.target}: {type(exc).__name__}: {exc}"
            )
        return record


def current_run(config: pytest.Config) -> CertificationRun:
    run = config.pluginmanager.get_plugin("chcert-run")
    assert isinstance(run, CertificationRun)
    return run


def clause_path(run: CertificationRun, clause: Clause) -> Path:
    return next(cat.path for cat in run.catalogs if cat.name == clause.catalog)


class ChcertItem(pytest.Item):
    """One vector replay or one clause check.

    Items run through `pytest_runtest_protocol` below, not pytest's generic
    setup/call/teardown: they have no fixtures and print nothing, and the
    generic protocol (fixture setup, output capture and log capture per phase)
    costs more than replaying a vector does.
    """

    clause: str
    kind: str
    target: str

    def execute(self, ctx: Context) -> dict[str, Any] | None:
        raise NotImplementedError

    def runtest(self) -> None:  # pragma: no cover - the protocol below runs items
        raise NotImplementedError("chcert items run through pytest_runtest_protocol")

    def reports(self, record: Record, duration: float) -> list[pytest.TestReport]:
        """The call and teardown reports of a record, as pytest would make them."""
        # Reports carry the ids that matter; walking every node keyword costs more than a replay.
        keywords: dict[str, Literal[1]] = {self.name: 1, self.clause: 1, self.target: 1}
        props = [*self.user_properties, (RECORD_KEY, record.to_json())]
        outcome: Literal["passed", "failed", "skipped"] = "passed"
        longrepr: Any = None
        if record.status is Status.NOT_TESTED:
            outcome = "skipped"
            longrepr = (str(self.path), 0, f"Skipped: not tested: {record.message}")
        elif record.status is not Status.PASS:
            outcome, longrepr = "failed", _describe(record)
        # Every report crosses from an xdist worker, so an item sends two, not three: the
        # call with the outcome, the teardown with the record (where JUnit XML reads
        # properties). There is no setup to report: items have no fixtures.
        teardown = pytest.TestReport(
            self.nodeid, self.location, keywords, "passed", None, "teardown"
        )
        teardown.user_properties = props
        return [
            pytest.TestReport(
                self.nodeid, self.location, keywords, outcome, longrepr, "call", duration=duration
            ),
            teardown,
        ]

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


def _describe(r: Record) -> str:
    lines = [f"{r.status.value.upper()} {r.clause} {r.name}: {r.message}"]
    if r.expected is not None or r.actual is not None:
        lines += [f"  expected: {r.expected}", f"  actual:   {r.actual}"]
    lines.append(f"  reproduce: {r.reproduce}")
    return "\n".join(lines)


class VectorItem(ChcertItem):
    kind = "vector"

    def setup_vector(self, vector: Vector, clause: str) -> None:
        self.vector = vector
        self.clause = clause
        self.target = vector.id
        self.add_marker(clause)

    def execute(self, ctx: Context) -> dict[str, Any] | None:
        replay_vector(ctx, self.vector)
        return None


class CheckItem(ChcertItem):
    kind = "check"

    def setup_check(self, clause: Clause, check_name: str) -> None:
        self.clause = clause.id
        self.target = check_name
        self.add_marker(clause.id)

    def execute(self, ctx: Context) -> dict[str, Any] | None:
        return run_check(self.target, ctx)


class VectorFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        run = current_run(self.config)
        wanted = {c.id for c in run.clauses}
        repeat = max(1, int(self.config.getoption("chcert_repeat")))
        for vector in run.vectors:
            clause = vector.clause_for[run.profile.name]
            if vector.path.resolve() != self.path or clause not in wanted:
                continue
            for k in range(repeat):
                suffix = f"#{k + 1}" if repeat > 1 else ""
                item = VectorItem.from_parent(self, name=f"{clause}/{vector.id}{suffix}")
                item.setup_vector(vector, clause)
                yield item


class CatalogFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        run = current_run(self.config)
        for clause in run.clauses:
            if clause_path(run, clause).resolve() != self.path:
                continue
            for name in clause.checks:
                item = CheckItem.from_parent(self, name=f"{clause.id}/{name}")
                item.setup_check(clause, name)
                yield item
