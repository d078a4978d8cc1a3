"""Round logs v1 (docs/audit.md, The round log): the columns, and a log's files read in
batches of whole rounds, each row checked against its column's type as it is read.

A log is one or more files, Parquet, CSV with a header row, or JSON Lines; a file's
kind is told by its suffix. Every value is checked here, not trusted: a row with a value
its column does not allow (a card that is not one, an amount with a fraction, a seat
outside 1..22) is a malformed row, kept with its file and row number as an integrity
finding, and left out of every other check. A round's seat rows follow one another in
a file (a game writes a round when it settles it): a batch is cut between rounds, never
inside one.
"""

from __future__ import annotations

import csv
import glob
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from harness.audit.kernel import (
    RANK,
    SUIT,
    bounded,
    parse_cards,
    round_numbers,
    strings,
    take_cards,
)
from harness.errors import UsageError

# The columns of round log v1, in order, and how many cards each card column holds.
TEXT = ("table", "round", "build")
CARDS = {"hole": 2, "flop": 3, "turn": 1, "river": 1, "dealer": 2}
AMOUNTS = ("ante", "call", "aa_bonus", "ante_returned", "call_returned", "aa_bonus_returned")
COLUMNS = ("table", "round", "time", "build", "seat", *CARDS, "action", *AMOUNTS, "status")
OPTIONAL = ("currency", "channel", "player")  # groups for the return bands
DICTIONARY = (*CARDS, "table", "build", "action", "status", "currency", "channel")
ACTIONS = ("call", "fold")
STATUSES = ("settled", "void")
MAX_AMOUNT = 2**53 - 1  # the largest integer every reader of the log keeps exact
MAX_SEAT = 22  # protocol v1's seats:N: two hole cards a seat, the dealer's and the board
MAX_TEXT = 200  # characters of a table, round, build or group: a longer one is malformed
BATCH_ROWS = 65_536  # rows judged together (a batch's arrays: some 1 KB a row)
DECODED = 2  # Parquet batches decoded at once, then cut between rounds: fewer carried over
FINISHING_ROWS = 1_024  # a Parquet batch past a piece's row groups, finishing its last round
SUFFIXES = {".parquet": "parquet", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


DAY = 86_400_000_000  # microseconds


def day_name(day: int) -> str:
    """A day, counted from 1970-01-01 (UTC), as its date."""
    return (date(1970, 1, 1) + timedelta(days=day)).isoformat()


class LogError(UsageError):
    """A file that is not a round log at all (no such file, not readable as its kind, a
    column missing): the audit cannot start on it."""


@dataclass(frozen=True)
class Malformed:
    """A row with a value its column does not allow."""

    file: str
    row: int  # 1-based, in the file (a CSV's header is not a row)
    column: str
    value: str
    why: str
    time: int | None = None  # its time when that could be read (the period is applied)


@dataclass(frozen=True)
class Labels:
    """A text column as codes into its distinct values (a batch's tables, builds and
    groups are few): compared and grouped as integers, read as text only for a finding."""

    codes: npt.NDArray[np.int64]  # into `values`; -1 where null
    values: list[str]

    @classmethod
    def of(cls, column: pa.Array) -> Labels:
        encoded = column if pa.types.is_dictionary(column.type) else column.dictionary_encode()
        codes = _codes(encoded)
        assert codes is not None
        return cls(codes.astype(np.int64), [str(v) for v in encoded.dictionary.to_pylist()])

    def __getitem__(self, i: int) -> str:
        code = int(self.codes[i])
        return "" if code < 0 else self.values[code]

    def join(self, other: Labels) -> Labels:
        """These labels and then `other`'s, coded into one list of values."""
        values = list(self.values)
        index = {v: i for i, v in enumerate(values)}
        recode = np.full(len(other.values) + 1, -1, np.int64)  # the last: a null's -1
        for k, value in enumerate(other.values):
            if value not in index:
                index[value] = len(values)
                values.append(value)
            recode[k] = index[value]
        return Labels(np.concatenate([self.codes, recode[other.codes]]), values)

    def take(self, rows: npt.NDArray[np.bool_] | npt.NDArray[np.int64]) -> Labels:
        """The labels of some rows (a mask, or their indices)."""
        return Labels(self.codes[rows], self.values)


@dataclass
class Rows:
    """A batch of well-formed rows of one file, whole rounds, as numpy columns."""

    file: str
    row: npt.NDArray[np.int64]  # each row's number in its file
    table: Labels
    round: pa.Array  # the round ids as text, read only for a finding or a round's key
    round_no: npt.NDArray[np.int64]  # each row's round, numbered in the batch
    build: Labels
    time: npt.NDArray[np.int64]  # microseconds since the epoch, UTC
    seat: npt.NDArray[np.int64]
    cards: dict[str, npt.NDArray[np.int16]]  # column -> (rows, cards) indices, -1 if null
    call_made: npt.NDArray[np.bool_]  # action == "call"
    void: npt.NDArray[np.bool_]  # status == "void"
    amounts: dict[str, npt.NDArray[np.int64]]
    groups: dict[str, Labels]  # the optional columns present

    def __len__(self) -> int:
        return len(self.row)

    def join(self, other: Rows) -> Rows:
        """These rows and then `other`'s, one batch (of one file)."""
        table, build = self.table.join(other.table), self.build.join(other.build)
        return Rows(
            file=self.file,
            row=np.concatenate([self.row, other.row]),
            table=table,
            round=pa.concat_arrays([self.round, other.round.cast(self.round.type)]),
            round_no=np.concatenate([self.round_no, other.round_no + self.round_no[-1] + 1]),
            build=build,
            time=np.concatenate([self.time, other.time]),
            seat=np.concatenate([self.seat, other.seat]),
            cards={c: np.concatenate([v, other.cards[c]]) for c, v in self.cards.items()},
            call_made=np.concatenate([self.call_made, other.call_made]),
            void=np.concatenate([self.void, other.void]),
            amounts={c: np.concatenate([v, other.amounts[c]]) for c, v in self.amounts.items()},
            groups={c: v.join(other.groups[c]) for c, v in self.groups.items()},
        )

    def shown(self, *columns: str) -> npt.NDArray[np.bool_]:
        """The rows that show every card of the card `columns`. A card column is read
        whole or not at all (a row with some of a column's cards is malformed), so its
        first card tells."""
        out: npt.NDArray[np.bool_] = self.cards[columns[0]][:, 0] >= 0
        for column in columns[1:]:
            out = out & (self.cards[column][:, 0] >= 0)
        return out

    def select(self, keep: npt.NDArray[np.bool_]) -> Rows:
        """The rows where `keep`."""
        return Rows(
            file=self.file,
            row=self.row[keep],
            table=self.table.take(keep),
            round=self.round.filter(pa.array(keep)),
            round_no=self.round_no[keep],
            build=self.build.take(keep),
            time=self.time[keep],
            seat=self.seat[keep],
            cards={c: v[keep] for c, v in self.cards.items()},
            call_made=self.call_made[keep],
            void=self.void[keep],
            amounts={c: v[keep] for c, v in self.amounts.items()},
            groups={c: v.take(keep) for c, v in self.groups.items()},
        )


def log_files(patterns: list[str]) -> list[Path]:
    """The files a log names: files, folders (their round-log files, sorted) and globs."""
    found: list[Path] = []
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            logs = [p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES]
            found += sorted(logs, key=_natural)
        elif path.exists():
            found.append(path)
        else:
            matched = sorted((Path(p) for p in glob.glob(pattern, recursive=True)), key=_natural)
            if not matched:
                raise LogError(f"{pattern}: no such file, folder or glob match")
            found += [p for p in matched if p.is_file()]
    for path in found:
        if path.suffix.lower() not in SUFFIXES:
            raise LogError(
                f"{path}: not a round log (a log file ends in {', '.join(sorted(SUFFIXES))})"
            )
    if not found:
        raise LogError(f"{' '.join(patterns)}: no round-log files found")
    return found


def _natural(path: Path) -> list[object]:
    """A file name's order with its numbers read as numbers: game-2 before game-10 (a
    rotated log's files)."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(path))]


def _tables(
    path: Path, batch_rows: int, groups: range | None = None
) -> Iterator[pa.Table | Malformed]:
    """The file's rows (a Parquet file's row groups `groups`, then those after them in
    tables of FINISHING_ROWS), each column as the file types it (its values are checked,
    never coerced, by `_checked`), in tables of about `batch_rows` (a Parquet file's,
    DECODED times as many)."""
    kind = SUFFIXES[path.suffix.lower()]
    try:
        if kind == "parquet":
            reader = pq.ParquetFile(path)
            present = [c for c in reader.schema_arrow.names if c in (*COLUMNS, *OPTIONAL)]
            _require(path, present)
            for column in present:  # read as it is, or as text where its values are checked
                typed = reader.schema_arrow.field(column).type
                if not pa.types.is_timestamp(typed):
                    pa.array([], typed).cast(pa.string())
            # Text columns a log repeats (cards, names) read as their dictionary pages'
            # codes, not a string a row: a value is then checked once an entry.
            coded = [c for c in DICTIONARY if c in present
                     and pa.types.is_string(reader.schema_arrow.field(c).type)]  # fmt: skip
            reader = pq.ParquetFile(path, read_dictionary=coded)
            mine = range(reader.num_row_groups) if groups is None else groups
            yield from _parquet(reader, mine, present, batch_rows * DECODED, gather=True)
            # A piece's last round finished from the groups after it: a few rows, read a
            # few at a time (the rest of a large batch would be decoded for nothing).
            after = range(mine.stop, reader.num_row_groups)
            yield from _parquet(reader, after, present, FINISHING_ROWS, gather=False)
        elif kind == "csv":
            yield from _csv(path, batch_rows)
        else:
            yield from _json_lines(path, batch_rows)
    except (pa.ArrowException, OSError) as exc:
        raise LogError(f"{path}: not readable as {kind}: {exc}") from exc


def _parquet(
    reader: pq.ParquetFile, groups: range, columns: list[str], batch_rows: int, gather: bool
) -> Iterator[pa.Table]:
    """The row groups' rows in tables of about `batch_rows`; `gather`: a file's small row
    groups read together, a batch of about batch_rows alone (batches of two row groups
    would join two large dictionaries)."""
    if not groups:
        return
    # One thread: the audit's own processes use the cores (harness/audit/pieces.py).
    batches = reader.iter_batches(
        batch_size=batch_rows, row_groups=groups, columns=columns, use_threads=False
    )
    gathered: list[pa.RecordBatch] = []
    for batch in batches:
        if not gather:
            yield pa.Table.from_batches([batch])
            continue
        size = sum(b.num_rows for b in gathered)
        if gathered and size + batch.num_rows > batch_rows:
            yield pa.Table.from_batches(gathered)
            gathered, size = [], 0
        gathered.append(batch)
        if size + batch.num_rows >= batch_rows // 2:
            yield pa.Table.from_batches(gathered)
            gathered = []
    if gathered:
        yield pa.Table.from_batches(gathered)


def _csv(path: Path, batch_rows: int) -> Iterator[pa.Table | Malformed]:
    """CSV read fast by pyarrow; from the first block it cannot parse (a row of another
    number of fields, bytes that are not UTF-8), row by row, each such row malformed."""
    names = _csv_header(path)
    _require(path, names)
    wanted = [c for c in names if c in (*COLUMNS, *OPTIONAL)]
    done = 0
    try:
        stream = pacsv.open_csv(
            path,
            read_options=pacsv.ReadOptions(block_size=1 << 22, column_names=names, skip_rows=1),
            # a blank line is no row: the line-by-line reader below takes it, so that
            # every line after the header is a row or a malformed one, and numbered
            parse_options=pacsv.ParseOptions(ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in names},
                include_columns=wanted,
                strings_can_be_null=True,
                null_values=[""],
            ),
        )
        for batch in stream:
            done += batch.num_rows
            yield pa.Table.from_batches([batch])
    except (pa.ArrowInvalid, UnicodeDecodeError):
        yield from _csv_rows(path, names, wanted, done, batch_rows)


def _csv_rows(
    path: Path, names: list[str], wanted: list[str], skip: int, batch_rows: int
) -> Iterator[pa.Table | Malformed]:
    """The rows after the first `skip`, by Python's csv module: a row of another number
    of fields, or not UTF-8, is malformed."""
    columns: dict[str, list[str | None]] = {c: [] for c in wanted}
    with path.open("rb") as file:
        file.readline()  # the header
        for number, raw in enumerate(file, 1):
            if number <= skip:
                continue
            try:
                line = raw.decode("utf-8")
                fields = next(csv.reader([line]), [])
            except (UnicodeDecodeError, csv.Error) as exc:
                yield from _flush(columns)
                yield Malformed(str(path), number, "line", _shown(raw), f"not CSV text ({exc})")
                continue
            if len(fields) != len(names):
                yield from _flush(columns)
                why = f"{len(fields)} fields, the header names {len(names)}"
                yield Malformed(str(path), number, "line", _shown(raw), why)
                continue
            row = dict(zip(names, fields, strict=True))
            for c in wanted:
                columns[c].append(row[c] or None)
            if len(columns[wanted[0]]) >= batch_rows:
                yield from _flush(columns)
    yield from _flush(columns)


def _flush(columns: dict[str, list[str | None]]) -> Iterator[pa.Table]:
    """The rows gathered so far as a table, and the lists emptied."""
    if any(columns.values()):
        yield pa.table({c: pa.array(v, pa.string()) for c, v in columns.items()})
        for values in columns.values():
            values.clear()


def _shown(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").rstrip("\r\n")[:200]


def _csv_header(path: Path) -> list[str]:
    """The header's names, spaces around them and a byte-order mark taken off."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as file:
            return [c.strip() for c in next(csv.reader(file), [])]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise LogError(f"{path}: not a round log v1: its header is not CSV text ({exc})") from exc


