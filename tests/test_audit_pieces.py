"""A log cut into pieces (harness/audit/pieces.py): judged apart, in processes or on a
Dask cluster, merged into what one pass over the whole log finds (docs/audit.md, Speed
and Beyond one machine)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness.audit import pieces
from harness.audit.log import Rows, read_log
from harness.audit.run import SPILL_REMOVAL
from harness.cli import main
from tests.test_audit import _play, _rows

ROUNDS = 300


@pytest.fixture(scope="module")
def faulty_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference game's log as Parquet in row groups of 40 rows (a round of three
    seats often straddles two), with faults that look back across pieces: a round
    settled before its table's previous one, a round id met again, a mispaid row."""
    folder = tmp_path_factory.mktemp("pieces")
    _play(folder / "log.jsonl", rounds=ROUNDS, seed=7)
    rows = _rows(folder / "log.jsonl")
    for r in rows:
        r["table"] = "t1" if int(r["round"].removeprefix("r")) % 3 else "t2"
    early = rows[0]["time"]
    for r in rows[600:603]:  # a round far into the log settled at the log's start
        r["time"] = early
    for r, first in zip(rows[750:753], rows[0:3], strict=True):  # an id met again
        r["table"], r["round"] = first["table"], first["round"]
    rows[100]["ante_returned"] += 1
    table = pa.Table.from_pylist(rows)
    times = pa.array([r["time"] for r in rows]).cast(pa.timestamp("us", tz="UTC"))
    table = table.set_column(table.schema.get_field_index("time"), "time", times)
    pq.write_table(table, folder / "log.parquet", row_group_size=40)
    return folder / "log.parquet"


def _audit(log: Path, out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """One run's exit code and audit.json (but the time it was made); the runs of a test
    write to one folder, which their commands name."""
    shutil.rmtree(out, ignore_errors=True)
    code = main(["audit", str(log), "--out", str(out), "--quiet", *args])
    data = json.loads((out / "audit.json").read_text())
    data.pop("created")
    return code, data


def _close(a: Any, b: Any, where: str = "") -> None:
    """Equal, but floats to 1e-9 (sums taken in another order)."""
    if isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), where
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{where}[{k}]")
    else:
        assert a == b, where


@pytest.mark.parametrize(("group_rows", "piece_groups"), [(40, 3), (2, 1)])
def test_a_piece_reads_the_rounds_that_begin_in_it_whole(
    faulty_log: Path, tmp_path: Path, group_rows: int, piece_groups: int
) -> None:
    """Row groups of 2 rows: a round of three seats spans two, and some pieces hold no
    round that begins in them."""
    log = tmp_path / "log.parquet"
    pq.write_table(pq.read_table(faulty_log).slice(0, 90), log, row_group_size=group_rows)
    groups = pq.ParquetFile(log).metadata.num_row_groups
    cut: list[list[int]] = []
    for start in range(0, groups, piece_groups):
        piece = range(start, min(start + piece_groups, groups))
        cut.append(
            [int(n) for r in read_log(log, groups=piece) if isinstance(r, Rows) for n in r.row]
        )
    assert [n for rows in cut for n in rows] == list(range(1, 91))
    assert all(len(rows) % 3 == 0 for rows in cut)  # whole rounds of three seats


