"""The register of certificates (docs/register.md): issuing, concurrent issuing, check.

Run on demand (not a test):

    python3 benchmarks/bench_register.py [--register PATH|URL] [--reports N] [--processes P]

On a new register (an SQLite file in a temporary folder unless `--register` names an empty
database, a PostgreSQL one say): N reports (unsigned FAILs, so test records; a signature's
verification is timed apart, on one signed report) recorded one after another, then P
processes each recording N / P at once; then `check` over all of them. Prints the medians
of the per-report times, wall and CPU, and each step's rate. Targets on the 2-core
machine: recording under 50 ms a report, check under 0.2 s a kept report.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference_workload import bracketed

from harness.register.reports import read_report
from harness.register.store import Register
from tests.certs import make_lab
from tests.registers import issue_many, report, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--register", help="an empty PostgreSQL database's URL (default: SQLite)")
    parser.add_argument("--reports", type=int, default=200)
    parser.add_argument("--processes", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chcert-bench-register-") as folder:
        work = Path(folder)
        given = args.register or str(work / "register.db")
        lab = make_lab(work / "lab", "Bench Lab")
        book = Register(given, create=True)
        book.init(prefix=None, address=None, trust=[lab.cert.read_text()], by="bench")

        pdfs = [
            report(work, None, results("FAIL"), name=f"one-{i}.pdf") for i in range(args.reports)
        ]
        walls, cpus = [], []
        for pdf in pdfs:
            wall, cpu = time.perf_counter(), time.process_time()
            book.record(read_report(pdf, []), by="bench")
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        print(
            f"recording one after another: {args.reports} test records, median "
            f"{statistics.median(walls) * 1e3:.1f} ms wall, {statistics.median(cpus) * 1e3:.1f} "
            f"ms CPU a report (reading the PDF included)"
        )

        signed = report(work, lab, results("PASS"), name="signed.pdf")
        read_report(signed, book.anchors())  # the imports, once
        times = []
        for _ in range(5):
            wall = time.perf_counter()
            read_report(signed, book.anchors())
            times.append(time.perf_counter() - wall)
        shown = statistics.median(times) * 1e3
        print(f"reading a signed report (its signature verified): median {shown:.0f} ms")

        each = max(args.reports // args.processes, 1)
        wall = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
            given_numbers = pool.starmap(issue_many, [(given, each, folder)] * args.processes)
        took = time.perf_counter() - wall
        numbers = [n for batch in given_numbers for n in batch]
        assert len(set(numbers)) == len(numbers), "a number given twice"
        print(
            f"recording at once: {args.processes} processes x {each} reports in {took:.1f} s "
            f"= {len(numbers) / took:.1f} reports/s, every number distinct"
        )

        kept = len(book.entries())
        wall, cpu = time.perf_counter(), time.process_time()
        problems, head = book.check()
        took, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert not problems, problems[:3]
        print(
            f"check: {kept} kept reports, {head.seq} events, intact, in {took:.1f} s, "
            f"{cpu:.1f} CPU-s = {took / kept * 1e3:.0f} ms a kept report"
        )
        book.close()


if __name__ == "__main__":
    with bracketed():  # the reference workload, which travels between machines
        main()
