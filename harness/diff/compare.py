"""What changed between two results.json, and whether it regressed: the comparison.

A vendor's pipeline certifies every build and compares the run with a baseline
(docs/ci.md). The comparison is of outcomes, not of the files: verdicts,
clauses, items, failures, vector counts and figures, each keyed by what
docs/results.md says identifies it, so two runs on different days, seeds or
machines compare item by item.

A run regressed when a verdict got worse (PASS < INCOMPLETE < FAIL), when
anything that passed (a clause also when attested) is now anything else or
gone, when anything now fails that did not, or when a failure is new. Files
are read loosely: a results.json of an older harness (schema 1, no items,
no publication section) still compares on what it has.

The records here (`ResultsDiff` and its parts) are what every rendering reads: the
text of `chcert diff` (text.py) and its Markdown summary (harness/report/markdown.py).
This module renders nothing and knows no renderer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from harness import strictjson
from harness.errors import UserError
from harness.evidence import SAMPLED, section_at
from harness.outcomes import RANK, SCHEMA_VERSION, Status, Verdict
from harness.paths import read_input

Direction = Literal["regression", "improvement", "other"]

# The three verdicts of docs/results.md; a higher rank is worse (docs/verdict.md).
VERDICT_KEYS = ("verdict", "implementation_verdict", "publication_verdict")
# Statuses that count as verified: a clause closed by an attestation is, for a gate, as
# good as a passed one, and losing either is a regression (docs/ci.md).
GOOD = frozenset({Status.PASS.value, Status.ATTESTED.value})
# Should a row appear twice (a hand-edited or older file), its worst outcome is compared.
STATUS_RANK = {"pass": 0, "attested": 1, "not_tested": 2, "error": 3, "fail": 4}


class DiffInputError(UserError):
    """A file that cannot be compared: missing, not JSON, or not a results file (exit 4)."""


@dataclass(frozen=True)
class Run:
    """What one results file is of: shown beside the diff so like is compared with like."""

    verdict: str
    profile: str | None
    adapter: str | None
    seed: int | None
    harness_version: str | None
    started: str | None
    schema_version: int | None
    selection: bool  # a -k / --item run: never a certificate (docs/verdict.md)


@dataclass(frozen=True)
class VerdictChange:
    """One of the three verdicts, before and after (None where the file has none)."""

    name: str
    old: str | None
    new: str | None
    direction: Direction | Literal["unchanged"]


@dataclass(frozen=True)
class StatusChange:
    """A clause, item or figure whose status differs; `old` or `new` is None when absent."""

    kind: Literal["clause", "item", "figure"]
    key: str  # clause id, item name, or "claimed:FIGURE" / "published:FIGURE"
    clause: str | None  # the item's clause; None for a clause or a figure
    title: str  # a clause's title, an item's kind, a figure's source
    old: str | None
    new: str | None
    direction: Direction
    detail: str  # why the item is as it is now: its message or what it needs
    items: int = 0  # a clause's items, in either run: all alike, they fold into its line


@dataclass(frozen=True)
class FailureRef:
    """A failure, keyed by (clause, item): its message may change from run to run."""

    clause: str | None
    item: str
    kind: str  # implementation or publication
    message: str
    reproduce: str


@dataclass(frozen=True)
class VectorCounts:
    """`vectors` of each run (docs/results.md): {} for a stub or an older file."""

    old: dict[str, int]
    new: dict[str, int]

    @property
    def changed(self) -> bool:
        return self.old != self.new


@dataclass(frozen=True)
class EvidenceChange:
    """A measure of evidence whose size differs; less than the baseline is a regression:
    a gate must see a run that shrank its samples, whatever its verdict."""

    name: str
    what: str
    old: int
    new: int
    direction: Direction  # fewer is a regression, more an improvement


@dataclass(frozen=True)
class Unchanged:
    """How many rows compare equal: the part of the runs the diff does not list."""

    clauses: int
    items: int
    figures: int


@dataclass(frozen=True)
class ResultsDiff:
    """Everything `chcert diff` reports; `regressed` decides its exit code."""

    old: Run
    new: Run
    mismatches: tuple[str, ...]  # different profiles or adapters: compared all the same
    notes: tuple[str, ...]  # other differences of setting: harness version, seed, selection
    verdicts: tuple[VerdictChange, ...]
    clauses: tuple[StatusChange, ...]
    items: tuple[StatusChange, ...]
    figures: tuple[StatusChange, ...]
    new_failures: tuple[FailureRef, ...]
    fixed_failures: tuple[FailureRef, ...]  # gone, and the item now passes
    dropped_failures: tuple[FailureRef, ...]  # gone, but the item did not pass either
    vectors: VectorCounts
    evidence: tuple[EvidenceChange, ...]
    unchanged: Unchanged
    regressed: bool

    @property
    def changed(self) -> bool:
        """Whether anything but the settings differs."""
        return bool(
            any(v.direction != "unchanged" for v in self.verdicts)
            or self.clauses
            or self.items
            or self.figures
            or self.new_failures
            or self.fixed_failures
            or self.dropped_failures
            or self.vectors.changed
            or self.evidence
        )


# ---------------------------------------------------------------------------- reading


def load_results_file(path: str | Path) -> dict[str, Any]:
    """A results.json, checked only for what a comparison needs: a verdict and clauses.

    Not validated against specs/schemas/results.schema.json: a baseline kept from an
    older harness must still compare (docs/ci.md, Keeping a baseline).
    """
    file = Path(path)
    try:
        text = read_input(file).decode("utf-8")
    except FileNotFoundError:
        raise DiffInputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DiffInputError(f"{path}: cannot be read ({exc})") from None
    try:
        data = strictjson.loads(text)
    except ValueError as exc:  # not JSON, a key twice, NaN, a number too long, too deep
        raise DiffInputError(f"{path}: not JSON ({exc})") from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("verdict"), str)
        or not isinstance(data.get("clauses"), list)
    ):
        raise DiffInputError(f"{path}: not a results file (no verdict or clauses)")
    version = data.get("schema_version")
    if version is not None and not (isinstance(version, int) and 1 <= version <= SCHEMA_VERSION):
        raise DiffInputError(
            f"{path}: schema_version {version!r} is not one this chcert knows "
            f"(1 to {SCHEMA_VERSION}): compare it with the chcert that wrote it"
        )
    for key in VERDICT_KEYS:  # a verdict compared by rank must be one: "pass" is none
        if key in data and data[key] not in {v.value for v in Verdict}:
            raise DiffInputError(
                f"{path}: {key} {data[key]!r} is none of {', '.join(v.value for v in Verdict)}"
            )
    return data


# ---------------------------------------------------------------------------- comparing


def diff_results(old: Mapping[str, Any], new: Mapping[str, Any]) -> ResultsDiff:
    """Compare two results (parsed results.json): what changed, and whether it regressed."""
    old_run, new_run = _run(old), _run(new)
    verdicts = tuple(_verdict_change(name, old.get(name), new.get(name)) for name in VERDICT_KEYS)
    old_clauses, new_clauses = _clause_rows(old), _clause_rows(new)
    old_items, new_items = _item_rows(old), _item_rows(new)
    counts = Counter(clause for clause, _ in {*old_items, *new_items})
    clauses = tuple(
        replace(c, items=counts[c.key]) for c in _status_changes("clause", old_clauses, new_clauses)
    )
    passing = {cid for (_, cid), row in new_clauses.items() if row.status in GOOD}
    items = tuple(_vanished_fixes(_status_changes("item", old_items, new_items), passing))
    old_figures, new_figures = _figure_rows(old), _figure_rows(new)
    figures = tuple(_status_changes("figure", old_figures, new_figures))

    old_failures, new_failures = _failures(old), _failures(new)
    appeared = tuple(f for key, f in new_failures.items() if key not in old_failures)
    gone = [f for key, f in old_failures.items() if key not in new_failures]
    fixed = tuple(f for f in gone if _now_passes(f, new_items, new_figures, passing))
    dropped = tuple(f for f in gone if not _now_passes(f, new_items, new_figures, passing))

    evidence = tuple(_evidence_changes(old, new))
    regressed = (
        any(v.direction == "regression" for v in verdicts)
        or any(c.direction == "regression" for c in (*clauses, *items, *figures))
        or any(e.direction == "regression" for e in evidence)
        or bool(appeared)
    )
    return ResultsDiff(
        old=old_run,
        new=new_run,
        mismatches=tuple(_mismatches(old_run, new_run)),
        notes=tuple(_notes(old_run, new_run)),
        verdicts=verdicts,
        clauses=clauses,
        items=items,
        figures=figures,
        new_failures=appeared,
        fixed_failures=fixed,
        dropped_failures=dropped,
        vectors=VectorCounts(_vector_counts(old), _vector_counts(new)),
        evidence=evidence,
        unchanged=Unchanged(
            clauses=_same(old_clauses, new_clauses),
            items=_same(old_items, new_items),
            figures=_same(old_figures, new_figures),
        ),
        regressed=regressed,
    )


@dataclass(frozen=True)
class _Row:
    """A clause, item or figure as the comparison sees it."""

    status: str
    title: str
    detail: str


def _run(results: Mapping[str, Any]) -> Run:
    manifest = _mapping(results.get("manifest"))
    profile = results.get("profile")
    name = profile.get("name") if isinstance(profile, dict) else profile
    seed = manifest.get("seed")
    return Run(
        verdict=str(results.get("verdict")),
        profile=name if isinstance(name, str) else None,
        adapter=_str_or_none(results.get("adapter")),
        seed=seed if isinstance(seed, int) else None,
        harness_version=_str_or_none(manifest.get("harness_version")),
        started=_str_or_none(manifest.get("started")),
        schema_version=_int_or_none(results.get("schema_version")),
        selection=bool(results.get("selection")),
    )


def _verdict_change(name: str, old: Any, new: Any) -> VerdictChange:
    """A verdict's change, by rank; a verdict missing from one file is only other."""
    before, after = _str_or_none(old), _str_or_none(new)
    if before == after:
        return VerdictChange(name, before, after, "unchanged")
    ranked = {v.value for v in Verdict}
    if before in ranked and after in ranked:
        worse = RANK[Verdict(after)] > RANK[Verdict(before)]
        return VerdictChange(name, before, after, "regression" if worse else "improvement")
    return VerdictChange(name, before, after, "other")


