"""One typed model of a run's outcomes: results.json is its serialisation (docs/results.md).

The run builds these records (harness/results/build.py); the report, `chcert diff`, JUnit and
the command line's summary read them, and only they turn them into words. A reason is a
code, a subject and a detail, never a sentence another module parses back; a failure
carries its cause as a key (`Fault`: clause, kind, detail, wager, field, found by), so
grouping failures needs no text.

Records are msgspec structs: typed, frozen, and read from a parsed results.json with
`Results.from_json`, which also reads the files of earlier versions (schema 1 to 4),
whose reasons were sentences (kept as `ReasonCode.TEXT`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum, unique
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from harness.results.outcomes import SCHEMA_VERSION, Status, Verdict

if TYPE_CHECKING:
    from harness.rules.profiles import Profile


class Model(msgspec.Struct, frozen=True, kw_only=True):
    """Base of the model's records: typed, frozen; unknown keys of a file are ignored."""


# ---------------------------------------------------------------------------- reasons


@unique
class ReasonCode(StrEnum):
    """Why a run, a clause or an item is not (fully) tested, or how a clause was closed."""

    UNREACHABLE = "unreachable"  # subject: the adapter spec; detail: what happened
    INTERRUPTED = "interrupted"  # subject: the signal (Ctrl-C, SIGTERM)
    RUNNER_ERROR = "runner-error"  # the test runner's own internal error
    RUNNER_STOPPED = "runner-stopped"  # subject: its exit code; detail: a hint
    HARNESS_ERROR = "harness-error"  # subject: the item; detail: the error
    SELECTION = "selection"  # subject: the expressions; detail: "RAN of PLANNED"
    CLAUSES_NOT_TESTED = "clauses-not-tested"  # subject: the clause ids, comma separated
    SHORT_SAMPLE = "short-sample"  # subject: the sample's name; detail: size and minimum
    MATH_FAILED = "math-failed"  # detail: the error of the exact mathematics
    FIGURES_NOT_CHECKED = "figures-not-checked"  # subject: the figures, comma separated
    NO_HELLO = "no-hello"  # the figures the game publishes are unknown
    NOT_TESTED = "not-tested"  # a clause's item: detail what kept it from running
    NOTHING_APPLIES = "nothing-applies"  # no vector or check of the clause applies
    ATTESTED = "attested"  # subject: who; detail: the result and date
    ALSO_ATTESTED = "also-attested"  # subject: who (the clause passed here too)
    ATTESTATION_REJECTED = "attestation-rejected"  # subject: who (the clause failed here)
    NOT_BORNE_OUT = "not-borne-out"  # detail: what in the run's own records bars a PASS
    TEXT = "text"  # a sentence of a file written before reasons had codes


class Reason(Model, frozen=True, kw_only=True):
    code: ReasonCode
    subject: str = ""
    detail: str = ""


# ---------------------------------------------------------------------------- items


@unique
class ItemKind(StrEnum):
    """What an item of a clause is (docs/results.md)."""

    VECTOR = "vector"  # a hand-worked or refusal vector replayed
    CHECK = "check"  # a registered check (a shard of one)
    CORPUS = "corpus"  # a clause's share of the generated corpus
    FINDING = "finding"  # a cause an item found and attributed to the clause (its fault)
    DIFFERENTIAL = "differential"  # a finding, as files of schema 7 and earlier name it
    CLAIM = "claim"  # a figure the rules source claims
    MANUAL = "manual"  # the laboratory's review


class PlannedItem(Model, frozen=True, kw_only=False):
    """An item the run should run under the profile: `clause/target`, as pytest names it."""

    name: str
    clause: str
    kind: ItemKind
    target: str
    section: str = ""  # the results section its outcome has a share of (its check's)


class Item(Model, frozen=True, kw_only=True):
    """An item's row in its clause: how it ended, and what would let it run."""

    name: str
    kind: ItemKind
    status: Status
    message: str = ""
    needs: str = ""


# ---------------------------------------------------------------------------- outcomes


class Finding(Model, frozen=True, kw_only=True):
    """A failure a check attributes to a clause, its own or another's (the decision table
    of docs/differential.md): one cause, its first example, how often it was seen."""

    clause: str
    item: str  # `clause/SOURCE:SLUG` (differential, corpus, vectors, ...): an item of its own
    kind: str = ""  # the fault's kind in the decision table (ante-row, qualify, ...)
    detail: str = ""
    count: int = 1
    message: str = ""
    expected: Any = None
    actual: Any = None
    evidence: dict[str, Any] = {}
    reproduce: str = ""  # "" for the command of the item that found it
    repro: dict[str, Any] | None = None  # the round as a vector file, when replayable
    fault: Fault | None = None  # its key, which the item that found it completes


class Untested(Model, frozen=True, kw_only=True):
    """Part of an item that could not run, and what would let it."""

    reason: str
    needs: str = ""


