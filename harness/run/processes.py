"""Process hygiene: nothing a run starts outlives it (docs/robustness.md).

Each game runs in a session of its own, and its adapter kills the whole process
group on a fault, a restart and at the end (adapters/subprocess.py). The command
line adds a net under that: for the length of a run chcert is the *child
subreaper* of everything it starts (Linux `prctl`), so a process whose parent
died (the helper of a game that was killed, the games of a worker that crashed)
is adopted by chcert instead of init, and when the run ends every descendant
still alive is killed. Elsewhere than on Linux the net is absent and the
adapters' own cleanup is all there is.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37


@dataclass(frozen=True)
class Process:
    pid: int
    ppid: int
    session: int
    state: str  # "Z": a zombie, dead and not yet waited for


def process_table() -> list[Process]:
    """Every process this user can see (Linux /proc), or none where there is no /proc."""
    table = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        # pid (comm) state ppid pgrp session ...: comm may hold spaces and parentheses
        fields = stat[stat.rindex(")") + 2 :].split()
        table.append(Process(int(entry.name), int(fields[1]), int(fields[3]), fields[0]))
    return table


def descendants(root: int, table: list[Process], spared: frozenset[int]) -> list[int]:
    """The processes below `root`, leaving out the subtrees of the `spared` ones."""
    children: dict[int, list[int]] = {}
    for proc in table:
        children.setdefault(proc.ppid, []).append(proc.pid)
    found, todo = [], [p for p in children.get(root, []) if p not in spared]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _prctl(option: int, value: int = 0) -> int:
    """prctl(2) through libc; -1 where there is none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return -1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return -1
    if option == PR_GET_CHILD_SUBREAPER:
        flag = ctypes.c_int(0)
        return int(flag.value) if libc.prctl(option, ctypes.byref(flag), 0, 0, 0) == 0 else -1
    return int(libc.prctl(option, value, 0, 0, 0))


class Reaper:
    """What a run started: its processes, less those alive before it (a test suite's)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.spared = frozenset(descendants(self.pid, process_table(), frozenset()))

    def started(self) -> list[int]:
        return descendants(self.pid, process_table(), self.spared)

    def interrupt_workers(self) -> None:
        """Ctrl-C, as a terminal would send it, to the run's processes in chcert's own
        session (its test workers; games run in sessions of their own)."""
        table = {p.pid: p for p in process_table()}
        session = os.getsid(0)
        for pid in self.started():
            if pid in table and table[pid].session == session:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGINT)

    def reap_adopted(self) -> None:
        """Wait for the dead processes chcert adopted: its children in a session neither
        its own (its test workers) nor their own (its games, each a session leader), so
        the helpers of killed games, orphaned to chcert. Their owners wait for the others."""
        own = os.getsid(0)
        for proc in process_table():
            if proc.ppid == self.pid and proc.state == "Z" and proc.session not in (own, proc.pid):
                with contextlib.suppress(OSError):
                    os.waitpid(proc.pid, os.WNOHANG)

    def end_all(self) -> list[int]:
        """Kill every process the run started that is still alive; their pids."""
        ended: list[int] = []
        for _ in range(5):  # again, in case one forked while the others were being killed
            alive = self.started()
            if not alive:
                break
            for pid in alive:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            _wait_for(alive, 2.0)
            ended += alive
        return ended


def _wait_for(pids: list[int], seconds: float) -> None:
    """Reap those of `pids` that are chcert's children once they die, for `seconds` at most
    (one that cannot die, stuck in the kernel, is not waited for longer)."""
    pending, give_up = set(pids), time.monotonic() + seconds
    while pending and time.monotonic() < give_up:
        for pid in list(pending):
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    pending.discard(pid)
            except ChildProcessError:  # not chcert's child, or already reaped
                pending.discard(pid)
        if pending:
            time.sleep(0.01)


@contextlib.contextmanager
def nothing_outlives() -> Iterator[Reaper]:
    """For the length of the block: chcert adopts orphans, and at its end every process
    started within it and still alive is killed."""
    reaper = Reaper()
    before = _prctl(PR_GET_CHILD_SUBREAPER)
    if before == 0:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    stop = threading.Event()

    def reap() -> None:  # adopted processes die as games are restarted: no zombies pile up
        while not stop.wait(1.0):
            reaper.reap_adopted()

    reaping = threading.Thread(target=reap, daemon=True, name="chcert-reaper")
    reaping.start()
    try:
        yield reaper
    finally:
        stop.set()
        reaping.join()
        reaper.end_all()
        if before == 0:
            _prctl(PR_SET_CHILD_SUBREAPER, 0)
