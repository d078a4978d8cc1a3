"""The report's performance target, measured: a big failing run's PDF, and `chcert --help`.

Targets: `harness.report.render` lays out the report of a run with 20,000 vectors and
100 failures in under 10 s (median of --runs renders) and the PDF, results.json attached,
stays under 5 MB; `chcert --help` answers in under 0.5 s (best of 5, as a subprocess).
Exits 1 when a target is missed. Run on demand (not a test), on a quiet machine:

    python3 benchmarks/bench_report.py [--results PATH] [--runs N] [--out DIR] [--profile]

The run is the committed sample of a failing run (reports/samples/mutant/results.json, or
--results) scaled up: vector items added to 20,000, and the sample's failures copied with
other items, clauses, hands, stakes and wrongly paid wagers to 100 in about 15 causes, a
few with long messages and one with a 200 KB stderr tail. It must be valid against
results.schema.json with a consistent verdict; the PDF must be the full report (it has
Contents) with results.json attached byte for byte.

Measured: render's wall time (best, median), the PDF's size and pages, results.json's
size, render's peak memory (tracemalloc, one more render), `chcert --help`'s best time.
--out keeps the PDF and results.json; --profile shows where a render's time goes.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import gc
import json
import pstats
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from reference_workload import bracketed

from harness._schema import validator
from harness.report import render, verdict_problem
from harness.report.failures import WAGERS, group_failures
from harness.results.files import json_bytes
from harness.results.model import Results
from harness.signing.attachment import embedded_results

SAMPLE = Path(__file__).resolve().parent.parent / "reports/samples/mutant/results.json"
VECTORS, FAILURES = 20_000, 100
TARGET_SECONDS = 10.0  # render, median of --runs
TARGET_BYTES = 5_000_000  # the PDF, results.json attached
TARGET_HELP_SECONDS = 0.5  # `chcert --help`, best of 5
HELP_RUNS = 5
# What the added failures get wrong, in each failing clause: a hand, the wagers paid wrongly.
VARIANTS = [
    ("full_house", ("ante",)),
    ("straight", ("call",)),
    ("flush", ("aa_bonus",)),
    ("three_of_a_kind", ("ante", "call")),
]
STAKE_SCALES = (1, 2, 5)
LONG_MESSAGES = 3
STDERR_BYTES = 200_000
MB = 1_000_000


def _seats(value: Any, one: str = "1") -> dict[str, dict[str, Any]]:
    """The seats' settlement fields in a failure's expected or actual, by seat, in place
    (`one`: the seat of a failure recording one seat's fields)."""
    if isinstance(value, dict) and isinstance(value.get("seats"), dict):
        return dict(value["seats"])
    return {one: value} if isinstance(value, dict) and any(w in value for w in WAGERS) else {}


def _stderr(rng: random.Random) -> str:
    """A crashing game's stderr: debug lines and a traceback now and then."""
    lines: list[str] = []
    for n in range(STDERR_BYTES // 60):  # 60 characters a line, and more
        lines.append(
            f'  File "/opt/game/engine/settle.py", line {rng.randrange(40, 900)}, in settle'
            if n % 40 == 39
            else f"{n:08d} DEBUG round r{rng.randrange(10**6)} seat {rng.randrange(1, 8)} "
            f"ante={rng.choice((100, 500, 1_000))} latency={rng.random() * 3:.3f}ms"
        )
    return "\n".join(lines)


def variant(
    template: dict[str, Any], rng: random.Random, clause: str, hand: str, wagers: tuple[str, ...]
) -> tuple[dict[str, Any], list[str]]:
    """A copy of `template` in `clause`: the seats hold `hand`, stakes scaled, and the game
    pays `wagers` otherwise than the rules; and the lines saying what differs."""
    f = copy.deepcopy(template)
    scale, lines = rng.choice(STAKE_SCALES), []
    one = str(f["evidence"].get("seat", 1)) if isinstance(f["evidence"], dict) else "1"
    actual = _seats(f["actual"], one)
    for seat, want in _seats(f["expected"], one).items():
        got = actual[seat]
        for w in WAGERS:
            if isinstance(want.get(w), list):
                want[w] = [v * scale for v in want[w]]
            elif w in wagers:
                want[w] = [100 * scale, 0]
        want["hand"] = hand
        got.clear()
        got.update(copy.deepcopy(want))
        for w in wagers:
            stake, returned = want[w]
            got[w] = [stake, returned - stake if returned >= stake else returned + stake]
            lines.append(f"seat {seat} {w} {got[w]}, expected {want[w]}")
    f["clause"] = clause
    return f, lines


def scaled(sample: dict[str, Any], vectors: int, failures: int) -> dict[str, Any]:
    """`sample` (a failing run) with `vectors` vector items and `failures` failures."""
    rng = random.Random(7)
    results = copy.deepcopy(sample)
    clauses = {c["id"]: c for c in results["clauses"]}
    implementation = [c for c in clauses.values() if c["kind"] == "implementation"]
    have = sum(i["kind"] == "vector" for c in clauses.values() for i in c["items"])
    added: dict[str, list[dict[str, str]]] = {c["id"]: [] for c in implementation}
    for n in range(vectors - have):
        clause = implementation[n % len(implementation)]["id"]
        item = {"name": f"{clause}/gen-vector-{n}", "kind": "vector", "status": "pass"}
        added[clause].append({**item, "message": "", "needs": ""})
    for clause, items in added.items():
        clauses[clause]["items"] += items
        rng.shuffle(items)  # the ones popped to fail

    templates = [f for f in results["failures"] if _seats(f["expected"]) and _seats(f["actual"])]
    failing = list(dict.fromkeys(f["clause"] for f in templates if f["clause"] in added))
    if not templates or not failing:
        sys.exit("a failing run is needed, with rounds settled otherwise than the rules")
    causes = [(clause, *v) for clause in failing for v in VARIANTS]
    stderr = _stderr(rng)
    for n in range(failures - len(results["failures"])):
        clause, hand, wagers = causes[n % len(causes)]
        f, lines = variant(templates[n % len(templates)], rng, clause, hand, wagers)
        old, kind = f["item"], f["item_kind"]
        if kind == "vector" and added[clause]:
            entry = added[clause].pop()
        else:
            what = old.split("/", 1)[-1].split(":")[0]
            name = f"{clause}/{what}:{hand}-{'-'.join(wagers)}-{n}".replace("_", "-")
            entry = {"name": name, "kind": kind, "status": "fail", "message": "", "needs": ""}
            clauses[clause]["items"].append(entry)
        f["item"] = entry["name"]
        f["node"] = (f["node"] or "").replace(old, f["item"]) or None
        f["reproduce"] = f["reproduce"].replace(old, f["item"])
        f["message"] = "; ".join(lines)
        if kind != "vector":
            count = rng.randrange(3, 2_000)
            f["message"] = f"{count} seat-hand(s) settled otherwise than the rules; {lines[0]}"
        if n < LONG_MESSAGES:
            f["message"] += "; also " + "; ".join(
                f"round r{k} seat {k % 7 + 1}" for k in range(900)
            )
        if n == LONG_MESSAGES:
            f["evidence"]["stderr_tail"] = stderr
            results["implementation_stderr"] = stderr[-2_000:]
        entry.update(status="fail", message=f["message"])
        results["failures"].append(f)

    for c in implementation:
        c["vectors"] = sum(i["kind"] == "vector" for i in c["items"])
        c["checks"] = sum(i["kind"] == "check" for i in c["items"])
        c["passed"] = sum(i["status"] == "pass" for i in c["items"])
        c["failed"] = [i["name"] for i in c["items"] if i["status"] == "fail"]
        c["status"] = "fail" if c["failed"] else c["status"]
    statuses = [i["status"] for c in implementation for i in c["items"] if i["kind"] == "vector"]
    keys = {"passed": "pass", "failed": "fail", "errors": "error", "not_tested": "not_tested"}
    results["vectors"] = {"total": len(statuses)}
    results["vectors"].update({k: statuses.count(s) for k, s in keys.items()})
    return results


def pdf_pages(path: Path, data: bytes) -> int:
    """The page count; exits unless it is the full report with results.json attached."""
    reader = PdfReader(path)
    if "Contents" not in " ".join(page.extract_text() or "" for page in reader.pages[:3]):
        sys.exit(f"{path}: not the full report (no Contents): render fell back to a plainer one")
    if embedded_results(path) != data:
        sys.exit(f"{path}: results.json is not attached as given")
    return len(reader.pages)


def help_seconds() -> float:
    """Best wall time of `chcert --help` as a subprocess (the venv's script, else -m)."""
    script = shutil.which("chcert", path=str(Path(sys.executable).parent))
    command = [script, "--help"] if script else [sys.executable, "-m", "harness.cli", "--help"]
    times = []
    for _ in range(HELP_RUNS):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return min(times)


def measure(args: argparse.Namespace, results: dict[str, Any], folder: Path) -> bool:
    """Render, weigh and count the report; print the table and the targets; True if met."""
    data = json_bytes(results)  # made beforehand, as certify does
    (folder / "results.json").write_bytes(data)
    pdf, times = folder / "report.pdf", []
    for _ in range(args.runs):
        gc.collect()
        started = time.perf_counter()
        render(results, pdf, data)
        times.append(time.perf_counter() - started)
    size, pages = pdf.stat().st_size, pdf_pages(pdf, data)
    tracemalloc.start()
    render(results, folder / "report-traced.pdf", data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    best, median, helped = min(times), statistics.median(times), help_seconds()
    rows = [
        (f"render, best of {args.runs}", f"{best:.2f} s"),
        (f"render, median of {args.runs}", f"{median:.2f} s"),
        ("render, peak memory", f"{peak / MB:.0f} MB traced (process peak RSS {rss / MB:.0f} MB)"),
        ("report.pdf", f"{size / MB:.2f} MB, {pages} pages, results.json attached"),
        ("results.json", f"{len(data) / MB:.2f} MB"),
        (f"chcert --help, best of {HELP_RUNS}", f"{helped:.3f} s"),
    ]
    for label, value in rows:
        print(f"  {label:28} {value}")
    verdicts = [
        (median < TARGET_SECONDS, f"render {median:.2f} s (median) < {TARGET_SECONDS:.0f} s"),
        (size < TARGET_BYTES, f"report.pdf {size / MB:.2f} MB < {TARGET_BYTES / MB:.0f} MB"),
        (helped < TARGET_HELP_SECONDS, f"chcert --help {helped:.3f} s < {TARGET_HELP_SECONDS} s"),
    ]
    for met, what in verdicts:
        print(f"{what}: {'target met' if met else 'TARGET MISSED'}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(render, results, folder / "report-profiled.pdf", data)
        stats = pstats.Stats(profiler, stream=sys.stdout).strip_dirs()
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(20)
    return all(met for met, _ in verdicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(SAMPLE), help="a failing run's results.json")
    parser.add_argument("--runs", type=int, default=3, help="renders timed")
    parser.add_argument("--out", help="keep report.pdf and results.json in this folder")
    parser.add_argument("--profile", action="store_true", help="cProfile one more render")
    args = parser.parse_args()
    results = scaled(json.loads(Path(args.results).read_text()), VECTORS, FAILURES)
    problem = verdict_problem(results)
    assert problem is None, problem
    invalid = next(iter(validator("results.schema.json").iter_errors(results)), None)
    assert invalid is None, f"{list(invalid.absolute_path)}: {invalid.message}"
    v, failures = results["vectors"], results["failures"]
    print(
        f"scaled run: {v['total']:,} vectors ({v['failed']} failed), {len(failures)} failures "
        f"in {len(group_failures(Results.from_json(results).failures))} causes, "
        f"verdict {results['verdict']}"
    )
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        met = measure(args, results, Path(args.out))
    else:
        with tempfile.TemporaryDirectory(prefix="bench-report-") as folder:
            met = measure(args, results, Path(folder))
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