class Outcome(Model, frozen=True, kw_only=True):
    """What a check hands back when it returns (a failure is raised: CheckFailure).

    `evidence` is kept with its item; `findings` become items of their clauses;
    `untested` leaves the item not tested unless it failed; `share` is the item's part
    of a results section, which the merge registered with its check sums
    (harness/checks/registry.py `section`)."""

    evidence: dict[str, Any] = {}
    findings: list[Finding] = []
    untested: Untested | None = None
    share: Share | None = None


class Record(msgspec.Struct, kw_only=True):
    """One item's outcome, as it crosses from an xdist worker to the controller (as JSON
    on its teardown report); the controller completes it (repro file, reproduce)."""

    node: str
    clause: str
    kind: ItemKind
    name: str  # the item's target: a vector id, a check (shard) name, "corpus"
    status: Status
    message: str = ""
    expected: Any = None
    actual: Any = None
    evidence: dict[str, Any] = {}
    protocol_fault: bool = False  # the game broke protocol v1, not a rule of the game
    reproduce: str = ""
    needs: str = ""  # for not_tested: what would let the item run
    repro: dict[str, Any] | None = None  # a failing randomized round, as a vector file
    repro_file: str = ""  # where the controller wrote `repro`, relative to the output folder
    findings: list[Finding] = []  # failures attributed to clauses: records of their own
    fault: Fault | None = None  # a failure's cause (a finding's: the finding's)
    count: int = 1  # a finding's: the rounds, vectors or seat-hands that showed it
    found_by_item: str = ""  # a finding's: the item that found it
    section: str = ""  # the results section `share` belongs to (its check's)
    share: Share | None = None

    @property
    def item(self) -> str:
        """The item's name, `clause/target` (the last part of the pytest node id)."""
        return self.node.rpartition("::")[2]

    def to_json(self) -> str:
        return _RECORD_ENCODER.encode(self).decode("utf-8")

    @classmethod
    def from_json(cls, text: str) -> Record:
        return msgspec.json.decode(text, type=cls)


def _plain(value: Any) -> Any:
    """What JSON has no type for: a numpy scalar as its number, anything else as text."""
    item = getattr(value, "item", None)
    return item() if callable(item) else str(value)


# A game's number with a fraction is a Decimal (harness/adapters/base.py): a number in JSON.
_RECORD_ENCODER = msgspec.json.Encoder(enc_hook=_plain, decimal_format="number")


# ---------------------------------------------------------------------------- clauses


@unique
class ClauseKind(StrEnum):
    IMPLEMENTATION = "implementation"  # verified by vectors and checks
    PUBLICATION = "publication"  # a figure claimed, judged against exact mathematics


# A clause is never in error: a harness error leaves it not tested (docs/verdict.md).
ClauseStatus = Annotated[
    Status, msgspec.Meta(extra_json_schema={"enum": ["pass", "fail", "not_tested", "attested"]})
]
# A SHA-256, as results.json writes every digest.
Sha256 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class ClauseRow(Model, frozen=True, kw_only=True):
    """A clause's row of the traceability matrix: pass only when every item passed."""

    id: str
    title: str = ""
    statement: str = ""
    kind: ClauseKind = ClauseKind.IMPLEMENTATION
    category: str = ""
    severity: str = ""
    sources: list[str] = []
    interpretation: str | None = None
    varied: list[VariedField] = []  # what an approved variation changes of its statement
    status: ClauseStatus = Status.NOT_TESTED
    items: list[Item] = []
    vectors: int = 0
    checks: int = 0
    passed: int = 0
    failed: list[str] = []
    notes: list[Reason] = []
    to_close: list[str] = []  # what would close the gap besides an attestation


class Gap(Model, frozen=True, kw_only=True):
    """A clause not tested: why, and what would close it (an attestation always would)."""

    clause: str
    title: str = ""
    kind: ClauseKind = ClauseKind.IMPLEMENTATION
    why: list[Reason] = []
    to_close: list[str] = []


# ---------------------------------------------------------------------------- failures


@unique
class FailureKind(StrEnum):
    IMPLEMENTATION = "implementation"  # the game's behaviour broke a clause
    PUBLICATION = "publication"  # a figure claimed or published is refuted


@unique
class FoundBy(StrEnum):
    """Which source of evidence found a fault (docs/report.md, Failures by cause)."""

    VECTOR = "vector"  # a hand-worked vector replayed
    REFUSAL = "refusal"  # a refusal vector: a bad request the game must refuse
    CHECK = "check"  # a registered check
    CORPUS = "corpus"  # the generated corpus
    DIFFERENTIAL = "differential"  # the differential's stacked seat-hands
    SIMULATION = "simulation"  # the RTP simulation's rounds
    HELLO = "hello"  # the game's hello
    CAPABILITIES = "capabilities"  # the capabilities a profile requires
    CLAIM = "claim"  # a figure the rules source claims
    PUBLISHED = "published"  # a figure the game publishes
    AUDIT = "audit"  # a production round log


