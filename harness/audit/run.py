"""One audit: a log's files read in order, judged batch by batch, the tallies turned into
audit.json, the vectors that replay its settlement findings, and a Markdown summary
(docs/audit.md)."""

from __future__ import annotations

import contextlib
import functools
import re
import shlex
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import yaml

from harness import __version__
from harness.atomic import write_bytes_atomic
from harness.audit.builds import build_findings, coverage_note
from harness.audit.cards import ALPHA as CARD_ALPHA
from harness.audit.cards import card_tests
from harness.audit.drift import ALPHA as DRIFT_ALPHA
from harness.audit.drift import LEAST_CALLS_A_DAY, drift_test
from harness.audit.judge import Partial, Tally, met_again
from harness.audit.leak import ALPHA as LEAK_ALPHA
from harness.audit.leak import leak_family
from harness.audit.model import (
    Audit,
    AuditCheck,
    Band,
    CheckResult,
    Finding,
    Period,
    Rows,
)
from harness.audit.pieces import Setup, merge, pieces
from harness.audit.pieces import run as run_pieces
from harness.audit.returns import ALPHA as RETURN_ALPHA
from harness.audit.returns import (
    BAND_GROUPS,
    BAND_Z,
    OTHER,
    GroupSums,
    Moments,
    return_tests,
)
from harness.errors import UsageError
from harness.gamemath.census import Progress as CensusProgress
from harness.gamemath.rng import POWER, StatResult, holm
from harness.register.records import Standing
from harness.results.outcomes import Status, Verdict
from harness.rules.catalogs import Clause, applicable, fault_owners, load_catalogs
from harness.rules.profiles import Profile
from harness.rules.table import Table, table_of
from harness.vectors.settlement import round_vector

VECTOR_DIR = "vectors"


@dataclass(frozen=True)
class Request:
    """What an audit is asked: the log, the configuration it was played under, the
    period, and (for the commands that replay a finding) the game's adapter."""

    files: list[Path]
    profile: Profile
    profile_sha256: str
    declared: dict[str, object] | None = None  # the game's hello config
    since: datetime | None = None
    until: datetime | None = None
    adapter: str | None = None

    @functools.cached_property
    def clauses(self) -> list[Clause]:
        """The clauses the profile is certified under (its catalogs' applicable ones),
        read once: the fault kinds' owners and the statistical checks' clauses."""
        catalogs = [c for c in load_catalogs() if c.name in self.profile.catalogs]
        return applicable(catalogs, self.profile).clauses


def declared_table(request: Request) -> Table | None:
    """The table the declaration states, or None when none is given; a declaration that
    states no table (ante limits not a range) is a usage error: no stake can be judged."""
    if request.declared is None:
        return None
    table = table_of(request.declared)
    if table is None:
        raise UsageError("--declared: its limits.ante is not a range [min, max], 1 <= min <= max")
    return table


def differences(profile: Profile, declared: dict[str, object]) -> list[str]:
    """What a declaration pays or plays otherwise than the profile (read as protocol v1
    reads a declaration: an ante row not listed pays 1 to 1, an AA row not listed
    loses): the audit judges the rows by the profile, so the two must be one game."""
    from harness.checks.declarations import same_meaning

    wanted = profile.declared_config()
    return [
        name
        for name in ("ante_pay_table", "aa_bonus_pay_table", "dealer_qualifier", "call_multiple")
        if not same_meaning(name, wanted.get(name), declared.get(name))
    ]


def _micros(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1_000_000)


def audit(
    request: Request,
    progress: Callable[[int], None] = lambda _: None,
    census: CensusProgress | None = None,
    jobs: int = 1,
    dask: str | None = None,
    spill: Path | None = None,
) -> Partial:
    """Every piece of the log judged (here, in `jobs` processes or on the Dask cluster
    at `dask`) and merged in order: the tallies of the whole log (`census`: the progress
    of the census's computation, where its cache has none; `spill`: where the round ids
    go, a folder every worker reaches)."""
    owners = fault_owners(request.clauses)
    if dask is None:  # this process judges pieces: the moments worked or read here, once
        Moments.of(request.profile, census)
    else:  # worked here with the census's progress where no cache has them, for the
        # workers judging the pieces to read; they are theirs to hold
        Moments.prepare(request.profile, census)
    folder = tempfile.mkdtemp(prefix="chcert-audit-", dir=spill)
    try:
        setup = Setup(
            request.profile,
            declared_table(request),
            owners,
            folder,
            since=_micros(request.since),
            until=_micros(request.until),
            files=tuple(str(p) for p in request.files),
        )
        log = pieces(request.files)
        judged, repeats = run_pieces(setup, log, jobs, dask, progress)
        partial = merge(setup, judged)
        met_again(repeats, list(setup.files), partial)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    # The round ids' files (gigabytes at 10^8 rows, a second to delete) deleted beside
    # the verdict's work; the process ends only once they are.
    threading.Thread(target=shutil.rmtree, args=(folder, True), name=SPILL_REMOVAL).start()
    return partial