def test_many_pieces_find_what_one_pass_finds(
    faulty_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, whole = _audit(faulty_log, tmp_path / "out", "--jobs", "1")
    assert code == 1
    found = {(f["check"], f["kind"]): f["count"] for f in whole["findings"]}
    assert found[("integrity", "time-backwards")] == 1
    assert found[("integrity", "round-repeated")] == 1
    assert sum(n for (check, _), n in found.items() if check == "settlement") == 1
    monkeypatch.setattr(pieces, "PIECE_ROWS", 100)
    assert len(pieces.pieces([faulty_log])) == 8  # 23 row groups, three a piece
    code, cut = _audit(faulty_log, tmp_path / "out", "--jobs", "1")
    assert code == 1
    _close(whole, cut)


def test_processes_and_a_dask_cluster_write_the_same_audit_json(
    faulty_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pieces, "PIECE_ROWS", 100)
    _, here = _audit(faulty_log, tmp_path / "out", "--jobs", "1")
    _, spawned = _audit(faulty_log, tmp_path / "out", "--jobs", "2")
    _, dask = _audit(faulty_log, tmp_path / "out", "--dask", "local:2")
    assert here == spawned == dask


def test_an_unreachable_scheduler_is_a_usage_error(
    faulty_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pieces, "CONNECT_TIMEOUT", "1s")
    out = str(tmp_path / "out")
    assert main(["audit", str(faulty_log), "--out", out, "--dask", "tcp://127.0.0.1:9"]) == 4
    assert main(["audit", str(faulty_log), "--out", out, "--dask", "nowhere at all"]) == 4
    assert not (tmp_path / "out").exists()
    with pytest.raises(SystemExit) as stopped:
        main(["audit", str(faulty_log), "--jobs", "0"])
    assert stopped.value.code == 4


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_among_the_logs_that_is_not_parquet_is_one_line(
    faulty_log: Path, tmp_path: Path, jobs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file cut short among a log's files: exit 4, one line naming it, no output
    written, however many processes judge the others."""
    folder = tmp_path / "log"
    folder.mkdir()
    shutil.copy(faulty_log, folder / "game-1.parquet")
    (folder / "game-2.parquet").write_bytes(faulty_log.read_bytes()[:5000])
    shutil.copy(faulty_log, folder / "game-3.parquet")
    out, spill = tmp_path / "out", tmp_path / "spill"
    spill.mkdir()
    command = ["audit", str(folder), "--out", str(out), "--spill", str(spill), "--jobs", jobs]
    assert main([*command, "--quiet"]) == 4
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "game-2.parquet: not readable as parquet" in said[0]
    assert not out.exists() and not any(spill.iterdir())


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_round_ids_files_are_deleted_once_the_audit_is_done(
    faulty_log: Path, tmp_path: Path, jobs: str
) -> None:
    spill = tmp_path / "spill"
    spill.mkdir()
    command = ["audit", str(faulty_log), "--out", str(tmp_path / "out"), "--quiet"]
    assert main([*command, "--spill", str(spill), "--jobs", jobs]) == 1
    for thread in threading.enumerate():  # deleting beside the verdict's work
        if thread.name == SPILL_REMOVAL:
            thread.join()
    assert not any(spill.iterdir())


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[str]:
    """A Dask scheduler with two workers on loopback: the one `.ci/run` started
    (CHCERT_DASK_SCHEDULER), or one of this test's own."""
    given = os.environ.get("CHCERT_DASK_SCHEDULER")
    if given:
        yield given
        return
    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or "dask"
    file = tmp_path / "scheduler.json"
    loopback = ["--host", "127.0.0.1", "--no-dashboard"]
    quiet = {"stderr": subprocess.DEVNULL}
    command = [dask, "scheduler", *loopback, "--port", "0", "--scheduler-file", str(file)]
    started = [subprocess.Popen(command, **quiet)]
    try:
        for _ in range(300):
            if file.exists() and file.stat().st_size:
                break
            time.sleep(0.1)
        worker = [dask, "worker", *loopback, "--scheduler-file", str(file), "--nthreads", "1"]
        started += [subprocess.Popen(worker, **quiet) for _ in range(2)]
        yield str(json.loads(file.read_text())["address"])
    finally:
        for process in reversed(started):
            process.terminate()
            process.wait(30)


@pytest.mark.slow
def test_a_scheduler_with_two_workers_writes_the_single_process_audit_json(
    faulty_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: str
) -> None:
    from distributed import Client

    with Client(scheduler, timeout="60s") as client:
        client.wait_for_workers(2, timeout=120)
    monkeypatch.setattr(pieces, "PIECE_ROWS", 100)
    _, here = _audit(faulty_log, tmp_path / "out", "--jobs", "1")
    _, there = _audit(faulty_log, tmp_path / "out", "--dask", scheduler)
    assert here == there


@pytest.fixture(scope="module")
def clean_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("clean")
    _play(folder / "log.jsonl", rounds=ROUNDS, seed=11)
    return _rows(folder / "log.jsonl")


def _parquet(path: Path, rows: list[dict[str, Any]], **kinds: pa.DataType) -> Path:
    table = pa.Table.from_pylist(rows)
    times = pa.array([r["time"] for r in rows]).cast(pa.timestamp("us", tz="UTC"))
    table = table.set_column(table.schema.get_field_index("time"), "time", times)
    for name, kind in kinds.items():
        index = table.schema.get_field_index(name)
        table = table.set_column(index, name, table[name].cast(kind))
    pq.write_table(table, path, row_group_size=50)
    return path


def test_rows_that_break_a_round_s_cards_or_records_are_findings_not_crashes(
    clean_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    """A calling row's flop that repeats a card (no situation exists for it), a round's
    middle row with no table (malformed: the round's other rows stay one round), a
    `round` column of large strings (as polars writes them)."""
    rows = [dict(r) for r in clean_rows]
    first_call = next(i for i, r in enumerate(rows) if r["action"] == "call")
    rows[first_call]["flop"] = "AsAsAs"
    rows[31]["table"] = None  # the middle seat of the eleventh round
    code, data = _audit(_parquet(tmp_path / "log.parquet", rows, round=pa.large_string()),
                        tmp_path / "out", "--jobs", "1")  # fmt: skip
    found = {(f["kind"], f["detail"]): f["count"] for f in data["findings"]}
    assert code == 1 and found[("card-twice", "a card dealt twice in a round")] == 1
    assert found[("malformed-row", "table")] == 1
    assert not any(kind == "round-repeated" for kind, _ in found)
    assert data["rows"]["rounds"] == ROUNDS


def test_an_empty_player_is_no_player_and_bands_pool_alike_however_cut(
    clean_rows: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, plain = _audit(_parquet(tmp_path / "plain.parquet", clean_rows), tmp_path / "out")
    anonymous = [dict(r, player="") for r in clean_rows]
    _, empty = _audit(_parquet(tmp_path / "empty.parquet", anonymous), tmp_path / "out")
    assert empty["checks"][3]["rows"] == plain["checks"][3]["rows"] > 0  # the calls read
    channels = [dict(r, channel=f"ch{int(r['round'][1:]) % 150:03d}") for r in clean_rows]
    log = _parquet(tmp_path / "channels.parquet", channels)
    seen = []
    for rows in (10**9, 100):
        monkeypatch.setattr(pieces, "PIECE_ROWS", rows)
        _, data = _audit(log, tmp_path / "out", "--jobs", "1")
        seen.append([b["value"] for b in data["bands"] if b["group"] == "channel"])
    assert seen[0] == seen[1] and len(seen[0]) == 101 and seen[0][-1] == "(other values)"


def test_the_round_ids_met_again_are_shown_as_the_log_meets_them(
    clean_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Forty round ids met again, spread over the ids' partitions: the finding counts
    them all and shows the three the log meets first, however the log is cut."""
    rows = [dict(r) for r in clean_rows]
    for r, first in zip(rows[600:720], rows[0:120], strict=True):  # rounds 200..239
        r["round"] = first["round"]
    log = _parquet(tmp_path / "log.parquet", rows)
    for jobs in ("1", "2"):
        _, data = _audit(log, tmp_path / "out", "--jobs", jobs)
        [finding] = [f for f in data["findings"] if f["kind"] == "round-repeated"]
        assert finding["count"] == 40
        assert [e["row"] for e in finding["examples"]] == [601, 604, 607]  # rows from 1