class Fault(Model, frozen=True, kw_only=True):
    """A failure's cause as a key: the same on every failure of one cause, whichever
    source found it, so failures are grouped and counted by it and never by their words.

    `kind` is the decision table's (docs/differential.md: ante-odds, qualify, ...), a
    protocol violation's (`protocol`, `detail` the violation), a refusal's (`refused`,
    `detail` the error code), or the name of the check or figure that failed; `detail`
    tells causes of one kind apart; `wager` and `field` are the first settlement wager
    and the first other settlement field (action, hand) the game got otherwise."""

    clause: str | None
    kind: str
    detail: str = ""
    wager: str = ""
    field: str = ""
    found_by: FoundBy

    def what(self) -> str:
        """The cause in a few words: `ante-odds (ante flush)`."""
        return f"{self.kind} ({self.detail})" if self.detail else self.kind

    @property
    def cause(self) -> tuple[str | None, str, str, str, str]:
        """The fault whoever found it: the same wrong payment found by a vector, the
        differential and the corpus is one cause (the report's groups)."""
        return self.clause, self.kind, self.detail, self.wager, self.field


def settlement_fault(
    clause: str | None, kind: str, detail: str, found_by: FoundBy, expected: Any, actual: Any
) -> Fault:
    """A fault with the wager and field its round's settlements differ in, read from the
    shapes failures record (`seat_money`)."""
    want, got = seat_money(expected), seat_money(actual)
    fields = [f for seat in sorted(set(want) & set(got)) for f in differing(want[seat], got[seat])]
    wager = next((f for f in fields if f in WAGERS), "")
    other = next((f for f in fields if f not in WAGERS), "")
    return Fault(
        clause=clause, kind=kind, detail=detail, wager=wager, field=other, found_by=found_by
    )


class Failure(Model, frozen=True, kw_only=True):
    """One failure in full: expected and actual as the game and the rules gave them."""

    kind: FailureKind
    clause: str | None
    item: str
    item_kind: str  # an ItemKind, or hello / required-capabilities / published / claim
    node: str | None = None
    expected: Any = None
    actual: Any = None
    message: str = ""
    evidence: dict[str, Any] = {}
    reproduce: str = ""
    repro: str | None = None  # the repro vector, relative to the folder of results.json
    fault: Fault | None = None

    def key(self) -> Fault:
        """The failure's cause; a file from before faults were recorded (schema 7 and
        earlier): each failure its own, by its item."""
        if self.fault is not None:
            return self.fault
        found_by = _found_by(self.item_kind)
        return Fault(clause=self.clause, kind=self.item_kind, detail=self.item, found_by=found_by)


# ---------------------------------------------------------------------------- figures


class Figure(Model, frozen=True, kw_only=True, omit_defaults=True):
    """A figure claimed by the rules source or published by the game, against the exact
    mathematics; `readings` holds every definition tried."""

    figure: str
    claimed: float | None
    source: str = ""
    status: Status
    computed: float | None
    definition: str | None = None
    difference: float | None = None
    tolerance: float | None = None
    readings: dict[str, float | None] | None = None
    priced_on: str | None = None
    reproduce: str | None = None
    clause: str | None = None
    reason: str | None = None


class Publication(Model, frozen=True, kw_only=True):
    verdict: Verdict = Verdict.INCOMPLETE
    claimed_by_source: list[Figure] = []
    published_by_game: list[Figure] = []


# ---------------------------------------------------------------------------- sections


class StatTest(Model, frozen=True, kw_only=True):
    name: str
    statistic: float
    p_value: float
    description: str = ""
    detects: str = ""
    df: int | None = None
    p_adjusted: float = 1.0
    passed: bool = True


class RngStage(Model, frozen=True, kw_only=True, omit_defaults=True):
    """The battery's stage 2, the confirmation: the same tests on stage 1's sample and a
    fresh, independent one of as many decks (`fresh_decks`) together, at its own
    family-wise alpha, run only when stage 1 rejected, not grossly (`ran`). A file of
    schema 6 or before has no `fresh_decks`: its stage 2 was the fresh sample alone."""

    ran: bool
    reason: str = ""
    decks: int = 0
    fresh_decks: int | None = None
    raw_bytes: int = 0
    alpha: float | None = None
    correction: str = ""
    passed: bool | None = None
    tests: list[StatTest] = []


class DieharderTest(Model, frozen=True, kw_only=True, omit_defaults=True):
    name: str
    assessment: str  # dieharder's PASSED, WEAK or FAILED; TIMEOUT when it did not answer
    ntup: int | None = None
    p_value: float | None = None