SPILL_REMOVAL = "chcert-spill-removal"  # the thread that deletes a run's round-id files


def _time(micros: int | None) -> str | None:
    if micros is None:
        return None
    return datetime.fromtimestamp(micros / 1e6, UTC).isoformat().replace("+00:00", "Z")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80]


def record(
    request: Request,
    partial: Partial,
    out: Path,
    standings: Mapping[str, Standing] | None = None,
) -> Audit:
    """audit.json from the tallies; each settlement cause's replay written beside it;
    given the register's `standings` of the log's builds, the register check."""
    findings = []
    for (check, kind, detail, clause), tally in sorted(
        partial.tallies.items(), key=lambda kv: (kv[0][0], -kv[1].count, kv[0][1], kv[0][2])
    ):
        vector, reproduce = _replay(request, out, kind, detail, clause, tally)
        findings.append(
            Finding(
                check=AuditCheck(check),
                kind=kind,
                detail=detail,
                clause=clause,
                count=tally.count,
                examples=list(tally.examples),
                by_build=dict(sorted(tally.by_build.items())),
                by_day=dict(sorted(tally.by_day.items())),
                vector=vector,
                reproduce=reproduce,
            )
        )
    cards, card_findings = _cards(request, partial)
    returns, return_findings = _returns(request, partial)
    drift, drift_findings = _drift(request, partial)
    leak, leak_findings = _leak(request, partial)
    findings += card_findings + return_findings + drift_findings + leak_findings
    if standings is not None:
        findings += build_findings(partial.build_rows, standings, request.profile.name)
    checks = [
        _check(
            AuditCheck.INTEGRITY, partial.rows, findings, NO_TABLE if not request.declared else ""
        ),
        _check(AuditCheck.SETTLEMENT, partial.judged, findings),
        cards,
        returns,
        drift,
        leak,
    ]
    if standings is not None:
        checks.append(_check(AuditCheck.REGISTER, partial.rows, findings, coverage_note(standings)))
    reasons = []
    if partial.rows == 0:
        reasons.append("the log holds no row in the period: nothing was judged")
    if cards.status is Status.NOT_TESTED and partial.rows:
        reasons.append(f"too few rows for the card tests: {cards.reason}")
    if returns.status is Status.NOT_TESTED and partial.rows:
        reasons.append(f"the return test not tested: {returns.reason}")
    if drift.status is Status.NOT_TESTED and partial.rows:
        reasons.append(f"the drift test not tested: {drift.reason}")
    if leak.status is Status.NOT_TESTED and partial.rows:
        reasons.append(f"the leak tests not tested: {leak.reason}")
    if partial.unjudged:
        reasons.append(
            f"{partial.unjudged:,} well-formed rows could not be re-settled (a board not dealt "
            "where a seat called or an AA Bonus rests on the flop)"
        )
    verdict = Verdict.FAIL if findings else Verdict.INCOMPLETE if reasons else Verdict.PASS
    return Audit(
        tool=f"chcert {__version__}",
        created=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        profile=request.profile.name,
        profile_sha256=request.profile_sha256,
        declared=request.declared,
        files=[str(p) for p in request.files],
        period=Period(
            since=_time(_micros(request.since)),
            until=_time(_micros(request.until)),
            first=_time(partial.first_time),
            last=_time(partial.last_time),
        ),
        rows=Rows(
            read=partial.rows,
            malformed=partial.malformed,
            judged=partial.judged,
            unjudged=partial.unjudged,
            void=partial.void,
            rounds=partial.rounds,
        ),
        checks=checks,
        findings=findings,
        bands=bands(partial.groups),
        verdict=verdict,
        reasons=reasons,
    )