def status_direction(old: str | None, new: str | None) -> Direction:
    """How a status change counts: losing a pass (or an attestation) or newly failing is a
    regression; reaching a pass (or an attestation) from a row that was there is an
    improvement; the rest (appearing, disappearing, not tested one way or another) is
    only a change. Attested to pass is an improvement: the clause is now tested."""
    if old == Status.ATTESTED and new == Status.PASS:
        return "improvement"
    if old in GOOD or (new == Status.FAIL and old != Status.FAIL):
        return "regression"
    if new in GOOD and old is not None:
        return "improvement"
    return "other"


def _status_changes(
    kind: Literal["clause", "item", "figure"],
    old: dict[tuple[str | None, str], _Row],
    new: dict[tuple[str | None, str], _Row],
) -> Iterator[StatusChange]:
    """Rows whose status differs, added or removed: OLD's order, then NEW's additions."""
    for key in [*old, *(k for k in new if k not in old)]:
        before, after = old.get(key), new.get(key)
        was = before.status if before else None
        now = after.status if after else None
        if was == now:
            continue
        row = after or before
        assert row is not None  # the key came from one of the two
        yield StatusChange(
            kind=kind,
            key=key[1],
            clause=key[0],
            title=row.title,
            old=was,
            new=now,
            direction=status_direction(was, now),
            detail=after.detail if after else "",
        )