class Dieharder(Model, frozen=True, kw_only=True, omit_defaults=True):
    """dieharder's own assessments of the raw RNG output: informational, outside the
    battery's corrected family (harness/gamemath/rng.py run_dieharder)."""

    ran: bool
    reason: str = ""  # why it did not run
    bytes: int | None = None
    tests: list[DieharderTest] = []
    passed: bool | None = None  # no test FAILED


# The battery's card x position table: 52 positions of 52 cards, each a count.
DECK = msgspec.Meta(min_length=52, max_length=52)
CardsByPosition = Annotated[list[Annotated[list[Annotated[int, msgspec.Meta(ge=0)]], DECK]], DECK]
Probability = Annotated[float, msgspec.Meta(ge=0, le=1)]


class RngSection(Model, frozen=True, kw_only=True, omit_defaults=True):
    """The deck battery (docs/results.md `rng`): stage 1's table, and `stage2`, the
    confirmation on a fresh sample; `passed` is the two stages' verdict. A file from
    before the two stages has neither `stage1_passed` nor `stage2` (None): its one
    battery is stage 1, and its `passed` that battery's."""

    status: Status
    reason: str = ""
    decks: int
    raw_bytes: int = 0
    alpha: float | None = None
    correction: str = ""
    power: float | None = None
    passed: bool | None = None
    position_counts: CardsByPosition = []
    position_p_values: Annotated[list[Probability], DECK] = []
    tests: list[StatTest]
    dieharder: Dieharder | None = None
    stage1_passed: bool | None = None
    gross_alpha: float | None = None
    gross: bool | None = None
    stage2: RngStage | None = None
    false_fail_rate: float | None = None


class Strata(Model, frozen=True, kw_only=True):
    quota: int = 0
    total: int = 0
    met: int = 0
    short: dict[str, int] = {}
    counts: dict[str, int] = {}


class DifferentialCause(Model, frozen=True, kw_only=True):
    clause: str
    kind: str = ""
    detail: str = ""
    count: int = 1
    item: str = ""


class DifferentialSection(Model, frozen=True, kw_only=True, omit_defaults=True):
    """The differential's shards summed (docs/differential.md)."""

    status: Status
    reason: str = ""
    budget: int = 0
    shards_run: int
    shards: int
    seat_hands: int
    uniform_seat_hands: int
    stratified_seat_hands: int
    rounds: int
    strata: Strata
    disagreeing_seat_hands: int
    uncompared_seat_hands: int = 0  # of rounds the game refused or answered malformed
    causes: list[DifferentialCause]
    detectable_fault_rate: float
    seconds: float = 0.0
    seat_hands_per_second: float = 0.0


class CorpusSection(Model, frozen=True, kw_only=True):
    """The generated corpus's items summed (docs/corpus.md)."""

    status: Status = Status.NOT_TESTED
    items: int = 0
    vectors: int = 0
    ran: int = 0
    failed: int = 0
    not_tested: int = 0
    stakes: dict[str, int] = {}  # vectors by how their stakes were fitted to the table
    failing: list[CorpusFailing] = []
    seconds: float = 0.0


class Simulation(Model, frozen=True, kw_only=True, omit_defaults=True):
    """The RTP simulation's rounds against the exact return (docs/verdict.md)."""

    status: Status
    reason: str = ""
    rounds: int = 0
    seats: int = 0
    hands: int = 0
    ante: int = 0
    dealt_by: str = ""
    observed_return_per_ante: float | None = None
    observed_rtp: float | None = None
    confidence: float | None = None
    interval: list[float] = []
    exact_return_per_ante: float | None = None
    exact_rtp: float | None = None
    observed_raise_frequency: float | None = None
    detectable_shift: float | None = None
    interval_contains_exact: bool | None = None
    interval_judged: bool | None = None
    passed: bool | None = None
    method: str = ""


# ---------------------------------------------------------------------------- shares
# An item's part of a results section, as its check makes it and the merge registered
# with that check sums (harness/checks/registry.py `section`). Tagged: a record carries
# one across the wire from a worker, and its tag says which.


class RngShare(Model, frozen=True, kw_only=True, tag="rng"):
    """The deck battery's one item: its section whole."""

    section: RngSection


class SimulationShare(Model, frozen=True, kw_only=True, tag="simulation"):
    """The RTP simulation's one item: its section whole."""

    section: Simulation


class DifferentialShare(Model, frozen=True, kw_only=True, tag="differential"):
    """One shard of the differential: what it played and compared."""

    budget: int
    rounds: int
    uniform_seat_hands: int
    stratified_seat_hands: int
    strata: dict[str, int]
    disagreeing_seat_hands: int
    uncompared_seat_hands: int  # of rounds refused or answered malformed: not compared
    seconds: float

    @property
    def seat_hands(self) -> int:
        """The seat-hands compared."""
        return self.uniform_seat_hands + self.stratified_seat_hands


