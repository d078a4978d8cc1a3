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
import dataclasses
import functools
import json
import shlex
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
import yaml

from harness.adapters import Adapter, open_adapter
from harness.attestations import load_attestations
from harness.checks import (
    CHECKS,
    REGISTRY,
    CheckFailure,
    Context,
    NotTested,
    replay_corpus,
    replay_refusal,
    replay_vector,
)
from harness.corpus import CORPUS_DIR
from harness.errors import ChcertError, ErrorReply, ProtocolViolation, SpecError
from harness.evidence import Minimums
from harness.evidence import resolve as resolve_minimums
from harness.gamemath import census_progress, main_game, profile_math
from harness.outcomes import Status
from harness.profiles import Profile, load_profile
from harness.publication import published_figures
from harness.refusals import REFUSAL_DIR, RefusalVector, load_all_refusals
from harness.results import (
    PlannedItem,
    Record,
    RunFacts,
    build_results,
    failure_entry,
    now,
    write_json_atomic,
)
from harness.settings import from_plugin
from harness.specs import Catalog, Clause, clause_index, fault_owners, load_catalogs
from harness.vectors import (
    VECTOR_DIR,
    Vector,
    load_all_vectors,
    load_vector_file,
    verify_unique_ids,
)

RECORD_KEY = "chcert"
REPRO_DIR = "repro"