def bands(groups: dict[tuple[str, str], GroupSums]) -> list[Band]:
    """Each group's return and its 95% and 99% bands around the expected return."""
    out = []
    for (group, value), g in sorted(groups.items(), key=lambda kv: _band_order(*kv[0])):
        if not g.staked:
            continue
        sd = g.variance**0.5
        band = {
            level: ((g.expected - z * sd) / g.staked, (g.expected + z * sd) / g.staked)
            for level, z in BAND_Z.items()
        }
        rtp = g.returned / g.staked
        outside = next(
            (f"{level}%" for level in (99, 95) if not band[level][0] <= rtp <= band[level][1]),
            "",
        )
        out.append(
            Band(
                group=group,
                value=value,
                seats=g.seats,
                staked=g.staked,
                returned=g.returned,
                rules_returned=g.rules,
                expected=g.expected,
                rtp=rtp,
                expected_rtp=g.expected / g.staked,
                band_95=band[95],
                band_99=band[99],
                outside=outside,
            )
        )
    return out


def _band_order(group: str, value: str) -> tuple[int, bool, int, str]:
    """Groups in BAND_GROUPS' order; stakes by amount, other values by name, the values
    pooled beyond the most a group shows last."""
    other = value == OTHER
    return (
        BAND_GROUPS.index(group),
        other,
        int(value) if group == "stake" and not other else 0,
        value,
    )


def _clause_of_check(request: Request, check: str) -> str | None:
    """The clause that certifies `check` under the profile (the catalogs' `checks:`)."""
    return next((c.id for c in request.clauses if check in c.checks), None)


def _rejections(
    check: AuditCheck, kind: str, tests: list[StatResult], clause: str | None, count: int
) -> list[Finding]:
    """One finding of a Holm family of z-tests, naming the tests that reject; none when
    none does."""
    rejected = [t for t in tests if not t.passed]
    if not rejected:
        return []
    detail = "; ".join(
        f"{t.name}: z {t.statistic:.2f}, Holm-adjusted p {t.p_adjusted:.2g}" for t in rejected
    )
    return [Finding(check=check, kind=kind, detail=detail, clause=clause, count=count, examples=[])]


def _returns(request: Request, partial: Partial) -> tuple[CheckResult, list[Finding]]:
    """The return check's tests (a seat position each, Holm), and one finding of the
    shuffle's clause naming those whose return falls below what the cards allow
    (harness/audit/returns.py)."""
    family = return_tests(partial.returns, above=False)
    tests, too_few = family.tests, family.too_few
    holm(tests, RETURN_ALPHA)
    calls = partial.returns.calls
    clause = _clause_of_check(request, "rng-battery")
    findings = _rejections(AuditCheck.RETURN, "dealt-against-the-player", tests, clause, calls)
    notes = [] if family.first_read else [*too_few]
    if partial.returns.unread:
        notes.append(
            f"{partial.returns.unread:,} calls not read: their rounds' seats saw other seats' "
            "cards (hole cards face up, or a player with two seats), which the expectation "
            "does not condition on"
        )
    read = family.first_read
    status = Status.FAIL if findings else Status.PASS if read else Status.NOT_TESTED
    return CheckResult(
        name=AuditCheck.RETURN,
        status=status,
        rows=calls,
        findings=len(findings),
        reason="; ".join(notes),
        alpha=RETURN_ALPHA,
        correction="Holm",
        power=POWER,
        tests=[t.record() for t in tests],
        too_few=too_few,
    ), findings


def _drift(request: Request, partial: Partial) -> tuple[CheckResult, list[Finding]]:
    """The drift test's check, with each build's first day as a change point, and a
    finding of the shuffle's clause if the return moved (harness/audit/drift.py)."""
    test = drift_test(partial.returns.by_day)
    first = min(test.days, default="")
    builds = sorted(partial.build_days.items(), key=lambda b: b[1])
    changes = ", ".join(f"{build} from {day}" for build, day in builds if day > first)
    findings = []
    t = test.result
    if t is not None and not t.passed:
        findings.append(
            Finding(
                check=AuditCheck.DRIFT,
                kind="return-drifts",
                detail=f"{t.name}: CUSUM {t.statistic:.2f} above h {test.limit:.2f}, p "
                f"{t.p_value:.2g} < {DRIFT_ALPHA}; moving from {test.change}"
                + (f" (builds: {changes})" if changes else ""),
                clause=_clause_of_check(request, "rng-battery"),
                count=sum(partial.returns.by_day[d].calls for d in test.days),
                examples=[],
            )
        )
    if t is None:
        note = test.too_few
    else:
        note = (
            f"{len(test.days)} days; decision limit h {test.limit:.2f}, in-control run length "
            f"{'at least ' if test.run_length_at_least else ''}{test.run_length:,.0f} days; "
            f"build changes: {changes or 'none'}"
        )
    status = Status.FAIL if findings else Status.PASS if t is not None else Status.NOT_TESTED
    return CheckResult(
        name=AuditCheck.DRIFT,
        status=status,
        rows=sum(partial.returns.by_day[d].calls for d in test.days),
        findings=len(findings),
        reason=note,
        alpha=DRIFT_ALPHA,
        correction="none (one test)",
        power=POWER,
        tests=[] if t is None else [t.record()],
        too_few=[f"{day}: fewer than {LEAST_CALLS_A_DAY} effective calls" for day in test.left_out],
    ), findings


