"""A log cut into pieces that are judged apart, at once, and merged in the log's order
into exactly what one pass over the whole log gives (docs/audit.md, Speed and Beyond
one machine).

A piece is a file, or a run of a Parquet file's row groups (about PIECE_ROWS rows): its
rounds are those that begin in it, read whole (harness/audit/log.py `read_log`). The
pieces depend only on the files, never on how many processes judge them, and are always
merged in order: a run in one process, in several, or on a Dask cluster sums the same
partial tallies in the same order, so its audit.json is the same to the last digit.
Pieces cut elsewhere (another PIECE_ROWS, other row groups) find the same rows, rounds
and findings; their sums of fractions differ in the last digits (added in another
order), the examples only the merge finds come after a piece's own, and a group of the
return bands with more than MOST_GROUPS values in a piece may pool other values.

What a piece cannot see is the log before it. Its tallies are sums, which merge by
addition; three things look back across a piece's start and are settled at the merge:
  - the first hole card of consecutive rounds of a table: each piece tells its tables'
    first and last sound round's card, and the merge pairs each table's last card
    before a piece with its first in it;
  - time running backwards on a table: a piece finds the rounds settled before an
    earlier round of the piece, and tells each table's first and latest time; where a
    table's first time in a piece is before its latest time in the pieces before, the
    merge reads that piece's rounds of the table again (a log whose clock went back
    across a piece's start, which a correct log never makes) to find the rest;
  - a round id met again: each piece writes its rounds' ids to files of its own in
    the run's spill folder, read together at the end, a share of their partitions in
    each process or worker (harness/audit/ids.py).
"""

from __future__ import annotations

import collections
import ctypes
import functools
import itertools
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from harness.audit.ids import PARTITIONS
from harness.audit.judge import (
    NO_TIME,
    TIME_BACKWARDS,
    Auditor,
    Partial,
    Repeats,
    day_of,
    in_period,
    repeats,
    row_example,
)
from harness.audit.kernel import times_backwards
from harness.audit.log import Malformed, Rows, read_log
from harness.audit.returns import Moments
from harness.errors import UsageError
from harness.gamemath.census import CENSUSES, symmetry
from harness.rules.profiles import Profile
from harness.rules.table import Table

PIECE_ROWS = 1_000_000  # rows a Parquet piece holds at least (whole row groups)
CARDS = 13  # ranks, the consecutive table's side
CONNECT_TIMEOUT = "30s"  # for a Dask scheduler to answer


@dataclass(frozen=True)
class Piece:
    index: int  # its place in the log
    file: int  # its file's index among the log's
    path: str
    groups: range | None  # a Parquet file's row groups; None: the whole file

    def read(self) -> Iterator[Rows | Malformed]:
        return read_log(Path(self.path), groups=self.groups)


def pieces(files: list[Path]) -> list[Piece]:
    """The log's pieces, in order: a file each, a Parquet file's row groups cut into runs
    of about PIECE_ROWS rows."""
    out: list[Piece] = []
    for index, path in enumerate(files):
        if path.suffix.lower() != ".parquet":
            out.append(Piece(len(out), index, str(path), None))
            continue
        try:
            metadata = pq.ParquetFile(path).metadata
        except (pa.ArrowException, OSError):  # read again, and reported, by the piece
            out.append(Piece(len(out), index, str(path), None))
            continue
        start, rows = 0, 0
        for group in range(metadata.num_row_groups):
            rows += metadata.row_group(group).num_rows
            if rows >= PIECE_ROWS or group == metadata.num_row_groups - 1:
                out.append(Piece(len(out), index, str(path), range(start, group + 1)))
                start, rows = group + 1, 0
        if metadata.num_row_groups == 0:
            out.append(Piece(len(out), index, str(path), None))
    return out


@dataclass(frozen=True)
class Edge:
    """What a piece tells the pieces after it about one table."""

    first_time: int  # its first round's
    last_time: int  # its latest round's
    first_card: int  # its first sound round's first hole card, -1 if none
    last_card: int  # its last sound round's


@dataclass
class Judged:
    """A piece's tallies and its tables' edges."""

    piece: Piece
    partial: Partial
    edges: dict[str, Edge]