class CertificationRun:
    """The state of one certification run, on the controller and on each worker."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.settings = from_plugin(config.option)
        self.profile: Profile = load_profile(self.settings["profile"])
        self.adapter_spec: str = self.settings["adapter"]
        self.out = Path(self.settings["out"])
        # Where the files are written; commands and reports name them in `out`, where
        # chcert certify moves them once the run is over (docs/robustness.md).
        self.stage = Path(config.getoption("chcert_stage") or self.out)
        self.seed: int = self.settings["seed"]
        self.timeout: float = self.settings["timeout"]
        self.rng_decks: int = self.settings["rng_decks"]
        self.rtp_rounds: int = self.settings["rtp_rounds"]
        self.differential: int = self.settings["differential"]
        self.repeat: int = self.settings["repeat"]
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
        self.fault_owners = fault_owners(self.clauses)
        index = clause_index(all_catalogs)
        self.extra_vector_files = [Path(p).resolve() for p in config.getoption("chcert_vectors")]
        vectors = load_all_vectors(index, extra=self.extra_vector_files)
        self.vectors: list[Vector] = [v for v in vectors if self.profile.name in v.profiles]
        self.refusals: list[RefusalVector] = [
            r for r in load_all_refusals(index) if self.profile.name in r.profiles
        ]
        verify_unique_ids([*vectors, *self.refusals])
        # The generator writes one corpus file a profile, named after it (docs/corpus.md),
        # and `chcert vectors generate --check` keeps it so: the others are not read.
        self.corpus_file = CORPUS_DIR / f"{self.profile.name}.json"
        self.corpus: list[Vector] = [
            v
            for v in (
                load_vector_file(self.corpus_file, index) if self.corpus_file.exists() else []
            )
            if self.profile.name in v.profiles
        ]
        if not self.clauses:
            raise SpecError(
                self.profile.path,
                None,
                f"no clause of the catalogs {list(self.profile.catalogs)} applies to profile "
                f"{self.profile.name!r}: nothing could be certified (clauses list the profiles "
                "they apply to by name)",
            )
        for path in self.extra_vector_files:
            if not any(v.path.resolve() == path for v in self.vectors):
                raise SpecError(
                    path, None, f"no vector of this file applies to {self.profile.name}"
                )
        attest = config.getoption("chcert_attest")
        self.attestations = load_attestations(attest, self.clauses) if attest else []
        self.minimums = self._minimums(config.getoption("chcert_minimums"))
        self.planned = self._plan()
        self.started = now()
        self.records: list[Record] = []
        self.collected: set[str] | None = None
        self.implementation: dict[str, Any] | None = None
        self.incomplete: list[str] = []
        # results.json as built, for chcert certify to take in memory: a file in the
        # output folder is one a game's process could replace (harness/cli/certify.py _Handover)
        self.results: dict[str, Any] | None = None
        self.interrupted_by = "Ctrl-C"
        self.hello_fault: dict[str, Any] | None = None
        self.stderr_tail = ""
        self._context: Context | None = None
        self._adapter: Adapter | None = None

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def _plan(self) -> list[PlannedItem]:
        """Every item the profile calls for, before any selection: what a PASS needs."""
        wanted = {c.id for c in self.clauses}
        planned = [
            PlannedItem(f"{clause.id}/{target}", clause.id, "check", target)
            for clause in self.clauses
            for name in clause.checks
            for target, _ in CHECKS[name].targets()
        ]
        for vector in self.vectors:
            clause = vector.clause_for[self.profile.name]
            if clause in wanted:
                planned += [
                    PlannedItem(f"{clause}/{vector.id}{suffix}", clause, "vector", vector.id)
                    for suffix in repeat_suffixes(self.repeat)
                ]
        for refusal in self.refusals:
            clause = refusal.clause_for[self.profile.name]
            if clause in wanted:
                planned.append(PlannedItem(f"{clause}/{refusal.id}", clause, "vector", refusal.id))
        corpus_clauses = {v.clause_for[self.profile.name] for v in self.corpus} & wanted
        planned += [
            PlannedItem(f"{clause}/corpus", clause, "corpus", "corpus")
            for clause in sorted(corpus_clauses)
        ]
        return planned

    def selection(self) -> dict[str, str]:
        """The selection expressions given to pytest (-k, -m), as results.json records them."""
        given = {
            "-k": self.config.getoption("keyword"),
            "-m": self.config.getoption("markexpr"),
            "--item": " ".join(self.config.getoption("chcert_item")),
        }
        return {flag: str(expr) for flag, expr in given.items() if expr}

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """`--item NAME`: exactly the items named (all repeats of each), where -k would
        match every name containing NAME."""
        wanted = set(config.getoption("chcert_item"))
        if not wanted:
            return
        kept = [i for i in items if i.name.partition("#")[0] in wanted]
        left = [i for i in items if i.name.partition("#")[0] not in wanted]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = kept

    # ------------------------------------------------------------ session

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """On the controller: say hello once, so an unreachable game stops the run early."""
        if self.is_worker:
            return
        # The exact mathematics, computed (or loaded from the cache) once, here, before
        # workers need it: the strategy the differential and the RTP simulation play
        # is then in the strategy cache. Should it fail, the simulation and the math
        # section record the error where it shows.
        with contextlib.suppress(Exception):
            _ = main_game(self.profile, census_progress(quiet=False)).strategy
        distributed = self.config.pluginmanager.hasplugin("dsession")
        adapter: Adapter | None = None
        try:
            adapter = self._open()
            self.implementation = adapter.request("hello")
        except ProtocolViolation as exc:
            self._hello_failed(exc)
        except ErrorReply as exc:
            reply = {"error": {"code": exc.code, "message": exc.message}}
            self._hello_failed(ProtocolViolation(f"refused with {exc}", {"reply": reply}))
        except (ChcertError, OSError) as exc:
            self._stop(f"implementation unreachable ({self.adapter_spec}): {exc}")
        finally:
            if adapter is not None and (distributed or self.implementation is None):
                adapter.close()  # each worker opens its own connection
        if adapter is not None and not distributed:  # items run here: keep the game that is up
            self._adapter = adapter
            assert self.implementation is not None
            self._context = self._new_context(adapter, self.implementation)

    def _hello_failed(self, exc: ProtocolViolation) -> None:
        """A game that answers hello outside protocol v1 fails; one that never answers it
        (it exited, or hung) cannot be judged: unreachable, with its stderr shown."""
        self.stderr_tail = str(exc.evidence.get("stderr_tail", ""))
        if "reply" not in exc.evidence and "raw" not in exc.evidence:
            self._stop(f"implementation unreachable ({self.adapter_spec}): {exc}")
        message = str(exc).replace("hello reply does not conform to protocol v1:", "").strip()
        self.hello_fault = failure_entry(
            "implementation",
            None,
            "hello",
            f"hello does not conform to protocol v1: {message}",
            self.command(None),  # hello comes first: the whole run shows it
            expected="a hello reply conforming to protocol v1 (docs/adapter-protocol.md)",
            actual=exc.evidence.get("reply", exc.evidence.get("raw")),
            evidence=exc.evidence,
        )
        self._stop(self.hello_fault["message"], returncode=1)

    def _stop(self, reason: str, returncode: int = 2) -> None:
        if returncode == 2:
            self.incomplete.append(reason)
        self.write_results()
        pytest.exit(reason, returncode=returncode)

    def _new_context(self, adapter: Adapter, hello: dict[str, Any]) -> Context:
        return Context(
            adapter,
            hello,
            self.profile,
            self.seed,
            self.rng_decks,
            rtp_rounds=self.rtp_rounds,
            differential=self.differential,
            fault_owners=self.fault_owners,
            shared=self.adapter_spec.startswith(("http://", "https://"))
            and int(getattr(self.config, "workerinput", {}).get("workercount", 1)) > 1,
        )

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """In-process: which planned items the selection kept."""
        if not self.is_worker and not self.config.pluginmanager.hasplugin("dsession"):
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

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None
        if self.is_worker:
            return
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            self.incomplete.append(
                f"run interrupted ({self.interrupted_by}) before every item had run"
            )
        elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:
            self.incomplete.append("internal error in the test runner")
        elif exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.selection():
            return  # a selection matching nothing is a usage error: no certificate at all
        self.write_results()

    def write_results(self) -> None:
        for record in self.records:
            if record.repro is not None and not record.repro_file:
                self._write_repro(record)
        math = self._math()
        results = build_results(
            RunFacts(
                profile=self.profile,
                catalogs=self.catalogs,
                adapter=self.adapter_spec,
                implementation=self.implementation,
                planned=self.planned,
                records=self.records,
                started=self.started,
                seed=self.seed,
                math=math,
                collected=self.collected,
                selection=self.selection(),
                incomplete=self.incomplete,
                hello_fault=self.hello_fault,
                stderr_tail=self.stderr_tail,
                published=self._published(),
                attestations=self.attestations,
                run_plan=self.run_plan(),
                run_command=self.command(None),
                math_command=shlex.join(["chcert", "math", "--profile", self.profile_arg]),
                minimums=self.minimums,
            )
        )
        self.results = results  # first: kept even should the file not be written
        write_json_atomic(self.stage / "results.json", results)

    def _minimums(self, given: str | None) -> Minimums:
        """The sample sizes a certificate needs: chcert's defaults, raised by the profile's
        evidence_minimums, set key by key by the laboratory's (--chcert-minimums, from a
        named run plan; harness/evidence.py resolve)."""
        try:
            stated = json.loads(given) if given else {}
            if not isinstance(stated, dict):
                raise ValueError("a JSON object is expected")
            source = str(stated.pop("source", "--chcert-minimums"))
            return resolve_minimums(
                self.profile.name, self.profile.raw.get("evidence_minimums"), stated, source
            )
        except ValueError as exc:  # chcert certify checks it before the run
            raise pytest.UsageError(f"minimum sample sizes: {exc}") from None

    def _published(self) -> list[dict[str, Any]]:
        """The figures the game publishes (hello config.published), against the exact
        mathematics of the pay tables it declares."""
        if self.implementation is None:
            return []
        try:
            return published_figures(
                self.profile,
                self.profile_arg,
                self.implementation.get("config"),
                self.stage / REPRO_DIR,
                self.out / REPRO_DIR,
            )
        except Exception as exc:  # the harness's own failure: reported, never the game's
            return [
                {
                    "figure": "all",
                    "clause": None,
                    "status": Status.ERROR.value,
                    "claimed": None,
                    "computed": None,
                    "reason": f"{type(exc).__name__}: {exc}",
                }
            ]

    def _write_repro(self, record: Record) -> None:
        """Write a failing randomized round as a vector file, and the command replaying it."""
        assert record.repro is not None
        test = record.repro["groups"][0]["tests"][0]
        test["clauses"] = [record.clause]
        written = self.stage / REPRO_DIR / f"{test['id']}.yaml"
        written.parent.mkdir(parents=True, exist_ok=True)
        written.write_text(yaml.safe_dump(record.repro, sort_keys=False), encoding="utf-8")
        path = (self.out / REPRO_DIR / written.name).resolve()
        record.repro_file = f"{REPRO_DIR}/{path.name}"
        capabilities = (self.implementation or {}).get("capabilities") or []
        if "inject" not in capabilities:
            # The game dealt the round itself: the vector is evidence, but cannot be asked of
            # it, and its own shuffle will not deal that round again. The item's command
            # runs the check again; it is no exact replay.
            record.evidence["reproduction"] = (
                "the game lacks capability inject: the repro vector cannot be replayed "
                "against it, and the reproduce command plays new rounds of its own shuffle"
            )
            return
        record.reproduce = self.command(
            f"{record.clause}/{test['id']}", ["--vectors", str(path), "--rtp-rounds", "0"]
        )

    def _math(self) -> dict[str, Any]:
        """The profile's exact figures, and the strategy file beside results.json."""
        try:
            math = profile_math(self.profile)
            main_game(self.profile).strategy.save(self.stage / "strategy.npz")
        except Exception as exc:  # the report is still written, marked so
            reason = f"{type(exc).__name__}: {exc}"
            return {"status": Status.ERROR.value, "reason": reason, "claims": []}
        math["strategy"]["file"] = "strategy.npz"
        return math

    # ------------------------------------------------------- reproduction

    @functools.cached_property
    def profile_arg(self) -> str:
        """The profile as a command line names it: its name when bundled, else its path."""
        try:
            bundled = load_profile(self.profile.name).path.resolve() == self.profile.path.resolve()
        except SpecError:
            bundled = False
        return self.profile.name if bundled else str(self.profile.path.resolve())

    def run_plan(self) -> dict[str, Any]:
        """The settings of this run, as the manifest records them."""
        return self.settings.manifest(self.profile_arg, self.selection())

    def command(self, select: str | None, extra: list[str] | tuple[str, ...] = ()) -> str:
        """The `chcert certify` command that runs one item (None: all) again, exactly as
        this run did, writing to OUT/reproduce (harness/settings.py)."""
        return self.settings.reproduce(self.profile_arg, self.out, select, extra)

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
            record = Record.from_json(str(props[RECORD_KEY]))
            self.records.append(record)
            self._add_findings(record)
        elif (report.failed and report.when != "call") or str(report.when) == "???":
            # A setup/teardown error or a crashed worker: no record came back.
            item = report.nodeid.rpartition("::")[2]
            clause, _, name = item.partition("/")
            planned = next((p for p in self.planned if p.name == item), None)
            self.records.append(
                Record(
                    node=report.nodeid,
                    clause=clause,
                    kind=planned.kind if planned else "vector",
                    name=name,
                    status=Status.ERROR,
                    message=f"item did not run to completion ({report.when}): "
                    + str(report.longrepr)[-300:],
                )
            )

    def _add_findings(self, record: Record) -> None:
        """Failures a check attributes to other clauses (the differential's causes) become
        records of their own clause; one cause found by several shards counts once."""
        known = {r.item: r for r in self.records}
        for finding in record.findings:
            same = known.get(finding["item"])
            if same is not None:
                same.evidence["count"] = same.evidence.get("count", 0) + finding["count"]
                continue
            derived = Record(
                node=f"{record.node.rpartition('::')[0]}::{finding['item']}",
                clause=finding["clause"],
                kind="differential",
                name=finding["item"].partition("/")[2],
                status=Status.FAIL,
                message=finding["message"],
                expected=finding["expected"],
                actual=finding["actual"],
                evidence={
                    **finding["evidence"],
                    "kind": finding.get("kind", ""),  # the fault's kind and detail, as the
                    "detail": finding.get("detail", ""),  # results' causes table shows them
                    "count": finding["count"],
                    "found_by": record.item,
                },
                reproduce=record.reproduce,
                repro=finding["repro"],
            )
            self.records.append(derived)
            known[derived.item] = derived
        record.findings = []

    # ---------------------------------------------------------- collection

    def pytest_collect_file(
        self, file_path: Path, parent: pytest.Collector
    ) -> pytest.Collector | None:
        if file_path in self.extra_vector_files:
            return VectorFile.from_parent(parent, path=file_path)
        if file_path.suffix == ".json" and file_path.parent == CORPUS_DIR:
            if file_path != self.corpus_file.resolve():
                return None
            return CorpusFile.from_parent(parent, path=file_path)
        if file_path.suffix != ".yaml":
            return None
        if file_path.parent == REFUSAL_DIR:
            return RefusalFile.from_parent(parent, path=file_path)
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
        extra = ["--vectors", str(item.path)] if item.path in self.extra_vector_files else []
        record = Record(
            node=item.nodeid,
            clause=item.clause,
            kind=item.kind,
            name=item.target,
            status=Status.PASS,
            reproduce=self.command(f"{item.clause}/{item.target}", extra),
        )
        try:
            findings = item.execute(self.context())
            if findings:
                record.findings = findings.pop("findings", [])
                record.evidence.update(findings)
                elsewhere = sorted({f["clause"] for f in record.findings} - {item.clause})
                if elsewhere:
                    record.message = f"failures attributed to {', '.join(elsewhere)}"
                if any(f["clause"] == item.clause for f in record.findings):
                    record.status, record.message = Status.FAIL, _summary(record.findings)
                gap = record.evidence.pop("not_tested", None)
                if gap and record.status is Status.PASS:  # part of the item could not run
                    record.status, record.needs = Status.NOT_TESTED, gap["needs"]
                    record.message = gap["reason"]
        except NotTested as exc:
            record.status, record.message, record.needs = Status.NOT_TESTED, str(exc), exc.needs
        except CheckFailure as exc:
            record.status, record.message = Status.FAIL, exc.message
            record.expected, record.actual, record.evidence = exc.expected, exc.actual, exc.evidence
            record.protocol_fault = exc.violation is not None
            record.repro = exc.repro
        except ProtocolViolation as exc:  # e.g. the hello of a fresh worker connection
            record.status, record.message = Status.FAIL, f"protocol violation: {exc}"
            record.evidence, record.protocol_fault = exc.evidence, True
        except ErrorReply as exc:  # a refusal no check expected: of a valid request
            record.status, record.message = Status.FAIL, f"refused a valid request: {exc}"
            record.actual = {"error": {"code": exc.code, "message": exc.message}}
        except Exception as exc:  # the harness's fault (HarnessFault), or a bug of its own
            record.status = Status.ERROR
            record.message = (
                f"harness error in {item.kind} {item.target}: {type(exc).__name__}: {exc}"
            )
            record.evidence = {"traceback": traceback.format_exc()[-4000:]}
        return record


