"""The audit's compiled loops (numba): over a batch's Arrow string buffers and its
rounds, the few steps that numpy cannot do without a Python object or a sort per row
(docs/audit.md, Speed).

Each function is a plain loop a reader can check by eye. tests/test_audit.py holds the
sieve (`settle_rows`) equal to the rules oracle on every bundled profile and the
situation lookup equal to the census's; the others are held by the audits the tests
run (tests/test_audit.py, tests/test_audit_pieces.py), each finding and count named.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from numba import njit

from harness.rules.cards import RANK_CHARS, SUIT_CHARS
from harness.rules.evaluator import CATEGORY_SHIFT, Category
from harness.rules.lookup import Tables, add_card, strength

# Card characters to indices: 4 * rank + suit (harness/rules/cards.py); -1 for any other.
RANK = np.full(256, -1, np.int16)
SUIT = np.full(256, -1, np.int16)
for _i, _ch in enumerate(RANK_CHARS):
    RANK[ord(_ch)] = _i
for _i, _ch in enumerate(SUIT_CHARS):
    SUIT[ord(_ch)] = _i

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
OTHER_OFFSET = np.uint64(0x84222325CBF29CE4)
OTHER_PRIME = np.uint64(0x00000100000001B3 ^ 0x5BD1E995 << 8)
PAIR = int(Category.PAIR)
SMALL_ROUND = 24  # rows a round may hold before its seats are sorted, not compared
# The columns of harness/audit/returns.py `Moments.per_call`, a row a situation: means over
# its completions of a call's net return in antes and of its square, of its outcome with
# the ante paid at 1 to 1 and of that squared.
VALUE, SQUARE, OUTCOME, OUTCOME_SQUARE = range(4)


def strings(array: pa.Array) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """A text array's offsets (one more than its rows) and bytes, read in place; a null
    is an empty string here (its nulls are the caller's to read)."""
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        array = array.cast(pa.string())
    _, offsets, data = array.buffers()
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    bounds = np.frombuffer(offsets, width)[array.offset : array.offset + len(array) + 1]
    text = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    return bounds.astype(np.int64), text


@njit(cache=True)
def parse_cards(
    offsets: npt.NDArray[np.int64],
    data: npt.NDArray[np.uint8],
    null: npt.NDArray[np.bool_],
    count: int,
    rank: npt.NDArray[np.int16],
    suit: npt.NDArray[np.int16],
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.bool_]]:
    """(each row's `count` cards, -1 where null; the rows whose text is not `count`
    cards like `As`)."""
    n = len(offsets) - 1
    cards = np.full((n, count), -1, np.int16)
    wrong = np.zeros(n, np.bool_)
    for i in range(n):
        if null[i]:
            continue
        start = offsets[i]
        if offsets[i + 1] - start != 2 * count:
            wrong[i] = True
            continue
        for k in range(count):
            r = rank[data[start + 2 * k]]
            s = suit[data[start + 2 * k + 1]]
            if r < 0 or s < 0:
                wrong[i] = True
                break
            cards[i, k] = 4 * r + s
        if wrong[i]:
            cards[i, :] = -1
    return cards, wrong


@njit(cache=True)
def take_cards(
    each: npt.NDArray[np.int16], wrong: npt.NDArray[np.bool_], codes: npt.NDArray[np.int32]
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.bool_]]:
    """A dictionary column's parsed entries (`parse_cards` of its dictionary) for its
    rows: -1 cards and not wrong where a row's code is -1 (null)."""
    width = each.shape[1]
    cards = np.full((len(codes), width), -1, np.int16)
    bad = np.zeros(len(codes), np.bool_)
    for i in range(len(codes)):
        code = codes[i]
        if code >= 0:
            for k in range(width):  # card by card: a row's slice costs twice as much
                cards[i, k] = each[code, k]
            bad[i] = wrong[code]
    return cards, bad


