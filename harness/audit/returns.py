"""What calls return against their exact expectation given what the player saw
(docs/audit.md, Return).

A seat decides once, on its hole cards and the flop (a situation). What calling then
returns depends only on the turn, the river and the dealer's cards, any of the
1,070,190 completions the seat has not seen, equally likely in a fair game whatever it
decided. The census (harness/gamemath/census.py) counts, for every situation, how each
completion settles: won (the dealer qualifies and is beaten), paid with the dealer not
qualifying, pushed, or lost.

The tests read each call's outcome in antes with its ante paid at 1 to 1: won 1 + m (m
the call multiple), the dealer not qualifying 1, a push 0, lost -(1 + m). Its
expectation and variance given the situation are exact from the census, and it is
bounded, so its sums are normal at a thousand calls; a pay table's large odds (a royal
flush at 100 to 1) would make the sums of money skewed for millions, and are the
settlement check's to judge, exactly, row by row. The outcome is read from what the
rules pay on the cards dealt (harness/audit/settle.py), not from what the log says was
paid: a payment that differs is settlement's finding, the cards' effect this module's.
Cards dealt against the player (an adaptive game) lower the outcomes: the return check.
Outcomes above what the cards allow are the leak family's (harness/audit/leak.py).

A round's seats share its board and dealer, so their outcomes are not independent: a
test reads one seat position (the round's lowest seat, its second lowest, ...), whose
calls are one a round and so independent, and the positions are a Holm family. Only
rounds where each seat decided on its own cards are read (`readable`).

The return bands read money: each group's return against its expectation given the
decisions taken, a call's from the census's exact expectation of its net return
(harness/gamemath/pricing.py `call_values`). Its variance is exact but for one term (the
census counts the wins, not the winning hand's category, so the odds they are paid at
are known within bounds), taken at its largest.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from harness.audit.kernel import (
    call_sums,
    first_met,
    group_sums,
    seat_positions,
    situations_of,
)
from harness.audit.log import DAY, Labels, Rows, day_name
from harness.audit.settle import Owed
from harness.gamemath.census import (
    CENSUSES,
    UNREADABLE,
    Progress,
    cache_file,
    load_census,
    save_cache,
    source_bytes,
    symmetry,
    warn_cache,
)
from harness.gamemath.kernel import ANTE_PAID, COMPLETIONS, LOST, NQ_NOT_BEATEN, WON
from harness.gamemath.pricing import ante_odds, call_values
from harness.gamemath.rng import POWER, StatResult, scipy_special
from harness.rules.evaluator import Category
from harness.rules.profiles import NonQualifyingAnte, Profile

ALPHA = 0.01  # the return check's family-wise alpha (Holm over the seat positions)
LEAST_CALLS = 1_000  # effective calls, for a sum of bounded outcomes to be read as normal


@dataclass(frozen=True)
class Moments:
    """Per situation, means over its completions (`per_call`, a row a situation, so a
    call's four are read together): of a call's net return in antes (its sum exact) and
    of its square (at the largest the census allows), and of its outcome with the ante
    paid at 1 to 1 and of that squared (both sums exact); and the smallest sum of the
    square the census allows."""

    per_call: npt.NDArray[np.float64]  # (situations, 4): its columns named in kernel.py
    square_low: npt.NDArray[np.float64]
    multiple: int  # the call, in antes
    tables: SituationTables

    @functools.cached_property
    def by_cell(self) -> npt.NDArray[np.float64]:
        """`per_call` by canonical flop and hole pair (the cells of `situation_of`, 75
        MB): a call's four means one cache miss away from its cards, not two (its
        situation, then its row), each cell's in one cache line."""
        cells = self.tables.situation_of
        by_cell = _aligned((*cells.shape, self.per_call.shape[1]))
        np.take(self.per_call, cells, axis=0, out=by_cell)
        return by_cell

    @classmethod
    def of(cls, profile: Profile, progress: Progress | None = None) -> Moments:
        """The profile's moments (from their cache, else worked from its census, read or
        computed with `progress`), once a process for each way of settling a call."""
        key = _settling(profile)
        if key not in _WORKED:
            _WORKED[key] = cls._cached(profile, progress)
        return _WORKED[key]

    @classmethod
    def prepare(cls, profile: Profile, progress: Progress | None = None) -> None:
        """The moments' cache file made where it is missing or broken (read and its
        sha256 checked), for the processes judging a log's pieces to read: worked here,
        once, not in each of them; nothing kept in this process."""
        if _stored(profile) is None:
            cls._cached(profile, progress)
            CENSUSES.clear()
            symmetry.cache_clear()

    @classmethod
    def _cached(cls, profile: Profile, progress: Progress | None) -> Moments:
        """The moments from their cache file, else worked and kept there: a process that
        judges a piece of a log then neither reads the 72 MB census nor works for a
        second and a half (docs/audit.md, Speed)."""
        stored = _stored(profile)
        if stored is not None:
            per_call, square_low = stored
            return cls(per_call, square_low, int(profile.call_multiple), _tables())
        moments = cls._work(profile, progress)
        digest = _sha256(moments.per_call, moments.square_low)
        save_cache(_cache_path(profile), _kind(profile), per_call=moments.per_call,
                   square_low=moments.square_low, sha256=np.array(digest))  # fmt: skip
        return moments

    @classmethod
    def _work(cls, profile: Profile, progress: Progress | None) -> Moments:
        census = load_census(profile.qualifying_strength, progress)
        m = int(profile.call_multiple)
        paid = census[:, ANTE_PAID : ANTE_PAID + len(Category)].sum(axis=1, dtype=np.int64)
        won, lost = census[:, WON].astype(np.int64), census[:, LOST].astype(np.int64)
        outcome = paid + m * won - (1 + m) * lost
        outcome_square = (1 + m) ** 2 * (won + lost) + (paid - won)
        high, low = _net_squares(census, profile)
        sums = (call_values(census, profile), high, outcome, outcome_square)
        per_call = np.stack([total / COMPLETIONS for total in sums], axis=1)
        return cls(per_call, low, m, _tables())

    def situations(
        self,
        hole: npt.NDArray[np.int16],
        flop: npt.NDArray[np.int16],
        rows: npt.NDArray[np.bool_] | None = None,
    ) -> npt.NDArray[np.int64]:
        """Each row's situation (harness/gamemath/census.py `Symmetry.situation`), of
        `rows` only where given (0 elsewhere): the cell `by_cell` is read at, named as
        the census names it (tests/test_audit.py holds the two equal)."""
        if rows is None:
            rows = np.ones(len(hole), bool)
        return situations_of(hole, flop, rows, *self.tables)