def _require(path: Path, present: list[str]) -> None:
    missing = [c for c in COLUMNS if c not in present]
    if missing:
        raise LogError(f"{path}: not a round log v1: no column {', '.join(missing)}")


def _json_lines(path: Path, batch_rows: int) -> Iterator[pa.Table | Malformed]:
    """JSON Lines, one object a line, each value kept as its JSON text (a string's own
    text), so that the checks below judge it as they judge CSV's. A line that is not a
    JSON object (or not UTF-8) is malformed; a file whose first line is not an object
    holding the log's columns is no round log."""
    names = (*COLUMNS, *OPTIONAL)
    columns: dict[str, list[str | None]] = {c: [] for c in names}
    with path.open("rb") as file:
        for number, raw in enumerate(file, 1):
            try:
                record = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                record = None
            if number == 1 and not (isinstance(record, dict) and _has_columns(record)):
                raise LogError(
                    f"{path}: not a round log v1: its first line is not a JSON object "
                    f"holding the columns {', '.join(COLUMNS)}"
                )
            if not isinstance(record, dict):
                yield from _flush(columns)
                yield Malformed(str(path), number, "line", _shown(raw), "not a JSON object")
                continue
            for c in names:
                columns[c].append(_json_text(record.get(c)))
            if len(columns["table"]) >= batch_rows:
                yield from _flush(columns)
    yield from _flush(columns)


