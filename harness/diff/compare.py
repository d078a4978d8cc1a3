"""What changed between two results.json, and whether it regressed: the comparison.

A vendor's pipeline certifies every build and compares the run with a baseline
(docs/ci.md). The comparison is of outcomes, not of the files: verdicts,
clauses, items, failures, vector counts and figures, each keyed by what
docs/results.md says identifies it, so two runs on different days, seeds or
machines compare item by item.

A run regressed when a verdict got worse (PASS < INCOMPLETE < FAIL), when
anything that passed (a clause also when attested) is now anything else or
gone, when anything now fails that did not, or when a failure is new. Files
are read as the run's records (harness/results/model.py), which upgrade a results.json
of an older harness: one of schema 1 (no items, no publication section) still
compares on what it has.

The records here (`ResultsDiff` and its parts) are what every rendering reads: the
text of `chcert diff` (text.py) and its Markdown summary (harness/report/markdown.py).
This module renders nothing and knows no renderer.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import msgspec

from harness import strictjson
from harness.errors import UserError
from harness.paths import read_input
from harness.results.evidence import SAMPLED
from harness.results.model import Failure, Figure, ItemKind, Publication, Results
from harness.results.outcomes import RANK, SCHEMA_VERSION, Status, Verdict

Direction = Literal["regression", "improvement", "other"]

# The three verdicts of docs/results.md; a higher rank is worse (docs/verdict.md).
VERDICT_KEYS = ("verdict", "implementation_verdict", "publication_verdict")
# The version of results.json that added the implementation and publication verdicts.
TWO_VERDICTS_SINCE = 2
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
    extends: str | None  # the bundled profile an approved variation varies (docs/profiles.md)
    rules: str  # the resolved profile's tables and flags, as results.json states them
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
    """`vectors` of each run (docs/results.md): zeros for a stub."""

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
class ValueChange:
    """A value that moved while every status stayed: a field of the profile certified
    against (`profile`: a pay-table row, a rule, a claimed value), an exact figure of the
    game mathematics (`exact`), or what a claimed or published figure claims or computes
    (`figure`). Never a regression by itself: a run of a variation against its base
    moves them all, and the statuses say whether each still holds."""

    kind: Literal["profile", "exact", "figure"]
    key: str  # a dotted profile field, a figure's name, or "claimed:FIGURE"
    what: str  # the value in words: "ante_pay_table.straight_flush", "house edge (exact)"
    old: Any
    new: Any


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
    values: tuple[ValueChange, ...]  # the profile's fields, exact figures, claims that moved
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
            or self.values
        )


# ---------------------------------------------------------------------------- reading


def load_results_file(path: str | Path) -> Results:
    """A results.json as records (harness/results/model.py), of this version or an earlier one.

    What a comparison ranks is checked first, each with its own message: a verdict of
    the three, clauses, a schema this chcert knows. Not validated against
    specs/schemas/results.schema.json: a baseline kept from an older harness must still
    compare (docs/ci.md, Keeping a baseline); a value of the wrong type is refused all
    the same, since a gate cannot rank what it cannot read.
    """
    data = _parsed(path)
    try:
        return Results.from_json(data)
    except msgspec.ValidationError as exc:
        raise DiffInputError(f"{path}: not a results file of this harness ({exc})") from None


def _parsed(path: str | Path) -> dict[str, Any]:
    """The JSON object of a results file, with a verdict of the three, clauses and a
    schema_version this chcert knows; DiffInputError saying which is wrong otherwise."""
    try:
        text = read_input(Path(path)).decode("utf-8")
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


def diff_results(old: Results, new: Results) -> ResultsDiff:
    """Compare two runs' results: what changed, and whether it regressed."""
    old_run, new_run = _run(old), _run(new)
    old_verdicts, new_verdicts = _verdicts(old), _verdicts(new)
    verdicts = tuple(
        _verdict_change(name, old_verdicts[name], new_verdicts[name]) for name in VERDICT_KEYS
    )
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
    appeared = tuple(_ref(f) for key, f in new_failures.items() if key not in old_failures)
    gone = [f for key, f in old_failures.items() if key not in new_failures]
    fixed = tuple(_ref(f) for f in gone if _now_passes(f, new_items, new_figures, passing))
    dropped = tuple(_ref(f) for f in gone if not _now_passes(f, new_items, new_figures, passing))

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
        values=(
            *_profile_changes(old, new),
            *_exact_changes(old, new),
            *_figure_moves(old_figures, new_figures),
        ),
        unchanged=Unchanged(
            clauses=_same(old_clauses, new_clauses),
            items=_same(old_items, new_items),
            figures=_same(old_figures, new_figures),
        ),
        regressed=regressed,
    )


