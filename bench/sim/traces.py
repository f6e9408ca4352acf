"""Traces: who submits what and when, and how long each job keeps a warm VM busy.

A job's length comes from its problem and mode (`JobLengths`): the agent's phases on an MI300X VM
for the problem's GPU test and benchmark cases (problems/<slug>/problem.yaml), with a log-normal
spread; or from the platform's history (the started -> finished times of judged submissions of the
same problem and mode). Arrivals are Poisson processes (thinned for a varying rate), except the
sparse trace, whose few sessions a day are a user's submission and quick resubmissions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
TRACE_START = datetime(2026, 11, 2, tzinfo=UTC)  # a Monday, 00:00 UTC
DAY, HOUR = 86400.0, 3600.0
MODES = (("benchmark", 0.6), ("check", 0.3), ("compile", 0.1))

# The agent's phases on an MI300X VM (estimates: nothing here has run on one).
SETUP_S = 3.0  # the job arrives, the source is written, the sandbox starts
COMPILE_S = 12.0  # hipcc --offload-arch=gfx942, one kernel, cold compile cache
TEST_CASE_S = 1.0  # inputs, copies, the call, the NumPy reference, the comparison
BENCH_CASE_S = 3.5  # the 2 s case budget, warm-up, 512 MiB cache flushes, the re-check
CONTEST_DECLARED_H = 6.0  # the contest's last hours that staff declare as an event
SPREAD = 0.3  # sigma of the log-normal factor around the modelled length


@dataclass(frozen=True)
class Arrival:
    at_s: float  # seconds after the trace's start
    user: int  # which simulated user submits it
    problem: str
    mode: str
    duration_s: float  # how long the job keeps a warm VM busy


@dataclass(frozen=True)
class DeclaredEvent:
    """What staff would declare ahead of a known event (fleets.PoolEvent), in seconds after the start."""

    title: str
    from_s: float
    to_s: float
    expected_per_h: float


@dataclass(frozen=True)
class Trace:
    name: str
    start: datetime
    span_s: float
    arrivals: list[Arrival]
    about: str
    events: tuple[DeclaredEvent, ...] = ()
    # The rate (jobs/h at t seconds) the arrivals were drawn from, where they are a Poisson process
    # (steady, diurnal, contest): what bench/sim/online_bound.py bounds every online policy with.
    rate_per_h: Callable[[float], float] | None = None


def _gpu_cases(spec: dict[str, Any], key: str) -> int:
    return sum(1 for case in spec.get(key) or [] if "gpu" in (case.get("devices") or []))


def modelled_seconds(spec: dict[str, Any], mode: str) -> float:
    """The mean length of a job of this problem (its problem.yaml) in this mode."""
    seconds = SETUP_S + COMPILE_S
    if mode in ("check", "benchmark"):
        seconds += TEST_CASE_S * _gpu_cases(spec, "tests")
    if mode == "benchmark":
        seconds += BENCH_CASE_S * _gpu_cases(spec, "benchmarks")
    return seconds


class JobLengths:
    """Draws a job's length: from history when it holds jobs of that problem and mode, else the model."""

    def __init__(self, *, history: dict[tuple[str, str], list[float]] | None = None,
                 problems_dir: Path = ROOT / "problems", only: Collection[str] | None = None) -> None:
        # `only`: draw from these problems alone, so that a trace stays the same when problems are added.
        self.specs = {p.parent.name: yaml.safe_load(p.read_text()) for p in sorted(problems_dir.glob("*/problem.yaml"))
                      if only is None or p.parent.name in only}
        self.history = {key: values for key, values in (history or {}).items() if values}

    @property
    def problems(self) -> list[str]:
        return sorted(self.specs)

    def draw(self, rng: random.Random, problem: str, mode: str) -> float:
        seen = self.history.get((problem, mode))
        if seen:
            return rng.choice(seen)
        mean = modelled_seconds(self.specs.get(problem, {}), mode)
        return mean * math.exp(rng.gauss(0, SPREAD) - SPREAD * SPREAD / 2)


def _mode(rng: random.Random) -> str:
    return rng.choices([m for m, _ in MODES], weights=[w for _, w in MODES])[0]


