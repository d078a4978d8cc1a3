"""A fixed workload timed beside every benchmark, so that its figures travel between machines.

Two machines of one kind (two cores, the same CPU family) can differ twofold in
absolute seconds, and so can one machine from hour to hour. Each benchmark therefore
also times this workload in the same session, before and after its own runs, and
prints its figures as multiples of it beside the seconds: a figure of "29 refs" means
29 times as long as the reference workload took on that machine that hour, which can
be compared with another machine's "29 refs" where seconds cannot.

The workload is two fixed parts of known size, each about a quarter of a second on
the 2-core machine of docs/performance.md, each timed alone:

* `python`: a pure-Python loop (integer arithmetic, a dict, a list, attribute-free
  calls): what the harness's own per-request work is made of;
* `numpy`: sorting and summing a fixed array of 2,700,000 integers drawn from a
  fixed seed: what the mathematics and the vectorised planning are made of.

The reference is their sum, one sample the median of five timings of each part.
Nothing in it depends on chcert, so a change to chcert cannot move it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

TIMINGS = 5  # timings of each part per sample; the sample is their median


def python_part() -> int:
    """A pure-Python loop of fixed size: arithmetic, a dict and a list, 2,400,000 turns."""
    table: dict[int, int] = {}
    kept: list[int] = []
    total = 0
    for i in range(2_400_000):
        total = (total * 31 + i) % 1_000_003
        table[total & 4095] = i
        if i & 7 == 0:
            kept.append(total)
    return total + len(table) + len(kept)


_ARRAY = np.random.default_rng(20261207).integers(0, 1 << 40, 2_700_000)


def numpy_part() -> int:
    """Numpy on a fixed array: two sorts, a cumulative sum, a histogram of its bytes."""
    ordered = np.sort(_ARRAY)
    again = np.sort(_ARRAY[::-1].copy(), kind="stable")
    counts = np.bincount((_ARRAY & 0xFF).astype(np.int64), minlength=256)
    return int(np.cumsum(ordered)[-1] % 1_000_003 + again[0] + counts.max())


def _seconds(part: Callable[[], int]) -> float:
    times = []
    for _ in range(TIMINGS):
        started = time.perf_counter()
        part()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


class Reference:
    """The reference workload's samples in one benchmark session, and figures as
    multiples of it."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []  # (python s, numpy s)

    def sample(self) -> None:
        """Time the workload once more (call before and after the benchmark's runs)."""
        self.samples.append((_seconds(python_part), _seconds(numpy_part)))

    @property
    def seconds(self) -> float:
        """The reference: the median over the samples of python + numpy seconds."""
        if not self.samples:
            self.sample()
        return statistics.median(p + n for p, n in self.samples)

    def refs(self, seconds: float) -> float:
        """`seconds` as a multiple of the reference workload."""
        return seconds / self.seconds

    def per_ref(self, rate: float) -> float:
        """A rate (things per second) as things per reference workload's time."""
        return rate * self.seconds

    def describe(self) -> str:
        """One line: the reference's parts and their spread over the samples."""
        python = [p for p, _ in self.samples]
        numpy_ = [n for _, n in self.samples]
        spread = (
            ""
            if len(self.samples) < 2
            else (f"; samples {', '.join(f'{p + n:.3f}' for p, n in self.samples)}")
        )
        return (
            f"reference workload: {self.seconds:.3f} s = pure Python "
            f"{statistics.median(python):.3f} s + numpy {statistics.median(numpy_):.3f} s"
            f"{spread} (benchmarks/reference_workload.py)"
        )


@contextmanager
def bracketed() -> Iterator[Reference]:
    """The reference timed before and after a benchmark's runs, its line printed last:
    any figure in seconds divided by it is the same figure in refs."""
    reference = Reference()
    reference.sample()
    try:
        yield reference
    finally:  # a benchmark that stops on a failure still says how fast the machine was
        reference.sample()
        print(reference.describe(), flush=True)


def main() -> None:
    reference = Reference()
    for _ in range(3):
        reference.sample()
    print(reference.describe())


if __name__ == "__main__":
    main()