class CorpusFailing(Model, frozen=True, kw_only=True):
    """A failing corpus vector, as the corpus section lists its first few."""

    vector: str
    message: str
    expected: Any = None
    actual: Any = None
    reproduce: str = ""


class CorpusShare(Model, frozen=True, kw_only=True, tag="corpus"):
    """One clause's share of the generated corpus."""

    vectors: int
    ran: int
    failed: int
    not_tested: int
    stakes: dict[str, int] = {}
    failing: list[CorpusFailing] = []
    seconds: float = 0.0


Share = RngShare | SimulationShare | DifferentialShare | CorpusShare


@dataclass(frozen=True)
class Shares:
    """What the merge of one results section is given at the run's end: the records of
    the items whose check makes it, the items planned, the causes those items found (as
    records of their clauses), and the profile."""

    records: list[Record]
    planned: list[PlannedItem]
    found: list[Record]
    profile: Profile


class AnteRow(Model, frozen=True, kw_only=True):
    row: str
    odds: int | float
    probability: float
    contribution: float


class PlayFigures(Model, frozen=True, kw_only=True):
    """A strategy's exact figures per ante (optimal, or always call)."""

    strategy: str = ""
    house_edge: float = 0.0
    rtp: float = 0.0
    element_of_risk: float = 0.0
    rtp_per_total_wager: float = 0.0
    raise_frequency: float = 0.0
    average_wager: float = 0.0
    outcomes: dict[str, float] = {}
    rows: list[AnteRow] = []
    breakdown: dict[str, float] = {}
    exact: dict[str, str] = {}


class AABonusRow(Model, frozen=True, kw_only=True):
    row: str
    hands: int
    probability: float
    pays: int | None
    contribution: float


class StrategyHand(Model, frozen=True, kw_only=True):
    hand: str
    share: float
    call_rate: float


class StrategyInfo(Model, frozen=True, kw_only=True):
    rule: str = ""
    summary: list[StrategyHand] = []
    sha256: str = ""
    file: str = ""


class MathSection(Model, frozen=True, kw_only=True, omit_defaults=True):
    """The profile's exact mathematics, the claims judged on it, the RTP simulation."""

    status: Status
    reason: str = ""
    method: str = ""
    house_edge: float | None = None
    rtp: float | None = None
    element_of_risk: float | None = None
    raise_frequency: float | None = None
    # A profile without an AA Bonus has none: null and []; the mathematics failing, absent.
    aa_bonus_edge: float | msgspec.UnsetType | None = msgspec.UNSET
    optimal: PlayFigures | None = None
    always_call: PlayFigures | None = None
    aa_bonus_rows: list[AABonusRow] | msgspec.UnsetType = msgspec.UNSET
    strategy: StrategyInfo | None = None
    claims: list[Figure]
    simulation: Simulation


class Sample(Model, frozen=True, kw_only=True):
    name: str
    what: str = ""
    option: str = ""
    size: int = 0
    minimum: int = 0
    judged: bool = False
    met: bool = True


class SampleMinimums(Model, frozen=True, kw_only=True):
    """The least samples a certificate accepts, and who said so (harness/results/evidence.py)."""

    rng_decks: int = 0
    rtp_rounds: int = 0
    differential: int = 0
    source: str = "not recorded"


class EvidenceSection(Model, frozen=True, kw_only=True):
    """The samples the verdict rests on, each against the certificate's minimum."""

    minimums: SampleMinimums = SampleMinimums()
    samples: list[Sample] = []
    met: bool = True


# ---------------------------------------------------------------------------- the rest


class Selection(Model, frozen=True, kw_only=True):
    """A -k / -m / --item run: never a certificate."""

    expressions: dict[str, str] = {}
    left_out: list[str] = []
    ran: int = 0
    planned: int = 0


class Source(Model, frozen=True, kw_only=True):
    file: str
    title: str = ""
    ref: str = ""


class VariedField(Model, frozen=True, kw_only=True):
    """A field an approved variation changes (docs/profiles.md): `ante_pay_table.flush`,
    `rules.fold_forfeits_aa_bonus`, `claims.house_edge`; null where one side has none."""

    field: str
    base: Any = None
    approved: Any = None


class ProfileInfo(Model, frozen=True, kw_only=True, omit_defaults=True):
    name: str
    title: str = ""
    sources: list[Source] = []
    resolved: dict[str, Any] = {}
    # An approved variation: the bundled profile it varies (whose clauses apply), what
    # it changes, the base's claim clauses it does not restate and the clauses about an
    # AA Bonus it does not offer (neither applies).
    extends: str | None = None
    clauses_from: str | None = None
    variations: list[VariedField] = []
    not_applicable: list[str] = []
    not_offered: list[str] = []  # clauses about an AA Bonus the variation removes


