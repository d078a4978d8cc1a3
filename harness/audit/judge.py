"""The integrity and settlement checks of the production audit, batch by batch, into
partial tallies that merge exactly (docs/audit.md).

Integrity looks at the rows as records: malformed rows, a round's seat rows that
disagree on what they share, a seat twice, a card twice, a round id met again on its
table, time running backwards on a table, a stake the declared table does not take, a
void round that keeps a stake. Settlement re-settles every other row
(harness/audit/settle.py) and hands each round with a row that differs to the rules
oracle and the decision table of docs/differential.md, the same table certification
attributes by: each cause is a finding of the clause that owns its fault kind.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from harness.audit.cards import CardCounts, count
from harness.audit.ids import Repeat, RoundIds
from harness.audit.kernel import (
    SEAT_ROW_FIELDS,
    consecutive_cards,
    round_rows,
    times_backwards,
)
from harness.audit.leak import LeakCounts
from harness.audit.leak import count as count_decisions
from harness.audit.log import DAY, Labels, Malformed, Rows, day_name, keys_at
from harness.audit.model import Example
from harness.audit.returns import (
    GroupSums,
    Moments,
    ReturnCounts,
    count_groups,
    merge_groups,
    readable,
)
from harness.audit.returns import count as count_returns
from harness.audit.settle import Owed, Payouts, beyond_arrays, misstated, owed
from harness.differential.attribution import disagreements
from harness.errors import InvalidBet, InvalidCards
from harness.protocol.messages import Dealer, Settled, SettledSeat, Wager, Wagers
from harness.rules.cards import Card, format_cards
from harness.rules.game import Action, Deal
from harness.rules.oracle import SeatPlay, Settlement, settle
from harness.rules.profiles import Profile
from harness.rules.table import Table

EXAMPLES = 3  # worked examples kept per finding
NO_TIME = np.iinfo(np.int64).min  # a table with no round yet
TIME_BACKWARDS = "a round settled before its table's previous one"

# Integrity's kinds, and the fault kind of the decision table whose clause a kind breaks
# (the catalogs' `differential:` lists name the clause); None: no rule of the game's
# own, the log's record is what is wrong.
INTEGRITY = {
    "malformed-row": None,
    "seats-disagree": None,
    "seat-twice": None,
    "card-twice": "deck",
    "round-repeated": None,
    "time-backwards": None,
    "stake-outside-table": "refused",
    "void-keeps-stake": None,
}


@dataclass(frozen=True)
class Replay:
    """A round as the log dealt and staked it, and the rules' settlement of it: what a
    stacked vector that replays a cause is written from."""

    deal: Deal
    plays: dict[int, SeatPlay]
    want: Settlement


@dataclass
class Tally:
    """One finding's count and its first examples, by build and by day."""

    count: int = 0
    examples: list[Example] = field(default_factory=list)
    by_build: Counter[str] = field(default_factory=Counter)
    by_day: Counter[str] = field(default_factory=Counter)
    replay: Replay | None = None  # settlement: the first round that shows the cause

    def add(self, example: Example, build: str | None, day: str | None, count: int = 1) -> None:
        """Count `count` rows; by build and by day where the row's are known."""
        self.count += count
        if build is not None:
            self.by_build[build] += count
        if day is not None:
            self.by_day[day] += count
        if len(self.examples) < EXAMPLES:
            self.examples.append(example)

    def merge(self, other: Tally) -> None:
        self.count += other.count
        self.by_build.update(other.by_build)
        self.by_day.update(other.by_day)
        self.examples = (self.examples + other.examples)[:EXAMPLES]
        self.replay = self.replay or other.replay


# (check, kind, detail, clause): what a finding is, never its words
Key = tuple[str, str, str, str | None]