@njit(cache=True)
def bounded(
    values: npt.NDArray[np.int64], null: npt.NDArray[np.bool_], low: int, high: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """(a signed integer column's values, 0 where wrong; the rows null or outside
    `low`..`high`), from its values buffer (a null row's slot holds anything; `null`
    empty: none is)."""
    out = np.zeros(len(values), np.int64)
    bad = np.zeros(len(values), np.bool_)
    for i in range(len(values)):
        if (len(null) and null[i]) or values[i] < low or values[i] > high:
            bad[i] = True
        else:
            out[i] = values[i]
    return out, bad


@njit(cache=True)
def round_numbers(
    table: npt.NDArray[np.int64],
    round_offsets: npt.NDArray[np.int64],
    round_data: npt.NDArray[np.uint8],
    keyless: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int64]:
    """Each row's round, numbered from 0 in the batch: a row starts a new round where
    its table (`table`, codes) or its round id differs from the last row's before it
    that has both. A row without one (`keyless`: a malformed row, its table or round
    missing) stays in the round going on, so that it never cuts a round in two."""
    n = len(table)
    out = np.zeros(n, np.int64)
    last = -1  # the last row with a table and a round
    for i in range(n):
        if i > 0:
            out[i] = out[i - 1]
        if keyless[i]:
            continue
        if last >= 0:
            same = table[i] == table[last] and _same(round_offsets, round_data, last, i)
            out[i] += 0 if same else 1
        last = i
    return out


@njit(cache=True)
def _same(offsets: npt.NDArray[np.int64], data: npt.NDArray[np.uint8], a: int, b: int) -> bool:
    """Whether row a's text is row b's."""
    length = offsets[a + 1] - offsets[a]
    if offsets[b + 1] - offsets[b] != length:
        return False
    for k in range(length):  # noqa: SIM110 (a loop numba compiles)
        if data[offsets[a] + k] != data[offsets[b] + k]:
            return False
    return True


SEPARATOR = 0x1F  # between a round's table and its id, in its key (a unit separator)


@njit(cache=True)
def id_records(
    table: npt.NDArray[np.int64],  # each round's table, a code into `names`
    name_offsets: npt.NDArray[np.int64],
    name_data: npt.NDArray[np.uint8],
    round_offsets: npt.NDArray[np.int64],  # the batch's rows' round ids
    round_data: npt.NDArray[np.uint8],
    first: npt.NDArray[np.int64],  # each round's first row in the batch
    rows: npt.NDArray[np.int64],  # each round's first row's number in its file
    file: int,
    partitions: int,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64]]:
    """Each round's record for harness/audit/ids.py, as 64-bit little-endian words: its
    key (table, SEPARATOR, round id) hashed by two independent 64-bit FNV-1a variants,
    the second also mixing each byte's place, without the key being built; its first
    row's number and its file. The records come in partition order (the log's within
    each), with the partitions' bounds."""
    n = len(first)
    made = np.zeros((n, 4), np.uint64)
    part = np.empty(n, np.int64)
    bounds = np.zeros(partitions + 1, np.int64)
    for r in range(n):
        a, b, j = FNV_OFFSET, OTHER_OFFSET, 0
        t, i = table[r], first[r]
        for piece in range(3):  # the table's name, the separator, the round id
            if piece == 0:
                start, stop, data = name_offsets[t], name_offsets[t + 1], name_data
            elif piece == 1:
                start, stop, data = 0, 1, SEPARATOR_BYTE
            else:
                start, stop, data = round_offsets[i], round_offsets[i + 1], round_data
            for k in range(start, stop):
                byte = np.uint64(data[k])
                a = (a ^ byte) * FNV_PRIME
                b = (b ^ (byte + np.uint64(j))) * OTHER_PRIME
                j += 1
        made[r, 0], made[r, 1] = a, b
        made[r, 2], made[r, 3] = rows[r], file
        part[r] = a % np.uint64(partitions)
        bounds[1 + part[r]] += 1
    for p in range(partitions):
        bounds[p + 1] += bounds[p]
    at = bounds[:-1].copy()
    out = np.empty_like(made)
    for r in range(n):
        place = at[part[r]]
        for w in range(made.shape[1]):  # word by word, not a row's slice
            out[place, w] = made[r, w]
        at[part[r]] += 1
    return out, bounds


SEPARATOR_BYTE = np.array([SEPARATOR], np.uint8)