def _leak(request: Request, partial: Partial) -> tuple[CheckResult, list[Finding]]:
    """The leak family's check, and one finding of the information-hiding clause naming
    the tests that reject (harness/audit/leak.py)."""
    family = leak_family(partial.leak, partial.returns)
    counted = int(partial.leak.n.sum())
    clause = _clause_of_check(request, "information-hiding")
    findings = _rejections(
        AuditCheck.LEAK, "decisions-follow-hidden-cards", family.tests, clause, counted
    )
    read = family.complete
    status = Status.FAIL if findings else Status.PASS if read else Status.NOT_TESTED
    return CheckResult(
        name=AuditCheck.LEAK,
        status=status,
        rows=counted,
        findings=len(findings),
        reason="; ".join(
            ([] if read else family.too_few)
            + (
                [f"{partial.leak.unshown:,} seats' rounds show no dealer's cards: not read"]
                if partial.leak.unshown
                else []
            )
        ),
        alpha=LEAK_ALPHA,
        correction="Holm",
        power=POWER,
        tests=[t.record() for t in family.tests],
        too_few=family.too_few,
    ), findings


def _cards(request: Request, partial: Partial) -> tuple[CheckResult, list[Finding]]:
    """The card tests' check, and a finding of the shuffle's clause for each it rejects
    (the clause the RNG battery certifies)."""
    family = card_tests(partial.cards)
    clause = _clause_of_check(request, "rng-battery")
    counted = int(partial.cards.by_position[0].sum()) // 2  # seat rows whose cards counted
    main = [n for n in family.too_few if not n.startswith("hole cards on ")]
    findings = [
        Finding(
            check=AuditCheck.CARDS,
            kind=CARD_KINDS[t.name.split(":")[0].split(" on ")[0]],
            detail=f"{t.name}: chi-square {t.statistic:.1f} ({t.df} df), Holm-adjusted p "
            f"{t.p_adjusted:.2g} < {CARD_ALPHA}",
            clause=clause,
            count=counted,
            examples=[],
        )
        for t in family.tests
        if not t.passed
    ]
    status = Status.FAIL if findings else Status.NOT_TESTED if main else Status.PASS
    result = CheckResult(
        name=AuditCheck.CARDS,
        status=status,
        rows=counted,
        findings=len(findings),
        reason="; ".join(main),
        alpha=CARD_ALPHA,
        correction="Holm",
        power=POWER,
        tests=[t.record() for t in family.tests],
        too_few=family.too_few,
    )
    return result, findings


# A card test's finding kind, by the start of its name (harness/audit/cards.py).
CARD_KINDS = {
    "card by position": "card-by-position",
    "hole cards' ranks together": "hole-ranks",
    "consecutive rounds": "consecutive-rounds",
    "hole cards": "card-by-day",
}


# What integrity could not look at without the game's declaration (docs/audit.md).
NO_TABLE = "stakes checked against the rules only: no --declared table to check them against"


def _check(name: AuditCheck, rows: int, findings: list[Finding], note: str = "") -> CheckResult:
    mine = sum(f.count for f in findings if f.check is name)
    if mine:
        status = Status.FAIL
    elif rows:
        status = Status.PASS
    else:
        status = Status.NOT_TESTED
    reason = note if rows else "no row to look at"
    return CheckResult(name=name, status=status, rows=rows, findings=mine, reason=reason)


def _replay(
    request: Request, out: Path, kind: str, detail: str, clause: str | None, tally: Tally
) -> tuple[str | None, str | None]:
    """A settlement cause's first round as a stacked vector beside audit.json, and the
    command that replays it against the game (docs/audit.md, Replaying a finding)."""
    if tally.replay is None:
        return None, None
    name = f"audit-{_slug(f'{kind} {detail}')}"
    first = tally.examples[0]
    found = f"the production audit's {kind} ({detail}), first met at {first.file} row {first.row}"
    vector = round_vector(
        name,
        found,
        request.profile.clauses_from,
        tally.replay.deal,
        tally.replay.plays,
        tally.replay.want,
    )
    groups = vector["groups"]
    assert isinstance(groups, list)
    groups[0]["tests"][0]["clauses"] = [clause] if clause else []
    path = out / VECTOR_DIR / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, yaml.safe_dump(vector, sort_keys=False).encode())
    adapter = request.adapter or "ADAPTER"
    command = [
        "chcert",
        "certify",
        "--adapter",
        adapter,
        "--profile",
        request.profile.name,
        "--vectors",
        str(path.resolve()),
    ]
    if clause:
        command += ["--item", f"{clause}/{name}"]
    return f"{VECTOR_DIR}/{path.name}", shlex.join(command)