@dataclass
class Partial:
    """What some rows of a log showed, to be merged with what the others showed."""

    rows: int = 0
    malformed: int = 0
    judged: int = 0  # rows whose settlement was compared
    unjudged: int = 0  # well-formed rows whose settlement could not be compared
    void: int = 0
    rounds: int = 0
    tallies: dict[Key, Tally] = field(default_factory=dict)
    cards: CardCounts = field(default_factory=CardCounts)
    leak: LeakCounts = field(default_factory=LeakCounts.empty)
    returns: ReturnCounts = field(default_factory=ReturnCounts)
    groups: dict[tuple[str, str], GroupSums] = field(default_factory=dict)  # return bands
    build_days: dict[str, str] = field(default_factory=dict)  # each build's first day
    build_rounds: dict[str, int] = field(default_factory=dict)  # each build's rounds
    build_rows: dict[str, int] = field(default_factory=dict)  # and its rows
    first_time: int | None = None
    last_time: int | None = None

    def tally(self, key: Key) -> Tally:
        return self.tallies.setdefault(key, Tally())

    def merge(self, other: Partial) -> None:
        for name in ("rows", "malformed", "judged", "unjudged", "void", "rounds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, tally in other.tallies.items():
            self.tally(key).merge(tally)
        self.cards.merge(other.cards)
        self.leak.merge(other.leak)
        self.returns.merge(other.returns)
        merge_groups(self.groups, other.groups)
        for build, day in other.build_days.items():
            self.build_days[build] = min(day, self.build_days.get(build, day))
        for build, rounds in other.build_rounds.items():
            self.build_rounds[build] = self.build_rounds.get(build, 0) + rounds
        for build, seats in other.build_rows.items():
            self.build_rows[build] = self.build_rows.get(build, 0) + seats
        times = [t for t in (self.first_time, other.first_time) if t is not None]
        self.first_time = min(times, default=None)
        times = [t for t in (self.last_time, other.last_time) if t is not None]
        self.last_time = max(times, default=None)


def day_of(micros: int) -> str:
    return day_name(micros // DAY)


@dataclass(frozen=True)
class Repeats:
    """The round ids met again in some of the spill's partitions (harness/audit/ids.py):
    how many meetings again, and the EXAMPLES the log meets first."""

    met: int = 0
    first: tuple[Repeat, ...] = ()

    def join(self, other: Repeats) -> Repeats:
        first = sorted(self.first + other.first, key=lambda r: r.again)  # (file, row)
        return Repeats(self.met + other.met, tuple(first[:EXAMPLES]))


def repeats(spill: Path, partitions: range) -> Repeats:
    """What only the whole log shows, in a share of it: the round ids of `partitions`
    met more than once, from the files the pieces' auditors wrote under `spill`."""
    met, earliest = 0, list[Repeat]()
    for repeat in RoundIds(spill).repeated(partitions):
        met += 1
        if len(earliest) < EXAMPLES or repeat.again < earliest[-1].again:
            bisect.insort(earliest, repeat, key=lambda r: r.again)  # (file, row): log order
            del earliest[EXAMPLES:]
    return Repeats(met, tuple(earliest))


def met_again(found: Repeats, files: list[str], partial: Partial) -> None:
    """The round ids met again, a finding (`files`: the log's, in order, each at the
    index its auditors numbered it by); the examples' ids read from the log again."""
    if not found.met:
        return
    key = ("integrity", "round-repeated", "a round id met again on its table", None)
    tally = partial.tally(key)
    rows = defaultdict[int, list[int]](list)  # the examples' rows, by file: a pass a file
    for file, row in (r.again for r in found.first):
        rows[file].append(row)
    keys = {file: keys_at(Path(files[file]), wanted) for file, wanted in rows.items()}
    for repeat in found.first:
        (file, row), (first_file, first_row) = repeat.again, repeat.first
        table, ident = keys[file].get(row, (None, None))  # a file moved meanwhile: no ids
        detail = f"met first at {files[first_file]} row {first_row}"
        example = Example(
            file=files[file], row=row, table=table or "", round=ident or "", detail=detail
        )
        tally.add(example, None, None)  # not by build or day: the rows are not judged again
    tally.count += found.met - len(found.first)  # the others: counted, their examples not kept


@dataclass
class Auditor:
    """The state that outlives a batch (the round ids met, each table's last time) and
    what is fixed for the run: the profile, its payouts, the declared table, the clauses
    that own each fault kind."""

    profile: Profile
    table: Table | None
    owners: dict[str, str]
    moments: Moments  # the profile's expected returns, by situation
    spill: Path  # a folder of its own, for the round ids met (harness/audit/ids.py)
    since: int | None = None  # microseconds, UTC: rows before it are left out
    until: int | None = None
    piece: int = 0  # the piece of the log it judges (harness/audit/pieces.py)
    files: dict[str, int] = field(default_factory=dict)  # each file of the log, its index
    table_index: dict[str, int] = field(default_factory=dict)  # each table met, numbered
    # By table index: its first and latest round's time, and its first and last sound
    # round's first hole card: what the audit carries between batches, and what a piece
    # of the log tells the pieces after it (harness/audit/pieces.py).
    first_time: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    last_time: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    first_card: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    first_hole: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))

    def __post_init__(self) -> None:
        self.payouts = Payouts.of(self.profile)
        self.ids = RoundIds(self.spill, self.piece)

    def clause(self, kind: str | None) -> str | None:
        return None if kind is None else self.owners.get(kind)

    def judge(self, item: Rows | Malformed, partial: Partial) -> None:
        if isinstance(item, Malformed):
            when = item.time
            if when is not None and not _within(when, self.since, self.until):
                return
            partial.rows += 1
            partial.malformed += 1
            detail = f"{item.column} {item.value!r}: {item.why}"
            example = Example(file=item.file, row=item.row, detail=detail)
            day = None if item.time is None else day_of(item.time)
            partial.tally(("integrity", "malformed-row", item.column, None)).add(example, None, day)
            return
        rows = in_period(item, self.since, self.until)
        if rows is not None and len(rows):
            self._judge_rows(rows, partial)

    def _judge_rows(self, rows: Rows, partial: Partial) -> None:
        n = len(rows)
        partial.rows += n
        partial.void += int(rows.void.sum())
        times = (int(rows.time.min()), int(rows.time.max()))
        partial.first_time = min(times[0], partial.first_time or times[0])
        partial.last_time = max(times[1], partial.last_time or times[1])
        start = np.ones(n, bool)
        start[1:] = rows.round_no[1:] != rows.round_no[:-1]
        group = np.cumsum(start) - 1
        first = np.flatnonzero(start)
        bounds = np.append(first, n)
        partial.rounds += len(first)
        bad = np.zeros(len(first), bool)  # rounds integrity leaves out of settlement

        def report(
            kind: str, where: npt.NDArray[np.bool_], detail: str, per_row: bool, out: bool = True
        ) -> None:
            """Rows (per_row) or rounds (else) showing an integrity fault; `out`: the
            rounds are left out of the other checks."""
            at = np.flatnonzero(where)
            if not len(at):
                return
            if out:
                bad[group[at] if per_row else at] = True
            if not per_row:
                at = first[at]
            key = ("integrity", kind, detail, self.clause(INTEGRITY[kind]))
            tally = partial.tally(key)
            for i in at:
                tally.add(
                    row_example(rows, int(i), detail), rows.build[int(i)], day_of(int(rows.time[i]))
                )

        c = rows.cards
        differs, position, twice, dealt_twice = round_rows(
            bounds, rows.seat, c["hole"], c["flop"], c["turn"], c["river"], c["dealer"],
            rows.time, rows.build.codes, rows.void,
        )  # fmt: skip
        for k, name in enumerate(SEAT_ROW_FIELDS):
            report("seats-disagree", differs[:, k], f"{name} differs between seat rows", True)
        report("seat-twice", twice, "a seat has two rows in one round", True)
        report("card-twice", dealt_twice, "a card dealt twice in a round", False)
        index = self.files.setdefault(rows.file, len(self.files))
        names = pa.array(rows.table.values, pa.string())
        self.ids.add(names, rows.table.codes[first], rows.round, first, index, rows.row[first])
        table = self.table_indices(rows.table)[rows.table.codes[first]]
        backwards = times_backwards(rows.time[first], table, self.last_time, self.first_time)
        # a record's time is not its cards or money: the round is judged all the same
        report("time-backwards", backwards, TIME_BACKWARDS, False, out=False)
        refused, reasons = _outside(self.profile, self.table, rows)
        for k in sorted(range(1, len(reasons)), key=reasons.__getitem__):
            report("stake-outside-table", refused == k, reasons[k], True)

        days = rows.time // DAY
        builds = rows.build.codes[first]
        codes, rounds = np.unique(builds, return_counts=True)
        seats = np.bincount(rows.build.codes, minlength=len(rows.build.values))
        for code, played in zip(codes, rounds, strict=True):
            build, day = rows.build.values[code], day_name(int(days[first][builds == code].min()))
            partial.build_days[build] = min(day, partial.build_days.get(build, day))
            partial.build_rounds[build] = partial.build_rounds.get(build, 0) + int(played)
        for code in np.flatnonzero(seats):  # every row, a round's later seats' too
            build = rows.build.values[code]
            partial.build_rows[build] = partial.build_rows.get(build, 0) + int(seats[code])
        count(rows, bounds, ~bad, days, partial.cards)
        consecutive_cards(
            rows.cards["hole"][first, 0].astype(np.int64), table, ~bad, self.first_hole,
            self.first_card, partial.cards.consecutive,
        )  # fmt: skip
        face_up = self.profile.hole_cards_face_up
        count_decisions(rows, bounds, ~bad[group], partial.leak)
        due = owed(self.payouts, rows)
        mine = readable(rows, bounds, face_up)
        kept = ~bad[group]  # a sound round's cards are each dealt once: a situation
        expected = count_returns(rows, position, kept, mine, due, self.moments, partial.returns)
        count_groups(rows, bounds, kept & mine, due, expected, partial.groups)
        off = misstated(rows, due) | beyond_arrays(self.payouts, rows)
        keeps = off & rows.void
        report("void-keeps-stake", keeps, "a void round did not return every stake", True)
        judged = due.judged & ~bad[group]
        partial.judged += int(judged.sum())
        partial.unjudged += int((~due.judged).sum())
        for g in np.unique(group[off & judged & ~rows.void]):
            self._settlement(rows, np.flatnonzero(group == g), due, partial)

    def table_indices(self, tables: Labels) -> npt.NDArray[np.int64]:
        """Each of a batch's table names' index among the tables the log has shown, the
        index the state carried between batches is kept by."""
        index = np.array([self.table_index.setdefault(t, len(self.table_index))
                          for t in tables.values], np.int64)  # fmt: skip
        grow = len(self.table_index) - len(self.last_time)
        if grow > 0:
            self.last_time = np.append(self.last_time, np.full(grow, NO_TIME))
            self.first_time = np.append(self.first_time, np.full(grow, NO_TIME))
            self.first_hole = np.append(self.first_hole, np.full(grow, -1))
            self.first_card = np.append(self.first_card, np.full(grow, -1))
        return index

    def _settlement(
        self, rows: Rows, at: npt.NDArray[np.int64], due: Owed, partial: Partial
    ) -> None:
        """One round with a row the rules pay otherwise: the oracle settles it and the
        decision table names each cause."""
        i = int(at[0])
        holes = [int(c) for j in at for c in rows.cards["hole"][j]]
        shared = [int(c) for n in ("flop", "turn", "river", "dealer") for c in rows.cards[n][i]]
        # Cards a round where every seat folded never dealt: settling folds reads none of
        # them (an AA Bonus reads the flop, which is there), so any cards left in the
        # deck stand in, and the oracle and the decision table judge the money.
        spare = iter(c for c in range(52) if c not in {*holes, *shared})
        board = [c if c >= 0 else next(spare) for c in shared]
        try:
            deal = Deal(
                {int(rows.seat[j]): _hole(rows, int(j)) for j in at},
                (Card(board[5]), Card(board[6])),
                (Card(board[0]), Card(board[1]), Card(board[2])),
                Card(board[3]),
                Card(board[4]),
            )
            plays = {
                int(rows.seat[j]): SeatPlay(
                    int(rows.seat[j]),
                    int(rows.amounts["ante"][j]),
                    int(rows.amounts["aa_bonus"][j]),
                    Action.CALL if rows.call_made[j] else Action.FOLD,
                )
                for j in at
            }
            want = settle(self.profile, deal, plays)
        except (InvalidCards, InvalidBet, ValueError) as exc:  # a board missing, a seat beyond
            # the rules' seats: the sieve's word stands, unattributed
            tally = partial.tally(("settlement", "unattributed", str(exc), None))
            tally.add(row_example(rows, i, str(exc)), rows.build[i], day_of(int(rows.time[i])))
            return
        shown = Settled(
            board=tuple(format_cards(deal.board)),
            # The log names no hand: the decision table's rows about names cannot fire.
            dealer=Dealer(
                tuple(format_cards(deal.dealer)), want.dealer_hand.wire, want.dealer_qualifies
            ),
            seats=tuple(_seat(rows, int(j), want.seat(int(rows.seat[j])).hand.wire) for j in at),
        )
        by_seat = {int(rows.seat[j]): int(j) for j in at}
        for d in disagreements(want, shown):
            j = by_seat[d.seat]
            key = ("settlement", d.kind, d.detail, self.owners.get(d.kind))
            tally = partial.tally(key)
            example = row_example(rows, j, f"{d.kind} ({d.detail})", d.expected, d.actual)
            tally.add(example, rows.build[j], day_of(int(rows.time[j])))
            if tally.replay is None:
                tally.replay = Replay(deal, plays, want)


