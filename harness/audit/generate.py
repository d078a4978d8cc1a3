"""Round logs of any size, fast, for benchmarks and scale tests (docs/audit.md, Logs to
test with): rounds dealt from a seed, each seat deciding by a coin, settled by the
audit's arrays (harness/audit/settle.py, held equal to the rules oracle by
tests/test_audit.py), written as Parquet, CSV or JSON Lines in batches.

    python -m harness.audit.generate OUT.parquet --rows 1000000 [--seats 3] [--seed 1] [--days 30]

A log from the reference game itself (`python -m harness.reference --log FILE`) is the
one a test of the audit's correctness uses; this one is for size.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from harness.audit.log import Labels, Rows
from harness.audit.settle import Payouts, owed
from harness.defaults import DEFAULT_PROFILE
from harness.rules.cards import FULL_DECK
from harness.rules.profiles import Profile, load_profile

CARD_TEXT = np.array([str(c) for c in FULL_DECK], dtype="U2")
START = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z, in microseconds
BATCH_ROUNDS = 200_000


def _text(cards: npt.NDArray[np.int16]) -> npt.NDArray[np.str_]:
    """Each row's cards as one string (`AsKd`)."""
    parts = CARD_TEXT[cards]
    out = parts[:, 0]
    for k in range(1, parts.shape[1]):
        out = np.char.add(out, parts[:, k])
    return out


def batch(
    profile: Profile,
    rounds: int,
    seats: int,
    first: int,
    draw: np.random.Generator,
    spacing: int = 1_000_000,
) -> pa.Table:
    """`rounds` rounds of `seats` seats, numbered from `first`, one row a seat, a round
    every `spacing` microseconds."""
    need = 2 * seats + 7
    deals = np.argsort(draw.random((rounds, 52)), axis=1)[:, :need].astype(np.int16)
    n = rounds * seats
    per_round = np.repeat(np.arange(rounds), seats)
    seat = np.tile(np.arange(1, seats + 1), rounds)
    hole = np.stack([deals[per_round, 2 * (seat - 1)], deals[per_round, 2 * seat - 1]], axis=1)
    shared = deals[per_round, 2 * seats :]
    cards = {"hole": hole, "dealer": shared[:, 0:2], "flop": shared[:, 2:5],
             "turn": shared[:, 5:6], "river": shared[:, 6:7]}  # fmt: skip
    ante = draw.choice(np.array([100, 250, 1000], np.int64), n)
    aa = (
        np.where(draw.random(n) < 0.3, 100, 0)
        if profile.aa_table is not None
        else np.zeros(n, np.int64)
    )
    call_made = draw.random(n) < 0.75
    number = first + per_round
    table = Labels(per_round % 4, [f"t{k}" for k in range(4)])
    rows = Rows(
        file="",
        row=np.arange(n, dtype=np.int64),
        table=table,
        round=pa.array(number.astype(str)),
        round_no=per_round,
        build=Labels(np.zeros(n, np.int64), ["generated"]),
        time=START + number * spacing,
        seat=seat,
        cards=cards,
        call_made=call_made,
        void=np.zeros(n, bool),
        amounts={"ante": ante, "call": np.zeros(n, np.int64), "aa_bonus": aa.astype(np.int64)},
        groups={},
    )
    due = owed(Payouts.of(profile), rows)
    return pa.table(
        {
            "table": pa.array(table.values).take(table.codes),
            "round": rows.round,
            "time": pa.array(rows.time, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            "build": pa.array(np.full(n, "generated")),
            "seat": pa.array(seat, pa.int64()),
            **{c: pa.array(_text(v)) for c, v in cards.items()},
            "action": pa.array(np.where(call_made, "call", "fold")),
            "ante": pa.array(ante),
            "call": pa.array(due.call),
            "aa_bonus": pa.array(aa.astype(np.int64)),
            "ante_returned": pa.array(due.ante_returned),
            "call_returned": pa.array(due.call_returned),
            "aa_bonus_returned": pa.array(due.aa_bonus_returned),
            "status": pa.array(np.full(n, "settled")),
        }
    )


def generate(
    path: Path,
    rows: int,
    seats: int = 3,
    seed: int = 2026,
    profile: Profile | None = None,
    days: int = 30,
) -> int:
    """Write a log of about `rows` rows (whole rounds) over `days` days (the drift check
    reads a week at least); the rows written."""
    profile = profile or load_profile(DEFAULT_PROFILE)
    draw = np.random.default_rng(seed)
    rounds = max(rows // seats, 1)
    spacing = max(days * 86_400_000_000 // rounds, 1)
    kind = path.suffix.lower()
    written = 0
    writer = None
    try:
        for first in range(0, rounds, BATCH_ROUNDS):
            table = batch(profile, min(BATCH_ROUNDS, rounds - first), seats, first, draw, spacing)
            if kind == ".parquet":
                writer = writer or pq.ParquetWriter(path, table.schema)
                writer.write_table(table)
            elif kind == ".csv":
                table = table.set_column(2, "time", pa.array(_iso(table["time"])))
                writer = writer or pacsv.CSVWriter(path, table.schema)
                writer.write_table(table)
            else:
                with path.open("a" if first else "w", encoding="utf-8") as file:
                    for record in table.to_pylist():
                        record["time"] = record["time"].isoformat().replace("+00:00", "Z")
                        file.write(_json(record))
            written += table.num_rows
    finally:
        if writer is not None:
            writer.close()
    return written


def _iso(column: pa.ChunkedArray) -> list[str]:
    return [t.isoformat().replace("+00:00", "Z") for t in column.to_pylist()]


def _json(record: dict[str, object]) -> str:
    import json

    return json.dumps(record, separators=(",", ":")) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.audit.generate", description=__doc__)
    parser.add_argument("out", type=Path, help="the log to write (.parquet, .csv or .jsonl)")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seats", type=int, default=3, choices=range(1, 8))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--profile", default=DEFAULT_PROFILE)
    parser.add_argument("--days", type=int, default=30, help="the days the log spans")
    args = parser.parse_args(argv)
    profile = load_profile(args.profile)
    written = generate(args.out, args.rows, args.seats, args.seed, profile, args.days)
    print(f"wrote {written:,} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
