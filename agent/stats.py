"""Benchmark statistics: per-case summary, throughput and the geometric-mean score."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class CaseStats:
    runs: int
    mean_ms: float
    median_ms: float
    std_ms: float
    min_ms: float
    max_ms: float
    rel_stderr: float
    gflops: float | None
    gbps: float | None

    def as_dict(self) -> dict[str, float | int | None]:
        return asdict(self)


def summarize(times_ms: Sequence[float], *, flops: float, nbytes: float) -> CaseStats:
    if not times_ms:
        raise ValueError("no timed runs")
    mean = statistics.fmean(times_ms)
    std = statistics.stdev(times_ms) if len(times_ms) > 1 else 0.0
    seconds = mean / 1e3
    return CaseStats(
        runs=len(times_ms),
        mean_ms=mean,
        median_ms=statistics.median(times_ms),
        std_ms=std,
        min_ms=min(times_ms),
        max_ms=max(times_ms),
        rel_stderr=(std / math.sqrt(len(times_ms)) / mean) if mean > 0 else 0.0,
        gflops=(flops / seconds / 1e9) if seconds > 0 and flops else None,
        gbps=(nbytes / seconds / 1e9) if seconds > 0 and nbytes else None,
    )


def geometric_mean(values: Sequence[float]) -> float:
    if not values or any(v <= 0 for v in values):
        raise ValueError("the geometric mean needs positive values")
    return math.exp(statistics.fmean(math.log(v) for v in values))
