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
from harness.rules.game import MAX_SEATS

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
            found += sorted(p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES)
        elif path.exists():
            found.append(path)
        else:
            matched = sorted(Path(p) for p in glob.glob(pattern, recursive=True))
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


def _tables(path: Path, batch_rows: int) -> Iterator[pa.Table]:
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
            names = _csv_header(path)
            _require(path, names)
            wanted = [c for c in names if c in (*COLUMNS, *OPTIONAL)]
            stream = pacsv.open_csv(
                path,
                read_options=pacsv.ReadOptions(block_size=1 << 22),
                convert_options=pacsv.ConvertOptions(
                    column_types={c: pa.string() for c in names},
                    include_columns=wanted,
                    strings_can_be_null=False,
                    null_values=[""],
                ),
            )
            for batch in stream:
                yield pa.Table.from_batches([batch])
        else:
            yield from _json_lines(path, batch_rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, UnicodeDecodeError) as exc:
        raise LogError(f"{path}: not readable as {kind}: {exc}") from exc


def _as_text(kind: pa.DataType) -> pa.DataType:
    """Every column read as text, but timestamps, which keep their instant."""
    return kind if pa.types.is_timestamp(kind) else pa.string()


def _csv_header(path: Path) -> list[str]:
    with path.open(encoding="utf-8", newline="") as file:
        return [c.strip() for c in next(csv.reader(file), [])]


def _require(path: Path, present: list[str]) -> None:
    missing = [c for c in COLUMNS if c not in present]
    if missing:
        raise LogError(f"{path}: not a round log v1: no column {', '.join(missing)}")


def _json_lines(path: Path, batch_rows: int) -> Iterator[pa.Table]:
    """JSON Lines, one object a line, each value kept as its JSON text (a string's own
    text), so that the checks below judge it as they judge CSV's. A line that is not a
    JSON object is a row of nothing: malformed. A file whose first line is an object
    without the log's columns is no round log."""
    names = (*COLUMNS, *OPTIONAL)
    columns: dict[str, list[str | None]] = {c: [] for c in names}
    with path.open(encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                record = None
            if not isinstance(record, dict):
                record = {}
            elif number == 1:
                _require(path, list(record))
            for c in names:
                value = record.get(c)
                text = value if isinstance(value, str) or value is None else json.dumps(value)
                columns[c].append(text)
            if len(columns["table"]) >= batch_rows:
                yield _json_table(columns)
                columns = {c: [] for c in names}
    if columns["table"]:
        yield _json_table(columns)


def _json_table(columns: dict[str, list[str | None]]) -> pa.Table:
    present = {c: v for c, v in columns.items() if c in COLUMNS or any(x is not None for x in v)}
    return pa.table({c: pa.array(v, pa.string()) for c, v in present.items()})


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
    text = column.fill_null("").to_numpy(zero_copy_only=False).astype(f"S{2 * count}")
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
        values = column.cast(pa.timestamp("us", tz="UTC")).cast(pa.int64())
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


def read_log(path: Path, batch_rows: int = BATCH_ROWS) -> Iterator[Rows | Malformed]:
    """A file's rows in batches of whole rounds, and its malformed rows as they come."""
    carry: pa.Table | None = None
    first = 1  # the number of the next table's first row in the file
    carried_from = 1
    for table in _tables(path, batch_rows):
        count = table.num_rows
        if carry is not None:
            table = pa.concat_tables(
                [carry, table.select(carry.column_names)], promote_options="default"
            )
            start = carried_from
        else:
            start = first
        first += count
        keys = pc.binary_join_element_wise(
            table["table"].fill_null(""), table["round"].fill_null(""), "\x1f"
        ).to_numpy(zero_copy_only=False)
        cut = _last_round_start(keys)
        carry, carried_from = table.slice(cut), start + cut
        if cut:
            yield from _checked(str(path), table.slice(0, cut), start)
    if carry is not None and carry.num_rows:
        yield from _checked(str(path), carry, carried_from)


def _last_round_start(keys: npt.NDArray[np.object_]) -> int:
    """Where the batch's last round begins: its rows may go on in the next batch."""
    last = len(keys) - 1
    while last > 0 and keys[last - 1] == keys[-1]:
        last -= 1
    return last


def _checked(file: str, table: pa.Table, start: int) -> Iterator[Rows | Malformed]:
    """The table's rows checked column by column: the malformed ones, then the others."""
    n = table.num_rows
    bad = np.zeros(n, bool)
    found: list[tuple[int, str, str]] = []  # (index, column, why), the first of each row

    def mark(rows: npt.NDArray[np.bool_], column: str, why: str) -> None:
        new = rows & ~bad
        found.extend((int(i), column, why) for i in np.flatnonzero(new))
        bad[new] = True

    for column in TEXT:
        empty = pc.equal(pc.utf8_length(table[column].fill_null("")), 0)
        mark(empty.to_numpy(zero_copy_only=False), column, "empty")
    time, wrong = _time(table["time"])
    mark(wrong, "time", "not an ISO 8601 instant with its zone")
    seat_text = table["seat"]
    seat_ok = pc.match_substring_regex(seat_text, r"^[0-9]{1,2}$").fill_null(False)
    seat = pc.cast(pc.if_else(seat_ok, seat_text, "0"), pa.int64()).to_numpy(zero_copy_only=False)
    mark(
        ~seat_ok.to_numpy(zero_copy_only=False) | (seat < 1) | (seat > MAX_SEATS),
        "seat",
        f"not a seat 1..{MAX_SEATS}",
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
        yield Malformed(file, start + index, column, "" if value is None else str(value), why)
    keep = ~bad
    if not keep.any():
        return

    def text(column: str) -> npt.NDArray[np.object_]:
        values: npt.NDArray[np.object_] = table[column].to_numpy(zero_copy_only=False)[keep]
        return values

    yield Rows(
        file=file,
        row=(start + np.arange(n, dtype=np.int64))[keep],
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