def _summary(findings: list[dict[str, Any]]) -> str:
    return "; ".join(f["message"] for f in findings[:3]) + (
        f"; and {len(findings) - 3} more causes" if len(findings) > 3 else ""
    )


def repeat_suffixes(repeat: int) -> list[str]:
    """The name suffixes of a vector replayed `repeat` times (`#1`, `#2`, ...)."""
    return [f"#{k + 1}" for k in range(repeat)] if repeat > 1 else [""]


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
        elif record.status is not Status.PASS or record.findings:
            # A check whose findings fail other clauses shows as failed here too.
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
    lines += [f"  FAIL {f['item']}: {f['message']}" for f in r.findings]
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


class RefusalItem(ChcertItem):
    """One bad request the game must refuse, and stay whole (docs/refusals.md)."""

    kind = "vector"

    def setup_refusal(self, refusal: RefusalVector, clause: str) -> None:
        self.refusal = refusal
        self.clause = clause
        self.target = refusal.id
        self.add_marker(clause)

    def execute(self, ctx: Context) -> dict[str, Any] | None:
        return replay_refusal(ctx, self.refusal)


class CheckItem(ChcertItem):
    kind = "check"

    def setup_check(self, clause: Clause, target: str) -> None:
        self.clause = clause.id
        self.target = target
        self.add_marker(clause.id)

    def execute(self, ctx: Context) -> dict[str, Any] | None:
        entry, shard = REGISTRY.target(self.target)
        return REGISTRY.run(entry.name, dataclasses.replace(ctx, shard=shard, clause=self.clause))