@dataclass(frozen=True)
class Setup:
    """What judging a piece needs, sent to each process or worker that judges one (the
    census's moments are read there, once a process)."""

    profile: Profile
    table: Table | None
    owners: dict[str, str]
    spill: str  # the run's spill folder: pieces judged elsewhere must reach it too
    since: int | None
    until: int | None
    files: tuple[str, ...]
    threads: int = 0  # the compiled evaluator's threads in each piece; 0: its default

    def auditor(self, piece: Piece) -> Auditor:
        return Auditor(
            self.profile,
            self.table,
            self.owners,
            Moments.of(self.profile),
            Path(self.spill),
            since=self.since,
            until=self.until,
            piece=piece.index,
            files={name: i for i, name in enumerate(self.files)},
        )

    def judge(self, piece: Piece, progress: Callable[[int], None] | None = None) -> Judged:
        # The system's allocator, not Arrow's own pool: one heap, reused batch after
        # batch, no larger than a batch needs (docs/audit.md, Memory).
        pa.set_memory_pool(pa.system_memory_pool())
        auditor = self.auditor(piece)
        if self.threads:  # a process of its own: it holds the moments, not their census
            numba.set_num_threads(self.threads)  # nor the symmetry tables it does not read
            CENSUSES.clear()
            symmetry.cache_clear()
        partial = Partial()
        for item in piece.read():
            auditor.judge(item, partial)
            if progress is not None:
                progress(partial.rows)
        auditor.ids.close()
        edges = {
            table: Edge(
                int(auditor.first_time[i]),
                int(auditor.last_time[i]),
                int(auditor.first_card[i]),
                int(auditor.first_hole[i]),
            )
            for table, i in auditor.table_index.items()
            if auditor.first_time[i] != NO_TIME  # a name a dictionary holds, no round
        }
        return Judged(piece, partial, edges)


@functools.cache
def keep_freed_memory() -> None:
    """The C library's allocator told to keep what is freed for the next batch, in the
    processes an audit starts and in its own (not a Dask cluster's workers, whose
    allocator the cluster sets). By default glibc hands a block of 128 kB or more (a
    batch's column is 512 kB) back to the system as soon as it is freed and maps it
    again for the next batch: a page fault every 4 kB, each some microseconds of the
    system's time (three times the faults at 10^8 rows: docs/audit.md, Memory). Where
    the library has no `mallopt` (not glibc), nothing is done."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt(M_MMAP_THRESHOLD, 1 << 30)  # blocks under 1 GB from the heap
    mallopt(M_TRIM_THRESHOLD, (1 << 31) - 1)  # the heap's free top kept, up to 2 GB


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)


def merge(setup: Setup, judged: list[Judged]) -> Partial:
    """The pieces' tallies merged in the log's order, with what looks back across each
    piece's start (this module's docstring)."""
    total = Partial()
    latest: dict[str, int] = {}  # each table's latest time so far
    last_card: dict[str, int] = {}  # each table's last sound round's first hole card
    for piece in sorted(judged, key=lambda j: j.piece.index):
        behind = {
            table: latest[table]
            for table, edge in piece.edges.items()
            if table in latest and edge.first_time < latest[table]
        }
        if behind:
            _backwards_across(setup, piece, behind)
        for table, edge in piece.edges.items():
            if edge.first_card >= 0 and table in last_card:
                before = last_card[table]
                total.cards.consecutive[(before // 4) * CARDS + edge.first_card // 4] += 1
            if edge.last_card >= 0:
                last_card[table] = edge.last_card
            if edge.last_time != NO_TIME:
                latest[table] = max(latest.get(table, edge.last_time), edge.last_time)
        total.merge(piece.partial)
    return total


def _backwards_across(setup: Setup, judged: Judged, behind: dict[str, int]) -> None:
    """The piece's rounds of the tables `behind` (each with its latest time in the
    pieces before) settled before that time, but after every earlier round of the
    piece: time-backwards rounds only the whole log shows, added to the piece's."""
    auditor = setup.auditor(judged.piece)
    key = ("integrity", "time-backwards", TIME_BACKWARDS, None)
    for item in judged.piece.read():
        if isinstance(item, Malformed):
            continue
        rows = in_period(item, setup.since, setup.until)
        if rows is None or not len(rows):
            continue
        first = np.flatnonzero(np.r_[True, rows.round_no[1:] != rows.round_no[:-1]])
        names = [rows.table[int(i)] for i in first]
        mine = np.array([name in behind for name in names], bool)
        if not mine.any():
            continue
        at = first[mine]
        index = auditor.table_indices(rows.table)[rows.table.codes[at]]
        alone = times_backwards(rows.time[at], index, auditor.last_time, auditor.first_time)
        for k, i in enumerate(at):
            name = rows.table[int(i)]
            before = behind[name]
            if not alone[k] and rows.time[i] < before:
                judged.partial.tally(key).add(
                    row_example(rows, int(i), TIME_BACKWARDS),
                    rows.build[int(i)],
                    day_of(int(rows.time[i])),
                )


def run(
    setup: Setup,
    log: list[Piece],
    jobs: int,
    dask: str | None,
    progress: Callable[[int], None],
) -> tuple[list[Judged], Repeats]:
    """Every piece judged, then the round ids they met read for those met again: here
    (`jobs` 1), here and in `jobs` - 1 other processes, or on the Dask cluster at `dask`
    (`local:N` starts one of N workers here)."""
    if dask is not None:  # the cluster's workers keep their own allocator's settings
        return _on_dask(setup, log, dask, progress)
    keep_freed_memory()
    if jobs <= 1 or len(log) == 1:
        out: list[Judged] = []
        for piece in log:
            out.append(setup.judge(piece, functools.partial(_after, progress, _rows(out))))
        return out, repeats(Path(setup.spill), range(PARTITIONS))
    return _here_and_away(setup, log, min(jobs, len(log)) - 1, progress)


