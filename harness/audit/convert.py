"""A round log in CSV or JSON Lines converted to one Parquet file, which later audits
read at Parquet's rate (docs/audit.md, Speed): CSV's and JSON's text is parsed once,
not at every audit.

Nothing is judged here and no value is changed: a column is written as integers (the
seat, the amounts) or as a UTC timestamp (the time) only where every value of the whole
log reads so by the audit's own rules (harness/audit/log.py: the same digits, the same
instants); a column with one value that does not is written as the text it is, so the
audit of the Parquet file finds every malformed row the source's audit finds. The text
columns a log repeats are dictionary-encoded. The rows keep their order; a finding's
row is then the Parquet file's row. A line the readers cannot take apart (a CSV row of
another number of fields, a JSON line that is not an object) cannot be a row: it is
named, and left out.

Two passes over the log: the first decides each column's type, the second writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.atomic import atomic_path
from harness.audit.log import (
    AMOUNTS,
    BATCH_ROWS,
    COLUMNS,
    DICTIONARY,
    OPTIONAL,
    Malformed,
    _tables,
    _text,
    _time,
)

ROW_GROUP = 1_000_000  # rows a row group holds: a piece of the log's, for `--jobs`
DIGITS = {"seat": 2} | dict.fromkeys(AMOUNTS, 16)  # as harness/audit/log.py reads them
TIMESTAMP = pa.timestamp("us", tz="UTC")


@dataclass(frozen=True)
class Conversion:
    """What a conversion wrote: its rows, and the lines it could not take apart."""

    rows: int
    left_out: list[Malformed]
    typed: list[str]  # the columns written as integers or a timestamp, not text


def convert(
    files: list[Path], out: Path, progress: Callable[[int], None] = lambda _: None
) -> Conversion:
    """The log's `files`, in order, as the one Parquet file `out` (written whole or not
    at all)."""
    typed = _typed_columns(files)
    present = _present(files)
    schema = pa.schema([
        (c, TIMESTAMP if c == "time" and c in typed else pa.int64() if c in typed else pa.string())
        for c in present
    ])  # fmt: skip
    rows, left_out, waiting = 0, list[Malformed](), list[pa.Table]()
    with atomic_path(out) as temporary:
        writer = pq.ParquetWriter(
            temporary, schema, use_dictionary=[c for c in present if c in DICTIONARY]
        )
        try:
            for table in _rows(files, left_out):
                waiting.append(_cast(table, schema))
                if sum(t.num_rows for t in waiting) >= ROW_GROUP:
                    rows += _write(writer, waiting)
                    progress(rows)
            rows += _write(writer, waiting)
        finally:
            writer.close()
    return Conversion(rows, left_out, [c for c in present if c in typed])


def _present(files: list[Path]) -> list[str]:
    """The log's columns a conversion writes: the contract's, and the optional ones any
    file holds."""
    seen: set[str] = set()
    for table in _rows(files, [], first_only=True):
        seen.update(table.column_names)
    return [*COLUMNS, *(c for c in OPTIONAL if c in seen)]


def _rows(
    files: list[Path], left_out: list[Malformed], first_only: bool = False
) -> Iterator[pa.Table]:
    """Each file's tables of rows, in order (the lines it cannot take apart put in
    `left_out`); with `first_only`, each file's first."""
    for path in files:
        for item in _tables(path, BATCH_ROWS):
            if isinstance(item, Malformed):
                left_out.append(item)
                continue
            yield item
            if first_only:
                break


def _typed_columns(files: list[Path]) -> set[str]:
    """The columns every value of the log reads as the audit's integers or instants."""
    typed = {"time", *DIGITS}
    for table in _rows(files, []):
        for column in sorted(typed):
            if column not in table.column_names:
                continue
            values = _text(table[column].combine_chunks())  # CSV's and JSON's: text
            if column == "time":
                _, wrong = _time(values)
                fits = not (wrong & ~values.is_null().to_numpy(zero_copy_only=False)).any()
            else:
                matched = pc.match_substring_regex(values, f"^[0-9]{{1,{DIGITS[column]}}}$")
                fits = pc.all(matched).as_py() is not False  # None: every value null
            if not fits:
                typed.discard(column)
    return typed


def _cast(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A table of the log's rows in the conversion's types (a column a file lacks: all
    null)."""
    columns = []
    for field in schema:
        if field.name not in table.column_names:
            columns.append(pa.nulls(table.num_rows, field.type))
            continue
        values = _text(table[field.name].combine_chunks())
        if field.type == TIMESTAMP:
            micros, wrong = _time(values)  # wrong: null, every other value an instant
            values = pa.array(micros, pa.int64(), mask=wrong).cast(TIMESTAMP)
        elif field.type == pa.int64():
            values = values.cast(pa.int64())
        columns.append(values)
    return pa.Table.from_arrays(columns, schema=schema)


def _write(writer: pq.ParquetWriter, waiting: list[pa.Table]) -> int:
    """The tables waiting written as one row group; how many rows."""
    if not waiting:
        return 0
    table = pa.concat_tables(waiting)
    waiting.clear()
    writer.write_table(table, row_group_size=ROW_GROUP)
    return int(table.num_rows)