class TableSection(Model, frozen=True, kw_only=True):
    """The table the game declared (its limits and house rules), what the profile demands
    of it, and the stakes the run played at it (docs/profiles.md)."""

    ante: list[int] | None = None  # null: no valid ante limits declared
    aa_bonus: list[int] | None = None
    house_rules: dict[str, int] = {}
    unknown_house_rules: list[str] = []
    required_limits: dict[str, list[int]] | None = None  # the profile's demand
    house_rules_allowed: list[str] = []
    # Vectors (hand-worked and corpus) by how their stakes were fitted to the table:
    # "as written", "scaled", "restaked" (harness/rules/table.py).
    stakes: dict[str, int] = {}


class Attestation(Model, frozen=True, kw_only=True):
    clause: str
    result: str
    evidence: str = ""
    by: str = ""
    date: str = ""
    applied: bool = False
    note: str = ""
    laboratory: str | None = None


class VectorCounts(Model, frozen=True, kw_only=True):
    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    not_tested: int = 0


class Capabilities(Model, frozen=True, kw_only=True):
    declared: Any = None  # as the game declared them: a list, or whatever it sent
    required_by_profile: list[str] = []
    missing_required: list[str] = []


class ProtocolCheck(Model, frozen=True, kw_only=True):
    name: str
    clause: str
    status: Status
    message: str = ""


class Protocol(Model, frozen=True, kw_only=True):
    checks: list[ProtocolCheck] = []


class OutOfScope(Model, frozen=True, kw_only=True):
    catalog: str
    source: str
    ref: str
    reason: str


class Artifact(Model, frozen=True, kw_only=True):
    """A file of the build submitted, as `--artifact` hashed it (key order: the file's)."""

    name: str
    path: str | None = None
    bytes: int
    sha256: Sha256


class Manifest(Model, frozen=True, kw_only=True, omit_defaults=True):
    """Who ran what, on which data and settings (docs/results.md)."""

    harness_version: str
    profile_sha256: Sha256
    spec_sha256: Sha256
    vectors_sha256: Sha256
    started: str
    finished: str
    seed: int | None
    run_plan: dict[str, Any]
    report_id: str | None = None
    artifacts: list[Artifact] | None = None
    laboratory: dict[str, str] | None = None
    plan: dict[str, Any] | None = None


class Results(Model, frozen=True, kw_only=True):
    """results.json: everything a run found, and its verdicts (contract 3)."""

    schema_version: int = SCHEMA_VERSION
    verdict: Verdict
    implementation_verdict: Verdict = Verdict.INCOMPLETE
    publication_verdict: Verdict = Verdict.INCOMPLETE
    incomplete_reasons: list[Reason] = []
    gaps: list[Gap] = []
    selection: Selection | None = None
    implementation: Any = None  # the game's hello, as it sent it
    implementation_stderr: str = ""
    adapter: str = ""
    profile: ProfileInfo = ProfileInfo(name="?")
    table: TableSection | None = None
    clauses: list[ClauseRow] = []
    attestations: list[Attestation] = []
    vectors: VectorCounts = VectorCounts()
    capabilities: Capabilities | None = None
    failures: list[Failure] = []
    publication: Publication | None = None
    protocol: Protocol | None = None
    rng: RngSection | None = None
    corpus: CorpusSection | None = None
    differential: DifferentialSection | None = None
    math: MathSection | None = None
    evidence: EvidenceSection | None = None
    out_of_scope: list[OutOfScope] = []
    manifest: Manifest | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Results:
        """The records of a parsed results.json, of this version or an earlier one;
        msgspec.ValidationError names the path of a value of the wrong type."""
        return msgspec.convert(upgraded(data), cls)

    def to_json(self) -> dict[str, Any]:
        """results.json's data: every key, in the schema's order (docs/results.md)."""
        data: dict[str, Any] = msgspec.json.decode(_RECORD_ENCODER.encode(self))
        return {k: v for k, v in data.items() if v is not None or k not in _SECTIONS}


# The first version of results.json whose reasons are codes (docs/results.md).
CODED_SINCE = 5

# The sections a stub (a run stopped before its results were built) has none of.
_SECTIONS = frozenset(
    {"table", "capabilities", "publication", "protocol", "rng", "corpus", "differential", "math"}
    | {"evidence", "manifest"}
)


# ---------------------------------------------------------------------------- reading