# A row's key: (clause, item name) for an item, (None, clause id or figure key) otherwise.
Key = tuple[str | None, str]


@dataclass(frozen=True)
class _Row:
    """A clause, item or figure as the comparison sees it."""

    status: str
    title: str
    detail: str
    values: tuple[Any, ...] = ()  # a figure's claimed and computed values: a move is a change


def _run(results: Results) -> Run:
    manifest = results.manifest  # a stub has none
    return Run(
        verdict=results.verdict.value,
        profile=results.profile.name,
        extends=results.profile.extends,
        rules=json.dumps(results.profile.resolved, sort_keys=True, default=str),
        adapter=results.adapter or None,  # a stub names none
        seed=manifest.seed if manifest else None,
        harness_version=manifest.harness_version if manifest else None,
        started=manifest.started if manifest else None,
        schema_version=results.schema_version,
        selection=results.selection is not None,
    )


def _verdicts(results: Results) -> dict[str, str | None]:
    """The three verdicts by name; a file of schema 1 had only the first, and its others
    are none rather than the model's INCOMPLETE: the run never stated them."""
    both = results.schema_version >= TWO_VERDICTS_SINCE
    return {
        "verdict": results.verdict.value,
        "implementation_verdict": results.implementation_verdict.value if both else None,
        "publication_verdict": results.publication_verdict.value if both else None,
    }


def _verdict_change(name: str, before: str | None, after: str | None) -> VerdictChange:
    """A verdict's change, by rank; a verdict missing from one file is only other."""
    if before == after:
        return VerdictChange(name, before, after, "unchanged")
    if before is None or after is None:
        return VerdictChange(name, before, after, "other")
    worse = RANK[Verdict(after)] > RANK[Verdict(before)]
    return VerdictChange(name, before, after, "regression" if worse else "improvement")


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
    old: dict[Key, _Row],
    new: dict[Key, _Row],
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


def _clause_rows(results: Results) -> dict[Key, _Row]:
    rows: dict[Key, _Row] = {}
    for clause in results.clauses:
        _keep_worst(rows, (None, clause.id), _Row(clause.status.value, clause.title, ""))
    return rows


def _item_rows(results: Results) -> dict[Key, _Row]:
    """Items keyed by (clause, name): "manual review" and claim:FIGURE repeat across clauses."""
    rows: dict[Key, _Row] = {}
    for clause in results.clauses:
        for item in clause.items:
            row = _Row(item.status.value, item.kind.value, item.message or item.needs)
            _keep_worst(rows, (clause.id, item.name), row)
    return rows


# The figures of `publication`: each list's prefix of its rows' keys, and the item kind
# of a failure refuting one of its figures (that failure's item is `KIND:FIGURE`).
FIGURE_LISTS: tuple[tuple[str, str, Callable[[Publication], list[Figure]]], ...] = (
    ("claimed", "claim", lambda publication: publication.claimed_by_source),
    ("published", "published", lambda publication: publication.published_by_game),
)


def _figure_rows(results: Results) -> dict[Key, _Row]:
    """Figures of `publication`: claimed by the rules source, or published by the game."""
    rows: dict[Key, _Row] = {}
    if results.publication is None:  # a stub, or a file of schema 1
        return rows
    for prefix, _, figures in FIGURE_LISTS:
        for figure in figures(results.publication):
            row = _Row(
                figure.status.value,
                figure.source,
                _figure_detail(figure),
                (figure.claimed, figure.computed),
            )
            _keep_worst(rows, (None, f"{prefix}:{figure.figure}"), row)
    return rows


def _figure_detail(figure: Figure) -> str:
    if figure.reason:
        return figure.reason
    if figure.computed is None:
        return ""
    return f"claimed {figure.claimed}, computed {figure.computed}"


def _keep_worst(rows: dict[Key, _Row], key: Key, row: _Row) -> None:
    """Keep a repeated row's worst outcome, so a failing repeat is never hidden."""
    held = rows.get(key)
    if held is None or STATUS_RANK.get(row.status, 5) > STATUS_RANK.get(held.status, 5):
        rows[key] = row