_WORKED: dict[tuple[object, ...], Moments] = {}
MOMENT_SOURCES = ("audit/returns.py", "gamemath/pricing.py")  # what the moments are worked by


def _settling(profile: Profile) -> tuple[object, ...]:
    """What a profile's moments depend on: its way of settling a call."""
    odds = tuple(ante_odds(profile).tolist())
    return (profile.qualifying_strength, odds, profile.call_multiple, profile.nonqualifying_ante)


def _kind(profile: Profile) -> str:
    """The moments' kind of cache file: one for each way of settling a call."""
    return f"moments-{hashlib.sha256(repr(_settling(profile)).encode()).hexdigest()[:12]}"


def _cache_path(profile: Profile) -> Path:
    """The moments' cache file, beside the census's: its name holds the way of settling,
    the census's code digest and a digest of MOMENT_SOURCES, so a change to any is a
    file of its own (and replaces the file of the same way of settling)."""
    sources = hashlib.sha256(b"".join(source_bytes(name) for name in MOMENT_SOURCES))
    path = cache_file(_kind(profile))
    return path.with_name(f"{path.stem}-{sources.hexdigest()[:12]}{path.suffix}")


class SituationTables(NamedTuple):
    """The suit-symmetry tables a situation is looked up by (harness/gamemath/census.py
    `Symmetry.situation`): some 10 MB of its 70, the rest of which an audit never reads;
    all but `situation_of` in the narrowest integers that hold them, to stay in cache."""

    binom: npt.NDArray[np.int32]
    flop_perm: npt.NDArray[np.int8]
    card_map: npt.NDArray[np.int8]
    flop_canon: npt.NDArray[np.int16]
    situation_of: npt.NDArray[np.int32]


