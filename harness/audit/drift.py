"""Drift: the calls' outcomes changing over the period (docs/audit.md, Drift).

Each day's sum of outcome minus expectation (harness/audit/returns.py: the calls of
each round's lowest seat, against the census's exact expectation given what it saw) is
standardized against the period's own level, so that outcomes off by the same share of
their variance every day (the return check's to find) are no drift: with r_d the day's
sum, v_d its variance and R, V the period's, u_d = (r_d - v_d R / V) /
sqrt(v_d (1 - v_d / V)), of mean 0 and variance 1 under no drift. A two-sided CUSUM
(Page) with reference value K reads them day by day, S+ = max(0, S+ + u - K) and
S- = max(0, S- - u - K); the statistic is the largest either reaches. Its chance under
no drift is measured by simulation of the same days (each a normal sum of its own
variance, centred the same way; a fixed seed, so an audit reads the same every time):
the p-value is the share of simulated periods reaching it, the decision limit h the
99th percentile. The in-control run length of the chart at that h (days to a false
alarm of a running chart, not centred) and the smallest step the test finds with 80%
power (a shift of the daily outcomes, in standard deviations of a day, from the middle
day of the period on) are measured the same way. The day the outcomes moved is
estimated as the split where the centred sums before it differ most from the level (a
single step's estimate). A day with fewer than LEAST_CALLS_A_DAY effective calls read
(harness/audit/returns.py `DaySums.effective`) is left out, said in `too_few`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.audit.returns import DaySums
from harness.gamemath.rng import POWER, StatResult

ALPHA = 0.01
K = 0.5  # the CUSUM's reference value, in standard deviations of a day
LEAST_DAYS = 7
LEAST_CALLS_A_DAY = 100  # for a day's sum to be read as normal
SIMULATIONS = 4_000
SEED = 2026
LONGEST_RUN = 100_000  # days: a simulated in-control run stops there


@dataclass(frozen=True)
class DriftTest:
    result: StatResult | None
    days: list[str]  # the days read, in order
    limit: float  # h: the CUSUM's decision limit at ALPHA
    run_length: float  # the chart's in-control average run length at h, days
    run_length_at_least: bool  # some simulated runs stopped at LONGEST_RUN
    change: str | None  # the day the outcomes moved (a single step's estimated place)
    too_few: str  # why not read, when result is None
    left_out: list[str]  # days with too few calls


def _cusum(u: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The largest of S+ and S- over the days of each row of `u` (periods x days)."""
    up = np.zeros(u.shape[0])
    down = np.zeros(u.shape[0])
    most = np.zeros(u.shape[0])
    for d in range(u.shape[1]):
        up = np.maximum(0.0, up + u[:, d] - K)
        down = np.maximum(0.0, down - u[:, d] - K)
        most = np.maximum(most, np.maximum(up, down))
    return most


def _centred(r: npt.NDArray[np.float64], v: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each day's sum standardized against the period's level (rows: periods)."""
    total = v.sum()
    level = r.sum(axis=-1, keepdims=True) / total
    centred: npt.NDArray[np.float64] = (r - v * level) / np.sqrt(v * (1 - v / total))
    return centred


def _simulated(
    v: npt.NDArray[np.float64], shift: float, draw: np.random.Generator
) -> npt.NDArray[np.float64]:
    """The CUSUM statistic of SIMULATIONS periods of these days, the daily outcomes
    shifted by `shift` standard deviations from the middle day on."""
    sd = np.sqrt(v)
    r = draw.standard_normal((SIMULATIONS, len(v))) * sd
    r[:, len(v) // 2 :] += shift * sd[len(v) // 2 :]
    return _cusum(_centred(r, v))


def _run_length(limit: float, draw: np.random.Generator) -> tuple[float, bool]:
    """The average days a running two-sided chart at `limit` takes to a false alarm, and
    whether some runs were stopped at LONGEST_RUN (the average then a lower bound)."""
    runs = 2_000
    up, down = np.zeros(runs), np.zeros(runs)
    length = np.zeros(runs)
    going = np.ones(runs, bool)
    for day in range(1, LONGEST_RUN + 1):
        u = draw.standard_normal(runs)
        up = np.maximum(0.0, up + u - K)
        down = np.maximum(0.0, down - u - K)
        alarm = going & ((up > limit) | (down > limit))
        length[alarm] = day
        going &= ~alarm
        if not going.any():
            break
    length[going] = LONGEST_RUN
    return float(length.mean()), bool(going.any())


def drift_test(by_day: dict[str, DaySums]) -> DriftTest:
    days = sorted(by_day)
    read = [d for d in days if by_day[d].effective >= LEAST_CALLS_A_DAY]
    left_out = [d for d in days if d not in read]
    if len(read) < LEAST_DAYS:
        return DriftTest(
            None,
            read,
            math.nan,
            math.nan,
            False,
            None,
            f"{len(read)} days with {LEAST_CALLS_A_DAY} effective calls read; {LEAST_DAYS} needed",
            left_out,
        )
    r = np.array([by_day[d].residual for d in read])
    v = np.array([by_day[d].variance for d in read])
    statistic = _cusum(_centred(r[None, :], v))
    observed = float(statistic[0])
    draw = np.random.default_rng(SEED)
    null = _simulated(v, 0.0, draw)
    p_value = float(((null >= observed).sum() + 1) / (SIMULATIONS + 1))
    limit = float(np.quantile(null, 1 - ALPHA))
    step = _detectable(v, limit, draw)
    change = _change(r, v, read)
    result = StatResult(
        "the lowest seat's outcomes, day by day",
        observed,
        p_value,
        f"a two-sided CUSUM (K {K}, decision limit h {limit:.2f} at alpha {ALPHA} by "
        f"{SIMULATIONS:,} simulated periods) of {len(read)} days' standardized outcomes, "
        "each against the period's own level",
        f"a step of {step:.2f} standard deviations of a day's outcomes from the middle day, "
        f"with {POWER:.0%} power",
        p_adjusted=p_value,
        passed=p_value >= ALPHA,
    )
    run_length, at_least = _run_length(limit, draw)
    return DriftTest(result, read, limit, run_length, at_least, change, "", left_out)


def _detectable(v: npt.NDArray[np.float64], limit: float, draw: np.random.Generator) -> float:
    """The smallest step from the middle day the test finds with POWER (bisection)."""
    low, high = 0.0, 8.0
    for _ in range(12):
        mid = (low + high) / 2
        if float((_simulated(v, mid, draw) > limit).mean()) >= POWER:
            high = mid
        else:
            low = mid
    return high


def _change(r: npt.NDArray[np.float64], v: npt.NDArray[np.float64], days: list[str]) -> str:
    """The day the outcomes moved: the split of the period whose days before and after
    differ most from the period's level (the largest cumulative centred sum, the
    estimate of a single step's place)."""
    cumulative = np.cumsum(r - v * r.sum() / v.sum())[:-1]
    return days[int(np.argmax(np.abs(cumulative))) + 1]