class CorpusItem(ChcertItem):
    """One clause's share of the generated corpus, replayed pipelined (docs/corpus.md)."""

    kind = "corpus"

    def setup_corpus(self, clause: str, vectors: list[Vector]) -> None:
        self.clause = clause
        self.target = "corpus"
        self.vectors = vectors
        self.add_marker(clause)

    def execute(self, ctx: Context) -> dict[str, Any] | None:
        run = current_run(self.config)

        def reproduce(vector: Vector) -> str:
            clause = vector.clause_for[run.profile.name]
            return run.command(f"{clause}/{vector.id}", ["--vectors", str(vector.path)])

        return replay_corpus(dataclasses.replace(ctx, clause=self.clause), self.vectors, reproduce)


class CorpusFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        run = current_run(self.config)
        wanted = {c.id for c in run.clauses}
        by_clause: dict[str, list[Vector]] = {}
        for vector in run.corpus:  # all of the profile's own file (CertificationRun)
            clause = vector.clause_for[run.profile.name]
            if clause in wanted:
                by_clause.setdefault(clause, []).append(vector)
        for clause in sorted(by_clause):
            item = CorpusItem.from_parent(self, name=f"{clause}/corpus")
            item.setup_corpus(clause, by_clause[clause])
            yield item


class VectorFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        run = current_run(self.config)
        wanted = {c.id for c in run.clauses}
        for vector in run.vectors:
            clause = vector.clause_for[run.profile.name]
            if vector.path.resolve() != self.path or clause not in wanted:
                continue
            for suffix in repeat_suffixes(run.repeat):
                item = VectorItem.from_parent(self, name=f"{clause}/{vector.id}{suffix}")
                item.setup_vector(vector, clause)
                yield item


class RefusalFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        run = current_run(self.config)
        wanted = {c.id for c in run.clauses}
        for refusal in run.refusals:
            clause = refusal.clause_for[run.profile.name]
            if refusal.path.resolve() == self.path and clause in wanted:
                item = RefusalItem.from_parent(self, name=f"{clause}/{refusal.id}")
                item.setup_refusal(refusal, clause)
                yield item


class CatalogFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        run = current_run(self.config)
        for clause in run.clauses:
            if clause_path(run, clause).resolve() != self.path:
                continue
            for name in clause.checks:
                for target, _ in CHECKS[name].targets():
                    item = CheckItem.from_parent(self, name=f"{clause.id}/{target}")
                    item.setup_check(clause, target)
                    yield item