def _json_text(value: object) -> str | None:
    """A JSON value as the checks read it: a string as itself, any other as its JSON."""
    return value if isinstance(value, str) or value is None else json.dumps(value)


def _has_columns(record: dict[str, object]) -> bool:
    return all(c in record for c in COLUMNS)


def _single(table: pa.Table, column: str) -> pa.Array:
    """A column as one array, a dictionary's values in place of its codes."""
    array = _column(table, column)
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    return array


def _text(array: pa.Array) -> pa.Array:
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        return array
    return array.cast(pa.string())


def _codes(column: pa.Array) -> npt.NDArray[np.int32] | None:
    """A dictionary column's codes, -1 where null (None: not a dictionary): its indices
    in place where they are 32-bit (as Arrow reads Parquet's) and none is null. A value
    worked out a dictionary entry at a time and put at the end of its array is read
    for the rows by `array[codes]`: a null row's code -1 reads that end."""
    if not pa.types.is_dictionary(column.type):
        return None
    indices = column.indices
    if indices.null_count:
        indices = pc.fill_null(indices, -1)
    codes: npt.NDArray[np.int32] = indices.to_numpy().astype(np.int32, copy=False)
    return codes


def _lengths(column: pa.Array) -> npt.NDArray[np.int64] | None:
    """Each row's length in characters, 0 where null; None where every row has 1 to
    MAX_TEXT (as a log's names and ids do: nothing to look at, row by row)."""
    codes = _codes(column)
    if codes is None:  # bytes, from the offsets; characters only where bytes are many
        text = _text(column)
        lengths = np.diff(strings(text)[0])
        if not text.null_count and len(lengths) and 0 < lengths.min() <= lengths.max() <= MAX_TEXT:
            return None
        if text.null_count:
            lengths[text.is_null().to_numpy(zero_copy_only=False)] = 0
        many = np.flatnonzero(lengths > MAX_TEXT)
        if len(many):
            lengths[many] = pc.utf8_length(text.take(pa.array(many))).to_numpy()
        return lengths
    each = pc.utf8_length(_text(column.dictionary).fill_null("")).to_numpy(zero_copy_only=False)
    if not column.null_count and len(each) and 0 < each.min() <= each.max() <= MAX_TEXT:
        return None
    return np.append(each, 0)[codes]


