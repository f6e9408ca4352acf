"""Benchmark statistics: per-case summary with its 95 % interval, throughput and the geometric-mean
score with its interval."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass

# Two-sided 95 % quantiles of Student's t by degrees of freedom (1-30); past 30 the normal 1.96 is
# within 2 % of t. A benchmark case has 3 to 200 runs, so small samples are the common case.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042)


def t95(degrees_of_freedom: int) -> float:
    if degrees_of_freedom < 1:
        raise ValueError("an interval needs at least two runs")
    return _T95[degrees_of_freedom - 1] if degrees_of_freedom <= len(_T95) else 1.96


@dataclass(frozen=True)
class CaseStats:
    runs: int
    mean_ms: float
    median_ms: float
    std_ms: float
    min_ms: float
    max_ms: float
    rel_stderr: float
    ci95_ms: tuple[float, float]  # the mean's 95 % confidence interval (Student t); one run: the run itself
    gflops: float | None
    gbps: float | None

    def as_dict(self) -> dict[str, object]:
        values = asdict(self)
        values["ci95_ms"] = list(self.ci95_ms)
        return values


def summarize(times_ms: Sequence[float], *, flops: float, nbytes: float) -> CaseStats:
    if not times_ms:
        raise ValueError("no timed runs")
    mean = statistics.fmean(times_ms)
    std = statistics.stdev(times_ms) if len(times_ms) > 1 else 0.0
    half = t95(len(times_ms) - 1) * std / math.sqrt(len(times_ms)) if len(times_ms) > 1 else 0.0
    seconds = mean / 1e3
    return CaseStats(
        runs=len(times_ms),
        mean_ms=mean,
        median_ms=statistics.median(times_ms),
        std_ms=std,
        min_ms=min(times_ms),
        max_ms=max(times_ms),
        rel_stderr=(std / math.sqrt(len(times_ms)) / mean) if mean > 0 else 0.0,
        ci95_ms=(max(mean - half, 0.0), mean + half),
        gflops=(flops / seconds / 1e9) if seconds > 0 and flops else None,
        gbps=(nbytes / seconds / 1e9) if seconds > 0 and nbytes else None,
    )


def geometric_mean(values: Sequence[float]) -> float:
    if not values or any(v <= 0 for v in values):
        raise ValueError("the geometric mean needs positive values")
    return math.exp(statistics.fmean(math.log(v) for v in values))


def geometric_mean_interval(means: Sequence[float], intervals: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The 95 % interval of the geometric mean of independent case means: in log space the score is
    the average of the cases' logs, whose standard errors (each case's half-width over 1.96, relative
    to its mean) add in quadrature and shrink by the number of cases (the delta method)."""
    if len(means) == 1:  # the case's own interval, as its RANKED_RESULT shows it
        return intervals[0][0], intervals[0][1]
    score = geometric_mean(means)
    variance = sum(((high - low) / 2 / 1.96 / mean) ** 2 for mean, (low, high) in zip(means, intervals, strict=True))
    half = 1.96 * math.sqrt(variance) / len(means)
    return score * math.exp(-half), score * math.exp(half)