def _hole(rows: Rows, j: int) -> tuple[Card, Card]:
    return Card(int(rows.cards["hole"][j][0])), Card(int(rows.cards["hole"][j][1]))


def _seat(rows: Rows, j: int, hand: str) -> SettledSeat:
    a = rows.amounts
    called = bool(rows.call_made[j])
    return SettledSeat(
        seat=int(rows.seat[j]),
        action="call" if called else "fold",
        wagers=Wagers(
            ante=Wager(int(a["ante"][j]), int(a["ante_returned"][j])),
            call=Wager(int(a["call"][j]), int(a["call_returned"][j])),
            aa_bonus=Wager(int(a["aa_bonus"][j]), int(a["aa_bonus_returned"][j]))
            if a["aa_bonus"][j] or a["aa_bonus_returned"][j]
            else None,
        ),
        hand=hand if called else None,
    )


def row_example(
    rows: Rows, i: int, detail: str, expected: object = None, actual: object = None
) -> Example:
    return Example(
        file=rows.file,
        row=int(rows.row[i]),
        table=rows.table[i],
        round=str(rows.round[i].as_py()),
        seat=int(rows.seat[i]),
        detail=detail,
        expected=expected,
        actual=actual,
    )


def _outside(
    profile: Profile, table: Table | None, rows: Rows
) -> tuple[npt.NDArray[np.int8], list[str]]:
    """Why the rules or the declared table refuse each row's stakes, the first reason
    that holds: (each row's index into the reasons, 0 where they take them; the reasons,
    the first ""). Where no table is declared, only the rules' refusals
    (harness/rules/oracle.py verify_wagers)."""
    out = np.zeros(len(rows), np.int8)
    reasons = [""]

    def refuse(where: npt.NDArray[np.bool_], why: str) -> None:
        where = where & (out == 0)
        if where.any():
            reasons.append(why)
            out[where] = len(reasons) - 1

    ante, aa = rows.amounts["ante"], rows.amounts["aa_bonus"]
    refuse(ante <= 0, "no ante: the rules require one")
    if profile.aa_table is None:
        refuse(aa > 0, f"an AA Bonus where profile {profile.name} has none")
    if table is None:
        return out, reasons
    lo, hi = table.ante
    refuse((ante < lo) | (ante > hi), f"an ante outside the table's {lo}..{hi}")
    if table.aa_bonus is None:
        refuse(aa > 0, "an AA Bonus where the table takes none")
        return out, reasons
    aa_lo, aa_hi = table.aa_bonus
    why = f"an AA Bonus outside the table's {aa_lo}..{aa_hi}"
    refuse((aa > 0) & ((aa < aa_lo) | (aa > aa_hi)), why)
    cap = table.aa_bonus_max_ante_multiple
    if cap is not None:
        refuse((aa > 0) & (aa > cap * ante), f"an AA Bonus above {cap} x the ante (house rule)")
    return out, reasons


def _within(when: int, since: int | None, until: int | None) -> bool:
    return (since is None or when >= since) and (until is None or when < until)


def in_period(rows: Rows, since: int | None, until: int | None) -> Rows | None:
    """The rows settled from `since` to before `until` (UTC microseconds)."""
    if since is None and until is None:
        return rows
    keep = np.ones(len(rows), bool)
    if since is not None:
        keep &= rows.time >= since
    if until is not None:
        keep &= rows.time < until
    return rows if keep.all() else rows.select(keep)