def upgraded(data: Mapping[str, Any]) -> dict[str, Any]:
    """A results file of schema 1 to 4 in this version's shape: its sentences kept as
    reasons of code TEXT, the attestation dropped from `to_close` (always a way); schema
    1's failures, mathematics and manifest as later versions wrote them."""
    version = data.get("schema_version")
    if not isinstance(version, int):
        # Schema 1 stated no version, nor the two verdicts schema 2 added: a file with
        # them and no version is read as this version's (and held to its rules).
        version = SCHEMA_VERSION if "implementation_verdict" in data else 1
    out = {**data, "schema_version": version}
    if version < FAULTS_SINCE and isinstance(data.get("failures"), list):
        out["failures"] = [_with_fault(f) for f in data["failures"]]
    if version >= CODED_SINCE:
        return out
    if out["schema_version"] == 1:
        out |= {key: upgrade(data[key]) for key, upgrade in _SCHEMA_1.items() if key in data}
    manifest = data.get("manifest")
    if isinstance(manifest, dict) and "harness_version" not in manifest:
        out["manifest"] = None  # a stub's of schema 3 or 4: only report_id and artifacts
    out["incomplete_reasons"] = [_reason(r) for r in _list(data.get("incomplete_reasons"))]
    out["gaps"] = [
        {**g, "why": [_reason(w) for w in _list(g.get("why"))], "to_close": _ways(g)}
        for g in _list(data.get("gaps"))
        if isinstance(g, dict)
    ]
    out["clauses"] = [
        {**c, "notes": [_reason(n) for n in _list(c.get("notes"))], "to_close": _ways(c)}
        for c in _list(data.get("clauses"))
        if isinstance(c, dict)
    ]
    return out


# The first version whose failures record their `fault`; before it, 5 to 7 recorded a
# `cause`: the hands settled otherwise with their fields, or the message's shape.
FAULTS_SINCE = 8


def _with_fault(failure: Any) -> Any:
    """A failure of schema 7 or earlier with the fault its recorded `cause` states (read as
    recorded, never from its message), so an archive's failures group as they did."""
    if not isinstance(failure, dict) or "fault" in failure:
        return failure
    cause = failure.get("cause")
    if not isinstance(cause, dict):
        return failure
    settled = [s for s in _list(cause.get("settled")) if isinstance(s, dict)]
    if settled:
        kind = "settled-otherwise"
        detail = "; ".join(
            f"{s.get('hand')}: {', '.join(map(str, _list(s.get('fields'))))}" for s in settled
        )
    else:
        kind, detail = "message", str(cause.get("shape") or "")
    found_by = _found_by(failure.get("item_kind"))
    fault = {"clause": failure.get("clause"), "kind": kind, "detail": detail, "found_by": found_by}
    return {**failure, "fault": fault}


def _found_by(item_kind: Any) -> FoundBy:
    """The source a failure of an earlier file was found by, from its item's kind."""
    return _SOURCE_OF_KIND.get(str(item_kind), FoundBy.CHECK)


_SOURCE_OF_KIND = {
    "vector": FoundBy.VECTOR,
    "check": FoundBy.CHECK,
    "corpus": FoundBy.CORPUS,
    "differential": FoundBy.DIFFERENTIAL,
    "claim": FoundBy.CLAIM,
    "published": FoundBy.PUBLISHED,
    "hello": FoundBy.HELLO,
    "required-capabilities": FoundBy.CAPABILITIES,
}


# Schema 1's words for the exact mathematics and its claims, in this version's statuses.
_SCHEMA_1_STATUSES = {
    "complete": Status.PASS.value,
    "confirmed": Status.PASS.value,
    "not_reproducible": Status.FAIL.value,
    "not_computed": Status.NOT_TESTED.value,
}


def _schema_1_failures(failures: Any) -> Any:
    """Each as an item of this version, all the game's (publication failures came later)."""
    return [_schema_1_failure(f) for f in failures] if isinstance(failures, list) else failures


def _schema_1_failure(failure: Any) -> Any:
    """A failure named its vector or its check apart: an item is `clause/target` since,
    and one of no clause (required-capabilities) is as named, its own kind."""
    match failure:
        case {"vector": str() as vector, "clause": str() as clause}:
            item = {"item": f"{clause}/{vector}", "item_kind": "vector"}
        case {"check": str() as check, "clause": str() as clause}:
            item = {"item": f"{clause}/{check}", "item_kind": "check"}
        case {"check": str() as check}:
            item = {"item": check, "item_kind": check}
        case _:
            return failure
    return {"kind": "implementation", **item, **failure}


def _schema_1_math(math: Any) -> Any:
    """The mathematics, whose statuses and its claims' had words of their own."""
    match math:
        case {"status": str() as status, "claims": list() as claims}:
            return {
                **math,
                "status": _SCHEMA_1_STATUSES.get(status, status),
                "claims": [_schema_1_claim(c) for c in claims],
            }
    return math


def _schema_1_claim(claim: Any) -> Any:
    match claim:
        case {"status": str() as status}:
            return {**claim, "status": _SCHEMA_1_STATUSES.get(status, status)}
    return claim


def _schema_1_manifest(manifest: Any) -> Any:
    """It had no run plan."""
    return {"run_plan": {}, **manifest} if isinstance(manifest, dict) else manifest


