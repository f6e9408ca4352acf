"""The ranked result of a leaderboard submission, read from the agent's RESULT summary (the
ranked-pass protocol: docs/agent.md, Ranked pass) and checked against the problem. What it does to
the leaderboard (the standing, the review rules) is the leaderboard app's."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fleets.models import Pool

# The agent's score and speedup must match what its own cases give (the geometric means) this closely.
AGREEMENT = 1e-3


class BadRankedResult(ValueError):
    """The agent's ranked result is not what the contract says; the message says what is wrong."""


@dataclass(frozen=True)
class RankedCase:
    case: str
    index: int
    runs: int
    mean_ms: float
    median_ms: float
    ci95_ms: tuple[float, float]
    reference_mean_ms: float | None
    speedup: float | None
    gflops: float | None
    gbps: float | None
    reference_ci95_ms: tuple[float, float] | None = None


@dataclass(frozen=True)
class RankedResult:
    score_ms: float
    ci95_ms: tuple[float, float] | None
    speedup: float | None
    cases: tuple[RankedCase, ...]


def pool_device_class(pool: Pool) -> str:
    """The device class (problem.yaml's `devices`) a pool's machines judge on."""
    return "host" if pool.device == "host" else "gpu"


def ranked_case_names(*, definition: Mapping[str, Any], device_class: str) -> list[str]:
    return [str(case.get("name")) for case in definition.get("ranked") or []
            if isinstance(case, Mapping) and device_class in (case.get("devices") or [])]


def _number(value: Any, where: str, *, optional: bool = False, positive: bool = True) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or (
            value <= 0 if positive else value < 0):
        raise BadRankedResult(f"{where} must be a {'positive' if positive else 'non-negative'} number")
    return float(value)


def _interval(value: Any, where: str, *, optional: bool = False) -> tuple[float, float] | None:
    if value is None and optional:
        return None
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise BadRankedResult(f"{where} must be [low, high]")
    low = _number(value[0], f"{where}[0]", positive=False)
    high = _number(value[1], f"{where}[1]", positive=False)
    assert low is not None and high is not None
    if low > high:
        raise BadRankedResult(f"{where} has its low end above its high end")
    return low, high


def _case(raw: Any, position: int) -> RankedCase:
    where = f"cases[{position}]"
    if not isinstance(raw, Mapping) or not isinstance(raw.get("case"), str) or not raw["case"]:
        raise BadRankedResult(f"{where}.case must name the case")
    runs = raw.get("runs")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise BadRankedResult(f"{where}.runs must be a positive integer")
    mean, median = _number(raw.get("mean_ms"), f"{where}.mean_ms"), _number(raw.get("median_ms"), f"{where}.median_ms")
    interval = _interval(raw.get("ci95_ms"), f"{where}.ci95_ms")
    assert mean is not None and median is not None and interval is not None
    index = raw.get("index")
    return RankedCase(
        case=raw["case"][:200], index=index if isinstance(index, int) and not isinstance(index, bool) else position,
        runs=runs, mean_ms=mean, median_ms=median, ci95_ms=interval,
        reference_mean_ms=_number(raw.get("reference_mean_ms"), f"{where}.reference_mean_ms", optional=True),
        speedup=_number(raw.get("speedup"), f"{where}.speedup", optional=True),
        gflops=_number(raw.get("gflops"), f"{where}.gflops", optional=True, positive=False),
        gbps=_number(raw.get("gbps"), f"{where}.gbps", optional=True, positive=False),
        reference_ci95_ms=_interval(raw.get("reference_ci95_ms"), f"{where}.reference_ci95_ms", optional=True))


def _geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _agrees(reported: float | None, computed: float | None) -> bool:
    if reported is None or computed is None:
        return reported is None and computed is None
    return abs(reported - computed) <= AGREEMENT * computed


def ranked_result_parse(*, summary: Any, expected_cases: list[str]) -> RankedResult:
    """The passed ranked result in a RESULT summary; BadRankedResult when it is missing, malformed,
    covers other cases than the problem's ranked cases for the device, or disagrees with itself."""
    ranked = summary.get("ranked") if isinstance(summary, Mapping) else None
    if not isinstance(ranked, Mapping):
        raise BadRankedResult("the summary has no ranked result")
    if ranked.get("passed") is not True:
        raise BadRankedResult("the ranked pass did not pass")
    raw_cases = ranked.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise BadRankedResult("ranked.cases must list the ranked cases")
    cases = tuple(sorted((_case(raw, i) for i, raw in enumerate(raw_cases)), key=lambda c: c.index))
    if sorted(c.case for c in cases) != sorted(expected_cases):
        raise BadRankedResult(f"the ranked cases {[c.case for c in cases]} are not the problem's {expected_cases}")
    score = _number(ranked.get("score_ms"), "ranked.score_ms")
    if not _agrees(score, _geometric_mean([c.mean_ms for c in cases])):
        raise BadRankedResult("ranked.score_ms is not the geometric mean of the cases' means")
    speedups = [c.speedup for c in cases]
    computed = _geometric_mean([s for s in speedups if s is not None]) if None not in speedups else None
    speedup = _number(ranked.get("speedup"), "ranked.speedup", optional=True)
    if not _agrees(speedup, computed):
        raise BadRankedResult("ranked.speedup is not the geometric mean of the cases' speedups")
    assert score is not None
    return RankedResult(score_ms=score, ci95_ms=_interval(ranked.get("ci95_ms"), "ranked.ci95_ms", optional=True),
                        speedup=speedup, cases=cases)