def _failures(results: Results) -> dict[Key, Failure]:
    """Failures keyed by (clause, item), the first of each: messages carry amounts and
    counts that differ between runs of the same fault."""
    found: dict[Key, Failure] = {}
    for failure in results.failures:
        found.setdefault((failure.clause, failure.item), failure)
    return found


def _ref(failure: Failure) -> FailureRef:
    return FailureRef(
        clause=failure.clause,
        item=failure.item,
        kind=failure.kind.value,
        message=failure.message,
        reproduce=failure.reproduce,
    )


def _now_passes(
    failure: Failure, items: dict[Key, _Row], figures: dict[Key, _Row], passing: set[str]
) -> bool:
    """Whether a failure that is gone is fixed: its item (or figure) passes now, or, for
    an item listed only while it fails, its clause does (see _vanished_fixes).

    A failure whose item a selection left out is gone but not fixed. hello and
    required-capabilities have no row of their own: gone is fixed.
    """
    figure = _figure_key(failure)
    row = items.get((failure.clause, failure.item)) or (
        figures.get((None, figure)) if figure else None
    )
    if row is not None:
        return row.status in GOOD
    if failure.clause is not None:
        return failure.clause in passing
    return failure.item in ("hello", "required-capabilities")


def _figure_key(failure: Failure) -> str | None:
    """The key of the figure a publication failure refutes (as _figure_rows keys it), or
    None for a failure of anything else. Its item names the figure after its kind:
    `claim:FIGURE` is the row `claimed:FIGURE`."""
    prefix = next((p for p, kind, _ in FIGURE_LISTS if kind == failure.item_kind), None)
    return f"{prefix}:{failure.item.partition(':')[2]}" if prefix else None


def _vector_counts(results: Results) -> dict[str, int]:
    return msgspec.structs.asdict(results.vectors)


@dataclass(frozen=True)
class Measure:
    """A measure of evidence compared: what it counts, and its size in a run's records,
    None where they hold none (a section an older file or a stub lacks)."""

    name: str
    what: str
    size: Callable[[Results], int | None]


def _rng_decks(results: Results) -> int | None:
    return results.rng.decks if results.rng else None


def _rtp_rounds(results: Results) -> int | None:
    """A simulation stopped before the end of its rounds records none: the model writes
    no count of 0 (`Simulation` omits its defaults)."""
    return (results.math.simulation.rounds or None) if results.math else None


def _seat_hands(results: Results) -> int | None:
    return results.differential.seat_hands if results.differential else None


# Each sampled check's size in the records, by its name in harness/results/evidence.py SAMPLED
# (which says where results.json keeps it).
SAMPLE_SIZES: dict[str, Callable[[Results], int | None]] = {
    "rng_decks": _rng_decks,
    "rtp_rounds": _rtp_rounds,
    "differential": _seat_hands,
}


def _strata_met(results: Results) -> int | None:
    return results.differential.strata.met if results.differential else None


def _items_run(results: Results) -> int | None:
    """The planned items that ran to a verdict (a cause an item attributes to a clause is
    listed while it fails, and is no item of its own); none for a file with no
    clauses (a stub)."""
    if not results.clauses:
        return None
    return sum(
        1
        for clause in results.clauses
        for item in clause.items
        if item.status in (Status.PASS, Status.FAIL) and item.kind not in FOUND
    )


# The item kinds of causes found (and of files of schema 7 and earlier): no planned item.
FOUND = (ItemKind.FINDING, ItemKind.DIFFERENTIAL)
ITEMS_RUN = "items run to a verdict"
# The measures of evidence compared (docs/ci.md): the sampled checks', the differential's
# strata met, and the items run.
EVIDENCE = (
    *(Measure(s.name, s.what, SAMPLE_SIZES[s.name]) for s in SAMPLED),
    Measure("strata_met", "strata of the differential met", _strata_met),
    Measure("items_run", ITEMS_RUN, _items_run),
)


def _evidence_changes(old: Results, new: Results) -> Iterator[EvidenceChange]:
    """Every measure whose size differs. A measure OLD records and NEW does not (a section
    removed) counts as none at all in NEW: evidence a file does not state is evidence a
    gate cannot credit."""
    for measure in EVIDENCE:
        before, after = measure.size(old), measure.size(new) or 0
        if before is not None and before != after:
            better: Direction = "improvement" if after > before else "regression"
            yield EvidenceChange(measure.name, measure.what, before, after, better)