def _which(column: pa.Array, words: tuple[str, ...]) -> npt.NDArray[np.int64]:
    """Each row's text's place among `words`, -1 where it is none of them (or null)."""
    codes = _codes(column)
    if codes is None:
        found: npt.NDArray[np.int64] = (
            pc.index_in(_text(column), pa.array(words)).fill_null(-1).to_numpy(zero_copy_only=False)
        )
        return found.astype(np.int64)
    entries = column.dictionary.to_pylist()
    each = np.array([words.index(e) if e in words else -1 for e in entries] + [-1], np.int64)
    return each[codes]


# A card column's dictionary last parsed, and its entries' cards and wrongness, by column.
Parsed = dict[str, tuple[pa.Array, npt.NDArray[np.int16], npt.NDArray[np.bool_]]]


def _cards(
    column: pa.Array, count: int, name: str, parsed: Parsed
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.bool_]]:
    """(indices of shape (rows, count), -1 where null; rows whose text is not `count`
    cards). A dictionary column's entries are parsed once a dictionary: the batches of a
    row group carry the same one, kept in `parsed`."""
    codes = _codes(column)
    if codes is None:
        column = _text(column)
        offsets, data = strings(column)
        null = column.is_null().to_numpy(zero_copy_only=False)
        cards, wrong = parse_cards(offsets, data, null, count, RANK, SUIT)
        return cards, wrong
    values = _text(column.dictionary)
    last = parsed.get(name)
    if last is None or not _same_entries(last[0], values):
        null = values.is_null().to_numpy(zero_copy_only=False)
        last = (values, *parse_cards(*strings(values), null, count, RANK, SUIT))
        parsed[name] = last
    return take_cards(last[1], last[2], codes)