def _poisson(rng: random.Random, rate_per_h: Callable[[float], float], peak_per_h: float,
             span_s: float) -> list[float]:
    """Arrival times of a Poisson process of rate rate_per_h(t) <= peak_per_h (thinning)."""
    times, t = [], 0.0
    if peak_per_h <= 0:
        return times
    while True:
        t += rng.expovariate(peak_per_h / HOUR)
        if t >= span_s:
            return times
        if rng.random() * peak_per_h < rate_per_h(t):
            times.append(t)


def _arrivals(rng: random.Random, times: list[float], lengths: JobLengths, users: int) -> list[Arrival]:
    out = []
    for t in times:
        problem, mode = rng.choice(lengths.problems), _mode(rng)
        out.append(Arrival(t, rng.randrange(users), problem, mode, lengths.draw(rng, problem, mode)))
    return out


def steady(*, rng: random.Random, lengths: JobLengths, span_s: float, rate_per_h: float, users: int) -> Trace:
    def rate(t: float) -> float:
        return rate_per_h

    times = _poisson(rng, rate, rate_per_h, span_s)
    return Trace("steady", TRACE_START, span_s, _arrivals(rng, times, lengths, users),
                 f"Poisson, {rate_per_h:g} jobs/h around the clock", rate_per_h=rate)


def day_rate(t: float, peak_per_h: float) -> float:
    """Quiet nights, a working day peaking mid-afternoon (UTC): peak x sin^2 between 06:00 and 22:00."""
    hour = (t % DAY) / HOUR
    day = math.sin(math.pi * (hour - 6) / 16) ** 2 if 6 <= hour <= 22 else 0.0
    return peak_per_h * max(day, 0.02)


def diurnal(*, rng: random.Random, lengths: JobLengths, span_s: float, peak_per_h: float, users: int) -> Trace:
    def rate(t: float) -> float:
        return day_rate(t, peak_per_h)

    times = _poisson(rng, rate, peak_per_h, span_s)
    return Trace("diurnal", TRACE_START, span_s, _arrivals(rng, times, lengths, users),
                 f"Poisson, day/night: up to {peak_per_h:g} jobs/h at 14:00 UTC, {0.02 * peak_per_h:g}/h at night",
                 rate_per_h=rate)


def contest(*, rng: random.Random, lengths: JobLengths, span_s: float, background_per_h: float,
            peak_per_h: float, users: int) -> Trace:
    """A background trickle, then a rush before a deadline 6 h before the trace ends."""
    deadline = span_s - 6 * HOUR

    def rate(t: float) -> float:
        rush = peak_per_h * math.exp(-(deadline - t) / (3 * HOUR)) if t < deadline else 0.0
        return background_per_h + rush

    times = _poisson(rng, rate, background_per_h + peak_per_h, span_s)
    # Staff know the deadline: they declare its last hours, at the rush's mean rate over them.
    window = CONTEST_DECLARED_H * HOUR
    mean_rush = peak_per_h * 3 * HOUR * (1 - math.exp(-window / (3 * HOUR))) / window
    declared = DeclaredEvent("contest deadline", max(deadline - window, 0.0), deadline, background_per_h + mean_rush)
    return Trace("contest", TRACE_START, span_s, _arrivals(rng, times, lengths, users),
                 f"{background_per_h:g} jobs/h, then a rush to {peak_per_h:g}/h before a deadline "
                 f"(day {deadline / DAY:.1f})", events=(declared,), rate_per_h=rate)


def sparse(*, rng: random.Random, lengths: JobLengths, span_s: float, sessions_per_day: float, users: int) -> Trace:
    """A few sessions a day: one submission, then up to two resubmissions 2-8 min apart."""
    arrivals = []
    for start in _poisson(rng, lambda t: sessions_per_day / 24, sessions_per_day / 24, span_s):
        user, problem, t = rng.randrange(users), rng.choice(lengths.problems), start
        for _ in range(rng.choice((1, 1, 2, 3))):
            if t >= span_s:
                break
            mode = _mode(rng)
            arrivals.append(Arrival(t, user, problem, mode, lengths.draw(rng, problem, mode)))
            t += rng.uniform(120, 480)
    arrivals.sort(key=lambda a: a.at_s)
    return Trace("sparse", TRACE_START, span_s, arrivals,
                 f"{sessions_per_day:g} sessions a day of 1-3 submissions 2-8 min apart")


def span_for(arrivals: list[Arrival]) -> float:
    return (max((a.at_s for a in arrivals), default=0.0) // HOUR + 1) * HOUR