def _same(old: Mapping[Any, _Row], new: Mapping[Any, _Row]) -> int:
    """Rows alike in both runs: the same status and, for a figure, the same values."""
    return sum(
        1
        for key, row in old.items()
        if key in new and (new[key].status, new[key].values) == (row.status, row.values)
    )


# The fields of a resolved profile that are no rule of the game: its name and prose, the
# sources it cites and the catalogs it draws clauses from.
PROFILE_PROSE = frozenset(
    {"schema", "name", "title", "description", "sources", "catalogs", "extends"}
)


def profile_fields(resolved: Mapping[str, Any]) -> dict[str, Any]:
    """A resolved profile (results.json `profile.resolved`) as dotted fields, the way an
    approved variation names what it varies (docs/profiles.md): `ante_pay_table.flush`,
    `rules.fold_forfeits_aa_bonus`, `claims.house_edge` (a claim by its figure)."""
    fields: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, Mapping):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), inner)
        else:
            fields[prefix] = value

    for key, value in resolved.items():
        if key in PROFILE_PROSE:
            continue
        if key == "claims" and isinstance(value, list):
            claims = {c.get("figure"): c.get("value") for c in value if isinstance(c, Mapping)}
            walk(key, {str(figure): claimed for figure, claimed in claims.items()})
        else:
            walk(key, value)
    return fields


def _profile_changes(old: Results, new: Results) -> Iterator[ValueChange]:
    """Every field of the profile whose value differs, each pay-table row its own: what
    a run of a variation against a run of its base changed. Nothing when either file
    states no resolved profile (a stub, an older harness's)."""
    if not (old.profile.resolved and new.profile.resolved):
        return
    before, after = profile_fields(old.profile.resolved), profile_fields(new.profile.resolved)
    for field in [*before, *(f for f in after if f not in before)]:
        if before.get(field) != after.get(field):
            yield ValueChange("profile", field, field, before.get(field), after.get(field))


# The exact figures of the game mathematics (results.json `math`), in words.
EXACT_FIGURES = (
    ("house_edge", "house edge (exact)"),
    ("element_of_risk", "element of risk (exact)"),
    ("rtp", "return to player (exact)"),
    ("raise_frequency", "raise frequency (exact)"),
    ("aa_bonus_edge", "AA Bonus house edge (exact)"),
)


def _exact_changes(old: Results, new: Results) -> Iterator[ValueChange]:
    """Each exact figure that moved, as results.json holds it (no rounding: the figures
    are exact, and a move in the last digit is a move)."""
    if old.math is None or new.math is None:
        return
    for name, what in EXACT_FIGURES:
        before, after = _exact(old, name), _exact(new, name)
        if before != after:
            yield ValueChange("exact", name, what, before, after)


def _exact(results: Results, name: str) -> float | None:
    value = getattr(results.math, name, None)
    return value if isinstance(value, float | int) else None


def _figure_moves(old: dict[Key, _Row], new: dict[Key, _Row]) -> Iterator[ValueChange]:
    """A claimed or published figure whose status stayed but whose claimed or computed
    value moved (a variation's own claim, priced on its own tables): listed, never
    counted unchanged."""
    for key, row in old.items():
        after = new.get(key)
        if after is None or after.status != row.status or after.values == row.values:
            continue
        for name, was, now in zip(("claimed", "computed"), row.values, after.values, strict=True):
            if was != now:
                yield ValueChange("figure", key[1], name, was, now)


def _mismatches(old: Run, new: Run) -> Iterator[str]:
    """Different profiles or adapters: the diff still compares, but says so first."""
    if old.profile != new.profile:
        related = ""
        if new.extends and new.extends == old.profile:
            related = f" (NEW is an approved variation of {old.profile})"
        elif old.extends and old.extends == new.profile:
            related = f" (OLD is an approved variation of {new.profile})"
        elif old.extends and old.extends == new.extends:
            related = f" (both approved variations of {new.extends})"
        yield f"different profiles: OLD {old.profile}, NEW {new.profile}{related}"
    elif old.rules != new.rules and "{}" not in (old.rules, new.rules):
        # One name, other tables or flags: an approved variation edited between the runs.
        yield f"profile {new.profile} differs between the runs (its tables or rule flags)"
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
