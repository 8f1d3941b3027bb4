"""What the benchmarks share for timing: the median wall time of repeated calls, and one percentile."""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(work: Callable[[], object], runs: int, *, warm: bool = False) -> float:
    """The median wall time in seconds of `runs` calls of work(), after one untimed call first when `warm`."""
    if warm:
        work()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def median_ms(work: Callable[[], object], runs: int, *, warm: bool = False) -> float:
    """median_seconds in milliseconds."""
    return 1000 * median_seconds(work, runs, warm=warm)


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (q from 0 to 1: 0.95 for the p95) of values, the nearest rank; nan for none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]
