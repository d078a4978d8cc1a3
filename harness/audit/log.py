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
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from harness.errors import UsageError
from harness.rules.cards import RANK_CHARS, SUIT_CHARS

# The columns of round log v1, in order, and how many cards each card column holds.
TEXT = ("table", "round", "build")
CARDS = {"hole": 2, "flop": 3, "turn": 1, "river": 1, "dealer": 2}
AMOUNTS = ("ante", "call", "aa_bonus", "ante_returned", "call_returned", "aa_bonus_returned")
COLUMNS = ("table", "round", "time", "build", "seat", *CARDS, "action", *AMOUNTS, "status")
OPTIONAL = ("currency", "channel", "player")  # groups for the return bands
SHARED = ("flop", "turn", "river", "dealer")  # every seat row of a round repeats them
ACTIONS = ("call", "fold")
STATUSES = ("settled", "void")
MAX_AMOUNT = 2**53 - 1  # the largest integer every reader of the log keeps exact
MAX_SEAT = 22  # protocol v1's seats:N: two hole cards a seat, the dealer's and the board
MAX_TEXT = 200  # characters of a table, round, build or group: a longer one is malformed
BATCH_ROWS = 65_536
SUFFIXES = {".parquet": "parquet", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_CARD_TEXT = "^(?:[2-9TJQKA][cdhs])"


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


@dataclass
class Rows:
    """A batch of well-formed rows of one file, whole rounds, as numpy columns."""

    file: str
    row: npt.NDArray[np.int64]  # each row's number in its file
    table: npt.NDArray[np.object_]
    round: npt.NDArray[np.object_]
    build: npt.NDArray[np.object_]
    time: npt.NDArray[np.int64]  # microseconds since the epoch, UTC
    seat: npt.NDArray[np.int64]
    cards: dict[str, npt.NDArray[np.int16]]  # column -> (rows, cards) indices, -1 if null
    call_made: npt.NDArray[np.bool_]  # action == "call"
    void: npt.NDArray[np.bool_]  # status == "void"
    amounts: dict[str, npt.NDArray[np.int64]]
    groups: dict[str, npt.NDArray[np.object_]]  # the optional columns present

    def __len__(self) -> int:
        return len(self.row)


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


def _tables(path: Path, batch_rows: int) -> Iterator[pa.Table | Malformed]:
    """The file's rows, every column as text (a value is checked, never coerced by the
    reader), in tables of about `batch_rows`."""
    kind = SUFFIXES[path.suffix.lower()]
    try:
        if kind == "parquet":
            reader = pq.ParquetFile(path)
            present = [c for c in reader.schema_arrow.names if c in (*COLUMNS, *OPTIONAL)]
            _require(path, present)
            for batch in reader.iter_batches(batch_size=batch_rows, columns=present):
                yield pa.Table.from_batches([batch]).cast(
                    pa.schema([(c, _as_text(batch.schema.field(c).type)) for c in present])
                )
        elif kind == "csv":
            yield from _csv(path, batch_rows)
        else:
            yield from _json_lines(path, batch_rows)
    except (pa.ArrowException, OSError) as exc:
        raise LogError(f"{path}: not readable as {kind}: {exc}") from exc


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


def _as_text(kind: pa.DataType) -> pa.DataType:
    """Every column read as text, but timestamps, which keep their instant."""
    return kind if pa.types.is_timestamp(kind) else pa.string()


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
                value = record.get(c)
                text = value if isinstance(value, str) or value is None else json.dumps(value)
                columns[c].append(text)
            if len(columns["table"]) >= batch_rows:
                yield from _flush(columns)
    yield from _flush(columns)


def _has_columns(record: dict[str, object]) -> bool:
    return all(c in record for c in COLUMNS)


# Card characters to indices: 4 * rank + suit (harness/rules/cards.py); -1 for any other.
_RANK = np.full(256, -1, np.int16)
_SUIT = np.full(256, -1, np.int16)
for _i, _ch in enumerate(RANK_CHARS):
    _RANK[ord(_ch)] = _i
for _i, _ch in enumerate(SUIT_CHARS):
    _SUIT[ord(_ch)] = _i


def _cards(
    column: pa.ChunkedArray, count: int
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.bool_]]:
    """(indices of shape (rows, count), -1 where null; rows whose text is not `count`
    cards)."""
    valid = pc.match_substring_regex(column, f"{_CARD_TEXT}{{{count}}}$").fill_null(True)
    shown = pc.if_else(valid, column.fill_null(""), "")  # only card text reaches the bytes
    text = shown.to_numpy(zero_copy_only=False).astype(f"S{2 * count}")
    codes = text.view(np.uint8).reshape(len(text), 2 * count)
    cards = 4 * _RANK[codes[:, 0::2]] + _SUIT[codes[:, 1::2]]
    cards[column.is_null().to_numpy(zero_copy_only=False)] = -1
    return cards.astype(np.int16), ~valid.to_numpy(zero_copy_only=False)


def _amount(column: pa.ChunkedArray) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """(the amounts, rows whose value is not an integer from 0 to 2^53 - 1)."""
    good = pc.match_substring_regex(column, r"^[0-9]{1,16}$").fill_null(False)
    text = pc.if_else(good, column, "0")
    values = pc.cast(text, pa.int64()).to_numpy(zero_copy_only=False)
    bad = ~good.to_numpy(zero_copy_only=False) | (values > MAX_AMOUNT)
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
    iso = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$"
    good = pc.match_substring_regex(column, iso).fill_null(False).to_numpy(zero_copy_only=False)
    values = np.zeros(len(column), np.int64)
    text = column.to_numpy(zero_copy_only=False)
    for i in np.flatnonzero(good):  # the zone is part of the instant
        try:
            values[i] = _micros(str(text[i]))
        except ValueError:
            good[i] = False
    return values, ~good