def _vanished_fixes(changes: Iterable[StatusChange], passing: set[str]) -> Iterator[StatusChange]:
    """A failing item gone from a clause that passes now is fixed: a clause passes only
    when every item ran and passed, and an item another check attributed to the clause
    (a differential cause, docs/results.md) is listed only while it fails."""
    for c in changes:
        fixed = c.old == Status.FAIL and c.new is None and c.clause in passing
        yield replace(c, direction="improvement") if fixed else c


def _clause_rows(results: Mapping[str, Any]) -> dict[tuple[str | None, str], _Row]:
    rows: dict[tuple[str | None, str], _Row] = {}
    for clause in _dicts(results.get("clauses")):
        cid = clause.get("id")
        if isinstance(cid, str):
            row = _Row(str(clause.get("status")), str(clause.get("title", "")), "")
            _keep_worst(rows, (None, cid), row)
    return rows


def _item_rows(results: Mapping[str, Any]) -> dict[tuple[str | None, str], _Row]:
    """Items keyed by (clause, name): "manual review" and claim:FIGURE repeat across clauses."""
    rows: dict[tuple[str | None, str], _Row] = {}
    for clause in _dicts(results.get("clauses")):
        cid = clause.get("id")
        if not isinstance(cid, str):
            continue
        for item in _dicts(clause.get("items")):
            name = item.get("name")
            if isinstance(name, str):
                detail = str(item.get("message") or item.get("needs") or "")
                row = _Row(str(item.get("status")), str(item.get("kind", "")), detail)
                _keep_worst(rows, (cid, name), row)
    return rows