def _tables() -> SituationTables:
    sym = symmetry()
    return SituationTables(
        sym.binom.astype(np.int32),  # C(51, 3) at most
        sym.flop_perm.astype(np.int8),  # 24 relabellings
        sym.card_map.astype(np.int8),  # 52 cards
        sym.flop_canon.astype(np.int16),  # 1,755 canonical flops
        sym.situation_of,
    )


def _aligned(shape: tuple[int, ...]) -> npt.NDArray[np.float64]:
    """An array starting on a 64-byte boundary: a cell's four means (32 bytes) then lie
    in one cache line, read with one miss, not two half the time."""
    size = int(np.prod(shape)) * 8
    raw = np.empty(size + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start : start + size].view(np.float64).reshape(shape)


def _stored(profile: Profile) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """The moments' arrays from their cache file, None where it has none or a broken one
    (said so on stderr)."""
    path = _cache_path(profile)
    try:
        with np.load(path) as stored:
            per_call, square_low = stored["per_call"], stored["square_low"]
            checksum = str(stored["sha256"][()])
    except FileNotFoundError:
        return None
    except UNREADABLE as error:
        warn_cache(path, f"unreadable ({type(error).__name__}: {error})")
        return None
    if checksum != _sha256(per_call, square_low):
        warn_cache(path, "its tables do not match the sha256 stored with them")
        return None
    return per_call, square_low


def _sha256(*arrays: npt.NDArray[np.float64]) -> str:
    sha = hashlib.sha256()
    for array in arrays:
        sha.update(f"{array.dtype.str}{array.shape}".encode())
        sha.update(np.ascontiguousarray(array).tobytes())
    return sha.hexdigest()