def _micros(text: str) -> int:
    from datetime import datetime

    instant = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
    return int(instant.timestamp()) * 1_000_000 + instant.microsecond


ROW = "__row__"  # each row's number in its file, carried beside its columns


def read_log(path: Path, batch_rows: int = BATCH_ROWS) -> Iterator[Rows | Malformed]:
    """A file's rows in batches of whole rounds, and its malformed rows as they come.

    A batch's last round may go on in the next: its rows are carried over, each with its
    row number (a row the reader itself cannot take apart, a CSV row of another number of
    fields or a JSON line that is not an object, takes a number of its own)."""
    carry: pa.Table | None = None
    number = 1  # the number of the next row in the file
    for table in _tables(path, batch_rows):
        if isinstance(table, Malformed):
            number += 1
            yield table
            continue
        rows = pa.array(np.arange(number, number + table.num_rows, dtype=np.int64))
        number += table.num_rows
        table = table.append_column(ROW, rows)
        if carry is not None:
            table = pa.concat_tables([carry, table.select(carry.column_names)])
        keys = pc.binary_join_element_wise(
            table["table"].fill_null(""), table["round"].fill_null(""), "\x1f"
        ).to_numpy(zero_copy_only=False)
        cut = _last_round_start(keys)
        carry = table.slice(cut)
        if cut:
            yield from _checked(str(path), table.slice(0, cut))
    if carry is not None and carry.num_rows:
        yield from _checked(str(path), carry)


def _last_round_start(keys: npt.NDArray[np.object_]) -> int:
    """Where the batch's last round begins: its rows may go on in the next batch."""
    last = len(keys) - 1
    while last > 0 and keys[last - 1] == keys[-1]:
        last -= 1
    return last


def _checked(file: str, table: pa.Table) -> Iterator[Rows | Malformed]:
    """The table's rows checked column by column: the malformed ones, then the others."""
    n = table.num_rows
    number = table[ROW].to_numpy(zero_copy_only=False)
    bad = np.zeros(n, bool)
    found: list[tuple[int, str, str]] = []  # (index, column, why), the first of each row

    def mark(rows: npt.NDArray[np.bool_], column: str, why: str) -> None:
        new = rows & ~bad
        found.extend((int(i), column, why) for i in np.flatnonzero(new))
        bad[new] = True

    for column in TEXT:
        length = pc.utf8_length(table[column].fill_null("")).to_numpy(zero_copy_only=False)
        mark(length == 0, column, "empty")
        mark(length > MAX_TEXT, column, f"longer than {MAX_TEXT} characters")
    for column in (c for c in OPTIONAL if c in table.column_names):
        length = pc.utf8_length(table[column].fill_null("")).to_numpy(zero_copy_only=False)
        mark(length > MAX_TEXT, column, f"longer than {MAX_TEXT} characters")
    time, wrong_time = _time(table["time"])
    mark(wrong_time, "time", "not an ISO 8601 instant with its zone")
    seat_text = table["seat"]
    seat_ok = pc.match_substring_regex(seat_text, r"^[0-9]{1,2}$").fill_null(False)
    seat = pc.cast(pc.if_else(seat_ok, seat_text, "0"), pa.int64()).to_numpy(zero_copy_only=False)
    mark(
        ~seat_ok.to_numpy(zero_copy_only=False) | (seat < 1) | (seat > MAX_SEAT),
        "seat",
        f"not a seat 1..{MAX_SEAT}",
    )
    cards = {}
    for column, count in CARDS.items():
        cards[column], wrong = _cards(table[column], count)
        if column == "hole":
            wrong |= table[column].is_null().to_numpy(zero_copy_only=False)
        mark(wrong, column, f"not {count} card{'s' * (count > 1)} like 'As'")
    action = table["action"].fill_null("")
    mark(
        ~pc.is_in(action, pa.array(ACTIONS)).to_numpy(zero_copy_only=False),
        "action",
        "neither call nor fold",
    )
    status = table["status"].fill_null("")
    mark(
        ~pc.is_in(status, pa.array(STATUSES)).to_numpy(zero_copy_only=False),
        "status",
        "neither settled nor void",
    )
    amounts = {}
    for column in AMOUNTS:
        amounts[column], wrong = _amount(table[column])
        mark(wrong, column, "not an integer amount from 0 to 2^53 - 1")
    for index, column, why in sorted(found):
        value = table[column][index].as_py()
        shown = "" if value is None else str(value)[:MAX_TEXT]
        when = None if wrong_time[index] else int(time[index])
        yield Malformed(file, int(number[index]), column, shown, why, when)
    keep = ~bad
    if not keep.any():
        return

    def text(column: str) -> npt.NDArray[np.object_]:
        values: npt.NDArray[np.object_] = table[column].to_numpy(zero_copy_only=False)[keep]
        return values

    yield Rows(
        file=file,
        row=number[keep],
        table=text("table"),
        round=text("round"),
        build=text("build"),
        time=time[keep],
        seat=seat[keep],
        cards={c: v[keep] for c, v in cards.items()},
        call_made=(action.to_numpy(zero_copy_only=False) == "call")[keep],
        void=(status.to_numpy(zero_copy_only=False) == "void")[keep],
        amounts={c: v[keep] for c, v in amounts.items()},
        groups={c: text(c) for c in OPTIONAL if c in table.column_names},
    )