@njit(cache=True)
def repeats(
    h1: npt.NDArray[np.uint64], h2: npt.NDArray[np.uint64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each record whose two hashes an earlier record has, in order: (the first record
    with them, this record). An open-addressed table of the records' indices, slotted by
    the second hash (the first picked the records' partition, harness/audit/ids.py)."""
    size = 16
    while size < 2 * len(h1):
        size *= 2
    slots = np.full(size, -1, np.int64)
    first = np.empty(len(h1), np.int64)
    again = np.empty(len(h1), np.int64)
    found = 0
    for i in range(len(h1)):
        j = h2[i] & np.uint64(size - 1)
        while slots[j] >= 0 and (h1[slots[j]] != h1[i] or h2[slots[j]] != h2[i]):
            j = (j + np.uint64(1)) & np.uint64(size - 1)
        if slots[j] < 0:
            slots[j] = i
        else:
            first[found], again[found] = slots[j], i
            found += 1
    return first[:found], again[:found]


@njit(cache=True)
def first_met(
    values: npt.NDArray[np.int64], keep: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(the distinct values of the kept rows, in the order the rows meet them; each
    row's index among them, -1 for a row not kept): an open-addressed table of the
    values met, slotted by a multiplicative hash."""
    bits = 4
    while 1 << bits < 2 * len(values):
        bits += 1
    size = 1 << bits
    slots = np.full(size, -1, np.int64)
    distinct = np.empty(len(values), np.int64)
    codes = np.full(len(values), -1, np.int64)
    met = 0
    for i in range(len(values)):
        if not keep[i]:
            continue
        j = (np.uint64(values[i]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)
        while slots[j] >= 0 and distinct[slots[j]] != values[i]:
            j = (j + np.uint64(1)) & np.uint64(size - 1)
        if slots[j] < 0:
            slots[j] = met
            distinct[met] = values[i]
            met += 1
        codes[i] = slots[j]
    return distinct[:met], codes


@njit(cache=True)
def seat_positions(
    start: npt.NDArray[np.int64], seat: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """(each row's place among its round's seats in seat order, from 0; the rows whose
    seat an earlier row of the round already holds). `start` is each round's first row
    and then the batch's length."""
    n = len(seat)
    position = np.zeros(n, np.int64)
    twice = np.zeros(n, np.bool_)
    for g in range(len(start) - 1):
        a, b = start[g], start[g + 1]
        if b - a <= SMALL_ROUND:  # a table's seats: each row against the others
            for i in range(a, b):
                for j in range(a, b):
                    if seat[j] < seat[i] or (seat[j] == seat[i] and j < i):
                        position[i] += 1
                    if seat[j] == seat[i] and j < i:
                        twice[i] = True
            continue
        order = np.argsort(seat[a:b], kind="mergesort")  # stable: equal seats in row order
        for r in range(b - a):
            i = a + order[r]
            position[i] = r
            if r > 0 and seat[a + order[r - 1]] == seat[i]:
                twice[i] = True
    return position, twice


@njit(cache=True)
def times_backwards(
    time: npt.NDArray[np.int64],
    table: npt.NDArray[np.int64],
    last_time: npt.NDArray[np.int64],
    first_time: npt.NDArray[np.int64],
) -> npt.NDArray[np.bool_]:
    """The rounds (in order: their time and their table's index) settled before their
    table's latest round so far; `last_time` (by table, the least int64 where none yet)
    is carried on, and `first_time` takes each table's first round's."""
    out = np.zeros(len(time), np.bool_)
    none = np.iinfo(np.int64).min
    for k in range(len(time)):
        t = table[k]
        if first_time[t] == none:
            first_time[t] = time[k]
        if time[k] < last_time[t]:
            out[k] = True
        else:
            last_time[t] = time[k]
    return out


@njit(cache=True)
def consecutive_cards(
    card: npt.NDArray[np.int64],
    table: npt.NDArray[np.int64],
    kept: npt.NDArray[np.bool_],
    previous: npt.NDArray[np.int64],
    first: npt.NDArray[np.int64],
    into: npt.NDArray[np.int64],
) -> None:
    """Each kept round's first hole card's rank beside its table's previous kept
    round's (13 x 13 cells, `into`); `previous` (by table, -1 where none yet) carried on,
    `first` takes each table's first kept round's card."""
    for k in range(len(card)):
        if not kept[k]:
            continue
        t = table[k]
        if previous[t] >= 0:
            into[(previous[t] // 4) * 13 + card[k] // 4] += 1
        else:
            first[t] = card[k]
        previous[t] = card[k]


SEAT_ROW_FIELDS = ("flop", "turn", "river", "dealer", "time", "build", "status")


@njit(cache=True)
def round_rows(
    bounds: npt.NDArray[np.int64],
    seat: npt.NDArray[np.int64],
    hole: npt.NDArray[np.int16],
    flop: npt.NDArray[np.int16],
    turn: npt.NDArray[np.int16],
    river: npt.NDArray[np.int16],
    dealer: npt.NDArray[np.int16],
    time: npt.NDArray[np.int64],
    build: npt.NDArray[np.int64],
    void: npt.NDArray[np.bool_],
) -> tuple[
    npt.NDArray[np.bool_], npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]
]:
    """What integrity reads of a round's seat rows (`bounds`: each round's first row,
    then the batch's length): (each row's SEAT_ROW_FIELDS that differ from its round's
    first row's, (rows, 7); each row's place among its round's seats and whether an
    earlier row holds its seat, `seat_positions`; the rounds in which a card shows
    twice, among every seat's hole cards and the first row's shared cards, a card not
    dealt, -1, being none)."""
    differs = np.zeros((len(seat), len(SEAT_ROW_FIELDS)), np.bool_)
    position, twice = seat_positions(bounds, seat)
    dealt_twice = np.zeros(len(bounds) - 1, np.bool_)
    for g in range(len(bounds) - 1):
        lead = bounds[g]
        seen = np.uint64(0)  # the round's cards so far, a bit each
        for shared in (flop, turn, river, dealer):
            for k in range(shared.shape[1]):
                seen, again = _mark(seen, shared[lead, k])
                dealt_twice[g] |= again
        for i in range(lead, bounds[g + 1]):
            differs[i, 0] = _differs(flop, i, lead)
            differs[i, 1] = _differs(turn, i, lead)
            differs[i, 2] = _differs(river, i, lead)
            differs[i, 3] = _differs(dealer, i, lead)
            differs[i, 4] = time[i] != time[lead]
            differs[i, 5] = build[i] != build[lead]
            differs[i, 6] = void[i] != void[lead]
            for k in range(hole.shape[1]):
                seen, again = _mark(seen, hole[i, k])
                dealt_twice[g] |= again
    return differs, position, twice, dealt_twice


@njit(cache=True)
def _differs(cards: npt.NDArray[np.int16], i: int, lead: int) -> bool:
    """Whether row i's cards are not row `lead`'s."""
    for k in range(cards.shape[1]):  # noqa: SIM110 (a loop numba compiles)
        if cards[i, k] != cards[lead, k]:
            return True
    return False


@njit(cache=True)
def _mark(seen: np.uint64, card: int) -> tuple[np.uint64, bool]:
    """(the cards seen with `card` among them, whether it was already; -1: no card)."""
    if card < 0:
        return seen, False
    bit = np.uint64(1) << np.uint64(card)
    return seen | bit, bool(seen & bit)


@njit(cache=True)
def count_cards(
    bounds: npt.NDArray[np.int64],
    keep: npt.NDArray[np.bool_],
    hole: npt.NDArray[np.int16],
    flop: npt.NDArray[np.int16],
    later: npt.NDArray[np.int16],
    later_counts: npt.NDArray[np.int64],
    day: npt.NDArray[np.int64],
    by_position: npt.NDArray[np.int64],
    expected_later: npt.NDArray[np.float64],
    hole_ranks: npt.NDArray[np.int64],
    by_day: npt.NDArray[np.int64],
) -> None:
    """The card tests' counts of the sound rounds (`keep`, a round each), added in place
    (harness/audit/cards.py `count`): each dealt card by position (hole, flop, then the
    `later` columns: turn, river, dealer, `later_counts` cards each), each later card as
    the round's unseen deck expects it, the hole cards' ranks, the hole cards by `day`
    (each row's, from 0)."""
    unseen = np.zeros(len(later_counts))  # the later cards' weights, as if no card seen
    seen_cards = np.empty(52, np.int64)  # the round's cards seen, each once
    for g in range(len(bounds) - 1):
        if not keep[g]:
            continue
        lead = bounds[g]
        seen, n_seen = np.uint64(0), 0
        for i in range(lead, bounds[g + 1]):
            a, b = hole[i, 0], hole[i, 1]
            by_position[0, a] += 1
            by_position[0, b] += 1
            hole_ranks[(a // 4) * 13 + b // 4] += 1
            by_day[day[i], a] += 1
            by_day[day[i], b] += 1
            for card in (a, b):
                seen, again = _mark(seen, card)
                if card >= 0 and not again:
                    seen_cards[n_seen] = card
                    n_seen += 1
        for k in range(flop.shape[1]):
            if flop[lead, k] >= 0:
                by_position[1, flop[lead, k]] += 1
                seen, again = _mark(seen, flop[lead, k])
                if not again:
                    seen_cards[n_seen] = flop[lead, k]
                    n_seen += 1
        column = 0
        for p in range(len(later_counts)):
            dealt = True
            for k in range(later_counts[p]):
                card = later[lead, column + k]
                if card >= 0:
                    by_position[2 + p, card] += 1
                else:
                    dealt = False
            if dealt:  # each unseen card's weight: all of them, less the seen ones'
                weight = later_counts[p] / (52 - n_seen)
                unseen[p] += weight
                for j in range(n_seen):
                    expected_later[p, seen_cards[j]] -= weight
            column += later_counts[p]
    for p in range(len(later_counts)):
        expected_later[p] += unseen[p]


@njit(cache=True)
def leak_sums(
    bounds: npt.NDArray[np.int64],
    used: npt.NDArray[np.bool_],
    hole: npt.NDArray[np.int16],
    flop: npt.NDArray[np.int16],
    dealer: npt.NDArray[np.int16],
    called: npt.NDArray[np.bool_],
) -> tuple[int, int, float, float, float, float, float]:
    """The leak test's sums over the rounds with a row `used` (harness/audit/leak.py
    `count`): seats that folded and called, the residuals X - q weighed by each round's
    folds and calls, and folds^2, folds x calls and calls^2 times q (1 - q)."""
    n_fold, n_call = 0, 0
    r_fold, r_call, ff, fc, cc = 0.0, 0.0, 0.0, 0.0, 0.0
    ranks = np.zeros(13, np.int64)  # the round's hole cards' ranks
    on_flop = np.zeros(13, np.int64)
    for g in range(len(bounds) - 1):
        lead = -1
        ranks[:] = 0
        calls, folds = 0, 0
        for i in range(bounds[g], bounds[g + 1]):
            if not used[i]:
                continue
            if lead < 0:
                lead = i
            ranks[hole[i, 0] // 4] += 1
            ranks[hole[i, 1] // 4] += 1
            if called[i]:
                calls += 1
            else:
                folds += 1
        if lead < 0:
            continue
        on_flop[:] = 0
        for k in range(flop.shape[1]):
            on_flop[flop[lead, k] // 4] += 1
        total, n_off, pairs_off = 0, 0, 0
        for r in range(13):
            unseen = 4 - on_flop[r] - ranks[r]
            total += unseen
            if on_flop[r] == 0:
                n_off += unseen
                pairs_off += unseen * (unseen - 1)
        # Two unseen cards making no pair: neither of a flop rank, not of one rank.
        no_pair = (n_off * (n_off - 1) - pairs_off) / 2
        q = 1 - no_pair / (total * (total - 1) / 2)
        d0, d1 = dealer[lead, 0] // 4, dealer[lead, 1] // 4
        x = 1.0 if d0 == d1 or on_flop[d0] > 0 or on_flop[d1] > 0 else 0.0
        v = q * (1 - q)
        n_fold += folds
        n_call += calls
        r_fold += folds * (x - q)
        r_call += calls * (x - q)
        ff += folds * folds * v
        fc += folds * calls * v
        cc += calls * calls * v
    return n_fold, n_call, r_fold, r_call, ff, fc, cc


@njit(cache=True)
def call_sums(
    read: npt.NDArray[np.bool_],
    position: npt.NDArray[np.int64],
    day: npt.NDArray[np.int64],
    ante: npt.NDArray[np.int64],
    call: npt.NDArray[np.int64],  # the rules' call stake and returns (settle.py `Owed`)
    call_back: npt.NDArray[np.int64],
    ante_back: npt.NDArray[np.int64],
    aa_back: npt.NDArray[np.int64],
    hole: npt.NDArray[np.int16],
    flop: npt.NDArray[np.int16],
    binom: npt.NDArray[np.int32],  # harness/audit/returns.py `SituationTables`
    flop_perm: npt.NDArray[np.int8],
    card_map: npt.NDArray[np.int8],
    flop_canon: npt.NDArray[np.int16],
    by_cell: npt.NDArray[np.float64],  # (flops, hole pairs, 4): returns.py `Moments.by_cell`
    multiple: int,
    by_position: npt.NDArray[np.float64],  # (positions, 4): calls, residual, variance,
    by_day: npt.NDArray[np.float64],  # (days, 4): the lowest seat's   squares
    expected: npt.NDArray[np.float64],  # each row's expected return, its rules' return
    sd: npt.NDArray[np.float64],  # (zero) but for a call read
) -> None:
    """The return test's sums over the `read` calls (harness/audit/returns.py `count`),
    added in place in row order: each call's outcome as the rules settle it (won,
    lost, back with the ante paid or not) less its situation's mean, its variance and
    the variance squared, by seat position and, for each round's lowest seat, by day;
    and each call's expected return and standard deviation for the return bands, from
    its situation's mean and variance of the net return in antes. A call's situation's
    four means are read at its cell (`_cell`), one cache line, with no table of
    situations read between (a sound round's cards are five of a deck: a cell each)."""
    # In three loops: the calls' cells, then their means (loads alone: many cache
    # misses in flight at once, not one a row behind its arithmetic), then the sums.
    calls = np.flatnonzero(read)
    cells = np.empty(len(calls), np.int64)
    for k in range(len(calls)):
        f, h = _cell(hole, flop, calls[k], binom, flop_perm, card_map, flop_canon)
        cells[k] = f * by_cell.shape[1] + h if f >= 0 else -1
    flat = by_cell.reshape(-1, by_cell.shape[2])
    means = np.zeros((len(calls), flat.shape[1]))
    for k in range(len(calls)):
        if cells[k] >= 0:
            for j in range(flat.shape[1]):  # value by value, not a row's slice
                means[k, j] = flat[cells[k], j]
    for k in range(len(calls)):
        if cells[k] < 0:
            continue
        i = calls[k]
        if call_back[i] == 2 * call[i]:
            outcome = 1 + multiple
        elif call_back[i] == 0:
            outcome = -(1 + multiple)
        elif ante_back[i] > ante[i]:  # the dealer not qualifying: every ante odds >= 1
            outcome = 1
        else:
            outcome = 0
        mean = means[k, OUTCOME]
        variance = means[k, OUTCOME_SQUARE] - mean * mean
        terms = (outcome - mean, variance, variance * variance)
        p = position[i]
        by_position[p, 0] += 1
        for j in range(3):
            by_position[p, 1 + j] += terms[j]
        if p == 0:
            by_day[day[i], 0] += 1
            for j in range(3):
                by_day[day[i], 1 + j] += terms[j]
        mean = means[k, VALUE]
        variance = means[k, SQUARE] - mean * mean
        expected[i] = float(ante[i]) + call[i] + float(ante[i]) * mean + aa_back[i]
        sd[i] = ante[i] * np.sqrt(max(variance, 0.0))


@njit(cache=True)
def group_sums(
    bounds: npt.NDArray[np.int64],
    read: npt.NDArray[np.bool_],
    code: npt.NDArray[np.int64],
    money: npt.NDArray[np.int64],  # (3, rows): staked, returned as the log says, by the rules
    expected: npt.NDArray[np.float64],
    sd: npt.NDArray[np.float64],
    width: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """By code (0..width-1), over the read rows: (seats, staked, returned, rules' return;
    expected return, and the variance at its largest: each round's standard deviations
    of the code summed, squared)."""
    counts = np.zeros((width, 4), np.int64)
    sums = np.zeros((width, 2), np.float64)
    spread = np.zeros(width, np.float64)  # this round's standard deviations, by code
    for g in range(len(bounds) - 1):
        for i in range(bounds[g], bounds[g + 1]):
            if read[i]:
                v = code[i]
                counts[v, 0] += 1
                counts[v, 1] += money[0, i]
                counts[v, 2] += money[1, i]
                counts[v, 3] += money[2, i]
                sums[v, 0] += expected[i]
                spread[v] += sd[i]
        for i in range(bounds[g], bounds[g + 1]):  # each code of the round once
            if read[i] and spread[code[i]] != 0.0:
                sums[code[i], 1] += spread[code[i]] ** 2
                spread[code[i]] = 0.0
    return counts, sums


@njit(cache=True)
def settle_rows(
    hole: npt.NDArray[np.int16],
    flop: npt.NDArray[np.int16],
    turn: npt.NDArray[np.int16],
    river: npt.NDArray[np.int16],
    dealer: npt.NDArray[np.int16],
    called: npt.NDArray[np.bool_],
    void: npt.NDArray[np.bool_],
    ante: npt.NDArray[np.int64],
    staked_call: npt.NDArray[np.int64],  # the call the log says was staked
    aa: npt.NDArray[np.int64],
    ante_odds: npt.NDArray[np.int64],
    aa_odds: npt.NDArray[np.int64],
    rules: npt.NDArray[np.int64],  # call multiple, qualifying, pair of aces, the 3 flags
    tables: Tables,  # the look-up-table evaluator's (harness/rules/lookup.py)
    out: npt.NDArray[np.int64],  # (5, rows): call, ante, call and AA returns, judged
) -> None:
    """What the rules owe each row (harness/audit/settle.py `owed`): the oracle's
    arithmetic, a row at a time; a void row its stakes back; a round's dealer's hand
    evaluated once where its rows show the same cards. A column's cards are shown
    whole or not at all (harness/audit/log.py), so its first card tells."""
    multiple, qualifying, pair_of_aces = rules[0], rules[1], rules[2]
    even_unless_wins, forfeits, loses = rules[3] != 0, rules[4] != 0, rules[5]
    last = np.full(7, -2, np.int16)  # the board and dealer's cards last evaluated
    last_strength = 0
    for i in range(len(ante)):
        if void[i]:  # every stake back, nothing else
            out[0, i], out[1, i], out[2, i] = staked_call[i], ante[i], staked_call[i]
            out[3, i], out[4, i] = aa[i], 1
            continue
        flop_dealt = flop[i, 0] >= 0
        dealt = flop_dealt and turn[i, 0] >= 0 and river[i, 0] >= 0 and dealer[i, 0] >= 0
        call = multiple * ante[i] if called[i] else 0
        ante_back, call_back, aa_back = 0, 0, 0
        flop_words, flop_suits = np.uint64(0), np.uint64(0)  # the flop's, where a hand needs it
        if (called[i] and dealt) or (aa[i] > 0 and flop_dealt):
            flop_words, flop_suits = add_card(np.uint64(0), np.uint64(0), flop[i, 0])
            flop_words, flop_suits = add_card(flop_words, flop_suits, flop[i, 1])
            flop_words, flop_suits = add_card(flop_words, flop_suits, flop[i, 2])
        if called[i]:
            player, house = 0, 0  # cards not dealt: owed as the arrays always have, unjudged
            if dealt:
                words, suits = add_card(flop_words, flop_suits, turn[i, 0])
                words, suits = add_card(words, suits, river[i, 0])
                board_words, board_suits = words, suits
                for k in range(hole.shape[1]):
                    words, suits = add_card(words, suits, hole[i, k])
                player = strength(words, suits, tables)
                board = (flop[i, 0], flop[i, 1], flop[i, 2], turn[i, 0], river[i, 0],
                         dealer[i, 0], dealer[i, 1])  # fmt: skip
                same = True
                for k in range(7):
                    same = same and last[k] == board[k]
                if not same:
                    words, suits = add_card(board_words, board_suits, dealer[i, 0])
                    words, suits = add_card(words, suits, dealer[i, 1])
                    last_strength = strength(words, suits, tables)
                    for k in range(7):
                        last[k] = board[k]
                house = last_strength
            # As values chosen, not branches taken: who wins is a coin toss a branch
            # would guess wrong half the time.
            table_ante = ante[i] * (1 + ante_odds[player >> CATEGORY_SHIFT])
            even = even_unless_wins and player <= house
            not_qualified_ante = 2 * ante[i] if even else table_ante
            won_ante = table_ante if player > house else (ante[i] if player == house else 0)
            won_call = 2 * call if player > house else (call if player == house else 0)
            ante_back = not_qualified_ante if house < qualifying else won_ante
            call_back = call if house < qualifying else won_call
        if aa[i] > 0 and flop_dealt and (called[i] or not forfeits):
            words, suits = flop_words, flop_suits
            for k in range(hole.shape[1]):
                words, suits = add_card(words, suits, hole[i, k])
            hand = strength(words, suits, tables)
            category = hand >> CATEGORY_SHIFT
            odds = loses if category == PAIR and hand < pair_of_aces else aa_odds[category]
            aa_back = aa[i] * (1 + odds) if odds != loses else 0
        out[0, i] = call
        out[1, i] = ante_back
        out[2, i] = call_back
        out[3, i] = aa_back
        if called[i]:
            out[4, i] = dealt
        else:
            out[4, i] = aa[i] <= 0 or flop_dealt or forfeits


@njit(cache=True)
def _cell(
    hole: npt.NDArray[np.int16],
    flop: npt.NDArray[np.int16],
    i: int,
    binom: npt.NDArray[np.int32],  # harness/audit/returns.py `SituationTables`
    flop_perm: npt.NDArray[np.int8],
    card_map: npt.NDArray[np.int8],
    flop_canon: npt.NDArray[np.int16],
) -> tuple[int, int]:
    """Row i's canonical flop and hole pair, the cell of `situation_of` that names its
    situation (harness/gamemath/census.py `Symmetry.situation`): the flop sorted, its
    colex index, the suit relabelling that takes it to its canonical flop applied to the
    hole cards, their colex index; (-1, -1) where the five cards are not five of a deck
    (the round's integrity finding says why)."""
    a, b, c = np.int64(flop[i, 0]), np.int64(flop[i, 1]), np.int64(flop[i, 2])
    x, y = np.int64(hole[i, 0]), np.int64(hole[i, 1])
    # Without a branch on the cards (a random branch mispredicts half the time, and
    # holds back the next rows' loads): five cards of a deck are five bits, their sum
    # their union; the flop sorted by min and max.
    if min(a, b, c, x, y) < 0 or max(a, b, c, x, y) > 51:
        return -1, -1
    one = np.uint64(1)
    bits = (one << np.uint64(a), one << np.uint64(b), one << np.uint64(c),
            one << np.uint64(x), one << np.uint64(y))  # fmt: skip
    if sum(bits) != bits[0] | bits[1] | bits[2] | bits[3] | bits[4]:
        return -1, -1
    a, b = min(a, b), max(a, b)
    b, c = min(b, c), max(b, c)
    a, b = min(a, b), max(a, b)
    colex = np.int64(binom[a, 1]) + binom[b, 2] + binom[c, 3]
    p = flop_perm[colex]
    x, y = np.int64(card_map[p, x]), np.int64(card_map[p, y])
    x, y = min(x, y), max(x, y)
    return int(flop_canon[colex]), int(x + y * (y - 1) // 2)


@njit(cache=True)
def situations_of(
    hole: npt.NDArray[np.int16],
    flop: npt.NDArray[np.int16],
    rows: npt.NDArray[np.bool_],
    binom: npt.NDArray[np.int32],  # harness/audit/returns.py `SituationTables`
    flop_perm: npt.NDArray[np.int8],
    card_map: npt.NDArray[np.int8],
    flop_canon: npt.NDArray[np.int16],
    situation_of: npt.NDArray[np.int32],
) -> npt.NDArray[np.int64]:
    """Each of `rows`' situation, 0 elsewhere and where its cards are not five of a
    deck (`_cell`)."""
    out = np.zeros(len(hole), np.int64)
    for i in range(len(hole)):
        if rows[i]:
            flop_at, pair = _cell(hole, flop, i, binom, flop_perm, card_map, flop_canon)
            if flop_at >= 0:
                out[i] = situation_of[flop_at, pair]
    return out