# The keys of a file of schema 1 that this version reads otherwise, each with its upgrade.
_SCHEMA_1: dict[str, Callable[[Any], Any]] = {
    "failures": _schema_1_failures,
    "math": _schema_1_math,
    "manifest": _schema_1_manifest,
}


def _reason(value: Any) -> Any:
    """A sentence of schema 4 or earlier as a reason of code TEXT, kept as written."""
    if not isinstance(value, str):
        return value
    return {"code": ReasonCode.TEXT.value, "subject": "", "detail": value}


def _ways(row: Mapping[str, Any]) -> list[Any]:
    ways = [str(w).removeprefix("or ") for w in _list(row.get("to_close"))]
    return [w for w in ways if w != "an attestation"]


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# ---------------------------------------------------------------------------- causes


WAGERS = ("ante", "call", "aa_bonus")
SETTLED = (*WAGERS, "action", "hand")  # the fields of a seat's settlement compared


def seat_money(value: Any) -> dict[str, dict[str, Any]]:
    """Per seat, its settlement fields, from the shapes failures record: a vector's
    {"seats": {"1": {...}}}, one seat's {"ante": ..., "call": ...} (the differential, the
    RTP simulation), or an archive's RTP simulation [[ante stake, returned], [call ...]]."""
    if isinstance(value, dict) and isinstance(value.get("seats"), dict):
        return {str(k): v for k, v in value["seats"].items() if isinstance(v, dict)}
    if isinstance(value, dict) and any(w in value for w in WAGERS):
        return {"": value}
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, list) for v in value):
        return {"": {"ante": value[0], "call": value[1]}}
    return {}


def differing(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    """The settlement fields of a seat whose values the game and the rules both record
    and that differ."""
    return [k for k in SETTLED if k in expected and k in actual and expected[k] != actual[k]]


# ---------------------------------------------------------------------------- schema


def results_schema() -> dict[str, Any]:
    """specs/schemas/results.schema.json, generated from this model: a file of this
    version, as `Results.to_json` writes it. Every field of a record is written but those
    of a record that omits its defaults (and a stub's missing sections); no key beyond
    the model's. Earlier versions are read by the model (`Results.from_json`), not by
    this schema."""
    defs = closed_components(Results)
    results = defs.pop("Results")
    results["required"] = [k for k in results["required"] if k not in _SECTIONS]
    results["properties"]["schema_version"] = {"const": SCHEMA_VERSION}
    # A stub (the runner stopped before the results were built) has no sections and no
    # manifest; a built file has them all.
    results["dependentRequired"] = {"manifest": sorted(_SECTIONS - {"manifest"})}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "results.schema.json",
        **{k: v for k, v in results.items() if k != "title"},
        "title": "results.json: the outcome of one `chcert certify` run (docs/results.md)",
        "$defs": defs,
    }


def closed_components(root: type[msgspec.Struct]) -> dict[str, Any]:
    """The `$defs` of a record and every record it holds, each closed as the record is
    written: every field it writes required (all, or those without a default where it
    omits its defaults), no key beyond its own."""
    _, defs = msgspec.json.schema_components([root], ref_template="#/$defs/{name}")
    kinds = {k.__name__: k for k in _records(root)}
    for name, component in defs.items():
        kind = kinds.get(name)
        if kind is None or component.get("type") != "object":
            continue
        info = msgspec.inspect.type_info(kind)
        assert isinstance(info, msgspec.inspect.StructType)
        config = kind.__struct_config__
        written = [f.encode_name for f in info.fields if f.required or not config.omit_defaults]
        component["required"] = written
        component["additionalProperties"] = False
        if config.tag_field is not None:
            component["required"] = [config.tag_field, *written]
    return defs


def _records(root: type[msgspec.Struct]) -> list[type[msgspec.Struct]]:
    """The record types a record holds, itself included, at any depth."""
    found: list[type[msgspec.Struct]] = []

    def walk(info: msgspec.inspect.Type) -> None:
        if isinstance(info, msgspec.inspect.StructType):
            if info.cls in found:
                return
            found.append(info.cls)
            for f in info.fields:
                walk(f.type)
            return
        for name in ("type", "item_type", "key_type", "value_type"):  # Metadata, containers
            if hasattr(info, name):
                walk(getattr(info, name))
        for name in ("types", "item_types"):  # unions, tuples
            for inner in getattr(info, name, ()):
                walk(inner)

    walk(msgspec.inspect.type_info(root))
    return found


def schema_text() -> str:
    import json

    return json.dumps(results_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write results.schema.json from the model (`--check`: exit 1 if it differs)."""
    from harness._schema import SCHEMA_DIR, write_generated

    command = "python -m harness.results.model"
    return write_generated(SCHEMA_DIR / "results.schema.json", schema_text(), command, argv)


if __name__ == "__main__":
    raise SystemExit(main())