def summary(result: Audit) -> str:
    """The Markdown summary: the verdict, the rows, each check and each finding."""
    lines = [
        f"# chcert audit: {result.verdict.value}",
        "",
        f"Profile `{result.profile}`; {len(result.files)} file(s); "
        f"{result.rows.read:,} rows read ({result.rows.malformed:,} malformed), "
        f"{result.rows.judged:,} re-settled, {result.rows.rounds:,} rounds.",
        "",
        "| check | status | rows | rows in findings |",
        "|---|---|---|---|",
        *(
            f"| {c.name.value} | {c.status.value} | {c.rows:,} | {c.findings:,} |"
            for c in result.checks
        ),
    ]
    if result.reasons:
        lines += ["", *(f"- {r}" for r in result.reasons)]
    if result.findings:
        lines += [
            "",
            "| check | kind | clause | detail | rows | first example |",
            "|---|---|---|---|---|---|",
        ]
        for f in result.findings:
            e = f.examples[0] if f.examples else None
            where = f"{e.file} row {e.row}" if e else ""
            row = [f.check.value, f.kind, f.clause or "", f.detail, f"{f.count:,}", where]
            lines.append(f"| {' | '.join(map(_cell, row))} |")
    if result.bands:
        head = ("group", "value", "seats", "staked", "return", "expected", "95%", "99%", "outside")
        lines += ["", f"| {' | '.join(head)} |", "|---" * len(head) + "|"]
        for b in result.bands:
            row = [
                b.group,
                b.value,
                f"{b.seats:,}",
                f"{b.staked:,}",
                f"{b.rtp:.4f}",
                f"{b.expected_rtp:.4f}",
                _interval(b.band_95),
                _interval(b.band_99),
                b.outside,
            ]
            lines.append(f"| {' | '.join(map(_cell, row))} |")
    return "\n".join(lines) + "\n"


def _interval(band: tuple[float, float]) -> str:
    return f"{band[0]:.4f} to {band[1]:.4f}"


def _cell(text: str) -> str:
    """Text a log may carry, kept in its Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def write(result: Audit, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(
        out / "audit.json", msgspec.json.format(msgspec.json.encode(result), indent=2) + b"\n"
    )
    write_bytes_atomic(out / "audit.md", summary(result).encode())
    from harness.audit.pdf import write_pdf  # reportlab, only when writing

    write_pdf(result, out / "audit.pdf")


def expected_rows(files: list[Path]) -> int:
    """About how many rows the log holds, for the time left: a Parquet file's own count; a
    text file's size over the length of its first lines."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    total = 0
    for path in files:
        if path.suffix.lower() == ".parquet":
            with contextlib.suppress(pa.ArrowException, OSError):  # said when its piece reads it
                total += pq.ParquetFile(path).metadata.num_rows
            continue
        with path.open("rb") as file:
            head = file.read(1 << 20)
        lines = max(head.count(b"\n"), 1)
        total += int(path.stat().st_size * lines / max(len(head), 1))
    return total


class Progress:
    """Rows read, rows per second and time left, on one line of stderr."""

    def __init__(self, expected: int, quiet: bool) -> None:
        self.started = time.monotonic()
        self.quiet = quiet
        self.expected = expected
        self.last = 0.0

    def __call__(self, rows: int) -> None:
        now = time.monotonic()
        if self.quiet or now - self.last < 0.5:
            return
        self.last = now
        rate = rows / max(now - self.started, 1e-9)
        left = max(self.expected - rows, 0) / max(rate, 1e-9)
        print(
            f"\raudit: {rows:,} rows read, {rate:,.0f} rows/s, about {left:,.0f} s left",
            end="",
            file=sys.stderr,
            flush=True,
        )

    def done(self, rows: int) -> None:
        if not self.quiet:
            seconds = time.monotonic() - self.started
            print(f"\raudit: {rows:,} rows read in {seconds:.1f} s" + " " * 30, file=sys.stderr)