def _net_squares(
    census: npt.NDArray[np.int32], profile: Profile
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per situation, the largest and the smallest sum over its completions of a call's
    net return squared: a won call's ante is paid at its category's odds, and the census
    bounds the categories' shares of the wins by each one's paid completions less those
    the dealer neither qualified nor was beaten in."""
    odds = [int(o) for o in ante_odds(profile)]
    m = int(profile.call_multiple)
    even = profile.nonqualifying_ante is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN

    def column(k: int) -> npt.NDArray[np.float64]:
        return census[:, k].astype(float)

    squares = np.zeros(len(census))
    room: dict[int, npt.NDArray[np.float64]] = {}  # by odds: the wins they may pay
    for category in Category:
        paid = column(ANTE_PAID + category)
        squares += odds[category] ** 2 * paid
        if category in (Category.HIGH_CARD, Category.PAIR):
            not_beaten = column(NQ_NOT_BEATEN + category)
            paid = paid - not_beaten
            if even:
                squares -= (odds[category] ** 2 - 1) * not_beaten  # paid 1 to 1 there
        room[odds[category]] = room.get(odds[category], 0) + paid
    won, lost = column(WON), column(LOST)
    base = squares + m * m * won + (1 + m) ** 2 * lost
    high = base + 2 * m * _most(room, won, largest=True)
    return high, base + 2 * m * _most(room, won, largest=False)


def _most(
    room: dict[int, npt.NDArray[np.float64]], won: npt.NDArray[np.float64], largest: bool
) -> npt.NDArray[np.float64]:
    """The largest (or smallest) sum of the odds a call's `won` wins are paid at, each
    odds taking at most its `room`: the wins go to the highest (lowest) odds first."""
    left = won.copy()
    total = np.zeros(len(won))
    for odds in sorted(room, reverse=largest):
        take = np.minimum(left, room[odds])
        total += odds * take
        left -= take
    return total


@dataclass
class DaySums:
    """Calls read (of one seat position, or of one day): how many, their antes, and the
    sums the tests need, mergeable by addition."""

    calls: int = 0
    residual: float = 0.0  # outcome - expected, antes
    variance: float = 0.0  # antes squared
    squares: float = 0.0  # the sum of each call's variance squared (the effective size)

    def merge(self, other: DaySums) -> None:
        self.calls += other.calls
        self.residual += other.residual
        self.variance += other.variance
        self.squares += other.squares

    @property
    def effective(self) -> float:
        """The calls' effective number: as many equal calls would vary as these do (a
        few large stakes make a sum far from normal however many calls there are)."""
        return self.variance**2 / self.squares if self.squares else 0.0


@dataclass
class ReturnCounts:
    """The calls read, by seat position (1: the round's lowest seat dealt; a position's
    calls are one a round, so independent), and the lowest seat's by day (UTC)."""

    positions: dict[int, DaySums] = field(default_factory=dict)
    by_day: dict[str, DaySums] = field(default_factory=dict)
    unread: int = 0  # calls of rounds whose seats saw cards the census's expectation does not

    def merge(self, other: ReturnCounts) -> None:
        for position, sums in other.positions.items():
            self.positions.setdefault(position, DaySums()).merge(sums)
        for day, sums in other.by_day.items():
            self.by_day.setdefault(day, DaySums()).merge(sums)
        self.unread += other.unread

    @property
    def calls(self) -> int:
        return sum(p.calls for p in self.positions.values())


def readable(rows: Rows, bounds: npt.NDArray[np.int64], face_up: bool) -> npt.NDArray[np.bool_]:
    """The rows of rounds (`bounds`: each one's first row, then the batch's length) where
    each seat decided on its own hole cards and the flop, the situation the census's
    expectation is given: not a round of several seats where the profile deals hole
    cards face up, nor one where a player (the optional `player` column) holds two
    seats. Elsewhere a strategy reading the other cards would move the return against
    an expectation that does not condition on them."""
    seats = np.diff(bounds)
    ok = (seats == 1) | (not face_up)  # a bool array, not ~bool (an int)
    if "player" in rows.groups:
        players = rows.groups["player"]
        named = np.array([v != "" for v in players.values] + [False])[players.codes]
        _, again = seat_positions(bounds, players.codes)  # a player an earlier seat holds
        shared = np.zeros(len(seats), bool)
        shared[np.searchsorted(bounds, np.flatnonzero(again & named), "right") - 1] = True
        ok &= ~shared
    out: npt.NDArray[np.bool_] = np.repeat(ok, seats)
    return out


@dataclass(frozen=True)
class Expected:
    """Each row's expected return and its standard deviation, for the return bands: a
    call's from the census given its situation, any other row's its rules' return (its
    cards fix it), with none."""

    value: npt.NDArray[np.float64]
    sd: npt.NDArray[np.float64]