def _figure_rows(results: Mapping[str, Any]) -> dict[tuple[str | None, str], _Row]:
    """Figures of `publication`: claimed by the rules source, or published by the game."""
    publication = _mapping(results.get("publication"))
    rows: dict[tuple[str | None, str], _Row] = {}
    for section, prefix in (("claimed_by_source", "claimed"), ("published_by_game", "published")):
        for figure in _dicts(publication.get(section)):
            name = figure.get("figure")
            if isinstance(name, str):
                detail = _figure_detail(figure)
                row = _Row(str(figure.get("status")), str(figure.get("source", "")), detail)
                _keep_worst(rows, (None, f"{prefix}:{name}"), row)
    return rows


def _figure_detail(figure: Mapping[str, Any]) -> str:
    if figure.get("reason"):
        return str(figure["reason"])
    claimed, computed = figure.get("claimed"), figure.get("computed")
    return f"claimed {claimed}, computed {computed}" if computed is not None else ""


def _keep_worst(
    rows: dict[tuple[str | None, str], _Row], key: tuple[str | None, str], row: _Row
) -> None:
    """Keep a repeated row's worst outcome, so a failing repeat is never hidden."""
    held = rows.get(key)
    if held is None or STATUS_RANK.get(row.status, 5) > STATUS_RANK.get(held.status, 5):
        rows[key] = row


def _failures(results: Mapping[str, Any]) -> dict[tuple[str | None, str], FailureRef]:
    """Failures keyed by (clause, item), the first of each: messages carry amounts and
    counts that differ between runs of the same fault."""
    found: dict[tuple[str | None, str], FailureRef] = {}
    for failure in _dicts(results.get("failures")):
        clause, item = _str_or_none(failure.get("clause")), str(failure.get("item", ""))
        if (clause, item) not in found:
            found[(clause, item)] = FailureRef(
                clause=clause,
                item=item,
                kind=str(failure.get("kind", "")),
                message=str(failure.get("message", "")),
                reproduce=str(failure.get("reproduce", "")),
            )
    return found


def _now_passes(
    failure: FailureRef,
    items: dict[tuple[str | None, str], _Row],
    figures: dict[tuple[str | None, str], _Row],
    passing: set[str],
) -> bool:
    """Whether a failure that is gone is fixed: its item (or figure) passes now, or, for
    an item listed only while it fails, its clause does (see _vanished_fixes).

    A failure whose item a selection left out is gone but not fixed. hello and
    required-capabilities have no row of their own: gone is fixed.
    """
    row = items.get((failure.clause, failure.item)) or figures.get((None, failure.item))
    if row is None and failure.item.startswith("claim:"):
        row = figures.get((None, "claimed:" + failure.item.removeprefix("claim:")))
    if row is not None:
        return row.status in GOOD
    if failure.clause is not None:
        return failure.clause in passing
    return failure.item in ("hello", "required-capabilities")


def _vector_counts(results: Mapping[str, Any]) -> dict[str, int]:
    counts = _mapping(results.get("vectors"))
    return {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}


# The measures of evidence compared (docs/ci.md): the sampled checks' (harness/evidence.py)
# and the differential's strata met, each where results.json records it.
EVIDENCE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    *((s.name, s.what, (*s.path, s.size)) for s in SAMPLED),
    ("strata_met", "strata of the differential met", ("differential", "strata", "met")),
)
ITEMS_RUN = "items run to a verdict"


