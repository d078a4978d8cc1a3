"""What one certification runs, built once from its settings (docs/architecture.md).

The profile, its clauses, the vectors, refusals and corpus that apply to it, the
attestations, the evidence minimums, and every item the profile calls for: the plan,
the one source of item names. `chcert certify` builds it before anything starts (a
spec or a file that is wrong is a usage error, exit 4); the pytest plugin builds it in
every process of the run, the controller (harness/run/controller.py) and each worker
(harness/run/worker.py), from the same settings, so all of them plan the same items.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass
from enum import StrEnum, unique
from pathlib import Path
from typing import Any

from harness.adapters import Adapter, open_adapter
from harness.checks import CHECKS
from harness.errors import InvalidBet, SpecError, UsageError
from harness.results.evidence import Minimums
from harness.results.evidence import resolve as resolve_minimums
from harness.results.model import ItemKind, PlannedItem
from harness.rules.catalogs import (
    Catalog,
    Clause,
    applicable,
    clause_index,
    fault_owners,
    load_catalogs,
    unstated_variations,
)
from harness.rules.oracle import SeatPlay, settle
from harness.rules.profiles import Profile, load_profile
from harness.run.attestations import load_attestations
from harness.run.settings import RunSettings
from harness.vectors.corpus import CORPUS_DIR
from harness.vectors.refusals import RefusalVector, load_all_refusals
from harness.vectors.settlement import Vector, load_all_vectors, load_vector_file, verify_unique_ids

# What an item replays: a vector, a bad request, a clause's check, a clause's corpus share.
Payload = Vector | RefusalVector | Clause | tuple[Vector, ...]


@unique
class Replay(StrEnum):
    """How an item runs (harness/run/worker.py: one item class each)."""

    VECTOR = "vector"  # a settlement vector: a stacked round judged
    REFUSAL = "refusal"  # a bad request the game must refuse
    CHECK = "check"  # a registered check of the clause (a shard of one)
    CORPUS = "corpus"  # the clause's share of the generated corpus


@dataclass(frozen=True)
class Planned:
    """A planned item, the file pytest collects it from, how it runs and what it replays."""

    item: PlannedItem
    path: Path
    replays: Replay
    payload: Payload


@dataclass(frozen=True)
class RunSpec:
    """Everything a run knows before it starts (see the module's docstring)."""

    settings: RunSettings
    profile: Profile
    profile_arg: str  # the profile as a command line names it: bundled name, else its path
    out: Path
    stage: Path  # where the outputs are written; commands and reports name them in `out`
    catalogs: tuple[Catalog, ...]
    clauses: tuple[Clause, ...]
    fault_owners: dict[str, str]
    extra_vector_files: tuple[Path, ...]
    corpus_file: Path
    attestations: tuple[dict[str, Any], ...]
    minimums: Minimums
    plan: tuple[Planned, ...]

    @functools.cached_property
    def planned(self) -> list[PlannedItem]:
        return [p.item for p in self.plan]

    @functools.cached_property
    def judges(self) -> dict[str, tuple[str, ...]]:
        """Each clause's judged kinds of other clauses (harness/rules/catalogs.py Clause.judges)."""
        return {c.id: c.judges for c in self.clauses if c.judges}

    @functools.cached_property
    def files(self) -> frozenset[Path]:
        """The files pytest collects items from (asked of every file pytest visits)."""
        return frozenset(p.path for p in self.plan)

    def open_game(self) -> Adapter:
        """A connection to the game under test, as the controller (for hello) and each
        worker (for its items) open it."""
        return open_adapter(
            self.settings.adapter,
            profile_path=str(self.profile.path),
            timeout=self.settings.timeout,
        )

    @property
    def seed(self) -> int:
        """The run's seed: the plugin draws one before the run when none was given."""
        if self.settings.seed is None:
            raise UsageError("the run has no seed: the plugin draws one before it starts")
        return self.settings.seed

    def command(self, item: str | None, extra: list[str] | tuple[str, ...] = ()) -> str:
        """The `chcert certify` command that runs `item` (None: all) again, exactly as this
        run did, writing to OUT/reproduce (harness/run/settings.py)."""
        return self.settings.reproduce(self.profile_arg, self.out, item, extra)


def rebased(spec: RunSpec, settings: RunSettings, stage: str | None) -> RunSpec:
    """A spec built before the run, with the settings as the plugin received them (the
    seed drawn, every path absolute): what they decide of the plan (profile, vectors,
    repeat, attestations, minimums) is what the command line gave, so the plan is the
    same."""
    out = Path(settings.out)
    return dataclasses.replace(
        spec, settings=settings, out=out, stage=Path(stage) if stage else out
    )


def build(settings: RunSettings, stage: str | None = None, minimums: str | None = None) -> RunSpec:
    """The run's spec from its settings; SpecError (file and line) or UsageError when a
    file it names is wrong or the profile certifies nothing."""
    profile = load_profile(settings.profile)
    out = Path(settings.out)
    all_catalogs = load_catalogs()
    catalogs = tuple(c for c in all_catalogs if c.name in profile.catalogs)
    clauses = tuple(applicable(catalogs, profile).clauses)
    if not clauses:
        raise SpecError(
            profile.path,
            None,
            f"no clause of the catalogs {list(profile.catalogs)} applies to profile "
            f"{profile.name!r}: nothing could be certified (clauses list the bundled profiles "
            "they apply to by name; a profile of your own says which it varies with "
            "`extends:`, docs/profiles.md)",
        )
    unstated = unstated_variations(
        [c for cat in catalogs for c in cat.for_profile(profile.clauses_from)], profile
    )
    if unstated:
        raise SpecError(
            profile.path,
            None,
            f"the variation changes {', '.join(v.field for v in unstated)}, which no clause of "
            f"the catalogs {list(profile.catalogs)} states: nothing could certify it",
        )
    for clause in clauses:
        unknown = [name for name in clause.checks if name not in CHECKS]
        if unknown:
            path = next(cat.path for cat in catalogs if cat.name == clause.catalog)
            raise SpecError(path, clause.line, f"unknown check {unknown[0]!r}")
    index = clause_index(all_catalogs)
    extra = tuple(Path(p).resolve() for p in settings.vectors)
    vectors = load_all_vectors(index, extra=extra)
    refusals = load_all_refusals(index)
    verify_unique_ids([*vectors, *refusals])
    # A variation replays its base's vectors and corpus, settled under its own tables.
    named = profile.clauses_from
    mine = [v for v in vectors if named in v.profiles]
    for path in extra:
        if not any(v.path.resolve() == path for v in mine):
            raise SpecError(path, None, f"no vector of this file applies to {named}")
    _verify_expectations([v for v in mine if v.path.resolve() in extra], profile)
    # The generator writes one corpus file a profile, named after it (docs/corpus.md), and
    # `chcert vectors generate --check` keeps it so: the others are not read.
    corpus_file = CORPUS_DIR / f"{named}.json"
    corpus = load_vector_file(corpus_file, index) if corpus_file.exists() else []
    attest = settings.attest
    return RunSpec(
        settings=settings,
        profile=profile,
        profile_arg=_profile_arg(profile),
        out=out,
        stage=Path(stage) if stage else out,
        catalogs=catalogs,
        clauses=clauses,
        fault_owners=fault_owners(list(clauses)),
        extra_vector_files=extra,
        corpus_file=corpus_file,
        attestations=tuple(load_attestations(attest, list(clauses)) if attest else ()),
        minimums=_minimums(profile, minimums),
        plan=tuple(
            _plan(
                profile,
                catalogs,
                clauses,
                mine,
                [r for r in refusals if named in r.profiles],
                [v for v in corpus if named in v.profiles],
                corpus_file,
                settings.repeat,
            )
        ),
    )


def _plan(
    profile: Profile,
    catalogs: tuple[Catalog, ...],
    clauses: tuple[Clause, ...],
    vectors: list[Vector],
    refusals: list[RefusalVector],
    corpus: list[Vector],
    corpus_file: Path,
    repeat: int,
) -> list[Planned]:
    """Every item the profile calls for, before any selection: what a PASS needs."""
    wanted = {c.id for c in clauses}
    paths = {cat.name: cat.path.resolve() for cat in catalogs}
    plan = [
        Planned(
            PlannedItem(f"{c.id}/{target}", c.id, ItemKind.CHECK, target, CHECKS[name].section),
            paths[c.catalog],
            Replay.CHECK,
            c,
        )
        for c in clauses
        for name in c.checks
        for target, _ in CHECKS[name].targets()
    ]
    for vector in vectors:
        clause = vector.clause_for[profile.clauses_from]
        if clause in wanted:
            plan += [
                Planned(
                    PlannedItem(
                        f"{clause}/{vector.id}{suffix}", clause, ItemKind.VECTOR, vector.id
                    ),
                    vector.path.resolve(),
                    Replay.VECTOR,
                    vector,
                )
                for suffix in repeat_suffixes(repeat)
            ]
    for refusal in refusals:
        clause = refusal.clause_for[profile.clauses_from]
        if clause in wanted:
            name = f"{clause}/{refusal.id}"
            item = PlannedItem(name, clause, ItemKind.VECTOR, refusal.id)
            plan.append(Planned(item, refusal.path.resolve(), Replay.REFUSAL, refusal))
    shares: dict[str, list[Vector]] = {}
    for vector in corpus:
        clause = vector.clause_for[profile.clauses_from]
        if clause in wanted:
            shares.setdefault(clause, []).append(vector)
    plan += [
        Planned(
            PlannedItem(f"{clause}/corpus", clause, ItemKind.CORPUS, "corpus", "corpus"),
            corpus_file.resolve(),
            Replay.CORPUS,
            tuple(shares[clause]),
        )
        for clause in sorted(shares)
    ]
    return plan


def _verify_expectations(vectors: list[Vector], profile: Profile) -> None:
    """A vector file given with --vectors (a laboratory's, a repro) states expected values
    the run never compares with the game (it judges by the rules oracle): they must be
    the rules' under the profile certified, at the stakes written, or the file is wrong.
    The bundled vectors are proven so under their own profiles (tests/test_oracle.py)."""
    for vector in (v for v in vectors if v.valid):
        plays = {s.seat: SeatPlay(s.seat, s.ante, s.aa_bonus, s.action) for s in vector.seats}
        try:
            want = settle(profile, vector.deal, plays)
        except InvalidBet as exc:
            raise SpecError(vector.path, vector.line, f"vector {vector.id}: {exc}") from None
        stated = (
            vector.expected_dealer,
            [(e.seat, e.ante, e.call, e.aa_bonus) for e in vector.expected_seats],
        )
        rules = (
            {"hand": want.dealer_hand.wire, "qualifies": want.dealer_qualifies},
            [(w.seat, w.ante, w.call, w.aa_bonus) for w in want.seats],
        )
        if stated != rules:
            raise SpecError(
                vector.path,
                vector.line,
                f"vector {vector.id}: its expected values are not the rules' under profile "
                f"{profile.name} (dealer {rules[0]}, seats {rules[1]})",
            )


def repeat_suffixes(repeat: int) -> list[str]:
    """The name suffixes of a vector replayed `repeat` times (`#1`, `#2`, ...)."""
    return [f"#{k + 1}" for k in range(repeat)] if repeat > 1 else [""]


def _profile_arg(profile: Profile) -> str:
    """The profile as a command line names it: its name when bundled, else its path."""
    try:
        bundled = load_profile(profile.name).path.resolve() == profile.path.resolve()
    except SpecError:
        bundled = False
    return profile.name if bundled else str(profile.path.resolve())


def _minimums(profile: Profile, given: str | None) -> Minimums:
    """The sample sizes a certificate needs: chcert's defaults, raised by the profile's
    evidence_minimums, set key by key by the laboratory's (--chcert-minimums, from a
    named run plan; harness/results/evidence.py resolve)."""
    try:
        stated = json.loads(given) if given else {}
        if not isinstance(stated, dict):
            raise ValueError("a JSON object is expected")
        source = str(stated.pop("source", "--chcert-minimums"))
        return resolve_minimums(profile.name, profile.raw.get("evidence_minimums"), stated, source)
    except ValueError as exc:  # chcert certify checks it before the run
        raise UsageError(f"minimum sample sizes: {exc}") from None