def _same_entries(a: pa.Array, b: pa.Array) -> bool:
    """Whether two dictionaries hold the same entries: the same buffers (the batches cut
    from one decoded table), else compared (each decoded table has a copy of its row
    group's, some 1 MB for the flop: a tenth of a millisecond)."""
    if len(a) != len(b):
        return False
    here, there = a.buffers(), b.buffers()
    shared = a.offset == b.offset and all(
        x is y or (x is not None and y is not None and x.address == y.address)
        for x, y in zip(here, there, strict=True)
    )
    return shared or bool(a.equals(b))


def _column(table: pa.Table, column: str) -> pa.Array:
    """A column as one array, as the file types it (a dictionary kept); a column of one
    chunk is that chunk, not a copy."""
    chunks = table[column]
    return chunks.chunk(0) if chunks.num_chunks == 1 else chunks.combine_chunks()


NO_NULLS = np.zeros(0, bool)  # `bounded`'s null mask for a column with none


def _integers(
    column: pa.Array, low: int, high: int, digits: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """(the values, rows whose value is not an integer from `low` to `high`): an integer
    column read as it is, a text one (CSV, JSON Lines) as at most `digits` digits."""
    if pa.types.is_signed_integer(column.type):
        raw = np.frombuffer(column.buffers()[1], column.type.to_pandas_dtype())
        null = column.is_null().to_numpy(zero_copy_only=False) if column.null_count else NO_NULLS
        return bounded(raw[column.offset : column.offset + len(column)], null, low, high)
    if pa.types.is_integer(column.type):
        values = pc.fill_null(column, 0).to_numpy(zero_copy_only=False)
        bad = column.is_null().to_numpy(zero_copy_only=False) | (values < low) | (values > high)
        return np.where(bad, 0, values).astype(np.int64), bad
    column = _text(column)
    good = pc.match_substring_regex(column, f"^[0-9]{{1,{digits}}}$").fill_null(False)
    values = pc.cast(pc.if_else(good, column, "0"), pa.int64()).to_numpy(zero_copy_only=False)
    bad = ~good.to_numpy(zero_copy_only=False) | (values < low) | (values > high)
    return np.where(bad, 0, values), bad


def _time(column: pa.ChunkedArray) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """(microseconds since the epoch, UTC; rows without an instant)."""
    if pa.types.is_timestamp(column.type):
        if column.type.tz is None:  # an instant, but in no stated zone: read as UTC
            column = column.cast(pa.timestamp(column.type.unit, tz="UTC"))
        # nanoseconds (pandas' default) kept to the microsecond
        values = column.cast(pa.timestamp("us", tz="UTC"), safe=False).cast(pa.int64())
        bad = column.is_null().to_numpy(zero_copy_only=False)
        return values.fill_null(0).to_numpy(zero_copy_only=False), bad
    column = _text(column)
    iso = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$"
    matched = pc.match_substring_regex(column, iso).fill_null(False)
    good = matched.to_numpy(zero_copy_only=False)
    try:  # Arrow's own reading of the instants, nanoseconds kept to the microsecond
        instants = pc.if_else(matched, column, "1970-01-01T00:00:00Z")
        nanos = instants.cast(pa.timestamp("ns", tz="UTC"))
        values = nanos.cast(pa.timestamp("us", tz="UTC"), safe=False).cast(pa.int64())
        values = values.to_numpy(zero_copy_only=False).copy()
    except pa.ArrowInvalid:  # a date no calendar has (a 30 February), a year past 2262
        values = np.zeros(len(column), np.int64)
        good = good.copy()
        slow = np.flatnonzero(good)
    else:
        slow = np.flatnonzero(good & (values < 0))  # before 1970: Arrow truncates to zero
    text = column.take(pa.array(slow)).to_pylist() if len(slow) else []
    for i, instant in zip(slow, text, strict=True):  # the zone is part of the instant
        try:
            values[i] = _micros(str(instant))
        except ValueError:
            good[i] = False
    return values, ~good


def _micros(text: str) -> int:
    """Microseconds since the epoch, exactly (before 1970 too: a float's timestamp,
    truncated, would put a fractional instant there a second late)."""
    from datetime import UTC, datetime, timedelta

    instant = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
    return (instant - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


ROW = "__row__"  # each row's number in its file, carried beside its columns


def read_log(
    path: Path, batch_rows: int = BATCH_ROWS, groups: range | None = None
) -> Iterator[Rows | Malformed]:
    """A file's rows in batches of whole rounds, and its malformed rows as they come.

    A batch's last round may go on in the next: its rows are carried over, each with its
    row number (a row the reader itself cannot take apart, a CSV row of another number of
    fields or a JSON line that is not an object, takes a number of its own), and judged
    with the rows that finish it, as a batch of their own.

    `groups`, a range of a Parquet file's row groups, reads a piece of the file
    (harness/audit/pieces.py): the rounds that begin in those groups, whole. A round that
    began in the group before belongs to the piece before, which reads on past its last
    group to finish it."""
    sizes = _group_rows(path) if groups is not None else []
    number = 1 + sum(sizes[: groups.start]) if groups is not None else 1
    remaining = sum(sizes[groups.start : groups.stop]) if groups is not None else -1
    skipping = groups is not None and groups.start > 0  # a piece after the file's first
    skip: Key | None = None  # the key of the piece before's last round, once looked up
    looked = False
    carry: list[pa.Table] = []  # the last round so far, its columns as plain text
    carry_key: Key | None = None  # that round's table and round
    held: Rows | None = None  # that round, checked, waiting for the batch's other rows
    parsed: Parsed = {}
    for table in _tables(path, batch_rows, groups):
        if isinstance(table, Malformed):
            number += 1
            yield table
            continue
        rows = pa.array(np.arange(number, number + table.num_rows, dtype=np.int64))
        number += table.num_rows
        table = table.append_column(ROW, rows)
        if skipping:  # the rows that finish the piece before's last round
            first = None if looked else _first_key(table)
            if groups is not None and first is not None:
                skip, looked = _key_before(path, groups.start, first), True
            same = _leading(table, skip)
            remaining -= same
            table = table.slice(same)
            if remaining <= 0:  # the piece's groups hold no round that begins in them
                return
            if table.num_rows == 0:
                continue
            skipping = False
        if carry:  # the rows that finish the round carried over
            same = _leading(table, carry_key)
            carry.append(_plain(table.slice(0, same)))
            table = table.slice(same)
            if remaining > 0:  # the round's rows are the piece's, wherever its groups end
                remaining = max(remaining - same, 0)
            if table.num_rows == 0:
                continue
            for item in _judged(str(path), pa.concat_tables(carry)):
                if isinstance(item, Rows):
                    held = item  # judged with the batch's rows, not as a batch of its own
                else:
                    yield item
            carry = []
        if remaining == 0 or remaining == STOP:  # past the piece, its last round finished
            if held is not None:
                yield held
            return
        if remaining > 0 and table.num_rows >= remaining:
            end = remaining + _leading(table.slice(remaining), _last_key(table, remaining))
            remaining = 0 if end == table.num_rows else STOP
            table = table.slice(0, end)
        elif remaining > 0:
            remaining -= table.num_rows
        rounds = _round_numbers(table)
        cut = int(np.searchsorted(rounds, rounds[-1]))  # where the last round begins
        carry = [_plain(table.slice(cut))]
        carry_key = _last_key(table, table.num_rows)
        for start, stop in _windows(rounds[:cut], batch_rows):
            part = table.slice(start, stop - start)
            for item in _checked(str(path), part, rounds[start:stop] - rounds[start], parsed):
                if isinstance(item, Rows) and held is not None:
                    item, held = held.join(item), None
                yield item
        if held is not None:
            yield held
            held = None
        if remaining == STOP:
            break
    if carry:
        yield from _judged(str(path), pa.concat_tables(carry))


STOP = -2  # a piece's `remaining` once its last round is read whole: read no further


def _windows(rounds: npt.NDArray[np.int64], size: int) -> Iterator[tuple[int, int]]:
    """A decoded table's rows (`rounds`, each row's round, in order) cut into batches of
    whole rounds, each about `size` rows (a slice of the table: no copy)."""
    start = 0
    while start < len(rounds):
        stop = start + size
        if stop < len(rounds):  # on to the next round's first row
            stop = int(np.searchsorted(rounds, rounds[stop - 1], side="right"))
        yield start, min(stop, len(rounds))
        start = stop


def _judged(file: str, table: pa.Table) -> Iterator[Rows | Malformed]:
    yield from _checked(file, table, _round_numbers(table), {})


def _plain(table: pa.Table) -> pa.Table:
    """A few rows with dictionary columns as their values (rows of batches with other
    dictionaries are joined so)."""
    return pa.table({c: _single(table, c) for c in table.column_names})


def _group_rows(path: Path) -> list[int]:
    """The rows of each of a Parquet file's row groups."""
    metadata = pq.ParquetFile(path).metadata
    return [metadata.row_group(g).num_rows for g in range(metadata.num_row_groups)]


Key = tuple[str | None, str | None]  # a row's table and round, as text


def _key(table: pa.Table, i: int) -> Key:
    """Row i's table and round as text, as `round_numbers` compares them."""
    values = (table["table"][i].as_py(), table["round"][i].as_py())
    return (
        None if values[0] is None else str(values[0]),
        None if values[1] is None else str(values[1]),
    )


def keys_at(path: Path, rows: list[int]) -> dict[int, Key]:
    """The table and round of some rows of a file, by their numbers (as `read_log`
    numbers them), as text as the audit reads them: a Parquet file's from the row groups
    that hold them; a CSV or JSON Lines file's from their lines, every line after a
    CSV's header being a row or a malformed one, each a number (`_csv`, `_json_lines`).
    A row the file no longer holds (moved, cut short) is left out."""
    wanted, found = sorted(set(rows)), dict[int, Key]()
    try:
        if wanted and SUFFIXES[path.suffix.lower()] == "parquet":
            reader = pq.ParquetFile(path)
            sizes = [reader.metadata.row_group(g).num_rows for g in range(reader.num_row_groups)]
            starts = np.cumsum([1, *sizes])  # each group's first row's number
            for row in wanted:
                group = int(np.searchsorted(starts, row, side="right")) - 1
                if 0 <= group < reader.num_row_groups:
                    found[row] = _text_key(reader.read_row_group(
                        group, columns=["table", "round"], use_threads=False
                    ), row - int(starts[group]))  # fmt: skip
        elif wanted:
            found = _line_keys(path, wanted)
    except (OSError, pa.ArrowException, LogError, csv.Error, ValueError):
        pass  # the finding stands without the ids it could not read again
    return found


def _text_key(table: pa.Table, i: int) -> Key:
    """Row i's table and round as text, cast by Arrow as the checks read them."""
    text = [_text(_single(table, c))[i].as_py() for c in ("table", "round")]
    return text[0], text[1]


def _line_keys(path: Path, wanted: list[int]) -> dict[int, Key]:
    """`keys_at` for CSV and JSON Lines: the lines read as bytes, only the wanted ones
    taken apart (a JSON value not a string as its JSON text, as `_json_lines` keeps it)."""
    found: dict[int, Key] = {}
    csv_file = SUFFIXES[path.suffix.lower()] == "csv"
    names = _csv_header(path) if csv_file else []
    with path.open("rb") as file:
        if csv_file:
            file.readline()  # the header
        for number, raw in enumerate(file, 1):
            if number in wanted:
                line = raw.decode("utf-8")
                if csv_file:
                    record: dict[str, object] = dict(
                        zip(names, next(csv.reader([line]), []), strict=False)
                    )
                else:
                    record = json.loads(line)
                if not isinstance(record, dict):  # not the row it was: the file changed
                    continue
                table, ident = (_json_text(record.get(c)) for c in ("table", "round"))
                found[number] = (table or None, ident or None)
            if number >= wanted[-1]:
                break
    return found


def _keyless(key: Key) -> bool:
    """A table or round missing, or too long: a malformed row, in no round of its own."""
    return any(not part or len(part) > MAX_TEXT for part in key)


def _last_key(table: pa.Table, stop: int) -> Key | None:
    """The key of the last row before row `stop` that has one (None: no row has)."""
    return _keyed_row(table, range(stop - 1, -1, -1))


def _first_key(table: pa.Table) -> Key | None:
    """The key of the table's first row that has one (None: no row has)."""
    return _keyed_row(table, range(table.num_rows))


def _keyed_row(table: pa.Table, rows: range) -> Key | None:
    """The key of the first of `rows`, in their order, that has one."""
    for i in rows:
        key = _key(table, i)
        if not _keyless(key):
            return key
    return None


def _key_before(path: Path, group: int, first: Key) -> Key | None:
    """The table and round of the last row with both before row group `group` (None: no
    row before has), from the last group before it that holds one: a group of no such
    row (malformed rows, or none) lies inside the round going on. A group is read whole
    only where that last row can be `first` (the key of the piece's first row that has
    one): where the group's statistics show it holds no row of `first`, and its first
    rows show it holds a row with a key, its last such row is not `first`'s, and None
    is as good (`_leading` then finds no row of a round begun before)."""
    reader = pq.ParquetFile(path)
    for before in range(group - 1, -1, -1):
        cannot = not _may_hold(reader.metadata.row_group(before), first)
        if cannot and _keyed(reader, before):
            return None
        rows = reader.read_row_group(before, columns=["table", "round"])
        key = _last_key(rows, rows.num_rows)
        if key is not None:
            return key
    return None


def _keyed(reader: pq.ParquetFile, group: int) -> bool:
    """Whether a row group's first FINISHING_ROWS rows hold a row with a key (a few
    pages read, not the group)."""
    batches = reader.iter_batches(
        batch_size=FINISHING_ROWS, row_groups=[group], columns=["table", "round"],
        use_threads=False,
    )  # fmt: skip
    batch = next(iter(batches), None)
    return batch is not None and _first_key(pa.Table.from_batches([batch])) is not None


def _may_hold(group: pq.RowGroupMetaData, key: Key) -> bool:
    """Whether a row group can hold a row of `key`: not where a text column's least and
    greatest values, as the file's statistics state them, leave it out (text compared
    as Parquet orders it, by UTF-8 bytes; statistics cut short still bound the values)."""
    for i in range(group.num_columns):
        chunk = group.column(i)
        if chunk.path_in_schema not in ("table", "round") or not chunk.is_stats_set:
            continue
        stats = chunk.statistics
        try:
            low, high = (stats.min, stats.max) if stats.has_min_max else (None, None)
        except (UnicodeDecodeError, pa.ArrowException):  # a bound cut inside a character
            continue
        text = key[0] if chunk.path_in_schema == "table" else key[1]
        if not (isinstance(low, str) and isinstance(high, str) and text is not None):
            continue  # no bounds stated, or not as text
        if not low.encode() <= text.encode() <= high.encode():
            return False
    return True


def _leading(table: pa.Table, key: Key | None) -> int:
    """How many of the table's first rows are of the round `key` (None: no round), a
    row without a key staying in it (`round_numbers`)."""
    count = 0
    while count < table.num_rows:
        row = _key(table, count)
        if row != key and not _keyless(row):
            break
        count += 1
    return count


def _round_numbers(table: pa.Table) -> npt.NDArray[np.int64]:
    """Each row's round in the table, numbered from 0 (harness/audit/kernel.py)."""
    tables, rounds = _column(table, "table"), _text(_single(table, "round"))
    keyless = np.zeros(len(table), bool)
    for length in (_lengths(tables), _lengths(rounds)):
        if length is not None:
            keyless |= (length == 0) | (length > MAX_TEXT)
    return round_numbers(Labels.of(tables).codes, *strings(rounds), keyless)


def _checked(
    file: str, table: pa.Table, rounds: npt.NDArray[np.int64], parsed: Parsed
) -> Iterator[Rows | Malformed]:
    """The table's rows checked column by column: the malformed ones, then the others
    (`parsed`: the card dictionaries parsed so far, `_cards`)."""
    n = table.num_rows
    number = table[ROW].to_numpy()
    bad = np.zeros(n, bool)
    found: list[tuple[int, str, str]] = []  # (index, column, why), the first of each row

    def mark(rows: npt.NDArray[np.bool_], column: str, why: str) -> None:
        if not rows.any():
            return
        new = rows & ~bad
        found.extend((int(i), column, why) for i in np.flatnonzero(new))
        bad[new] = True

    columns = {c: _column(table, c) for c in table.column_names if c != ROW}
    columns["round"] = _text(_single(table, "round")).cast(pa.string())  # one type a log
    for column in TEXT:
        length = _lengths(columns[column])
        if length is not None:
            mark(length == 0, column, "empty")
            mark(length > MAX_TEXT, column, f"longer than {MAX_TEXT} characters")
    for column in (c for c in OPTIONAL if c in columns):
        length = _lengths(columns[column])
        if length is not None:
            mark(length > MAX_TEXT, column, f"longer than {MAX_TEXT} characters")
    time, wrong_time = _time(_single(table, "time"))
    mark(wrong_time, "time", "not an ISO 8601 instant with its zone")
    seat, wrong = _integers(_single(table, "seat"), 1, MAX_SEAT, 2)
    mark(wrong, "seat", f"not a seat 1..{MAX_SEAT}")
    cards = {}
    for column, count in CARDS.items():
        cards[column], wrong = _cards(columns[column], count, column, parsed)
        if column == "hole":
            wrong |= columns[column].is_null().to_numpy(zero_copy_only=False)
        mark(wrong, column, f"not {count} card{'s' * (count > 1)} like 'As'")
    action, status = _which(columns["action"], ACTIONS), _which(columns["status"], STATUSES)
    mark(action < 0, "action", "neither call nor fold")
    mark(status < 0, "status", "neither settled nor void")
    amounts = {}
    for column in AMOUNTS:
        amounts[column], wrong = _integers(_single(table, column), 0, MAX_AMOUNT, 16)
        mark(wrong, column, "not an integer amount from 0 to 2^53 - 1")
    for index, column, why in sorted(found):
        value = columns[column][index].as_py()
        shown = "" if value is None else str(value)[:MAX_TEXT]
        when = None if wrong_time[index] else int(time[index])
        yield Malformed(file, int(number[index]), column, shown, why, when)
    if bad.all():
        return

    rows = Rows(
        file=file,
        row=number,
        table=Labels.of(columns["table"]),
        round=columns["round"],
        round_no=rounds,
        build=Labels.of(columns["build"]),
        time=time,
        seat=seat,
        cards=cards,
        call_made=action == ACTIONS.index("call"),
        void=status == STATUSES.index("void"),
        amounts=amounts,
        groups={c: Labels.of(columns[c]) for c in OPTIONAL if c in columns},
    )
    if bad.any():  # a malformed row inside a round leaves the round whole
        rows = rows.select(~bad)
        every = np.zeros(len(rows), bool)  # the malformed rows gone, every row has a key
        rows.round_no = round_numbers(rows.table.codes, *strings(rows.round), every)
    yield rows
