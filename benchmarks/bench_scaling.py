"""How a certification run scales: the differential budget, workers, hosts, harness vs game.

Run on demand (not a test), on a quiet machine, with the venv's python:

    python3 benchmarks/bench_scaling.py [--budgets 50000,200000] [--modes n1,n2,socket]
                                        [--instant-budgets 200000] [--instant-modes n1,n2]
                                        [--plain-reference] [--max-foreign F] [--retries N]

Every run is `chcert certify --seed 7 -k differential --differential N` of the bundled
reference game, whose verdict is INCOMPLETE (exit 2) because of the selection; a run
with another exit code, a differential that is not `pass` or fewer seat-hands than the
budget is reported as a failure. The modes are `n1` (`-n 1`), `n2` (`-n 2`) and
`socket`: two execnet socket gateways on this host, each `python -m
execnet.script.socketserver 127.0.0.1:PORT` started by this script with this python in
a temporary working directory of its own, fresh for every run (a server runs the
worker in its own process and keeps what it imported for the next run), then
`--tx socket=127.0.0.1:P1 --tx socket=127.0.0.1:P2`; the servers are terminated and
waited for after the run. The defaults take about 3 minutes on 2 cores; `--budgets
50000,200000,500000,1000000` about 16, and `--instant-budgets 200000,1000000` 5 more.

The game runs as `subprocess:/usr/bin/time -f '%e %U %S' -a -o FILE PYTHON -m
harness.reference --profile standard`: the command the `reference` adapter starts
(harness/adapters/subprocess.py `reference_command`), speaking the same JSON Lines,
wrapped so that each game process appends its CPU seconds to FILE when it exits.
`--plain-reference` runs `--adapter reference` itself instead (no game CPU then).

Printed for each run, one line:

* `wall`: seconds from starting certify to its exit, start-up and outputs included;
* `wall rate`: seat-hands compared (results.json `differential.seat_hands`) per
  second of wall time;
* `shard rate`: results.json `differential.seat_hands_per_second`, the seat-hands over
  the seconds of the four shards summed: the throughput of one worker while it plays;
* `cpu`: CPU seconds (user + system) of everything the run started: this script's
  `getrusage(RUSAGE_CHILDREN)` before and after the run, which counts certify, its
  workers and the game processes (each waited for by its parent) and, for `socket`,
  the two servers and the workers inside them (checked against /proc/PID/stat sampled
  every 20 ms over the process tree: within 1%);
* `game`: the CPU seconds the game processes reported through /usr/bin/time, summed
  (the controller's own connection, which only says hello, included); `harness` is
  `cpu` minus `game`; `us/sh` figures are those per seat-hand, in microseconds;
* `load`: the 1-minute load average before the run; `foreign`: CPU seconds the
  machine spent on processes other than this run's while it ran (/proc/stat busy
  time minus `cpu`), divided by the wall time: 0.00 on a quiet machine, 1.00 when
  another process took a whole core. A run above `--max-foreign` (default 0.10) is
  repeated, up to `--retries` times (default 2), and the least disturbed one kept.

Then, per mode, least-squares fits over the budgets: wall = a + b*N (a: fixed
start-up, s; b: seconds per seat-hand, shown in microseconds, and 1/b, the marginal
seat-hands/s), and the same for the harness's and the game's CPU seconds.

Last the ceiling, for each `--instant-budgets` N (default 200000; 0 skips it): a run
with `-n 0` records every reply of the reference (benchmarks/instant_game.py
`record`, into a temporary transcript), then a run per `--instant-modes` mode
replays them (`subprocess:PYTHON benchmarks/instant_game.py replay TRANSCRIPT`,
itself wrapped in /usr/bin/time): a game whose replies cost next to nothing, so the
figures are the harness's own ceiling. The replay answers a request only with the
reference's reply to the identical request, so its differential must pass.

Rates are also given per ref: seat-hands per time the reference workload takes
(benchmarks/reference_workload.py, timed before and after the runs), which travel
between machines. Each run's exact command is printed above its figures (`OUT` for its
temporary output folder, ports as they were); `--keep DIR` keeps the outputs and
transcripts there instead.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reference_workload import Reference

HERE = Path(__file__).resolve().parent
TIME = "/usr/bin/time"
HZ = os.sysconf("SC_CLK_TCK")
MODES = ("n1", "n2", "socket")
SEED = "7"


@dataclass
class Run:
    """One certify run and what it measured."""

    label: str
    mode: str
    budget: int
    command: str
    rc: int = -1
    wall: float = 0.0
    cpu: float = 0.0
    game: float | None = None
    game_processes: int = 0
    load: float = 0.0
    foreign: float = 0.0  # other processes' CPU seconds per wall second
    differential: dict[str, Any] = field(default_factory=dict)
    problem: str = ""

    @property
    def seat_hands(self) -> int:
        return int(self.differential.get("seat_hands", 0))

    @property
    def harness(self) -> float | None:
        return None if self.game is None else self.cpu - self.game


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy since boot (/proc/stat, all cores)."""
    with open("/proc/stat") as file:
        fields = [int(x) for x in file.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / HZ  # guest time is already in user


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Gateways:
    """Two execnet socket servers on this host, each in a temporary directory of its own."""

    def __init__(self, count: int = 2) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.dirs: list[str] = []
        self.ports: list[int] = []
        for _ in range(count):
            workdir = tempfile.mkdtemp(prefix="bench-scaling-gateway-")
            port = free_port()
            with open(Path(workdir, "server.log"), "wb") as log:
                proc = subprocess.Popen(
                    [
                        sys.executable,
                        "-u",
                        "-m",
                        "execnet.script.socketserver",
                        f"127.0.0.1:{port}",
                    ],
                    cwd=workdir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            self.procs.append(proc)
            self.dirs.append(workdir)
            self.ports.append(port)
        for proc, workdir in zip(self.procs, self.dirs, strict=True):
            self._wait_listening(proc, Path(workdir, "server.log"))

    @staticmethod
    def _wait_listening(proc: subprocess.Popen[bytes], log: Path) -> None:
        """Until the server prints that it accepts (connecting would use up a session)."""
        deadline = time.monotonic() + 20
        while b"Entering Accept loop" not in log.read_bytes():
            if proc.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"socket server did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.05)

    def specs(self) -> list[str]:
        return [arg for port in self.ports for arg in ("--tx", f"socket=127.0.0.1:{port}")]

    def stop(self) -> None:
        """Terminate the servers and wait for them, so their CPU counts in RUSAGE_CHILDREN."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for workdir in self.dirs:
            shutil.rmtree(workdir, ignore_errors=True)


def game_adapter(game: list[str], cpu_file: Path) -> str:
    """The game's command wrapped by /usr/bin/time, appending its CPU seconds to cpu_file."""
    timed = [TIME, "-f", "%e %U %S", "-a", "-o", str(cpu_file), *game]
    return "subprocess:" + shlex.join(timed)


def reference_game() -> list[str]:
    """What adapter `reference` starts (harness/adapters/subprocess.py reference_command)."""
    return [sys.executable, "-m", "harness.reference", "--profile", "standard"]


def instant_game(mode: str, transcript: Path) -> list[str]:
    return [sys.executable, str(HERE / "instant_game.py"), mode, str(transcript)]


def mode_args(mode: str, gateways: Gateways | None) -> list[str]:
    if mode == "socket":
        assert gateways is not None
        return gateways.specs()
    return ["-n", mode.removeprefix("n")]


def certify(
    label: str, mode: str, budget: int, adapter: str, keep: Path | None, cpu_file: Path | None
) -> Run:
    """One run of certify, measured."""
    out = Path(tempfile.mkdtemp(prefix="bench-scaling-", dir=keep))
    gateways = Gateways() if mode == "socket" else None
    argv = [sys.executable, "-m", "harness.cli", "certify", "--seed", SEED]
    argv += ["-k", "differential", "--differential", str(budget), "--adapter", adapter]
    argv += [*mode_args(mode, gateways), "--out", str(out)]
    shown = shlex.join(argv).replace(str(out), "OUT")
    run = Run(label, mode, budget, shown)
    if cpu_file is not None and cpu_file.exists():
        cpu_file.unlink()
    run.load = os.getloadavg()[0]
    cpu0, busy0 = children_cpu(), machine_busy()
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True)
        run.wall = time.perf_counter() - t0
    finally:
        if gateways is not None:
            gateways.stop()
    run.cpu = children_cpu() - cpu0
    run.foreign = max(0.0, machine_busy() - busy0 - run.cpu) / run.wall
    run.rc = proc.returncode
    if cpu_file is not None and cpu_file.exists():
        lines = [line.split() for line in cpu_file.read_text().splitlines() if line.strip()]
        # a line "Command exited with non-zero status N" may precede a process's figures
        figures = [fields for fields in lines if len(fields) == 3]
        run.game = sum(float(user) + float(system) for _, user, system in figures)
        run.game_processes = len(figures)
    results = out / "results.json"
    if results.exists():
        run.differential = json.loads(results.read_text())["differential"]
    if run.rc != 2:
        run.problem = f"exit {run.rc}: {(proc.stdout + proc.stderr)[-1500:]}"
    elif run.differential.get("status") != "pass" or run.seat_hands < budget:
        run.problem = (
            f"differential {run.differential.get('status')}, {run.seat_hands} seat-hands, "
            f"{run.differential.get('disagreeing_seat_hands')} disagreeing"
        )
    if keep is None:
        shutil.rmtree(out, ignore_errors=True)
    return run


def measured(args: argparse.Namespace, label: str, mode: str, budget: int, game: list[str]) -> Run:
    """A run, repeated while another process disturbs it (foreign CPU above the bound)."""
    cpu_file = Path(tempfile.mkstemp(prefix="bench-scaling-game-cpu-")[1])
    adapter = "reference" if args.plain_reference else game_adapter(game, cpu_file)
    if args.plain_reference and game != reference_game():
        adapter = "subprocess:" + shlex.join(game)
    best: Run | None = None
    try:
        for attempt in range(1 + args.retries):
            run = certify(label, mode, budget, adapter, args.keep, cpu_file)
            if attempt == 0:
                print(f"$ {run.command}", flush=True)
            show(run, attempt)
            if best is None or run.foreign < best.foreign:
                best = run
            if run.foreign <= args.max_foreign or run.problem:
                break
    finally:
        cpu_file.unlink(missing_ok=True)
    assert best is not None
    return best


REFERENCE = Reference()  # timed before and after the runs (benchmarks/reference_workload.py)


def show(run: Run, attempt: int) -> None:
    n = run.seat_hands or 1
    game = "game    -   " if run.game is None else f"game {run.game:6.1f} s"
    harness = "" if run.harness is None else f"harness {run.harness:6.1f} s"
    per = ""
    if run.game is not None and run.harness is not None:
        per = f" ({run.harness / n * 1e6:5.0f} / {run.game / n * 1e6:4.0f} us/sh)"
    again = f"  [repeat {attempt}]" if attempt else ""
    print(
        f"{run.label:9} {run.budget:>9,} sh  wall {run.wall:6.1f} s  "
        f"wall rate {run.seat_hands / run.wall if run.wall else 0:6,.0f}/s  "
        f"shard rate {run.differential.get('seat_hands_per_second', 0):6,.0f}/s "
        f"= {REFERENCE.per_ref(run.differential.get('seat_hands_per_second', 0)):6,.0f}/ref  "
        f"cpu {run.cpu:6.1f} s  {harness}  {game}{per}  "
        f"load {run.load:4.2f}  foreign {run.foreign:4.2f}{again}",
        flush=True,
    )
    if run.problem:
        print(f"  FAILED: {run.problem}", flush=True)


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least squares y = a + b*x."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx
    return my - b * mx, b


def show_fits(runs: list[Run]) -> None:
    fitted = False
    for label in dict.fromkeys(r.label for r in runs):
        mine = [r for r in runs if r.label == label and not r.problem]
        if len({r.budget for r in mine}) < 2:
            continue
        if not fitted:
            print("\nfits over the budgets: y = a + b*N (a in s, b in us per seat-hand)")
            fitted = True
        parts = []
        for name in ("wall", "harness", "game"):
            values = [getattr(r, name) for r in mine]
            if None in values:
                continue
            a, b = fit([(r.seat_hands, v) for r, v in zip(mine, values, strict=True)])
            extra = (
                f" = {1 / b:,.0f} sh/s = {REFERENCE.per_ref(1 / b):,.0f} sh/ref"
                if name == "wall" and b > 0
                else ""
            )
            parts.append(f"{name} {a:5.1f} s + {b * 1e6:5.1f} us/sh{extra}")
        print(f"  {label:9} " + ";  ".join(parts))


def markdown(runs: list[Run]) -> None:
    print(
        "\n| run | seat-hands | wall s | seat-hands/s (wall) | seat-hands/s per shard "
        "| seat-hands per ref, per shard | harness CPU s | game CPU s | load | foreign |"
    )
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in runs:
        harness = "-" if r.harness is None else f"{r.harness:.1f}"
        game = "-" if r.game is None else f"{r.game:.1f}"
        bad = " FAILED" if r.problem else ""
        print(
            f"| {r.label}{bad} | {r.seat_hands:,} | {r.wall:.1f} | "
            f"{r.seat_hands / r.wall:,.0f} | "
            f"{r.differential.get('seat_hands_per_second', 0):,.0f} | "
            f"{REFERENCE.per_ref(r.differential.get('seat_hands_per_second', 0)):,.0f} | "
            f"{harness} | {game} | "
            f"{r.load:.2f} | {r.foreign:.2f} |"
        )


def label(mode: str) -> str:
    return "2 sockets" if mode == "socket" else f"-n {mode.removeprefix('n')}"


def budgets(text: str) -> list[int]:
    try:
        values = [int(v.replace("_", "")) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a comma-separated list of integers") from None
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r}: budgets are 0 or more")
    return [v for v in values if v > 0]


def modes(text: str) -> list[str]:
    values = [v.strip() for v in text.split(",") if v.strip()]
    unknown = [v for v in values if v not in MODES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown mode {unknown[0]!r}; use {', '.join(MODES)}")
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--budgets",
        type=budgets,
        default=[50_000, 200_000],
        help="differential budgets, seat-hands (default 50000,200000; the full set: "
        "50000,200000,500000,1000000)",
    )
    parser.add_argument(
        "--modes", type=modes, default=list(MODES), help="n1, n2, socket (default all)"
    )
    parser.add_argument(
        "--instant-budgets",
        type=budgets,
        default=[200_000],
        help="budgets of the instant-game ceiling (default 200000; 0: none)",
    )
    parser.add_argument(
        "--instant-modes",
        type=modes,
        default=["n1", "n2"],
        help="modes of the instant-game ceiling (default n1,n2)",
    )
    parser.add_argument(
        "--plain-reference",
        action="store_true",
        help="run --adapter reference itself, not wrapped in /usr/bin/time (no game CPU)",
    )
    parser.add_argument(
        "--max-foreign",
        type=float,
        default=0.10,
        help="repeat a run when other processes took more CPU seconds per wall second "
        "than this (default 0.10)",
    )
    parser.add_argument(
        "--retries", type=int, default=2, help="repeats of a disturbed run (default 2)"
    )
    parser.add_argument("--keep", type=Path, help="keep the outputs and transcripts here")
    args = parser.parse_args()
    if not args.plain_reference and not os.access(TIME, os.X_OK):
        sys.exit(f"{TIME} (GNU time) is needed to measure the game's CPU; or --plain-reference")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)

    REFERENCE.sample()
    print(REFERENCE.describe(), flush=True)
    print(
        f"{os.cpu_count()} cores; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        f"; python {sys.version.split()[0]}",
        flush=True,
    )
    runs = [
        measured(args, label(mode), mode, n, reference_game())
        for n in args.budgets
        for mode in args.modes
    ]
    ceiling = []
    for n in args.instant_budgets:
        folder = tempfile.mkdtemp(prefix="bench-scaling-transcript-", dir=args.keep)
        transcript = Path(folder, f"transcript-{n}.txt")
        try:
            recorded = measured(args, "record", "n0", n, instant_game("record", transcript))
            if recorded.problem or not transcript.exists():
                print("  the recording failed: no ceiling at this budget", flush=True)
                continue
            size = transcript.stat().st_size
            print(f"  transcript: {size / 1e6:,.0f} MB", flush=True)
            for mode in args.instant_modes:
                game = instant_game("replay", transcript)
                ceiling.append(measured(args, f"instant {label(mode)}", mode, n, game))
        finally:
            if args.keep is None:
                shutil.rmtree(folder, ignore_errors=True)

    REFERENCE.sample()
    print(REFERENCE.describe(), flush=True)
    show_fits(runs)
    show_fits(ceiling)
    markdown(runs + ceiling)
    if any(r.problem for r in runs + ceiling):
        sys.exit("some runs failed (above)")


if __name__ == "__main__":
    main()