def _measures(results: Mapping[str, Any]) -> dict[str, int]:
    """Each measure of evidence a file records (an older file or a stub may lack some),
    and the planned items that ran to a verdict (a cause the differential attributes to a
    clause is listed while it fails, and is no item of its own)."""
    found: dict[str, int] = {}
    for name, _, path in EVIDENCE:
        node = (section_at(results, path[:-1]) or {}).get(path[-1])
        if isinstance(node, int) and not isinstance(node, bool):
            found[name] = node
    clauses = list(_dicts(results.get("clauses")))
    if clauses:
        found["items_run"] = sum(
            1
            for c in clauses
            for item in _dicts(c.get("items"))
            if item.get("status") in (Status.PASS, Status.FAIL)
            and item.get("kind") != "differential"
        )
    return found


def _evidence_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[EvidenceChange]:
    """Every measure whose size differs. A measure OLD records and NEW does not (a section
    removed, a size that is no whole number) counts as none at all in NEW: evidence a
    file does not state is evidence a gate cannot credit."""
    before, after = _measures(old), _measures(new)
    whats = {name: what for name, what, _ in EVIDENCE} | {"items_run": ITEMS_RUN}
    for name, what in whats.items():
        if name in before and before[name] != after.get(name, 0):
            old_size, new_size = before[name], after.get(name, 0)
            better: Direction = "improvement" if new_size > old_size else "regression"
            yield EvidenceChange(name, what, old_size, new_size, better)


def _same(old: Mapping[Any, _Row], new: Mapping[Any, _Row]) -> int:
    return sum(1 for key, row in old.items() if key in new and new[key].status == row.status)


def _mismatches(old: Run, new: Run) -> Iterator[str]:
    """Different profiles or adapters: the diff still compares, but says so first."""
    if old.profile != new.profile:
        yield f"different profiles: OLD {old.profile}, NEW {new.profile}"
    if old.adapter != new.adapter:
        yield f"different adapters: OLD {old.adapter}, NEW {new.adapter}"


def _notes(old: Run, new: Run) -> Iterator[str]:
    if old.harness_version != new.harness_version:
        yield f"harness versions differ: OLD {old.harness_version}, NEW {new.harness_version}"
    if old.seed != new.seed:
        yield f"seeds differ: OLD {old.seed}, NEW {new.seed} (randomized rounds differ)"
    for label, run in (("OLD", old), ("NEW", new)):
        if run.selection:
            yield f"{label} is a selection (-k / --item): never a certificate"


# ---------------------------------------------------------------------------- listing


def listed_changes(d: ResultsDiff) -> tuple[list[StatusChange], Counter[str]]:
    """The clause, item and figure changes a reader is shown, and for each clause how many
    of its items its own line speaks for: an item is not listed when its clause's line
    says it (`_folded`) or its failure's line does. Every formatter lists the same."""
    folded = _folded(d)
    shown = [
        c
        for c in (*d.clauses, *d.items, *d.figures)
        if c.kind != "item" or ((c.clause, c.key) not in folded and not _said_by_failure(d, c))
    ]
    return shown, Counter(clause for clause, _ in folded)


def _said_by_failure(d: ResultsDiff, c: StatusChange) -> bool:
    """An item now failing whose new failure is listed, or once failing whose failure
    is listed as gone: the failure's line says more (its message, how to reproduce)."""
    key = (c.clause, c.key)
    if c.new == Status.FAIL:
        return key in {(f.clause, f.item) for f in d.new_failures}
    if c.old == Status.FAIL:
        return key in {(f.clause, f.item) for f in (*d.fixed_failures, *d.dropped_failures)}
    return False


def _folded(d: ResultsDiff) -> set[tuple[str, str]]:
    """(clause, item) of the items said by their clause's line: every item of the clause
    changed exactly as the clause did. When only some did, each is listed, so the line
    names what changed."""
    by_clause = {c.key: c for c in d.clauses}
    alike = [
        (item.clause, item.key)
        for item in d.items
        if item.clause in by_clause
        and (by_clause[item.clause].old, by_clause[item.clause].new) == (item.old, item.new)
    ]
    per_clause = Counter(clause for clause, _ in alike)
    return {
        (clause, key)
        for clause, key in alike
        if clause is not None and per_clause[clause] == by_clause[clause].items
    }


# ---------------------------------------------------------------------------- loose reading


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    """The dict entries of a list; anything else is skipped (loose reading)."""
    if isinstance(value, list):
        yield from (entry for entry in value if isinstance(entry, dict))


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