def _here_and_away(
    setup: Setup, log: list[Piece], workers: int, progress: Callable[[int], None]
) -> tuple[list[Judged], Repeats]:
    """The pieces judged in this process and in `workers` others, each taking the next
    piece in the log's order as soon as it is free: this process, started already, judges
    while the others start (about a second and a half each, docs/audit.md, Speed). A
    piece that fails stops the taking; the first failure in the log's order is raised.
    Then the round ids, a share of their partitions each."""
    # Processes of their own (spawned, not forked: the parent's compiled evaluator keeps
    # threads a fork would copy half-held); one evaluator thread each, and here.
    spawn = multiprocessing.get_context("spawn")
    setup = replace(setup, threads=1)
    waiting = collections.deque(log)
    lock = threading.RLock()  # a callback added to a finished future runs at once, within
    outcomes: dict[int, Judged | BaseException] = {}
    away: dict[Future[Judged], int] = {}  # each piece sent away, by its index
    rows = [0]  # of the pieces judged, here and away

    def send(done: Future[Judged] | None = None) -> None:
        """A worker's next piece, sent as it is done with the last: one in hand each, so
        that none waits in a worker's queue while this process could take it."""
        with lock:
            if done is not None and done.exception() is not None:
                waiting.clear()
            elif done is not None:
                rows[0] += done.result().partial.rows
            if waiting:
                piece = waiting.popleft()
                try:
                    sent = pool.submit(setup.judge, piece)
                except RuntimeError as error:  # the pool broken: a worker died
                    outcomes[piece.index] = error
                    waiting.clear()
                    return
                away[sent] = piece.index
                sent.add_done_callback(send)

    with ProcessPoolExecutor(workers, mp_context=spawn, initializer=keep_freed_memory) as pool:
        try:
            for _ in range(workers):
                send()
            while True:
                with lock:
                    piece = waiting.popleft() if waiting else None
                if piece is None:
                    break
                try:
                    judged = setup.judge(piece, lambda read: progress(rows[0] + read))
                except Exception as error:  # a piece before it may yet fail first
                    with lock:
                        outcomes[piece.index] = error
                        waiting.clear()
                    continue
                with lock:
                    outcomes[piece.index] = judged
                    rows[0] += judged.partial.rows
            with lock:
                in_flight = dict(away)
            pending = set(in_flight)
            while pending:
                pending = wait(pending, return_when=FIRST_COMPLETED).not_done
                progress(rows[0])
        except BaseException:  # an interrupt: nothing more sent, the sent pieces finish
            with lock:
                waiting.clear()
            raise
        for sent, index in in_flight.items():
            failure = sent.exception()
            outcomes[index] = sent.result() if failure is None else failure
        out = _in_order(log, outcomes)
        shares = _shares(workers + 1)
        later = [pool.submit(repeats, Path(setup.spill), share) for share in shares[1:]]
        found = repeats(Path(setup.spill), shares[0])
        for share in later:
            found = found.join(share.result())
    return out, found


def _in_order(log: list[Piece], outcomes: dict[int, Judged | BaseException]) -> list[Judged]:
    """The pieces' outcomes in the log's order, the first failure raised."""
    out: list[Judged] = []
    for piece in log:
        outcome = outcomes.get(piece.index)
        if isinstance(outcome, BaseException):
            raise outcome
        if outcome is not None:
            out.append(outcome)
    return out


def _shares(count: int) -> list[range]:
    """The round ids' partitions cut into `count` runs, as even as they go."""
    cuts = [PARTITIONS * k // count for k in range(count + 1)]
    return [range(a, b) for a, b in itertools.pairwise(cuts)]


def _rows(judged: list[Judged]) -> int:
    return sum(j.partial.rows for j in judged)


def _after(progress: Callable[[int], None], before: int, rows: int) -> None:
    progress(before + rows)


def _on_dask(
    setup: Setup, log: list[Piece], address: str, progress: Callable[[int], None]
) -> tuple[list[Judged], Repeats]:
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if address.startswith("local:"):
        workers = int(address.removeprefix("local:") or os.cpu_count() or 1)
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        address = cluster.scheduler_address
    setup = replace(setup, threads=1)
    try:
        with Client(address, timeout=CONNECT_TIMEOUT) as client:
            futures = client.map(setup.judge, log, pure=False)
            judged: dict[int, Judged] = {}  # each result fetched once, as it comes
            done = 0
            for _, result in as_completed(futures, with_results=True):
                judged[result.piece.index] = result
                done += result.partial.rows
                progress(done)
            shares = _shares(len(client.scheduler_info()["workers"]) or 1)
            spill = [Path(setup.spill)] * len(shares)
            found = Repeats()
            for share in client.gather(client.map(repeats, spill, shares, pure=False)):
                found = found.join(share)
            return [judged[piece.index] for piece in log], found
    except OSError as exc:
        raise UsageError(f"--dask {address}: no Dask scheduler answers there ({exc})") from exc
    finally:
        if cluster is not None:
            cluster.close()