def count(
    rows: Rows,
    position: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    mine: npt.NDArray[np.bool_],
    due: Owed,
    moments: Moments,
    into: ReturnCounts,
) -> Expected:
    """Add each call of the sound rounds (`keep`) whose seats decided on their own cards
    (`mine`, harness/audit/returns.py `readable`), by its seat position in the round
    (`position`, from 0), its situation's means read at its cards' cell
    (`Moments.by_cell`). The calls' expected returns come with their sums, for
    `count_groups`."""
    rules = due.ante_returned + due.call_returned + due.aa_bonus_returned
    expected = Expected(rules.astype(float), np.zeros(len(rows)))
    dealt = rows.shown("flop", "turn", "river", "dealer")
    calls = keep & rows.call_made & ~rows.void & dealt & due.judged
    into.unread += int((calls & ~mine).sum())
    read = calls & mine
    if not read.any():
        return expected
    days = rows.time // DAY
    first = int(days.min())
    days -= first
    by_position = np.zeros((int(position.max()) + 1, 4))
    by_day = np.zeros((int(days.max()) + 1, 4))
    call_sums(
        read, position, days, rows.amounts["ante"], due.call, due.call_returned,
        due.ante_returned, due.aa_bonus_returned, rows.cards["hole"], rows.cards["flop"],
        *moments.tables[:4], moments.by_cell, moments.multiple, by_position, by_day,
        expected.value, expected.sd,
    )  # fmt: skip
    for k in np.flatnonzero(by_position[:, 0]):
        into.positions.setdefault(int(k) + 1, DaySums()).merge(_day_sums(by_position[k]))
    for k in np.flatnonzero(by_day[:, 0]):
        into.by_day.setdefault(day_name(first + int(k)), DaySums()).merge(_day_sums(by_day[k]))
    return expected


def _day_sums(sums: npt.NDArray[np.float64]) -> DaySums:
    """A row of `call_sums`' (calls, residual, variance, squares)."""
    return DaySums(int(sums[0]), float(sums[1]), float(sums[2]), float(sums[3]))


@dataclass(frozen=True)
class ReturnTests:
    tests: list[StatResult]  # a seat position each, in order
    too_few: list[str]  # a position too small to read, in words
    first_read: bool  # the rounds' lowest seat's: without it the check is not tested


def return_tests(counts: ReturnCounts, above: bool, others: int = 0) -> ReturnTests:
    """The calls' outcomes against their expectation at each seat position with enough
    calls, one-sided: below it (the return check) or `above` it (the leak family); each
    test's power stated at the first step of Holm over its family (these and `others`)."""
    read = {p: c for p, c in sorted(counts.positions.items()) if c.effective >= LEAST_CALLS}
    alpha = ALPHA / max(len(read) + others, 1)
    too_few = [
        f"outcomes {'above' if above else 'below'} expectation, seat position {p}: "
        f"{c.calls:,} calls read, {c.effective:,.0f} effective; {LEAST_CALLS:,} needed"
        for p, c in sorted(counts.positions.items())
        if p not in read
    ]
    tests = [_return_test(p, c, above, alpha) for p, c in read.items()]
    return ReturnTests(tests, too_few or ([] if read else ["no call read"]), 1 in read)


def _return_test(position: int, counts: DaySums, above: bool, alpha: float) -> StatResult:
    side = "above" if above else "below"
    sd = math.sqrt(counts.variance)
    z = counts.residual / sd
    special = scipy_special()
    ndtr, ndtri = special.ndtr, special.ndtri  # the normal's cdf and ppf
    p_value = float(ndtr(-z) if above else ndtr(z))
    shift = (-ndtri(alpha) + ndtri(POWER)) * sd / counts.calls
    return StatResult(
        f"outcomes {side} expectation, seat position {position}",
        z,
        p_value,
        f"the calls of each round's seat {position} in seat order, {counts.calls:,} "
        "rounds: each call's outcome as the rules settle its cards, in antes with the "
        "ante paid at 1 to 1, against its exact expectation and variance given the hole "
        "cards and the flop (one-sided, z)",
        f"outcomes {side} expectation by {shift:.4f} of an ante per call, with {POWER:.0%} power",
        p_adjusted=p_value,
        passed=p_value >= alpha,
    )


# The groups a return band is drawn for: the stake level (the ante), the build, and the
# optional columns a log may carry (docs/audit.md, The round log).
BAND_GROUPS = ("stake", "build", "channel", "currency")
BAND_Z = {95: 1.959963984540054, 99: 2.5758293035489004}  # two-sided normal quantiles


MOST_GROUPS = 100  # values of one group read as bands; the later ones pooled as OTHER
OTHER = "(other values)"


def _groups_of(into: dict[tuple[str, str], GroupSums], name: str) -> int:
    return sum(1 for group, _ in into if group == name)


def merge_groups(
    into: dict[tuple[str, str], GroupSums], other: dict[tuple[str, str], GroupSums]
) -> None:
    """Another part of the log's groups added, in its order, MOST_GROUPS values a group
    at most: a value the part kept but the log has too many before is pooled, as one
    pass over the log would have pooled it."""
    for (name, label), sums in other.items():
        _group(into, name, label).merge(sums)


def _group(into: dict[tuple[str, str], GroupSums], name: str, label: str) -> GroupSums:
    """A value's group, OTHER's where the log met MOST_GROUPS values of its column
    before it (a column with a value a row, a session id, is not a group)."""
    if (name, label) not in into and _groups_of(into, name) >= MOST_GROUPS:
        label = OTHER
    return into.setdefault((name, label), GroupSums())


@dataclass
class GroupSums:
    """One group's seats: what they staked, what the log and the rules return, what the
    cards they saw and their decisions lead one to expect, and a bound on the variance.
    Money in minor units; merged by addition."""

    seats: int = 0
    staked: int = 0
    returned: int = 0  # as the log says
    rules: int = 0  # as the rules pay the cards dealt
    expected: float = 0.0
    variance: float = 0.0  # at most: each round's seats' deviations summed as if one

    def merge(self, other: GroupSums) -> None:
        self.seats += other.seats
        self.staked += other.staked
        self.returned += other.returned
        self.rules += other.rules
        self.expected += other.expected
        self.variance += other.variance


def count_groups(
    rows: Rows,
    bounds: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    due: Owed,
    expected: Expected,
    into: dict[tuple[str, str], GroupSums],
) -> None:
    """Add every settled seat of the sound rounds (`keep`) to its groups' sums
    (`bounds`: each round's first row, then the batch's length; `expected`, each row's,
    from `count`).

    A call's return has the census's expectation and variance given its situation; a
    fold's and an AA Bonus's return is fixed by the cards the seat saw, so the rules'
    return is its expectation. The seats of a round share its cards, and the census does
    not give how their returns covary: a round's standard deviations are summed, the
    variance of a sum at its largest (Cauchy-Schwarz), so the band is wide enough
    whatever the covariance.
    """
    a = rows.amounts
    read = keep & ~rows.void & due.judged
    called = read & rows.call_made & rows.shown("flop", "turn", "river", "dealer")
    read &= ~rows.call_made | called
    if not read.any():
        return
    money = np.stack([
        a["ante"] + a["call"] + a["aa_bonus"],
        a["ante_returned"] + a["call_returned"] + a["aa_bonus_returned"],
        due.ante_returned + due.call_returned + due.aa_bonus_returned,
    ])  # fmt: skip
    stakes, stake_codes = first_met(a["ante"], read)
    values = {"stake": Labels(stake_codes, [str(v) for v in stakes]), "build": rows.build}
    values |= {name: rows.groups[name] for name in ("channel", "currency") if name in rows.groups}
    for name, column in values.items():
        code = column.codes + 1  # 0: a row that names no channel or currency
        counts, sums = group_sums(
            bounds, read, code, money, expected.value, expected.sd, len(column.values) + 1
        )
        met, _ = first_met(code, read)
        for v in met:  # in the order the log meets them
            if v == 0:
                continue
            label = column.values[v - 1]
            if not label:  # an empty name names no channel or currency
                continue
            seats, staked, returned, rules_returned = map(int, counts[v])
            _group(into, name, str(label)).merge(GroupSums(
                seats, staked, returned, rules_returned, float(sums[v, 0]), float(sums[v, 1])
            ))  # fmt: skip
